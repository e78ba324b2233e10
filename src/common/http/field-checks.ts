import type { Type } from '@nestjs/common';
import type { FieldError } from '../errors/api-error';

/**
 * A check of a request body that needs more than its DTO can know (the mess's configured expense categories): a
 * provider the validation pipe runs beside the DTO's own rules, so one 400 names every bad field at once. It
 * receives the body as sent, the fields the DTO rules already refused, which it leaves alone, and the route's path
 * parameters as sent (a check of the path, `:date` and `:mealType`, names them beside the body's fields).
 */
export interface FieldCheck {
  problems(
    body: Record<string, unknown>,
    refused: ReadonlySet<string>,
    path: Readonly<Record<string, string>>,
  ): Promise<FieldError[]>;
}

const CHECKS = Symbol('field checks');

/** Runs the given checks (providers, found in the app by class) on every body of this DTO. */
export function CheckedBy(...checks: Type<FieldCheck>[]): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(CHECKS, checks, target);
  };
}

/** The checks declared on `dto` and its parents. */
export function checksOf(dto: unknown): Type<FieldCheck>[] {
  if (typeof dto !== 'function') return [];
  return (Reflect.getMetadata(CHECKS, dto) as Type<FieldCheck>[] | undefined) ?? [];
}
