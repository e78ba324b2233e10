/** What the configuration check may show of a setting: enough to recognise it, never enough to use it. */

/** `asha.verma@gmail.com` → `as********@gmail.com`. */
export function maskEmail(email: string | undefined): string {
  if (!email) return '';
  const at = email.lastIndexOf('@');
  if (at <= 0) return '*'.repeat(Math.min(email.length, 8));
  const local = email.slice(0, at);
  const visible = local.length > 2 ? 2 : 1;
  return `${local.slice(0, visible)}${'*'.repeat(Math.max(local.length - visible, 3))}${email.slice(at)}`;
}

/** An identifier such as an account SID: its two-letter prefix and last four characters. */
export function maskIdentifier(value: string | undefined): string {
  if (!value) return '';
  if (value.length <= 8) return '*'.repeat(value.length);
  return `${value.slice(0, 2)}${'*'.repeat(value.length - 6)}${value.slice(-4)}`;
}
