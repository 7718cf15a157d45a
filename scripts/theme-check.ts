// npm run lint:theme: Shopify's theme check (@shopify/theme-check-node, offline) on the theme app extension,
// with its own config for theme app extensions (theme-check:theme-app-extension, in
// extensions/loyalty-theme/.theme-check.yml). The package has no command of its own, so this calls its check()
// as Shopify CLI does. Every offence is printed; an error (severity 0) fails the run, as CI must.
import { check, Severity } from '@shopify/theme-check-node';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../extensions/loyalty-theme/', import.meta.url));
const NAMES: Record<number, string> = {
  [Severity.ERROR]: 'error',
  [Severity.WARNING]: 'warning',
  [Severity.INFO]: 'info',
};

const offences = await check(ROOT, `${ROOT}.theme-check.yml`);
for (const offence of offences) {
  const where = offence.uri.replace(/^file:\/\//, '').replace(ROOT, 'extensions/loyalty-theme/');
  const line = offence.start.line + 1;
  console.log(`${where}:${line} ${NAMES[offence.severity] ?? offence.severity} ${offence.check}: ${offence.message}`);
}
const errors = offences.filter((offence) => offence.severity === Severity.ERROR).length;
console.log(`theme check: ${offences.length} offences, ${errors} errors in extensions/loyalty-theme`);
if (errors > 0) process.exitCode = 1;
