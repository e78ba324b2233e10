// The baseline of `bench/cost.ts`: the least a server can do for one authenticated `GET /api/meals?date=D`, with the
// service's own SQL and nothing else: Fastify 5, a `pg` pool of the service's size, `jsonwebtoken`. It verifies the
// HS256 token, runs the service's token-holder query (user, status, mess, token version, revocation), reads the day's
// menus of the holder's mess with the service's query plus the mess filter (`mess_id = $1`: the service gets it from
// row-level security, this baseline, connected as the owner, writes it), orders them by the mess's configured meal
// times (read like the service: the configuration row, kept 5 s) and answers the service's JSON. No rate limit, request id, log line, security
// headers, metrics or validation framework: what those cost is what the A/B measures.
//
//   DATABASE_URL=postgres://… JWT_SECRET=… PORT=3999 node dist-bench/bench/bare-handler.js
import Fastify, { type FastifyInstance } from 'fastify';
import jwt from 'jsonwebtoken';
import { createSecretKey } from 'node:crypto';
import { Pool, types } from 'pg';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The service's prepared token-holder query (RevokedTokensRepository), as drizzle writes it. */
const HOLDER_SQL =
  'select "id", "email", "full_name", "role", "status", "mess_id", "token_version", exists (select 1 from "revoked_tokens" where "jti" = $1) from "users" where "users"."id" = $2';
/**
 * The service's menu read for a period (MealsRepository.listBetween), as drizzle writes it, with the mess filter that
 * row-level security adds to it in the service.
 */
const MEALS_SQL =
  'select "meals"."id", "meals"."date", "meals"."meal_type", "meals"."dishes", "meals"."notes", "meals"."created_by", "meals"."created_at", "meals"."updated_at", "member_names"."full_name" from "meals" left join (select "id", "full_name" from "users") "member_names" on "member_names"."id" = "meals"."created_by" where "meals"."mess_id" = $1 and ("meals"."date" >= $2 and "meals"."date" <= $3) order by "meals"."date" asc, "meals"."meal_type" asc';
const CONFIG_SQL = 'select "meal_times" from "mess_config" where "mess_id" = $1 limit 1';
const DEFAULT_MEAL_TIMES = [
  { name: 'Breakfast', startTime: '07:30' },
  { name: 'Lunch', startTime: '12:30' },
  { name: 'Dinner', startTime: '19:30' },
];

interface MealTime {
  name: string;
  startTime: string;
}

export function bareHandler(options: { databaseUrl: string; jwtSecret: string }): {
  app: FastifyInstance;
  pool: Pool;
} {
  // Dates stay `YYYY-MM-DD` text, as drizzle reads them for the service.
  const pool = new Pool({
    connectionString: options.databaseUrl,
    max: 10,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === types.builtins.DATE
          ? (value: string) => value
          : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
    },
  });
  const key = createSecretKey(Buffer.from(options.jwtSecret, 'utf8'));
  const app = Fastify({ logger: false });
  const mealTimes = new Map<string, { rows: MealTime[]; at: number }>();

  const mealOrder = async (mess: string): Promise<MealTime[]> => {
    const cached = mealTimes.get(mess);
    if (cached && Date.now() - cached.at < 5_000) return cached.rows;
    const { rows } = await pool.query<{ meal_times: MealTime[] }>({
      name: 'bare_config',
      text: CONFIG_SQL,
      values: [mess],
    });
    const entry = { rows: rows[0]?.meal_times ?? DEFAULT_MEAL_TIMES, at: Date.now() };
    mealTimes.set(mess, entry);
    return entry.rows;
  };

  app.get('/api/meals', async (request, reply) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match) return reply.code(401).send({ error: 'No token' });
    let claims: { sub?: unknown; jti?: unknown; ver?: unknown };
    try {
      claims = jwt.verify(match[1], key, { algorithms: ['HS256'] }) as typeof claims;
    } catch {
      return reply.code(401).send({ error: 'Invalid token' });
    }
    if (
      typeof claims.sub !== 'string' ||
      !UUID.test(claims.sub) ||
      typeof claims.jti !== 'string' ||
      !UUID.test(claims.jti)
    )
      return reply.code(401).send({ error: 'Invalid token' });
    const holder = await pool.query({
      name: 'bare_holder',
      text: HOLDER_SQL,
      values: [claims.jti, claims.sub],
    });
    const user = holder.rows[0] as
      { status: string; mess_id: string; token_version: number; exists: boolean } | undefined;
    if (!user || user.exists || user.status !== 'approved' || user.token_version !== claims.ver)
      return reply.code(401).send({ error: 'Invalid token' });

    const date = (request.query as { date?: unknown }).date;
    if (typeof date !== 'string' || !DATE.test(date))
      return reply.code(400).send({ success: false, error: 'Validation failed' });
    const [menus, order] = await Promise.all([
      pool.query({ name: 'bare_meals', text: MEALS_SQL, values: [user.mess_id, date, date] }),
      mealOrder(user.mess_id),
    ]);
    const rank = new Map(
      [...order].sort((a, b) => a.startTime.localeCompare(b.startTime)).map((m, i) => [m.name, i]),
    );
    const rows = menus.rows as {
      id: string;
      date: string;
      meal_type: string;
      dishes: string[];
      notes: string;
      created_by: string;
      created_at: Date;
      updated_at: Date;
      full_name: string | null;
    }[];
    rows.sort(
      (a, b) =>
        (rank.get(a.meal_type) ?? 1e9) - (rank.get(b.meal_type) ?? 1e9) ||
        a.meal_type.localeCompare(b.meal_type),
    );
    return {
      success: true,
      meals: rows.map((r) => ({
        _id: r.id,
        date: r.date,
        mealType: r.meal_type,
        dishes: r.dishes,
        notes: r.notes,
        createdBy: { _id: r.created_by, fullName: r.full_name ?? '' },
        createdAt: r.created_at.toISOString(),
        updatedAt: r.updated_at.toISOString(),
      })),
    };
  });
  return { app, pool };
}

if (require.main === module) {
  const { app } = bareHandler({ databaseUrl: process.env.DATABASE_URL!, jwtSecret: process.env.JWT_SECRET! });
  app.listen({ port: Number(process.env.PORT ?? 3999), host: '127.0.0.1' }).then(
    () => process.stdout.write('bare handler listening\n'),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
  );
}
