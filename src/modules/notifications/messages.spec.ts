import { Messages } from './messages';

describe('Messages.costSummary', () => {
  it('gives the share alone when the member took no extras', () => {
    expect(
      Messages.costSummary(
        '2026-10',
        { meals: 3, sharePaise: 67500, extrasPaise: 0, totalPaise: 67500 },
        90000,
      ),
    ).toEqual({
      title: 'Your mess bill for 2026-10: ₹675.00',
      content: 'In 2026-10 you attended 3 meals. The mess spent ₹900.00 in total; your share is ₹675.00.',
    });
  });

  it('adds the extras and titles the bill with the total the member is charged', () => {
    expect(
      Messages.costSummary(
        '2026-10',
        { meals: 1, sharePaise: 22500, extrasPaise: 3650, totalPaise: 26150 },
        90000,
      ),
    ).toEqual({
      title: 'Your mess bill for 2026-10: ₹261.50',
      content:
        'In 2026-10 you attended 1 meal. The mess spent ₹900.00 in total; your share is ₹225.00, ' +
        'your extras ₹36.50: ₹261.50 in all.',
    });
  });

  it('bills a member with extras and no meals for the extras', () => {
    expect(
      Messages.costSummary('2026-10', { meals: 0, sharePaise: 0, extrasPaise: 1200, totalPaise: 1200 }, 90000)
        .title,
    ).toBe('Your mess bill for 2026-10: ₹12.00');
  });
});
