// Whether a WooCommerce store can be connected at all from this bridge: WooCommerce sends a store's new key
// only to an https callback_url, so the bridge needs an https PUBLIC_URL.

/** Why a connect cannot start, or undefined when it can. */
export function wooConnectProblem(publicUrl: string | undefined): string | undefined {
  if (!publicUrl)
    return 'Set PUBLIC_URL to the bridge’s public https address: WooCommerce sends the store’s keys there';
  if (!publicUrl.startsWith('https://'))
    return `PUBLIC_URL must be https: WooCommerce sends the store’s keys only to an https callback (it is ${publicUrl})`;
  return undefined;
}
