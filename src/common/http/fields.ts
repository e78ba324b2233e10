import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsEmail,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  Validate,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  type ValidationArguments,
} from 'class-validator';
import { isCalendarDate, isMonth } from '../time/dates';
import { normalizeIndianPhone } from '../../modules/users/phone';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

interface FieldOptions {
  description?: string;
  example?: unknown;
  optional?: boolean;
}

const doc = (type: unknown, options: FieldOptions & Record<string, unknown>) => {
  const { optional, ...rest } = options;
  return optional
    ? ApiPropertyOptional({ type: type as never, ...rest })
    : ApiProperty({ type: type as never, ...rest });
};
const maybeOptional = (optional?: boolean) => (optional ? [IsOptional()] : []);

/** A trimmed string of bounded length. */
export const TextField = (min: number, max: number, options: FieldOptions = {}) =>
  applyDecorators(
    doc(String, { minLength: min, maxLength: max, ...options }),
    ...maybeOptional(options.optional),
    Transform(trim),
    IsString(),
    Length(min, max),
  );

/** Trimmed, lower-cased, a syntactically valid address. */
export const EmailField = (options: FieldOptions = {}) =>
  applyDecorators(
    doc(String, { format: 'email', maxLength: 254, example: 'asha@college.edu', ...options }),
    ...maybeOptional(options.optional),
    Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value)),
    IsString(),
    MaxLength(254),
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

/** bcrypt reads at most 72 bytes, so longer passwords are refused rather than silently truncated. */
export const PasswordField = (options: FieldOptions = {}) =>
  applyDecorators(
    doc(String, {
      format: 'password',
      minLength: 8,
      maxLength: 72,
      example: 'correct-horse-battery',
      ...options,
    }),
    ...maybeOptional(options.optional),
    IsString(),
    Length(8, 72, { message: 'password must be 8 to 72 characters long' }),
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
