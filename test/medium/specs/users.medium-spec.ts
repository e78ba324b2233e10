import { requestContext } from '../../../src/common/context/request-context';
import { ListUsersQuery } from '../../../src/modules/users/dto/user.requests';
import {
  CredentialsService,
  UserAdministrationService,
  UsersModule,
  UsersService,
} from '../../../src/modules/users';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

/**
 * The members in two messes: a mess's roster and its diners are its own; the admins are the deployment's (their list
 * spans the messes unless a mess is named), and approval, roles and dining change a member where they are. What
 * /users answers: test/e2e/users.e2e-spec.ts; moves between messes: memberships.medium-spec.ts.
 */
describe('Users (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aAdmin: MediumMember;
  let bAdmin: MediumMember;
  let bStudent: MediumMember;
  let aPendingId: string;
  let bPendingId: string;

  beforeAll(async () => {
    ctx = await newMedium({ imports: [UsersModule] });
    inB = ctx.as(ctx.messes.b);
    aAdmin = await ctx.newMember('admin', { fullName: 'Anu Admin' });
    bAdmin = ctx.messes.b.admin!;
    bStudent = await inB.newMember('student', { fullName: 'Bina Student' });
    const register = (at: MediumContext, email: string, messId: string) =>
      at.get(CredentialsService).register({
        email,
        password: 'pending-password-1',
        fullName: `Pending ${email}`,
        collegeId: email.slice(0, 6),
        room: 'R-1',
        phone: '+919000000001',
        messId,
      });
    aPendingId = (await register(ctx, 'pending.a@test.local', ctx.messes.a.id)).id;
    bPendingId = (await register(inB, 'pending.b@test.local', ctx.messes.b.id)).id;
  });
  afterAll(() => ctx?.close());

  const list = async (at: MediumContext, query: object = {}) =>
    at.get(UserAdministrationService).list(await at.dto(ListUsersQuery, query));
  /** The list as a request naming its mess (`?mess=`) asks for it. */
  const listNamed = async (at: MediumContext, query: object = {}) => {
    const dto = await at.dto(ListUsersQuery, query);
    return requestContext.run({ requestId: 'medium', messId: at.messId, messNamed: true }, () =>
      at.get(UserAdministrationService).list(dto),
    );
  };
  const roster = (at: MediumContext, filter: object = {}) =>
    at.get(UsersService).roster({ limit: 50, offset: 0, ...filter });
  const ids = (rows: { id: string }[]) => rows.map((u) => u.id).sort();

  it("a mess's roster holds its own members only, filtered by status and role", async () => {
    expect(ids((await roster(ctx)).rows)).toEqual(ids([aAdmin, { id: aPendingId }]));
    expect(ids((await roster(inB)).rows)).toEqual(ids([bAdmin, bStudent, { id: bPendingId }]));
    expect((await roster(inB, { status: 'pending' })).rows.map((u) => u.id)).toEqual([bPendingId]);
    expect((await roster(inB, { role: 'admin' })).rows.map((u) => u.id)).toEqual([bAdmin.id]);
    expect(await roster(ctx, { role: 'student', status: 'approved' })).toEqual({ rows: [], total: 0 });
  });

  it("the admins' list names every mess's members; naming a mess shows that mess's only", async () => {
    const all = await list(ctx);
    expect(ids(all.rows)).toEqual(ids([aAdmin, { id: aPendingId }, bAdmin, bStudent, { id: bPendingId }]));
    expect(all.total).toBe(5);
    const a = await listNamed(ctx);
    expect(ids(a.rows)).toEqual(ids([aAdmin, { id: aPendingId }]));
    expect(a.rows.every((u) => u.messId === ctx.messes.a.id)).toBe(true);
    expect((await listNamed(inB, { status: 'pending' })).rows.map((u) => u.id)).toEqual([bPendingId]);
    expect(await listNamed(ctx, { role: 'manager' })).toEqual({ rows: [], total: 0 });
  });

  it('approves a pending member, who stays in their mess; a second approval changes nothing', async () => {
    const approved = await ctx.get(UserAdministrationService).approve(aAdmin.caller, bPendingId);
    expect([approved.status, approved.messId]).toEqual(['approved', ctx.messes.b.id]);
    const again = await ctx.get(UserAdministrationService).approve(aAdmin.caller, bPendingId);
    expect(again.updatedAt).toEqual(approved.updatedAt);
    expect(ids((await roster(inB, { status: 'approved' })).rows)).toEqual(ids([bAdmin, bStudent, approved]));
    expect(ids((await roster(ctx, { status: 'approved' })).rows)).toEqual([aAdmin.id]);
  });

  it("a role or dining change of B's member moves B's figures, never A's", async () => {
    const aDiners = (await ctx.get(UsersService).dinerIds()).sort();
    expect(aDiners).toEqual([aAdmin.id]);
    const promoted = await inB
      .get(UserAdministrationService)
      .changeRole(bAdmin.caller, bStudent.id, 'manager');
    expect([promoted.role, promoted.messId]).toEqual(['manager', ctx.messes.b.id]);
    const off = await inB.get(UserAdministrationService).setDines(bAdmin.caller, bStudent.id, false);
    expect(off.dines).toBe(false);
    expect((await inB.get(UsersService).dinerIds()).sort()).toEqual(ids([bAdmin, { id: bPendingId }]));
    expect((await ctx.get(UsersService).dinerIds()).sort()).toEqual(aDiners);
    expect((await roster(inB, { role: 'manager' })).rows.map((u) => u.id)).toEqual([bStudent.id]);
    expect(await roster(ctx, { role: 'manager' })).toEqual({ rows: [], total: 0 });
  });

  it('rejects a member, ending their standing; an admin cannot reject themselves (409)', async () => {
    const rejected = await inB.get(UserAdministrationService).reject(bAdmin.caller, bPendingId);
    expect(rejected.status).toBe('rejected');
    expect((await roster(inB, { status: 'rejected' })).rows.map((u) => u.id)).toEqual([bPendingId]);
    const self = await inB.refusal(inB.get(UserAdministrationService).reject(bAdmin.caller, bAdmin.id));
    expect(self).toEqual({
      status: 409,
      body: expect.objectContaining({ error: 'You cannot reject your own account' }),
    });
  });

  it("the deployment keeps one approved admin: B's may step down while A's remains, A's then may not (409)", async () => {
    const admin = ctx.get(UserAdministrationService);
    const stepped = await inB
      .get(UserAdministrationService)
      .changeRole(aAdmin.caller, bAdmin.id, 'treasurer');
    expect(stepped.role).toBe('treasurer');
    const demote = await ctx.refusal(admin.changeRole(aAdmin.caller, aAdmin.id, 'student'));
    expect(demote.status).toBe(409);
    expect(demote.body).toMatchObject({ error: 'The last approved admin cannot be demoted or rejected' });
    expect((await ctx.get(UsersService).findById(aAdmin.id))?.role).toBe('admin');
    expect(await ctx.get(UsersService).hasApprovedAdmin()).toBe(true);
  });

  it("a mess's members are read only in a mess: outside one, the guarded path fails instead of reading every mess", async () => {
    // `ctx.module.get`: the service as such, called in no mess (ctx.get runs each call in the context's mess).
    const users = ctx.module.get(UsersService);
    await expect(users.countDiners()).rejects.toThrow();
    await expect(users.roster({ limit: 50, offset: 0 })).rejects.toThrow();
    await expect(users.statusesOf([bStudent.id])).rejects.toThrow();
    // In B, B's member; in A, nobody of B.
    expect([...(await inB.get(UsersService).statusesOf([bStudent.id])).keys()]).toEqual([bStudent.id]);
    expect((await ctx.get(UsersService).statusesOf([bStudent.id])).size).toBe(0);
  });
});
