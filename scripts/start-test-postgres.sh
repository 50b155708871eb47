#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests and the bench: its own data folder under a fresh
# temporary directory, listening on 127.0.0.1 (and a unix socket in that directory) on a free
# port, password authentication with a random password, durability settings off (fsync, full
# page writes, synchronous commit: the cluster is deleted afterwards).
#
#   eval "$(scripts/start-test-postgres.sh)"         # start; exports the variables below
#   scripts/start-test-postgres.sh stop "$CURSOR_GATEWAY_TEST_POSTGRES_DIR"
#
# Exports CURSOR_GATEWAY_TEST_DATABASE_URL (a superuser URL: the tests create one database per
# gateway under it) and CURSOR_GATEWAY_TEST_POSTGRES_DIR (what `stop` removes).
# Needs initdb and pg_ctl (Debian: apt-get install postgresql). As root, the server runs as the
# `postgres` user (PostgreSQL refuses to run as root). Progress goes to stderr, only the exports
# to stdout.
set -euo pipefail

find_bindir() {
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v pg_ctl)")"
    return 0
  fi
  local newest
  newest="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -n "$newest" ] && [ -x "$newest/pg_ctl" ] && [ -x "$newest/initdb" ]; then
    echo "$newest"
    return 0
  fi
  return 1
}

# Runs a PostgreSQL binary as the user that owns the cluster.
as_owner() {
  if [ "$(id -u)" = "0" ]; then
    # runuser lives in /usr/sbin or /sbin, which a minimal PATH may leave out.
    local runuser_bin
    runuser_bin="$(command -v runuser || true)"
    for candidate in /usr/sbin/runuser /sbin/runuser; do
      if [ -z "$runuser_bin" ] && [ -x "$candidate" ]; then runuser_bin="$candidate"; fi
    done
    if [ -z "$runuser_bin" ]; then
      echo "start-test-postgres: runuser not found (util-linux): needed to run PostgreSQL as the postgres user" >&2
      return 1
    fi
    "$runuser_bin" -u postgres -- "$@"
  else
    "$@"
  fi
}

stop_cluster() {
  local dir="$1"
  if [ -z "$dir" ] || [ ! -f "$dir/cursor-test-postgres" ]; then
    echo "start-test-postgres: $dir is not a cluster this script started" >&2
    return 1
  fi
  local bindir
  bindir="$(cat "$dir/bindir")"
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  echo "start-test-postgres: stopped and removed $dir" >&2
}

start_cluster() {
  local bindir
  if ! bindir="$(find_bindir)"; then
    echo "start-test-postgres: initdb/pg_ctl not found (Debian: apt-get install -y postgresql)" >&2
    return 1
  fi
  if [ "$(id -u)" = "0" ] && ! id postgres >/dev/null 2>&1; then
    echo "start-test-postgres: running as root needs the 'postgres' user (Debian's postgresql package creates it)" >&2
    return 1
  fi
  local dir
  dir="$(mktemp -d "${TMPDIR:-/tmp}/cursor-test-postgres.XXXXXX")"
  touch "$dir/cursor-test-postgres"
  echo "$bindir" >"$dir/bindir"
  local password
  password="$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')"
  printf '%s\n' "$password" >"$dir/pwfile"
  chmod 700 "$dir"
  chmod 600 "$dir/pwfile"
  if [ "$(id -u)" = "0" ]; then chown -R postgres:postgres "$dir"; fi
  local port
  port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"

  as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=scram-sha-256 --pwfile="$dir/pwfile" \
    --encoding=UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    return 1
  }
  cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 300
fsync = off
full_page_writes = off
synchronous_commit = off
log_min_messages = warning
EOF
  if ! as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null; then
    cat "$dir/server.log" >&2 || true
    return 1
  fi
  echo "start-test-postgres: PostgreSQL $("$bindir/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$port, data in $dir" >&2
  echo "export CURSOR_GATEWAY_TEST_DATABASE_URL='postgresql://postgres:$password@127.0.0.1:$port/postgres'"
  echo "export CURSOR_GATEWAY_TEST_POSTGRES_DIR='$dir'"
}

case "${1:-start}" in
  start) start_cluster ;;
  stop) stop_cluster "${2:-${CURSOR_GATEWAY_TEST_POSTGRES_DIR:-}}" ;;
  *)
    echo "usage: $0 [start | stop DIR]" >&2
    exit 2
    ;;
esac
