/**
 * The body of POST /auth/admin/setup most suites need: Breakfast, Lunch and Dinner at the default times. A suite
 * overrides what it is about (categories, a budget). (Its own file, so that the medium tier reads it without the
 * whole app that support/app.ts starts.)
 */
export const messSetup = (overrides: Record<string, unknown> = {}) => ({
  messName: 'Hostel 7 Mess',
  email: 'mess@college.edu',
  phone: '+91-8012345678',
  expenseCategories: ['Groceries', 'Gas'],
  mealTimes: [
    { name: 'Breakfast', startTime: '07:30', endTime: '09:30' },
    { name: 'Lunch', startTime: '12:30', endTime: '14:30' },
    { name: 'Dinner', startTime: '19:30', endTime: '21:30' },
  ],
  ...overrides,
});
