import { Injectable } from '@nestjs/common';
import type * as QrCodes from 'qrcode';
import { type CurrentMember } from '../../common/auth/auth.decorators';
import { can } from '../../common/auth/permissions';
import { ApiError, badRequest, conflict, notFound } from '../../common/errors/api-error';
import { optionalPackage } from '../../common/runtime/optional-package';
import { AuditTrail } from '../audit-trail';
import { MessConfigService } from '../mess-config';
import { AccountsQueries } from './accounts.queries';
import { AccountsRepository } from './accounts.repository';
import type { AccountEntryRow } from './accounts.schema';
import { outsidePayment, PaymentRecorder } from './payment-recorder';
import { PaymentErrors } from './payments.errors';
import { type ClaimWithName, PaymentsRepository } from './payments.repository';
import type { ClaimStatus, PaymentClaimRow } from './payments.schema';
import type { DbOrTx } from '../../database/database';

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

/** The `tn` (note) of a UPI link: at most 50 characters. */
const NOTE_MAX = 50;

/**
 * Paying by UPI (extension 2.2): the link and QR for what is due, members' claims of their transfers, and the
 * treasurer's decisions on them.
 */
@Injectable()
export class PaymentClaimsService {
  constructor(
    private readonly repository: PaymentsRepository,
    private readonly accounts: AccountsRepository,
    private readonly queries: AccountsQueries,
    private readonly messConfig: MessConfigService,
    private readonly audit: AuditTrail,
    private readonly recorder: PaymentRecorder,
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
        : await this.recorder.recordOnce(
            tx,
            outsidePayment({
              userId: claim.userId,
              amountPaise: claim.amountPaise,
              date: claim.date,
              method: 'upi',
              reference: claim.utr,
              note: claim.note,
              source: 'claim',
              sourceId: claim.id,
              references: [claim.utr],
              actorId,
            }),
          );
      const entryId = recorded?.id ?? byHand ?? (await this.repository.entryOfReference(claim.utr, tx))!;
      await this.decide(tx, actorId, claim, { status: 'accepted', entryId });
      if (recorded) await this.recorder.promiseReceipts(tx, [recorded], () => actorId);
      return { entryId, recorded };
    });
    const entry = result.recorded ?? (await this.repository.findEntry(result.entryId))!;
    const balancePaise = await this.accounts.balanceOf(entry.userId);
    const claim = (await this.repository.findClaim(claimId))!;
    return { claim, entry, balancePaise };
  }

  async reject(actorId: string, claimId: string, reason: string): Promise<ClaimWithName> {
    await this.repository.transaction(async (tx) => {
      const claim = await this.repository.lockClaim(tx, claimId);
      if (!claim) throw notFound(PaymentErrors.claimNotFound);
      if (claim.status === 'accepted') throw conflict(PaymentErrors.acceptedClaim);
      if (claim.status === 'rejected') return;
      await this.decide(tx, actorId, claim, { status: 'rejected', reason });
    });
    return (await this.repository.findClaim(claimId))!;
  }

  /** A pending claim decided, in `tx`, with its audit row (`claim-accepted` / `claim-rejected`). */
  private async decide(
    tx: DbOrTx,
    actorId: string,
    claim: PaymentClaimRow,
    change: { status: 'accepted'; entryId: string } | { status: 'rejected'; reason: string },
  ): Promise<void> {
    await this.repository.decideClaim(tx, claim.id, { ...change, decidedBy: actorId });
    await this.audit.record(tx, {
      actorId,
      action: `claim-${change.status}`,
      entity: 'account',
      entityId: claim.userId,
      before: { claimId: claim.id, status: 'pending' },
      after: { claimId: claim.id, ...change, utr: claim.utr },
    });
  }
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
