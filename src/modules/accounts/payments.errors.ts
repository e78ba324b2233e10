/** The payment routes' error texts (extension 2.2, "Paying the mess"): thrown by the service, documented by the controller. */
export const PaymentErrors = {
  upiNotSetUp: 'UPI payments are not set up for this mess',
  nothingDue: 'Nothing is due on your account; name an amount to pay in advance',
  utrTaken: 'This UTR is already claimed or recorded in this mess',
  claimNotFound: 'Payment claim not found',
  rejectedClaim: 'A rejected claim cannot be accepted',
  acceptedClaim: 'An accepted claim cannot be rejected; reverse its payment instead',
  badSignature: 'Invalid webhook signature',
  badEvent: 'Malformed webhook event',
} as const;
