import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AddressInfo } from 'node:net';
import { request } from 'node:http';
import { ADMIN, TestApp } from '../support/app';
import { usingServer } from '../support/database';

describe('Embedded database on disk', () => {
  const run = usingServer() ? it.skip : it;
  const dataDir = mkdtempSync(join(tmpdir(), 'mess-data-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  run('keeps members, configuration and tokens across a restart', async () => {
    // no JWT_SECRET: the secret generated under DATA_DIR must survive too
    const env = { DATA_DIR: dataDir, JWT_SECRET: '' };
    const first = await TestApp.start(env);
    const member = await first.member('manager');
    const admin = await first.adminToken();
    await first.post(
      '/auth/admin/setup',
      {
        messName: 'Persistent Mess',
        email: 'mess@college.edu',
        phone: '+91-8012345678',
        expenseCategories: ['Gas'],
        mealTimes: [{ name: 'Lunch', startTime: '12:00', endTime: '14:00' }],
      },
      { token: admin },
    );
    await first.close();

    const second = await TestApp.start(env);
    try {
      expect((await second.get('/auth/verify', { token: member.token })).body.user).toMatchObject({
        _id: member.id,
        role: 'manager',
      });
      expect(await second.login(member.email, member.password)).toEqual(expect.any(String));
      expect(await second.login(ADMIN.email, ADMIN.password)).toEqual(expect.any(String));
      expect((await second.get('/auth/admin/config')).body.config.messName).toBe('Persistent Mess');
    } finally {
      await second.close();
    }
  });
});

describe('Graceful shutdown', () => {
  it('finishes a request in flight, then stops accepting and closes the database', async () => {
    const t = await TestApp.start();
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const base = `http://127.0.0.1:${port}/api`;
    expect((await fetch(`${base}/live`)).status).toBe(200);

    // a login spends real time in bcrypt: close as soon as the server has the request (a fixed 30 ms wait was too
    // short on a busy machine: the close came first and the login was rightly answered 503)
    const arrived = new Promise<void>((resolve) => t.app.getHttpServer().once('request', () => resolve()));
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${base}/auth/login`,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(ADMIN));
    });
    await arrived;
    await t.close();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).token).toEqual(expect.any(String));
    await expect(fetch(`${base}/live`)).rejects.toThrow();
  });
});
