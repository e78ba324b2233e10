import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  EmailField,
  IndianPhoneField,
  NoControlCharacters,
  Optional,
  TextField,
  WholePaise,
} from '../../../common/http/fields';
import { CheckedBy } from '../../../common/http/field-checks';
import { MessFieldsCheck } from '../mess-fields.check';
import {
  CHARGE_METHODS,
  type ChargeMethod,
  DAILY_RATE_MAX_PAISE,
  REBATE_BANDS_MAX,
  REBATE_DAYS_PER_TERM_MAX,
  EXTRA_ITEM_NAME_MAX,
  EXTRA_ITEMS_MAX,
  EXTRA_PRICE_MAX_PAISE,
} from '../mess-config.schema';

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class MealTimeDto {
  @ApiProperty({ example: 'Breakfast', maxLength: 30 })
  @Transform(trim)
  @IsString()
  @Length(1, 30)
  @Matches(/^[A-Za-z][A-Za-z0-9 ]*$/, {
    message: 'name must start with a letter and use letters, digits and spaces',
  })
  name: string;

  @ApiProperty({ example: '07:30', pattern: HH_MM.source })
  @IsString()
  @Matches(HH_MM, { message: 'startTime must be HH:MM (24-hour)' })
  startTime: string;

  @ApiProperty({ example: '09:30', pattern: HH_MM.source })
  @IsString()
  @Matches(HH_MM, { message: 'endTime must be HH:MM (24-hour)' })
  endTime: string;
}

export class LeavePolicyDto {
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: 30,
    default: 1,
    example: 2,
    description: 'Shortest leave in days',
  })
  @Max(30)
  @Min(1)
  @IsInt({ message: 'minDays must be an integer number' })
  minDays: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 168,
    default: 12,
    example: 24,
    description: 'A leave is asked for at least this many hours before the start of its first meal',
  })
  @Max(168)
  @Min(0)
  @IsInt({ message: 'applyBeforeHours must be an integer number' })
  applyBeforeHours: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 31,
    default: 0,
    example: 10,
    description: "Cap on a member's pending and approved leave days in one calendar month (0: no cap)",
  })
  @Max(31)
  @Min(0)
  @IsInt({ message: 'maxDaysPerMonth must be an integer number' })
  maxDaysPerMonth: number;

  @ApiProperty({ default: true, example: true, description: 'false: a leave is approved when asked for' })
  @IsBoolean({ message: 'requiresApproval must be true or false' })
  requiresApproval: boolean;
}

export class MarkingWindowDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 60,
    example: 7,
    description: 'A member marks a meal from this many days before its date',
  })
  @Max(60)
  @Min(0)
  @IsInt({ message: 'daysAhead must be an integer number' })
  daysAhead: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 1440,
    example: 60,
    description: "…until this many minutes after the meal's end",
  })
  @Max(1440)
  @Min(0)
  @IsInt({ message: 'closesMinutesAfterEnd must be an integer number' })
  closesMinutesAfterEnd: number;
}

export class ExtraItemDto {
  @TextField(1, EXTRA_ITEM_NAME_MAX, { example: 'Egg' })
  name: string;

  @ApiProperty({
    type: Number,
    minimum: 0.01,
    maximum: EXTRA_PRICE_MAX_PAISE / 100,
    example: 12.5,
    description: 'Rupees, more than 0, at most two decimals',
  })
  @Max(EXTRA_PRICE_MAX_PAISE / 100, { message: `price must be at most ${EXTRA_PRICE_MAX_PAISE / 100}` })
  @Min(0.01, { message: 'price must be more than 0' })
  @WholePaise()
  @IsNumber(
    { allowNaN: false, allowInfinity: false },
    { message: 'price must be a number with at most two decimals' },
  )
  price: number;
}

/** Extension 2.3: one band of the daily rate's rebate. */
export class RebateBandDto {
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: 60,
    example: 5,
    description:
      'A leave of at least this many full days falls in this band (unless a band with more applies)',
  })
  @Max(60)
  @Min(1)
  @IsInt({ message: 'minDays must be an integer number' })
  minDays: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 100,
    example: 90,
    description: 'The share of the daily rate rebated for each rebated day of such a leave, in percent',
  })
  @Max(100)
  @Min(0)
  @IsInt({ message: 'percent must be an integer number' })
  percent: number;
}

/** The field rules, and beside them the rules across fields (`MessFieldsCheck`): one 400 names every bad field. */
@CheckedBy(MessFieldsCheck)
export class SetupMessDto {
  @TextField(1, 100, { example: 'Hostel 7 Mess' })
  messName: string;

  @TextField(0, 1000, { optional: true, multiline: true, example: 'Vegetarian mess for the boys hostel' })
  description?: string;

  @EmailField({ example: 'mess@college.edu' })
  email: string;

  @IndianPhoneField({
    description: 'Contact phone: +91-XXXXXXXXXX or 10 digits in; stored and returned as +91XXXXXXXXXX',
  })
  phone: string;

  @ApiProperty({ type: [String], example: ['Groceries', 'Vegetables', 'Gas', 'Staff', 'Maintenance'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @NoControlCharacters(false, { each: true })
  @Length(1, 50, { each: true })
  @Transform(({ value }) =>
    Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v.trim() : v)) : value,
  )
  expenseCategories: string[];

  @ApiProperty({ type: [MealTimeDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => MealTimeDto)
  mealTimes: MealTimeDto[];

  @ApiPropertyOptional({
    description: 'Monthly spending limit in rupees; crossing it raises BUDGET_EXCEEDED',
    example: 150000,
  })
  @Max(1_000_000_000)
  @Min(0)
  @WholePaise()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Optional() // nearest the property: null is told it must be left out
  monthlyBudget?: number;

  @ApiPropertyOptional({
    enum: CHARGE_METHODS,
    default: 'proportional',
    description:
      "The bill method a month's close posts to the members' accounts, and the one GET /analytics/shares, " +
      '/shares/me and /shares.csv use when no `method` is given. Left out: proportional.',
  })
  @IsIn(CHARGE_METHODS, { message: `chargeMethod must be one of ${CHARGE_METHODS.join(', ')}` })
  @Optional()
  chargeMethod?: ChargeMethod;

  @ApiPropertyOptional({
    type: Number,
    minimum: 0.01,
    maximum: DAILY_RATE_MAX_PAISE / 100,
    example: 120,
    description:
      'Extension 2.3: the daily rate in rupees (more than 0, at most 10,000, at most two decimals) charged for ' +
      "every day a member is on the mess's rolls under `chargeMethod: 'daily'`, which requires it. Left out: none " +
      '(PATCH: null removes it, unless the method is daily).',
  })
  @Max(DAILY_RATE_MAX_PAISE / 100, { message: `dailyRate must be at most ${DAILY_RATE_MAX_PAISE / 100}` })
  @Min(0.01, { message: 'dailyRate must be more than 0' })
  @WholePaise('dailyRate must be a number with at most two decimals')
  @IsNumber(
    { allowNaN: false, allowInfinity: false },
    { message: 'dailyRate must be a number with at most two decimals' },
  )
  @Optional()
  dailyRate?: number;

  @ApiPropertyOptional({
    type: [RebateBandDto],
    minItems: 1,
    maxItems: REBATE_BANDS_MAX,
    description:
      'Extension 2.3: how an approved leave rebates the daily rate. A leave of D full days is rebated at the ' +
      '`percent` of the band with the largest `minDays` ≤ D; a leave shorter than every band gets none. 1–10 ' +
      'bands, `minDays` 1–60 distinct, `percent` 0–100. Left out: [{minDays: 1, percent: 100}].',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(REBATE_BANDS_MAX)
  @ValidateNested({ each: true })
  @Type(() => RebateBandDto)
  @Optional()
  rebateBands?: RebateBandDto[];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: REBATE_DAYS_PER_TERM_MAX,
    default: 0,
    example: 15,
    description:
      'Extension 2.3: at most this many leave days are rebated per member in a term (0: no cap); later leave ' +
      'days are charged in full.',
  })
  @Max(REBATE_DAYS_PER_TERM_MAX)
  @Min(0)
  @IsInt({ message: 'rebateDaysPerTerm must be an integer number' })
  @Optional()
  rebateDaysPerTerm?: number;

  @ApiPropertyOptional({
    type: [Number],
    minItems: 1,
    maxItems: 12,
    default: [1, 7],
    example: [1, 7],
    description:
      'Extension 2.3: the months (1–12, distinct) a term starts in: a term runs from the first of one of them to ' +
      'the day before the next. Left out: [1, 7].',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(12)
  @Max(12, { each: true })
  @Min(1, { each: true })
  @IsInt({ each: true, message: 'termStartMonths must hold integer months 1 to 12' })
  @Optional()
  termStartMonths?: number[];

  @ApiPropertyOptional({
    type: LeavePolicyDto,
    description:
      'How members ask for leave; left out: the defaults (1 day, 12 hours ahead, no cap, approval)',
  })
  @ValidateNested()
  @Type(() => LeavePolicyDto)
  @Optional()
  leavePolicy?: LeavePolicyDto;

  @ApiPropertyOptional({
    type: MarkingWindowDto,
    description: 'When members may mark their own meals; left out: no window (any date, as in 2.0)',
  })
  @ValidateNested()
  @Type(() => MarkingWindowDto)
  @Optional()
  markingWindow?: MarkingWindowDto;

  @ApiPropertyOptional({
    type: [ExtraItemDto],
    maxItems: EXTRA_ITEMS_MAX,
    description:
      'The priced extras managers record for members (POST /extras), charged on top of the share; names unique ' +
      'ignoring case. Left out: none. A price change applies to extras recorded after it.',
  })
  @IsArray()
  @ArrayMaxSize(EXTRA_ITEMS_MAX)
  @ValidateNested({ each: true })
  @Type(() => ExtraItemDto)
  @Optional()
  extraItems?: ExtraItemDto[];
}

export class MessConfigDto {
  @ApiPropertyOptional({ description: 'Absent until the mess has been set up' }) _id?: string;
  @ApiProperty({ example: 'Hostel 7 Mess' }) messName: string;
  @ApiProperty() description: string;
  @ApiProperty({ example: 'mess@college.edu' }) email: string;
  @ApiProperty({ example: '+918012345678' }) phone: string;
  @ApiProperty({ type: [String] }) expenseCategories: string[];
  @ApiProperty({ type: [MealTimeDto] }) mealTimes: MealTimeDto[];
  @ApiProperty({ nullable: true, type: Number }) monthlyBudget: number | null;
  @ApiProperty({ enum: CHARGE_METHODS, example: 'proportional' }) chargeMethod: ChargeMethod;
  @ApiPropertyOptional({ type: Number, description: 'Rupees a day; absent until set (extension 2.3)' })
  dailyRate?: number;
  @ApiProperty({ type: [RebateBandDto], description: 'Default [{minDays: 1, percent: 100}]' })
  rebateBands: RebateBandDto[];
  @ApiProperty({ description: '0: no cap' }) rebateDaysPerTerm: number;
  @ApiProperty({ type: [Number], example: [1, 7] }) termStartMonths: number[];
  @ApiProperty({ type: LeavePolicyDto }) leavePolicy: LeavePolicyDto;
  @ApiPropertyOptional({ type: MarkingWindowDto, description: 'Absent when members may mark any date' })
  markingWindow?: MarkingWindowDto;
  @ApiProperty({ type: [ExtraItemDto], description: 'The extras catalogue, prices in rupees' })
  extraItems: ExtraItemDto[];
  @ApiProperty({ description: 'false while the defaults apply (before POST /auth/admin/setup)' })
  configured: boolean;
  @ApiPropertyOptional({ example: 'main', description: "The mess's slug (extension 2.2)" })
  slug?: string;
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'Approved members at most; null: no limit',
  })
  capacity?: number | null;
  @ApiPropertyOptional({
    type: Object,
    nullable: true,
    description: 'Where members pay by UPI: {vpa, payeeName}',
  })
  upi?: { vpa: string; payeeName: string } | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The admin who set the mess up; absent until then',
  })
  createdBy?: string | null;
  @ApiPropertyOptional({ format: 'date-time' }) createdAt?: string;
  @ApiPropertyOptional({ format: 'date-time' }) updatedAt?: string;
}

export class MessConfigEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: MessConfigDto }) config: MessConfigDto;
}

/** What GET /auth/admin/config answers: the configuration, and the mess's clock for clients. */
export class MessConfigReadDto extends MessConfigDto {
  @ApiProperty({
    example: 'Asia/Kolkata',
    description: "The mess's time zone (MESS_TIMEZONE): its days, months and meals",
  })
  timezone: string;
  @ApiProperty({
    format: 'date',
    example: '2025-03-14',
    description: "The mess's date at the moment of this answer, in its time zone (not UTC)",
  })
  today: string;
}

export class MessConfigReadEnvelopeDto {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: MessConfigReadDto }) config: MessConfigReadDto;
}
