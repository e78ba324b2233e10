// Summarises a V8 .cpuprofile (node --cpu-prof): the top functions by self time, and by total (inclusive) time
// grouped by package or source file, so the per-request cost of each layer can be read off one profile.
//   node scripts/cpuprofile-top.mjs <file.cpuprofile> [--top 30] [--requests N] [--skip ms]
import { readFileSync } from 'node:fs';

const [file] = process.argv.slice(2).filter((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const TOP = arg('top', 30);
const REQUESTS = arg('requests', 0);
const SKIP_MS = arg('skip', 0);
const profile = JSON.parse(readFileSync(file, 'utf8'));
// --skip <ms>: leave out the first ms of the profile (start-up, warm-up), so only the load window counts.
if (SKIP_MS) {
  let t = 0;
  const keep = profile.samples.map((_, i) => (t += profile.timeDeltas[i]) / 1000 >= SKIP_MS);
  profile.samples = profile.samples.filter((_, i) => keep[i]);
  profile.timeDeltas = profile.timeDeltas.filter((_, i) => keep[i]);
}
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Self time per node from the samples and their time deltas (microseconds).
const self = new Map();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const totalUs = [...self.values()].reduce((a, b) => a + b, 0);

const where = (cf) => {
  const url = cf.url || '';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.includes('/dist/')) return 'ours:' + url.slice(url.indexOf('/dist/') + 6);
  if (url.startsWith('node:')) return url;
  return url ? url.split('/').slice(-2).join('/') : `(${cf.functionName || 'native'})`;
};
const label = (cf) => `${cf.functionName || '(anonymous)'} ${where(cf)}:${cf.lineNumber + 1}`;

const ms = (us) => (us / 1000).toFixed(0).padStart(7) + ' ms';
const pct = (us) => ((100 * us) / totalUs).toFixed(1).padStart(5) + ' %';
const perReq = (us) => (REQUESTS ? ` ${(us / 1000 / REQUESTS * 1000).toFixed(1).padStart(6)} µs/req` : '');

const selfByFn = new Map();
for (const [id, us] of self) {
  const key = label(byId.get(id).callFrame);
  selfByFn.set(key, (selfByFn.get(key) ?? 0) + us);
}
console.log(`total sampled ${ms(totalUs)}${REQUESTS ? `, ${REQUESTS} requests` : ''}`);
console.log(`\nTop ${TOP} by self time`);
for (const [k, us] of [...selfByFn].sort((a, b) => b[1] - a[1]).slice(0, TOP))
  console.log(`${ms(us)} ${pct(us)}${perReq(us)}  ${k}`);

// Self time by package / file.
const selfByWhere = new Map();
for (const [id, us] of self) {
  const key = where(byId.get(id).callFrame);
  selfByWhere.set(key, (selfByWhere.get(key) ?? 0) + us);
}
console.log(`\nSelf time by package or file`);
for (const [k, us] of [...selfByWhere].sort((a, b) => b[1] - a[1]).slice(0, TOP))
  console.log(`${ms(us)} ${pct(us)}${perReq(us)}  ${k}`);

// Inclusive time per function (counted once per sample even under recursion).
const incl = new Map();
profile.samples.forEach((id, i) => {
  const seen = new Set();
  for (let n = id; n !== undefined; n = parent.get(n)) {
    const key = label(byId.get(n).callFrame);
    if (seen.has(key)) continue;
    seen.add(key);
    incl.set(key, (incl.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
});
console.log(`\nTop ${TOP * 2} by total (inclusive) time`);
for (const [k, us] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, TOP * 2))
  console.log(`${ms(us)} ${pct(us)}${perReq(us)}  ${k}`);
