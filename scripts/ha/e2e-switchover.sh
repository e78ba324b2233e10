#!/usr/bin/env bash
# The service's own e2e suite against the Patroni cluster of cluster.sh, through HAProxy (issue 46, must-show 4), with
# a switchover of the primary in the middle (HA_SWITCH_AFTER_S, 90 s after the suite starts, and again every
# HA_SWITCH_EVERY_S if set). The suite's clients retry a 503 with Retry-After for up to 30 s
# (TEST_RETRY_UNAVAILABLE), as a client of the service would; anything else that fails, fails the run. The whole
# log stays in /tmp/mess-ha-e2e.log.
#
#   bash scripts/ha/e2e-switchover.sh [e2e file names… | all]   (default: the representative subset below)
#
# Each test file gets its own database on the cluster (TEST_DATABASE_URL, created from a migrated template). Run as
# root; brings the cluster up and down itself. The report goes to docs/reports/e2e-switchover.md (HA_E2E_REPORT).
set -uo pipefail
cd "$(dirname "$0")/../.."
report=${HA_E2E_REPORT:-docs/reports/e2e-switchover.md}
switch_after=${HA_SWITCH_AFTER_S:-90}
switch_every=${HA_SWITCH_EVERY_S:-0}
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  # What the service does for a mess day to day, money first: one file per module's main routes.
  files=(expenses attendance-marking attendance-bulk accounts-payments payments-claims leave users auth meals
    feedback extras messes-isolation analytics counter)
fi
patterns=()
if [ "${files[*]}" = all ]; then
  # The whole e2e suite but the files whose subject is a fault of their own: they cut, pause or make read-only the
  # database (database-outage, outage-logs, read-only-server, start-up-retry), kill service processes (outbox-kill,
  # outbox-chaos, kill-durability, replicas, replicas-moment, process-shutdown) or count answers within a time
  # (campus-login; full-mess, a 409 within a second), and assert the 503 that this run's clients send again; a
  # switchover in their middle is a second fault they do not expect.
  patterns=(--selectProjects e2e --testPathIgnorePatterns
    '/(database-outage|outage-logs|read-only-server|start-up-retry|outbox-kill|outbox-chaos|kill-durability|replicas|replicas-moment|process-shutdown|campus-login|full-mess)\.e2e-spec\.ts$')
else
  for f in "${files[@]}"; do patterns+=("test/e2e/$f.e2e-spec.ts"); done
fi

bash scripts/ha/cluster.sh up || exit 1
switcher=""
trap 'kill "$switcher" 2>/dev/null; bash scripts/ha/cluster.sh down' EXIT
log=/tmp/mess-ha-e2e.log
switches=$(mktemp)
(
  sleep "$switch_after"
  while :; do
    l=$(bash scripts/ha/cluster.sh leader)
    t=$(date +%s%N)
    answer=$(curl -s -XPOST "http://127.0.0.1:844${l#pg}/switchover" -d "{\"leader\":\"$l\"}")
    echo "$(date -u +%H:%M:%S) switchover of $l: $answer ($((($(date +%s%N) - t) / 1000000)) ms)" >>"$switches"
    [ "$switch_every" -gt 0 ] || break
    sleep "$switch_every"
  done
) &
switcher=$!
started=$SECONDS
node scripts/build-if-changed.js >/dev/null
TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5440/postgres TEST_RETRY_UNAVAILABLE=30 \
  npm test -- --ci "${patterns[@]}" >"$log" 2>&1
status=$?
elapsed=$((SECONDS - started))
summary=$(grep -E '^(Tests|Test Suites):' "$log")
{
  echo "# The e2e suite against the Patroni cluster, a switchover in the middle"
  echo
  echo "\`bash scripts/ha/e2e-switchover.sh\` on $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD): the files"
  echo "${files[*]} (test/e2e/), each on its own database of the three-node cluster (synchronous_mode_strict) through"
  echo "HAProxy; clients retry a 503 with Retry-After for up to 30 s. ${elapsed} s in all."
  echo
  echo "Switchovers:"
  echo
  sed 's/^/- /' "$switches"
  echo
  echo '```'
  grep -E '^(PASS|FAIL) ' "$log"
  echo "$summary"
  echo '```'
  if [ $status -ne 0 ]; then
    echo
    echo "Failures:"
    echo
    echo '```'
    grep -A30 '●' "$log" | grep -v '^\s*at ' | head -400
    echo '```'
  fi
} >"$report"
cat "$report"
rm -f "$switches"
exit $status
