import { EventEmitter2 } from '@nestjs/event-emitter';
import { messSetup, TestApp } from '../support/app';

/**
 * The first week: `POST /users/approve {userIds}` approves a hall's intake at once, all or nothing, by the single
 * approval's rules (capacity of each member's mess, its audit trail, `member.changed` for each).
 */
describe('Users: approving in bulk', () => {
  let t: TestApp;
  let admin: string;
  let east: string;
  const changed: { userId: string; change: string; messId: string }[] = [];
  let registered = 0;

  const register = async (mess?: string): Promise<string> => {
    registered += 1;
    const res = await t.post('/auth/register', {
      email: `intake${registered}@college.edu`,
      password: 'a-good-password-1',
      fullName: `Intake ${registered}`,
      collegeId: `IN${registered}`,
      room: `E-${registered}`,
      phone: `98766${String(registered).padStart(5, '0')}`,
      ...(mess ? { mess } : {}),
    });
    expect(res.status).toBe(201);
    return res.body.userId;
  };
  const statusOf = async (id: string) => (await t.get(`/users/${id}`, { token: admin })).body.user.status;

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    // East holds two approved members at most.
    const e = await t.post('/messes', messSetup({ messName: 'East', slug: 'east', capacity: 2 }), {
      token: admin,
    });
    east = e.body.mess._id;
    t.app
      .get(EventEmitter2)
      .on('member.changed', (event: { userId: string; change: string; messId: string }) => {
        changed.push({ userId: event.userId, change: event.change, messId: event.messId });
      });
  }, 90_000);
  afterAll(() => t?.close());

  it('approves pending and rejected members of several messes in one call, each audited in its mess', async () => {
    const [a, b, c] = [await register(), await register(), await register('east')];
    expect((await t.put(`/users/${b}/reject`, undefined, { token: admin })).status).toBe(200);
    const already = await t.member('student');
    changed.length = 0;
    const res = await t.post('/users/approve', { userIds: [c, a, b, already.id] }, { token: admin });
    expect([res.status, res.body]).toEqual([200, { success: true, approved: 3 }]);
    for (const id of [a, b, c]) expect(await statusOf(id)).toBe('approved');
    expect(
      changed.filter((e) => e.change === 'approved').sort((x, y) => x.userId.localeCompare(y.userId)),
    ).toEqual(
      [
        { userId: a, change: 'approved', messId: expect.any(String) },
        { userId: b, change: 'approved', messId: expect.any(String) },
        { userId: c, change: 'approved', messId: east },
      ].sort((x, y) => x.userId.localeCompare(y.userId)),
    );
    const trail = async (mess: string) =>
      (await t.get(`/audit?entity=user&limit=100&mess=${mess}`, { token: admin })).body.events
        .filter((e: { action: string }) => e.action === 'approved')
        .map((e: { entityId: string; before: unknown; after: unknown }) => [e.entityId, e.before, e.after]);
    expect(await trail('east')).toEqual([
      [c, { status: 'pending', role: 'student' }, { status: 'approved', role: 'student' }],
    ]);
    expect((await trail('main')).map(([id]: [string]) => id).sort()).toEqual([a, b].sort());
    // Again: nothing left to approve, nothing changes.
    const again = await t.post('/users/approve', { userIds: [a, b, c] }, { token: admin });
    expect(again.body).toEqual({ success: true, approved: 0 });
  });

  it('approves nobody when one id names nobody (404 naming it) or a mess would be over capacity (409 naming it)', async () => {
    const [d, f, g] = [await register(), await register('east'), await register('east')];
    const nobody = '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5b';
    const unknown = await t.post('/users/approve', { userIds: [d, nobody] }, { token: admin });
    expect([unknown.status, unknown.body]).toEqual([
      404,
      { success: false, error: `User ${nobody} not found` },
    ]);
    expect(await statusOf(d)).toBe('pending');
    // East has one place left (c from the test before): two more are one too many.
    const full = await t.post('/users/approve', { userIds: [d, f, g] }, { token: admin });
    expect([full.status, full.body]).toEqual([409, { success: false, error: 'Mess East is full' }]);
    for (const id of [d, f, g]) expect(await statusOf(id)).toBe('pending');
    expect((await t.post('/users/approve', { userIds: [d, f] }, { token: admin })).body.approved).toBe(2);
  });

  it('takes 1 to 1,000 distinct ids from an admin only, naming the repeated id', async () => {
    const id = await register();
    const bad = async (userIds: unknown) =>
      (await t.post('/users/approve', { userIds }, { token: admin })).body;
    expect((await bad([])).details).toEqual([{ field: 'userIds', message: expect.any(String) }]);
    expect((await bad(['nope'])).details.map((d: { field: string }) => d.field)).toEqual(['userIds']);
    expect((await bad([id, id.toUpperCase()])).details).toEqual([
      { field: 'userIds', message: `userIds names ${id.toUpperCase()} twice` },
    ]);
    const many = Array.from(
      { length: 1_001 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    expect((await bad(many)).details.map((d: { field: string }) => d.field)).toEqual(['userIds']);
    const manager = await t.member('manager');
    expect((await t.post('/users/approve', { userIds: [id] }, { token: manager.token })).status).toBe(403);
    expect(await statusOf(id)).toBe('pending');
  });

  it('names the id that names nobody in a batch move too', async () => {
    const member = await t.member('student');
    const nobody = '0193a5e4-7c1a-7c9e-9d3b-4a1f2e3d4c5c';
    const res = await t.post('/messes/east/members', { userIds: [member.id, nobody] }, { token: admin });
    expect([res.status, res.body]).toEqual([404, { success: false, error: `User ${nobody} not found` }]);
    // The route with the id in its path says as before.
    const one = await t.put(`/users/${nobody}/mess`, { mess: 'east' }, { token: admin });
    expect([one.status, one.body.error]).toEqual([404, 'User not found']);
  });
});
