// Every hook and test of the e2e and medium projects: above TestApp.START_DEADLINE_MS (100 s), so a start that a busy machine
// makes slow fails its own file with that message instead of Jest's generic one. (testTimeout in a project's
// config is not read by Jest; this is.)
jest.setTimeout(120_000);

// A statement sent outside the transaction its own work holds open, on the embedded engine, fails the test during
// which it happened, even when the error was caught (a listener's log, a 500 the test did not look at).
import { StatementOutsideTransactionError } from '../../src/database/embedded-database';

let raisedBefore = 0;
beforeEach(() => {
  raisedBefore = StatementOutsideTransactionError.raised;
});
afterEach(() => {
  const raised = StatementOutsideTransactionError.raised - raisedBefore;
  if (raised > 0)
    throw new Error(
      `${raised} statement(s) were sent outside the open transaction of their own work (StatementOutsideTransactionError)`,
    );
});
