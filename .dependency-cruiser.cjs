// The layering of DESIGN.md ("Layout"), checked by `npm run lint:boundaries`
// (dependency-cruiser). Type-only imports count: a type the core names is a
// dependency the core has. Each rule says why it exists in its comment.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-adapter',
      comment:
        'The core never sees a platform: the interfaces it calls (the platform adapter, the store) are declared in src/core and implemented by adapters.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^adapters/' },
    },
    {
      name: 'core-imports-no-configuration',
      comment:
        "The core takes its settings as plain values from the composition root (src/composition/); it never reads the configuration's schema.",
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/config\\.ts$' },
    },
    {
      name: 'core-imports-no-outer-layer',
      comment: 'The core sits below http, the CLI and the composition root.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(http|composition|sandbox|cli|accounts)/|^src/cli\\.ts$|^src/platform-registry\\.ts$' },
    },
    {
      name: 'accounts-import-no-outer-layer',
      comment:
        'The loyalty accounts (src/accounts/) sit above the core and below what serves them: http, the composition root and the CLI hand them in, never the other way round. Views they share with http live in the core.',
      severity: 'error',
      from: { path: '^src/accounts/' },
      to: { path: '^src/(http|composition|cli)/|^src/cli\\.ts$|^src/platform-registry\\.ts$' },
    },
    {
      name: 'configuration-imports-no-outer-layer',
      comment:
        "The configuration's schema (src/config.ts) is composed from the platforms' fragments (src/platform-registry.ts), and read by the parts above it: it imports none of them.",
      severity: 'error',
      from: { path: '^src/config\\.ts$' },
      to: { path: '^src/(http|composition|cli|accounts)/|^src/cli\\.ts$' },
    },
    {
      name: 'services-import-no-outer-layer',
      comment:
        "The use cases (src/services/: the storefront, the merchant's actions, the operator's) sit above the core and the accounts and below the routes that call them: they never see HTTP, the composition root or the CLI.",
      severity: 'error',
      from: { path: '^src/services/' },
      to: { path: '^src/(http|composition|cli)/|^src/cli\\.ts$|^src/platform-registry\\.ts$' },
    },
    {
      name: 'core-and-accounts-import-no-service',
      comment: 'The services call the core and the accounts, never the other way round.',
      severity: 'error',
      from: { path: '^src/(core|accounts)/' },
      to: { path: '^src/services/' },
    },
    {
      name: 'http-imports-no-composition',
      comment:
        "Routes are handed what they serve (the platforms built, the accounts, the store's roles) when the composition root builds them: http never reaches up to build or list them itself, nor into the platforms' one list.",
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(composition|cli)/|^src/cli\\.ts$|^src/platform-registry\\.ts$' },
    },
    {
      name: 'composition-imports-no-cli',
      comment: 'The CLI starts the composition root; the root never imports a command.',
      severity: 'error',
      from: { path: '^src/composition/' },
      to: { path: '^src/cli/|^src/cli\\.ts$' },
    },
    {
      name: 'adapters-import-no-http',
      comment:
        'A platform module knows its platform, not how the bridge serves requests: its routes are PlatformRoute handlers (src/core/platform-module.ts), which src/http mounts. Shipped modules live in adapters/, the made-up one that proves the interface in test/platforms/.',
      severity: 'error',
      // The module's own test and its fake platform drive the whole bridge from outside; they are not the module.
      from: { path: '^(adapters|test/platforms)/', pathNot: '\\.test\\.ts$|/fake-[^/]+\\.ts$' },
      to: { path: '^src/(http|composition|cli)/|^src/cli\\.ts$' },
    },
    {
      name: 'src-reaches-platforms-through-the-registry',
      comment:
        "src/ keeps one list of platforms (src/platform-registry.ts) and reaches every platform through its module's parts, so a platform's code lives in its own folder. What platforms share (adapters/shared/) is anyone's.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/platform-registry\\.ts$' },
      to: { path: '^adapters/', pathNot: '^adapters/shared/' },
    },
    {
      name: 'loyalty-client-imports-no-core',
      comment:
        'The client of the loyalty service is a library of its own: the core uses it, never the other way round.',
      severity: 'error',
      from: { path: '^src/loyalty/' },
      to: { path: '^src/(core|http|composition|sandbox)/|^adapters/' },
    },
    {
      name: 'sandbox-stands-alone',
      comment: "The sandbox plays the loyalty service: it shares no code with the bridge's core or adapters.",
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/(core|composition)/|^adapters/' },
    },
    {
      name: 'production-imports-no-tests',
      comment: 'Nothing that runs in production imports test helpers, benchmarks or dev-only packages.',
      severity: 'error',
      from: { path: '^(src|adapters|bin)/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'no-circular',
      comment: 'Two modules that import each other are one module in two files: merge them or move what they share.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
