import { memberRecordsPage } from './member-records';

describe('memberRecordsPage', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `id-${i}` }));

  it('is the last page when no row beyond the limit came back', () => {
    expect(memberRecordsPage(rows(3), 3, (page) => page.map((r) => r.id))).toEqual({
      records: ['id-0', 'id-1', 'id-2'],
      next: undefined,
    });
  });

  it('names the last shown row as the next cursor when one more came back, and leaves that one out', () => {
    expect(memberRecordsPage(rows(4), 3, (page) => page.map((r) => r.id))).toEqual({
      records: ['id-0', 'id-1', 'id-2'],
      next: 'id-2',
    });
  });

  it('is empty for no rows', () => {
    expect(memberRecordsPage([], 3, (page) => page)).toEqual({ records: [], next: undefined });
  });
});
