import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
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
