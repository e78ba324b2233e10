// What a module hands another, read from src/modules/** with the TypeScript parser (no type checker, under a
// second). Two rules, run by `npm run lint` after the import graph (scripts/module-graph.mjs):
//
// 1. Nothing exports a repository or a table. A module's index.ts exports no value named `*Repository` and no table
//    (a value made with `pgTable(…)` in the file it comes from, a `*.schema.ts`); types (a row's type), constants
//    and the read-only relations other queries join (`memberNames`) are fine. What another module needs of the
//    rows is a small service method of the module that owns them.
// 2. No callback up. A module that calls another (imports it at run time) never hands it a function to run: a
//    method of a class a module exports, called from another module, takes no parameter of a function type, nor
//    of an object type with a function-typed member (`{ choose?: (tx, …) => … }`). Otherwise the callee runs the
//    caller's code within its own operation (its transaction), the back and forth of one operation across levels.
//    The caller owns its transaction instead and calls the other module's methods that take it (`tx`). Calls
//    within a module are fine (a repository's `transaction(work)` for its own service).
//
// Usage: node scripts/module-boundaries.mjs [--list]   (--list also prints every exported method that takes a function)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Violations known and not yet removed, each a `keyOf` (a module's export, or a callback up from one module to a
 * class of another, whatever the line): the rule fails on any other, and on one of these that no longer occurs (so
 * the list only shrinks).
 */
export const KNOWN = [];

/** The key of a violation, as KNOWN lists it. */
export const keyOf = (v) =>
  v.kind ? `exports ${v.module}:${v.name}` : `callback ${v.from} → ${v.to}:${v.className}#${v.method}`;

const defaultRoot = resolve(dirname(new URL(import.meta.url).pathname), '..');
const ts = createRequire(import.meta.url)('typescript');

const parse = (file) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);

/** `./x` from `from` → the .ts file (or folder index) it names, or undefined. */
const resolveTs = (from, specifier) => {
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, join(base, 'index.ts')].find((f) => existsSync(f));
};

const walk = (node, visit) => {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
};

const isTypeOnlyImport = (decl) =>
  decl.importClause?.isTypeOnly ||
  (decl.importClause?.namedBindings &&
    ts.isNamedImports(decl.importClause.namedBindings) &&
    !decl.importClause.name &&
    decl.importClause.namedBindings.elements.length > 0 &&
    decl.importClause.namedBindings.elements.every((e) => e.isTypeOnly));

/** The names a file exports as values, each with the file that declares it: `export { a } from './x'`, `export *`. */
function valueExports(file, seen = new Set()) {
  if (seen.has(file)) return [];
  seen.add(file);
  const out = [];
  const source = parse(file);
  for (const stmt of source.statements) {
    if (ts.isExportDeclaration(stmt) && !stmt.isTypeOnly) {
      const target = stmt.moduleSpecifier ? resolveTs(file, stmt.moduleSpecifier.text) : file;
      if (!target) continue;
      if (!stmt.exportClause) {
        out.push(...valueExports(target, seen));
        continue;
      }
      if (!ts.isNamedExports(stmt.exportClause)) continue;
      for (const e of stmt.exportClause.elements) {
        if (e.isTypeOnly) continue;
        out.push({ name: e.name.text, local: (e.propertyName ?? e.name).text, file: target });
      }
    } else if (ts.canHaveModifiers(stmt) && ts.getModifiers(stmt)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(stmt))
        for (const d of stmt.declarationList.declarations)
          if (ts.isIdentifier(d.name)) out.push({ name: d.name.text, local: d.name.text, file });
      if ((ts.isClassDeclaration(stmt) || ts.isFunctionDeclaration(stmt)) && stmt.name)
        out.push({ name: stmt.name.text, local: stmt.name.text, file });
    }
  }
  return out;
}

/** Whether `name` is declared in `file` as `const name = pgTable(…)` (or `someSchema.table(…)`). */
function isTable(file, name) {
  const source = parse(file);
  let found = false;
  walk(source, (node) => {
    if (!ts.isVariableDeclaration(node) || !ts.isIdentifier(node.name) || node.name.text !== name) return;
    let init = node.initializer;
    while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression?.(init) || ts.isParenthesizedExpression(init)))
      init = init.expression;
    if (init && ts.isCallExpression(init)) {
      const callee = init.expression;
      if (ts.isIdentifier(callee) && /^pg(Table|TableCreator)$/.test(callee.text)) found = true;
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'table') found = true;
    }
  });
  return found;
}

/** Whether a type (as written) is a function type, or an object type with a function-typed member. */
function takesFunction(type, declarations, seen = new Set()) {
  if (!type) return false;
  if (ts.isFunctionTypeNode(type) || ts.isConstructorTypeNode(type)) return true;
  if (ts.isParenthesizedTypeNode(type) || ts.isTypeOperatorNode(type) || ts.isArrayTypeNode(type))
    return takesFunction(type.type ?? type.elementType, declarations, seen);
  if (ts.isUnionTypeNode(type) || ts.isIntersectionTypeNode(type))
    return type.types.some((t) => takesFunction(t, declarations, seen));
  if (ts.isTypeLiteralNode(type)) return membersTakeFunction(type.members, declarations, seen);
  if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) {
    const name = type.typeName.text;
    if (name === 'Function') return true;
    if (['Readonly', 'Partial', 'Required', 'ReadonlyArray', 'Array'].includes(name))
      return (type.typeArguments ?? []).some((t) => takesFunction(t, declarations, seen));
    const decl = declarations.get(name);
    if (!decl || seen.has(name)) return false;
    seen.add(name);
    if (ts.isInterfaceDeclaration(decl)) return membersTakeFunction(decl.members, declarations, seen);
    if (ts.isTypeAliasDeclaration(decl)) return takesFunction(decl.type, declarations, seen);
  }
  return false;
}

function membersTakeFunction(members, declarations, seen) {
  return members.some(
    (m) =>
      ts.isMethodSignature(m) ||
      ts.isCallSignatureDeclaration(m) ||
      (ts.isPropertySignature(m) && takesFunction(m.type, declarations, seen)),
  );
}

/** The interfaces and type aliases declared at the top of a file, by name (where a parameter's type is looked up). */
function typeDeclarations(source) {
  const map = new Map();
  for (const stmt of source.statements)
    if (ts.isInterfaceDeclaration(stmt) || ts.isTypeAliasDeclaration(stmt)) map.set(stmt.name.text, stmt);
  return map;
}

const isPrivate = (member) =>
  ts.getModifiers(member)?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword) ||
  (member.name && ts.isPrivateIdentifier(member.name));

/**
 * Reads src/modules/** under `root`: the values an index exports that are repositories or tables, the public
 * methods of exported classes that take a function (module, class, method, parameter), and every call of such a
 * method from another module (a callback up).
 */
export function checkBoundaries(root = defaultRoot) {
  const modulesDir = join(root, 'src', 'modules');
  const modules = readdirSync(modulesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const files = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [join(dir, e.name)] : [],
    );

  const exported = []; // { module, name, kind, file }
  const callbackMethods = []; // { module, className, method, parameter, file }
  const methodsOf = new Map(); // `${module}:${className}` → Map(method → parameter)

  for (const module of modules) {
    const index = join(modulesDir, module, 'index.ts');
    if (!existsSync(index)) continue;
    for (const { name, local, file } of valueExports(index)) {
      const rel = relative(root, file);
      if (/Repository$/.test(local) || /Repository$/.test(name)) exported.push({ module, name, kind: 'repository', file: rel });
      else if (isTable(file, local)) exported.push({ module, name, kind: 'table', file: rel });
      const source = parse(file);
      const cls = source.statements.find((s) => ts.isClassDeclaration(s) && s.name?.text === local);
      if (!cls) continue;
      const declarations = typeDeclarations(source);
      const methods = new Map();
      for (const member of cls.members) {
        if (!ts.isMethodDeclaration(member) || isPrivate(member) || !member.name || !ts.isIdentifier(member.name)) continue;
        const parameter = member.parameters.find((p) => takesFunction(p.type, declarations));
        if (!parameter) continue;
        const entry = { module, className: name, method: member.name.text, parameter: parameter.name.getText(source), file: rel };
        callbackMethods.push(entry);
        methods.set(member.name.text, entry);
      }
      if (methods.size) methodsOf.set(`${module}:${name}`, methods);
    }
  }

  const callbacksUp = []; // { from, file, line, to, className, method, parameter }
  for (const from of modules) {
    for (const file of files(join(modulesDir, from))) {
      const source = parse(file);
      // Classes of other modules imported at run time that have a method taking a function: local name → key.
      const imported = new Map();
      for (const stmt of source.statements) {
        if (!ts.isImportDeclaration(stmt) || isTypeOnlyImport(stmt) || !stmt.moduleSpecifier.text.startsWith('.')) continue;
        const target = resolve(dirname(file), stmt.moduleSpecifier.text);
        const rel = relative(modulesDir, target);
        if (rel.startsWith('..')) continue;
        const to = rel.split('/')[0];
        if (to === from) continue;
        const bindings = stmt.importClause?.namedBindings;
        if (!bindings || !ts.isNamedImports(bindings)) continue;
        for (const e of bindings.elements) {
          const key = `${to}:${(e.propertyName ?? e.name).text}`;
          if (!e.isTypeOnly && methodsOf.has(key)) imported.set(e.name.text, key);
        }
      }
      if (!imported.size) continue;
      // Where the file holds one: a constructor's parameter (`private readonly x: Class`) or a property of that type.
      const holders = new Map(); // property name → key
      walk(source, (node) => {
        if ((ts.isParameter(node) || ts.isPropertyDeclaration(node)) && node.type && ts.isTypeReferenceNode(node.type)) {
          const key = imported.get(node.type.typeName.getText(source));
          if (key && ts.isIdentifier(node.name)) holders.set(node.name.text, key);
        }
      });
      walk(source, (node) => {
        if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return;
        const method = node.expression.name.text;
        const target = node.expression.expression;
        let key;
        if (ts.isPropertyAccessExpression(target) && target.expression.kind === ts.SyntaxKind.ThisKeyword)
          key = holders.get(target.name.text);
        else if (ts.isIdentifier(target)) key = holders.get(target.text) ?? imported.get(target.text);
        const entry = key && methodsOf.get(key)?.get(method);
        if (!entry) return;
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        callbacksUp.push({ from, file: relative(root, file), line, to: entry.module, className: entry.className, method, parameter: entry.parameter });
      });
    }
  }
  return { modules, exported, callbackMethods, callbacksUp };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const found = checkBoundaries();
  const known = (v) => KNOWN.includes(keyOf(v));
  const exported = found.exported.filter((v) => !known(v));
  const callbacksUp = found.callbacksUp.filter((v) => !known(v));
  const gone = KNOWN.filter((k) => ![...found.exported, ...found.callbacksUp].some((v) => keyOf(v) === k));
  if (process.argv.includes('--list'))
    for (const m of found.callbackMethods) console.log(`${m.module}: ${m.className}#${m.method}(${m.parameter}) takes a function (${m.file})`);
  for (const k of gone) console.error(`module-boundaries: KNOWN lists \`${k}\`, which no longer occurs: take it off the list`);
  for (const e of exported)
    console.error(`module-boundaries: ${e.module}/index.ts exports the ${e.kind} \`${e.name}\` (${e.file}): export a service method instead`);
  for (const c of callbacksUp)
    console.error(
      `module-boundaries: ${c.file}:${c.line}: ${c.from} calls ${c.to}'s ${c.className}#${c.method}, which takes a function (\`${c.parameter}\`): ` +
        `a callback up. Open the transaction in ${c.from} and call ${c.to}'s methods that take it.`,
    );
  if (exported.length || callbacksUp.length || gone.length) process.exit(1);
  console.log(
    `Module boundaries: no module exports a repository or a table; no module hands another a callback` +
      (KNOWN.length ? ` (but the ${KNOWN.length} known: ${KNOWN.join('; ')})` : '') + '.',
  );
}
