/**
 * A strict parser of the Prometheus text exposition format 0.0.4 (the format `text/plain; version=0.0.4`, as
 * specified in Prometheus' "Exposition formats"). The npm parser `parse-prometheus-text-format` drops the labels of
 * histogram series, so it cannot check route templates; this one refuses anything the format does not allow:
 * - `# HELP name text` and `# TYPE name type` at most once per family, TYPE before the family's first sample;
 * - sample lines `name{label="value",…} value [timestamp]`, names and label names by the format's grammar, label
 *   values with only the escapes \\, \" and \n, values as Go floats (also NaN, +Inf, -Inf);
 * - a family's samples in one group, no two samples with the same name and labels;
 * - histograms: `_bucket` samples with an `le` label, cumulative (never decreasing), a `+Inf` bucket equal to
 *   `_count`, and `_sum`/`_count` for every label set.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name (`x_bucket`, `x_sum`, `x_count` for a histogram `x`). */
  name: string;
  labels: Record<string, string>;
  value: number;
  timestamp?: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help?: string;
  samples: Sample[];
}

export interface HistogramSeries {
  labels: Record<string, string>;
  /** Upper bound (`le`) → cumulative count. */
  buckets: Map<number, number>;
  sum: number;
  count: number;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export class ExpositionError extends Error {}

/** A Go float, as Prometheus reads it (strconv.ParseFloat: NaN, Inf and Infinity in any case, with a sign). */
function parseValue(text: string, line: number): number {
  if (/^nan$/i.test(text)) return NaN;
  const infinite = /^([+-]?)inf(inity)?$/i.exec(text);
  if (infinite) return infinite[1] === '-' ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text))
    throw new ExpositionError(`line ${line}: "${text}" is not a sample value`);
  return Number(text);
}

/** The family a sample name belongs to: a histogram's `_bucket/_sum/_count`, a summary's `_sum/_count`. */
function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(sample);
  if (direct) return direct;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sample.endsWith(suffix)) continue;
    const family = families.get(sample.slice(0, -suffix.length));
    if (family?.type === 'histogram' || (family?.type === 'summary' && suffix !== '_bucket')) return family;
  }
  return undefined;
}

function parseLabels(text: string, line: number): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1; // after "{"
  for (;;) {
    if (text[i] === '}') return { labels, rest: text.slice(i + 1) };
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i))?.[0];
    if (!name) throw new ExpositionError(`line ${line}: bad label name at "${text.slice(i, i + 20)}"`);
    i += name.length;
    if (text[i] !== '=' || text[i + 1] !== '"')
      throw new ExpositionError(`line ${line}: expected ="… after ${name}`);
    i += 2;
    let value = '';
    for (;;) {
      const c = text[i];
      if (c === undefined) throw new ExpositionError(`line ${line}: unterminated label value`);
      i += 1;
      if (c === '"') break;
      if (c === '\\') {
        const next = text[i];
        i += 1;
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else throw new ExpositionError(`line ${line}: bad escape \\${next} in a label value`);
      } else value += c;
    }
    if (name in labels) throw new ExpositionError(`line ${line}: label ${name} twice`);
    labels[name] = value;
    if (text[i] === ',') i += 1;
    else if (text[i] !== '}') throw new ExpositionError(`line ${line}: expected , or } after a label`);
  }
}

/** Parses an exposition; throws ExpositionError naming the line of the first thing the format does not allow. */
export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const described = new Set<string>();
  const seen = new Set<string>();
  const closed = new Set<string>();
  let current: string | undefined;
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(raw);
      if (!m) return; // a comment
      const [, keyword, name, rest = ''] = m;
      if (!METRIC_NAME.test(name)) throw new ExpositionError(`line ${line}: bad metric name ${name}`);
      const family = families.get(name) ?? { name, type: 'untyped' as MetricType, samples: [] };
      if (keyword === 'HELP') {
        if (described.has(name)) throw new ExpositionError(`line ${line}: second HELP for ${name}`);
        described.add(name);
        family.help = rest.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
      } else {
        if (family.samples.length)
          throw new ExpositionError(`line ${line}: TYPE of ${name} after its samples`);
        if (!TYPES.has(rest.trim() as MetricType))
          throw new ExpositionError(`line ${line}: unknown type ${rest}`);
        if (families.has(name) && families.get(name)!.type !== 'untyped')
          throw new ExpositionError(`line ${line}: second TYPE for ${name}`);
        family.type = rest.trim() as MetricType;
      }
      families.set(name, family);
      return;
    }
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(raw)?.[0];
    if (!name) throw new ExpositionError(`line ${line}: not a sample: ${raw}`);
    let rest = raw.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) ({ labels, rest } = parseLabels(rest, line));
    const parts = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2)
      throw new ExpositionError(`line ${line}: expected " value [timestamp]" after the labels`);
    const value = parseValue(parts[0], line);
    const timestamp = parts[1] === undefined ? undefined : Number(parts[1]);
    if (timestamp !== undefined && !Number.isInteger(timestamp))
      throw new ExpositionError(`line ${line}: bad timestamp ${parts[1]}`);
    for (const label of Object.keys(labels))
      if (!LABEL_NAME.test(label) || label.startsWith('__'))
        throw new ExpositionError(`line ${line}: reserved or bad label name ${label}`);

    let family = familyOf(name, families);
    if (!family) {
      family = { name, type: 'untyped', samples: [] };
      families.set(name, family);
    }
    if (family.name !== current) {
      if (current) closed.add(current);
      if (closed.has(family.name))
        throw new ExpositionError(`line ${line}: samples of ${family.name} not in one group`);
      current = family.name;
    }
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key))
      throw new ExpositionError(`line ${line}: a second sample ${name} with the same labels`);
    seen.add(key);
    if (family.type === 'histogram' && name === `${family.name}_bucket` && !('le' in labels))
      throw new ExpositionError(`line ${line}: a histogram bucket without le`);
    family.samples.push({ name, labels, value, ...(timestamp !== undefined ? { timestamp } : {}) });
  });
  for (const family of families.values()) if (family.type === 'histogram') histogramSeries(family);
  return families;
}

/** A histogram's series by label set (without `le`), checked: cumulative buckets, +Inf = count, sum present. */
export function histogramSeries(family: Family): HistogramSeries[] {
  if (family.type !== 'histogram') throw new ExpositionError(`${family.name} is a ${family.type}`);
  const byLabels = new Map<string, HistogramSeries & { hasSum: boolean; hasCount: boolean }>();
  for (const sample of family.samples) {
    const { le, ...labels } = sample.labels;
    const key = JSON.stringify(Object.entries(labels).sort());
    let series = byLabels.get(key);
    if (!series) {
      series = { labels, buckets: new Map(), sum: 0, count: 0, hasSum: false, hasCount: false };
      byLabels.set(key, series);
    }
    if (sample.name.endsWith('_bucket')) series.buckets.set(parseValue(le, 0), sample.value);
    else if (sample.name.endsWith('_sum')) [series.sum, series.hasSum] = [sample.value, true];
    else [series.count, series.hasCount] = [sample.value, true];
  }
  return [...byLabels.values()].map(({ hasSum, hasCount, ...series }) => {
    const where = `${family.name}${JSON.stringify(series.labels)}`;
    if (!hasSum || !hasCount) throw new ExpositionError(`${where}: _sum and _count are required`);
    const bounds = [...series.buckets.keys()].sort((a, b) => a - b);
    if (bounds[bounds.length - 1] !== Infinity) throw new ExpositionError(`${where}: no +Inf bucket`);
    let previous = 0;
    for (const bound of bounds) {
      const count = series.buckets.get(bound)!;
      if (count < previous) throw new ExpositionError(`${where}: bucket le=${bound} is below the one before`);
      previous = count;
    }
    if (series.buckets.get(Infinity) !== series.count)
      throw new ExpositionError(`${where}: the +Inf bucket differs from _count`);
    return series;
  });
}
