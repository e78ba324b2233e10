import { Injectable } from '@nestjs/common';
import { MessDirectory, type MessLabel } from '../messes';
import { label } from './dto/mess-windows.dto';
import { TermsRepository } from './terms.repository';

/** A member's ranked choice in one window, and what the lottery gave them (the data export, extension 2.3). */
export interface MemberTermChoice {
  windowId: string;
  term: string;
  /** The messes, best first, as `GET /mess-windows/:id/choice` shows them. */
  preferences: MessLabel[];
  updatedAt: string;
  /** Their allocation line once drawn: their place in the draw, the mess given (null: none of theirs), the move's outcome. */
  allocation: {
    position: number;
    hash: string;
    toMessId: string | null;
    rank: number | null;
    outcome: string | null;
  } | null;
}

/**
 * The terms module's records of one member, for their data export: their choices in every window (the term tables
 * are the deployment's, not one mess's, so they are read whole, once). A member has one choice per window: a few.
 */
@Injectable()
export class TermsMemberData {
  constructor(
    private readonly repository: TermsRepository,
    private readonly directory: MessDirectory,
  ) {}

  async choices(userId: string): Promise<MemberTermChoice[]> {
    const rows = await this.repository.memberChoices(userId);
    const labels = await this.directory.labels();
    return rows.map(({ choice, term, line }) => ({
      windowId: choice.windowId,
      term,
      preferences: choice.preferences.map((id) => label(id, labels)),
      updatedAt: choice.updatedAt.toISOString(),
      allocation: line
        ? {
            position: line.position,
            hash: line.hash,
            toMessId: line.toMessId,
            rank: line.rank,
            outcome: line.outcome,
          }
        : null,
    }));
  }
}
