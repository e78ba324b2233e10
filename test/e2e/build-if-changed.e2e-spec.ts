import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `npm start`'s build check (scripts/start.js runs it) on a copy of the project: it compiles when dist/ is missing or a source changed, and
 * does nothing (no file written) when nothing did, whatever the files' times say.
 */
describe('npm start compiles only when the sources changed', () => {
  const root = resolve(__dirname, '..', '..');
  let copy: string;
  const run = () =>
    execFileSync(process.execPath, [join(copy, 'scripts', 'build-if-changed.js')], { encoding: 'utf8' });
  const stampTime = () => statSync(join(copy, 'dist', '.build-stamp')).mtimeMs;

  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'mess-build-'));
    for (const entry of ['src', 'scripts', 'tsconfig.json', 'tsconfig.build.json'])
      cpSync(join(root, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('compiles a fresh copy into runnable JavaScript with decorator metadata', () => {
    expect(run()).toMatch(/^Compiled \d+ files into dist\//);
    const controller = readFileSync(join(copy, 'dist', 'modules', 'meals', 'meals.controller.js'), 'utf8');
    expect(controller).toContain('design:paramtypes');
    expect(readFileSync(join(copy, 'dist', 'main.js'), 'utf8')).toContain('require("./compile-cache")');
    // the spec files are not part of the build
    expect(() => statSync(join(copy, 'dist', 'common', 'money', 'money.spec.js'))).toThrow();
  });

  it('does nothing when nothing changed, even when a file was touched', () => {
    const before = stampTime();
    expect(run()).toBe('');
    const file = join(copy, 'src', 'app.ts');
    const later = new Date(Date.now() + 60_000);
    utimesSync(file, later, later);
    expect(run()).toBe('');
    expect(stampTime()).toBe(before);
  });

  it('compiles again when a source changes, and then the output has the change', () => {
    const file = join(copy, 'src', 'app.ts');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nexport const BUILD_PROBE = 42;\n`);
    expect(run()).toMatch(/^Compiled/);
    expect(readFileSync(join(copy, 'dist', 'app.js'), 'utf8')).toContain('BUILD_PROBE = 42');
    expect(run()).toBe('');
  });
});
