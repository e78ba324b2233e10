import { ThrottlerModule } from '@nestjs/throttler';
import { NotificationsModule } from '../../../src/modules/notifications';
import { NotificationQueue } from '../../../src/modules/notifications/notification-queue';
import { NotificationsService } from '../../../src/modules/notifications/notifications.service';
import { type MediumContext, type MediumMember, MESS_B_SETUP, newMedium } from '../medium.factory';

const A_NAME = 'Hostel 7 Mess';

/**
 * Notifications in two messes: a job run for B renders B's configuration (its name in From and the subject) whoever
 * drains the queue, A's mail stays A's, and each mess's history holds its own notifications only.
 */
describe('Notifications (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aMember: MediumMember;
  let bMember: MediumMember;

  beforeAll(async () => {
    // The app's rate-limit storage (the test-send limit) is the app module's: the in-memory one here.
    ctx = await newMedium({
      imports: [ThrottlerModule.forRoot([{ ttl: 60_000, limit: 100 }]), NotificationsModule],
    });
    inB = ctx.as(ctx.messes.b);
    await ctx.setUpMess(await ctx.newMember('admin'), { messName: A_NAME });
    aMember = await ctx.newMember('student');
    bMember = await inB.newMember('student');
  });
  afterAll(() => ctx?.close());

  const summary = (userId: string, title: string) => ({
    userId,
    type: 'COST_SUMMARY' as const,
    title,
    content: 'Your share this month',
  });

  it("a job run for B renders B's name; A's renders A's", async () => {
    const [bRow] = await inB.get(NotificationsService).notify([summary(bMember.id, 'January bill (B)')]);
    const [aRow] = await ctx.get(NotificationsService).notify([summary(aMember.id, 'January bill (A)')]);
    expect(bRow.messId).toBe(ctx.messes.b.id);
    expect(aRow.messId).toBe(ctx.messes.a.id);

    // The worker, outside any mess: each job enters its own.
    expect(await ctx.module.get(NotificationQueue).drain()).toBe(2);

    const toB = ctx.mail.sent.filter((m) => m.to === bMember.email);
    const toA = ctx.mail.sent.filter((m) => m.to === aMember.email);
    expect(toB).toHaveLength(1);
    expect(toA).toHaveLength(1);
    expect(toB[0]).toMatchObject({
      fromName: MESS_B_SETUP.messName,
      subject: `${MESS_B_SETUP.messName}: January bill (B)`,
    });
    expect(toB[0].text).toContain(MESS_B_SETUP.messName);
    expect(toB[0].text).not.toContain(A_NAME);
    expect(toA[0]).toMatchObject({ fromName: A_NAME, subject: `${A_NAME}: January bill (A)` });
    expect(toA[0].text).not.toContain(MESS_B_SETUP.messName);
  });

  it("a job of B's drained by code acting in A is still rendered in B", async () => {
    await inB.get(NotificationsService).notify([summary(bMember.id, 'February bill (B)')]);
    const before = ctx.mail.sent.length;
    // ctx.get runs the drain in A: the job enters the mess its payload names
    expect(await ctx.get(NotificationQueue).drain()).toBe(1);
    expect(ctx.mail.sent.slice(before)).toEqual([
      expect.objectContaining({
        to: bMember.email,
        fromName: MESS_B_SETUP.messName,
        subject: `${MESS_B_SETUP.messName}: February bill (B)`,
      }),
    ]);
  });

  it("each mess's history holds its own notifications only", async () => {
    const inBHistory = await inB.get(NotificationsService).history(bMember.id, 1, 20);
    const inAHistory = await ctx.get(NotificationsService).history(bMember.id, 1, 20);
    expect(inBHistory.total).toBe(2);
    expect(inAHistory.total).toBe(0);
    expect((await ctx.get(NotificationsService).history(aMember.id, 1, 20)).total).toBe(1);
  });
});
