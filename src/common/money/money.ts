/**
 * Money is held in integer paise everywhere below the HTTP edge, so sums are exact; the API speaks rupees with at
 * most two decimals.
 */
export const MAX_AMOUNT_RUPEES = 10_000_000; // ten million rupees: far beyond one mess expense, safely inside int4 paise

/** Rupees with at most two decimals → paise; undefined when the value has more precision or is not finite. */
export function toPaise(rupees: number): number | undefined {
  if (!Number.isFinite(rupees)) return undefined;
  const paise = Math.round(rupees * 100);
  // 0.1 * 100 = 10.000000000000002: accept float noise, refuse a real third decimal
  if (Math.abs(paise - rupees * 100) > 1e-6) return undefined;
  return paise;
}

export const toRupees = (paise: number | bigint | string): number => Number(paise) / 100;

/**
 * An exact decimal as PostgreSQL `numeric` returns it (`'600000.00'`, `'-12.5'`) → paise, without passing through a
 * float (large amounts times 100 are not exact in binary). Undefined for anything else or more than two decimals.
 */
export function decimalTextToPaise(text: string): number | undefined {
  const m = /^(-?)(\d+)(?:\.(\d{1,2})0*)?$/.exec(text.trim());
  if (!m) return undefined;
  const paise = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] && paise ? -paise : paise;
}
