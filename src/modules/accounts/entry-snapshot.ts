import type { AccountEntryRow } from './accounts.schema';

/** An entry as its audit row records it (`after`, money in paise): by hand, from a claim, a statement, the gateway. */
export function entrySnapshot(entry: AccountEntryRow): Record<string, unknown> {
  return {
    entryId: entry.id,
    kind: entry.kind,
    direction: entry.direction,
    amountPaise: entry.amountPaise,
    date: entry.date,
    method: entry.method,
    reference: entry.reference,
    note: entry.note,
    reverses: entry.reverses,
  };
}
