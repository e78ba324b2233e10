import { addDays } from '../../src/common/time/dates';

/**
 * A mess's history made up, deterministically from a seed, to tune and test the kitchen's forecast on: members with
 * their own propensity per meal and weekday, the mess's weekday × meal pattern, exam weeks, a festival break that
 * most members take approved leave for (and the rest eat less in), popular and unpopular dishes, members who never
 * come, members who join along the way, a little ordinary leave, and a day-to-day shock shared by everyone (weather,
 * a cricket final) that no forecast can know. Pure data: unit tests read it, e2e tests and the bench insert it.
 */
export interface SimulationOptions {
  seed: number;
  members: number;
  /** The first day (a Monday is natural, any date works). */
  start: string;
  historyWeeks: number;
  testWeeks: number;
  mealTypes?: string[];
  /** Day offsets (from `start`) of the festival break: most members on approved leave. */
  festival?: { firstDay: number; days: number; leaveShare: number };
  /** Week numbers (0 = the first week) with exams. */
  examWeeks?: number[];
  /** Members who join during the simulated span, as a share of `members`. */
  joinerShare?: number;
  /** Members on the rolls who never eat at the mess. */
  neverShare?: number;
  /** The standard deviation of the day's shared shock (multiplies every propensity of the meal). */
  dayShock?: number;
}

export interface SimulatedMember {
  id: string;
  fullName: string;
  /** The first day on the rolls. */
  since: string;
}

export interface SimulatedMark {
  userId: string;
  date: string;
  mealType: string;
  status: 'present' | 'absent';
}

/** Approved leave from the first covered meal to the last, inclusive. */
export interface SimulatedLeave {
  userId: string;
  startDate: string;
  startMealType: string;
  endDate: string;
  endMealType: string;
}

export interface SimulatedMenu {
  date: string;
  mealType: string;
  dishes: string[];
}

export interface SimulatedMess {
  mealTypes: string[];
  /** Every day, history then test. */
  days: string[];
  /** The first day of the test period. */
  testStart: string;
  members: SimulatedMember[];
  /** Present marks are the actuals; absent marks are declarations of members who said they would not come. */
  marks: SimulatedMark[];
  leaves: SimulatedLeave[];
  menus: SimulatedMenu[];
}

/** mulberry32: small, fast, and the same numbers on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const normal = (random: () => number) =>
  Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());

const clamp01 = (p: number) => Math.min(0.995, Math.max(0, p));

/** A uuid made from the random stream (version 4 layout), so ids are reproducible too. */
function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[Math.floor(random() * 4)]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const BASE_RATE: Record<string, number> = { Breakfast: 0.55, Lunch: 0.72, Dinner: 0.8 };
/** The mess's weekday × meal pattern (0 = Sunday): late Sunday breakfasts, Saturday dinners out. */
const WEEKDAY_EFFECT: Record<string, number[]> = {
  Breakfast: [0.55, 1, 1.02, 1, 1, 0.97, 0.8],
  Lunch: [0.85, 1.02, 1.02, 1.02, 1, 0.98, 0.9],
  Dinner: [0.95, 1, 1, 1.02, 1, 0.9, 0.72],
};
/** Dishes with how much they draw people (×). */
const DISHES: [string, number][] = [
  ['Rice', 1],
  ['Dal', 1],
  ['Roti', 1],
  ['Paneer Butter Masala', 1.12],
  ['Chicken Biryani', 1.18],
  ['Chole Bhature', 1.08],
  ['Lauki Sabzi', 0.88],
  ['Karela Fry', 0.86],
  ['Aloo Gobi', 1],
  ['Rajma', 1.03],
  ['Kadhi Pakora', 0.97],
  ['Mixed Veg', 0.98],
  ['Egg Curry', 1.05],
  ['Poha', 1],
  ['Idli Sambar', 1.04],
  ['Upma', 0.9],
  ['Aloo Paratha', 1.1],
  ['Bread Omelette', 1.02],
  ['Gulab Jamun', 1.06],
];

/** Makes a mess: the same options and seed give the same mess. */
export function simulateMess(options: SimulationOptions): SimulatedMess {
  const random = seededRandom(options.seed);
  const mealTypes = options.mealTypes ?? ['Breakfast', 'Lunch', 'Dinner'];
  const totalDays = (options.historyWeeks + options.testWeeks) * 7;
  const days = Array.from({ length: totalDays }, (_, i) => addDays(options.start, i));
  const testStart = days[options.historyWeeks * 7];
  const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();
  const dayShock = options.dayShock ?? 0.035;

  // Members: a kind (regular, occasional, rare) sets the level; each has a taste per meal and per weekday.
  interface Person {
    member: SimulatedMember;
    rate: Record<string, number[]>;
    /** Goes home some weekends: skips Saturday dinner to Sunday lunch with this probability. */
    weekendsAway: number;
    foodie: number;
  }
  const joiners = Math.round(options.members * (options.joinerShare ?? 0.06));
  const never = Math.round(options.members * (options.neverShare ?? 0.03));
  const people: Person[] = [];
  for (let i = 0; i < options.members + joiners; i += 1) {
    const joinDay = i < options.members ? 0 : 14 + Math.floor(random() * (totalDays - 21));
    const kind = random();
    const level = i < never ? 0 : kind < 0.65 ? 1.12 : kind < 0.92 ? 0.75 : 0.3;
    const rate: Record<string, number[]> = {};
    for (const meal of mealTypes) {
      const base = BASE_RATE[meal] ?? 0.7;
      const taste = Math.exp(normal(random) * 0.35);
      const pattern = WEEKDAY_EFFECT[meal] ?? [1, 1, 1, 1, 1, 1, 1];
      rate[meal] = pattern.map((effect) =>
        clamp01(base * level * taste * effect * Math.exp(normal(random) * 0.12)),
      );
    }
    people.push({
      member: { id: uuidFrom(random), fullName: `Simulated Member ${i + 1}`, since: days[joinDay] },
      rate,
      weekendsAway: random() < 0.25 ? 0.3 + random() * 0.5 : 0,
      foodie: 0.5 + random(),
    });
  }

  // Leave: the festival break (most members, a day or so either side), and a little ordinary leave.
  const leaves: SimulatedLeave[] = [];
  const onLeave = new Set<string>();
  const leaveKey = (userId: string, day: number, meal: number) => `${userId}|${day}|${meal}`;
  const addLeave = (
    userId: string,
    firstDay: number,
    firstMeal: number,
    lastDay: number,
    lastMeal: number,
  ) => {
    if (firstDay < 0 || lastDay >= totalDays) return;
    for (let d = firstDay; d <= lastDay; d += 1) {
      for (let m = 0; m < mealTypes.length; m += 1) {
        if ((d === firstDay && m < firstMeal) || (d === lastDay && m > lastMeal)) continue;
        if (onLeave.has(leaveKey(userId, d, m))) return;
      }
    }
    for (let d = firstDay; d <= lastDay; d += 1) {
      for (let m = 0; m < mealTypes.length; m += 1) {
        if ((d === firstDay && m < firstMeal) || (d === lastDay && m > lastMeal)) continue;
        onLeave.add(leaveKey(userId, d, m));
      }
    }
    leaves.push({
      userId,
      startDate: days[firstDay],
      startMealType: mealTypes[firstMeal],
      endDate: days[lastDay],
      endMealType: mealTypes[lastMeal],
    });
  };
  const festival = options.festival;
  for (const person of people) {
    const joined = days.indexOf(person.member.since);
    if (festival && random() < festival.leaveShare) {
      const first = festival.firstDay - Math.floor(random() * 2);
      const last = festival.firstDay + festival.days - 1 + Math.floor(random() * 2);
      if (first > joined) {
        addLeave(
          person.member.id,
          first,
          Math.floor(random() * mealTypes.length),
          last,
          Math.floor(random() * mealTypes.length),
        );
      }
    }
    // About one short leave a term.
    for (let d = joined + 3; d < totalDays - 4; d += 1) {
      if (random() < 1 / 90) {
        addLeave(
          person.member.id,
          d,
          Math.floor(random() * mealTypes.length),
          d + 1 + Math.floor(random() * 3),
          mealTypes.length - 1,
        );
        d += 10;
      }
    }
  }

  // Menus: a weekly rotation, with one dish in four swapped for another so that dishes and weekdays part ways.
  const rotation = new Map<string, string[]>();
  const pick = () => DISHES[Math.floor(random() * DISHES.length)][0];
  for (let wd = 0; wd < 7; wd += 1) {
    for (const meal of mealTypes) rotation.set(`${wd}|${meal}`, ['Rice', 'Dal', pick(), pick()]);
  }
  const draw = new Map(DISHES);
  const menus: SimulatedMenu[] = [];
  const menuEffect = new Map<string, number>();
  for (const date of days) {
    for (const meal of mealTypes) {
      const dishes = [...rotation.get(`${weekday(date)}|${meal}`)!].map((dish, i) =>
        i >= 2 && random() < 0.25 ? pick() : dish,
      );
      const unique = [...new Set(dishes)];
      menus.push({ date, mealType: meal, dishes: unique });
      menuEffect.set(
        `${date}|${meal}`,
        unique.reduce((effect, dish) => effect * (draw.get(dish) ?? 1), 1),
      );
    }
  }

  // Attendance, day by day.
  const exams = new Set(options.examWeeks ?? []);
  const marks: SimulatedMark[] = [];
  for (let d = 0; d < totalDays; d += 1) {
    const date = days[d];
    const wd = weekday(date);
    const examFactor = exams.has(Math.floor(d / 7)) ? 1.1 : 1;
    const inFestival = festival && d >= festival.firstDay - 1 && d < festival.firstDay + festival.days + 1;
    for (let m = 0; m < mealTypes.length; m += 1) {
      const meal = mealTypes[m];
      const shock = Math.exp(normal(random) * dayShock);
      const menu = menuEffect.get(`${date}|${meal}`) ?? 1;
      for (const person of people) {
        if (person.member.since > date) continue;
        if (onLeave.has(leaveKey(person.member.id, d, m))) continue;
        let p = person.rate[meal][wd] * shock * examFactor * (1 + (menu - 1) * person.foodie);
        if (inFestival) p *= 0.8;
        const weekendMeal =
          (wd === 6 && m === mealTypes.length - 1) || (wd === 0 && m < mealTypes.length - 1);
        if (weekendMeal && person.weekendsAway > 0) p *= 1 - person.weekendsAway;
        const status = random() < clamp01(p) ? 'present' : random() < 0.15 ? 'absent' : null;
        if (status) marks.push({ userId: person.member.id, date, mealType: meal, status });
      }
    }
  }
  return { mealTypes, days, testStart, members: people.map((p) => p.member), marks, leaves, menus };
}

/** Each approved leave as the meal slots it covers (what the forecast reads). */
export function leaveSlotsOf(mess: Pick<SimulatedMess, 'mealTypes' | 'leaves'>): SimulatedMark[] {
  const slots: SimulatedMark[] = [];
  for (const leave of mess.leaves) {
    for (let date = leave.startDate; date <= leave.endDate; date = addDays(date, 1)) {
      mess.mealTypes.forEach((mealType, m) => {
        if (date === leave.startDate && m < mess.mealTypes.indexOf(leave.startMealType)) return;
        if (date === leave.endDate && m > mess.mealTypes.indexOf(leave.endMealType)) return;
        slots.push({ userId: leave.userId, date, mealType, status: 'absent' });
      });
    }
  }
  return slots;
}

/** The present marks of each date and meal: the actuals. */
export function actualsOf(mess: Pick<SimulatedMess, 'marks'>): Map<string, number> {
  const actual = new Map<string, number>();
  for (const mark of mess.marks) {
    if (mark.status !== 'present') continue;
    const key = `${mark.date}|${mark.mealType}`;
    actual.set(key, (actual.get(key) ?? 0) + 1);
  }
  return actual;
}
