import { Injectable } from '@nestjs/common';
import { and, asc, count, desc, eq, gt, gte, lt, or, sql, SQL } from 'drizzle-orm';
import { Database, DbOrTx } from '../../database/database';
import { AuditEntity, AuditEventRow, auditEvents, NewAuditEventRow } from './audit.schema';

export interface AuditPageFilter {
  entity?: AuditEntity;
  entityId?: string;
  actorId?: string;
  /** Inclusive lower and exclusive upper bound on `at`. */
  since?: Date;
  until?: Date;
  limit: number;
  offset: number;
}

/** The only code that queries `audit_events`. It only ever inserts and reads: the table refuses the rest. */
@Injectable()
export class AuditTrailRepository {
  constructor(private readonly database: Database) {}

  async insert(db: DbOrTx, values: NewAuditEventRow): Promise<void> {
    await db.insert(auditEvents).values(values);
  }

  async insertMany(db: DbOrTx, values: NewAuditEventRow[]): Promise<void> {
    // In slices: a statement's parameters are bounded (65,535; 8 per row).
    for (let i = 0; i < values.length; i += 5_000)
      await db.insert(auditEvents).values(values.slice(i, i + 5_000));
  }

  /**
   * The rows about a member in the statement's mess (extension 2.3's export): whose entity is the member (their
   * membership, their account), or whose snapshot names them as `userId` (their marks, extras, leave); in id order
   * after `after`, `limit` + 1 of them.
   */
  memberPage(userId: string, after: string | undefined, limit: number): Promise<AuditEventRow[]> {
    const aboutThem = or(
      eq(auditEvents.entityId, userId),
      sql`${auditEvents.after} ->> 'userId' = ${userId}`,
      sql`${auditEvents.before} ->> 'userId' = ${userId}`,
    );
    return this.database.db
      .select()
      .from(auditEvents)
      .where(and(aboutThem, after === undefined ? undefined : gt(auditEvents.id, after)))
      .orderBy(asc(auditEvents.id))
      .limit(limit + 1);
  }

  /**
   * Every mess's rows of one action on one record (an entity id is a UUID or a month: the index on it finds the
   * few), oldest first: read across messes (read-only, the reader role), as little as asked.
   */
  async everyMess(filter: {
    entity: AuditEntity;
    entityId: string;
    action: string;
  }): Promise<Pick<AuditEventRow, 'messId' | 'at' | 'before' | 'after'>[]> {
    return this.database.acrossMesses((tx) =>
      tx
        .select({
          messId: auditEvents.messId,
          at: auditEvents.at,
          before: auditEvents.before,
          after: auditEvents.after,
        })
        .from(auditEvents)
        .where(
          and(
            eq(auditEvents.entityId, filter.entityId),
            eq(auditEvents.entity, filter.entity),
            eq(auditEvents.action, filter.action),
          ),
        )
        .orderBy(auditEvents.at, auditEvents.id),
    );
  }

  /** One page, newest first (actors as ids: their names are the users module's); plus the count of all matches. */
  async page(filter: AuditPageFilter): Promise<{ rows: AuditEventRow[]; total: number }> {
    const conditions: SQL[] = [];
    if (filter.entity !== undefined) conditions.push(eq(auditEvents.entity, filter.entity));
    if (filter.entityId !== undefined) conditions.push(eq(auditEvents.entityId, filter.entityId));
    if (filter.actorId !== undefined) conditions.push(eq(auditEvents.actorId, filter.actorId));
    if (filter.since !== undefined) conditions.push(gte(auditEvents.at, filter.since));
    if (filter.until !== undefined) conditions.push(lt(auditEvents.at, filter.until));
    const where = conditions.length ? and(...conditions) : undefined;
    const db = this.database.db;
    const [rows, [{ total }]] = await Promise.all([
      db
        .select()
        .from(auditEvents)
        .where(where)
        .orderBy(desc(auditEvents.at), desc(auditEvents.id))
        .limit(filter.limit)
        .offset(filter.offset),
      db.select({ total: count() }).from(auditEvents).where(where),
    ]);
    return { rows, total };
  }
}
