import { Injectable } from '@nestjs/common';
import type { FieldError } from '../../common/errors/api-error';
import type { FieldCheck } from '../../common/http/field-checks';
import { MessDirectory } from '../messes';

/**
 * The rules of a new window that need more than one field or the messes of the deployment, beside the DTO's own
 * rules, so one 400 names every bad field: `closesAt` after `opensAt`, `effectiveFrom` a first of a month, and
 * `messes` naming distinct messes that exist.
 */
@Injectable()
export class WindowFieldsCheck implements FieldCheck {
  constructor(private readonly directory: MessDirectory) {}

  async problems(body: Record<string, unknown>, refused: ReadonlySet<string>): Promise<FieldError[]> {
    const problems: FieldError[] = [];
    if (
      !refused.has('opensAt') &&
      !refused.has('closesAt') &&
      typeof body.opensAt === 'string' &&
      typeof body.closesAt === 'string' &&
      new Date(body.closesAt).getTime() <= new Date(body.opensAt).getTime()
    )
      problems.push({ field: 'closesAt', message: 'closesAt must be after opensAt' });
    if (
      !refused.has('effectiveFrom') &&
      typeof body.effectiveFrom === 'string' &&
      !body.effectiveFrom.endsWith('-01')
    )
      problems.push({ field: 'effectiveFrom', message: 'effectiveFrom must be the first day of a month' });
    if (!refused.has('messes') && Array.isArray(body.messes)) {
      const seen = new Set<string>();
      for (const ref of body.messes as string[]) {
        const mess = await this.directory.find(ref);
        if (!mess) {
          problems.push({ field: 'messes', message: `messes names ${ref}, which is not a mess` });
          break;
        }
        if (seen.has(mess.id)) {
          problems.push({ field: 'messes', message: `messes names ${ref} twice` });
          break;
        }
        seen.add(mess.id);
      }
    }
    return problems;
  }
}
