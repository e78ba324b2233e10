import { Injectable } from '@nestjs/common';
import { requestContext } from '../../common/context/request-context';
import type { Database, DbOrTx } from '../../database/database';
import { AuditPageFilter, AuditTrailRepository } from './audit-trail.repository';
import type { AuditEntity, AuditEventRow } from './audit.schema';

/** One change to money or membership, as its owner describes it. */
export interface AuditEntry {
  /** The member who made the change; null for the service itself (start-up, schedules, command-line tools). */
  actorId: string | null;
  /** What happened, a short verb: `created`, `changed`, `deleted`, `approved`, `role-changed`, … */
  action: string;
  entity: AuditEntity;
  /** The changed record's id (a UUID, or a month `YYYY-MM`). */
  entityId: string;
  /** The record before the change (left out for a creation); money as integer paise in `…Paise` fields. */
  before?: unknown;
  /** The record after the change (left out for a deletion). */
  after?: unknown;
}

/**
 * The audit trail's write side, and its raw pages: the module every writer of money or membership depends on, so
 * it depends on no module itself (the names of the actors are added by the audit module, which reads the trail).
 */
@Injectable()
export class AuditTrail {
  constructor(private readonly repository: AuditTrailRepository) {}

  /** For command-line tools, which build their services by hand instead of through Nest. */
  static over(database: Database): AuditTrail {
    return new AuditTrail(new AuditTrailRepository(database));
  }

  /**
   * Records one change in `db`, the caller's transaction, so the row exists exactly when the change does. The
   * request id comes from the request context (null outside a request). Issues one statement on `db` alone.
   */
  async record(db: DbOrTx, entry: AuditEntry): Promise<void> {
    await this.repository.insert(db, {
      actorId: entry.actorId,
      action: entry.action,
      entity: entry.entity,
      entityId: entry.entityId,
      before: entry.before ?? null,
      after: entry.after ?? null,
      requestId: requestContext.requestId(),
    });
  }

  /** Many changes in one statement in `db` (a bank statement's payments): as `record`, once per entry. */
  async recordMany(db: DbOrTx, entries: AuditEntry[]): Promise<void> {
    if (!entries.length) return;
    const requestId = requestContext.requestId();
    await this.repository.insertMany(
      db,
      entries.map((entry) => ({
        actorId: entry.actorId,
        action: entry.action,
        entity: entry.entity,
        entityId: entry.entityId,
        before: entry.before ?? null,
        after: entry.after ?? null,
        requestId,
      })),
    );
  }

  /**
   * One action on one record in every mess's trail, oldest first (e.g. a member's moves: each is in the trail of the
   * mess they joined). Reads across messes, read-only.
   */
  everyMess(filter: {
    entity: AuditEntity;
    entityId: string;
    action: string;
  }): Promise<Pick<AuditEventRow, 'messId' | 'before' | 'after'>[]> {
    return this.repository.everyMess(filter);
  }

  /** A page of the trail, newest first, with the actors as ids; and the count of all matches. */
  page(filter: AuditPageFilter): Promise<{ rows: AuditEventRow[]; total: number }> {
    return this.repository.page(filter);
  }
}
