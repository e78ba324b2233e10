import { Injectable } from '@nestjs/common';
import type { FieldError } from '../../common/errors/api-error';
import type { FieldCheck } from '../../common/http/field-checks';
import { Clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { expenseDateProblem } from './expense-date';

/**
 * An expense's date no later than the end of next month in the mess's time zone, checked beside the DTO's rules
 * (`@CheckedBy`), so a date too far ahead and a bad amount are named in one 400.
 */
@Injectable()
export class ExpenseDateWithinReach implements FieldCheck {
  constructor(
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  problems(body: Record<string, unknown>, refused: ReadonlySet<string>): Promise<FieldError[]> {
    if (refused.has('date') || typeof body.date !== 'string') return Promise.resolve([]);
    const problem = expenseDateProblem(body.date, this.clock.now(), this.config.messTimezone);
    return Promise.resolve(problem ? [problem] : []);
  }
}
