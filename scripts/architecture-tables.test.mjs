// `npm run docs:architecture:check` runs this after the check itself: the check must fail on a page that differs
// from the code (a row removed, a row changed, a block's markers gone) and pass on the page the generator writes.
// Plain node:test over the real source tree: no build, under a second.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BLOCKS, compare, DOC, generate, readBlock, render } from './architecture-tables.mjs';

const root = new URL('..', import.meta.url).pathname;
const blocks = generate(root);
const page = render(readFileSync(new URL(`../${DOC}`, import.meta.url), 'utf8'), blocks);

test('the page the generator writes passes the check', () => {
  assert.deepEqual(compare(page, blocks), []);
});

test('a row removed from each table fails the check, naming the block and the row', () => {
  for (const block of BLOCKS) {
    const row = readBlock(page, block).split('\n')[3];
    const drift = compare(page.replace(`${row}\n`, ''), blocks);
    assert.equal(drift.length, 1, block);
    assert.equal(drift[0].block, block);
    assert.deepEqual(drift[0].added, [row]);
  }
});

test('a changed row fails the check', () => {
  const row = readBlock(page, 'routes').split('\n').find((r) => r.includes('MonthsController.closeMonth'));
  assert.ok(row, 'the month close is listed among the routes');
  const drift = compare(page.replace(row, row.replace('months.controller.ts', 'shares.controller.ts')), blocks);
  assert.equal(drift[0].block, 'routes');
  assert.deepEqual(drift[0].added, [row]);
});

test('a block without its markers fails the check', () => {
  const drift = compare(page.replace('<!-- generated:events:end -->', ''), blocks);
  assert.equal(drift[0].block, 'events');
  assert.match(drift[0].error, /generated:events/);
});

test('every event, permission and route of the code has a row', () => {
  assert.match(blocks.events, /\| `attendance\.marked` \|.*kitchen: `WasteCountListener#onMarked`/);
  assert.match(blocks.permissions, /\| `kitchen\.forecast` \| manager, admin \|/);
  assert.match(blocks.routes, /`POST \/api\/analytics\/months\/:month\/close` \| `src\/modules\/billing\/months\.controller\.ts` \| `MonthsController\.closeMonth`/);
});

test('publish(…) and publishWithin(tx, …) both count as publishing, @OnDomainEvent as hearing', async () => {
  const { mkdtempSync, mkdirSync, writeFileSync, copyFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { eventUses } = await import('./architecture-tables.mjs');
  const tmp = mkdtempSync(join(tmpdir(), 'arch-tables-'));
  try {
    mkdirSync(join(tmp, 'src/common/events'), { recursive: true });
    copyFileSync(join(root, 'src/common/events/event-map.ts'), join(tmp, 'src/common/events/event-map.ts'));
    mkdirSync(join(tmp, 'src/modules/outbox'), { recursive: true });
    writeFileSync(
      join(tmp, 'src/modules/outbox/outbox.service.ts'),
      `export class OutboxService {
        write(tx) { this.events.publishWithin(tx, 'expense.recorded', {}); this.events.publish('meal.changed', {}); }
        @OnDomainEvent('expense.deleted') onDeleted() {}
      }`,
    );
    const { publishers, listeners } = eventUses(tmp);
    assert.deepEqual([...publishers.get('expense.recorded')], ['outbox (`outbox.service.ts`)']);
    assert.deepEqual([...publishers.get('meal.changed')], ['outbox (`outbox.service.ts`)']);
    assert.deepEqual([...listeners.get('expense.deleted')], ['outbox: `OutboxService#onDeleted`']);
    assert.equal(publishers.get('expense.deleted').size, 0);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
