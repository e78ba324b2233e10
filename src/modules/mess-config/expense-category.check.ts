import { Injectable } from '@nestjs/common';
import type { FieldError } from '../../common/errors/api-error';
import type { FieldCheck } from '../../common/http/field-checks';
import { MessConfigService } from './mess-config.service';

/**
 * An expense's category among the mess's configured ones (exact spelling), checked beside the DTO's rules
 * (`@CheckedBy(ConfiguredExpenseCategory)`), so a wrong category and a bad amount are named in one 400.
 */
@Injectable()
export class ConfiguredExpenseCategory implements FieldCheck {
  constructor(private readonly config: MessConfigService) {}

  async problems(body: Record<string, unknown>, refused: ReadonlySet<string>): Promise<FieldError[]> {
    if (refused.has('category') || body.category === undefined) return [];
    const problem = await this.config.expenseCategoryProblem(body.category);
    return problem ? [problem] : [];
  }
}
