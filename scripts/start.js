// `npm start`: the build check and the service in one Node process. (A `prestart` script cost a second npm
// lifecycle and a second Node start-up on every start, ~0.3 s.) The check hashes the sources without loading
// TypeScript; only when they changed does a child process compile them, so the service never holds the compiler.
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { isBuildCurrent } = require('./build-if-changed.js');

if (!isBuildCurrent()) {
  const build = spawnSync(process.execPath, [join(__dirname, 'build-if-changed.js')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
require('../dist/main.js');
