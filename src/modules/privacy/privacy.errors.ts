/** The privacy module's fixed error texts (extension 2.3). */
export const PrivacyErrors = {
  requestPending: 'An erasure request of yours is already pending',
  settleFirst: 'Settle the account first',
} as const;
