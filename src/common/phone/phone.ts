/**
 * The contract's phone rule: `+91-XXXXXXXXXX` or a bare 10-digit number, stored as E.164 `+91XXXXXXXXXX`.
 * The already-normalized form is accepted too, so a client can send back what it read.
 * Returns undefined for anything else.
 */
export function normalizeIndianPhone(input: string): string | undefined {
  const trimmed = input.trim();
  const match = /^(?:\+91-?)?(\d{10})$/.exec(trimmed);
  return match ? `+91${match[1]}` : undefined;
}

/** For logs: never a full number. */
export function maskPhone(phone: string | null | undefined): string {
  if (!phone) return '';
  return phone.length > 4 ? `${'*'.repeat(phone.length - 4)}${phone.slice(-4)}` : '****';
}
