#!/usr/bin/env node
/**
 * `npm start`'s build: compiles src/ into dist/ only when the sources or the compiler settings changed since the
 * last build, and then without type-checking.
 *
 * Why: `nest build` type-checks the whole program on every start (about 45 s on a 2-core machine, most of it loading
 * and checking the type declarations of node_modules) although nothing changed. The type-check belongs to
 * `npm run typecheck` and CI; starting needs only JavaScript. tsconfig.json sets `isolatedModules`, so every file
 * compiles on its own with TypeScript's own `transpileModule` (the same compiler and options; decorator metadata
 * included), which takes a few seconds for the whole tree.
 *
 * "Changed" is a SHA-256 over the content of every compiled file plus the compiler settings and the TypeScript
 * version, kept in dist/.build-stamp: a touch or a checkout that changes nothing does not rebuild; any change does.
 * `npm run build` (nest build, type-checked; the Dockerfile's build) deletes dist/ and so the stamp: the next
 * `npm start` compiles again once.
 *
 * Usage: node scripts/build-if-changed.js [--force]
 */
'use strict';

const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');

const ROOT = resolve(__dirname, '..');
const PROJECT = join(ROOT, 'tsconfig.build.json');
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];
const STAMP_NAME = '.build-stamp';

/** The source files tsconfig.build.json compiles, without loading TypeScript (which alone costs a second or more). */
function sourceFiles() {
  const files = [];
  const walk = (dir) => {
    for (const entry of require('node:fs').readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (
        entry.name.endsWith('.ts') &&
        !entry.name.endsWith('.spec.ts') &&
        !entry.name.endsWith('.d.ts')
      )
        files.push(path);
    }
  };
  walk(join(ROOT, 'src'));
  return files.sort();
}

function fingerprint(files) {
  const hash = createHash('sha256');
  const typescript = JSON.parse(
    readFileSync(join(ROOT, 'node_modules', 'typescript', 'package.json'), 'utf8'),
  );
  hash.update(`typescript ${typescript.version}\n`);
  for (const file of [...CONFIGS.map((c) => join(ROOT, c)), ...files]) {
    hash.update(`${relative(ROOT, file)}\n`);
    hash.update(readFileSync(file));
  }
  return hash.digest('hex');
}

function compile(outDir) {
  const ts = require('typescript');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    PROJECT,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  const rootDir = parsed.options.rootDir ?? join(ROOT, 'src');
  const errors = [];
  rmSync(outDir, { recursive: true, force: true });
  for (const file of parsed.fileNames) {
    const output = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: parsed.options,
      fileName: file,
      reportDiagnostics: true,
    });
    for (const diagnostic of output.diagnostics ?? []) {
      const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      errors.push(`${relative(ROOT, file)}:${line + 1}:${character + 1} ${message}`);
    }
    const target = join(outDir, relative(rootDir, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, output.outputText);
    if (output.sourceMapText) writeFileSync(`${target}.map`, output.sourceMapText);
  }
  return { count: parsed.fileNames.length, errors };
}

/** Whether dist/ is missing or older than the sources (a hash of them, no TypeScript loaded). Used by start.js. */
function isBuildCurrent() {
  const outDir = join(ROOT, 'dist');
  const stampFile = join(outDir, STAMP_NAME);
  return (
    existsSync(join(outDir, 'main.js')) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8').trim() === fingerprint(sourceFiles())
  );
}

/** Compiles when the sources changed since the last build (or with --force); exits 1 on a syntax error. */
function buildIfChanged() {
  const started = performance.now();
  const outDir = join(ROOT, 'dist');
  const stampFile = join(outDir, STAMP_NAME);
  const stamp = fingerprint(sourceFiles());
  const force = process.argv.includes('--force');
  if (!force && existsSync(join(outDir, 'main.js')) && existsSync(stampFile)) {
    if (readFileSync(stampFile, 'utf8').trim() === stamp) return;
  }
  const { count, errors } = compile(outDir);
  if (errors.length) {
    process.stderr.write(`Build failed (syntax):\n${errors.join('\n')}\n`);
    rmSync(outDir, { recursive: true, force: true });
    process.exit(1);
  }
  writeFileSync(stampFile, `${stamp}\n`);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `Compiled ${count} files into dist/ in ${seconds} s (types are checked by npm run typecheck)\n`,
  );
}

module.exports = { isBuildCurrent };

if (require.main === module) buildIfChanged();
