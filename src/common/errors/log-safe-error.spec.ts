import { DrizzleQueryError } from 'drizzle-orm/errors';
import { logSafeError } from './log-safe-error';

describe('logSafeError (the pino err serializer)', () => {
  const driverError = () =>
    Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: '22021',
      detail: 'Key (phone)=(+919876543210) is quoted here',
      table: 'users',
    });

  it("keeps the SQLSTATE and the server's short message, drops the query, its params and the detail", () => {
    const wrapped = new DrizzleQueryError(
      'insert into "users" ("email", "password_hash", "phone") values ($1, $2, $3)',
      ['a@b.c', '$2b$10$abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP', '+919876543210'],
      driverError(),
    );
    const logged = logSafeError(wrapped);
    expect(logged).toMatchObject({
      code: '22021',
      message: 'invalid byte sequence for encoding "UTF8": 0x00',
      table: 'users',
    });
    const text = JSON.stringify(logged);
    for (const secret of ['Failed query', 'params', 'insert into', '$2b$10$', '+919876543210', 'a@b.c']) {
      expect(text).not.toContain(secret);
    }
    expect((logged as { stack?: string }).stack).toMatch(/^\s+at /);
  });

  it('serializes a bare driver error the same way, and other errors as pino does', () => {
    expect(logSafeError(driverError())).toMatchObject({ code: '22021', table: 'users' });
    expect(JSON.stringify(logSafeError(driverError()))).not.toContain('+919876543210');
    expect(logSafeError(new TypeError('boom'))).toMatchObject({ type: 'TypeError', message: 'boom' });
  });
});
