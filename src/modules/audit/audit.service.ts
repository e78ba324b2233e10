import { Injectable } from '@nestjs/common';
import { requestContext } from '../../common/context/request-context';
import { badRequest } from '../../common/errors/api-error';
import { addDays, zonedInstant } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { AUDIT_RANGE_REVERSED } from './audit.errors';
import { AuditEventWithActor, AuditRepository } from './audit.repository';
import type { AuditEntity } from './audit.schema';
import type { ListAuditQuery } from './dto/audit.requests';

export type { AuditEntity } from './audit.schema';
export { AUDIT_ENTITIES } from './audit.schema';

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

/** The audit trail: records changes in the caller's transaction and lists them. Owner of `audit_events`. */
@Injectable()
export class AuditService {
  constructor(
    private readonly repository: AuditRepository,
    private readonly config: AppConfig,
  ) {}

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

  /** A page of the trail, newest first; `from`/`to` are whole days in the mess's time zone. */
  async list(query: ListAuditQuery): Promise<{ rows: AuditEventWithActor[]; total: number }> {
    if (query.from !== undefined && query.to !== undefined && query.to < query.from) {
      throw badRequest('Validation failed', [{ field: 'to', message: AUDIT_RANGE_REVERSED }]);
    }
    const tz = this.config.messTimezone;
    return this.repository.list({
      entity: query.entity,
      entityId: query.entityId,
      actorId: query.actorId,
      since: query.from === undefined ? undefined : zonedInstant(query.from, '00:00', tz),
      until: query.to === undefined ? undefined : zonedInstant(addDays(query.to, 1), '00:00', tz),
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
  }
}
