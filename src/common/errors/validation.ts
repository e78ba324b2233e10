import { ValidationError } from '@nestjs/common';
import { badRequest, FieldError } from './api-error';

/** One `details` entry per bad field, nested fields written with dots (`mealTimes.0.startTime`). */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints && missing(error)) {
      out.push({ field, message: `${field} is required` });
    } else if (error.constraints) {
      for (const message of Object.values(error.constraints)) {
        out.push({ field: field || 'body', message: rewordWhitelist(message, field) });
      }
    }
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

/**
 * A field left out that a rule still checked is a required field: it is missing, whatever its first rule says of
 * the nothing it found (`mealTimes must contain no more than 10 elements` for no `mealTimes` at all). An optional
 * field left out is never checked.
 */
const missing = (error: ValidationError): boolean =>
  error.property !== '' && error.value === undefined && !('whitelistValidation' in (error.constraints ?? {}));

function rewordWhitelist(message: string, field: string): string {
  return message.endsWith('should not exist') ? `${field} is not an accepted field` : message;
}

export function validationExceptionFactory(errors: ValidationError[]) {
  return badRequest('Validation failed', flattenValidationErrors(errors));
}
