#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests, on 127.0.0.1:$SVCGEN_PG_PORT (default 54329),
# trust authentication, user postgres, data in $SVCGEN_PG_DIR (default /tmp/svcgen-pg).
#   scripts/postgres.sh start   # idempotent; prints the URL of the server
#   scripts/postgres.sh stop
#   scripts/postgres.sh crash   # stop -m immediate: what a crash of the server looks like to clients
# Durability is off (fsync, synchronous_commit): the data is thrown away anyway. A fault test that
# crashes the server sets SVCGEN_PG_SYNCHRONOUS_COMMIT=on, or a commit it was told of could be lost
# with the server's memory, which is PostgreSQL's setting at work, not the service's fault.
set -euo pipefail
DIR="${SVCGEN_PG_DIR:-/tmp/svcgen-pg}"
PORT="${SVCGEN_PG_PORT:-54329}"
SYNCHRONOUS_COMMIT="${SVCGEN_PG_SYNCHRONOUS_COMMIT:-off}"
BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
if [ -z "$BIN" ] && command -v pg_ctl >/dev/null; then BIN="$(dirname "$(command -v pg_ctl)")"; fi
if [ -z "$BIN" ]; then
  echo "postgres.sh: PostgreSQL is not installed (on Debian: apt-get install -y postgresql)" >&2
  exit 1
fi

# PostgreSQL refuses to run as root: as root, run it as the postgres user.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-start}" in
  start)
    if ! "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
      mkdir -p "$DIR"
      if [ "$(id -u)" = 0 ]; then chown postgres "$DIR"; fi
      if [ ! -f "$DIR/data/PG_VERSION" ]; then
        as_owner "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust -E UTF8 --no-locale >/dev/null
      fi
      as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -t 60 \
        -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=$SYNCHRONOUS_COMMIT -c full_page_writes=off -c max_connections=200" \
        start >/dev/null
    fi
    echo "postgres://postgres@127.0.0.1:$PORT/postgres"
    ;;
  stop)
    if [ -f "$DIR/data/postmaster.pid" ]; then as_owner "$BIN/pg_ctl" -D "$DIR/data" -w -m fast stop >/dev/null; fi
    ;;
  crash)
    if [ -f "$DIR/data/postmaster.pid" ]; then as_owner "$BIN/pg_ctl" -D "$DIR/data" -w -m immediate stop >/dev/null; fi
    ;;
  *)
    echo "usage: $0 start|stop|crash" >&2
    exit 2
    ;;
esac
