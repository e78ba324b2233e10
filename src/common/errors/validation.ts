import { ValidationError } from '@nestjs/common';
import { badRequest, FieldError } from './api-error';

/** One `details` entry per bad field, nested fields written with dots (`mealTimes.0.startTime`). */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) {
      for (const message of Object.values(error.constraints)) {
        out.push({ field: field || 'body', message: rewordWhitelist(message, field) });
      }
    }
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

function rewordWhitelist(message: string, field: string): string {
  return message.endsWith('should not exist') ? `${field} is not an accepted field` : message;
}

export function validationExceptionFactory(errors: ValidationError[]) {
  return badRequest('Validation failed', flattenValidationErrors(errors));
}
