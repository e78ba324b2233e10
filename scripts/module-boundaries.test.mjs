// `npm run lint` runs this after the rule itself: the rule must fail on each bad shape (an index exporting a
// repository or a table; a module handing a module it calls a function to run) and pass on the good ones (types,
// constants, calls within a module, methods taking a transaction). Plain node:test over small fixture trees.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { checkBoundaries } from './module-boundaries.mjs';

/** A tree of src/modules/** from `{ 'a/index.ts': '…' }`, checked, then removed. */
function check(files) {
  const root = mkdtempSync(join(tmpdir(), 'module-boundaries-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      const file = join(root, 'src/modules', path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    return checkBoundaries(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const schema = `import { pgTable, uuid } from 'drizzle-orm/pg-core';
export const THING_MAX = 10;
export const things = pgTable('things', { id: uuid('id') });
export type ThingRow = typeof things.$inferSelect;
`;
const repository = `export class ThingsRepository { find(id: string) { return id; } }\n`;

test('an index exporting a repository or a table fails, naming each', () => {
  const { exported } = check({
    'a/a.schema.ts': schema,
    'a/things.repository.ts': repository,
    'a/index.ts': `export { ThingsRepository } from './things.repository';\nexport { things, THING_MAX } from './a.schema';\n`,
  });
  assert.deepEqual(
    exported.map((e) => `${e.module}:${e.name}:${e.kind}`),
    ['a:ThingsRepository:repository', 'a:things:table'],
  );
});

test('renamed, and through export *, they still fail', () => {
  const { exported } = check({
    'a/a.schema.ts': schema,
    'a/things.repository.ts': repository,
    'a/index.ts': `export { ThingsRepository as Things } from './things.repository';\nexport * from './a.schema';\n`,
  });
  assert.deepEqual(exported.map((e) => `${e.name}:${e.kind}`), ['Things:repository', 'things:table']);
});

test('types, constants and type-only exports of a repository or a table pass', () => {
  const { exported } = check({
    'a/a.schema.ts': schema,
    'a/things.repository.ts': repository,
    'a/index.ts':
      `export { type ThingRow, THING_MAX } from './a.schema';\n` +
      `export type { ThingsRepository } from './things.repository';\nexport type { things } from './a.schema';\n`,
  });
  assert.deepEqual(exported, []);
});

/** Module `low` exports a service; module `high` calls it. */
const lowService = (method) => `
export interface Locked { members: string[] }
export type Choose = (tx: unknown, locked: Locked) => Promise<string[]>;
export class MovesService {
  ${method}
  moveWithin(tx: unknown, ids: string[]): Promise<void> { return Promise.resolve(); }
  private run(work: () => void) { work(); }
}
`;
const highCaller = `import { MovesService } from '../low';
export class CloseService {
  constructor(private readonly moves: MovesService) {}
  async close(tx: unknown) {
    await this.moves.moveWithin(tx, []);
    await this.moves.move([], { choose: async () => [] });
  }
}
`;

for (const [shape, method] of [
  ['a function-typed parameter', 'move(ids: string[], choose: (tx: unknown) => Promise<string[]>) {}'],
  ['an options object with a function-typed member', 'move(ids: string[], options: { idInPath?: boolean; choose?: (tx: unknown) => Promise<string[]> } = {}) {}'],
  ['a named function type', 'move(ids: string[], choose: Choose) {}'],
  ['an interface with a method', 'move(ids: string[], options: { choose(tx: unknown): Promise<string[]> }) {}'],
]) {
  test(`a call from another module of a method taking ${shape} is a callback up`, () => {
    const { callbacksUp, callbackMethods } = check({
      'low/moves.service.ts': lowService(method),
      'low/index.ts': `export { MovesService } from './moves.service';\n`,
      'high/close.service.ts': highCaller,
      'high/index.ts': `export { CloseService } from './close.service';\n`,
    });
    assert.deepEqual(callbackMethods.map((m) => `${m.module}:${m.className}#${m.method}`), ['low:MovesService#move']);
    assert.deepEqual(
      callbacksUp.map((c) => `${c.from}→${c.to}:${c.className}#${c.method}@${c.file}:${c.line}`),
      ['high→low:MovesService#move@src/modules/high/close.service.ts:6'],
    );
  });
}

test('the same call within the module, a method taking tx, or a type-only import pass', () => {
  const method = 'move(ids: string[], choose: (tx: unknown) => Promise<string[]>) {}';
  const { callbacksUp } = check({
    'low/moves.service.ts': lowService(method),
    'low/moves.controller.ts': `import { MovesService } from './moves.service';
export class MovesController { constructor(private readonly moves: MovesService) {}
  go() { return this.moves.move([], async () => []); } }\n`,
    'low/index.ts': `export { MovesService } from './moves.service';\n`,
    'high/close.service.ts': `import { MovesService } from '../low';
import type { MovesService as Typed } from '../low';
export class CloseService {
  constructor(private readonly moves: MovesService, private readonly typed: Typed) {}
  async close(tx: unknown) { await this.moves.moveWithin(tx, []); }
}\n`,
    'high/index.ts': `export { CloseService } from './close.service';\n`,
  });
  assert.deepEqual(callbacksUp, []);
});

test('on the real tree: no module exports a repository or a table, and no callback up outside the known ones', async () => {
  const { exported, callbacksUp } = checkBoundaries();
  const { KNOWN, keyOf } = await import('./module-boundaries.mjs');
  assert.deepEqual(exported.filter((e) => !KNOWN.includes(keyOf(e))), []);
  assert.deepEqual(callbacksUp.filter((c) => !KNOWN.includes(keyOf(c))), []);
});
