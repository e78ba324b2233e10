import { FIRST_MESS_ID } from '../../src/common/tenancy/mess-scope';
import { Client } from 'pg';
import { LeaveDecidedListener } from '../../src/modules/notifications/leave-decided.listener';
import { messSetup, TestApp } from '../support/app';
import { fixClock } from '../support/notifications';

type Member = Awaited<ReturnType<TestApp['member']>>;

/** An instant of the mess's clock (Asia/Kolkata, +05:30). */
const ist = (date: string, time: string) => new Date(`${date}T${time}:00+05:30`);

const POLICY = { minDays: 2, applyBeforeHours: 24, maxDaysPerMonth: 5, requiresApproval: true };
const OVERLAPS = 'This leave overlaps a pending or approved leave of the member';

describe('Leave (extension 2.1)', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let asha: Member;
  let ravi: Member;
  let meera: Member;
  let ashaLeave: string;

  const leave = (token: string, body: Record<string, unknown>) => t.post('/leaves', body, { token });
  const mark = (token: string, date: string, mealType: string, status: string, userId?: string) =>
    t.post('/attendance', { date, mealType, status, ...(userId ? { userId } : {}) }, { token });
  const marksOf = async (member: Member) => {
    const res = await t.get(`/attendance?userId=${member.id}&month=2030-03`, { token: admin });
    return Object.fromEntries(res.body.attendance.map((m: any) => [`${m.date} ${m.mealType}`, m.status]));
  };
  const headcount = async (date: string) => {
    const res = await t.get(`/analytics/headcount?date=${date}`, { token: admin });
    expect(res.status).toBe(200);
    return {
      diners: res.body.approvedMembers as number,
      meals: Object.fromEntries(res.body.meals.map((m: any) => [m.mealType, m])) as Record<string, any>,
    };
  };

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    fixClock(t, ist('2030-03-10', '06:00'));
    const setup = await t.post('/auth/admin/setup', messSetup({ leavePolicy: POLICY }), { token: admin });
    expect(setup.status).toBe(200);
    manager = await t.member('manager', { fullName: 'Mira Manager' });
    asha = await t.member('student', { fullName: 'Asha Verma' });
    ravi = await t.member('student', { fullName: 'Ravi Kumar' });
    meera = await t.member('student', { fullName: 'Meera Iyer' });
  }, 90_000);
  afterAll(() => t.close());

  it('returns the leave policy with the configuration', async () => {
    const res = await t.get('/auth/admin/config', { token: admin });
    expect(res.body.config.leavePolicy).toEqual(POLICY);
    expect(res.body.config.markingWindow).toBeUndefined();
  });

  describe('the rules, one by one', () => {
    it('refuses a leave shorter than minDays (400 naming endDate)', async () => {
      const res = await leave(asha.token, { startDate: '2030-03-15', endDate: '2030-03-15' });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { field: 'endDate', message: 'a leave is at least 2 day(s); this one is 1' },
      ]);
    });

    it('refuses a late leave, asked less than applyBeforeHours before its first meal (400 naming startDate)', async () => {
      // Dinner today starts in 13.5 hours; the policy wants 24.
      const res = await leave(asha.token, {
        startDate: '2030-03-10',
        endDate: '2030-03-11',
        startMealType: 'Dinner',
      });
      expect(res.status).toBe(400);
      expect(res.body.details[0].field).toBe('startDate');
      expect(res.body.details[0].message).toContain(
        'at least 24 hours before the first meal (Dinner on 2030-03-10)',
      );
      // Breakfast tomorrow starts in 25.5 hours: in time.
      const inTime = await leave(ravi.token, { startDate: '2030-03-11', endDate: '2030-03-12' });
      expect(inTime.status).toBe(201);
      expect(
        (await t.put(`/leaves/${inTime.body.leave._id}/cancel`, undefined, { token: ravi.token })).status,
      ).toBe(200);
    });

    it('refuses a leave that ends before it starts, or names an unknown meal (400)', async () => {
      const backwards = await leave(asha.token, { startDate: '2030-03-16', endDate: '2030-03-15' });
      expect(backwards.status).toBe(400);
      expect(backwards.body.details).toEqual([
        { field: 'endDate', message: 'endDate must not be before startDate' },
      ]);
      const sameDay = await leave(ravi.token, {
        startDate: '2030-03-20',
        endDate: '2030-03-20',
        startMealType: 'Dinner',
        endMealType: 'Breakfast',
      });
      expect(sameDay.status).toBe(400);
      expect(sameDay.body.details[0].field).toBe('endMealType');
      const unknownMeal = await leave(ravi.token, {
        startDate: '2030-03-20',
        endDate: '2030-03-21',
        startMealType: 'Brunch',
      });
      expect(unknownMeal.status).toBe(400);
      expect(unknownMeal.body.details[0].field).toBe('startMealType');
    });

    it('accepts a leave within the policy as pending; an overlapping one is 409', async () => {
      const res = await leave(asha.token, { startDate: '2030-03-15', endDate: '2030-03-17', reason: 'Home' });
      expect(res.status).toBe(201);
      expect(res.body.leave).toMatchObject({
        userId: { _id: asha.id, fullName: 'Asha Verma' },
        startDate: '2030-03-15',
        endDate: '2030-03-17',
        startMealType: 'Breakfast',
        endMealType: 'Dinner',
        days: 3,
        status: 'pending',
        decidedBy: null,
        reason: 'Home',
      });
      ashaLeave = res.body.leave._id;
      const overlap = await leave(asha.token, {
        startDate: '2030-03-17',
        endDate: '2030-03-18',
        startMealType: 'Dinner',
      });
      expect(overlap.status).toBe(409);
      expect(overlap.body.error).toBe(OVERLAPS);
    });

    it("refuses a leave over the monthly cap, counting the member's pending and approved days (400)", async () => {
      // 3 days pending in March; 3 more would make 6 > 5.
      const over = await leave(asha.token, { startDate: '2030-03-18', endDate: '2030-03-20' });
      expect(over.status).toBe(400);
      expect(over.body.details).toEqual([
        { field: 'endDate', message: 'leave days in 2030-03 would be 6, over the monthly cap of 5' },
      ]);
      // 2 more make 5: accepted; cancelled, its days count no more.
      const fits = await leave(asha.token, { startDate: '2030-03-18', endDate: '2030-03-19' });
      expect(fits.status).toBe(201);
      const cancelled = await t.put(`/leaves/${fits.body.leave._id}/cancel`, undefined, {
        token: asha.token,
      });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.leave.status).toBe('cancelled');
      expect((await leave(asha.token, { startDate: '2030-03-18', endDate: '2030-03-19' })).status).toBe(201);
    });

    it('refuses a leave that touches a closed month (409), even one a manager records', async () => {
      const close = await t.post('/analytics/months/2030-02/close', undefined, { token: admin });
      expect(close.status).toBe(200);
      const res = await leave(manager.token, {
        startDate: '2030-02-28',
        endDate: '2030-03-01',
        userId: meera.id,
      });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('Month 2030-02 is closed: its bill is frozen. An admin can reopen it.');
      expect((await t.get(`/leaves?userId=${meera.id}`, { token: manager.token })).body.leaves).toEqual([]);
    });

    it('lets only managers and admins record a leave for another member', async () => {
      const res = await leave(asha.token, {
        startDate: '2030-03-25',
        endDate: '2030-03-26',
        userId: ravi.id,
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('You can only ask for, see or cancel your own leave');
    });
  });

  describe('approval', () => {
    it("turns the member's own present marks in the leave absent, and only those", async () => {
      for (const [date, meal] of [
        ['2030-03-14', 'Dinner'],
        ['2030-03-15', 'Lunch'],
        ['2030-03-16', 'Dinner'],
      ]) {
        expect((await mark(asha.token, date, meal, 'present')).status).toBe(201);
      }
      const res = await t.put(`/leaves/${ashaLeave}/approve`, undefined, { token: manager.token });
      expect(res.status).toBe(200);
      expect(res.body.leave).toMatchObject({ status: 'approved', decidedBy: manager.id });
      expect(await marksOf(asha)).toEqual({
        '2030-03-14 Dinner': 'present',
        '2030-03-15 Lunch': 'absent',
        '2030-03-16 Dinner': 'absent',
      });
      // The approval and the marks it turned absent are in the audit trail.
      const trail = await t.get(`/audit?entity=leave&entityId=${ashaLeave}`, { token: admin });
      const approval = trail.body.events.find((e: any) => e.action === 'approved');
      expect(approval.actor._id).toBe(manager.id);
      expect(approval.before.status).toBe('pending');
      expect(approval.after.marksTurnedAbsent.map((m: any) => `${m.date} ${m.mealType}`).sort()).toEqual([
        '2030-03-15 Lunch',
        '2030-03-16 Dinner',
      ]);
      // Approving again changes nothing.
      expect((await t.put(`/leaves/${ashaLeave}/approve`, undefined, { token: manager.token })).status).toBe(
        200,
      );
    });

    it('tells the member (LEAVE_DECIDED)', async () => {
      await t.app.get(LeaveDecidedListener).idle();
      const res = await t.get('/notifications', { token: asha.token });
      const decided = res.body.notifications.filter((n: any) => n.type === 'LEAVE_DECIDED');
      expect(decided).toHaveLength(1);
      expect(decided[0].title).toBe('Leave approved: 2030-03-15 to 2030-03-17');
    });

    it("refuses the member's own present mark for a covered meal (409 On leave), from a manager too", async () => {
      const own = await mark(asha.token, '2030-03-16', 'Lunch', 'present');
      expect(own.status).toBe(409);
      expect(own.body.error).toBe('On leave');
      const byManager = await mark(manager.token, '2030-03-16', 'Breakfast', 'present', asha.id);
      expect(byManager.status).toBe(409);
      const bulk = await t.post(
        '/attendance/bulk',
        {
          date: '2030-03-16',
          mealType: 'Breakfast',
          marks: [
            { userId: ravi.id, status: 'present' },
            { userId: asha.id, status: 'present' },
          ],
        },
        { token: manager.token },
      );
      expect(bulk.status).toBe(409);
      expect(bulk.body.details).toEqual([
        { field: 'marks.1.userId', message: 'the member is on approved leave for this meal' },
      ]);
      // Saying absent is fine; a meal outside the leave is too.
      expect((await mark(asha.token, '2030-03-16', 'Lunch', 'absent')).status).toBe(201);
      expect((await mark(asha.token, '2030-03-18', 'Breakfast', 'present')).status).toBe(201);
    });

    it("gives the kitchen's headcount onLeave per meal, not counted as unmarked", async () => {
      // Diners: the manager and the three students (the bootstrap admin does not dine).
      const { diners, meals } = await headcount('2030-03-16');
      expect(diners).toBe(4);
      expect(meals.Breakfast).toMatchObject({ expected: 0, absent: 0, onLeave: 1, unmarked: 3 });
      expect(meals.Lunch).toMatchObject({ expected: 0, absent: 1, onLeave: 1, unmarked: 3 });
      expect(meals.Dinner).toMatchObject({ expected: 0, absent: 1, onLeave: 1, unmarked: 3 });
      const before = await headcount('2030-03-14');
      expect(before.meals.Dinner).toMatchObject({ expected: 1, onLeave: 0, unmarked: 3 });
    });

    it('names the unmarked diners on request (names=true), the one on leave not among them', async () => {
      const named = await t.get('/analytics/headcount?date=2030-03-16&names=true', { token: manager.token });
      expect(named.status).toBe(200);
      const everyone = [manager, ravi, meera].map((m) => m.id).sort();
      for (const meal of named.body.meals as { unmarked: number; unmarkedMembers: { _id: string }[] }[]) {
        expect(meal.unmarkedMembers.map((m) => m._id).sort()).toEqual(everyone);
        expect(meal.unmarkedMembers).toHaveLength(meal.unmarked);
      }
      expect(named.body.meals[0].unmarkedMembers).toContainEqual({ _id: ravi.id, fullName: 'Ravi Kumar' });
      const plain = await t.get('/analytics/headcount?date=2030-03-16', { token: manager.token });
      expect(plain.body.meals[0].unmarkedMembers).toBeUndefined();
      const bad = await t.get('/analytics/headcount?date=2030-03-16&names=yes', { token: manager.token });
      expect([bad.status, bad.body.details]).toEqual([
        400,
        [{ field: 'names', message: 'names must be true or false' }],
      ]);
      expect((await t.get('/analytics/headcount?names=true', { token: asha.token })).status).toBe(403);
    });

    it('is refused (409) while the mess recorded a covered meal eaten; allowed once that mark is corrected', async () => {
      const pending = await leave(ravi.token, { startDate: '2030-03-20', endDate: '2030-03-21' });
      expect(pending.status).toBe(201);
      expect((await mark(manager.token, '2030-03-20', 'Breakfast', 'present', ravi.id)).status).toBe(201);
      const refused = await t.put(`/leaves/${pending.body.leave._id}/approve`, undefined, {
        token: manager.token,
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toContain('recorded eaten by the mess');
      expect(refused.body.error).toContain('(Breakfast on 2030-03-20)');
      const listed = await t.get(`/leaves?userId=${ravi.id}&status=pending`, { token: manager.token });
      expect(listed.body.leaves.map((l: any) => l._id)).toEqual([pending.body.leave._id]);
      expect((await mark(manager.token, '2030-03-20', 'Breakfast', 'absent', ravi.id)).status).toBe(200);
      const approved = await t.put(`/leaves/${pending.body.leave._id}/approve`, undefined, {
        token: manager.token,
      });
      expect(approved.status).toBe(200);
    });

    it('rejects a pending leave with a reason; a rejected leave is neither approved nor cancelled', async () => {
      const asked = await leave(meera.token, { startDate: '2030-03-22', endDate: '2030-03-23' });
      const id = asked.body.leave._id;
      const rejected = await t.put(
        `/leaves/${id}/reject`,
        { reason: 'Exams week' },
        { token: manager.token },
      );
      expect(rejected.status).toBe(200);
      expect(rejected.body.leave).toMatchObject({ status: 'rejected', decisionNote: 'Exams week' });
      expect((await t.put(`/leaves/${id}/reject`, undefined, { token: manager.token })).status).toBe(200);
      expect((await t.put(`/leaves/${id}/approve`, undefined, { token: manager.token })).status).toBe(409);
      expect((await t.put(`/leaves/${id}/cancel`, undefined, { token: meera.token })).status).toBe(409);
      expect((await t.put(`/leaves/${id}/approve`, undefined, { token: meera.token })).status).toBe(403);
      await t.app.get(LeaveDecidedListener).idle();
      const told = (await t.get('/notifications', { token: meera.token })).body.notifications;
      expect(told.find((n: any) => n.type === 'LEAVE_DECIDED').content).toContain('Exams week');
    });

    it('approves at once a late leave a manager records for a member (the member phoned in)', async () => {
      const res = await leave(manager.token, {
        startDate: '2030-03-10',
        endDate: '2030-03-11',
        startMealType: 'Dinner',
        userId: meera.id,
      });
      expect(res.status).toBe(201);
      expect(res.body.leave).toMatchObject({
        status: 'approved',
        decidedBy: manager.id,
        requestedBy: manager.id,
      });
      expect((await mark(meera.token, '2030-03-10', 'Dinner', 'present')).status).toBe(409);
      // Lunch today is before the leave: free.
      expect((await mark(meera.token, '2030-03-10', 'Lunch', 'present')).status).toBe(201);
    });
  });

  describe('lists and cancelling', () => {
    it('shows members only their own leave; managers everyone, filtered', async () => {
      const own = await t.get('/leaves?userId=' + ravi.id, { token: asha.token });
      expect(own.status).toBe(200);
      expect(new Set(own.body.leaves.map((l: any) => l.userId._id))).toEqual(new Set([asha.id]));
      const march = await t.get('/leaves?month=2030-03&status=approved', { token: manager.token });
      expect(march.body.leaves.map((l: any) => l.userId.fullName).sort()).toEqual([
        'Asha Verma',
        'Meera Iyer',
        'Ravi Kumar',
      ]);
      const day = await t.get('/leaves?date=2030-03-16', { token: manager.token });
      expect(day.body.leaves.map((l: any) => l._id)).toEqual([ashaLeave]);
      expect((await t.get('/leaves?status=gone', { token: manager.token })).status).toBe(400);
    });

    it('lets the member cancel only before the first meal starts; a manager any time', async () => {
      const clock = fixClock(t, ist('2030-03-15', '08:00'));
      const late = await t.put(`/leaves/${ashaLeave}/cancel`, undefined, { token: asha.token });
      expect(late.status).toBe(409);
      expect(late.body.error).toBe(
        'A member cancels a leave only before its first meal starts; ask a manager',
      );
      expect((await t.put(`/leaves/${ashaLeave}/cancel`, undefined, { token: ravi.token })).status).toBe(403);
      const byManager = await t.put(`/leaves/${ashaLeave}/cancel`, undefined, { token: manager.token });
      expect(byManager.status).toBe(200);
      expect(byManager.body.leave.status).toBe('cancelled');
      // No longer on leave: she may say she eats dinner tonight.
      expect((await mark(asha.token, '2030-03-16', 'Dinner', 'present')).status).toBe(200);
      clock.set(ist('2030-03-10', '06:00'));
    });
  });

  describe('concurrency', () => {
    it('accepts one of two overlapping requests sent at once, whatever the timing, and refuses the other (409)', async () => {
      const rounds = [
        ['2030-04-01', '2030-04-02', '2030-04-02', '2030-04-03'],
        ['2030-05-10', '2030-05-12', '2030-05-11', '2030-05-12'],
        ['2030-06-20', '2030-06-21', '2030-06-20', '2030-06-21'],
      ];
      for (const [s1, e1, s2, e2] of rounds) {
        const answers = await Promise.all([
          leave(ravi.token, { startDate: s1, endDate: e1 }),
          leave(ravi.token, { startDate: s2, endDate: e2 }),
        ]);
        expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
        expect(answers.find((a) => a.status === 409)!.body.error).toBe(OVERLAPS);
      }
      const stored = await t.get(`/leaves?userId=${ravi.id}&status=pending`, { token: manager.token });
      expect(stored.body.pagination.total).toBe(3);
    });

    it('refuses a present mark that waited for an approval holding the leave lock, once the approval commits', async () => {
      // The embedded engine runs one transaction at a time: a mark cannot be waiting while an approval is open.
      if (!t.databaseUrl) return;
      const approval = new Client({ connectionString: t.databaseUrl });
      approval.on('error', () => undefined);
      await approval.connect();
      try {
        // An approval as the leave module makes one: the member's leave lock (exclusive), then the approved leave,
        // in the first mess (the service points its connections at the mess of the request).
        await approval.query('begin');
        await approval.query(`select set_config('app.mess', $1, true)`, [FIRST_MESS_ID]);
        await approval.query(`select pg_advisory_xact_lock(hashtextextended('mess.leave:' || $1, 0))`, [
          meera.id,
        ]);
        await approval.query(
          `insert into leaves (user_id, start_date, end_date, start_meal_type, end_meal_type, starts_at, ends_at,
             days, status, requested_by, decided_by, decided_at)
           values ($1, '2030-03-12', '2030-03-12', 'Breakfast', 'Dinner', $2, $3, 1, 'approved', $1, $1, now())`,
          [meera.id, ist('2030-03-12', '00:00'), ist('2030-03-13', '00:00')],
        );
        const marking = mark(meera.token, '2030-03-12', 'Lunch', 'present');
        // The mark waits for the lock (an advisory lock of this database, not granted): the leave it must see is not
        // committed yet.
        for (const deadline = Date.now() + 10_000; ;) {
          const { rows } = await approval.query(
            `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted
               and database = (select oid from pg_database where datname = current_database())`,
          );
          if (rows[0].n > 0) break;
          if (Date.now() > deadline) throw new Error('the mark did not wait for the leave lock within 10 s');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await approval.query('commit');
        const res = await marking;
        expect(res.status).toBe(409);
        expect(res.body.error).toBe('On leave');
        expect((await marksOf(meera))['2030-03-12 Lunch']).toBeUndefined();
      } finally {
        await approval.end();
      }
    });
  });
});
