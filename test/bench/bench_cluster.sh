#!/usr/bin/env bash
# Runs a benchmark body in a throwaway cluster with the given server settings,
# then drops the cluster.  Used by the test/bench/*.sh scripts.
#   usage: bash test/bench/bench_cluster.sh "name=value ..." command [args...]
# With PG_CONFIG set, the cluster is one of that installation (any major; sbf
# must be installed in it, `make clean && make PG_CONFIG=... install`: objects
# built for another major are not rebuilt), made by
# test/pg_tmp.sh; the settings are applied with ALTER SYSTEM and a restart,
# and that installation's bin directory comes first in PATH (psql, pgbench).
# Without PG_CONFIG it is Debian's PostgreSQL 15 through pg_virtualenv
# (postgresql-common), as before.  The command sees PGHOST, PGPORT, PGUSER and
# PGDATABASE.  Run as root (the clusters run as user postgres).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = --inside ]; then
	# inside test/pg_tmp.sh's cluster: apply the settings, restart, run
	shift
	settings=$1
	shift
	if [ -n "$settings" ]; then
		for s in $settings; do
			psql -X -q -v ON_ERROR_STOP=1 -c "ALTER SYSTEM SET ${s%%=*} = '${s#*=}'"
		done
		datadir=$(psql -X -At -c "SHOW data_directory")
		pgctl=$(command -v pg_ctl)
		if [ "$(id -un)" = postgres ]; then
			"$pgctl" -D "$datadir" -l "$datadir/../server.log" -w restart >/dev/null
		else
			runuser -u postgres -- "$pgctl" -D "$datadir" -l "$datadir/../server.log" -w restart >/dev/null
		fi
	fi
	exec "$@"
fi

settings=$1
shift
if [ -n "${PG_CONFIG:-}" ]; then
	PATH="$("$PG_CONFIG" --bindir):$PATH"
	export PATH
	exec bash "$here/../pg_tmp.sh" bash "$here/bench_cluster.sh" --inside "$settings" "$@"
else
	opts=()
	for s in $settings; do opts+=(-o "$s"); done
	exec pg_virtualenv -t -v 15 "${opts[@]}" "$@"
fi
