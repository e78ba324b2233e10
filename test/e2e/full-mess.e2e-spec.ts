import { messSetup, type Response, TestApp } from '../support/app';

/** The name cache's lifetime (MessDirectory): past it, the next refusal used to read the name outside its transaction. */
const NAME_CACHE_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The answer within `ms`, or a rejection naming the request that did not answer (a hung engine). */
async function within<T>(ms: number, what: string, request: Promise<Response<T>>): Promise<Response<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([request, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Issue 44: approving or moving a member into a full mess, once the mess's name is no longer cached. On the embedded
 * engine the refusal's text was read outside the transaction that held the engine's one connection, and the whole
 * service hung. Here each refusal answers 409 within a second and the service answers afterwards. A statement sent
 * outside its own open transaction fails every test anyway (test/support/e2e-timeouts.ts).
 */
describe('A full mess', () => {
  let t: TestApp;
  let admin: string;
  let full: string;

  const register = async (n: number) =>
    (
      await t.post('/auth/register', {
        email: `waiting${n}@college.edu`,
        password: 'a-good-password-1',
        fullName: `Waiting ${n}`,
        collegeId: `CS${n}`,
        room: `F-${n}`,
        phone: `98765000${String(n).padStart(2, '0')}`,
        mess: 'full',
      })
    ).body.userId as string;

  /** The service still answers: the messes' list (which reads the names again) and readiness. */
  const stillServing = async () => {
    expect((await within(1_000, 'GET /messes', t.get('/messes', { token: admin }))).status).toBe(200);
    expect((await within(1_000, 'GET /ready', t.get('/ready'))).status).toBe(200);
  };

  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    expect(
      (await t.post('/auth/admin/setup', messSetup({ messName: 'Central' }), { token: admin })).status,
    ).toBe(200);
    const created = await t.post(
      '/messes',
      messSetup({ messName: 'Full House', slug: 'full', capacity: 1 }),
      {
        token: admin,
      },
    );
    full = created.body.mess._id;
    await t.member('student', { messId: full });
  }, 90_000);
  afterAll(() => t?.close());

  it('refuses an approval with 409 within a second once the name cache has expired', async () => {
    const waiting = await register(1);
    await sleep(NAME_CACHE_MS + 100);
    const approve = await within(
      1_000,
      'PUT /users/:id/approve',
      t.put(`/users/${waiting}/approve`, undefined, { token: admin }),
    );
    expect(approve).toMatchObject({ status: 409, body: { error: 'Mess Full House is full' } });
    await stillServing();
  });

  it('refuses a bulk approval with 409 within a second once the names were dropped', async () => {
    const ids = [await register(2), await register(3)];
    // A change of any mess's configuration drops the names on every replica, as the cache's expiry does.
    expect(
      (await t.patch('/auth/admin/config?mess=full', { messName: 'Full Hall' }, { token: admin })).status,
    ).toBe(200);
    const bulk = await within(
      1_000,
      'POST /users/approve',
      t.post('/users/approve', { userIds: ids }, { token: admin }),
    );
    expect(bulk).toMatchObject({ status: 409, body: { error: 'Mess Full Hall is full' } });
    await stillServing();
  });

  it('refuses moves into it, one and a batch, with 409 within a second once the names were dropped', async () => {
    const a = await t.member('student');
    const b = await t.member('student');
    expect(
      (await t.patch('/auth/admin/config?mess=full', { messName: 'Full Court' }, { token: admin })).status,
    ).toBe(200);
    const one = await within(
      1_000,
      'PUT /users/:id/mess',
      t.put(`/users/${a.id}/mess`, { mess: 'full' }, { token: admin }),
    );
    expect(one).toMatchObject({ status: 409, body: { error: 'Mess Full Court is full' } });
    await sleep(NAME_CACHE_MS + 100);
    const batch = await within(
      1_000,
      'POST /messes/full/members',
      t.post('/messes/full/members', { userIds: [a.id, b.id] }, { token: admin }),
    );
    expect(batch).toMatchObject({ status: 409, body: { error: 'Mess Full Court is full' } });
    await stillServing();
    expect((await t.get(`/users/${a.id}`, { token: admin })).body.user.mess.slug).toBe('main');
  });
});
