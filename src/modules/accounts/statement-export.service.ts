import { Injectable } from '@nestjs/common';
import { FileResponse } from '../../common/http/file-response';
import { MessConfigService } from '../mess-config';
import { AccountsQueries, type Statement } from './accounts.queries';
import { statementCsv, statementPdf } from './statement-documents';

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
  ) {}

  async file(statement: Statement, format: StatementFormat): Promise<FileResponse> {
    const fileName = `statement-${statement.userId}-${statement.from}-${statement.to}.${format}`;
    if (format === 'csv')
      return new FileResponse('text/csv; charset=utf-8', fileName, statementCsv(statement));
    const config = await this.messConfig.read();
    const pdf = await statementPdf(
      statement,
      { messName: config.messName, email: config.email, phone: config.phone },
      this.queries.today(),
    );
    return new FileResponse('application/pdf', fileName, pdf);
  }
}
