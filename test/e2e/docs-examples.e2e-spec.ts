import { messSetup, TestApp } from '../support/app';

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  example?: unknown;
  schema?: { example?: unknown };
  $ref?: string;
}

/**
 * "Try it out" on a fresh deployment: the first mess set up and named as the README suggests (`boys-h1`), nothing
 * else recorded. Every read called with the examples Swagger UI pre-fills answers without a 404 or a 400 caused by
 * an example: no slug, date or id that does not exist there.
 */
describe('API documentation: examples that work on a fresh deployment', () => {
  let t: TestApp;
  let admin: string;
  let doc: any;
  beforeAll(async () => {
    t = await TestApp.start();
    admin = await t.adminToken();
    const setup = await t.post('/auth/admin/setup', messSetup({ slug: 'boys-h1', capacity: 600 }), {
      token: admin,
    });
    expect(setup.status).toBe(200);
    doc = (await t.get('/docs.json')).body;
  }, 120_000);
  afterAll(() => t?.close());

  const resolve = (p: Parameter): Parameter =>
    p.$ref ? doc.components.parameters[p.$ref.split('/').pop() as string] : p;

  it('answers every read, called with its own examples as admin, without a 404 or a 400', async () => {
    const answers: { operation: string; query: Record<string, string>; status: number; error?: string }[] =
      [];
    let skipped = 0;
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      const op = ops.get;
      if (!op) continue;
      const parameters = ((op.parameters ?? []) as Parameter[]).map(resolve);
      const params: Record<string, string> = {};
      const query: Record<string, string> = {};
      for (const p of parameters) {
        const example = p.example ?? p.schema?.example;
        if (example === undefined) continue;
        (p.in === 'path' ? params : query)[p.name] = String(example);
      }
      // An id that cannot exist on a fresh deployment (a menu, an expense) has no example, nor has a value that
      // depends on the hour (the meal of a pass): the reader fills it in, there is nothing to try.
      if (
        parameters.some((p) => (p.in === 'path' || p.required) && !(p.name in params) && !(p.name in query))
      ) {
        skipped += 1;
        continue;
      }
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]));
      const search = new URLSearchParams(query).toString();
      const res = await t.get(`${path.replace(/^\/api/, '')}${search ? `?${search}` : ''}`, { token: admin });
      answers.push({
        operation: op.operationId,
        query,
        status: res.status,
        ...(res.status >= 400 ? { error: JSON.stringify(res.body).slice(0, 200) } : {}),
      });
    }
    expect(answers.filter((a) => a.status === 404 || a.status === 400)).toEqual([]);
    // Nor an empty answer for a fixed day long past or an id nobody has: a read's query holds no date or id.
    const fixed = /^(\d{4}(-\d{2}(-\d{2})?)?|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
    expect(answers.filter((a) => Object.values(a.query).some((value) => fixed.test(value)))).toEqual([]);
    expect(answers.length).toBeGreaterThan(40);
    expect(skipped).toBeLessThan(answers.length);
  });
});
