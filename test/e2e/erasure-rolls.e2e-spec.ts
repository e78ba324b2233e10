import { messSetup, TestApp } from '../support/app';
import { fixClock } from '../support/notifications';

/** An instant of the mess's clock (Asia/Kolkata, +05:30). */
const ist = (date: string, time: string) => new Date(`${date}T${time}:00+05:30`);

interface Line {
  userId: { _id: string };
  days: number;
  share: number;
  total: number;
}

/**
 * Extension 2.3 (issue 44): erasure takes the person off the daily rate's rolls. A member of a daily-rate mess
 * (₹100 a day) on the rolls from 5 January is erased at 10:00 on 15 January: January bills them 11 days (5–15
 * January, the day of the erasure included) and February and March not at all; a peer's line is unchanged.
 */
describe('Erasure ends the daily rate’s rolls', () => {
  let t: TestApp;
  let admin: string;
  let personId: string;
  let peerId: string;

  const bill = async (month: string): Promise<Line[]> => {
    const res = await t.get(`/analytics/shares?month=${month}`, { token: admin });
    expect([month, res.status]).toEqual([month, 200]);
    return res.body.shares as Line[];
  };
  const lineOf = (lines: Line[], id: string) => lines.find((l) => l.userId._id === id);

  beforeAll(async () => {
    t = await TestApp.start({ MESS_TIMEZONE: 'Asia/Kolkata' });
    admin = await t.adminToken();
    const clock = fixClock(t, ist('2030-01-05', '09:00'));
    const setup = await t.post(
      '/auth/admin/setup',
      messSetup({ chargeMethod: 'daily', dailyRate: 100 }),
      { token: admin },
    );
    expect(setup.status).toBe(200);
    // Both on the rolls through an approval on 5 January.
    const ids: string[] = [];
    for (const who of ['rolls.person', 'rolls.peer']) {
      const registered = await t.post('/auth/register', {
        email: `${who}@college.edu`,
        password: `${who}-password-long-1`,
        fullName: who === 'rolls.person' ? 'Ishaan Rollsby' : 'Peer Rollsby',
        collegeId: who.toUpperCase(),
        room: 'R-1',
        phone: who === 'rolls.person' ? '9000011111' : '9000022222',
      });
      expect(registered.status).toBe(201);
      ids.push(registered.body.userId);
      expect((await t.put(`/users/${registered.body.userId}/approve`, undefined, { token: admin })).status).toBe(
        200,
      );
    }
    [personId, peerId] = ids;
    // On the rolls until erased: January would bill them 27 days (5–31 January), February all 28.
    expect(lineOf(await bill('2030-01'), personId)).toMatchObject({ days: 27, share: 2700 });
    expect(lineOf(await bill('2030-02'), personId)).toMatchObject({ days: 28 });

    clock.set(ist('2030-01-15', '10:00'));
    const erased = await t.post(`/users/${personId}/erase`, { confirm: true }, { token: admin });
    expect([erased.status, erased.body.user?.status]).toEqual([200, 'erased']);
  }, 120_000);

  afterAll(() => t?.close());

  it('bills the erased member through the day of the erasure and the peer as before', async () => {
    const january = await bill('2030-01');
    expect(lineOf(january, personId)).toMatchObject({ days: 11, share: 1100, total: 1100 });
    expect(lineOf(january, peerId)).toMatchObject({ days: 27, share: 2700 });
  });

  it('has no line for them in the next two months', async () => {
    for (const month of ['2030-02', '2030-03']) {
      const lines = await bill(month);
      expect({ month, line: lineOf(lines, personId) }).toEqual({ month, line: undefined });
      expect(lineOf(lines, peerId)).toMatchObject({ days: month === '2030-02' ? 28 : 31 });
    }
  });
});
