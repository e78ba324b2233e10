import { HttpException } from '@nestjs/common';
import { Database } from '../../../src/database/database';
import { HealthModule } from '../../../src/modules/health';
import { HealthService } from '../../../src/modules/health/health.service';
import { type MediumContext, newMedium } from '../medium.factory';

/**
 * The probes on a real database: ready while it answers, with both messes' work under way; the metrics behind their
 * token; and, the database gone, readiness answers 503 with the body that says why. What /health answers over HTTP:
 * test/e2e/health.e2e-spec.ts.
 */
describe('Health (medium)', () => {
  let ctx: MediumContext;

  beforeAll(async () => {
    ctx = await newMedium({ imports: [HealthModule], env: { METRICS_TOKEN: 'metrics-token-of-the-spec' } });
    // work in both messes first: the probes answer for the deployment, in whichever mess they are asked
    await ctx.newMember('admin');
    await ctx.as(ctx.messes.b).newMember('student');
  });
  afterAll(() => ctx?.close());

  it('is ready while the database answers, in either mess', async () => {
    for (const at of [ctx, ctx.as(ctx.messes.b)]) {
      const overall = await at.get(HealthService).overall();
      expect(overall).toMatchObject({ status: 'ok', overall: 'healthy', database: { status: 'up' } });
      expect(overall.dbState).toBeGreaterThan(0);
      expect(await at.get(HealthService).databaseProbe()).toMatchObject({
        status: 'ok',
        info: { database: { status: 'up' } },
      });
    }
    expect(ctx.get(HealthService).live()).toMatchObject({ status: 'alive' });
  });

  it('sums the service up as healthy, with its queue and limiter figures', async () => {
    const summary = await ctx.get(HealthService).summary();
    expect(summary).toMatchObject({ success: true, status: 'healthy' });
    expect(summary.jobQueue).toEqual({
      pending: expect.any(Number),
      failed: expect.any(Number),
      processed: expect.any(Number),
    });
  });

  it('gives the Prometheus text only for its token (401 otherwise)', async () => {
    const health = ctx.get(HealthService);
    expect((await ctx.refusal(health.prometheus(undefined))).status).toBe(401);
    expect((await ctx.refusal(health.prometheus('Bearer not-the-token'))).status).toBe(401);
    const exposition = await health.prometheus('Bearer metrics-token-of-the-spec');
    expect(exposition.contentType).toContain('text/plain');
    expect(exposition.text).toMatch(/^# (HELP|TYPE) /m);
  });

  it('answers 503 with the database down, saying so', async () => {
    await ctx.module.get(Database).close();
    let answer: HttpException | undefined;
    try {
      await ctx.get(HealthService).overall();
    } catch (error) {
      answer = error as HttpException;
    }
    expect(answer).toBeInstanceOf(HttpException);
    expect(answer!.getStatus()).toBe(503);
    expect(answer!.getResponse()).toMatchObject({
      status: 'error',
      overall: 'unhealthy',
      dbState: 0,
      database: { status: 'down' },
    });
  });
});
