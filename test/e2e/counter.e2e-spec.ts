import { Resvg } from '@resvg/resvg-js';
import jsQR from 'jsqr';
import { messSetup, TEST_JWT_SECRET, TestApp } from '../support/app';
import { fixClock } from '../support/notifications';
import { hs256 } from '../support/tokens';

type Member = Awaited<ReturnType<TestApp['member']>>;

/** An instant of the mess's clock (Asia/Kolkata, +05:30). */
const ist = (date: string, time: string) => new Date(`${date}T${time}:00+05:30`);

/** Rasterises the SVG and reads it back with a QR decoder, as a phone camera at the counter would. */
function decodeQr(svg: string): string | undefined {
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: 400 }, background: 'white' }).render();
  return jsQR(new Uint8ClampedArray(image.pixels), image.width, image.height)?.data;
}

describe('The counter: meal passes and scans (extension 2.1)', () => {
  let t: TestApp;
  let admin: string;
  let manager: Member;
  let asha: Member;
  let ravi: Member;
  let clock: ReturnType<typeof fixClock>;

  const passFor = (member: Member, mealType: string, date?: string) =>
    t.get(`/attendance/pass?mealType=${mealType}${date ? `&date=${date}` : ''}`, { token: member.token });
  const scan = (pass: unknown, token = manager.token) => t.post('/attendance/scan', { pass }, { token });

  beforeAll(async () => {
    // 50 scans at once wait for the pool's connections; on a loaded test machine the 1.5 s default can lapse.
    t = await TestApp.start({ DB_CONNECTION_TIMEOUT_MS: '20000' });
    admin = await t.adminToken();
    clock = fixClock(t, ist('2030-03-10', '12:10'));
    expect((await t.post('/auth/admin/setup', messSetup(), { token: admin })).status).toBe(200);
    manager = await t.member('manager');
    asha = await t.member('student', { fullName: 'Asha Verma' });
    ravi = await t.member('student', { fullName: 'Ravi Kumar' });
  }, 90_000);
  afterAll(() => t.close());

  it("issues a signed pass for today's meal whose QR code decodes back to the pass", async () => {
    const res = await passFor(asha, 'Lunch');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      validFrom: ist('2030-03-10', '12:00').toISOString(),
      expiresAt: ist('2030-03-10', '14:30').toISOString(),
    });
    expect(res.body.qrSvg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(decodeQr(res.body.qrSvg)).toBe(res.body.pass);
  });

  it('marks the member present once (201), and reports a second plate as a repeat (200)', async () => {
    const { pass } = (await passFor(asha, 'Lunch')).body;
    const first = await scan(pass);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      success: true,
      repeat: false,
      attendance: {
        userId: asha.id,
        date: '2030-03-10',
        mealType: 'Lunch',
        status: 'present',
        source: 'counter',
      },
    });
    const second = await scan(pass);
    expect(second.status).toBe(200);
    expect(second.body.repeat).toBe(true);
    expect(second.body.attendance._id).toBe(first.body.attendance._id);
    // The counter's mark is the kitchen's record: the member cannot undo it.
    const undo = await t.post(
      '/attendance',
      { date: '2030-03-10', mealType: 'Lunch', status: 'absent' },
      { token: asha.token },
    );
    expect(undo.status).toBe(409);
    expect(undo.body.error).toBe('This mark was made by the mess; ask a manager to change it');
  });

  it("takes over a member's own present mark as the kitchen's record on the first scan", async () => {
    const own = await t.post(
      '/attendance',
      { date: '2030-03-10', mealType: 'Lunch', status: 'present' },
      { token: ravi.token },
    );
    expect(own.status).toBe(201);
    const scanned = await scan((await passFor(ravi, 'Lunch')).body.pass);
    expect(scanned.status).toBe(201);
    expect(scanned.body).toMatchObject({
      repeat: false,
      attendance: { status: 'present', source: 'counter' },
    });
  });

  it('refuses a forged, tampered or foreign pass (400 Invalid pass), and lets only managers and admins scan', async () => {
    const { pass } = (await passFor(asha, 'Dinner')).body as { pass: string };
    const [version, payload, signature] = pass.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    // Another member, same signature.
    const swapped = Buffer.from(JSON.stringify([ravi.id, ...claims.slice(1)])).toString('base64url');
    // Another meal or date, same signature.
    const otherMeal = Buffer.from(
      JSON.stringify([claims[0], claims[1], 'Lunch', ...claims.slice(3)]),
    ).toString('base64url');
    for (const forged of [
      `${version}.${swapped}.${signature}`,
      `${version}.${otherMeal}.${signature}`,
      `${version}.${payload}.${signature.slice(0, -2)}AA`,
      // Signed with the login token's key: a pass key is not the JWT key.
      hs256({ sub: asha.id }, TEST_JWT_SECRET),
      'not a pass',
    ]) {
      const res = await scan(forged);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: 'Invalid pass' });
    }
    expect((await scan(pass, asha.token)).status).toBe(403);
    expect((await scan(42)).status).toBe(400);
  });

  it('refuses a pass before its window opens and after its meal ends', async () => {
    const dinner = (await passFor(asha, 'Dinner')).body.pass;
    const early = await scan(dinner); // 12:10; Dinner passes are valid from 19:00
    expect(early.status).toBe(400);
    // A genuine pass shown too early says from when it is valid (a counter operator must not read it as a forgery).
    expect(early.body.error).toBe('This pass is valid from 19:00 on 2030-03-10');
    const lunch = (await passFor(ravi, 'Lunch')).body.pass;
    clock.set(ist('2030-03-10', '14:31'));
    const expired = await scan(lunch);
    expect(expired.status).toBe(400);
    expect(expired.body.error).toBe('This pass has expired: its meal is over');
    // A tampered one says nothing else: still Invalid pass, at any time.
    const [version, payload, signature] = (lunch as string).split('.');
    const tampered = `${version}.${payload}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect((await scan(tampered)).body.error).toBe('Invalid pass');
    // No pass for a meal that has ended.
    const over = await passFor(asha, 'Lunch');
    expect(over.status).toBe(400);
    expect(over.body.details).toEqual([
      { field: 'date', message: 'This meal is over; no pass can be issued for it' },
    ]);
    expect((await passFor(asha, 'Brunch')).status).toBe(400);
    clock.set(ist('2030-03-10', '19:05'));
    expect((await scan(dinner)).status).toBe(201);
    clock.set(ist('2030-03-10', '12:10'));
  });

  it('refuses the scan of a member on approved leave for the meal (409)', async () => {
    const onLeave = await t.post(
      '/leaves',
      { startDate: '2030-03-11', endDate: '2030-03-12', userId: ravi.id },
      { token: manager.token },
    );
    expect(onLeave.body.leave.status).toBe('approved');
    const pass = (await passFor(ravi, 'Breakfast', '2030-03-11')).body.pass;
    clock.set(ist('2030-03-11', '07:45'));
    const res = await scan(pass);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('On leave');
    clock.set(ist('2030-03-10', '12:10'));
  });

  it('refuses the scan of a member who does not dine (409), and marks nothing', async () => {
    const member = await t.member('student');
    const { pass } = (await passFor(member, 'Lunch')).body;
    expect((await t.put(`/users/${member.id}/dines`, { dines: false }, { token: admin })).status).toBe(200);
    const res = await scan(pass);
    expect([res.status, res.body.error]).toEqual([409, 'The member does not dine at the mess']);
    expect((await t.get(`/attendance?userId=${member.id}`, { token: admin })).body.attendance).toEqual([]);
  });

  it('marks once under 50 concurrent scans of one pass: one 201, the rest repeats', async () => {
    const member = await t.member('student');
    const { pass } = (await passFor(member, 'Lunch')).body;
    const answers = await Promise.all(Array.from({ length: 50 }, () => scan(pass)));
    const odd = answers.filter((a) => a.status !== 200 && a.status !== 201);
    expect(odd.map((a) => `${a.status} ${JSON.stringify(a.body)}`)).toEqual([]);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200 && a.body.repeat === true)).toHaveLength(49);
    const stored = await t.get(`/attendance?userId=${member.id}`, { token: admin });
    expect(stored.body.attendance).toHaveLength(1);
  });
});
