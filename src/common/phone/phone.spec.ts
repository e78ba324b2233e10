import { maskPhone, normalizeIndianPhone } from './phone';

describe('normalizeIndianPhone', () => {
  it.each([
    ['+91-9876543210', '+919876543210'],
    ['9876543210', '+919876543210'],
    ['+919876543210', '+919876543210'],
    ['  9876543210 ', '+919876543210'],
  ])('accepts %p as %p', (input, expected) => {
    expect(normalizeIndianPhone(input)).toBe(expected);
  });

  it.each([
    '',
    '987654321',
    '98765432100',
    '+1-9876543210',
    '+91 98765 43210',
    '+91--9876543210',
    'abcdefghij',
    '+92-9876543210',
  ])('rejects %p', (input) => {
    expect(normalizeIndianPhone(input)).toBeUndefined();
  });
});

describe('maskPhone', () => {
  it('keeps only the last four digits', () => {
    expect(maskPhone('+919876543210')).toBe('*********3210');
    expect(maskPhone(null)).toBe('');
  });
});
