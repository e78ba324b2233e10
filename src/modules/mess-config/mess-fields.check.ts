import { Injectable } from '@nestjs/common';
import type { FieldError } from '../../common/errors/api-error';
import type { FieldCheck } from '../../common/http/field-checks';
import { messFieldProblems } from './mess-field-rules';

/**
 * The rules across a mess's fields (repeated bands, start months, meal names, categories, extras; a daily rate with
 * the daily method), run beside the DTO's own rules on setup, `PUT /auth/admin/config` and `POST /messes`, so one
 * 400 names every bad field.
 */
@Injectable()
export class MessFieldsCheck implements FieldCheck {
  problems(body: Record<string, unknown>, refused: ReadonlySet<string>): Promise<FieldError[]> {
    return Promise.resolve(messFieldProblems(body, refused));
  }
}

/** The same on `PATCH /auth/admin/config`'s fields as sent (the daily rate is checked on the merged configuration). */
@Injectable()
export class MessFieldsPatchCheck implements FieldCheck {
  problems(body: Record<string, unknown>, refused: ReadonlySet<string>): Promise<FieldError[]> {
    return Promise.resolve(messFieldProblems(body, refused, true));
  }
}
