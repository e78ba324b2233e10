import { assertByReference } from './audit-trail';

describe('audit snapshots name people by reference (decision 0010)', () => {
  const entry = (entity: 'user' | 'config' | 'leave' | 'account', after: unknown) => ({
    actorId: null,
    action: 'changed',
    entity,
    entityId: 'x',
    after,
  });

  it('accepts ids, statuses, dates and paise', () => {
    expect(() =>
      assertByReference(entry('leave', { userId: 'u1', startDate: '2030-01-01', days: 2 })),
    ).not.toThrow();
    expect(() => assertByReference(entry('user', { status: 'approved', role: 'student' }))).not.toThrow();
  });

  it("accepts a mess's own contact email and phone in its configuration", () => {
    expect(() =>
      assertByReference(entry('config', { email: 'mess@college.edu', phone: '+918012345678' })),
    ).not.toThrow();
  });

  it.each([
    ['a name', entry('leave', { fullName: 'Asha Verma' }), 'fullName'],
    ['a college id deep inside', entry('leave', { member: [{ collegeId: 'CS21B042' }] }), 'collegeId'],
    ['a comment', entry('leave', { comment: 'Cold dal' }), 'comment'],
    ["a member's email", entry('user', { email: 'asha@college.edu' }), 'email'],
    ["a member's phone on their account", entry('account', { phone: '+919876543210' }), 'phone'],
  ])('refuses %s', (_case, bad, key) => {
    expect(() => assertByReference(bad)).toThrow(new RegExp(`personal value: ${key}`));
  });
});
