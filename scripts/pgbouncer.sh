#!/usr/bin/env bash
# Debian's pgbouncer in transaction mode in front of the local PostgreSQL server (127.0.0.1:5432), for the pooled
# e2e suite (.ci/run) and by hand:
#   bash scripts/pgbouncer.sh start [user] [port]   prints the pooler's URL (postgres://user@127.0.0.1:port/postgres)
#   bash scripts/pgbouncer.sh stop [port]
# Every database of the server is reachable through it (`* =`). Root runs it as the postgres user (pgbouncer refuses
# root). statement_timeout and options are startup parameters pgbouncer cannot pass on in this mode: set a timeout on
# the role (ALTER ROLE … SET statement_timeout) in production; the service keeps its own client-side deadline.
set -euo pipefail
action=${1:?start or stop}
if [ "$action" = stop ]; then
  port=${2:-6439}
  dir=/tmp/mess-pgbouncer-$port
  [ -f "$dir/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
  exit 0
fi
user=${2:-postgres}
port=${3:-6439}
bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
[ -x "$bin" ] || { echo "no pgbouncer (apt-get install pgbouncer)" >&2; exit 1; }
dir=/tmp/mess-pgbouncer-$port
[ -f "$dir/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
rm -rf "$dir"
mkdir -p "$dir"
printf '"%s" ""\n' "$user" > "$dir/userlist.txt"
cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir = $dir
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = $user
pool_mode = transaction
default_pool_size = 20
max_client_conn = 2000
ignore_startup_parameters = extra_float_digits,statement_timeout,options
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
as=()
if [ "$(id -u)" = 0 ]; then
  chown -R postgres "$dir"
  as=(-u postgres)
fi
"$bin" -d "${as[@]}" "$dir/pgbouncer.ini" >&2
for _ in $(seq 1 50); do
  if (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; then
    echo "postgres://$user@127.0.0.1:$port/postgres"
    exit 0
  fi
  sleep 0.2
done
echo "pgbouncer did not start; its log:" >&2
cat "$dir/pgbouncer.log" >&2 || true
exit 1
