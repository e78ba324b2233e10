/** The accounts module's error texts: thrown by its service and documented by its controller. */
export const AccountErrors = {
  memberNotFound: 'Member not found',
  entryNotFound: 'Account entry not found',
  notYours: 'You can only read your own account',
  openingExists: 'This member already has an opening balance; correct it with an adjustment',
  alreadyReversed: 'This entry has already been reversed',
  reversalOfReversal: 'A reversal cannot be reversed; record a new entry instead',
  chargeReversal: "A month's charge cannot be reversed here; reopen the month instead",
  keyReused: 'This Idempotency-Key was used with a different request body',
} as const;
