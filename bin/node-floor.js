// The oldest Node.js the bridge runs on, checked before anything else loads:
// the bridge runs its TypeScript through Node's own type stripping (22.18 and
// above), so an older Node fails later in ways that do not name the cause.
// `npm start` imports this; `npm test` runs it first (the pretest script).
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `loyalty-bridge needs Node.js 22.18 or later (this is ${process.version}): it runs its TypeScript through Node's own type stripping.`,
  );
  process.exit(1);
}
