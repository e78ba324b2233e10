import { currentMessId, FIRST_MESS_ID, inMess, messIdIfAny, NoMessError } from './mess-scope';

const OTHER = '0b0b0b0b-0000-4000-8000-00000000000b';

describe('the mess the running code acts in', () => {
  it('is none outside a request or inMess: currentMessId throws, it never falls back to the first mess', () => {
    expect(() => currentMessId()).toThrow(NoMessError);
    expect(messIdIfAny()).toBeUndefined();
  });

  it('is the entered one inside inMess, through every await, and none again after it', async () => {
    const seen = await inMess(OTHER, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return [currentMessId(), await inMess(FIRST_MESS_ID, async () => currentMessId()), currentMessId()];
    });
    expect(seen).toEqual([OTHER, FIRST_MESS_ID, OTHER]);
    expect(messIdIfAny()).toBeUndefined();
  });

  it('runs a lazy thenable (a query builder) in the mess, though the caller awaits it outside', async () => {
    const builder = { then: (resolve: (value: string) => void) => resolve(currentMessId()) };
    await expect(inMess(OTHER, () => builder)).resolves.toBe(OTHER);
  });

  it('refuses what is not a mess id', () => {
    expect(() => inMess("x'; drop table users; --", () => 1)).toThrow('not a mess id');
  });
});
