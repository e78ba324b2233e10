// Two projects: unit tests beside the code, end-to-end tests that drive the whole app over HTTP.
// ts-jest only transpiles (tsconfig's isolatedModules): type-checking is `npm run typecheck`, a separate CI step.
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };
const common = { moduleFileExtensions: ['js', 'json', 'ts'], rootDir: '.', testEnvironment: 'node', transform };

module.exports = {
  // No two files share a port (every server listens on port 0) or a database (one per file). Three workers on two
  // cores: the files that start service processes wait on them much of the time (4 min 20 s against 4 min 51 s with
  // two, on an idle 2-core machine).
  maxWorkers: 3,
  testTimeout: 30000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
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
