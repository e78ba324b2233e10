import { formatRupees } from '../../common/money/money';

/** The privacy module's fixed error texts (extension 2.3). */
export const PrivacyErrors = {
  requestPending: 'An erasure request of yours is already pending',
  /** Starts with `Settle the account first` (the text clients have matched since 2.3), then says where and how much. */
  settleFirst: (mess: { messName: string; slug: string }, balancePaise: number) =>
    `Settle the account first: the balance in ${mess.messName} (${mess.slug}) is ${formatRupees(balancePaise)}`,
} as const;
