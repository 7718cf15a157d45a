// The bridge's public https address, fixed when the extension is built. Shopify CLI hands esbuild every variable
// of its environment to replace `process.env.NAME` with (Shopify/cli#4587), so the operator deploys with the
// bridge's own setting: `PUBLIC_URL=https://bridge.example.com shopify app deploy`. Built without it, nothing
// replaces the expression, `process` does not exist where the extension runs, and the extension says points are
// not set up rather than calling anywhere. docs/shopify.md, "In the customer's account".
declare const process: { env: Record<string, string | undefined> };

function built(): string | undefined {
  try {
    return process.env.PUBLIC_URL;
  } catch {
    return undefined;
  }
}

/** Only an https address: Shopify lets an extension's fetch() reach nothing else. */
export function bridgeUrl(): string | undefined {
  const url = built()?.trim().replace(/\/+$/, '');
  return url && /^https:\/\/[^/\s]+$/.test(url) ? url : undefined;
}
