import { createHmac, randomUUID } from 'node:crypto';
import type { FuzzRequest, FuzzResponse, Role, Transport } from './fuzzer';

export interface Credentials {
  email: string;
  password: string;
}

type Call = (method: string, url: string, body?: unknown, token?: string) => Promise<FuzzResponse>;

export function caller(transport: Transport): Call {
  return (method, url, body, token) =>
    transport({
      index: -1,
      operation: 'setup',
      role: 'admin',
      method,
      url,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body !== undefined ? Buffer.from(JSON.stringify(body)) : undefined,
      mutations: [],
      invalid: false,
    } satisfies FuzzRequest);
}

const json = (res: FuzzResponse) => {
  try {
    return JSON.parse(res.body) as Record<string, any>;
  } catch {
    return {};
  }
};

/** The configuration of a fuzzed mess: the document's example categories, meals and extra item are all valid in it. */
export const fuzzMessSetup = (messName: string) => ({
  messName,
  email: 'mess@college.edu',
  phone: '+91-8012345678',
  expenseCategories: ['Groceries', 'Vegetables', 'Gas'],
  mealTimes: [
    { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
    { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
    { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
  ],
  extraItems: [{ name: 'Egg', price: 12.5 }],
});

/** The second mess of a cross-mess run (extension 2.2), made by the admin with POST /messes. */
export const SECOND_MESS = { slug: 'fuzz-b', messName: 'Fuzz Mess B' };

/**
 * A token for every role: the admin logs in (and sets the mess up if nobody has), and one member per other role
 * registers, is approved and given the role. The fuzzer ends sessions on its own (logout, a rejected member, a
 * password change), so `refresh` logs a role in again, or makes a new member for it when its account is gone.
 *
 * With `mess` (a slug), the members are those of that mess: the admin makes it (POST /messes, unless it exists) and
 * they register into it (`mess` in the registration), so that every member role acts in a mess other than the
 * admin's own (the cross-mess identities, see cross-mess.ts).
 */
export class Sessions {
  readonly tokens: Partial<Record<Role, string>> = {};
  /** The `_id` of each role's current member (and of the admin). */
  readonly ids: Partial<Record<Role, string>> = {};
  /** The mess's `_id`, once prepared. */
  messId?: string;
  private readonly accounts: Partial<Record<Role, Credentials>> = {};
  private readonly pending = new Map<Role, Promise<string | undefined>>();
  private readonly call: Call;
  private made = 0;

  constructor(
    transport: Transport,
    private readonly admin: Credentials,
    private readonly mess?: { slug: string; messName: string },
  ) {
    this.call = caller(transport);
  }

  async prepare(): Promise<this> {
    this.accounts.admin = this.admin;
    this.tokens.admin = await this.login(this.admin);
    if (!this.tokens.admin) throw new Error(`fuzz setup: the admin ${this.admin.email} cannot log in`);
    const admin = await this.call('GET', '/api/auth/verify', undefined, this.tokens.admin);
    this.ids.admin = json(admin).user?._id as string | undefined;
    if (this.mess) {
      const made = await this.call(
        'POST',
        '/api/messes',
        { ...fuzzMessSetup(this.mess.messName), slug: this.mess.slug },
        this.tokens.admin,
      );
      if (made.status !== 201 && made.status !== 409)
        throw new Error(`fuzz setup: POST /api/messes answered ${made.status} ${made.body}`);
      const found = await this.call('GET', `/api/messes/${this.mess.slug}`);
      this.messId = json(found).mess?._id as string | undefined;
      if (!this.messId) throw new Error(`fuzz setup: no mess ${this.mess.slug}`);
    } else {
      await this.call('POST', '/api/auth/admin/setup', fuzzMessSetup('Fuzz Mess'), this.tokens.admin);
      this.messId = json(admin).user?.mess?._id as string | undefined;
    }
    for (const role of ['student', 'manager', 'treasurer'] as const) {
      this.tokens[role] = await this.provision(role);
      if (!this.tokens[role]) throw new Error(`fuzz setup: could not make a ${role}`);
    }
    return this;
  }

  /** A fresh token for the role, or undefined if none can be had. One refresh per role at a time. */
  refresh(role: Role): Promise<string | undefined> {
    if (role === 'none') return Promise.resolve(undefined);
    const running = this.pending.get(role);
    if (running) return running;
    const next = (async () => {
      const account = this.accounts[role];
      let token = account ? await this.login(account) : undefined;
      if (!token && role === 'admin') return undefined;
      if (!token) {
        if (!(await this.refresh('admin').then((t) => t ?? this.tokens.admin))) return undefined;
        token = await this.provision(role as Exclude<Role, 'none' | 'admin'>);
      }
      if (token) this.tokens[role] = token;
      return token;
    })().finally(() => this.pending.delete(role));
    this.pending.set(role, next);
    return next;
  }

  private async login(account: Credentials): Promise<string | undefined> {
    const res = await this.call('POST', '/api/auth/login', account);
    return res.status === 200 ? (json(res).token as string) : undefined;
  }

  private async provision(role: Exclude<Role, 'none' | 'admin'>): Promise<string | undefined> {
    this.made += 1;
    const tag = `${randomUUID().slice(0, 8)}${this.made}`;
    const account = { email: `fuzz-${role}-${tag}@test.local`, password: `fuzz-password-${tag}` };
    const reg = await this.call('POST', '/api/auth/register', {
      ...account,
      fullName: `Fuzz ${role}`,
      collegeId: `FZ${tag}`,
      room: `F-${this.made}`,
      phone: `9${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`,
      ...(this.mess ? { mess: this.mess.slug } : {}),
    });
    if (reg.status !== 201) return undefined;
    const id = json(reg).userId as string;
    await this.call('PUT', `/api/users/${id}/approve`, undefined, this.tokens.admin);
    if (role !== 'student') await this.call('PUT', `/api/users/${id}/role`, { role }, this.tokens.admin);
    this.accounts[role] = account;
    this.ids[role] = id;
    return this.login(account);
  }
}

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const sign = (header: object, claims: object, secret: string) => {
  const head = `${b64(header)}.${b64(claims)}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
};

/**
 * Authorization headers an attacker would try: garbage, other schemes, alg "none", a wrong key, and (when the
 * secret is known, as in the test suite) well-signed tokens that are expired, for nobody, or for a stale version.
 */
export function hostileTokens(validToken?: string, jwtSecret?: string): string[] {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: randomUUID(), jti: randomUUID(), ver: 0, exp: now + 3600 };
  const out = [
    'Bearer',
    'Bearer ',
    'Bearer garbage',
    'Bearer a.b.c',
    'Basic YWRtaW46YWRtaW4=',
    // A valid token under another scheme (the scheme's case is free, RFC 7235: `bearer` is Bearer).
    'Token ' + (validToken ?? 'x'),
    'Bearer ' + 'A'.repeat(8000),
    `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, role: 'admin' })}.`,
    `Bearer ${sign({ alg: 'HS256', typ: 'JWT' }, claims, 'not-the-secret-not-the-secret-0123456789')}`,
    `Bearer ${sign({ alg: 'HS512', typ: 'JWT' }, claims, 'x')}`,
    `Bearer ${b64({ alg: 'RS256', kid: '../../etc/passwd' })}.${b64(claims)}.c2ln`,
    `Bearer ${b64('{"alg":')}.${b64('not json')}.x`,
    "Bearer ' OR 1=1--",
  ];
  if (validToken) {
    const [h, p] = validToken.split('.');
    out.push(
      `Bearer ${h}.${p}.`,
      `Bearer ${h}.${b64({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), role: 'admin' })}.x`,
    );
  }
  if (jwtSecret) {
    out.push(
      `Bearer ${sign({ alg: 'HS256', typ: 'JWT' }, { ...claims, exp: now - 60 }, jwtSecret)}`,
      `Bearer ${sign({ alg: 'HS256', typ: 'JWT' }, claims, jwtSecret)}`,
      `Bearer ${sign({ alg: 'HS256', typ: 'JWT' }, { ...claims, sub: "' OR 1=1--" }, jwtSecret)}`,
      `Bearer ${sign({ alg: 'HS256', typ: 'JWT' }, { ...claims, sub: 12345, ver: 'x' }, jwtSecret)}`,
      `Bearer ${sign({ alg: 'HS256', typ: 'JWT' }, { sub: claims.sub }, jwtSecret)}`,
      `Bearer ${sign({ alg: 'HS256', typ: 'JWT' }, { ...claims, exp: 1e20 }, jwtSecret)}`,
    );
  }
  return out;
}
