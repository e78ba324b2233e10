import { takesChoices, windowStatus } from './mess-windows';
import type { MessWindowRow } from './terms.schema';

describe('windowStatus', () => {
  const window = (over: Partial<MessWindowRow> = {}) =>
    ({
      opensAt: new Date('2030-03-10T09:00:00Z'),
      closesAt: new Date('2030-03-12T12:30:00Z'),
      allocatedAt: null,
      appliedAt: null,
      cancelledAt: null,
      ...over,
    }) as MessWindowRow;
  const at = (iso: string) => new Date(iso);

  it('reads the clock: scheduled, open until closesAt, then closed until the lottery has run', () => {
    expect(windowStatus(window(), at('2030-03-10T08:59:59Z'))).toBe('scheduled');
    expect(windowStatus(window(), at('2030-03-10T09:00:00Z'))).toBe('open');
    expect(windowStatus(window(), at('2030-03-12T12:29:59.999Z'))).toBe('open');
    expect(windowStatus(window(), at('2030-03-12T12:30:00Z'))).toBe('closed');
    expect(windowStatus(window(), at('2031-01-01T00:00:00Z'))).toBe('closed');
    // open exactly while choices are taken
    for (const now of ['2030-03-10T09:00:00Z', '2030-03-12T12:29:59Z', '2030-03-12T12:30:00Z'])
      expect(windowStatus(window(), at(now)) === 'open').toBe(takesChoices(window(), at(now)));
  });

  it('says what happened to it whatever the clock: allocated, applied, cancelled', () => {
    const later = at('2030-03-12T12:30:30Z');
    expect(windowStatus(window({ allocatedAt: later }), later)).toBe('allocated');
    expect(windowStatus(window({ allocatedAt: later, appliedAt: later }), later)).toBe('applied');
    expect(windowStatus(window({ cancelledAt: later }), at('2030-03-11T00:00:00Z'))).toBe('cancelled');
  });
});
