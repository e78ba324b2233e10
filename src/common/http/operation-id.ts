/**
 * Each operation's `operationId`, by `Controller.method`: the names a generated client exposes (`listExpenses`,
 * `closeMonth`), so renaming a handler does not rename a client call. A handler not listed gets `method` +
 * resource (`AccountsController.list` → `listAccounts`) when its name is one word, else its own name; the document
 * refuses two operations with one id.
 */
const OPERATION_IDS: Record<string, string> = {
  'AuthController.register': 'register',
  'AuthController.login': 'login',
  'AuthController.logout': 'logout',
  'AttendanceController.list': 'listAttendance',
  'AttendanceController.mark': 'markAttendance',
  'AttendanceController.markMany': 'markAttendanceBulk',
  'AttendanceController.changeStatus': 'changeAttendanceStatus',
  'FeedbackController.list': 'listFeedback',
  'FeedbackController.submit': 'submitFeedback',
  'FeedbackController.update': 'updateFeedback',
  'ExpensesController.list': 'listExpenses',
  'ExpensesController.create': 'createExpense',
  'ExpensesController.get': 'getExpense',
  'ExpensesController.replace': 'replaceExpense',
  'ExpensesController.remove': 'deleteExpense',
  'MealsController.list': 'listMeals',
  'MealsController.create': 'createMeal',
  'MealsController.get': 'getMeal',
  'MealsController.replace': 'replaceMeal',
  'MealsController.remove': 'deleteMeal',
  'AnalyticsController.expenses': 'getExpenseAnalytics',
  'AnalyticsController.attendance': 'getAttendanceAnalytics',
  'AnalyticsController.health': 'getMessHealth',
  'BillingController.shares': 'listShares',
  'BillingController.myShare': 'getMyShare',
  'BillingController.sharesCsv': 'downloadSharesCsv',
  'BillingController.months': 'listMonths',
  'BillingController.status': 'getMonthStatus',
  'BillingController.close': 'closeMonth',
  'BillingController.reopen': 'reopenMonth',
  'AccountsController.list': 'listAccounts',
  'AccountsController.me': 'getMyAccount',
  'AccountsController.get': 'getAccount',
  'AccountsController.statement': 'getStatement',
  'AccountsController.payment': 'recordPayment',
  'AccountsController.adjustment': 'recordAdjustment',
  'AccountsController.opening': 'recordOpeningBalance',
  'AccountsController.reverse': 'reverseEntry',
  'ExtrasController.record': 'recordExtra',
  'ExtrasController.list': 'listExtras',
  'ExtrasController.remove': 'deleteExtra',
  'AttendanceController.pass': 'getMealPass',
  'AttendanceController.scan': 'scanMealPass',
  'AnalyticsController.headcount': 'getHeadcount',
  'AuditController.list': 'listAuditEvents',
};

/** The `operationIdFactory` of the document: see OPERATION_IDS. */
export function operationId(controllerKey: string, methodKey: string): string {
  const listed = OPERATION_IDS[`${controllerKey}.${methodKey}`];
  if (listed) return listed;
  if (/[A-Z]/.test(methodKey)) return methodKey;
  return methodKey + controllerKey.replace(/Controller$/, '');
}
