// The modules' dependency graph, read from the import lines of src/modules/**: fails on a cycle between modules
// and prints the modules level by level (a module depends only on modules of lower levels). With a barrel per
// module a cycle is not a style matter: the module whose index is half loaded hands the other `undefined` for a
// Nest module in `imports: [...]` or a constructor's parameter type. Type-only imports (`import type`, or every
// name marked `type`) are erased from the JavaScript, so they are listed but cannot make a cycle. Nor can a schema
// file's import of another module's schema file (a foreign key needs the table object): it loads that one file,
// not the module's index; those imports are checked for a cycle among the schema files alone.
//
// Usage: node scripts/module-graph.mjs [--edges]   (--edges also lists which file imports which module)
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const defaultRoot = resolve(dirname(new URL(import.meta.url).pathname), '..');

/**
 * Reads the graph of src/modules/** under `root`: the modules (sorted), each one's run-time and type-only imports
 * of other modules (module → (module → [files])), each one's level, and the first cycle found (or null). Used by
 * this script and by scripts/architecture-tables.mjs (the levels table of docs/architecture.md).
 */
export function readModuleGraph(root = defaultRoot) {
  const modulesDir = join(root, 'src', 'modules');

  const files = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
    );

  const moduleOf = (file) => {
    const rel = relative(modulesDir, file);
    return rel.startsWith('..') ? null : rel.split(sep)[0];
  };

  // import … from '…' / export … from '…' / import '…' / import('…'); comments are stripped first.
  const importPattern = /(?:^|[;\s])(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;
  const isTypeOnly = (typeKeyword, clause) => {
    if (typeKeyword) return true;
    const named = /^\{([\s\S]*)\}$/.exec(clause.trim());
    if (!named) return false;
    const names = named[1].split(',').map((n) => n.trim()).filter(Boolean);
    return names.length > 0 && names.every((n) => n.startsWith('type '));
  };

  const modules = readdirSync(modulesDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const runtime = new Map(modules.map((m) => [m, new Map()])); // from → (to → [files])
  const typeOnly = new Map(modules.map((m) => [m, new Map()]));
  const schemaImports = new Map(); // schema file → schema files of other modules it references

  for (const file of files(modulesDir)) {
    if (file.endsWith('.spec.ts')) continue;
    const from = moduleOf(file);
    const source = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const m of source.matchAll(importPattern)) {
      const specifier = m[4] ?? m[5] ?? m[6];
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      const to = moduleOf(target);
      if (to === null || to === from) continue;
      if (file.endsWith('.schema.ts') && target.endsWith('.schema')) {
        schemaImports.set(file, [...(schemaImports.get(file) ?? []), `${target}.ts`]);
        continue;
      }
      const graph = m[4] !== undefined && isTypeOnly(m[2], m[3]) ? typeOnly : runtime;
      const byTarget = graph.get(from);
      byTarget.set(to, [...(byTarget.get(to) ?? []), relative(root, file)]);
    }
  }

  // Levels: a module's level is one more than the highest level among what it imports at run time.
  const level = new Map();
  const visiting = [];
  let cycle = null;
  const visit = (m) => {
    if (level.has(m)) return level.get(m);
    const at = visiting.indexOf(m);
    if (at >= 0) {
      cycle ??= [...visiting.slice(at), m];
      return 0;
    }
    visiting.push(m);
    let l = 0;
    for (const to of runtime.get(m).keys()) l = Math.max(l, visit(to) + 1);
    visiting.pop();
    level.set(m, l);
    return l;
  };
  modules.forEach(visit);

  // Schema files among themselves: a cycle there would hand a foreign key an undefined table.
  const schemaDone = new Set();
  const visitSchema = (file, path) => {
    if (path.includes(file)) {
      cycle ??= [...path.slice(path.indexOf(file)), file].map((f) => relative(root, f));
      return;
    }
    if (schemaDone.has(file)) return;
    for (const to of schemaImports.get(file) ?? []) visitSchema(to, [...path, file]);
    schemaDone.add(file);
  };
  [...schemaImports.keys()].forEach((f) => visitSchema(f, []));

  return { root, modules, runtime, typeOnly, level, cycle };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const showEdges = process.argv.includes('--edges');
  const { root, modules, runtime, typeOnly, level, cycle } = readModuleGraph();
  if (showEdges) {
    for (const m of modules) {
      for (const [graph, kind] of [[runtime, ''], [typeOnly, ' (type)']]) {
        for (const [to, fs] of graph.get(m)) for (const f of fs) console.log(`${m} → ${to}${kind}: ${f}`);
      }
    }
  }

  if (cycle) {
    console.error(`module-graph: import cycle between modules: ${cycle.join(' → ')}`);
    for (let i = 0; i < cycle.length - 1; i++) {
      for (const f of runtime.get(cycle[i])?.get(cycle[i + 1]) ?? []) console.error(`  ${f} imports ${cycle[i + 1]}`);
    }
    process.exit(1);
  }

  const byLevel = [];
  for (const m of modules) (byLevel[level.get(m)] ??= []).push(m);
  console.log('Module levels (each depends only on lower levels):');
  byLevel.forEach((ms, l) => {
    console.log(`  ${l}: ${ms.map((m) => `${m}${runtime.get(m).size ? ` → ${[...runtime.get(m).keys()].sort().join(', ')}` : ''}`).join('; ')}`);
  });
  const typeEdges = modules.flatMap((m) => [...typeOnly.get(m).keys()].filter((t) => !runtime.get(m).has(t)).map((t) => `${m} → ${t}`));
  if (typeEdges.length) console.log(`Type-only (erased): ${typeEdges.join('; ')}`);
}
