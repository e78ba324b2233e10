import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import type { MemberRecordsPage } from '../../common/privacy/member-records';
import { inMess } from '../../common/tenancy/mess-scope';
import { Clock } from '../../common/time/clock';
import { AccountsMemberData } from '../accounts';
import { AttendanceMemberData } from '../attendance';
import { AuditService } from '../audit';
import { ExtrasMemberData } from '../extras';
import { FeedbackMemberData } from '../feedback';
import { LeaveMemberData } from '../leave';
import { type MembershipPeriod, type MessLabel, MessDirectory, PastMesses } from '../messes';
import { NotificationsMemberData } from '../notifications';
import { TermsMemberData } from '../terms';
import { MembershipPeriods, toUserResponse, type UserRow } from '../users';

/** One module's pages of a member's records in the mess the call runs in. */
type Reader = (userId: string, after?: string) => Promise<MemberRecordsPage<unknown>>;

/**
 * A member's data (extension 2.3, `GET /users/me/data`): one JSON document, written as it is read, so a member with
 * years of history never sits in memory whole. Every module's records come through that module's own reader
 * (`…MemberData`, the audit module's `memberEvents`), a page at a time, in each mess the member belonged to, read
 * in that mess (`inMess`: row-level security shows each reader that mess's rows alone). Nothing secret is in it: the
 * user as `GET /users/:id` shows them (no password hash, token version or reset link), notifications without text.
 */
@Injectable()
export class MemberDataExport {
  constructor(
    private readonly clock: Clock,
    private readonly messes: MessDirectory,
    private readonly pastMesses: PastMesses,
    private readonly attendance: AttendanceMemberData,
    private readonly feedback: FeedbackMemberData,
    private readonly leave: LeaveMemberData,
    private readonly extras: ExtrasMemberData,
    private readonly accounts: AccountsMemberData,
    private readonly notifications: NotificationsMemberData,
    private readonly audit: AuditService,
    private readonly terms: TermsMemberData,
    private readonly membershipPeriods: MembershipPeriods,
  ) {}

  /** The document as a stream of JSON text; `user` is the member's row as read just before. */
  stream(user: UserRow): Readable {
    return Readable.from(this.document(user), { objectMode: false });
  }

  private async *document(user: UserRow): AsyncGenerator<string> {
    const labels = await this.messes.labels();
    const label = (messId: string): MessLabel =>
      labels.get(messId) ?? { _id: messId, slug: '', messName: '' };
    const periods = await this.memberships(user);
    const messIds = [...new Set(periods.map((p) => p.messId))];
    const json = (value: unknown) => JSON.stringify(value);
    yield `{"exportedAt":${json(this.clock.now().toISOString())},"user":${json(toUserResponse(user, labels))}`;
    yield `,"memberships":${json(
      periods.map((p) => ({
        mess: label(p.messId),
        from: p.from.toISOString(),
        to: p.to?.toISOString() ?? null,
      })),
    )}`;
    const lists: [string, Reader][] = [
      ['attendance', (id, after) => this.attendance.page(id, after)],
      ['feedback', (id, after) => this.feedback.page(id, after)],
      ['leaves', (id, after) => this.leave.page(id, after)],
      ['extras', (id, after) => this.extras.page(id, after)],
      ['paymentClaims', (id, after) => this.accounts.claims(id, after)],
      ['gatewayOrders', (id, after) => this.accounts.gatewayOrders(id, after)],
      ['notifications', (id, after) => this.notifications.page(id, after)],
      ['auditEvents', (id, after) => this.audit.memberEvents(id, after)],
    ];
    for (const [key, read] of lists) {
      yield `,${json(key)}:[`;
      let first = true;
      for (const messId of messIds) {
        for await (const chunk of this.pages(user.id, messId, read)) {
          yield (first ? '' : ',') + chunk;
          first = false;
        }
      }
      yield ']';
    }
    // A ledger per mess, by slug: each mess's entries are its own account.
    yield ',"accountEntries":{';
    let firstMess = true;
    for (const messId of messIds) {
      yield `${firstMess ? '' : ','}${json(label(messId).slug || messId)}:[`;
      firstMess = false;
      let first = true;
      for await (const chunk of this.pages(user.id, messId, (id, after) =>
        this.accounts.entries(id, after),
      )) {
        yield (first ? '' : ',') + chunk;
        first = false;
      }
      yield ']';
    }
    yield '}';
    const preferences = await inMess(user.messId, () => this.notifications.preferences(user.id));
    // Term choices (the deployment's tables, not one mess's): one per window, a few.
    const choices = await this.terms.choices(user.id);
    yield `,"preferences":${json(preferences)},"choices":${json(choices)}}`;
  }

  /**
   * The messes the member belonged to, oldest first: each move ends one and starts the next; the first starts at
   * their approval into it (the start of their membership period there), or at registration if never approved.
   */
  private async memberships(user: UserRow): Promise<MembershipPeriod[]> {
    const periods = await this.pastMesses.periods(user.id, user.messId, user.createdAt);
    const [first, ...later] = periods;
    const approved = await inMess(first.messId, () => this.membershipPeriods.firstStart(user.id));
    // Back in that mess later, the first start must be this period's (not a pending member's later return).
    const back = later.some((p) => p.messId === first.messId);
    if (approved && (!back || (first.to !== null && approved <= first.to))) first.from = approved;
    return periods;
  }

  /** Each page of one reader in one mess, as JSON text of its records joined by commas (none for an empty page). */
  private async *pages(userId: string, messId: string, read: Reader): AsyncGenerator<string> {
    let after: string | undefined;
    do {
      const page = await inMess(messId, () => read(userId, after));
      if (page.records.length) yield page.records.map((record) => JSON.stringify(record)).join(',');
      after = page.next;
    } while (after !== undefined);
  }
}
