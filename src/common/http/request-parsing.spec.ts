import { ApiError } from '../errors/api-error';
import {
  EMPTY_JSON_BODY,
  BODY_MALFORMED,
  BODY_NOT_UTF8,
  BODY_TOO_DEEP,
  MAX_BODY_DEPTH,
  parseFormBody,
  parseJsonBody,
  parseQueryString,
  queryProblems,
} from './request-parsing';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const body = (error as ApiError).getResponse() as { error?: string; details?: unknown };
    return { status: (error as ApiError).getStatus(), ...body };
  }
  throw new Error('expected a refusal');
};
const json = (text: string) => parseJsonBody(Buffer.from(text, 'utf8'));

describe('parseJsonBody', () => {
  it(`accepts ${MAX_BODY_DEPTH} levels and refuses ${MAX_BODY_DEPTH + 1}, counting only brackets outside strings`, () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    expect(json(deep(MAX_BODY_DEPTH))).toBeDefined();
    expect(refusal(() => json(deep(MAX_BODY_DEPTH + 1)))).toEqual({
      status: 400,
      success: false,
      error: BODY_TOO_DEEP,
    });
    expect(refusal(() => json(`{"a":${'{"b":'.repeat(40)}1${'}'.repeat(40)}}`)).error).toBe(BODY_TOO_DEEP);
    // brackets and escaped quotes inside text are text
    expect(json(`{"note":"${'[{'.repeat(100)} \\" ${'['.repeat(50)}"}`)).toEqual({
      note: `${'[{'.repeat(100)} " ${'['.repeat(50)}`,
    });
  });

  it('refuses a 100 kB body nested 50,000 deep at no more cost than parsing a flat one', () => {
    const hostile = Buffer.from('['.repeat(50_000) + ']'.repeat(50_000));
    const flat = Buffer.from(JSON.stringify({ items: Array.from({ length: 10_000 }, (_, i) => `v${i}`) }));
    const median = (run: () => void) => {
      const times = Array.from({ length: 7 }, () => {
        const started = performance.now();
        run();
        return performance.now() - started;
      });
      return times.sort((a, b) => a - b)[3];
    };
    const hostileMs = median(() => refusal(() => parseJsonBody(hostile)));
    const flatMs = median(() => parseJsonBody(flat));
    expect(hostileMs).toBeLessThanOrEqual(flatMs + 2);
  });

  it('names the field holding a lone surrogate, anywhere in the body; pairs are fine', () => {
    expect(refusal(() => json('{"email":"a\\ud800@example.com","password":"x"}'))).toEqual({
      status: 400,
      success: false,
      error: 'Validation failed',
      details: [{ field: 'email', message: 'email is not well-formed Unicode (a lone surrogate)' }],
    });
    expect(refusal(() => json('{"mealTimes":[{"name":"x\\udc00"}]}'))).toMatchObject({
      details: [{ field: 'mealTimes.0.name' }],
    });
    expect(refusal(() => json('{"a\\ud83d":1}'))).toMatchObject({ details: [{ field: 'body' }] });
    expect(json('{"comment":"\\ud83d\\ude00 ok"}')).toEqual({ comment: '😀 ok' });
  });

  it('refuses invalid UTF-8, empty and malformed bodies, and prototype keys', () => {
    expect(refusal(() => parseJsonBody(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))).error).toBe(
      BODY_NOT_UTF8,
    );
    // an empty body is for the route to judge: none needed (a body-less action), or BODY_EMPTY from the pipe
    expect(json('  ')).toBe(EMPTY_JSON_BODY);
    expect(refusal(() => json('{"a":')).error).toBe(BODY_MALFORMED);
    for (const key of ['__proto__', 'constructor', 'hasOwnProperty', 'toString']) {
      expect(refusal(() => json(`{"x":{"${key}":{"isAdmin":true}}}`))).toMatchObject({
        details: [{ field: `x.${key}`, message: `x.${key} is not an accepted field` }],
      });
    }
  });
});

describe('parseQueryString', () => {
  it('decodes, keeps repeated keys as arrays and array syntax as a plain key', () => {
    const parsed = parseQueryString('month=2025-03&q=a+b%20c&x=1&x=2&month%5B%5D=1&flag');
    expect({ ...parsed }).toEqual({ month: '2025-03', q: 'a b c', x: ['1', '2'], 'month[]': '1', flag: '' });
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(queryProblems(parsed)).toEqual([]);
  });

  it('records malformed encoding, ill-formed Unicode and prototype names as problems, never throwing', () => {
    const parsed = parseQueryString('a=%FF&b=%ED%A0%80&c=%E0%A4%A&%=1&__proto__[x]=1&hasOwnProperty=1&ok=1');
    expect({ ...parsed }).toEqual({ '__proto__[x]': '1', ok: '1' });
    expect(queryProblems(parsed).map((p) => p.field)).toEqual(['a', 'b', 'c', 'query', 'hasOwnProperty']);
    // not a field any validator could see
    expect(Object.keys(parsed)).toEqual(['__proto__[x]', 'ok']);
  });

  it('form bodies: parsed the same way, refused at once when malformed', () => {
    expect({ ...parseFormBody(Buffer.from('email=a%40b.c&password=x')) }).toEqual({
      email: 'a@b.c',
      password: 'x',
    });
    expect(refusal(() => parseFormBody(Buffer.from('email=%ED%A0%80')))).toMatchObject({
      status: 400,
      details: [{ field: 'email' }],
    });
  });
});
