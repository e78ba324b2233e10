// Every hook and test of the e2e and medium projects: above TestApp.START_DEADLINE_MS (100 s), so a start that a busy machine
// makes slow fails its own file with that message instead of Jest's generic one. (testTimeout in a project's
// config is not read by Jest; this is.)
jest.setTimeout(120_000);
