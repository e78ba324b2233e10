import { messSetup, TestApp } from '../support/app';

/** Issue 24: the mess's staff see who is in the mess; user administration stays with admins. */
describe('The roster (GET /members)', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
  });
  afterAll(() => t?.close());

  it("lists the mess's members for its staff, filtered and by name; contacts for admins only", async () => {
    const manager = await t.member('manager', { fullName: 'Manoj Manager' });
    const treasurer = await t.member('treasurer', { fullName: 'Tara Treasurer' });
    const asha = await t.member('student', { fullName: 'Asha Verma' });
    const ravi = await t.member('student', { fullName: 'Ravi Kumar' });
    expect((await t.put(`/users/${ravi.id}/dines`, { dines: false }, { token: admin })).status).toBe(200);
    const north = (await t.post('/messes', messSetup({ messName: 'North', slug: 'north' }), { token: admin }))
      .body.mess._id as string;
    const elsewhere = await t.member('student', { fullName: 'Asha Elsewhere', messId: north });

    const all = await t.get('/members?limit=100', { token: manager.token });
    expect(all.status).toBe(200);
    const names = all.body.members.map((m: { fullName: string }) => m.fullName);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b)));
    expect(names).toEqual(
      expect.arrayContaining(['Asha Verma', 'Ravi Kumar', 'Manoj Manager', 'Tara Treasurer']),
    );
    expect(names).not.toContain(elsewhere.fullName);
    const row = all.body.members.find((m: { _id: string }) => m._id === asha.id);
    expect(row).toMatchObject({
      fullName: 'Asha Verma',
      role: 'student',
      status: 'approved',
      dines: true,
      hasPhone: true,
    });
    expect(row).not.toHaveProperty('email');
    expect(row).not.toHaveProperty('phone');

    const search = await t.get('/members?q=asha', { token: treasurer.token });
    expect(search.body.members.map((m: { _id: string }) => m._id)).toEqual([asha.id]);
    const notDining = await t.get('/members?dines=false', { token: manager.token });
    const notDiningIds = notDining.body.members.map((m: { _id: string }) => m._id);
    expect(notDiningIds).toContain(ravi.id);
    expect(notDiningIds).not.toContain(asha.id);
    expect(notDining.body.members.every((m: { dines: boolean }) => !m.dines)).toBe(true);
    const staff = await t.get('/members?role=treasurer', { token: manager.token });
    expect(staff.body.members.map((m: { _id: string }) => m._id)).toEqual([treasurer.id]);
    const paged = await t.get('/members?limit=1&page=2', { token: manager.token });
    expect(paged.body.members).toHaveLength(1);
    expect(paged.body.pagination).toMatchObject({ page: 2, limit: 1, total: all.body.pagination.total });

    const asAdmin = await t.get('/members?q=asha', { token: admin });
    expect(asAdmin.body.members[0]).toMatchObject({
      email: asha.email,
      phone: expect.stringMatching(/^\+91/),
    });

    expect((await t.get('/members', { token: asha.token })).status).toBe(403);
    const bad = await t.get('/members?dines=maybe&status=gone', { token: manager.token });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['dines', 'status']);
    // The contract's user administration stays with admins.
    expect((await t.get('/users', { token: manager.token })).status).toBe(403);
  });
});
