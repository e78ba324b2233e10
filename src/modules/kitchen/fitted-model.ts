import type { Estimate } from './forecast-estimate';
import type { FittedModel, KitchenRecords } from './forecast-types';
import { dayNumber, type RecordsIndex } from './records-index';

/**
 * A fitted model as kept (JSON, the probabilities as Float64 bytes in base64) and back: what `KitchenForecaster`
 * needs to forecast the cutoff date and later ones without reading the history again.
 */

const encode = (values: Float64Array) =>
  Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');

function decode(base64: string): Float64Array {
  const bytes = Buffer.from(base64, 'base64');
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** The model as of `cutoff` (a date): the estimate from the days before it, and where each member's history starts. */
export function toFittedModel(
  index: RecordsIndex,
  records: KitchenRecords,
  cutoff: string,
  e: Estimate,
  historyStart: (member: number) => number,
): FittedModel {
  const dish: Record<string, number> = {};
  for (const [name, id] of index.dishIds) if (e.dish[id] !== 1) dish[name] = e.dish[id];
  return {
    cutoff,
    mealTypes: [...records.mealTypes],
    memberIds: records.members.map((m) => m.id),
    historyStart: Array.from({ length: index.members }, (_, u) => historyStart(u) + index.first),
    p: encode(e.p),
    level: Array.from(e.level),
    residual: Array.from(e.residual),
    dish,
    historyDays: e.historyDays,
    firstHistoryDay: e.firstHistoryDay < 0 ? -1 : e.firstHistoryDay + index.first,
    prior: Array.from(e.prior),
  };
}

/** Whether a fitted model is of exactly these meals and members (in any order). */
export function fits(model: FittedModel, records: KitchenRecords): boolean {
  if (model.mealTypes.join('\n') !== records.mealTypes.join('\n')) return false;
  if (model.memberIds.length !== records.members.length) return false;
  const ids = new Set(model.memberIds);
  return ids.size === model.memberIds.length && records.members.every((m) => ids.has(m.id));
}

/**
 * The kept model read into the index's numbering: its cutoff (day index), each member's history start (day index)
 * and its estimate, the members in the records' order. Throws when it is of other members or meals.
 */
export function loadModel(
  index: RecordsIndex,
  records: KitchenRecords,
  model: FittedModel,
): { cutoff: number; historyStart: Int32Array; estimate: Estimate } {
  const order = model.memberIds.map((id) => index.memberIndex.get(id));
  if (
    model.mealTypes.join('\n') !== records.mealTypes.join('\n') ||
    order.length !== index.members ||
    order.some((u) => u === undefined)
  )
    throw new Error('the fitted model is of other members or meals');
  const stored = decode(model.p);
  const row = index.meals * 7;
  const p = new Float64Array(stored.length);
  const historyStart = new Int32Array(index.members);
  order.forEach((u, i) => {
    p.set(stored.subarray(i * row, (i + 1) * row), u! * row);
    historyStart[u!] = model.historyStart[i] - index.first;
  });
  const dish = new Float64Array(index.dishCount).fill(1);
  for (const [name, id] of index.dishIds) dish[id] = model.dish[name] ?? 1;
  return {
    cutoff: dayNumber(model.cutoff) - index.first,
    historyStart,
    estimate: {
      p,
      prior: Float64Array.from(model.prior ?? []),
      level: Float64Array.from(model.level),
      dish,
      residual: Float64Array.from(model.residual),
      historyDays: model.historyDays,
      firstHistoryDay: model.firstHistoryDay < 0 ? -1 : model.firstHistoryDay - index.first,
    },
  };
}

/**
 * A kept model made to fit the members as they stand, to answer from while the model is fitted again: members who
 * left are dropped; a member who joined since gets the probability of a member with no history here (the mess's
 * rate at the meal × its weekday pattern, as a fit gives a joiner) and a history that starts the day they joined.
 * Undefined when the meal times changed, or the model keeps no such probability (kept before it did).
 */
export function adaptModel(model: FittedModel, records: KitchenRecords): FittedModel | undefined {
  if (model.mealTypes.join('\n') !== records.mealTypes.join('\n')) return undefined;
  if (fits(model, records)) return model;
  const { prior } = model;
  const row = model.mealTypes.length * 7;
  if (!prior || prior.length !== row) return undefined;
  const position = new Map(model.memberIds.map((id, i) => [id, i]));
  const stored = decode(model.p);
  const p = new Float64Array(records.members.length * row);
  const historyStart = records.members.map((member, u) => {
    const i = position.get(member.id);
    if (i === undefined) {
      p.set(prior, u * row);
      return dayNumber(member.since);
    }
    p.set(stored.subarray(i * row, (i + 1) * row), u * row);
    return model.historyStart[i];
  });
  return { ...model, memberIds: records.members.map((m) => m.id), historyStart, p: encode(p) };
}
