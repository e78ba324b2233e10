// The tables of docs/architecture.md that the code can say, generated from it: the module levels (from
// scripts/module-graph.mjs's reading of the imports), the domain events (EventMap's names, who publishes each with
// `publish('name'` or `publishWithin(tx, 'name'`, who hears it with `@OnDomainEvent('name')`), the permissions
// (permissions.ts's descriptions and grants) and every route (METHOD /api/path → controller file and handler).
// Each lives in the page between `<!-- generated:<name>:start -->` and `<!-- generated:<name>:end -->`; the prose
// around them is kept by hand. Source files are parsed with TypeScript's own parser (no type-checking, so it is fast).
//
// Usage: node scripts/architecture-tables.mjs           rewrite the generated blocks (npm run docs:architecture)
//        node scripts/architecture-tables.mjs --check   fail with a diff when they differ (npm run docs:architecture:check)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { readModuleGraph } from './module-graph.mjs';

const defaultRoot = resolve(dirname(new URL(import.meta.url).pathname), '..');
export const DOC = 'docs/architecture.md';
export const BLOCKS = ['levels', 'events', 'permissions', 'routes'];
const HTTP_METHODS = ['Get', 'Post', 'Put', 'Patch', 'Delete', 'Head', 'Options', 'All'];

const tsFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [join(dir, e.name)] : [],
  );

const parse = (file) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);

const walk = (node, visit) => {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
};

const isStringy = (node) => node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node));

const decoratorsOf = (node) => (ts.canHaveDecorators(node) ? (ts.getDecorators(node) ?? []) : []);

/** `@Name(args…)` → {name, args}; other decorator shapes → null. */
const decoratorCall = (decorator) => {
  const call = decorator.expression;
  if (!ts.isCallExpression(call) || !ts.isIdentifier(call.expression)) return null;
  return { name: call.expression.text, args: call.arguments };
};

const enclosing = (node, test) => {
  for (let n = node.parent; n; n = n.parent) if (test(n)) return n;
  return null;
};

const propName = (name) => (ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : name.getText());

const cell = (text) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
const code = (text) => `\`${text}\``;
const table = (header, rows) =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

/** The folder a file belongs to: its module under src/modules, else its path under src. */
const ownerOf = (root, file) => {
  const rel = relative(join(root, 'src'), file).split(sep);
  return rel[0] === 'modules' ? rel[1] : rel.slice(0, -1).join('/');
};

// ---- (1) module levels -------------------------------------------------------------------------------------------

export function levelsTable(root = defaultRoot) {
  const { modules, runtime, typeOnly, level, cycle } = readModuleGraph(root);
  if (cycle) throw new Error(`import cycle between modules: ${cycle.join(' → ')} (npm run lint names the files)`);
  const dependents = new Map(modules.map((m) => [m, modules.filter((from) => runtime.get(from).has(m))]));
  const list = (ms) => (ms.length ? ms.map(code).join(', ') : '–');
  const rows = [...modules]
    .sort((a, b) => level.get(a) - level.get(b) || a.localeCompare(b))
    .map((m) => {
      const types = [...typeOnly.get(m).keys()].filter((t) => !runtime.get(m).has(t)).sort();
      return [
        String(level.get(m)),
        code(m),
        list([...runtime.get(m).keys()].sort()) + (types.length ? `; type only (erased): ${list(types)}` : ''),
        list(dependents.get(m)),
      ];
    });
  return table(['level', 'module', 'depends on', 'depended on by'], rows);
}

// ---- (2) events --------------------------------------------------------------------------------------------------

/** EventPayloads' names in order, each with its doc comment's first sentence-block (or ''). */
export function eventNames(root = defaultRoot) {
  const file = join(root, 'src/common/events/event-map.ts');
  const source = parse(file);
  const names = [];
  walk(source, (node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'EventPayloads') {
      for (const member of node.members) {
        const doc = ts.getJSDocCommentsAndTags(member).map((d) => ts.getTextOfJSDocComment(d.comment) ?? '').join(' ');
        names.push({ name: propName(member.name), doc: cell(doc) });
      }
    }
  });
  if (!names.length) throw new Error(`no EventPayloads interface in ${relative(root, file)}`);
  return names;
}

/** Where each event is published and heard, from every non-spec file under src/. */
export function eventUses(root = defaultRoot, names = eventNames(root).map((e) => e.name)) {
  const known = new Set(names);
  const publishers = new Map(names.map((n) => [n, new Set()]));
  const listeners = new Map(names.map((n) => [n, new Set()]));
  const unknown = [];
  for (const file of tsFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    if (!/publish|OnDomainEvent|OnCommitted/.test(text)) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const rel = relative(root, file);
    const owner = ownerOf(root, file);
    walk(source, (node) => {
      // this.events.publish('name', …), events.publish('name', …), publishWithin(tx, 'name', …)
      if (ts.isCallExpression(node)) {
        const callee = node.expression;
        const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : null;
        if (name === 'publish' || name === 'publishWithin') {
          const arg = node.arguments.find(isStringy);
          if (arg && known.has(arg.text)) publishers.get(arg.text).add(`${owner} (${code(rel.split('/').pop())})`);
        }
      }
      if (ts.isDecorator(node)) {
        const call = decoratorCall(node);
        // @OnCommitted(name): a cache's listener of a durable event, called in process at its commit.
        if (call?.name !== 'OnDomainEvent' && call?.name !== 'OnCommitted') return;
        const arg = call.args[0];
        const method = node.parent;
        const cls = enclosing(node, ts.isClassDeclaration);
        if (!isStringy(arg) || !known.has(arg.text)) {
          unknown.push(`${rel}: @${call.name}(${arg?.getText() ?? ''})`);
          return;
        }
        const at = call.name === 'OnCommitted' ? ' (at commit)' : '';
        listeners.get(arg.text).add(`${owner}: ${code(`${cls?.name?.text ?? '?'}#${propName(method.name)}`)}${at}`);
      }
    });
  }
  if (unknown.length) throw new Error(`listeners of no EventMap name:\n  ${unknown.join('\n  ')}`);
  return { publishers, listeners };
}

export function eventsTable(root = defaultRoot) {
  const events = eventNames(root);
  const { publishers, listeners } = eventUses(root, events.map((e) => e.name));
  const list = (set) => (set.size ? [...set].sort().join('; ') : '–');
  const rows = events.map(({ name, doc }) => [code(name), doc, list(publishers.get(name)), list(listeners.get(name))]);
  return table(['event', 'what', 'published by', 'heard by (class#method)'], rows);
}

// ---- (3) permissions ---------------------------------------------------------------------------------------------

const objectLiteralOf = (source, variable) => {
  let found = null;
  walk(source, (node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === variable) {
      let init = node.initializer;
      while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init))) init = init.expression;
      if (init && ts.isObjectLiteralExpression(init)) found = init;
    }
  });
  return found;
};

/** permissions.ts: each permission with its description and the roles that hold it (a role without grants holds all). */
export function permissions(root = defaultRoot) {
  const file = join(root, 'src/common/auth/permissions.ts');
  const source = parse(file);
  const described = objectLiteralOf(source, 'PERMISSIONS');
  const grants = objectLiteralOf(source, 'GRANTS');
  if (!described || !grants) throw new Error(`PERMISSIONS or GRANTS not found in ${relative(root, file)}`);
  const roleSource = parse(join(root, 'src/common/auth/roles.ts'));
  let roles = [];
  walk(roleSource, (node) => {
    if (ts.isVariableDeclaration(node) && node.name.getText() === 'ROLES') {
      const init = ts.isAsExpression(node.initializer) ? node.initializer.expression : node.initializer;
      roles = init.elements.map((e) => e.text);
    }
  });
  const granted = new Map();
  for (const p of grants.properties) granted.set(propName(p.name), p.initializer.elements.map((e) => e.text));
  const problems = [];
  const list = described.properties.map((p) => {
    const name = propName(p.name);
    const description = isStringy(p.initializer) ? p.initializer.text.trim() : '';
    if (!description) problems.push(`${name} has no description in PERMISSIONS`);
    const heldBy = roles.filter((r) => !granted.has(r) || granted.get(r).includes(name));
    return { name, description, heldBy };
  });
  const names = new Set(list.map((p) => p.name));
  for (const [role, ps] of granted) for (const p of ps) if (!names.has(p)) problems.push(`GRANTS.${role} names ${p}, not in PERMISSIONS`);
  if (problems.length) throw new Error(`${relative(root, file)}:\n  ${problems.join('\n  ')}`);
  return list;
}

export function permissionsTable(root = defaultRoot) {
  const rows = permissions(root).map((p) => [code(p.name), p.heldBy.join(', '), cell(p.description)]);
  return table(['permission', 'held by', 'what it allows'], rows);
}

// ---- (4) routes --------------------------------------------------------------------------------------------------

const joinPath = (...parts) =>
  '/' +
  parts
    .flatMap((p) => (p ?? '').split('/'))
    .filter(Boolean)
    .join('/');

const pathsOf = (arg) => {
  if (!arg) return [''];
  if (isStringy(arg)) return [arg.text];
  if (ts.isArrayLiteralExpression(arg) && arg.elements.every(isStringy)) return arg.elements.map((e) => e.text);
  if (ts.isObjectLiteralExpression(arg)) {
    const path = arg.properties.find((p) => propName(p.name) === 'path');
    return path ? pathsOf(path.initializer) : [''];
  }
  throw new Error(`a route path that is not a literal: ${arg.getText()} (${arg.getSourceFile().fileName})`);
};

/** Who may call: `@Allow('p')`, `@Public()`, else any signed-in member; the method's decorator first, then the class's. */
const accessOf = (...nodes) => {
  for (const node of nodes) {
    for (const d of decoratorsOf(node)) {
      const call = decoratorCall(d);
      if (call?.name === 'Allow') return call.args.map((a) => code(a.text)).join(', ');
      if (call?.name === 'Public') return 'public';
    }
  }
  return 'signed in';
};

/** The global prefix: `API_PREFIX` of src/app.ts. */
const apiPrefix = (root) => {
  const m = /export const API_PREFIX = ['"]([^'"]*)['"]/.exec(readFileSync(join(root, 'src/app.ts'), 'utf8'));
  if (!m) throw new Error('no API_PREFIX in src/app.ts');
  return m[1];
};

export function routes(root = defaultRoot) {
  const API_PREFIX = apiPrefix(root);
  const list = [];
  for (const file of tsFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes('@Controller(')) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    walk(source, (node) => {
      if (!ts.isClassDeclaration(node)) return;
      const controller = decoratorsOf(node).map(decoratorCall).find((c) => c?.name === 'Controller');
      if (!controller) return;
      const prefixes = pathsOf(controller.args[0]);
      for (const member of node.members) {
        if (!ts.isMethodDeclaration(member)) continue;
        for (const d of decoratorsOf(member)) {
          const call = decoratorCall(d);
          if (!call || !HTTP_METHODS.includes(call.name)) continue;
          for (const prefix of prefixes) {
            for (const path of pathsOf(call.args[0])) {
              list.push({
                method: call.name.toUpperCase(),
                path: joinPath(API_PREFIX, prefix, path),
                file: relative(root, file),
                handler: `${node.name.text}.${propName(member.name)}`,
                access: accessOf(member, node),
              });
            }
          }
        }
      }
    });
  }
  const order = (r) => `${r.path.replace(/:/g, '~')} ${HTTP_METHODS.indexOf(r.method[0] + r.method.slice(1).toLowerCase())}`;
  return list.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

export function routesTable(root = defaultRoot) {
  const rows = routes(root).map((r) => [code(`${r.method} ${r.path}`), code(r.file), code(r.handler), r.access]);
  return table(['route', 'file', 'handler', 'who may call'], rows);
}

// ---- the page ----------------------------------------------------------------------------------------------------

export function generate(root = defaultRoot) {
  return { levels: levelsTable(root), events: eventsTable(root), permissions: permissionsTable(root), routes: routesTable(root) };
}

const markers = (name) => [`<!-- generated:${name}:start -->`, `<!-- generated:${name}:end -->`];

/** The text between a block's markers (trimmed), or an error naming the missing marker. */
export function readBlock(doc, name) {
  const [start, end] = markers(name);
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${DOC} has no ${start} … ${end}`);
  return doc.slice(i + start.length, j).trim();
}

/** The page with each generated block replaced by `blocks[name]` (a note that it is generated goes with it). */
export function render(doc, blocks) {
  let out = doc;
  for (const name of BLOCKS) {
    const [start, end] = markers(name);
    readBlock(out, name);
    const i = out.indexOf(start);
    const j = out.indexOf(end);
    out = `${out.slice(0, i + start.length)}\n${blocks[name]}\n${out.slice(j)}`;
  }
  return out;
}

/** The differences between the page's blocks and the generated ones: [{block, removed: [...], added: [...]}]. */
export function compare(doc, blocks) {
  const drift = [];
  for (const name of BLOCKS) {
    let committed;
    try {
      committed = readBlock(doc, name).split('\n');
    } catch (error) {
      drift.push({ block: name, removed: [], added: [], error: error.message });
      continue;
    }
    const generated = blocks[name].split('\n');
    if (committed.join('\n') === generated.join('\n')) continue;
    const removed = committed.filter((l) => !generated.includes(l));
    const added = generated.filter((l) => !committed.includes(l));
    drift.push({ block: name, removed, added, error: null });
  }
  return drift;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const path = join(defaultRoot, DOC);
  const doc = readFileSync(path, 'utf8');
  let blocks;
  try {
    blocks = generate(defaultRoot);
  } catch (error) {
    console.error(`architecture-tables: ${error.message}`);
    process.exit(2);
  }
  if (process.argv.includes('--check')) {
    const drift = compare(doc, blocks);
    for (const d of drift) {
      console.log(`DRIFT: ${DOC}, block "${d.block}" differs from what the code generates (npm run docs:architecture, then commit it):`);
      if (d.error) console.log(`  ${d.error}`);
      for (const l of d.removed) console.log(`- ${l}`);
      for (const l of d.added) console.log(`+ ${l}`);
      if (!d.error && !d.removed.length && !d.added.length) console.log('  (the same rows in another order)');
    }
    if (!drift.length) console.log(`${DOC}: the generated tables match the code`);
    process.exit(drift.length ? 1 : 0);
  }
  const next = render(doc, blocks);
  if (next !== doc) writeFileSync(path, next);
  console.log(next === doc ? `${DOC}: already up to date` : `${DOC}: generated tables rewritten`);
}
