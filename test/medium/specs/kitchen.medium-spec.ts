import { DomainEventBus } from '../../../src/common/events/domain-event-bus';
import { KitchenModule } from '../../../src/modules/kitchen';
import type { FittedModel } from '../../../src/modules/kitchen/forecast-model';
import { KitchenRepository } from '../../../src/modules/kitchen/kitchen.repository';
import { type MediumContext, newMedium } from '../medium.factory';

/**
 * The kitchen's kept models in two messes: a past record changed in B (an event published from outside any request
 * of B's, as a listener hears it) puts B's model out of date (no longer current), in B; A's stays. What /kitchen
 * answers: test/e2e.
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
});
