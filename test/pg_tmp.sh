#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster of the installation
# that PG_CONFIG names, then stops and removes the cluster (like Debian's
# pg_virtualenv, which knows only Debian's packaged majors).  The cluster
# listens on a unix socket in its own directory only (no TCP), runs as user
# postgres, and the command sees PGHOST, PGPORT, PGUSER=postgres and
# PGDATABASE=postgres.  The command's exit status is returned.
# SBF_PG_LISTEN=127.0.0.1 also listens on that loopback address (the port is
# PGPORT): for clients without unix sockets, such as the JDBC driver.
#   usage: PG_CONFIG=/path/to/pg_config bash test/pg_tmp.sh command [args...]
set -euo pipefail

pg_config=${PG_CONFIG:?PG_CONFIG must name the installation}
bindir=$("$pg_config" --bindir)
[ $# -gt 0 ] || { echo "pg_tmp: no command" >&2; exit 2; }

dir=$(mktemp -d /tmp/sbf-pg.XXXXXX)
chown postgres: "$dir"
chmod 700 "$dir"
as_pg() { if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi; }

cleanup() {
	as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT

as_pg "$bindir/initdb" -D "$dir/data" -U postgres -A trust --no-sync \
	--encoding=UTF8 --locale=C > "$dir/initdb.log" 2>&1 ||
	{ cat "$dir/initdb.log" >&2; exit 1; }
# a free port: the socket lives in our own directory, so only the lock file
# name must not clash with another cluster's in that directory
port=$(( 20000 + RANDOM % 20000 ))
cat >> "$dir/data/postgresql.conf" <<CONF
listen_addresses = '${SBF_PG_LISTEN:-}'
unix_socket_directories = '$dir'
port = $port
fsync = off
max_worker_processes = 16
max_parallel_workers = 8
CONF
as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null ||
	{ cat "$dir/server.log" >&2; exit 1; }

export PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=postgres
set +e
"$@"
rc=$?
set -e
exit $rc
