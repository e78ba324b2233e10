import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsString,
  Length,
  Max,
  Min,
} from 'class-validator';
import { CheckedBy } from '../../../common/http/field-checks';
import { DateField, Optional, TextField } from '../../../common/http/fields';
import type { MessLabel } from '../../messes';
import { type WindowStatus, WINDOW_STATUSES, windowStatus } from '../mess-windows';
import type { MessWindowAllocationRow, MessWindowChoiceRow, MessWindowRow } from '../terms.schema';
import type { AllocationSummary } from '../allocation.service';
import { WindowFieldsCheck } from '../window-fields.check';

export const MAX_PREFERENCES_LIMIT = 10;

@CheckedBy(WindowFieldsCheck)
export class CreateWindowDto {
  @TextField(1, 40, { example: '2026-27 odd semester', description: 'Unique among windows not cancelled' })
  term: string;

  @ApiProperty({ format: 'date-time', example: '2026-07-01T04:30:00.000Z' })
  @IsISO8601({ strict: true }, { message: 'opensAt must be an ISO 8601 date-time' })
  opensAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-07-08T12:30:00.000Z', description: 'After opensAt' })
  @IsISO8601({ strict: true }, { message: 'closesAt must be an ISO 8601 date-time' })
  closesAt: string;

  @DateField({
    example: '2026-08-01',
    description:
      'The first day of the term, a first of a month: the moves are made at its first minute (mess time zone), or ' +
      'at the allocation when it has come by then',
  })
  effectiveFrom: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['hostel-7', 'hostel-9'],
    description: 'At least 2 distinct messes (`_id` or slug); default every mess',
  })
  @Optional()
  @IsArray()
  @ArrayMinSize(2)
  @ArrayMaxSize(1_000)
  @IsString({ each: true })
  @Length(1, 40, { each: true })
  messes?: string[];

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PREFERENCES_LIMIT, default: 3 })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_PREFERENCES_LIMIT)
  maxPreferences?: number;
}

export class ListWindowsQuery {
  @ApiPropertyOptional({ enum: WINDOW_STATUSES })
  @Optional()
  @IsIn(WINDOW_STATUSES, { message: `status must be one of ${WINDOW_STATUSES.join(', ')}` })
  status?: WindowStatus;
}

export class SaveChoiceDto {
  @ApiProperty({
    type: [String],
    example: ['hostel-7', 'hostel-9'],
    description: "1 to the window's maxPreferences distinct messes of the window (`_id` or slug), best first",
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_PREFERENCES_LIMIT)
  @IsString({ each: true })
  @Length(1, 40, { each: true })
  preferences: string[];
}

export class WindowMessDto {
  @ApiProperty({ example: '00000000-0000-4000-8000-000000000001' }) _id: string;
  @ApiProperty({ example: 'main' }) slug: string;
  @ApiProperty({ example: 'Hostel 7 Mess' }) messName: string;
  @ApiProperty({ type: Number, nullable: true, description: 'Approved members at most; null: no limit' })
  capacity: number | null;
}

export class WindowDto {
  @ApiProperty() _id: string;
  @ApiProperty({ example: '2026-27 odd semester' }) term: string;
  @ApiProperty({ format: 'date-time' }) opensAt: string;
  @ApiProperty({ format: 'date-time' }) closesAt: string;
  @ApiProperty({ format: 'date', example: '2026-08-01' }) effectiveFrom: string;
  @ApiProperty({ example: 3 }) maxPreferences: number;
  @ApiProperty({ type: [WindowMessDto] }) messes: WindowMessDto[];
  @ApiProperty({
    enum: WINDOW_STATUSES,
    description:
      'From the clock at read time: `scheduled` before `opensAt`, `open` until `closesAt`, `closed` from then until ' +
      'the lottery has run; then `allocated`, `applied`, or `cancelled`',
  })
  status: WindowStatus;
  @ApiProperty({
    type: String,
    nullable: true,
    description: '32 hex characters drawn at the allocation; null until then (see docs/lottery.md)',
  })
  seed: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class WindowEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: WindowDto }) window: WindowDto;
}

export class WindowsEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: [WindowDto] }) windows: WindowDto[];
}

export class MessLabelDto {
  @ApiProperty() _id: string;
  @ApiProperty() slug: string;
  @ApiProperty() messName: string;
}

export class ChoiceDto {
  @ApiProperty({ type: [MessLabelDto], description: 'Best first' }) preferences: MessLabelDto[];
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class ChoiceEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: ChoiceDto }) choice: ChoiceDto;
}

export class SuccessDto {
  @ApiProperty({ example: true }) success: true;
}

export class PersonDto {
  @ApiProperty() _id: string;
  @ApiProperty() fullName: string;
}

export class AllocationLineDto {
  @ApiProperty({ type: PersonDto }) user: PersonDto;
  @ApiProperty({ type: MessLabelDto, description: 'The mess the member was in at the close' })
  from: MessLabelDto;
  @ApiProperty({
    type: MessLabelDto,
    nullable: true,
    description:
      'The mess the lottery gave them (their own included); null: none of their choices, they stay',
  })
  to: MessLabelDto | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The 1-based position of `to` in their preferences',
  })
  rank: number | null;
  @ApiProperty({ type: [MessLabelDto], description: "The member's choice the lottery used, best first" })
  preferences: MessLabelDto[];
  @ApiProperty({ description: '1-based place in the draw' }) position: number;
  @ApiProperty({
    description: "Lowercase hex SHA-256 of `seed + ':' + user._id`: the draw is by it, ascending",
  })
  hash: string;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['moved', 'stayed', 'moved-by-hand', 'full', 'left'],
    description:
      'What the move on effectiveFrom did (null until then): moved; stayed (to is null or their own mess); ' +
      'moved-by-hand (no longer in `from`: not moved again); full (the mess filled up meanwhile); left (no ' +
      'longer an approved member)',
  })
  move: string | null;
}

export class SummaryByMessDto {
  @ApiProperty({ type: MessLabelDto }) mess: MessLabelDto;
  @ApiProperty({ type: Number, nullable: true, description: 'Seats at the start; null: unlimited' })
  seats: number | null;
  @ApiProperty({ description: 'Members whose `to` is this mess' }) placed: number;
}

export class SummaryDto {
  @ApiProperty() members: number;
  @ApiProperty() placed: number;
  @ApiProperty() firstChoice: number;
  @ApiProperty() unplaced: number;
  @ApiProperty({ type: [SummaryByMessDto] }) byMess: SummaryByMessDto[];
}

export class AllocationEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: '9f86d081884c7d659a2feaa0c55ad015' }) seed: string;
  @ApiProperty({
    type: [AllocationLineDto],
    description: 'In the order of the draw; a member sees their own line',
  })
  allocations: AllocationLineDto[];
  @ApiProperty({ type: SummaryDto }) summary: SummaryDto;
}

export class CloseEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: WindowDto }) window: WindowDto;
  @ApiProperty({ type: AllocationEnvelopeDto, description: 'As GET …/allocation answers the office' })
  allocation: Omit<AllocationEnvelopeDto, 'success'>;
}

/** A mess as the window routes show it (a placeholder for an id that is not a mess). */
export const label = (messId: string, labels: ReadonlyMap<string, MessLabel>): MessLabelDto => {
  const l = labels.get(messId);
  return { _id: messId, slug: l?.slug ?? '', messName: l?.messName ?? '' };
};

export const toWindowResponse = (
  w: MessWindowRow,
  labels: ReadonlyMap<string, MessLabel>,
  capacities: ReadonlyMap<string, number | null>,
  now: Date,
): WindowDto => ({
  _id: w.id,
  term: w.term,
  opensAt: w.opensAt.toISOString(),
  closesAt: w.closesAt.toISOString(),
  effectiveFrom: w.effectiveFrom,
  maxPreferences: w.maxPreferences,
  messes: w.messIds.map((id) => ({ ...label(id, labels), capacity: capacities.get(id) ?? null })),
  status: windowStatus(w, now),
  seed: w.seed,
  createdAt: w.createdAt.toISOString(),
});

export const toChoiceResponse = (
  c: MessWindowChoiceRow,
  labels: ReadonlyMap<string, MessLabel>,
): ChoiceDto => ({
  preferences: c.preferences.map((id) => label(id, labels)),
  updatedAt: c.updatedAt.toISOString(),
});

export const toAllocationResponse = (
  seed: string,
  lines: MessWindowAllocationRow[],
  summary: AllocationSummary,
  names: ReadonlyMap<string, string>,
  labels: ReadonlyMap<string, MessLabel>,
): Omit<AllocationEnvelopeDto, 'success'> => ({
  seed,
  allocations: lines.map((l) => ({
    user: { _id: l.userId, fullName: names.get(l.userId) ?? '' },
    from: label(l.fromMessId, labels),
    to: l.toMessId === null ? null : label(l.toMessId, labels),
    rank: l.rank,
    preferences: l.preferences.map((id) => label(id, labels)),
    position: l.position,
    hash: l.hash,
    move: l.outcome,
  })),
  summary: {
    members: summary.members,
    placed: summary.placed,
    firstChoice: summary.firstChoice,
    unplaced: summary.unplaced,
    byMess: summary.byMess.map((b) => ({ mess: label(b.messId, labels), seats: b.seats, placed: b.placed })),
  },
});
