import { Injectable } from '@nestjs/common';
import { FileResponse } from '../../common/http/file-response';
import { MessConfigService } from '../mess-config';
import { UsersService } from '../users';
import { AccountsQueries, type Statement } from './accounts.queries';
import { type IssuedStatement, statementCsv, statementPdf } from './statement-documents';

export type StatementFormat = 'csv' | 'pdf';

/**
 * A statement as a download: CSV for spreadsheets, or a PDF issued by the mess (its name and contact at the top,
 * today's date at the bottom). Both are named `statement-<userId>-<from>-<to>.<ext>`.
 */
@Injectable()
export class StatementExportService {
  constructor(
    private readonly queries: AccountsQueries,
    private readonly messConfig: MessConfigService,
    private readonly users: UsersService,
  ) {}

  /** The statement with who it is for (their college id) and who issues it (the mess's name and contact). */
  async issue(statement: Statement): Promise<IssuedStatement> {
    const [member, config] = await Promise.all([
      this.users.findById(statement.userId),
      this.messConfig.read(),
    ]);
    return {
      ...statement,
      collegeId: member?.collegeId || null,
      issuer: { messName: config.messName, email: config.email, phone: config.phone },
    };
  }

  async file(statement: IssuedStatement, format: StatementFormat): Promise<FileResponse> {
    const fileName = `statement-${statement.userId}-${statement.from}-${statement.to}.${format}`;
    if (format === 'csv')
      return new FileResponse('text/csv; charset=utf-8', fileName, statementCsv(statement));
    const pdf = await statementPdf(statement, statement.issuer, this.queries.today());
    return new FileResponse('application/pdf', fileName, pdf);
  }
}
