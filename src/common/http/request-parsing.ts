import { ApiError, badRequest, type FieldError } from '../errors/api-error';

/**
 * Hostile input is refused where it enters, before any validator or service walks it: JSON bodies nested deeper
 * than MAX_BODY_DEPTH, text that is not well-formed Unicode (invalid UTF-8 bytes, lone UTF-16 surrogates written as
 * `\ud800`), prototype keys, and query strings with malformed percent-encoding. Every refusal is an ordinary
 * `ApiError` (400 `{success:false,error,details?}`), so it takes the same path as every other error.
 */
export const MAX_BODY_DEPTH = 32;

export const BODY_TOO_DEEP = `Request body is nested too deeply (more than ${MAX_BODY_DEPTH} levels)`;
export const BODY_NOT_UTF8 = 'Request body is not valid UTF-8';
export const BODY_MALFORMED = 'Malformed request body';
export const BODY_EMPTY = 'Request body is empty; send a JSON object';
const NOT_UNICODE = 'is not well-formed Unicode (a lone surrogate)';
export const QUERY_INVALID = 'Invalid query string';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export const CHARSET_UNSUPPORTED = 'Unsupported charset; send the body in UTF-8';
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/**
 * A body declared in another charset (`application/json; charset=utf-16`, `latin1`…) is 415, not read as UTF-8
 * (where its bytes would make another text or a confusing 400). No charset, or `utf-8`/`utf8`, is UTF-8.
 */
export function assertUtf8Charset(contentType: string | undefined): void {
  const charset = CHARSET.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ApiError(415, CHARSET_UNSUPPORTED);
  }
}
/** In `u` mode a surrogate pair is one code point, so this matches only a lone (ill-formed) surrogate. */
const LONE_SURROGATE = /\p{Surrogate}/u;
export const isWellFormed = (text: string): boolean => !LONE_SURROGATE.test(text);

/**
 * Names every object already has (`__proto__`, `constructor`, `hasOwnProperty`, `toString`…): never a field of ours,
 * and as a key they slip past the whitelist (class-transformer and class-validator see an inherited member) or
 * replace a method. Refused in bodies and queries alike.
 */
const isPrototypeKey = (key: string): boolean => key in Object.prototype;

/**
 * The JSON body parser (`application/json`). One linear scan checks the nesting depth, stopping at the first level
 * past the limit, so a 100 kB body of 50,000 `[` costs no more than a flat one; only then does `JSON.parse` run, and
 * a walk of the result (bounded by the depth) checks its text and keys.
 */
/**
 * An empty body sent as JSON (what many HTTP wrappers send with a body-less action: approve, close, cancel). A route
 * that takes no body accepts it; a route that takes one answers BODY_EMPTY (the validation pipe).
 */
export const EMPTY_JSON_BODY: unique symbol = Symbol('empty JSON body');

export function parseJsonBody(raw: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw badRequest(BODY_NOT_UTF8);
  }
  if (text.trim() === '') return EMPTY_JSON_BODY;
  scanJson(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(BODY_MALFORMED);
  }
  const problems: FieldError[] = [];
  checkParsed(value, '', problems);
  if (problems.length) throw badRequest('Validation failed', problems.slice(0, 20));
  return value;
}

/** The largest CSV body accepted (a bank statement of 5,000 rows is ~1 MB). */
export const CSV_BODY_LIMIT_BYTES = 5 * 1024 * 1024;

/**
 * The largest Excel (.xlsx) body accepted: a bank's export of 5,000 rows is ~250 kB; reading a workbook costs far
 * more memory and time than its bytes, so the limit is lower than a CSV's (BODY_LIMIT_BYTES when that is larger).
 */
export const XLSX_BODY_LIMIT_BYTES = 1024 * 1024;

/** A text body (`text/csv`): well-formed UTF-8 (a BOM kept for the CSV parser to skip), else 400. */
export function parseTextBody(raw: Buffer): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    throw badRequest(BODY_NOT_UTF8);
  }
  return text;
}

/** The nesting depth in one pass (strings skipped, so brackets inside them do not count); syntax is JSON.parse's. */
function scanJson(text: string): void {
  let depth = 0;
  let inString = false;
  const length = text.length;
  for (let i = 0; i < length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x22 /* " */) inString = false;
      else if (c === 0x5c /* \ */) i += 1;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth += 1;
      if (depth > MAX_BODY_DEPTH) throw badRequest(BODY_TOO_DEEP);
    } else if (c === 0x7d || c === 0x5d) depth -= 1;
  }
}

/**
 * A walk bounded by the depth: every string (key or value) must be well-formed Unicode (JSON may write a lone
 * surrogate as `\ud800`, which later fails in encodeURIComponent, bcrypt or PostgreSQL), and no key may be a
 * prototype name (see isPrototypeKey).
 */
function checkParsed(value: unknown, path: string, problems: FieldError[]): void {
  if (problems.length >= 20) return;
  if (typeof value === 'string') {
    if (!isWellFormed(value))
      problems.push({ field: path || 'body', message: `${path || 'body'} ${NOT_UNICODE}` });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkParsed(item, path ? `${path}.${index}` : String(index), problems));
    return;
  }
  for (const key of Object.keys(value)) {
    const field = path ? `${path}.${key}` : key;
    if (!isWellFormed(key)) {
      problems.push({ field: path || 'body', message: `a field name ${NOT_UNICODE}` });
      continue;
    }
    if (isPrototypeKey(key)) {
      problems.push({ field, message: `${field} is not an accepted field` });
      continue;
    }
    checkParsed((value as Record<string, unknown>)[key], field, problems);
  }
}

/** A parsed query string; `problems` (not enumerable, so no validator sees it as a field) lists what was refused. */
export type ParsedQuery = Record<string, string | string[]>;
const PROBLEMS = Symbol('query problems');

/**
 * The query-string parser for every route (Fastify's `querystringParser`), and the form-body parser: `a=1&a=2` gives
 * an array (which the validation pipe refuses where one value is expected), `a[]=1` is just a key named `a[]`
 * (refused as an unknown field), a prototype name (`__proto__`, `hasOwnProperty`…) and a value whose percent-encoding is malformed or decodes to text that is not
 * well-formed Unicode is recorded as a problem for the validation pipe to answer with 400. It never throws: Fastify
 * calls it while routing, where an exception would not reach the error handler.
 */
export function parseQueryString(input: string): ParsedQuery {
  const result = Object.create(null) as ParsedQuery;
  if (!input) return result;
  const problems: FieldError[] = [];
  for (const pair of input.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
    const key = decode(rawKey);
    const value = decode(rawValue);
    if (key === undefined) {
      if (problems.length < 20)
        problems.push({ field: 'query', message: `${QUERY_INVALID}: a malformed name` });
      continue;
    }
    if (value === undefined) {
      if (problems.length < 20)
        problems.push({
          field: key,
          message: `${key} is malformed (bad percent-encoding or not UTF-8 Unicode)`,
        });
      continue;
    }
    if (isPrototypeKey(key)) {
      if (problems.length < 20) problems.push({ field: key, message: `${key} is not an accepted field` });
      continue;
    }
    const existing = result[key];
    if (existing === undefined) result[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else result[key] = [existing, value];
  }
  if (problems.length) Object.defineProperty(result, PROBLEMS, { value: problems, enumerable: false });
  return result;
}

/** Text with nothing to decode: no `%`, no `+`, nothing outside printable ASCII (most names and values). */
const PLAIN = /^[\x21-\x24\x26-\x2a\x2c-\x7e]*$/;

function decode(raw: string): string | undefined {
  if (PLAIN.test(raw)) return raw;
  try {
    const text = decodeURIComponent(raw.replace(/\+/g, ' '));
    return isWellFormed(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

export function queryProblems(query: unknown): FieldError[] {
  if (!query || typeof query !== 'object') return [];
  return (query as { [PROBLEMS]?: FieldError[] })[PROBLEMS] ?? [];
}

/** `application/x-www-form-urlencoded` bodies: parsed like a query string, and refused at once if malformed. */
export function parseFormBody(raw: Buffer): ParsedQuery {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw badRequest(BODY_NOT_UTF8);
  }
  const parsed = parseQueryString(text);
  const problems = queryProblems(parsed);
  if (problems.length) throw badRequest('Validation failed', problems);
  return parsed;
}
