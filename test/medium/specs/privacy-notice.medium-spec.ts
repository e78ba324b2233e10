import { PrivacyNotice, PrivacyNoticeDto, PrivacyNoticeModule } from '../../../src/modules/privacy-notice';
import { type MediumContext, type MediumMember, newMedium } from '../medium.factory';

/**
 * The deployment's privacy notice: one for every mess (set by an admin in either, read the same in both), a new
 * version replacing the one in force, and registration's check of the version accepted. What /privacy and
 * /auth/admin/config answer: test/e2e/member-data.e2e-spec.ts.
 */
describe('Privacy notice (medium): one for the deployment, read in both messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aAdmin: MediumMember;

  beforeAll(async () => {
    ctx = await newMedium({ imports: [PrivacyNoticeModule] });
    inB = ctx.as(ctx.messes.b);
    aAdmin = await ctx.newMember('admin');
  });
  afterAll(() => ctx?.close());

  const notice = (version: string) => ({
    version,
    url: `https://college.edu/mess/privacy/${version}`,
    grievanceOfficer: { name: 'Grace Officer', email: 'grievance@college.edu' },
  });

  it('has none in force at first: registration accepts nothing, in either mess', async () => {
    expect(await ctx.get(PrivacyNotice).current()).toBeNull();
    expect(await inB.get(PrivacyNotice).current()).toBeNull();
    await expect(ctx.get(PrivacyNotice).accepted(undefined)).resolves.toBeUndefined();
    await expect(inB.get(PrivacyNotice).accepted('anything')).resolves.toBeUndefined();
  });

  it('a version set in A is the one in force in B too; registration must accept exactly it (400 otherwise)', async () => {
    const set = await ctx
      .get(PrivacyNotice)
      .set(await ctx.dto(PrivacyNoticeDto, notice('2030-01')), aAdmin.id);
    expect(set).toEqual(notice('2030-01'));
    expect(await inB.get(PrivacyNotice).current()).toEqual(notice('2030-01'));
    await expect(inB.get(PrivacyNotice).accepted('2030-01')).resolves.toBe('2030-01');
    const refused = await inB.refusal(inB.get(PrivacyNotice).accepted('2029-12'));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ details: [expect.objectContaining({ field: 'acceptNotice' })] });
    expect((await inB.refusal(inB.get(PrivacyNotice).accepted(undefined))).status).toBe(400);
  });

  it("B's admin's new version replaces it everywhere; none (null) ends it", async () => {
    const bAdmin = ctx.messes.b.admin!;
    await inB.get(PrivacyNotice).set(await inB.dto(PrivacyNoticeDto, notice('2030-07')), bAdmin.id);
    expect(await ctx.get(PrivacyNotice).current()).toEqual(notice('2030-07'));
    expect((await ctx.refusal(ctx.get(PrivacyNotice).accepted('2030-01'))).status).toBe(400);
    expect(await ctx.get(PrivacyNotice).set(null, aAdmin.id)).toBeNull();
    expect(await inB.get(PrivacyNotice).current()).toBeNull();
    await expect(ctx.get(PrivacyNotice).accepted(undefined)).resolves.toBeUndefined();
  });
});
