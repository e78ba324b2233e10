import { createHash } from 'node:crypto';
import { drawKey, drawOrder, runLottery } from './lottery';

const SEED = '0123456789abcdef0123456789abcdef';

describe('drawKey and drawOrder', () => {
  it('is the lowercase hex SHA-256 of seed:userId, ascending', () => {
    expect(drawKey(SEED, 'dev')).toBe(createHash('sha256').update(`${SEED}:dev`).digest('hex'));
    // Worked out with `printf '0123456789abcdef0123456789abcdef:dev' | sha256sum` and so on for each name.
    expect(drawKey(SEED, 'dev')).toBe('09f05881a0a3529d78b0083f95c20153377cae1b1c22f07c3651963a8a2a05e6');
    expect(drawOrder(SEED, ['asha', 'bala', 'chitra', 'dev', 'esha']).map((d) => d.userId)).toEqual([
      'dev', // 09f058…
      'asha', // 4808b4…
      'bala', // 5d22f5…
      'chitra', // 90989a…
      'esha', // a24877…
    ]);
  });
});

describe('runLottery', () => {
  it('places the hand-worked example', () => {
    // north: capacity 3, 2 approved → 1 seat; south: capacity 2, 2 approved → 0 seats; east: no limit.
    const messes = [
      { id: 'north', capacity: 3, approved: 2 },
      { id: 'south', capacity: 2, approved: 2 },
      { id: 'east', capacity: null, approved: 5 },
    ];
    const choosers = [
      { userId: 'asha', fromMessId: 'north', preferences: ['north'] },
      { userId: 'bala', fromMessId: 'east', preferences: ['north', 'south'] },
      { userId: 'chitra', fromMessId: 'east', preferences: ['south', 'north'] },
      { userId: 'dev', fromMessId: 'south', preferences: ['north', 'east'] },
      { userId: 'esha', fromMessId: 'south', preferences: ['east', 'north'] },
    ];
    const { lines, seats } = runLottery(SEED, messes, choosers);
    expect(Object.fromEntries(seats)).toEqual({ north: 1, south: 0, east: null });
    // By hand, in the order of the draw:
    // 1. dev (south): north has 1 seat → north, rank 1; north 0 left, south gets 1.
    // 2. asha (north): north is her own mess → north, rank 1, no seat taken.
    // 3. bala (east): north 0; south 1 → south, rank 2; south 0 left (east is unlimited).
    // 4. chitra (east): south 0, north 0 → stays (to null).
    // 5. esha (south): east is unlimited → east, rank 1; south gets 1 (nobody after her).
    expect(
      lines.map(({ userId, position, from, to, rank }) => ({ userId, position, from, to, rank })),
    ).toEqual([
      { userId: 'dev', position: 1, from: 'south', to: 'north', rank: 1 },
      { userId: 'asha', position: 2, from: 'north', to: 'north', rank: 1 },
      { userId: 'bala', position: 3, from: 'east', to: 'south', rank: 2 },
      { userId: 'chitra', position: 4, from: 'east', to: null, rank: null },
      { userId: 'esha', position: 5, from: 'south', to: 'east', rank: 1 },
    ]);
    expect(lines[0].hash).toBe(drawKey(SEED, 'dev'));
  });

  it('never fills a mess above its capacity, even one above it at the start', () => {
    // over: capacity 1 with 3 approved (its capacity was lowered): 0 seats, and 2 too many.
    const messes = [
      { id: 'over', capacity: 1, approved: 3 },
      { id: 'open', capacity: null, approved: 0 },
    ];
    const leavers = ['x1', 'x2', 'x3'].map((userId) => ({
      userId,
      fromMessId: 'over',
      preferences: ['open'],
    }));
    const joiners = ['y1', 'y2', 'y3'].map((userId) => ({
      userId,
      fromMessId: 'open',
      preferences: ['over'],
    }));
    const { lines, seats } = runLottery(SEED, messes, [...leavers, ...joiners]);
    expect(seats.get('over')).toBe(0);
    let inOver = 3;
    for (const line of lines) {
      if (line.to === 'open' && line.from === 'over') inOver -= 1;
      if (line.to === 'over' && line.from === 'open') inOver += 1;
      expect(inOver).toBeLessThanOrEqual(3);
    }
    // Everyone leaves `over`; a joiner gets a seat only once three have left, so at most one ends there.
    expect(inOver).toBeLessThanOrEqual(1);
  });

  it('keeps a member who gets none of their preferences where they are', () => {
    const { lines } = runLottery(
      SEED,
      [
        { id: 'full', capacity: 1, approved: 1 },
        { id: 'home', capacity: 5, approved: 1 },
      ],
      [{ userId: 'z', fromMessId: 'home', preferences: ['full'] }],
    );
    expect(lines).toEqual([
      { userId: 'z', position: 1, hash: drawKey(SEED, 'z'), from: 'home', to: null, rank: null },
    ]);
  });

  it('is the same for the same seed whatever order the choices come in', () => {
    const messes = [
      { id: 'a', capacity: 2, approved: 0 },
      { id: 'b', capacity: 2, approved: 0 },
    ];
    const choosers = Array.from({ length: 6 }, (_, i) => ({
      userId: `m${i}`,
      fromMessId: 'b',
      preferences: ['a', 'b'],
    }));
    const one = runLottery(SEED, messes, choosers).lines;
    const two = runLottery(SEED, messes, [...choosers].reverse()).lines;
    expect(two).toEqual(one);
    expect(one.filter((l) => l.to === 'a')).toHaveLength(2);
  });
});
