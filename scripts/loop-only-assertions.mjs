#!/usr/bin/env node
// Lists the tests whose every assertion sits inside a loop (`for … of`, `.forEach(…)`, `.map(…)`, …): such a test
// passes when the list it loops over is empty. A heuristic on the syntax tree, not a proof:
//   - a test is flagged when it has at least one `expect(…)` and every one is inside a loop over something other
//     than an array literal (or a `for (;;)` bounded by a number), counted from the test's own body;
//   - `expect.assertions(n)` / `expect.hasAssertions()` anywhere in the test counts as an assertion outside loops;
//   - assertions in helpers the test calls are not seen (a test that only calls a helper is not flagged).
// Usage: node scripts/loop-only-assertions.mjs [dir …]   (default: test src); exits 1 when it finds one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['test', 'src'];
const TEST_FILE = /\.(spec|e2e-spec|medium-spec)\.ts$/;
const LOOP_METHODS = new Set(['forEach', 'map', 'flatMap', 'filter', 'every', 'some', 'reduce', 'find']);

function* files(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (TEST_FILE.test(name)) yield path;
  }
}

const isTestCall = (node) =>
  ts.isCallExpression(node) &&
  ((ts.isIdentifier(node.expression) && ['it', 'test'].includes(node.expression.text)) ||
    (ts.isPropertyAccessExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression) &&
      ['it', 'test'].includes(node.expression.expression.text) &&
      ['only', 'concurrent'].includes(node.expression.name.text)));

/** `expect(…)` itself (not `expect.any`, …), or `expect.assertions` / `expect.hasAssertions`. */
function assertionKind(node) {
  if (!ts.isCallExpression(node)) return null;
  const callee = node.expression;
  if (ts.isIdentifier(callee) && callee.text === 'expect') return 'expect';
  if (
    ts.isPropertyAccessExpression(callee) &&
    ts.isIdentifier(callee.expression) &&
    callee.expression.text === 'expect' &&
    ['assertions', 'hasAssertions'].includes(callee.name.text)
  )
    return 'count';
  return null;
}

/** Names bound to a non-empty array literal anywhere in the file being read (`const cases = [ … ]`). */
let literalConstants = new Set();
function collectLiteralConstants(source) {
  literalConstants = new Set();
  const walk = (node) => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      ts.isArrayLiteralExpression(unwrap(node.initializer)) &&
      unwrap(node.initializer).elements.length > 0 &&
      (node.parent.flags & ts.NodeFlags.Const) !== 0
    )
      literalConstants.add(node.name.text);
    ts.forEachChild(node, walk);
  };
  walk(source);
}

/** `x as T`, `(x)`, `x!`, `x.entries()` / `.keys()` / `.values()` / `.slice(1)`: x. */
function unwrap(node) {
  while (node) {
    if (ts.isAsExpression(node) || ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node))
      node = node.expression;
    else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['entries', 'keys', 'values'].includes(node.expression.name.text) &&
      node.arguments.length === 0
    )
      node = node.expression.expression;
    else return node;
  }
  return node;
}

/** Whether `node` (a loop) runs over something that can be empty. */
function loopCanBeEmpty(node) {
  let iterated;
  if (ts.isForOfStatement(node) || ts.isForInStatement(node)) iterated = node.expression;
  else if (ts.isForStatement(node)) {
    const condition = node.condition;
    // for (let i = 0; i < 3; i++): runs
    if (condition && ts.isBinaryExpression(condition) && ts.isNumericLiteral(condition.right)) return false;
    return true;
  } else if (ts.isWhileStatement(node) || ts.isDoStatement(node)) return !ts.isDoStatement(node);
  else if (ts.isCallExpression(node)) iterated = node.expression.expression;
  iterated = unwrap(iterated);
  if (iterated && ts.isArrayLiteralExpression(iterated) && iterated.elements.length > 0) return false;
  // a constant of the file bound to a literal list: const cases = [ … ];
  if (iterated && ts.isIdentifier(iterated) && literalConstants.has(iterated.text)) return false;
  // Object.entries({ … }) / Object.keys({ … }) of a literal with properties
  if (
    iterated &&
    ts.isCallExpression(iterated) &&
    iterated.arguments.length === 1 &&
    ts.isObjectLiteralExpression(iterated.arguments[0]) &&
    iterated.arguments[0].properties.length > 0
  )
    return false;
  return true;
}

function isLoop(node) {
  if (
    ts.isForOfStatement(node) ||
    ts.isForInStatement(node) ||
    ts.isForStatement(node) ||
    ts.isWhileStatement(node) ||
    ts.isDoStatement(node)
  )
    return true;
  return (
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    LOOP_METHODS.has(node.expression.name.text) &&
    node.arguments.some((a) => ts.isArrowFunction(a) || ts.isFunctionExpression(a))
  );
}

/** The list a loop runs over, as written (`rows`, `res.json().rows`); for `Object.values(x)` and the like, `x`. */
function iteratedText(loop, source) {
  let iterated =
    ts.isForOfStatement(loop) || ts.isForInStatement(loop)
      ? loop.expression
      : ts.isCallExpression(loop)
        ? loop.expression.expression
        : undefined;
  if (!iterated) return undefined;
  while (
    ts.isAsExpression(iterated) ||
    ts.isParenthesizedExpression(iterated) ||
    ts.isNonNullExpression(iterated)
  )
    iterated = iterated.expression;
  if (
    ts.isCallExpression(iterated) &&
    iterated.arguments.length === 1 &&
    ts.isPropertyAccessExpression(iterated.expression)
  ) {
    const owner = iterated.expression.expression;
    if (ts.isIdentifier(owner) && ['Object', 'Array'].includes(owner.text)) iterated = iterated.arguments[0];
  }
  return iterated.getText(source);
}

function checkTest(testCall, source, found) {
  const body = testCall.arguments.find((a) => ts.isArrowFunction(a) || ts.isFunctionExpression(a));
  if (!body) return;
  let counted = false;
  const outside = []; // the text of every assertion outside the loops
  const loops = []; // [list text, loop] of each loop (not nested in another) that asserts
  const visit = (node, loop) => {
    const kind = assertionKind(node);
    if (kind === 'count') counted = true;
    else if (kind === 'expect') {
      if (loop) {
        if (!loops.some(([, l]) => l === loop)) loops.push([iteratedText(loop, source), loop]);
      } else outside.push(node.getText(source));
    }
    const enters = !loop && isLoop(node) && loopCanBeEmpty(node);
    ts.forEachChild(node, (child) => {
      // The iterated expression of `for (x of list)` / `list.forEach(…)` is evaluated outside the loop's body.
      const isHead =
        ((ts.isForOfStatement(node) || ts.isForInStatement(node)) && child === node.expression) ||
        (ts.isCallExpression(node) && child === node.expression);
      visit(child, enters && !isHead ? node : loop);
    });
  };
  visit(body.body, undefined);
  if (counted) return;
  // A loop is unguarded when no assertion outside the loops names its list (its length, its contents, the whole).
  const unguarded = loops.filter(([list]) => !list || !outside.some((text) => text.includes(list)));
  // Without ANY_LOOP, only the tests with no assertion outside the loops at all (no false positives so far).
  if (unguarded.length > 0 && (process.env.ANY_LOOP || outside.length === 0)) {
    const { line } = source.getLineAndCharacterOfPosition(testCall.getStart(source));
    const title =
      testCall.arguments[0] && ts.isStringLiteralLike(testCall.arguments[0])
        ? testCall.arguments[0].text
        : '?';
    const lists = unguarded
      .map(
        ([list, loop]) =>
          `${list ?? '?'} (line ${source.getLineAndCharacterOfPosition(loop.getStart(source)).line + 1})`,
      )
      .join(', ');
    found.push(`${relative(process.cwd(), source.fileName)}:${line + 1}: ${title}  [over ${lists}]`);
  }
}

const found = [];
for (const root of roots) {
  for (const path of files(root)) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    collectLiteralConstants(source);
    const walk = (node) => {
      if (isTestCall(node)) checkTest(node, source, found);
      ts.forEachChild(node, walk);
    };
    walk(source);
  }
}
for (const line of found) console.log(line);
console.log(`${found.length} test(s) assert only inside loops`);
process.exitCode = found.length > 0 ? 1 : 0;
