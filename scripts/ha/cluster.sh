#!/usr/bin/env bash
# A failover set-up on one machine, from Debian's packages (apt-get install patroni python3-etcd etcd-server haproxy
# pgbouncer; PostgreSQL 15 at /usr/lib/postgresql/15/bin):
#   three etcd members        127.0.0.1:23791-23793 (peers 23801-23803)
#   three PostgreSQL 15       127.0.0.1:5441-5443 under Patroni (REST 127.0.0.1:8441-8443), synchronous_mode and
#                             synchronous_mode_strict: a commit is acknowledged only once a standby has it, and only
#                             that standby may be promoted
#   HAProxy                   127.0.0.1:5440, to whichever node answers Patroni's GET /primary with 200; sessions to
#                             a node marked down are cut (stats on 127.0.0.1:7440)
#   pgbouncer                 127.0.0.1:6440, transaction mode, in front of HAProxy
#
#   bash scripts/ha/cluster.sh up       starts everything, waits for a leader and a synchronous standby
#   bash scripts/ha/cluster.sh down     stops everything it started and removes its directory
#   bash scripts/ha/cluster.sh status   patronictl list
#   bash scripts/ha/cluster.sh env      the service's settings (DATABASE_URL through pgbouncer, DATABASE_DIRECT_URL)
#
# Everything lives under HA_DIR (/tmp/mess-ha). Authentication is trust on loopback only (this is a test bench on one
# machine); a deployment uses scram-sha-256 and a pgpass for replication. Small: shared_buffers 16MB per node.
set -euo pipefail
HA_DIR=${HA_DIR:-/tmp/mess-ha}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
SCOPE=mess
action=${1:?up, down, status or env}

# Patroni's timings: the leader key lives TTL seconds; a stopped leader's key lapses within it, a standby takes over.
# loop_wait + 2 * retry_timeout must stay under ttl (Patroni's own rule).
TTL=${HA_TTL:-16}
LOOP_WAIT=${HA_LOOP_WAIT:-2}
RETRY_TIMEOUT=${HA_RETRY_TIMEOUT:-5}
# HA_ASYNC=1 is the negative control: asynchronous replication, a standby may be promoted that lacks commits.
ASYNC=${HA_ASYNC:-0}

etcd_hosts=127.0.0.1:23791,127.0.0.1:23792,127.0.0.1:23793
# Patroni talks to etcd's v2 API (python3-etcd), not v3: Debian's Patroni 3.0.2 renews an expired leader lease in
# etcd3 by writing the leader key from its cached view, unconditionally (dcs/etcd3.py, _update_leader). The failover
# check saw it: a leader whose Patroni was stopped past the TTL woke up, wrote itself back as leader over the standby
# that had just been promoted, and both were primaries for 4 s. Over v2 the renewal is a compare-and-swap on the
# leader's own name (prevValue), so a leader that lost its key demotes.

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

wait_port() {
  for _ in $(seq 1 150); do
    (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0
    sleep 0.2
  done
  echo "nothing listens on $1" >&2
  return 1
}

start_etcd() {
  local cluster="" i
  for i in 1 2 3; do cluster+="${cluster:+,}e$i=http://127.0.0.1:2380$i"; done
  for i in 1 2 3; do start_etcd_member "$i" "$cluster" new; done
}

# Also how a stopped member comes back (state existing: its data directory is kept).
start_etcd_member() {
  local i=$1 cluster=$2 state=$3
  mkdir -p "$HA_DIR/etcd$i"
  chown postgres "$HA_DIR/etcd$i"
  setsid setpriv --reuid=postgres --regid=postgres --init-groups etcd --name "e$i" --data-dir "$HA_DIR/etcd$i/data" \
    --listen-client-urls "http://127.0.0.1:2379$i" --advertise-client-urls "http://127.0.0.1:2379$i" \
    --listen-peer-urls "http://127.0.0.1:2380$i" --initial-advertise-peer-urls "http://127.0.0.1:2380$i" \
    --initial-cluster "$cluster" --initial-cluster-state "$state" --initial-cluster-token mess-ha \
    --heartbeat-interval 200 --election-timeout 2000 --quota-backend-bytes 268435456 --enable-v2=true \
    >>"$HA_DIR/etcd$i/etcd.log" 2>&1 &
  echo $! >"$HA_DIR/etcd$i/pid"
}

patroni_config() {
  local i=$1 sync=true strict=true
  [ "$ASYNC" = 1 ] && sync=false && strict=false
  cat <<YAML
scope: $SCOPE
namespace: /mess-ha/
name: pg$i
log:
  level: INFO
  dir: $HA_DIR/pg$i
restapi:
  listen: 127.0.0.1:844$i
  connect_address: 127.0.0.1:844$i
etcd:
  hosts: $etcd_hosts
bootstrap:
  dcs:
    ttl: $TTL
    loop_wait: $LOOP_WAIT
    retry_timeout: $RETRY_TIMEOUT
    maximum_lag_on_failover: $([ "$ASYNC" = 1 ] && echo 1073741824 || echo 1048576)
    synchronous_mode: $sync
    synchronous_mode_strict: $strict
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        max_connections: 120
        shared_buffers: 16MB
        wal_level: replica
        hot_standby: 'on'
        wal_log_hints: 'on'
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 128MB
        synchronous_commit: '$([ "$ASYNC" = 1 ] && echo local || echo on)'
  initdb:
  - encoding: UTF8
  - data-checksums
postgresql:
  listen: 127.0.0.1:544$i
  connect_address: 127.0.0.1:544$i
  data_dir: $HA_DIR/pg$i/data
  bin_dir: $PG_BIN
  pgpass: $HA_DIR/pg$i/pgpass
  authentication:
    superuser:
      username: postgres
      password: postgres
    replication:
      username: replicator
      password: replicator
    rewind:
      username: postgres
      password: postgres
  parameters:
    unix_socket_directories: $HA_DIR/pg$i
  pg_hba:
  - local all all trust
  - host all all 127.0.0.1/32 trust
  - host replication replicator 127.0.0.1/32 trust
tags:
  nofailover: false
  noloadbalance: false
YAML
}

start_patroni() {
  local i=$1
  HOME=$HA_DIR setsid setpriv --reuid=postgres --regid=postgres --init-groups patroni "$HA_DIR/pg$i/patroni.yml" >>"$HA_DIR/pg$i/patroni.out" 2>&1 &
  echo $! >"$HA_DIR/pg$i/patroni.pid"
}

haproxy_config() {
  cat <<CFG
global
  maxconn 2000
  pidfile $HA_DIR/haproxy/haproxy.pid
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen stats
  mode http
  bind 127.0.0.1:7440
  stats enable
  stats uri /
listen primary
  bind 127.0.0.1:5440
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions
  server pg1 127.0.0.1:5441 maxconn 200 check port 8441
  server pg2 127.0.0.1:5442 maxconn 200 check port 8442
  server pg3 127.0.0.1:5443 maxconn 200 check port 8443
CFG
}

start_pgbouncer() {
  mkdir -p "$HA_DIR/pgbouncer"
  printf '"postgres" ""\n"mess_app_login" ""\n' >"$HA_DIR/pgbouncer/userlist.txt"
  cat >"$HA_DIR/pgbouncer/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5440
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = 6440
unix_socket_dir = $HA_DIR/pgbouncer
auth_type = trust
auth_file = $HA_DIR/pgbouncer/userlist.txt
admin_users = postgres
pool_mode = transaction
default_pool_size = 20
max_client_conn = 1000
server_connect_timeout = 3
server_login_retry = 1
query_wait_timeout = 10
ignore_startup_parameters = extra_float_digits,statement_timeout,options
logfile = $HA_DIR/pgbouncer/pgbouncer.log
pidfile = $HA_DIR/pgbouncer/pgbouncer.pid
INI
  chown -R postgres "$HA_DIR/pgbouncer"
  runuser -u postgres -- /usr/sbin/pgbouncer -d "$HA_DIR/pgbouncer/pgbouncer.ini" >&2
}

leader() {
  for i in 1 2 3; do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:844$i/primary" || true)" = 200 ]; then
      echo "pg$i"
      return 0
    fi
  done
  return 1
}

# A leader, and (synchronous mode) a synchronous standby streaming.
wait_healthy() {
  local deadline=$((SECONDS + ${1:-120})) l
  [ "$(cat "$HA_DIR/mode" 2>/dev/null)" = async ] && ASYNC=1
  while [ $SECONDS -lt $deadline ]; do
    if l=$(leader); then
      if [ "$ASYNC" = 1 ] || [ "$(curl -s --max-time 1 "http://127.0.0.1:844${l#pg}/cluster" |
        grep -o '"role": *"sync_standby"' | wc -l)" -ge 1 ]; then
        local n
        n=$(curl -s --max-time 1 "http://127.0.0.1:844${l#pg}/cluster" | grep -o '"state": *"\(running\|streaming\)"' | wc -l)
        [ "$n" -ge 3 ] && { echo "$l"; return 0; }
      fi
    fi
    sleep 0.5
  done
  echo "the cluster did not become healthy in time" >&2
  return 1
}

case "$action" in
up)
  [ "$(id -u)" = 0 ] || { echo "run as root (it starts each part as the postgres user)" >&2; exit 1; }
  if [ -d "$HA_DIR" ]; then bash "$0" down; fi
  mkdir -p "$HA_DIR/haproxy"
  chown postgres "$HA_DIR"
  [ "$ASYNC" = 1 ] && echo async >"$HA_DIR/mode" || echo sync >"$HA_DIR/mode"
  start_etcd
  for i in 1 2 3; do wait_port "2379$i"; done
  for i in 1 2 3; do
    mkdir -p "$HA_DIR/pg$i"
    patroni_config "$i" >"$HA_DIR/pg$i/patroni.yml"
    chown -R postgres "$HA_DIR/pg$i"
    chmod 700 "$HA_DIR/pg$i"
  done
  # The first bootstraps; the others clone it with pg_basebackup once it leads.
  start_patroni 1
  for _ in $(seq 1 120); do leader >/dev/null && break; sleep 0.5; done
  start_patroni 2
  start_patroni 3
  haproxy_config >"$HA_DIR/haproxy/haproxy.cfg"
  haproxy -D -f "$HA_DIR/haproxy/haproxy.cfg"
  start_pgbouncer
  wait_port 5440
  wait_port 6440
  l=$(wait_healthy 180)
  echo "leader $l; HAProxy 127.0.0.1:5440, pgbouncer 127.0.0.1:6440" >&2
  ;;
down)
  if [ -f "$HA_DIR/pgbouncer/pgbouncer.pid" ]; then kill "$(cat "$HA_DIR/pgbouncer/pgbouncer.pid")" 2>/dev/null || true; fi
  if [ -f "$HA_DIR/haproxy/haproxy.pid" ]; then kill "$(cat "$HA_DIR/haproxy/haproxy.pid")" 2>/dev/null || true; fi
  for i in 1 2 3; do
    f="$HA_DIR/pg$i/patroni.pid"
    if [ -f "$f" ]; then
      p=$(cat "$f")
      kill -CONT "$p" 2>/dev/null || true
      kill "$p" 2>/dev/null || true
    fi
  done
  # Patroni stops its PostgreSQL on SIGTERM; what is left after 20 s (a stopped Patroni) is stopped by hand.
  for _ in $(seq 1 40); do
    alive=0
    for i in 1 2 3; do
      [ -f "$HA_DIR/pg$i/data/postmaster.pid" ] && kill -0 "$(head -1 "$HA_DIR/pg$i/data/postmaster.pid")" 2>/dev/null && alive=1
    done
    [ $alive = 0 ] && break
    sleep 0.5
  done
  for i in 1 2 3; do
    if [ -f "$HA_DIR/pg$i/data/postmaster.pid" ] && kill -0 "$(head -1 "$HA_DIR/pg$i/data/postmaster.pid")" 2>/dev/null; then
      as_postgres "$PG_BIN/pg_ctl" -D "$HA_DIR/pg$i/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    f="$HA_DIR/pg$i/patroni.pid"
    [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null || true
  done
  for i in 1 2 3; do
    f="$HA_DIR/etcd$i/pid"
    if [ -f "$f" ]; then kill -CONT "$(cat "$f")" 2>/dev/null || true; kill "$(cat "$f")" 2>/dev/null || true; fi
  done
  # Nothing of ours may still hold a port when the next `up` starts.
  for f in "$HA_DIR"/etcd?/pid "$HA_DIR"/pg?/patroni.pid "$HA_DIR/haproxy/haproxy.pid" "$HA_DIR/pgbouncer/pgbouncer.pid"; do
    [ -f "$f" ] || continue
    p=$(cat "$f")
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$p" 2>/dev/null || true
  done
  rm -rf "$HA_DIR"
  ;;
status)
  patronictl -c "$HA_DIR/pg1/patroni.yml" list
  ;;
leader)
  leader
  ;;
healthy)
  wait_healthy "${2:-120}"
  ;;
etcd-start)
  # Brings back a stopped member: bash cluster.sh etcd-start 2
  cluster=""
  for i in 1 2 3; do cluster+="${cluster:+,}e$i=http://127.0.0.1:2380$i"; done
  start_etcd_member "$2" "$cluster" existing
  wait_port "2379$2"
  ;;
env)
  echo "DATABASE_URL=postgres://postgres@127.0.0.1:6440/mess"
  echo "DATABASE_DIRECT_URL=postgres://postgres@127.0.0.1:5440/mess"
  echo "DATABASE_POOL_MODE=transaction"
  ;;
*)
  echo "unknown action $action" >&2
  exit 1
  ;;
esac
