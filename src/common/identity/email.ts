/**
 * One spelling per address: compatibility-composed (NFKC: a fullwidth `ｓ` is `s`, `é` typed as `e` + accent is
 * `é`), trimmed and lower-cased. Uniqueness, login and look-ups all use this form, so two spellings of one address
 * are one account.
 */
export const normalizeEmail = (email: string): string => email.normalize('NFKC').trim().toLowerCase();

/** Format characters (zero-width space and joiners, soft hyphen, bidi controls…): invisible, never in an address. */
const INVISIBLE = /\p{Cf}/u;

/** Scripts a label's letters may come from; a label mixing two of them (Latin `staff` with a Cyrillic `а`) is a look-alike. */
const SCRIPTS = [
  /\p{Script=Latin}/u,
  /\p{Script=Cyrillic}/u,
  /\p{Script=Greek}/u,
  /\p{Script=Armenian}/u,
  /\p{Script=Georgian}/u,
  /\p{Script=Cherokee}/u,
  /\p{Script=Devanagari}/u,
  /\p{Script=Bengali}/u,
  /\p{Script=Tamil}/u,
  /\p{Script=Telugu}/u,
  /\p{Script=Kannada}/u,
  /\p{Script=Malayalam}/u,
  /\p{Script=Gujarati}/u,
  /\p{Script=Gurmukhi}/u,
  /\p{Script=Oriya}/u,
  /\p{Script=Arabic}/u,
  /\p{Script=Hebrew}/u,
  /\p{Script=Han}/u,
  /\p{Script=Hangul}/u,
  /\p{Script=Thai}/u,
];

const scriptsOf = (label: string): Set<number> => {
  const found = new Set<number>();
  for (const char of label) {
    if (!/\p{L}/u.test(char)) continue;
    const index = SCRIPTS.findIndex((script) => script.test(char));
    found.add(index); // -1: a script not listed, which still counts as one more
  }
  return found;
};

/** Why an (already normalized) address cannot be an account's, or undefined when it can. */
export function emailLookAlikeProblem(email: string): string | undefined {
  if (INVISIBLE.test(email)) return 'email must not contain invisible or direction-control characters';
  for (const label of email.split(/[@.+]/)) {
    if (scriptsOf(label).size > 1) return 'email must not mix letters of different scripts in one part';
  }
  return undefined;
}

/** Bidirectional controls (LRE…RLO, LRI…PDI, LRM, RLM, ALM): they reorder how a name reads in every list and bill. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;
/** Zero-width joiner and non-joiner: needed inside Indic words and emoji sequences, invisible elsewhere. */
const JOINERS = /[\u200C\u200D]/u;
const JOINABLE = /[\p{L}\p{M}\p{Extended_Pictographic}\uFE0F]/u;

/** Why a single-line text (a name, a room) would display other than it reads, or undefined when it is plain. */
export function hiddenTextProblem(text: string): 'bidi' | 'invisible' | undefined {
  if (BIDI_CONTROLS.test(text)) return 'bidi';
  const chars = [...text];
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i];
    if (!INVISIBLE.test(char)) continue;
    if (!JOINERS.test(char)) return 'invisible';
    // A joiner is kept only after a letter (or mark or emoji) that is not ASCII, where scripts need it (Malayalam's
    // chillu ends a word with one), and before another such letter or the end of the word.
    const joins = (c: string | undefined) => c !== undefined && c > '\u007F' && JOINABLE.test(c);
    const after = chars[i + 1];
    if (!joins(chars[i - 1]) || !(after === undefined || /\s/u.test(after) || joins(after)))
      return 'invisible';
  }
  return undefined;
}
