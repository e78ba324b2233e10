#!/usr/bin/env bash
# `npm run openapi:check` (CI): the committed contract and client must be what the code generates today.
# Regenerates openapi/openapi.json from the built service (dist/, so run `npm run build` first), the client's
# schema.ts from it and the client's build (dist/) into a temporary folder, and fails with the diff when any differs
# from what is committed.
# Fix a failure with `npm run openapi` and commit both files: the diff is the interface change under review.
set -uo pipefail
cd "$(dirname "$0")/.."
node=node_modules/.bin/node
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -f dist/openapi.cli.js ]; then
  echo "dist/openapi.cli.js is missing: run npm run build first" >&2
  exit 2
fi
"$node" dist/openapi.cli.js "$tmp/openapi.json" >/dev/null || exit 2
"$node" node_modules/.bin/openapi-typescript "$tmp/openapi.json" --default-non-nullable false -o "$tmp/schema.ts" >/dev/null 2>&1 || exit 2

drift=0
compare() {
  local committed=$1 generated=$2
  if ! diff -q "$committed" "$generated" >/dev/null 2>&1; then
    echo "DRIFT: $committed differs from what the code generates (npm run openapi, then commit it):"
    diff -u "$committed" "$generated" --label "$committed (committed)" --label "$committed (generated)" | head -60
    drift=1
  fi
}
compare openapi/openapi.json "$tmp/openapi.json"
compare clients/typescript/src/schema.ts "$tmp/schema.ts"
# The built client is committed (it installs without a compiler): it must be what its committed sources compile to.
"$node" node_modules/.bin/tsc -p clients/typescript/tsconfig.json --outDir "$tmp/client-dist" || exit 2
if ! diff -r -q clients/typescript/dist "$tmp/client-dist" >/dev/null 2>&1; then
  echo "DRIFT: clients/typescript/dist is not what clients/typescript/src compiles to (npm run client, then commit it):"
  diff -r clients/typescript/dist "$tmp/client-dist" | head -40
  drift=1
fi
if [ "$drift" = 0 ]; then echo "openapi/openapi.json and the client are up to date"; fi
exit $drift
