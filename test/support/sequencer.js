// The order in which Jest starts the test files: longest first, so that no long file starts near the end of a run
// while the other workers sit idle. Jest's own order uses the durations of the previous run, kept in its cache; a
// fresh clone (CI) has none, and Jest then goes by file size, which put the short files that start real service
// processes and wait on them (kill-durability, lifecycle, ...) last: a run on an empty cache ended ~2 minutes
// after the others had finished. So a file Jest has no duration for gets the one below, or else one estimated
// from its size.
const Sequencer = require('@jest/test-sequencer').default;
const { relative } = require('node:path');

/**
 * Seconds each of the longest files took on the idle 2-core machine (`jest --json`), with three workers. (The files
 * split out of notifications, attendance, docs, … are estimated by their size, as any other.)
 */
const KNOWN_SECONDS = {
  'test/e2e/kill-durability.e2e-spec.ts': 70,
  'test/e2e/lifecycle.e2e-spec.ts': 50,
  'test/e2e/notifications-durability.e2e-spec.ts': 45,
  'test/e2e/fuzz.e2e-spec.ts': 45,
  'test/e2e/notifications-throughput.e2e-spec.ts': 40,
  'test/e2e/process-shutdown.e2e-spec.ts': 40,
  'test/e2e/analytics-consistency.e2e-spec.ts': 40,
  'test/e2e/accounts-property.e2e-spec.ts': 40,
  'test/e2e/build-if-changed.e2e-spec.ts': 35,
  'test/e2e/replicas.e2e-spec.ts': 35,
  'test/e2e/health.e2e-spec.ts': 35,
  'test/e2e/http.e2e-spec.ts': 35,
};

/** A file with no known duration: about a second per kilobyte (an e2e file of 20 kB takes ~20 s). */
const MS_PER_BYTE = 1;

class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    const estimate = (test) => {
      const known = KNOWN_SECONDS[relative(test.context.config.rootDir, test.path).split('\\').join('/')];
      return (
        this.time(test) ??
        (known ? known * 1000 : (test.context.hasteFS.getSize(test.path) ?? 0) * MS_PER_BYTE)
      );
    };
    const failed = (test) => (this.hasFailed(test) ? 1 : 0);
    const order = new Map(tests.map((test) => [test, estimate(test)]));
    // As Jest does: the files that failed last time first, then the longest.
    return [...tests].sort((a, b) => failed(b) - failed(a) || order.get(b) - order.get(a));
  }
}

module.exports = LongestFirstSequencer;
