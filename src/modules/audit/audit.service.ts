import { Injectable } from '@nestjs/common';
import { badRequest } from '../../common/errors/api-error';
import { addDays, zonedInstant } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import { AuditTrail, type AuditEventRow } from '../audit-trail';
import { UsersService } from '../users';
import { AUDIT_RANGE_REVERSED } from './audit.errors';
import type { ListAuditQuery } from './dto/audit.requests';
import { type AuditEventDto, toAuditEventResponse } from './dto/audit.response';
import type { MemberRecordsPage } from '../../common/privacy/member-records';

export interface AuditEventWithActor {
  event: AuditEventRow;
  /** Null when the service itself made the change (no actor). */
  actorName: string | null;
}

/** Reads the audit trail for GET /api/audit: a page from the trail, and its actors' names from the users module. */
@Injectable()
export class AuditService {
  constructor(
    private readonly trail: AuditTrail,
    private readonly users: UsersService,
    private readonly config: AppConfig,
  ) {}

  /**
   * The rows of the trail about a member in the mess the call runs in (their membership and account, and the
   * records whose snapshot names them), as `GET /audit` lists them, a page at a time: their data export.
   */
  async memberEvents(userId: string, after?: string): Promise<MemberRecordsPage<AuditEventDto>> {
    const page = await this.trail.memberPage(userId, after);
    const actorIds = [...new Set(page.records.flatMap((row) => (row.actorId === null ? [] : [row.actorId])))];
    const names = await this.users.namesOf(actorIds);
    return {
      records: page.records.map((event) =>
        toAuditEventResponse({
          event,
          actorName: event.actorId === null ? null : (names.get(event.actorId) ?? null),
        }),
      ),
      next: page.next,
    };
  }

  /** A page of the trail, newest first; `from`/`to` are whole days in the mess's time zone. */
  async list(query: ListAuditQuery): Promise<{ rows: AuditEventWithActor[]; total: number }> {
    if (query.from !== undefined && query.to !== undefined && query.to < query.from) {
      throw badRequest('Validation failed', [{ field: 'to', message: AUDIT_RANGE_REVERSED }]);
    }
    const tz = this.config.messTimezone;
    const { rows, total } = await this.trail.page({
      entity: query.entity,
      entityId: query.entityId,
      actorId: query.actorId,
      since: query.from === undefined ? undefined : zonedInstant(query.from, '00:00', tz),
      until: query.to === undefined ? undefined : zonedInstant(addDays(query.to, 1), '00:00', tz),
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
    const actorIds = [...new Set(rows.flatMap((row) => (row.actorId === null ? [] : [row.actorId])))];
    const names = await this.users.namesOf(actorIds);
    return {
      rows: rows.map((event) => ({
        event,
        actorName: event.actorId === null ? null : (names.get(event.actorId) ?? null),
      })),
      total,
    };
  }
}
