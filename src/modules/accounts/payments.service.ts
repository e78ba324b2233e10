import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type * as QrCodes from 'qrcode';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { can } from '../../common/auth/permissions';
import { ApiError, badRequest, conflict, notFound, unavailable } from '../../common/errors/api-error';
import { DomainEventBus } from '../../common/events/domain-event-bus';
import type { PaymentEvent } from '../../common/events/event-map';
import { optionalPackage } from '../../common/runtime/optional-package';
import { inMess } from '../../common/tenancy/mess-scope';
import { localParts } from '../../common/time/dates';
import { AppConfig } from '../../config/app-config';
import type { DbOrTx } from '../../database/database';
import { AuditTrail, type AuditEntry } from '../audit-trail';
import { MessConfigService } from '../mess-config';
import { AccountsQueries } from './accounts.queries';
import { AccountsRepository } from './accounts.repository';
import type { AccountEntryRow, NewAccountEntryRow, PaymentMethod } from './accounts.schema';
import { GATEWAY_NOT_CONFIGURED, PaymentGatewayClient } from './payment-gateway.client';
import { PaymentErrors } from './payments.errors';
import { type ClaimWithName, PaymentsRepository, type ReferenceRow } from './payments.repository';
import type { ClaimStatus, GatewayOrderRow, ReferenceSource } from './payments.schema';
import { readStatement } from './statement-csv';

export interface UpiRequest {
  amount: number;
  upiLink: string;
  qrSvg: string;
}

export interface AcceptResult {
  claim: ClaimWithName;
  entry: AccountEntryRow;
  balancePaise: number;
}

export interface StatementResult {
  rows: number;
  matched: number;
  alreadyRecorded: number;
  unmatched: { line: number; utr: string | null; amountPaise: number | null; reason: UnmatchedReason }[];
}

export type UnmatchedReason = 'no claim' | 'amount differs' | 'bad row';

/** A payment to record from outside: the entry, where it came from, and the references it holds once. */
interface OutsidePayment {
  entry: NewAccountEntryRow & { id: string; amountPaise: number; userId: string; date: string };
  source: ReferenceSource;
  sourceId: string;
  references: string[];
  actorId: string | null;
}

/** The `tn` (note) of a UPI link: at most 50 characters. */
const NOTE_MAX = 50;

/**
 * Paying the mess (extension 2.2): a UPI link and QR for what is due, members' claims of transfers and the
 * treasurer's decisions, the bank statement import, and the payment gateway. Every payment that arrives from
 * outside is recorded once: its reference (UTR, gateway payment id) is inserted into `payment_references` in the
 * transaction that records the entry, and the unique key decides between repeats, however they race.
 */
@Injectable()
export class PaymentsService {
  private readonly logger = new Logger('Payments');

  constructor(
    private readonly repository: PaymentsRepository,
    private readonly accounts: AccountsRepository,
    private readonly queries: AccountsQueries,
    private readonly messConfig: MessConfigService,
    private readonly audit: AuditTrail,
    private readonly events: DomainEventBus,
    private readonly gateway: PaymentGatewayClient,
    private readonly config: AppConfig,
  ) {}

  // ---- UPI ----

  async upi(member: CurrentMember, amountPaise?: number): Promise<UpiRequest & { amountPaise: number }> {
    const mess = await this.messConfig.read();
    if (!mess.upi) throw conflict(PaymentErrors.upiNotSetUp);
    const paise = amountPaise ?? (await this.accounts.balanceOf(member.id));
    if (paise <= 0) throw conflict(PaymentErrors.nothingDue);
    const note = upiNote(mess.messName, member.fullName);
    const upiLink =
      `upi://pay?pa=${rfc3986(mess.upi.vpa)}&pn=${rfc3986(mess.upi.payeeName)}` +
      `&am=${(paise / 100).toFixed(2)}&cu=INR&tn=${rfc3986(note)}`;
    const qrSvg = await optionalPackage<typeof QrCodes>('qrcode').toString(upiLink, {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 4,
    });
    return { amount: paise / 100, amountPaise: paise, upiLink, qrSvg };
  }

  // ---- claims ----

  async createClaim(
    member: CurrentMember,
    input: { amountPaise: number; date: string; utr: string; note?: string },
  ): Promise<ClaimWithName> {
    if (input.date > this.queries.today())
      throw badRequest('Validation failed', [{ field: 'date', message: 'date must not be in the future' }]);
    if (await this.repository.referenceRecorded(input.utr)) throw utrTaken();
    const row = await this.repository.insertClaim({
      userId: member.id,
      amountPaise: input.amountPaise,
      date: input.date,
      utr: input.utr,
      note: input.note ?? null,
    });
    if (!row) throw utrTaken();
    return { ...row, fullName: member.fullName };
  }

  /** Treasurers and admins see every claim (or one member's); anyone else their own. Newest first. */
  claims(
    reader: CurrentMember,
    filter: { status?: ClaimStatus; userId?: string; page: number; limit: number },
  ): Promise<{ rows: ClaimWithName[]; total: number }> {
    const userId = can(reader, 'accounts.manage') ? filter.userId : reader.id;
    return this.repository.claimsPage({ ...filter, userId });
  }

  /**
   * Records the claim's payment (upi, the UTR as reference, the claim's date and amount) with the claim's change and
   * the audit row, in one transaction. The claim's row is locked first: a second accept waits, then answers the
   * same entry and records nothing. A UTR already recorded (a statement, a gateway payment) records nothing either.
   */
  async accept(actorId: string, claimId: string): Promise<AcceptResult> {
    const result = await this.repository.transaction(async (tx) => {
      const claim = await this.repository.lockClaim(tx, claimId);
      if (!claim) throw notFound(PaymentErrors.claimNotFound);
      if (claim.status === 'rejected') throw conflict(PaymentErrors.rejectedClaim);
      if (claim.status === 'accepted') return { entryId: claim.entryId!, recorded: undefined };
      // Recorded by hand meanwhile (a 2.1 payment with the UTR as its reference): the claim is that payment.
      const byHand = await this.repository.paymentWithReference(claim.utr, tx);
      const recorded = byHand
        ? undefined
        : await this.recordOnce(tx, {
            entry: {
              id: randomUUID(),
              userId: claim.userId,
              kind: 'payment',
              direction: 'credit',
              amountPaise: claim.amountPaise,
              date: claim.date,
              method: 'upi',
              reference: claim.utr,
              note: claim.note,
              recordedBy: actorId,
            },
            source: 'claim',
            sourceId: claim.id,
            references: [claim.utr],
            actorId,
          });
      const entryId = recorded?.id ?? byHand ?? (await this.repository.entryOfReference(claim.utr, tx))!;
      await this.repository.decideClaim(tx, claim.id, { status: 'accepted', entryId, decidedBy: actorId });
      await this.audit.record(tx, {
        actorId,
        action: 'claim-accepted',
        entity: 'account',
        entityId: claim.userId,
        before: { claimId: claim.id, status: 'pending' },
        after: { claimId: claim.id, status: 'accepted', entryId, utr: claim.utr },
      });
      return { entryId, recorded };
    });
    const entry = result.recorded ?? (await this.repository.findEntry(result.entryId))!;
    const balancePaise = await this.accounts.balanceOf(entry.userId);
    if (result.recorded) this.publish(entry, balancePaise, actorId);
    const claim = (await this.repository.findClaim(claimId))!;
    return { claim, entry, balancePaise };
  }

  async reject(actorId: string, claimId: string, reason: string): Promise<ClaimWithName> {
    await this.repository.transaction(async (tx) => {
      const claim = await this.repository.lockClaim(tx, claimId);
      if (!claim) throw notFound(PaymentErrors.claimNotFound);
      if (claim.status === 'accepted') throw conflict(PaymentErrors.acceptedClaim);
      if (claim.status === 'rejected') return;
      await this.repository.decideClaim(tx, claim.id, { status: 'rejected', reason, decidedBy: actorId });
      await this.audit.record(tx, {
        actorId,
        action: 'claim-rejected',
        entity: 'account',
        entityId: claim.userId,
        before: { claimId: claim.id, status: 'pending' },
        after: { claimId: claim.id, status: 'rejected', reason, utr: claim.utr },
      });
    });
    return (await this.repository.findClaim(claimId))!;
  }

  // ---- bank statement ----

  /**
   * Every row whose UTR is a pending claim of the same amount accepts that claim; one transaction, the rows matched
   * to the claims and the recorded references in one query, the payments recorded in a few statements.
   */
  async importStatement(actorId: string, csv: string): Promise<StatementResult> {
    const rows = readStatement(csv);
    const readable = rows.filter((r) => r.ok);
    const unmatched: StatementResult['unmatched'] = [];
    let alreadyRecorded = 0;
    const recorded = await this.repository.transaction(async (tx) => {
      const lookups = await this.repository.lookUpStatement(
        tx,
        readable.map((r) => r.utr),
      );
      const seen = new Set<string>();
      const payments: (OutsidePayment & { claimId: string })[] = [];
      for (const row of rows) {
        if (!row.ok) {
          unmatched.push({ line: row.line, utr: row.utr, amountPaise: row.amountPaise, reason: 'bad row' });
          continue;
        }
        const found = lookups.get(row.utr);
        if (seen.has(row.utr) || found?.recorded || found?.claim?.status === 'accepted') {
          alreadyRecorded += 1;
          continue;
        }
        const claim = found?.claim;
        if (!claim || claim.status !== 'pending') {
          unmatched.push({ line: row.line, utr: row.utr, amountPaise: row.amountPaise, reason: 'no claim' });
          continue;
        }
        if (claim.amountPaise !== row.amountPaise) {
          unmatched.push({
            line: row.line,
            utr: row.utr,
            amountPaise: row.amountPaise,
            reason: 'amount differs',
          });
          continue;
        }
        seen.add(row.utr);
        payments.push({
          claimId: claim.id,
          entry: {
            id: randomUUID(),
            userId: claim.userId,
            kind: 'payment',
            direction: 'credit',
            amountPaise: claim.amountPaise,
            date: claim.date,
            method: 'upi',
            reference: row.utr,
            recordedBy: actorId,
          },
          source: 'statement',
          sourceId: `line ${row.line}`,
          references: [row.utr],
          actorId,
        });
      }
      const entries = await this.recordMany(tx, payments);
      const byId = new Set(entries.map((e) => e.id));
      alreadyRecorded += payments.length - entries.length;
      await this.repository.acceptClaims(
        tx,
        payments
          .filter((p) => byId.has(p.entry.id))
          .map((p) => ({ claimId: p.claimId, entryId: p.entry.id })),
        actorId,
      );
      return entries;
    });
    const balances = await this.repository.balancesOf(recorded.map((e) => e.userId));
    // One event for them all: the receipts are queued in batches, not 5,000 notifications racing for the pool.
    if (recorded.length)
      this.events.publish('account.payments-recorded', {
        payments: recorded.map((entry) => this.paymentEvent(entry, balances.get(entry.userId) ?? 0, actorId)),
      });
    return { rows: rows.length, matched: recorded.length, alreadyRecorded, unmatched };
  }

  // ---- gateway ----

  async createOrder(
    member: CurrentMember,
    amountPaise?: number,
  ): Promise<{ order: GatewayOrderRow; keyId: string }> {
    if (!this.gateway.configured) throw unavailable(GATEWAY_NOT_CONFIGURED);
    const paise = amountPaise ?? (await this.accounts.balanceOf(member.id));
    if (paise <= 0) throw conflict(PaymentErrors.nothingDue);
    const receipt = `mess-${randomUUID().slice(0, 18)}`;
    const created = await this.gateway.createOrder({
      amountPaise: paise,
      receipt,
      notes: { userId: member.id, messId: member.messId ?? '', fullName: member.fullName.slice(0, 200) },
    });
    const order = await this.repository.insertOrder({
      userId: member.id,
      gatewayOrderId: created.id,
      amountPaise: paise,
    });
    return { order, keyId: this.gateway.keyId };
  }

  /**
   * A gateway event whose signature verifies. `payment.captured` for one of our orders records one payment to the
   * order's member, in the order's mess; anything else (another event, an order not ours) records nothing.
   * Answers whether a payment was recorded.
   */
  async webhook(raw: Buffer, signature: string | undefined): Promise<boolean> {
    if (!this.gateway.verifies(raw, signature)) throw badRequest(PaymentErrors.badSignature);
    let event: GatewayEvent;
    try {
      event = JSON.parse(raw.toString('utf8')) as GatewayEvent;
    } catch {
      throw badRequest(PaymentErrors.badEvent);
    }
    if (event?.event !== 'payment.captured') return false;
    const payment = event.payload?.payment?.entity;
    if (!payment || typeof payment.id !== 'string' || typeof payment.order_id !== 'string') {
      this.logger.warn('payment.captured without a payment id or order id: ignored');
      return false;
    }
    const order = await this.repository.findOrderAcrossMesses(payment.order_id);
    if (!order) {
      this.logger.warn(`payment.captured for an order that is not ours (${payment.order_id}): ignored`);
      return false;
    }
    const amountPaise = Number(payment.amount);
    if (!Number.isSafeInteger(amountPaise) || amountPaise <= 0) {
      this.logger.warn(`payment.captured ${payment.id} with amount ${payment.amount}: ignored`);
      return false;
    }
    return inMess(order.messId, () => this.recordGatewayPayment(order, payment, amountPaise));
  }

  private async recordGatewayPayment(
    order: GatewayOrderRow,
    payment: GatewayPayment,
    amountPaise: number,
  ): Promise<boolean> {
    const capturedAt = new Date(Number(payment.created_at) * 1000);
    const date = localParts(
      Number.isFinite(capturedAt.getTime()) ? capturedAt : new Date(),
      this.config.messTimezone,
    ).date;
    const rrn = payment.acquirer_data?.rrn;
    const references = [payment.id, ...(typeof rrn === 'string' && /^[0-9]{12}$/.test(rrn) ? [rrn] : [])];
    const entry = await this.repository
      .transaction(async (tx) => {
        const recorded = await this.recordOnce(tx, {
          entry: {
            id: randomUUID(),
            userId: order.userId,
            kind: 'payment',
            direction: 'credit',
            amountPaise,
            date,
            method: gatewayMethod(payment.method),
            reference: payment.id.slice(0, 100),
            recordedBy: null,
          },
          source: 'gateway',
          sourceId: payment.id,
          references,
          actorId: null,
        });
        if (recorded) await this.repository.markOrderPaid(tx, order.id);
        return recorded;
      })
      .catch((error: unknown) => {
        if (error instanceof PartlyRecorded) return undefined;
        throw error;
      });
    if (!entry) return false;
    this.publish(entry, await this.accounts.balanceOf(entry.userId), order.userId);
    return true;
  }

  // ---- recording once ----

  /**
   * Inserts the payment's references, then (when every one was new) its entry and audit row, in `tx`. Undefined,
   * recording nothing, when a reference is already held: by a payment recorded before, or by one being recorded by
   * a transaction still running (the insert waits for it).
   */
  private async recordOnce(tx: DbOrTx, payment: OutsidePayment): Promise<AccountEntryRow | undefined> {
    const [entry] = await this.recordMany(tx, [payment]);
    return entry;
  }

  /** `recordOnce` for many payments in a few statements; answers the entries recorded. */
  private async recordMany(tx: DbOrTx, payments: OutsidePayment[]): Promise<AccountEntryRow[]> {
    if (!payments.length) return [];
    const refs: ReferenceRow[] = payments.flatMap((p) =>
      p.references.map((reference) => ({
        reference,
        entryId: p.entry.id,
        source: p.source,
        sourceId: p.sourceId,
      })),
    );
    const inserted = await this.repository.insertReferences(tx, refs);
    const whole = payments.filter((p) => p.references.every((r) => inserted.has(r)));
    if (whole.length < payments.length && payments.some((p) => p.references.some((r) => inserted.has(r)))) {
      // A payment with one reference new and another held (a gateway payment whose UPI reference a statement
      // recorded): it is recorded already. Its new references go back out of the table with the transaction.
      const partial = payments.filter((p) => !whole.includes(p) && p.references.some((r) => inserted.has(r)));
      if (partial.length) throw new PartlyRecorded();
    }
    const entries = await this.repository.insertEntries(
      tx,
      whole.map((p) => p.entry),
    );
    const sources = new Map(whole.map((p) => [p.entry.id, p]));
    await this.audit.recordMany(
      tx,
      entries.map((entry): AuditEntry => {
        const p = sources.get(entry.id)!;
        return {
          actorId: p.actorId,
          action: 'payment-recorded',
          entity: 'account',
          entityId: entry.userId,
          after: {
            entryId: entry.id,
            kind: entry.kind,
            direction: entry.direction,
            amountPaise: entry.amountPaise,
            date: entry.date,
            method: entry.method,
            reference: entry.reference,
            note: entry.note,
            source: p.source,
            ...(p.source === 'claim' ? { claimId: p.sourceId } : {}),
            ...(p.source === 'statement' ? { statementLine: p.sourceId } : {}),
            ...(p.source === 'gateway' ? { gatewayPaymentId: p.sourceId } : {}),
          },
        };
      }),
    );
    return entries;
  }

  private publish(entry: AccountEntryRow, balancePaise: number, actorId: string): void {
    this.events.publish('account.payment-recorded', this.paymentEvent(entry, balancePaise, actorId));
  }

  private paymentEvent(entry: AccountEntryRow, balancePaise: number, actorId: string): PaymentEvent {
    return {
      entryId: entry.id,
      userId: entry.userId,
      amountPaise: entry.amountPaise,
      date: entry.date,
      method: entry.method ?? 'other',
      reference: entry.reference,
      balancePaise,
      actorId,
    };
  }
}

/** Thrown inside a transaction to roll back the references a payment recorded elsewhere would have added. */
class PartlyRecorded extends ApiError {
  constructor() {
    super(200, 'Already recorded');
  }
}

interface GatewayPayment {
  id: string;
  order_id: string;
  amount: number;
  method?: string;
  created_at?: number;
  acquirer_data?: { rrn?: string };
}

interface GatewayEvent {
  event?: string;
  payload?: { payment?: { entity?: GatewayPayment } };
}

function gatewayMethod(method: string | undefined): PaymentMethod {
  if (method === 'upi' || method === 'card') return method;
  if (method === 'netbanking') return 'bank';
  return 'other';
}

function utrTaken(): ApiError {
  return new ApiError(409, PaymentErrors.utrTaken, [
    { field: 'utr', message: 'utr is already claimed or recorded as a payment in this mess' },
  ]);
}

/** RFC 3986 percent-encoding: every byte but the unreserved characters (A–Z a–z 0–9 - . _ ~). */
export function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `<mess> - <member>` in at most 50 characters (the member's name shortened first). */
export function upiNote(messName: string, fullName: string): string {
  const mess = [...messName].slice(0, 30).join('');
  const room = NOTE_MAX - [...mess].length - 3;
  return `${mess} - ${[...fullName].slice(0, Math.max(room, 0)).join('')}`;
}
