import { DomainEventBus } from '../../../src/common/events/domain-event-bus';
import { KitchenModule } from '../../../src/modules/kitchen';
import type { FittedModel } from '../../../src/modules/kitchen/forecast-model';
import { KitchenRepository } from '../../../src/modules/kitchen/kitchen.repository';
import { type MediumContext, newMedium } from '../medium.factory';

/**
 * The kitchen's kept models and waste records in two messes: a past record changed in B (an event published from
 * outside any request of B's, as a listener hears it) puts B's model out of date (no longer current), in B, and
 * counts the present marks of B's recorded meal again, in B; A's model and record stay. What /kitchen answers:
 * test/e2e.
 */
describe('Kitchen (medium): two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  const model = (cutoff: string) => ({ cutoff }) as unknown as FittedModel;

  beforeAll(async () => {
    ctx = await newMedium({ imports: [KitchenModule], now: new Date('2030-03-10T06:00:00Z') });
    inB = ctx.as(ctx.messes.b);
    await ctx.get(KitchenRepository).storeModel(model('2030-03-10'));
    await inB.get(KitchenRepository).storeModel(model('2030-03-10'));
  });
  afterAll(() => ctx?.close());

  it("a past mark of B's puts B's kept model out of date, in B, and leaves A's", async () => {
    expect(await inB.get(KitchenRepository).modelAt('2030-03-10')).toBeDefined();
    // Published while the running code is in A: the listener must enter the event's mess, B.
    ctx.get(DomainEventBus).publish('attendance.marked', {
      messId: ctx.messes.b.id,
      attendanceId: '00000000-0000-4000-8000-00000000000a',
      userId: '00000000-0000-4000-8000-00000000000b',
      date: '2030-03-09',
      mealType: 'Lunch',
      status: 'present',
      actorId: '00000000-0000-4000-8000-00000000000b',
      month: '2030-03',
    });
    // The listener runs after publish returns: wait for its effect (bounded), not for a time.
    for (let i = 0; i < 200 && (await inB.get(KitchenRepository).modelAt('2030-03-10')); i += 1)
      await new Promise((resolve) => setImmediate(resolve));
    expect(await inB.get(KitchenRepository).modelAt('2030-03-10')).toBeUndefined();
    expect(await ctx.get(KitchenRepository).modelAt('2030-03-10')).toBeDefined();
  });

  it("a changed mark of B's recorded meal counts B's present marks again, in B, and leaves A's record", async () => {
    // Both messes recorded the same meal with 7 present marks; neither has a mark of it now.
    const record = async (mess: MediumContext) => {
      const member = await mess.newMember('manager');
      await mess
        .get(KitchenRepository)
        .transaction((tx) =>
          mess
            .get(KitchenRepository)
            .upsertWaste(
              {
                date: '2030-03-09',
                mealType: 'Lunch',
                presentMarks: 7,
                leftoverGrams: 1200,
                recordedBy: member.id,
              },
              tx,
            ),
        );
    };
    await record(ctx);
    await record(inB);
    const presentMarks = async (mess: MediumContext) =>
      (await mess.get(KitchenRepository).wasteBetween('2030-03-09', '2030-03-09'))[0]?.presentMarks;
    // Published while the running code is in A: the listener must count B's marks, in B.
    ctx.get(DomainEventBus).publish('attendance.marked', {
      messId: ctx.messes.b.id,
      attendanceId: '00000000-0000-4000-8000-00000000000c',
      userId: '00000000-0000-4000-8000-00000000000d',
      date: '2030-03-09',
      mealType: 'Lunch',
      status: 'absent',
      previousStatus: 'present',
      actorId: '00000000-0000-4000-8000-00000000000d',
      month: '2030-03',
    });
    for (let i = 0; i < 200 && (await presentMarks(inB)) === 7; i += 1)
      await new Promise((resolve) => setImmediate(resolve));
    expect(await presentMarks(inB)).toBe(0);
    expect(await presentMarks(ctx)).toBe(7);
  });
});
