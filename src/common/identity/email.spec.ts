import { emailLookAlikeProblem, hiddenTextProblem, normalizeEmail } from './email';

describe('normalizeEmail', () => {
  it.each([
    ['  Student@College.EDU ', 'student@college.edu'],
    ['ｓtudent@college.edu', 'student@college.edu'],
    ['ＳＴＵＤＥＮＴ@college.edu', 'student@college.edu'],
    ['cafe\u0301@college.edu', 'café@college.edu'],
    ['café@college.edu', 'café@college.edu'],
  ])('%j is %j', (input, expected) => {
    expect(normalizeEmail(input)).toBe(expected);
  });
});

describe('emailLookAlikeProblem', () => {
  it.each([
    ['st\u0430ff@college.edu', /different scripts/], // Cyrillic а
    ['staff@coll\u0435ge.edu', /different scripts/], // Cyrillic е in the domain
    ['st\u200Baff@college.edu', /invisible/],
    ['st\u200Daff@college.edu', /invisible/],
    ['st\u00ADaff@college.edu', /invisible/],
    ['\u202Estaff@college.edu', /invisible/],
  ])('refuses %j', (email, message) => {
    expect(emailLookAlikeProblem(normalizeEmail(email))).toMatch(message);
  });

  it.each(['student@college.edu', 'café@college.edu', 'аша@college.edu', 'asha.v+mess@college.edu'])(
    'accepts %j',
    (email) => expect(emailLookAlikeProblem(normalizeEmail(email))).toBeUndefined(),
  );
});

describe('hiddenTextProblem', () => {
  it('refuses bidi controls and invisible characters', () => {
    expect(hiddenTextProblem('Asha \u202EamreV')).toBe('bidi');
    expect(hiddenTextProblem('As\u200Bha')).toBe('invisible');
    expect(hiddenTextProblem('As\u00ADha')).toBe('invisible');
    expect(hiddenTextProblem('As\u200Dha')).toBe('invisible');
  });

  it('keeps joiners where a script or an emoji needs them', () => {
    expect(hiddenTextProblem('ന്‍')).toBeUndefined(); // Malayalam chillu with ZWJ
    expect(hiddenTextProblem('क्\u200Dष')).toBeUndefined();
    expect(hiddenTextProblem('👨\u200D🍳 special')).toBeUndefined();
    expect(hiddenTextProblem('Asha Verma')).toBeUndefined();
  });
});
