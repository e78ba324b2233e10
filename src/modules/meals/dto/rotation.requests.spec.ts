import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { SetRotationDto } from './rotation.requests';

const entry = { week: 1, day: 'Mon', mealType: 'Lunch', dishes: ['Rice', 'Dal'], notes: '' };
const valid = { startsOn: '2025-03-03', weeks: 2, entries: [entry] };

/** The bad fields, nested ones with dots, as the request pipe reports them (stopAtFirstError). */
function badFields(body: Record<string, unknown>): string[] {
  const errors = validateSync(plainToInstance(SetRotationDto, body) as object, {
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
  });
  const walk = (list: typeof errors, parent: string): string[] =>
    list.flatMap((e) => {
      const field = parent ? `${parent}.${e.property}` : e.property;
      return [...(e.constraints ? [field] : []), ...walk(e.children ?? [], field)];
    });
  return walk(errors, '').sort();
}

describe('SetRotationDto', () => {
  it('takes a rotation of 1 to 6 weeks with entries as a menu has them', () => {
    expect(badFields(valid)).toEqual([]);
    expect(badFields({ ...valid, weeks: 6, entries: [] })).toEqual([]);
  });

  it('names each bad field: the date, the weeks, and an entry by its index', () => {
    expect(
      badFields({
        startsOn: '2025-02-30',
        weeks: 0,
        entries: [
          entry,
          { ...entry, week: 7 },
          { ...entry, day: 'Monday' },
          { ...entry, dishes: [] },
          { ...entry, notes: 'x'.repeat(501) },
          { ...entry, mealType: '' },
        ],
      }),
    ).toEqual(
      [
        'startsOn',
        'weeks',
        'entries.1.week',
        'entries.2.day',
        'entries.3.dishes',
        'entries.4.notes',
        'entries.5.mealType',
      ].sort(),
    );
    expect(badFields({ ...valid, weeks: 1.5, entries: 'x' })).toEqual(['entries', 'weeks']);
  });
});
