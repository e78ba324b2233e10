import { splitBySeats } from './allocation.service';

describe('splitBySeats', () => {
  it('lets the first `seats` arrivals of a mess move at once, and keeps the ones that need a seat left for later', () => {
    const line = (userId: string, fromMessId: string, toMessId: string | null) => ({
      userId,
      fromMessId,
      toMessId,
    });
    const lines = [
      line('a', 'x', 'y'), // 1st into y (1 seat): fits
      line('b', 'y', 'x'), // 1st into x (0 seats): takes the seat a left
      line('c', 'x', 'x'), // stays: not a move
      line('d', 'x', null), // unplaced: not a move
      line('e', 'x', 'z'), // z has no limit
      line('f', 'z', 'y'), // 2nd into y: takes the seat b left
    ];
    const { first, after } = splitBySeats(lines, { x: 0, y: 1, z: null });
    expect(first.map((l) => l.userId)).toEqual(['a', 'e']);
    expect(after.map((l) => l.userId)).toEqual(['b', 'f']);
  });
});
