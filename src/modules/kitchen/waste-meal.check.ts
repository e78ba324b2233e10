import { Injectable } from '@nestjs/common';
import type { FieldError } from '../../common/errors/api-error';
import type { FieldCheck } from '../../common/http/field-checks';
import { WasteService } from './waste.service';

/**
 * The waste route's path, `:date` and `:mealType` (a real date, a configured meal time), checked beside the body's
 * rules (`@CheckedBy`), so a bad path and a bad body are named in one 400.
 */
@Injectable()
export class WasteMealCheck implements FieldCheck {
  constructor(private readonly waste: WasteService) {}

  async problems(
    _body: Record<string, unknown>,
    _refused: ReadonlySet<string>,
    path: Readonly<Record<string, string>>,
  ): Promise<FieldError[]> {
    return (await this.waste.mealProblems(path.date ?? '', path.mealType ?? '')).errors;
  }
}
