import { toPaise, toRupees } from './money';

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
});
