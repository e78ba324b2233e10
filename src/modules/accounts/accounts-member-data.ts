import { Injectable } from '@nestjs/common';
import {
  MEMBER_PAGE_SIZE,
  memberRecordsPage,
  type MemberRecordsPage,
} from '../../common/privacy/member-records';
import { toRupees } from '../../common/money/money';
import type { DbOrTx } from '../../database/database';
import { type EntryDto, toEntryDto } from './dto/accounts.response';
import { type ClaimDto, toClaimDto } from './dto/payments.dto';
import { AccountsRepository } from './accounts.repository';
import { PaymentsRepository } from './payments.repository';

/** A gateway order as the member's export shows it (the gateway's order id, the amount in rupees). */
export interface GatewayOrderRecord {
  _id: string;
  orderId: string;
  amount: number;
  status: string;
  createdAt: string;
}

/**
 * A member's account in the mess the call runs in (extension 2.3): their entries, claims and gateway orders for the
 * export, the balance erasure must find at zero, and their claim notes' erasure.
 */
@Injectable()
export class AccountsMemberData {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly payments: PaymentsRepository,
  ) {}

  async entries(userId: string, after?: string): Promise<MemberRecordsPage<EntryDto>> {
    const rows = await this.accounts.memberPage(userId, after, MEMBER_PAGE_SIZE);
    return memberRecordsPage(rows, MEMBER_PAGE_SIZE, (page) => page.map(toEntryDto));
  }

  async claims(userId: string, after?: string): Promise<MemberRecordsPage<ClaimDto>> {
    const rows = await this.payments.memberClaims(userId, after, MEMBER_PAGE_SIZE);
    return memberRecordsPage(rows, MEMBER_PAGE_SIZE, (page) => page.map(toClaimDto));
  }

  async gatewayOrders(userId: string, after?: string): Promise<MemberRecordsPage<GatewayOrderRecord>> {
    const rows = await this.payments.memberOrders(userId, after, MEMBER_PAGE_SIZE);
    return memberRecordsPage(rows, MEMBER_PAGE_SIZE, (page) =>
      page.map((order) => ({
        _id: order.id,
        orderId: order.gatewayOrderId,
        amount: toRupees(order.amountPaise),
        status: order.status,
        createdAt: order.createdAt.toISOString(),
      })),
    );
  }

  /** The member's balance in the mess `tx` acts in (paise; positive: they owe). */
  balanceOf(userId: string, tx: DbOrTx): Promise<number> {
    return this.accounts.balanceOf(userId, tx);
  }

  /**
   * In the erasure's transaction: the member's claim notes emptied, and the notes of their entries that came from
   * those claims or hold one of their values (read from their row by the database); amounts, dates and UTRs kept.
   */
  async erase(tx: DbOrTx, userId: string): Promise<void> {
    await this.accounts.eraseNotes(tx, userId);
    await this.payments.eraseClaimNotes(tx, userId);
  }
}
