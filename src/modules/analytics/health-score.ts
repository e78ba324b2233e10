/**
 * The mess health score of a month, every part on a 0–100 scale (one decimal):
 *
 * - mealQuality = (average feedback rating − 1) / 4 × 100; 50 (neutral) when nobody rated a meal.
 * - attendanceRate = present marks / (approved members × meal slots served) × 100, capped at 100; 0 when no slot
 *   was served. A slot (date, meal type) counts as served when at least one member was marked present.
 * - fairShareIndex = Jain's fairness index of meals eaten by the month's active members × 100:
 *   (Σ meals)² / (n × Σ meals²). 100 when every active member ate as often as every other; it falls towards 100/n
 *   when a few members eat most meals — the month in which a flat split would be least fair. 100 with no active
 *   member.
 * - overallScore = 0.4 × mealQuality + 0.4 × attendanceRate + 0.2 × fairShareIndex.
 */
export interface HealthInputs {
  averageRating: number | null;
  presentMarks: number;
  approvedMembers: number;
  servedSlots: number;
  /** The meals of the month's active members (see `mealSpread`). */
  mealSpread: MealSpread;
}

/** Active members (meals > 0), their meals and Σ meals²: all the fair-share index needs, summable in SQL. */
export interface MealSpread {
  members: number;
  meals: number;
  squares: number;
}

export interface HealthScore {
  mealQuality: number;
  attendanceRate: number;
  fairShareIndex: number;
  overallScore: number;
}

export function healthScore(inputs: HealthInputs): HealthScore {
  const mealQuality = inputs.averageRating === null ? 50 : clamp(((inputs.averageRating - 1) / 4) * 100);
  const possible = inputs.approvedMembers * inputs.servedSlots;
  const attendanceRate = possible === 0 ? 0 : clamp((inputs.presentMarks / possible) * 100);
  const fairShareIndex = jainOf(inputs.mealSpread) * 100;
  const overallScore = 0.4 * mealQuality + 0.4 * attendanceRate + 0.2 * fairShareIndex;
  return {
    mealQuality: round1(mealQuality),
    attendanceRate: round1(attendanceRate),
    fairShareIndex: round1(fairShareIndex),
    overallScore: round1(overallScore),
  };
}

export function mealSpread(mealsPerMember: readonly number[]): MealSpread {
  const positive = mealsPerMember.filter((v) => v > 0);
  return {
    members: positive.length,
    meals: positive.reduce((a, b) => a + b, 0),
    squares: positive.reduce((a, b) => a + b * b, 0),
  };
}

/** Jain's fairness index of the spread's meals; 1 with no active member. */
export function jainOf({ members, meals, squares }: MealSpread): number {
  return members === 0 ? 1 : (meals * meals) / (members * squares);
}

export function jainIndex(values: readonly number[]): number {
  return jainOf(mealSpread(values));
}

/**
 * present marks / (diners × slots served), capped at 1, to four decimals; 0 when nothing could be eaten. The
 * attendance analytics' rate, and the university view's.
 */
export function attendanceRate(presentMarks: number, diners: number, servedSlots: number): number {
  const possible = diners * servedSlots;
  return possible === 0 ? 0 : Number(Math.min(1, presentMarks / possible).toFixed(4));
}

const clamp = (n: number) => Math.min(100, Math.max(0, n));
const round1 = (n: number) => Math.round(n * 10) / 10;
