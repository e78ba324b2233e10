import { maskEmail, maskIdentifier } from './masking';

describe('masking', () => {
  it('shows the start of an address and its domain only', () => {
    expect(maskEmail('asha.verma@gmail.com')).toBe('as********@gmail.com');
    expect(maskEmail('ab@x.org')).toBe('a***@x.org');
    expect(maskEmail(undefined)).toBe('');
  });

  it('shows a SID’s prefix and last four characters only', () => {
    const sid = `AC${'0123456789abcdef'.repeat(2)}`;
    const masked = maskIdentifier(sid);
    expect(masked).toBe(`AC${'*'.repeat(28)}cdef`);
    expect(masked).toHaveLength(sid.length);
    expect(maskIdentifier('short')).toBe('*****');
    expect(maskIdentifier(undefined)).toBe('');
  });
});
