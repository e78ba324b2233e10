import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { DateField, MonthField, Optional } from '../../../common/http/fields';

export class ExpenseAnalyticsQuery {
  @MonthField({ optional: true, description: 'One month; wins over `year`' })
  month?: string;

  @ApiPropertyOptional({
    example: '2025',
    description: 'A calendar year; default: this year (mess time zone)',
  })
  @IsOptional()
  @Matches(/^(19|2\d)\d{2}$/, { message: 'year must be YYYY' })
  year?: string;
}

export class PeriodQuery {
  @MonthField({ optional: true, description: 'A month; default: this month (mess time zone)' })
  month?: string;

  // No examples on the custom period: the docs' "Try it out" fills every example at once, and `month` with a
  // period is a 400.
  @DateField({
    optional: true,
    example: undefined,
    description: 'Start of a custom period (with endDate, not with month), inclusive; e.g. 2025-03-01',
  })
  startDate?: string;

  @DateField({
    optional: true,
    example: undefined,
    description: 'End of a custom period (with startDate, not with month), inclusive; e.g. 2025-03-31',
  })
  endDate?: string;
}

export class MonthQuery {
  @MonthField({ optional: true, description: 'Default: this month (mess time zone)' })
  month?: string;
}

export class DayQuery {
  @DateField({ optional: true, description: 'Default: today (mess time zone)' })
  date?: string;
}

export class HeadcountQuery extends DayQuery {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      'true: each meal also names its unmarked diners (`unmarkedMembers`), to chase or mark in bulk',
  })
  @Optional()
  @IsIn(['true', 'false'], { message: 'names must be true or false' })
  names?: 'true' | 'false';
}

class TrendPointDto {
  @ApiProperty({ example: '2025-03' }) month: string;
  @ApiProperty({ example: 48210.5 }) amount: number;
}

class ExpenseAnalyticsDto {
  @ApiProperty({ example: 148230.75, description: 'Sum of the period, rupees, exact to the paisa' })
  totalExpenses: number;
  @ApiProperty({
    example: 49410.25,
    description: 'totalExpenses / months of the period that have begun (a future month does not dilute it)',
  })
  monthlyAverage: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    example: { Groceries: 90210, Gas: 12000 },
  })
  categoryBreakdown: Record<string, number>;
  @ApiProperty({
    type: [TrendPointDto],
    description: 'One entry per month of the period, 0 for months without spending',
  })
  trend: TrendPointDto[];
}

export class ExpenseAnalyticsResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: ExpenseAnalyticsDto }) analytics: ExpenseAnalyticsDto;
}

class PeriodDto {
  @ApiProperty({ format: 'date' }) from: string;
  @ApiProperty({ format: 'date' }) to: string;
}

class AttendanceAnalyticsDto {
  @ApiProperty({ description: 'Approved members who dine at the mess (`dines: true`) now' })
  totalMembers: number;
  @ApiProperty({ description: 'Present marks per served meal slot (average diners per meal)' })
  averageAttendance: number;
  @ApiProperty({ description: 'present marks / (totalMembers × served slots), 0..1' }) attendanceRate: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description: 'Per configured meal type: present marks / (totalMembers × served slots of that type), 0..1',
    example: { Breakfast: 0.71, Lunch: 0.86, Dinner: 0.82 },
  })
  byMealType: Record<string, number>;
  @ApiProperty() presentMarks: number;
  @ApiProperty({ description: 'Meal slots (date, meal type) with at least one member present' })
  servedSlots: number;
  @ApiProperty({ type: PeriodDto }) period: PeriodDto;
}

export class AttendanceAnalyticsResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ type: AttendanceAnalyticsDto }) analytics: AttendanceAnalyticsDto;
}

class HealthScoreDto {
  @ApiProperty({ description: '(average rating − 1) / 4 × 100; 50 without ratings. 0..100' })
  mealQuality: number;
  @ApiProperty({ description: 'present / (approved members × served slots) × 100. 0..100' })
  attendanceRate: number;
  @ApiProperty({ description: "Jain's fairness index of meals per active member × 100. 100/n..100" })
  fairShareIndex: number;
  @ApiProperty({ description: '0.4 mealQuality + 0.4 attendanceRate + 0.2 fairShareIndex. 0..100' })
  overallScore: number;
}

export class HealthScoreResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: '2025-03' }) month: string;
  @ApiProperty({ type: HealthScoreDto }) healthScore: HealthScoreDto;
}

class PersonRefDto {
  @ApiProperty({ format: 'uuid' }) _id: string;
  @ApiProperty({ example: 'Asha Verma' }) fullName: string;
}

class HeadcountSlotDto {
  @ApiProperty({ example: 'Lunch' }) mealType: string;
  @ApiProperty({ example: '12:30' }) startTime: string;
  @ApiProperty({ description: 'Expected diners: members marked present' }) expected: number;
  @ApiProperty() absent: number;
  @ApiProperty({ description: 'Diners on approved leave for this meal (not cooked for)' }) onLeave: number;
  @ApiProperty({
    description: 'Diners (approved, `dines: true`) who have not marked this meal and are not on leave',
  })
  unmarked: number;
  @ApiPropertyOptional({
    type: [PersonRefDto],
    description: 'With `names=true`: the diners who have not marked this meal and are not on leave, by name',
  })
  unmarkedMembers?: PersonRefDto[];
}

export class HeadcountResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ format: 'date' }) date: string;
  @ApiProperty({ description: 'Approved members who dine at the mess (`dines: true`)' })
  approvedMembers: number;
  @ApiProperty({ type: [HeadcountSlotDto] }) meals: HeadcountSlotDto[];
}

export class MessRefDto {
  @ApiProperty({ format: 'uuid' }) _id: string;
  @ApiProperty({ example: 'hostel-7' }) slug: string;
  @ApiProperty({ example: 'Hostel 7 Mess' }) messName: string;
}

export class UniversityMessRowDto {
  @ApiProperty({ type: MessRefDto }) mess: MessRefDto;
  @ApiProperty({ description: 'Approved members who dine at the mess (`dines: true`) now', example: 240 })
  members: number;
  @ApiProperty({ description: 'Members with at least one present mark in the month', example: 228 })
  activeMembers: number;
  @ApiProperty({ description: 'Present marks of the month (the meals its bill divides)', example: 17_412 })
  mealsServed: number;
  @ApiProperty({ description: 'Expenses of the month, rupees, exact to the paisa', example: 812_450.5 })
  totalExpenses: number;
  @ApiProperty({
    description:
      'totalExpenses / mealsServed, rounded half up to the paisa; 0 when no meal was served. What a meal cost the ' +
      'mess whatever its chargeMethod: under the daily rate (extension 2.3) it is not what members pay (they pay by ' +
      "the day, see the bill's `surplus`), but what the kitchen spent per present mark",
    example: 46.66,
  })
  costPerMeal: number;
  @ApiProperty({
    description: "As the mess's own `GET /analytics/attendance?month=` gives it (0..1)",
    example: 0.8123,
  })
  attendanceRate: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: "The month's mean feedback rating (1..5, two decimals); null when nobody rated a meal",
    example: 3.87,
  })
  averageRating: number | null;
  @ApiProperty({
    description: "`overallScore` of the mess's own `GET /analytics/health?month=` (0..100)",
    example: 71.4,
  })
  healthScore: number;
  @ApiProperty({
    description:
      "Sum of the positive balances of the mess's accounts today, rupees (what its members owe it): the charges " +
      'of its closed months under its chargeMethod (by the day under the daily rate) less what was paid',
    example: 38_200,
  })
  due: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "Plates the kitchen's forecast expects tomorrow, all meals together (`GET /kitchen/forecast`, as last made: " +
      'every hour, or when the manager looks); null when none has been made yet',
    example: 612,
  })
  expectedPlatesTomorrow: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "The month's leftover grams per diner (`GET /kitchen/waste`'s perDinerGrams): recorded leftovers ÷ present " +
      'marks of the meals with a record; null when no waste is recorded (or nobody was marked present at those meals)',
    example: 41,
  })
  leftoverGramsPerDiner: number | null;
}

export class UniversityTotalsDto {
  @ApiProperty({ example: 1_180 }) members: number;
  @ApiProperty({ example: 1_093 }) activeMembers: number;
  @ApiProperty({ example: 84_210 }) mealsServed: number;
  @ApiProperty({ description: 'The rows added exactly, in paise', example: 3_921_004.25 })
  totalExpenses: number;
  @ApiProperty({
    description: 'Computed from the totals: totalExpenses / mealsServed, half up to the paisa; 0 when none',
    example: 46.56,
  })
  costPerMeal: number;
  @ApiProperty({ description: 'The rows added exactly, in paise', example: 151_320.75 }) due: number;
}

export class UniversityViewResponse {
  @ApiProperty({ example: true }) success: true;
  @ApiProperty({ example: '2025-03' }) month: string;
  @ApiProperty({ type: [UniversityMessRowDto], description: 'One row per mess, ordered by messName' })
  messes: UniversityMessRowDto[];
  @ApiProperty({ type: UniversityTotalsDto }) totals: UniversityTotalsDto;
}
