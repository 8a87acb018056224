// Three tiers: unit specs beside the code (src, *.spec.ts); medium specs run a module's services and
// repositories on a real migrated database without HTTP (test/medium, *.medium-spec.ts); end-to-end specs boot
// the app (test, *.e2e-spec.ts).
// Nest 12 and a few of its companions (and @kubernetes/client-node with its OIDC libraries) ship as ES modules
// only. Node runs them through require(esm), but Jest on Node < 24.9 cannot, so those packages are compiled to
// CommonJS for the test runtime.
// PGlite (@electric-sql) and the OTLP exporter (@opentelemetry) load Node's own modules with dynamic import(),
// which Jest's sandbox refuses without --experimental-vm-modules; compiled to CommonJS those become require(), so
// plain `npx jest` runs the embedded-database and tracing suites as `npm test` does.
const compiledForTests = [
  '@nestjs',
  'jose',
  'nestjs-cls',
  'nestjs-pino',
  '@electric-sql',
  '@marcbachmann',
  '@kubernetes',
  'openid-client',
  'oauth4webapi',
  '@opentelemetry',
];
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '.*\\.(spec|medium-spec|e2e-spec)\\.ts$',
  transform: {
    '^.+\\.ts$': ['@swc/jest'],
    '^.+\\.[mc]?js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${compiledForTests.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  maxWorkers: 2,
  // A ceiling, not a measure: starting the service on the embedded database in a hook takes seconds alone and
  // over 30 s on a two-CPU machine while the other worker starts one too.
  testTimeout: 120000,
};
