/**
 * An OpenAPI-driven fuzzer: from `/api/docs.json` it builds a plausible request for every operation and then breaks
 * it in hostile ways (wrong types, deep nesting, repeated and array-syntax query parameters, odd and ill-formed
 * Unicode, injection strings, hostile tokens, huge numbers, malformed bodies), sent as every role. Every answer is
 * checked: never a 5xx, never a 2xx to a request that is invalid by the document, never a stack trace, SQL, a
 * password hash or a secret in the body. Deterministic for a seed: request `i` is drawn from `seed` and `i` alone.
 *
 * Used by `test/e2e/fuzz.e2e-spec.ts` (a fixed seed and a small budget, in `npm test`) and by `npm run fuzz`
 * (`test/fuzz/cli.ts`, long runs against a running or self-started service).
 */

export interface FuzzRequest {
  index: number;
  operation: string;
  role: Role | 'hostile';
  method: string;
  /** Path and query, already percent-encoded (what goes on the request line). */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What was broken, in words. */
  mutations: string[];
  /** True when at least one mutation makes the request invalid by the document: it must not answer 2xx. */
  invalid: boolean;
}

export interface FuzzResponse {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Sends one request: Fastify's inject in the test suite, real HTTP in `npm run fuzz`. */
export type Transport = (request: FuzzRequest) => Promise<FuzzResponse>;

export type Role = 'none' | 'student' | 'manager' | 'treasurer' | 'admin';
export const ROLES: readonly Role[] = ['none', 'student', 'manager', 'treasurer', 'admin'];

export interface Finding {
  kind: '5xx' | '2xx for invalid input' | 'leak' | 'no answer' | 'cross-mess';
  detail: string;
  request: FuzzRequest;
  status: number;
  body: string;
}

export interface FuzzReport {
  seed: number;
  sent: number;
  elapsedMs: number;
  /** `METHOD /path` → status → count. */
  byOperation: Map<string, Map<number, number>>;
  /** `METHOD /path` → roles it was sent as. */
  roles: Map<string, Set<string>>;
  findings: Finding[];
  invalidSent: number;
}

export interface FuzzOptions {
  seed: number;
  /** How many requests (in a cross-mess run: after the sweep, which is always sent whole). */
  requests: number;
  /** Stop early when this much time has passed (the suite's budget). */
  timeBudgetMs?: number;
  concurrency?: number;
  /** Texts that must never appear in a body (the JWT secret, the admin's password). */
  secrets?: string[];
  progress?: (sent: number, report: FuzzReport) => void;
  /** Called with each finding as it is made (long runs print them at once). */
  onFinding?: (finding: Finding) => void;
  /** Called when a role's token was refused (the fuzz logged it out, rejected it…): a fresh one, if any. */
  refreshToken?: (role: Role) => Promise<string | undefined>;
  /** The roles requests are sent as (default ROLES). */
  roles?: readonly Role[];
  /**
   * A cross-mess run (extension 2.2): the roles' tokens are members of one mess, and every id the requests carry is
   * a record or member of this other mess. See ForeignMess and `check`.
   */
  foreign?: ForeignMess;
}

/**
 * Another mess, as a cross-mess run sees it. Its records and members' ids fill every path, query and body id, so a
 * request acting in the probing mess names a record it must not reach. Isolation (extension 2.2, "a record of one
 * mess is invisible to every request acting in another") then reads, answer by answer:
 * - a request whose path names a foreign id (GET/PUT/DELETE /expenses/{id}, /accounts/{userId}, /users/{id}…) is
 *   refused: 403 or 404, or refused before anything is looked up (REFUSED_UNREAD: 400 for input the route refuses,
 *   401, 413–415, 429). A 2xx would show or change the record; a 409 or 422 would say that it exists (an approved
 *   leave's "already decided");
 * - a request naming the other mess with `mess` is 403 when the route needs a token: members act in their own mess
 *   only (or REFUSED_UNREAD, or 404 when `mess` is repeated, which names no mess). The routes of their own records
 *   (their account and statement, marks, share, extras, leave) are no exception here: those open only a mess the
 *   member belonged to, and the probing members registered into their own mess and were never moved;
 * - any other request may succeed, acting in the caller's own mess (lists and figures of its own, a new record of
 *   its own, a filter naming a foreign member that then matches nothing), but no 2xx body may hold an id of the
 *   other mess (`forbidden`: its records, its members, its audit rows). Public routes (registration, health,
 *   GET /messes, GET /auth/admin/config) are the exception: what they answer anyone may read without a token, for
 *   any mess (`mess=`), so a member reading it there learns nothing a stranger could not;
 * and, checked by the caller around the run (cross-mess.ts), nothing of the other mess has changed.
 */
export interface ForeignMess {
  /** Its `_id` and slug (a request names it with `mess=` one or the other). */
  messId: string;
  slug: string;
  /** Ids of its records and members by what they are (expense, menu, mark… member): the sweep sends each. */
  records: Record<string, string[]>;
  /** Every id of the other mess no answer may hold: its records, members and audit rows. */
  forbidden: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// Randomness

class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }
  /** mulberry32 */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(max: number): number {
    return Math.floor(this.next() * max);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const mix = (seed: number, index: number) =>
  (Math.imul(seed ^ 0x85ebca6b, 0xc2b2ae35) + Math.imul(index, 0x27d4eb2f)) >>> 0;

// ---------------------------------------------------------------------------------------------------------------
// The document

interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  example?: unknown;
  default?: unknown;
  allOf?: Schema[];
  oneOf?: Schema[];
  nullable?: boolean;
  readOnly?: boolean;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

export interface Operation {
  key: string;
  /**
   * The `error` texts of the operation's own documented 503 answers other than `Database unavailable` (a feature
   * this deployment has switched off, such as identity-provider login without IDP_CLIENT_ID): answers by design.
   */
  documented503: string[];
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  secured: boolean;
}

type Doc = {
  paths: Record<
    string,
    Record<string, { parameters?: Parameter[]; requestBody?: any; security?: unknown[]; responses?: any }>
  >;
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, Parameter> };
};

export function operationsOf(doc: Doc): Operation[] {
  const resolve = (schema: Schema | undefined, seen = 0): Schema | undefined => {
    if (!schema || seen > 10) return schema;
    if (schema.$ref) {
      const name = schema.$ref.split('/').pop()!;
      return resolve(doc.components?.schemas?.[name], seen + 1);
    }
    if (schema.allOf) {
      const merged: Schema = { type: 'object', properties: {}, required: [] };
      for (const part of schema.allOf.map((s) => resolve(s, seen + 1))) {
        Object.assign(merged.properties!, part?.properties ?? {});
        merged.required!.push(...(part?.required ?? []));
      }
      return merged;
    }
    const out: Schema = { ...schema };
    if (out.items) out.items = resolve(out.items, seen + 1);
    if (out.properties)
      out.properties = Object.fromEntries(
        Object.entries(out.properties).map(([k, v]) => [k, resolve(v, seen + 1)!]),
      );
    return out;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      const json = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      const examples = op.responses?.['503']?.content?.['application/json']?.examples ?? {};
      const documented503 = Object.values(examples as Record<string, { value?: { error?: unknown } }>)
        .map((e) => e.value?.error)
        .filter((e): e is string => typeof e === 'string' && e !== 'Database unavailable');
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        documented503,
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? [])
          // A parameter declared once for many operations (`mess`) is a reference.
          .map((p) => (p as { $ref?: string }).$ref?.split('/').pop())
          .map((name, n) => (name ? doc.components?.parameters?.[name] : op.parameters![n]))
          .filter((p): p is Parameter => Boolean(p?.name && p.in))
          .map((p) => ({ ...p, schema: resolve(p.schema) ?? {} })),
        body: json ? resolve(json) : undefined,
        secured: Boolean(op.security?.length),
      });
    }
  }
  return ops;
}

// ---------------------------------------------------------------------------------------------------------------
// Hostile material

/** Injection strings: SQL, NoSQL, template, path, header, script. None contains a marker the leak check looks for. */
const INJECTIONS = [
  "' OR 1=1--",
  "'; DROP TABLE users; --",
  '" OR ""="',
  "1' UNION SELECT null,null--",
  "admin'--",
  '$ne',
  '{"$gt":""}',
  '${7*7}',
  '{{7*7}}',
  '#{7*7}',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '../../../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '%00',
  'a\r\nX-Injected: 1',
  '\\',
  '`id`',
  '$(id)',
  "'||pg_sleep(5)||'",
  '1;SELECT 1',
];

/** Well-formed but odd Unicode: direction overrides, zero-width, combining marks, astral, noncharacters, BOM. */
const ODD_UNICODE = [
  '\u202Egnp.exe',
  'a\u200Bb\u200Cc\u200Dd',
  'e\u0301\u0301\u0301\u0301',
  '😀👨‍👩‍👧‍👦🏳️‍🌈',
  '\uFEFFbom',
  '\uFFFF\uFFFE',
  'Ω≈ç√∫˜µ≤≥÷',
  '𝕿𝖍𝖊 𝖖𝖚𝖎𝖈𝖐',
  'ﷺ',
  '\u00A0\u2028\u2029',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  'İıŉǰ',
];

const LONE_SURROGATES = ['\uD800', 'a\uDC00b', '\uDBFF', 'x\uD83D'];
const HUGE_NUMBERS = [1e308, -1e308, 2 ** 53 + 2, 2 ** 63, -(2 ** 63), 1e-320, 123456789012345680000];
const NON_DECIMAL = [
  '0x10',
  '1e1',
  ' 10',
  '10 ',
  '+5',
  'Infinity',
  '-Infinity',
  'NaN',
  '1_000',
  '0b11',
  '0o7',
  '١٢',
];
const MALFORMED_PERCENT = ['%', '%E0%A4%A', '%ED%A0%80', '%FF', '%C0%AF', '%uD800', '%%41'];

// ---------------------------------------------------------------------------------------------------------------
// Generating

interface Context {
  ids: string[];
  /** `mess=` values for the query (a cross-mess run names the other mess now and then). */
  messes: string[];
  tokens: Partial<Record<Role, string>>;
  hostileTokens: string[];
}

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

function randomUuid(r: Random): string {
  const hex = () => r.int(16).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join('');
  return `${part(8)}-${part(4)}-4${part(3)}-${r.pick(['8', '9', 'a', 'b'])}${part(3)}-${part(12)}`;
}

/** A value the document would accept (as far as it can say). */
function validValue(schema: Schema, r: Random, ctx: Context, name = ''): unknown {
  if (schema.enum?.length) return r.pick(schema.enum);
  if (schema.example !== undefined && r.chance(0.7)) return schema.example;
  switch (schema.type) {
    case 'integer': {
      const min = schema.minimum ?? 1;
      const max = Math.min(schema.maximum ?? min + 100, min + 1000);
      return min + r.int(max - min + 1);
    }
    case 'number': {
      const min = schema.minimum ?? 0;
      const max = Math.min(schema.maximum ?? min + 1000, min + 1000);
      return Math.round((min + r.next() * (max - min)) * 100) / 100 || min;
    }
    case 'boolean':
      return r.chance(0.5);
    case 'array': {
      const n = Math.max(schema.minItems ?? 0, 1);
      return Array.from({ length: n }, () => validValue(schema.items ?? { type: 'string' }, r, ctx));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(key) || r.chance(0.5)) out[key] = validValue(prop, r, ctx, key);
      }
      return out;
    }
    default:
      break;
  }
  if (schema.format === 'uuid' || /id$/i.test(name))
    return ctx.ids.length && r.chance(0.8) ? r.pick(ctx.ids) : randomUuid(r);
  if (schema.format === 'date') return `2025-0${1 + r.int(9)}-1${r.int(10)}`;
  if (schema.format === 'date-time') return new Date(Date.UTC(2025, r.int(12), 1 + r.int(28))).toISOString();
  if (schema.format === 'email') return `fuzz${r.int(1e6)}@test.local`;
  if (schema.pattern === '^\\d{4}-\\d{2}$') return `2025-0${1 + r.int(9)}`;
  const min = schema.minLength ?? 1;
  return 'Fuzz value'.padEnd(min, 'x').slice(0, Math.max(min, Math.min(schema.maxLength ?? 10, 10)));
}

/** A value the document refuses for this schema, or undefined when none is certain. */
function invalidValue(schema: Schema, r: Random, where: 'body' | 'query'): [unknown, string] | undefined {
  const options: [unknown, string][] = [];
  const type = schema.type;
  if (where === 'body') {
    if (type === 'string')
      options.push([r.pick([12345, true, { x: 1 }, [1, 2]]), 'wrong type (string expected)']);
    if (type === 'integer' || type === 'number')
      options.push([r.pick(['abc', { x: 1 }, 'twelve']), 'wrong type (number expected)']);
    if (type === 'boolean') options.push([r.pick(['yes', 2, { x: 1 }]), 'wrong type (boolean expected)']);
    if (type === 'array') options.push([r.pick(['text', 5, { x: 1 }]), 'wrong type (array expected)']);
    if (type === 'object') options.push([r.pick(['text', 5, true]), 'wrong type (object expected)']);
    options.push([null, 'null']);
    if (type === 'string') options.push([r.pick(LONE_SURROGATES), 'lone surrogate']);
  } else {
    if (type === 'integer' || type === 'number') {
      options.push([r.pick(NON_DECIMAL), 'non-decimal number']);
      options.push([r.pick(['abc', '', '1.2.3', '--1']), 'not a number']);
    }
  }
  if (type === 'integer') options.push([where === 'body' ? 2.5 : '2.5', 'fraction for an integer']);
  if ((type === 'integer' || type === 'number') && schema.maximum !== undefined)
    options.push([
      where === 'body' ? r.pick([schema.maximum * 10 + 1, 1e308]) : String(schema.maximum * 10 + 1),
      'above maximum',
    ]);
  if ((type === 'integer' || type === 'number') && schema.minimum !== undefined)
    options.push([where === 'body' ? schema.minimum - 1 : String(schema.minimum - 1), 'below minimum']);
  if (schema.enum?.length) options.push(['not-in-enum', 'outside the enum']);
  if (type === 'string' && schema.maxLength !== undefined)
    options.push(['x'.repeat(schema.maxLength + 1 + r.int(50)), 'longer than maxLength']);
  if (type === 'string' && (schema.minLength ?? 0) >= 2) options.push(['x', 'shorter than minLength']);
  if (type === 'string' && schema.format === 'date')
    options.push([
      r.pick(['2025-02-30', '2025-13-01', '14/03/2025', 'today', "2025-03-14' OR 1=1--"]),
      'not a date',
    ]);
  if (type === 'string' && schema.format === 'uuid')
    options.push([r.pick(['not-a-uuid', '1', "' OR 1=1--"]), 'not a uuid']);
  if (type === 'string' && schema.format === 'email')
    options.push([r.pick(['no-at-sign', 'a@', '@b.c']), 'not an email']);
  if (type === 'string' && schema.pattern === '^\\d{4}-\\d{2}$')
    options.push([r.pick(['2025-13', '0', '202501', "' OR 1=1--", '2025-1']), 'pattern mismatch']);
  if (!options.length) return undefined;
  return r.pick(options);
}

/** Something hostile but possibly acceptable (free text may hold injection strings and any well-formed Unicode). */
function hostileValue(schema: Schema, r: Random): [unknown, string] {
  const choice = r.int(4);
  if (choice === 0) return [r.pick(INJECTIONS), 'injection string'];
  if (choice === 1) return [r.pick(ODD_UNICODE), 'odd Unicode'];
  if (choice === 2 && (schema.type === 'number' || schema.type === 'integer'))
    return [r.pick(HUGE_NUMBERS), 'huge number'];
  return ['x'.repeat(r.pick([0, 1, 255, 5000])), 'long or empty text'];
}

function nested(depth: number, leaf: unknown, useArrays: boolean): string {
  const open = useArrays ? '[' : '{"a":';
  const close = useArrays ? ']' : '}';
  return open.repeat(depth) + JSON.stringify(leaf) + close.repeat(depth);
}

function encodeQueryValue(value: string): string {
  // encodeURIComponent refuses lone surrogates; those are exercised through raw malformed escapes instead.
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The cross-mess sweep

/** Answers that refuse a request before anything of a mess is read: they say nothing of the other mess. */
const REFUSED_UNREAD = [400, 401, 413, 414, 415, 429];

/** One request of the sweep: an operation, a role, the foreign id it carries, or the other mess it names. */
interface SweepItem {
  op: Operation;
  role: Role;
  id?: string;
  mess?: string;
}

/** A parameter or field that holds a record's or member's id (not `collegeId`, `Idempotency-Key`…). */
const isIdName = (name: string) => name === 'id' || /^(user|entity|actor)Ids?$/.test(name);
const holdsId = (schema: Schema | undefined, name = ''): boolean =>
  Boolean(
    schema &&
    (isIdName(name) ||
      (schema.type === 'string' && schema.format === 'uuid') ||
      holdsId(schema.items, name) ||
      Object.entries(schema.properties ?? {}).some(([key, prop]) => holdsId(prop, key))),
  );

/**
 * Every operation as every role, once with each id of the other mess where the operation takes an id (path, query or
 * body: every kind, so `/expenses/{id}` also gets a mark's id and `/accounts/{userId}` a manager's), and once naming
 * the other mess with `mess` (its slug or its `_id`, by turns). Requests are plain: the document's examples, nothing
 * broken, so they reach the service's own lookups instead of the validation's 400.
 */
function sweepOf(ops: Operation[], roles: readonly Role[], foreign: ForeignMess): SweepItem[] {
  const ids = [...new Set(Object.values(foreign.records).flat())];
  const items: SweepItem[] = [];
  for (const role of roles) {
    ops.forEach((op, n) => {
      const takesId =
        op.parameters.some((p) => p.in !== 'header' && holdsId(p.schema, p.name)) || holdsId(op.body);
      for (const id of takesId ? ids : [undefined]) items.push({ op, role, id });
      items.push({ op, role, mess: n % 2 ? foreign.messId : foreign.slug });
    });
  }
  return items;
}

/** The plainest value the document accepts: its example, the first of an enum, the least number; ids are `id`. */
function plainValue(schema: Schema, id: string | undefined, name = ''): unknown {
  if (id && (isIdName(name) || schema.format === 'uuid') && schema.type !== 'array') return id;
  if (schema.example !== undefined && !(schema.type === 'array' && holdsId(schema.items, name)))
    return schema.example;
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum !== undefined && schema.minimum > 0 ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.max(schema.minItems ?? 0, 1) }, () =>
        plainValue(schema.items ?? { type: 'string' }, id, name),
      );
    case 'object': {
      // The required fields and the ids; all of them when nothing is required (an update needs something to change).
      const entries = Object.entries(schema.properties ?? {});
      const chosen = schema.required?.length
        ? entries.filter(([key, prop]) => schema.required!.includes(key) || (id && holdsId(prop, key)))
        : entries;
      return Object.fromEntries(chosen.map(([key, prop]) => [key, plainValue(prop, id, key)]));
    }
    default:
      break;
  }
  if (schema.format === 'uuid' || isIdName(name)) return id ?? '00000000-0000-4000-8000-000000000000';
  if (schema.format === 'date') return '2025-03-14';
  if (schema.format === 'date-time') return '2025-03-14T12:00:00.000Z';
  if (schema.format === 'email') return 'fuzz-sweep@test.local';
  if (schema.pattern === '^\\d{4}-\\d{2}$') return '2025-03';
  return 'Fuzz value'.padEnd(schema.minLength ?? 1, 'x');
}

export class Fuzzer {
  readonly ops: Operation[];
  private readonly ctx: Context = { ids: [], messes: [], tokens: {}, hostileTokens: [] };
  private readonly secrets: string[];
  readonly roles: readonly Role[];
  private readonly forbidden: ReadonlySet<string>;
  /** The first requests of a cross-mess run: every operation, as every role, with every foreign id (plain, valid). */
  private readonly sweep: SweepItem[];

  constructor(
    doc: unknown,
    private readonly transport: Transport,
    private readonly options: FuzzOptions,
  ) {
    this.ops = operationsOf(doc as Doc);
    this.secrets = (options.secrets ?? []).filter((s) => s.length >= 8);
    this.roles = options.roles ?? ROLES;
    const foreign = options.foreign;
    this.forbidden = new Set((foreign?.forbidden ?? []).map((id) => id.toLowerCase()));
    this.sweep = foreign ? sweepOf(this.ops, this.roles, foreign) : [];
    if (foreign) {
      // Only the other mess's ids: a cross-mess run harvests nothing of its own.
      this.ctx.ids = [...new Set(Object.values(foreign.records).flat())];
      this.ctx.messes = [foreign.slug, foreign.messId];
    }
  }

  /** How many requests the cross-mess sweep takes (0 in an ordinary run). */
  get sweepLength(): number {
    return this.sweep.length;
  }

  private stopped = false;

  /** Ends a run after the requests in flight; `run` then resolves with the report so far. */
  stop(): void {
    this.stopped = true;
  }

  setTokens(tokens: Partial<Record<Role, string>>, hostileTokens: string[]): void {
    this.ctx.tokens = tokens;
    this.ctx.hostileTokens = hostileTokens;
  }

  /** Record ids seen in any answer become path parameters of later requests, to reach past the 404s. */
  harvest(body: string): void {
    if (this.options.foreign) return;
    for (const id of body.match(UUID_RE) ?? []) {
      if (this.ctx.ids.includes(id)) continue;
      this.ctx.ids.push(id);
      if (this.ctx.ids.length > 300) this.ctx.ids.shift();
    }
  }

  /**
   * Request `index`: the first |ops| × |roles| go through every operation as every role, the rest at random. In a
   * cross-mess run the sweep comes first instead (see sweepOf), then random requests carrying the foreign ids.
   */
  generate(index: number): FuzzRequest {
    if (index < this.sweep.length) return this.plainRequest(index, this.sweep[index]);
    const r = new Random(mix(this.options.seed, index));
    const roles = this.roles;
    const systematic = !this.options.foreign && index < this.ops.length * roles.length;
    const op = systematic ? this.ops[index % this.ops.length] : r.pick(this.ops);
    let role: Role | 'hostile' = systematic ? roles[Math.floor(index / this.ops.length)] : r.pick(roles);
    const mutations: string[] = [];
    let invalid = false;
    const breakIt = (what: string, certain: boolean) => {
      mutations.push(what);
      if (certain) invalid = true;
    };

    const headers: Record<string, string> = {};
    if (!systematic && r.chance(0.08)) {
      role = 'hostile';
      headers.authorization = r.pick(this.ctx.hostileTokens);
      breakIt('hostile token', op.secured);
    } else if (role !== 'none' && this.ctx.tokens[role]) {
      headers.authorization = `Bearer ${this.ctx.tokens[role]}`;
    }

    // Path
    let path = op.path;
    for (const p of op.parameters.filter((p) => p.in === 'path')) {
      let value: string;
      const isId = p.name === 'id' || p.schema.format === 'uuid';
      if (r.chance(0.15)) {
        const bad = r.pick([
          ['not-a-uuid', true],
          ["1' OR '1'='1", true],
          ['%ED%A0%80', true],
          ['%FF', true],
          ['..%2F..%2Fetc', true],
          ['0x10', true],
          ['a'.repeat(300), true],
          [r.pick(INJECTIONS), true],
        ] as [string, boolean][]);
        value = bad[0].startsWith('%') || bad[0].startsWith('..%') ? bad[0] : encodeQueryValue(bad[0]);
        breakIt(`path ${p.name}=${bad[0].slice(0, 20)}`, isId && bad[1]);
      } else if (isId) {
        value = this.ctx.ids.length && r.chance(0.85) ? r.pick(this.ctx.ids) : randomUuid(r);
      } else {
        value = encodeQueryValue(String(validValue(p.schema, r, this.ctx, p.name)));
      }
      path = path.replace(`{${p.name}}`, value);
    }

    // Query
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    const pairs: string[] = [];
    for (const p of queryParams) {
      if (p.required || r.chance(0.4)) {
        pairs.push(
          `${encodeURIComponent(p.name)}=${encodeQueryValue(String(validValue(p.schema, r, this.ctx, p.name)))}`,
        );
      }
    }
    const queryMutations = r.chance(0.6) ? 1 + r.int(2) : 0;
    for (let m = 0; m < queryMutations; m += 1) {
      const p = queryParams.length ? r.pick(queryParams) : undefined;
      const declared = queryParams.length > 0;
      const kind = r.int(7);
      if (kind === 0 && p) {
        const v = encodeQueryValue(String(validValue(p.schema, r, this.ctx, p.name)));
        pairs.push(`${p.name}=${v}`, `${p.name}=${v}`);
        breakIt(`repeated ${p.name}`, true);
      } else if (kind === 1) {
        const name = p?.name ?? 'x';
        pairs.push(
          `${name}[]=${encodeQueryValue(String(p ? validValue(p.schema, r, this.ctx, p.name) : '1'))}`,
        );
        breakIt(`${name}[] array syntax`, declared);
      } else if (kind === 2) {
        pairs.push(
          r.pick([
            '__proto__[x]=1',
            'constructor[prototype][x]=1',
            '__proto__=1',
            'toString=1',
            'hasOwnProperty=1',
          ]),
        );
        breakIt('prototype key', declared);
      } else if (kind === 3 && p) {
        const bad = invalidValue(p.schema, r, 'query');
        if (bad) {
          pairs.push(`${p.name}=${encodeQueryValue(String(bad[0]))}`);
          breakIt(`query ${p.name}: ${bad[1]}`, true);
        }
      } else if (kind === 4) {
        const name = p?.name ?? 'q';
        pairs.push(`${name}=${r.pick(MALFORMED_PERCENT)}`);
        breakIt(`${name} malformed percent-encoding`, declared);
      } else if (kind === 5 && p) {
        const [value, what] = hostileValue(p.schema, r);
        pairs.push(`${p.name}=${encodeQueryValue(String(value))}`);
        breakIt(`query ${p.name}: ${what}`, Boolean(p.schema.enum || p.schema.format || p.schema.pattern));
      } else {
        pairs.push(`fuzz${r.int(100)}=${encodeQueryValue(r.pick(INJECTIONS))}`);
        breakIt('unknown query parameter', declared);
      }
    }
    if (this.ctx.messes.length && r.chance(0.1)) pairs.push(`mess=${r.pick(this.ctx.messes)}`);
    // Repeated keys must stay repeated: order shuffled only within the distinct keys' first occurrences is enough.
    const url = `${path}${pairs.length ? `?${pairs.join('&')}` : ''}`;

    // Body
    let body: Buffer | undefined;
    if (op.body || (r.chance(0.05) && op.method !== 'GET')) {
      headers['content-type'] = 'application/json';
      const schema = op.body ?? { type: 'object', properties: {} };
      const value = validValue({ ...schema, example: undefined }, r, this.ctx) as unknown;
      let text: string | undefined;
      const bodyMutations = r.chance(0.75) ? 1 + r.int(3) : 0;
      const current = value;
      const touched = new Set<string>();
      for (let m = 0; m < bodyMutations && text === undefined; m += 1) {
        const kind = r.int(12);
        const object =
          current && typeof current === 'object' && !Array.isArray(current)
            ? (current as Record<string, unknown>)
            : undefined;
        // Each field is broken at most once, so a later change cannot quietly repair an earlier one.
        const keys = Object.keys(schema.properties ?? {}).filter((k) => !touched.has(k));
        const key = keys.length ? r.pick(keys) : undefined;
        if (key) touched.add(key);
        const prop = key ? schema.properties![key] : undefined;
        if (kind <= 2 && object && key && prop) {
          const bad = invalidValue(prop, r, 'body');
          if (bad) {
            object[key] = bad[0];
            // A read-only field (the configuration's createdBy…) is ignored whatever it holds.
            breakIt(`body ${key}: ${bad[1]}`, !prop.readOnly);
          }
        } else if (kind === 3 && object && key && prop) {
          const [v, what] = hostileValue(prop, r);
          object[key] = v;
          breakIt(`body ${key}: ${what}`, false);
        } else if (kind === 4 && object && schema.required?.length) {
          const missing = r.pick(schema.required);
          if (touched.has(missing) && missing !== key) continue;
          touched.add(missing);
          delete object[missing];
          breakIt(`body without required ${missing}`, true);
        } else if (kind === 5 && object && op.body?.properties) {
          object[
            r.pick(['isAdmin', 'role', 'extra', 'verified', 'status'].filter((k) => !keys.includes(k)))
          ] = true;
          breakIt('unknown body field', true);
        } else if (kind === 6 && key) {
          const depth = r.pick([33, 100, 1000, 10_000]);
          text = JSON.stringify({ ...(object ?? {}), [key]: '__DEEP__' }).replace(
            '"__DEEP__"',
            nested(depth, r.pick(['x', 1, null]), r.chance(0.5)),
          );
          breakIt(`body ${key} nested ${depth} deep`, true);
        } else if (kind === 7) {
          const n = r.pick([33, 5_000, 50_000]);
          text = '['.repeat(n) + ']'.repeat(n);
          breakIt(`whole body nested ${n} deep`, true);
        } else if (kind === 8) {
          const options: [string | undefined, string, string, boolean][] = [
            ['{"email":', 'application/json', 'truncated JSON', true],
            ['{email: "a@b.c"}', 'application/json', 'JSON with bare keys', true],
            ['', 'application/json', 'empty JSON body', true],
            ['[1,2,3]', 'application/json', 'array as body', Boolean(schema.properties)],
            ['"text"', 'application/json', 'string as body', Boolean(schema.properties)],
            ['123', 'application/json', 'number as body', Boolean(schema.properties)],
            ['null', 'application/json', 'null as body', Boolean(schema.properties)],
            ['email=a@b.c', 'text/plain', 'text/plain body', true],
            ['<a>1</a>', 'application/xml', 'XML body', true],
            [JSON.stringify(value), 'application/json; charset=utf-16', 'odd charset', false],
            [JSON.stringify(value), 'application/vnd.api+json', 'vendor JSON type', true],
          ];
          const [t, type, what, certain] = r.pick(options);
          text = t;
          headers['content-type'] = type;
          breakIt(what, certain && Boolean(op.body));
        } else if (kind === 9) {
          text = r.pick([
            '{"__proto__":{"isAdmin":true}}',
            '{"constructor":{"prototype":{"isAdmin":true}}}',
            `{"a":1,"__proto__":{"role":"admin"}}`,
          ]);
          breakIt('prototype pollution', Boolean(op.body));
        } else if (kind === 10 && object) {
          body = Buffer.concat([
            Buffer.from(JSON.stringify(object).slice(0, -1) + ',"k":"'),
            Buffer.from([0xff, 0xfe, 0xc0, 0xaf]),
            Buffer.from('"}'),
          ]);
          breakIt('invalid UTF-8 bytes', true);
          break;
        } else if (kind === 11 && object && key) {
          // A lone surrogate written as a JSON escape, the way a client would.
          text = JSON.stringify({ ...object, [key]: 'a__LONE__b' }).replace(
            '__LONE__',
            r.pick(['\\ud800', '\\udfff', '\\ud83d']),
          );
          breakIt(`body ${key}: escaped lone surrogate`, true);
        }
      }
      if (body === undefined) body = Buffer.from(text ?? JSON.stringify(current));
    }

    if (r.chance(0.05)) {
      headers['x-request-id'] = r.pick(['a'.repeat(5000), '../../x', "' OR 1=1--", 'ok-id']);
      mutations.push('odd X-Request-Id');
    }
    return { index, operation: op.key, role, method: op.method, url, headers, body, mutations, invalid };
  }

  /** A sweep request: valid by the document, carrying the item's foreign id or naming the other mess. */
  private plainRequest(index: number, item: SweepItem): FuzzRequest {
    const { op, role, id } = item;
    const foreign = this.options.foreign!;
    const headers: Record<string, string> = {};
    if (this.ctx.tokens[role]) headers.authorization = `Bearer ${this.ctx.tokens[role]}`;
    let path = op.path;
    const pairs: string[] = [];
    for (const p of op.parameters) {
      if (p.in === 'path') {
        const value = p.name === 'mess' ? foreign.slug : plainValue(p.schema, id ?? this.ctx.ids[0], p.name);
        path = path.replace(`{${p.name}}`, encodeQueryValue(String(value)));
      } else if (p.in === 'header') {
        if (/idempotency/i.test(p.name))
          headers[p.name.toLowerCase()] = `fuzz-sweep-${this.options.seed}-${index}`;
      } else if (p.required || (id && holdsId(p.schema, p.name))) {
        pairs.push(
          `${encodeURIComponent(p.name)}=${encodeQueryValue(String(plainValue(p.schema, id, p.name)))}`,
        );
      }
    }
    if (item.mess) pairs.push(`mess=${encodeQueryValue(item.mess)}`);
    let body: Buffer | undefined;
    if (op.body) {
      headers['content-type'] = 'application/json';
      body = Buffer.from(JSON.stringify(plainValue(op.body, id)));
    }
    return {
      index,
      operation: op.key,
      role,
      method: op.method,
      url: `${path}${pairs.length ? `?${pairs.join('&')}` : ''}`,
      headers,
      body,
      mutations: [id ? `carries ${id}` : `names mess ${item.mess}`],
      invalid: false,
    };
  }

  /** The cross-mess rules of ForeignMess, for one answer. */
  private crossMessFindings(request: FuzzRequest, response: FuzzResponse): string[] {
    const foreign = this.options.foreign;
    if (!foreign) return [];
    const out: string[] = [];
    const [rawPath, query = ''] = request.url.split('?');
    const path = rawPath.toLowerCase();
    const status = response.status;
    const named = [...this.forbidden].find((id) => path.includes(id));
    if (named && ![...REFUSED_UNREAD, 403, 404].includes(status))
      out.push(`answered ${status} to a request for ${named}, of mess ${foreign.slug} (403/404 expected)`);
    let messes: string[] = [];
    try {
      messes = new URLSearchParams(query).getAll('mess');
    } catch {
      // a malformed query names nothing
    }
    const op = this.ops.find((o) => o.key === request.operation);
    const member = request.role !== 'hostile' && request.role !== 'none' && request.role !== 'admin';
    if (
      member &&
      op?.secured &&
      messes.some((m) => m === foreign.slug || m === foreign.messId) &&
      ![...REFUSED_UNREAD, 403, ...(messes.length > 1 ? [404] : [])].includes(status)
    )
      out.push(
        `answered ${status} acting in mess ${foreign.slug}, named by a member of another mess (403 expected)`,
      );
    if (status < 300 && op?.secured !== false) {
      const held = (response.body.match(UUID_RE) ?? []).find((id) => this.forbidden.has(id.toLowerCase()));
      if (held) out.push(`a ${status} answer holds ${held}, of mess ${foreign.slug}`);
    }
    return out;
  }

  private documented503(request: FuzzRequest, response: FuzzResponse): boolean {
    if (response.status !== 503) return false;
    const op = this.ops.find((o) => o.key === request.operation);
    try {
      return Boolean(
        op?.documented503.includes((JSON.parse(response.body) as { error?: string }).error ?? ''),
      );
    } catch {
      return false;
    }
  }

  /** Every check an answer must pass; the reasons it fails. */
  check(request: FuzzRequest, response: FuzzResponse): Finding[] {
    const findings: Finding[] = [];
    const add = (kind: Finding['kind'], detail: string) =>
      findings.push({ kind, detail, request, status: response.status, body: response.body.slice(0, 500) });
    if (response.status >= 500 && !this.documented503(request, response))
      add('5xx', `answered ${response.status}`);
    if (request.invalid && response.status < 400)
      add('2xx for invalid input', `answered ${response.status} to: ${request.mutations.join('; ')}`);
    const body = response.body;
    const leak =
      /\n\s+at .+:\d+:\d+/.test(body) || /node_modules|\/src\/.+\.ts\b|\.js:\d+:\d+/.test(body)
        ? 'a stack trace'
        : /Failed query|syntax error at or near|violates (unique|foreign key|check|not-null) constraint|duplicate key value|relation "[a-z_]+"|column "[a-z_]+"|SQLSTATE|invalid input syntax for/i.test(
              body,
            )
          ? 'SQL or a database message'
          : /\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}/.test(body)
            ? 'a password hash'
            : /"password_?hash"\s*:\s*"/i.test(body)
              ? 'a password hash field'
              : this.secrets.find((s) => body.includes(s))
                ? 'a secret'
                : undefined;
    if (leak) add('leak', `the body holds ${leak}`);
    for (const detail of this.crossMessFindings(request, response)) add('cross-mess', detail);
    return findings;
  }

  /** After a 401 to a role's current token: a fresh token for the role; whether one came. */
  private async refreshed(request: FuzzRequest, response: FuzzResponse): Promise<boolean> {
    const role = request.role;
    if (
      response.status !== 401 ||
      role === 'hostile' ||
      role === 'none' ||
      !response.body.includes('Invalid token') ||
      !this.options.refreshToken ||
      request.headers.authorization !== `Bearer ${this.ctx.tokens[role]}`
    )
      return false;
    const fresh = await this.options.refreshToken(role);
    if (fresh) this.ctx.tokens[role] = fresh;
    return Boolean(fresh);
  }

  async run(): Promise<FuzzReport> {
    const report: FuzzReport = {
      seed: this.options.seed,
      sent: 0,
      elapsedMs: 0,
      byOperation: new Map(),
      roles: new Map(),
      findings: [],
      invalidSent: 0,
    };
    const started = Date.now();
    let next = 0;
    const worker = async () => {
      while (next < this.sweep.length + this.options.requests && !this.stopped) {
        if (this.options.timeBudgetMs && Date.now() - started > this.options.timeBudgetMs) return;
        let request = this.generate(next);
        next += 1;
        let response: FuzzResponse;
        try {
          response = await this.transport(request);
          // A sweep request whose token an earlier one ended (logout) is sent again with a fresh token: each is
          // meant to reach the service as its role.
          if (request.index < this.sweep.length && (await this.refreshed(request, response))) {
            request = this.generate(request.index);
            response = await this.transport(request);
          }
        } catch (error) {
          report.findings.push({
            kind: 'no answer',
            detail: error instanceof Error ? error.message : String(error),
            request,
            status: 0,
            body: '',
          });
          continue;
        } finally {
          report.sent += 1;
        }
        if (request.invalid) report.invalidSent += 1;
        const statuses = report.byOperation.get(request.operation) ?? new Map<number, number>();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        report.byOperation.set(request.operation, statuses);
        const roles = report.roles.get(request.operation) ?? new Set<string>();
        roles.add(request.role);
        report.roles.set(request.operation, roles);
        for (const finding of this.check(request, response)) {
          report.findings.push(finding);
          this.options.onFinding?.(finding);
        }
        if (response.status < 300) this.harvest(response.body);
        await this.refreshed(request, response);
        if (this.options.progress && report.sent % 1000 === 0) this.options.progress(report.sent, report);
      }
    };
    await Promise.all(Array.from({ length: this.options.concurrency ?? 1 }, worker));
    report.elapsedMs = Date.now() - started;
    return report;
  }
}

/** The grouped report: status × operation, then every finding with its request. */
export function formatFinding(f: Finding): string[] {
  const req = f.request;
  const body = req.body ? req.body.toString('utf8').slice(0, 300) : '';
  return [
    `#${req.index} ${f.kind} (${f.detail}) as ${req.role}: ${req.method} ${req.url.slice(0, 300)}`,
    `   headers ${JSON.stringify({ ...req.headers, authorization: req.headers.authorization ? '[token]' : undefined })}`,
    ...(body ? [`   body ${JSON.stringify(body)}`] : []),
    `   → ${f.status} ${f.body.slice(0, 300)}`,
  ];
}

export function formatReport(report: FuzzReport, maxFindings = 50): string {
  const statuses = [...new Set([...report.byOperation.values()].flatMap((m) => [...m.keys()]))].sort(
    (a, b) => a - b,
  );
  const lines: string[] = [];
  lines.push(
    `Fuzz seed ${report.seed}: ${report.sent} requests (${report.invalidSent} invalid by the document) in ${(report.elapsedMs / 1000).toFixed(1)} s; ${report.findings.length} findings`,
  );
  const width = Math.max(...[...report.byOperation.keys()].map((k) => k.length), 9);
  lines.push(['operation'.padEnd(width), ...statuses.map((s) => String(s).padStart(6))].join(' '));
  for (const [op, counts] of [...report.byOperation.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push([op.padEnd(width), ...statuses.map((s) => String(counts.get(s) ?? '').padStart(6))].join(' '));
  }
  const byKind = new Map<string, number>();
  for (const f of report.findings) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
  if (report.findings.length) {
    lines.push('', `Findings: ${[...byKind.entries()].map(([k, n]) => `${n} × ${k}`).join(', ')}`);
    for (const f of report.findings.slice(0, maxFindings)) lines.push(...formatFinding(f));
    if (report.findings.length > maxFindings)
      lines.push(`… and ${report.findings.length - maxFindings} more`);
  }
  return lines.join('\n');
}
