// When `npm run soak` runs a test file, it asks for figures (faults injected,
// crashes survived, inputs tried) through SOAK_REPORT, a JSON file.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export function reportToSoak(figures: Record<string, number>): void {
  const path = process.env.SOAK_REPORT;
  if (!path) return;
  const current = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>) : {};
  for (const [name, value] of Object.entries(figures)) current[name] = (current[name] ?? 0) + value;
  writeFileSync(path, JSON.stringify(current));
}
