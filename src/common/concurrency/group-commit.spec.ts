import { GroupCommit } from './group-commit';

/** A write the test finishes by hand, recording the groups it was given. */
function writer() {
  const groups: number[][] = [];
  const pending: { open: () => void; fail: (e: Error) => void }[] = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      groups.push(items);
      pending.push({ open: resolve, fail: reject });
    });
  return { groups, pending, write };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('writes the first item at once and what arrives meanwhile in one group after it', async () => {
    const w = writer();
    const commit = new GroupCommit<number>(w.write);
    const settled: number[] = [];
    const adds = [1, 2, 3, 4].map((n) => commit.add(n).then(() => settled.push(n)));
    await tick();
    expect(w.groups).toEqual([[1]]);
    w.pending[0].open();
    await tick();
    expect(settled).toEqual([1]);
    expect(w.groups).toEqual([[1], [2, 3, 4]]);
    w.pending[1].open();
    await Promise.all(adds);
    expect(settled).toEqual([1, 2, 3, 4]);
  });

  it('after a group fails, writes each of its items alone: only the bad one fails', async () => {
    const groups: number[][] = [];
    const commit = new GroupCommit<number>(async (items) => {
      groups.push(items);
      if (items.includes(3)) throw new Error('bad item 3');
    });
    const first = commit.add(1);
    const rest = [2, 3, 4].map((n) =>
      commit.add(n).then(
        () => 'ok',
        (e: Error) => e.message,
      ),
    );
    await first;
    expect(await Promise.all(rest)).toEqual(['ok', 'bad item 3', 'ok']);
    expect(groups).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it('takes at most maxGroup items a write', async () => {
    const groups: number[][] = [];
    const commit = new GroupCommit<number>(async (items) => {
      groups.push(items);
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => commit.add(n)));
    expect(groups).toEqual([[1], [2, 3], [4, 5]]);
  });
});
