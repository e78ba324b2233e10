/** The billing module's error texts: thrown by its services and documented by its controller. */
export const BillingErrors = {
  alreadyClosed: (month: string) => `Month ${month} is already closed`,
  notClosed: (month: string) => `Month ${month} is not closed`,
  notBegun: 'A month that has not begun cannot be closed',
  notOver: (month: string, date: string, time: string) =>
    `Month ${month} is not over: it can be closed after its last meal ends (${time} on ${date})`,
} as const;
