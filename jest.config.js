// Three projects: unit tests beside the code; medium tests, the real modules under test on a real (in-memory)
// database with fakes only at the edges, called directly (test/medium/medium.factory.ts); end-to-end tests that
// drive the whole app over HTTP.
// The transform only strips types (swc, with Nest's legacy decorators and their design:* metadata): type-checking is
// `npm run typecheck`, a separate CI step. swc rather than ts-jest: a fresh clone (CI) transforms every file
// once per run, which ts-jest did in ~40 s of CPU more.
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
    target: 'es2023',
  },
  // As tsc with module node20: require() for imports, import() left as it is (pdfkit is loaded that way).
  module: { type: 'commonjs', ignoreDynamic: true },
  sourceMaps: 'inline',
};
const transform = { '^.+\\.ts$': ['@swc/jest', swc] };
const common = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: '.',
  testEnvironment: 'node',
  transform,
};

module.exports = {
  // No two files share a port (every server listens on port 0) or a database (one per file). Three workers on two
  // cores: the files that start service processes wait on them much of the time (4 min 20 s against 4 min 51 s with
  // two, on an idle 2-core machine).
  maxWorkers: 3,
  testTimeout: 30000,
  // How long Jest waits for a worker to exit at the end of a run before it kills it and prints "A worker process has
  // failed to exit gracefully" (Jest's default is 500 ms). A worker ends holding ~1 GB (V8's heap, each PGlite's
  // WASM memory), and giving it back to the kernel (munmap) takes longer than 500 ms at the end of a whole run on the
  // 2-core machine (docs/testing.md, How Jest runs). A worker that leaks a handle never exits, so it is still killed
  // and reported, 5 s later.
  workerGracefulExitTimeout: 5000,
  // Longest files first, also on a fresh clone (see the file).
  testSequencer: '<rootDir>/test/support/sequencer.js',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'medium',
      testMatch: ['<rootDir>/test/medium/**/*.medium-spec.ts'],
      // The migrated PGlite template every medium database is loaded from (the file e2e's global setup makes too).
      globalSetup: '<rootDir>/test/medium/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-timeouts.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      // Migrated template databases every file starts from (test/support/templates.ts).
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-timeouts.ts'],
    },
  ],
};
