import { type ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { requestContext } from '../context/request-context';
import { ApiError, badRequest, type FieldError } from '../errors/api-error';
import { checksOf } from './field-checks';
import { validationExceptionFactory } from '../errors/validation';
import { BODY_EMPTY, EMPTY_JSON_BODY, queryProblems } from './request-parsing';
import { cacheValidationRuleLookups } from './validation-rules-cache';

export const BODY_NOT_OBJECT = 'the body must be a JSON object';

const NOT_DTOS: unknown[] = [String, Boolean, Number, Array, Object, Buffer];
const isDto = (metatype: unknown): boolean => typeof metatype === 'function' && !NOT_DTOS.includes(metatype);

/** A number in a query is written in decimal: `10`, `-3`, `2.5`; not `0x10`, `1e1`, ` 10`, `Infinity` or ``. */
const DECIMAL = /^-?\d{1,16}(\.\d{1,16})?$/;

/**
 * The global validation pipe: class-validator on every body, query and parameter DTO, plus the rules that hold for
 * every query whatever its DTO says, so no route can forget them:
 * - a query that arrived malformed (bad percent-encoding, text that is not well-formed Unicode) is a 400;
 * - every query parameter is one value: `a=1&a=2` is a 400 naming `a` (no route takes a list in its query);
 * - a query value that became a number must have been written in decimal.
 * And a body's DTO may declare checks that need the app (`@CheckedBy`): they run beside its rules (and see the route's
 * path parameters), and one 400 names every bad field of both, the path's among them.
 */
@Injectable()
export class RequestValidationPipe extends ValidationPipe {
  constructor(private readonly moduleRef: ModuleRef) {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      stopAtFirstError: true,
      exceptionFactory: validationExceptionFactory,
    });
    cacheValidationRuleLookups();
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (value === EMPTY_JSON_BODY) throw badRequest(BODY_EMPTY);
    if (metadata.type === 'body') return this.body(value, metadata);
    if (metadata.type !== 'query') return super.transform(value, metadata);
    const problems = [...queryProblems(value), ...this.repeated(value, metadata.data)];
    if (problems.length) throw badRequest('Validation failed', problems);
    const result = await super.transform(value, metadata);
    const notDecimal = this.notDecimal(value, result, metadata.data);
    if (notDecimal.length) throw badRequest('Validation failed', notDecimal);
    return result;
  }

  private async body(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Every body a DTO describes is a JSON object: `null`, an array, a number or a string is not (an all-optional
    // DTO, PATCH's, would otherwise take `null` as "change nothing"). No body at all is the DTO's to judge.
    if (
      isDto(metadata.metatype) &&
      value !== undefined &&
      (value === null || typeof value !== 'object' || Array.isArray(value))
    ) {
      throw badRequest('Validation failed', [{ field: 'body', message: BODY_NOT_OBJECT }]);
    }
    const checks = checksOf(metadata.metatype);
    if (!checks.length || !value || typeof value !== 'object' || Array.isArray(value)) {
      return super.transform(value, metadata);
    }
    let result: unknown;
    let problems: FieldError[] = [];
    try {
      result = await super.transform(value, metadata);
    } catch (error) {
      if (!(error instanceof ApiError) || error.getStatus() !== 400 || !error.details) throw error;
      problems = [...error.details];
    }
    const refused = new Set(problems.map((p) => p.field));
    const path = requestContext.current()?.path ?? {};
    for (const check of checks) {
      const found = await this.moduleRef
        .get(check, { strict: false })
        .problems(value as Record<string, unknown>, refused, path);
      problems.push(...found);
    }
    if (problems.length) throw badRequest('Validation failed', problems);
    return result;
  }

  private repeated(value: unknown, single?: string): FieldError[] {
    const entries: [string, unknown][] =
      single !== undefined
        ? [[single, value]]
        : value && typeof value === 'object'
          ? Object.entries(value)
          : [];
    return entries
      .filter(([, item]) => Array.isArray(item) || (item !== null && typeof item === 'object'))
      .map(([field]) => ({ field, message: `${field} must be given once, as a single value` }));
  }

  private notDecimal(raw: unknown, result: unknown, single?: string): FieldError[] {
    const pairs: [string, unknown, unknown][] =
      single !== undefined
        ? [[single, raw, result]]
        : raw && typeof raw === 'object' && result && typeof result === 'object'
          ? Object.keys(raw).map((key) => [
              key,
              (raw as Record<string, unknown>)[key],
              (result as Record<string, unknown>)[key],
            ])
          : [];
    return pairs
      .filter(
        ([, before, after]) =>
          typeof before === 'string' && typeof after === 'number' && !DECIMAL.test(before),
      )
      .map(([field]) => ({ field, message: `${field} must be a number written in decimal digits` }));
  }
}
