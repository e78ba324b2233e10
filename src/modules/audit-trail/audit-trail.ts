import { Injectable } from '@nestjs/common';
import { requestContext } from '../../common/context/request-context';
import type { Database, DbOrTx } from '../../database/database';
import { AuditPageFilter, AuditTrailRepository } from './audit-trail.repository';
import type { AuditEntity, AuditEventRow } from './audit.schema';
import {
  MEMBER_PAGE_SIZE,
  memberRecordsPage,
  type MemberRecordsPage,
} from '../../common/privacy/member-records';

/**
 * Fields that hold a person's own values (decision 0010): a snapshot names people by id and never copies these,
 * so erasure finds nothing of theirs in the trail. A writer that tries is a bug: it fails here, in its tests. A
 * mess's own contact `email` and `phone` (its configuration) are the mess's, so those two are a person's only in
 * the snapshots about a member (`user`, `account`).
 */
export const PERSONAL_FIELDS: ReadonlySet<string> = new Set([
  'fullName',
  'collegeId',
  'room',
  'idpId',
  'comment',
  'leaveReason',
  'passwordHash',
]);
const MEMBER_CONTACT_FIELDS: ReadonlySet<string> = new Set(['email', 'phone']);

function personalKeyIn(value: unknown, member: boolean, depth = 0): string | undefined {
  if (depth > 8 || value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (PERSONAL_FIELDS.has(key) || (member && MEMBER_CONTACT_FIELDS.has(key))) return key;
    const found = personalKeyIn(inner, member, depth + 1);
    if (found) return found;
  }
  return undefined;
}

export function assertByReference(entry: AuditEntry): void {
  const member = entry.entity === 'user' || entry.entity === 'account';
  const key = personalKeyIn(entry.before, member) ?? personalKeyIn(entry.after, member);
  if (key)
    throw new Error(`audit snapshot of ${entry.entity}/${entry.action} copies a personal value: ${key}`);
}

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
    assertByReference(entry);
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
    entries.forEach(assertByReference);
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
  }): Promise<Pick<AuditEventRow, 'messId' | 'at' | 'before' | 'after'>[]> {
    return this.repository.everyMess(filter);
  }

  /** A member's rows in the mess the call runs in, a page at a time (extension 2.3's export; see the repository). */
  async memberPage(userId: string, after?: string): Promise<MemberRecordsPage<AuditEventRow>> {
    const rows = await this.repository.memberPage(userId, after, MEMBER_PAGE_SIZE);
    return memberRecordsPage(rows, MEMBER_PAGE_SIZE, (page) => page);
  }

  /** A page of the trail, newest first, with the actors as ids; and the count of all matches. */
  page(filter: AuditPageFilter): Promise<{ rows: AuditEventRow[]; total: number }> {
    return this.repository.page(filter);
  }
}
