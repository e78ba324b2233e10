import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsNumber,
  IsUUID,
  IsPositive,
  Max,
  IsEmail,
  IsString,
  Length,
  Matches,
  MaxLength,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';
import { MAX_AMOUNT_RUPEES, toPaise } from '../money/money';
import { isCalendarDate, isMonth } from '../time/dates';
import { normalizeIndianPhone } from '../phone/phone';
import { emailLookAlikeProblem, hiddenTextProblem, normalizeEmail } from '../identity/email';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

interface FieldOptions {
  description?: string;
  example?: unknown;
  optional?: boolean;
}

interface TextFieldOptions extends FieldOptions {
  /** Free text (comments, notes, descriptions): tab, line feed and carriage return are allowed. */
  multiline?: boolean;
}

/* eslint-disable no-control-regex -- these patterns exist to find control characters */
/** Every C0 control character and DEL: never part of a name, an id or any single-line value. */
const CONTROL_CHARACTERS = /[\u0000-\u001F\u007F]/;
/** The same minus tab, LF and CR, which free text may hold. NUL stays refused (PostgreSQL text cannot hold it). */
const CONTROL_CHARACTERS_EXCEPT_NEWLINES = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
/* eslint-enable no-control-regex */

@ValidatorConstraint({ name: 'noControlCharacters' })
class NoControlCharactersConstraint implements ValidatorConstraintInterface {
  validate(value: unknown, args?: ValidationArguments): boolean {
    if (typeof value !== 'string') return true; // IsString reports the type
    const multiline = (args?.constraints?.[0] as boolean | undefined) ?? false;
    return !(multiline ? CONTROL_CHARACTERS_EXCEPT_NEWLINES : CONTROL_CHARACTERS).test(value);
  }
  defaultMessage(args?: ValidationArguments): string {
    const multiline = (args?.constraints?.[0] as boolean | undefined) ?? false;
    const property = args?.property ?? 'value';
    return multiline
      ? `${property} must not contain control characters other than tab and line breaks`
      : `${property} must not contain control characters`;
  }
}

/**
 * Refuses C0 control characters (and DEL) in a string, or in each string of an array with `{each: true}`.
 * `multiline` allows tab, LF and CR. A NUL would otherwise reach PostgreSQL and fail there (SQLSTATE 22021).
 */
export const NoControlCharacters = (multiline = false, options: ValidationOptions = {}) =>
  Validate(NoControlCharactersConstraint, [multiline], options);

@ValidatorConstraint({ name: 'notNull' })
class NotNullConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return value !== null;
  }
  defaultMessage(args?: ValidationArguments): string {
    return `${args?.property ?? 'value'} must not be null; leave it out instead`;
  }
}

/**
 * An optional field: it may be left out, but `null` is refused with its own `details` entry (class-validator's
 * IsOptional lets null through every rule, which then reached the services as a value). Use this instead of
 * IsOptional for every optional request field.
 */
export const Optional = () =>
  applyDecorators(
    ValidateIf((_object: object, value: unknown) => value !== undefined),
    Validate(NotNullConstraint),
  );

@ValidatorConstraint({ name: 'plainText' })
class PlainTextConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value !== 'string' || hiddenTextProblem(value) === undefined;
  }
  defaultMessage(args?: ValidationArguments): string {
    const property = args?.property ?? 'value';
    return hiddenTextProblem(String(args?.value)) === 'bidi'
      ? `${property} must not contain direction-control characters`
      : `${property} must not contain invisible characters`;
  }
}

/** Refuses text that displays other than it reads: bidi controls, invisible characters (see identity/email.ts). */
export const PlainText = () => Validate(PlainTextConstraint);

@ValidatorConstraint({ name: 'distinctEmail' })
class DistinctEmailConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value !== 'string' || emailLookAlikeProblem(value) === undefined;
  }
  defaultMessage(args?: ValidationArguments): string {
    return emailLookAlikeProblem(String(args?.value)) ?? 'email is not accepted';
  }
}

const doc = (type: unknown, options: FieldOptions & Record<string, unknown>) => {
  const { optional, ...rest } = options;
  return optional
    ? ApiPropertyOptional({ type: type as never, ...rest })
    : ApiProperty({ type: type as never, ...rest });
};
const maybeOptional = (optional?: boolean) => (optional ? [Optional()] : []);

/** A trimmed string of bounded length, without control characters (free text: `multiline` allows line breaks). */
export const TextField = (min: number, max: number, options: TextFieldOptions = {}) => {
  const { multiline = false, ...rest } = options;
  return applyDecorators(
    doc(String, { minLength: min, maxLength: max, ...rest }),
    ...maybeOptional(options.optional),
    Transform(trim),
    IsString(),
    NoControlCharacters(multiline),
    ...(multiline ? [] : [PlainText()]),
    Length(min, max),
  );
};

/**
 * One spelling per address (NFKC, trimmed, lower-cased: `normalizeEmail`), syntactically valid, and no look-alike:
 * invisible or direction-control characters and labels mixing scripts are refused.
 */
export const EmailField = (options: FieldOptions = {}) =>
  applyDecorators(
    doc(String, { format: 'email', maxLength: 254, example: 'asha@college.edu', ...options }),
    ...maybeOptional(options.optional),
    Transform(({ value }) => (typeof value === 'string' ? normalizeEmail(value) : value)),
    IsString(),
    NoControlCharacters(),
    MaxLength(254),
    Validate(DistinctEmailConstraint),
    IsEmail({}, { message: 'email must be a valid email address' }),
  );

/** `+91-XXXXXXXXXX` or 10 digits in, `+91XXXXXXXXXX` out. */
export const IndianPhoneField = (options: FieldOptions = {}) =>
  applyDecorators(
    doc(String, {
      description: 'Input as +91-XXXXXXXXXX or a 10-digit number; stored and returned as +91XXXXXXXXXX.',
      example: '+91-9876543210',
      ...options,
    }),
    ...maybeOptional(options.optional),
    Transform(({ value }) => (typeof value === 'string' ? (normalizeIndianPhone(value) ?? value) : value)),
    IsString(),
    Matches(/^\+91\d{10}$/, { message: 'phone must be +91-XXXXXXXXXX or a 10-digit number' }),
  );

/** The first element of `values` that an earlier one already named (strings ignoring case), or undefined. */
function firstRepeated(values: unknown[]): { id: unknown } | undefined {
  const seen = new Set<unknown>();
  for (const id of values) {
    // Any element may be anything a JSON body holds: only strings have a case to ignore (IsUUID reports the rest).
    const key = typeof id === 'string' ? id.toLowerCase() : id;
    if (seen.has(key)) return { id };
    seen.add(key);
  }
  return undefined;
}

@ValidatorConstraint({ name: 'distinctIds' })
class DistinctIdsConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return !Array.isArray(value) || firstRepeated(value) === undefined; // IsArray reports a non-array
  }
  defaultMessage(args?: ValidationArguments): string {
    const property = args?.property ?? 'ids';
    const repeated = Array.isArray(args?.value) ? firstRepeated(args.value as unknown[]) : undefined;
    return repeated ? `${property} names ${String(repeated.id)} twice` : `${property} must not name the same id twice`;
  }
}

/**
 * A JSON array of `min` to `max` distinct UUIDs (ignoring case). Whatever its elements are (numbers, null, objects,
 * arrays), a bad list is one `details` entry naming the field, as every array field's is.
 */
export const UuidListField = (min: number, max: number, options: FieldOptions = {}) =>
  applyDecorators(
    doc([String], { minItems: min, maxItems: max, ...options }),
    ...maybeOptional(options.optional),
    IsArray(),
    ArrayMinSize(min),
    ArrayMaxSize(max),
    IsUUID('all', { each: true }),
    Validate(DistinctIdsConstraint),
  );

/** bcrypt reads at most this many bytes of a password. */
export const PASSWORD_MAX_BYTES = 72;

@ValidatorConstraint({ name: 'passwordBytes' })
class PasswordBytesConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && Buffer.byteLength(value, 'utf8') <= PASSWORD_MAX_BYTES;
  }
  defaultMessage(args?: ValidationArguments): string {
    return `${args?.property ?? 'password'} must be at most ${PASSWORD_MAX_BYTES} bytes in UTF-8 (accented and non-Latin letters take 2–4 bytes each)`;
  }
}

/**
 * bcrypt reads at most 72 bytes (and stops at a NUL), so longer passwords are refused rather than silently
 * truncated: 8 to 72 characters and at most 72 UTF-8 bytes, no control characters.
 */
export const PasswordField = (options: FieldOptions = {}) =>
  applyDecorators(
    doc(String, {
      format: 'password',
      minLength: 8,
      maxLength: 72,
      description: `8 to 72 characters and at most ${PASSWORD_MAX_BYTES} bytes in UTF-8 (what bcrypt reads)`,
      example: 'correct-horse-battery',
      ...options,
    }),
    ...maybeOptional(options.optional),
    IsString(),
    NoControlCharacters(),
    Length(8, 72, { message: 'password must be 8 to 72 characters long' }),
    Validate(PasswordBytesConstraint),
  );

@ValidatorConstraint({ name: 'calendarDate' })
class CalendarDateConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && isCalendarDate(value);
  }
  defaultMessage(args?: ValidationArguments): string {
    return `${args?.property ?? 'value'} must be a real calendar date written YYYY-MM-DD`;
  }
}

@ValidatorConstraint({ name: 'calendarMonth' })
class CalendarMonthConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && isMonth(value);
  }
  defaultMessage(args?: ValidationArguments): string {
    return `${args?.property ?? 'value'} must be a month written YYYY-MM`;
  }
}

/** `YYYY-MM-DD`, and a date that exists (`2025-02-30` is refused). */
export const DateField = (options: FieldOptions = {}) =>
  applyDecorators(
    doc(String, { format: 'date', example: '2025-03-14', ...options }),
    ...maybeOptional(options.optional),
    Validate(CalendarDateConstraint),
  );

/** `YYYY-MM`. */
export const MonthField = (options: FieldOptions = {}) =>
  applyDecorators(
    doc(String, { pattern: '^\\d{4}-\\d{2}$', example: '2025-03', ...options }),
    ...maybeOptional(options.optional),
    Validate(CalendarMonthConstraint),
  );

@ValidatorConstraint({ name: 'rupees' })
class RupeesConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value !== 'number' || toPaise(value) !== undefined; // IsNumber reports a non-number
  }
  defaultMessage(args?: ValidationArguments): string {
    return `${args?.property ?? 'amount'} must have at most two decimals (whole paise)`;
  }
}

/**
 * Whole paise (at most two decimals), for a number field with its own range. Instead of class-validator's
 * `IsNumber({maxDecimalPlaces})`, which throws (a 500) on a number JSON writes in exponent form, such as `1e-7`.
 */
export const WholePaise = (message?: string) => Validate(RupeesConstraint, message ? { message } : {});

/** Rupees as a JSON number: positive, whole paise, at most MAX_AMOUNT_RUPEES. */
export const RupeesField = ({ optional, ...options }: FieldOptions = {}) =>
  applyDecorators(
    ApiProperty({
      type: Number,
      description: `Rupees, more than 0, at most two decimals, at most ${MAX_AMOUNT_RUPEES}`,
      minimum: 0.01,
      maximum: MAX_AMOUNT_RUPEES,
      example: 1250.5,
      ...(optional ? { required: false } : {}),
      ...options,
    }),
    ...maybeOptional(optional),
    IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number' }),
    IsPositive({ message: 'amount must be more than 0' }),
    Max(MAX_AMOUNT_RUPEES, { message: `amount must be at most ${MAX_AMOUNT_RUPEES}` }),
    Validate(RupeesConstraint),
  );
