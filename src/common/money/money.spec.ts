import { decimalTextToPaise, toPaise, toRupees } from './money';

describe('money', () => {
  it('converts rupees with up to two decimals exactly', () => {
    expect(toPaise(0.1)).toBe(10);
    expect(toPaise(0.2)).toBe(20);
    expect(toPaise(1234.56)).toBe(123456);
    expect(toPaise(19.99)).toBe(1999);
    expect(toPaise(1.005)).toBeUndefined();
    expect(toPaise(Number.NaN)).toBeUndefined();
    expect(toPaise(Infinity)).toBeUndefined();
  });

  it('sums without float drift', () => {
    const total = [0.1, 0.2].map((r) => toPaise(r)!).reduce((a, b) => a + b, 0);
    expect(toRupees(total)).toBe(0.3);
    expect(toRupees('123456')).toBe(1234.56);
  });

  it('reads exact decimal text (PostgreSQL numeric) as paise without a float', () => {
    expect(decimalTextToPaise('600000.00')).toBe(60_000_000);
    expect(decimalTextToPaise('9999999999.99')).toBe(999_999_999_999);
    expect(decimalTextToPaise('12.5')).toBe(1250);
    expect(decimalTextToPaise('7')).toBe(700);
    expect(decimalTextToPaise('-0.05')).toBe(-5);
    expect(decimalTextToPaise('-0.00')).toBe(0);
    expect(decimalTextToPaise('1.250')).toBe(125);
    expect(decimalTextToPaise('1.255')).toBeUndefined();
    expect(decimalTextToPaise('1e3')).toBeUndefined();
    expect(decimalTextToPaise('')).toBeUndefined();
  });
});
