import { randomUUID } from 'node:crypto';
import { MONTH_CLOSED } from '../../src/common/http/api-docs';
import { Response, TestApp } from '../support/app';
import { LocalIdentityProvider } from '../support/idp';
import {
  CallOptions,
  callDocumented,
  closeDocumentedApp,
  documentedMess,
  DocumentValidator,
  expectError,
  type Member,
  startDocumentedApp,
} from '../support/openapi-document';

/** Every class of error answer, driven for real and checked against the document: 400, 401, 403, 404, 409, 413, 429. */
describe('API documentation: error answers as documented', () => {
  let t: TestApp;
  let doc: any;
  let validator: DocumentValidator;
  let idp: LocalIdentityProvider;
  beforeAll(async () => {
    ({ t, doc, validator, idp } = await startDocumentedApp());
  }, 120_000); // a cold start (migrations on the embedded engine) outlasts the default 30 s on a busy machine
  afterAll(() => closeDocumentedApp({ t, idp }));

  describe('answers as documented', () => {
    /** Every (status, body shape) this suite saw, to prove each class of error was really driven. */
    const seen = new Set<string>();
    let admin: string;
    let student: Member;
    let other: Member;
    let manager: Member;
    let treasurer: Member;

    const call = (method: string, template: string, options?: CallOptions) =>
      callDocumented({ t, validator }, seen, method, template, options);

    beforeAll(async () => {
      ({ admin, student, other, manager, treasurer } = await documentedMess(t, call));
    });

    it('401: the guard answers {"error"} when the token is missing or invalid', async () => {
      expectError(await call('GET', '/api/expenses'), 401, { error: 'No token' });
      expectError(
        await call('GET', '/api/users/{id}', { params: { id: student.id }, token: 'not.a.jwt' }),
        401,
        {
          error: 'Invalid token',
        },
      );
      expectError(await call('POST', '/api/auth/admin/setup', { body: {} }), 401, { error: 'No token' });
      expectError(await call('GET', '/api/admin/health-summary'), 401, { error: 'No token' });
    });

    it('401: refused credentials answer {success:false,error}', async () => {
      const email = `wrong-password-${randomUUID()}@test.local`;
      const member = await t.member('student', { email });
      expectError(
        await call('POST', '/api/auth/login', { body: { email, password: 'not-the-password' } }),
        401,
        {
          success: false,
          error: 'Invalid email or password',
        },
      );
      expectError(
        await call('POST', '/api/auth/password', {
          token: member.token,
          body: { currentPassword: 'not-the-password', newPassword: 'a-new-password-1' },
        }),
        401,
        { success: false, error: 'Current password is incorrect' },
      );
      const forged = await call('POST', '/api/auth/idp', {
        body: { token: idp.idToken({}, { kid: 'unknown-key' }) },
      });
      expect([forged.status, forged.body.success]).toEqual([401, false]);
    });

    it('403: the role guard answers {"error":"Forbidden"}', async () => {
      const forbidden = { error: 'Forbidden' };
      const expense = { category: 'Gas', amount: 10, description: 'x', date: '2024-10-02' };
      expectError(
        await call('POST', '/api/expenses', { token: student.token, body: expense }),
        403,
        forbidden,
      );
      expectError(
        await call('POST', '/api/meals', {
          token: student.token,
          body: { date: '2024-10-02', mealType: 'Lunch', dishes: ['Rice'] },
        }),
        403,
        forbidden,
      );
      expectError(
        await call('POST', '/api/attendance/bulk', {
          token: student.token,
          body: { date: '2024-10-02', mealType: 'Lunch', marks: [{ userId: student.id, status: 'present' }] },
        }),
        403,
        forbidden,
      );
      expectError(await call('GET', '/api/users', { token: manager.token }), 403, forbidden);
      expectError(await call('GET', '/api/analytics/expenses', { token: student.token }), 403, forbidden);
      expectError(await call('GET', '/api/admin/health-summary', { token: treasurer.token }), 403, forbidden);
    });

    it('403: ownership rules and pending accounts answer {success:false,error}', async () => {
      const created = await call('POST', '/api/expenses', {
        token: manager.token,
        body: { category: 'Gas', amount: 125.5, description: 'Cylinder', date: '2024-10-03' },
      });
      expect(created.status).toBe(201);
      const id = created.body.expense._id as string;
      const body = { category: 'Gas', amount: 99, description: 'Cylinder', date: '2024-10-03' };
      expectError(
        await call('PUT', '/api/expenses/{id}', { token: treasurer.token, params: { id }, body }),
        403,
        {
          success: false,
          error: 'You can only change your own expenses',
        },
      );
      expectError(
        await call('DELETE', '/api/expenses/{id}', { token: treasurer.token, params: { id } }),
        403,
        {
          success: false,
          error: 'You can only change your own expenses',
        },
      );
      expectError(
        await call('PUT', '/api/users/{id}', {
          token: student.token,
          params: { id: other.id },
          body: { fullName: 'Someone else' },
        }),
        403,
        { success: false, error: 'You can only edit your own profile' },
      );
      expectError(
        await call('GET', '/api/users/{id}', { token: student.token, params: { id: other.id } }),
        403,
        {
          success: false,
          error: 'You can only view your own profile',
        },
      );
      expectError(
        await call('POST', '/api/attendance', {
          token: student.token,
          body: { date: '2024-10-03', mealType: 'Lunch', status: 'present', userId: other.id },
        }),
        403,
        { success: false, error: 'You can only mark your own attendance' },
      );
      const email = `pending-${randomUUID()}@test.local`;
      const registered = await call('POST', '/api/auth/register', {
        body: {
          email,
          password: 'pending-pass-1',
          fullName: 'Pending',
          collegeId: 'P1',
          room: 'R',
          phone: '9000000001',
        },
      });
      expect(registered.status).toBe(201);
      expectError(
        await call('POST', '/api/auth/login', { body: { email, password: 'pending-pass-1' } }),
        403,
        {
          success: false,
          error: 'Account pending approval',
        },
      );
    });

    it('400: bad bodies, queries and ids answer {success:false,error,details}', async () => {
      const bad = await call('POST', '/api/expenses', {
        token: manager.token,
        body: { category: 'Gas', amount: -5, date: '2024-13-01', extra: 1 },
      });
      expect([bad.status, bad.body.error, bad.body.details.length > 1]).toEqual([
        400,
        'Validation failed',
        true,
      ]);
      expect((await call('POST', '/api/auth/register', { body: {} })).status).toBe(400);
      expect(
        (await call('GET', '/api/expenses', { token: student.token, query: { limit: '1000' } })).status,
      ).toBe(400);
      expectError(
        await call('GET', '/api/expenses/{id}', { token: student.token, params: { id: 'nope' } }),
        400,
        {
          success: false,
          error: 'Invalid id: expected a UUID',
        },
      );
      const malformed = await call('POST', '/api/meals', {
        token: manager.token,
        body: '{"date": ',
        headers: { 'content-type': 'application/json' },
      });
      expect([malformed.status, malformed.body.success]).toEqual([400, false]);
    });

    it('404: unknown ids answer {success:false,error}', async () => {
      const id = randomUUID();
      expectError(await call('GET', '/api/expenses/{id}', { token: student.token, params: { id } }), 404, {
        success: false,
        error: 'Expense not found',
      });
      expectError(await call('DELETE', '/api/meals/{id}', { token: manager.token, params: { id } }), 404, {
        success: false,
        error: 'Meal not found',
      });
      expectError(
        await call('PUT', '/api/attendance/{id}', {
          token: student.token,
          params: { id },
          body: { status: 'absent' },
        }),
        404,
        { success: false, error: 'Attendance record not found' },
      );
      expectError(
        await call('PUT', '/api/feedback/{id}', {
          token: student.token,
          params: { id },
          body: { rating: 3 },
        }),
        404,
        { success: false, error: 'Feedback not found' },
      );
      expectError(await call('PUT', '/api/users/{id}/approve', { token: admin, params: { id } }), 404, {
        success: false,
        error: 'User not found',
      });
      expectError(
        await call('POST', '/api/auth/login', {
          body: { email: `nobody-${id}@test.local`, password: 'whatever-1' },
        }),
        404,
        { success: false, error: 'User not found' },
      );
    });

    it('409: unique conflicts answer {success:false,error}', async () => {
      const conflict = async (method: string, path: string, options: Parameters<typeof call>[2]) => {
        const res = await call(method, path, options);
        expect([method, path, res.status, res.body.success]).toEqual([method, path, 409, false]);
        return res.body.error as string;
      };
      const register = {
        email: student.email,
        password: 'another-pass-1',
        fullName: 'Again',
        collegeId: 'C',
        room: 'R',
        phone: '9000000002',
      };
      expect(await conflict('POST', '/api/auth/register', { body: register })).toBe(
        'Email already registered',
      );
      expect(
        await conflict('POST', '/api/auth/admin/setup', {
          token: admin,
          body: {
            messName: 'Again',
            email: 'mess@college.edu',
            phone: '+91-8012345678',
            expenseCategories: ['Gas'],
            mealTimes: [{ name: 'Lunch', startTime: '12:30', endTime: '14:30' }],
          },
        }),
      ).toBe('The mess is already set up');
      const menu = { date: '2024-10-04', mealType: 'Dinner', dishes: ['Dal', 'Rice'] };
      expect((await call('POST', '/api/meals', { token: manager.token, body: menu })).status).toBe(201);
      expect(await conflict('POST', '/api/meals', { token: manager.token, body: menu })).toBe(
        'A menu for this date and meal type already exists',
      );
      const feedback = { date: '2024-10-04', mealType: 'Dinner', rating: 4 };
      expect((await call('POST', '/api/feedback', { token: student.token, body: feedback })).status).toBe(
        201,
      );
      expect(await conflict('POST', '/api/feedback', { token: student.token, body: feedback })).toMatch(
        /already given feedback/,
      );
      const adminId = (await call('GET', '/api/auth/verify', { token: admin })).body.user._id as string;
      expect(await conflict('PUT', '/api/users/{id}/reject', { token: admin, params: { id: adminId } })).toBe(
        'You cannot reject your own account',
      );
    });

    it('409: writes to a closed month answer the closed-month text on every documented route', async () => {
      const month = '2024-11';
      const expense = await call('POST', '/api/expenses', {
        token: manager.token,
        body: { category: 'Groceries', amount: 500, description: 'Rice', date: `${month}-05` },
      });
      expect(expense.status).toBe(201);
      const mark = await call('POST', '/api/attendance', {
        token: student.token,
        body: { date: `${month}-05`, mealType: 'Lunch', status: 'present' },
      });
      expect(mark.status).toBe(201);
      const closed = await call('POST', '/api/analytics/months/{month}/close', {
        token: treasurer.token,
        params: { month },
      });
      expect(closed.status).toBe(200);
      const text = MONTH_CLOSED.replace('2025-03', month);
      const frozen = { success: false, error: text };
      const expenseId = { id: expense.body.expense._id as string };
      const expenseBody = { category: 'Groceries', amount: 600, description: 'Rice', date: `${month}-05` };
      expectError(
        await call('POST', '/api/expenses', { token: manager.token, body: expenseBody }),
        409,
        frozen,
      );
      expectError(
        await call('PUT', '/api/expenses/{id}', {
          token: manager.token,
          params: expenseId,
          body: expenseBody,
        }),
        409,
        frozen,
      );
      expectError(
        await call('DELETE', '/api/expenses/{id}', { token: manager.token, params: expenseId }),
        409,
        frozen,
      );
      expectError(
        await call('POST', '/api/attendance', {
          token: student.token,
          body: { date: `${month}-05`, mealType: 'Lunch', status: 'absent' },
        }),
        409,
        frozen,
      );
      expectError(
        await call('PUT', '/api/attendance/{id}', {
          token: student.token,
          params: { id: mark.body.attendance._id as string },
          body: { status: 'absent' },
        }),
        409,
        frozen,
      );
      expectError(
        await call('POST', '/api/attendance/bulk', {
          token: manager.token,
          body: { date: `${month}-06`, mealType: 'Dinner', marks: [{ userId: other.id, status: 'present' }] },
        }),
        409,
        frozen,
      );
      expectError(
        await call('POST', '/api/analytics/months/{month}/close', {
          token: treasurer.token,
          params: { month },
        }),
        409,
        { success: false, error: `Month ${month} is already closed` },
      );
    });

    it('413: an oversized body answers {success:false,error}, with or without a token', async () => {
      const huge = 'x'.repeat(200 * 1024);
      const tooLarge = { success: false, error: 'Request body is too large' };
      expectError(await call('POST', '/api/auth/register', { body: { fullName: huge } }), 413, tooLarge);
      expectError(
        await call('POST', '/api/expenses', { token: manager.token, body: { description: huge } }),
        413,
        tooLarge,
      );
      expectError(
        await call('PUT', '/api/users/{id}', {
          token: student.token,
          params: { id: student.id },
          body: { fullName: huge },
        }),
        413,
        tooLarge,
      );
    });

    it('429: the rate limiter answers {success:false,error} with Retry-After', async () => {
      const body = { email: `throttled-${randomUUID()}@test.local`, password: 'whatever-1' };
      let res: Response | undefined;
      for (let i = 0; i < 8 && res?.status !== 429; i += 1)
        res = await call('POST', '/api/auth/login', { body });
      expectError(res!, 429, { success: false, error: 'Too many requests; try again later' });
      expect(Number(res!.headers['retry-after'])).toBeGreaterThan(0);
      expect(doc.paths['/api/auth/login'].post.responses['429'].headers).toHaveProperty('Retry-After');
    });

    it('drove every class of error answer', () => {
      expect([...seen].sort()).toEqual(
        expect.arrayContaining([
          '400 envelope',
          '401 guard',
          '401 envelope',
          '403 guard',
          '403 envelope',
          '404 envelope',
          '409 envelope',
          '413 envelope',
          '429 envelope',
        ]),
      );
      expect([...seen].filter((s) => s.endsWith('guard')).sort()).toEqual(['401 guard', '403 guard']);
    });
  });
});
