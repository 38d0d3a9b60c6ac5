#!/usr/bin/env bash
# agg_quick.sh against a private PostgreSQL installation (the helpers'
# /opt/pg-NAME from tools/devcheck.sh) instead of pg_virtualenv's: starts a
# throwaway cluster of BIN with the same settings, runs agg_quick_run.sh in
# it, and removes it.  Never a pass/fail test.
#   BIN=/opt/pg-x/lib/postgresql/15/bin test/bench/agg_quick_private.sh \
#       base=/opt/pg-y/lib/postgresql/15/lib/sbf.so new=ext
# Environment: BIN (required), REPS, SCALE, WORKERS as for agg_quick.sh.
# Run as root (the cluster runs as postgres).
set -euo pipefail
cd "$(dirname "$0")"
: "${BIN:?set BIN to the bin directory of a PostgreSQL 15 installation}"
D=$(mktemp -d /tmp/aggquick.XXXXXX)
chown postgres: "$D"
PORT=$(( 20000 + RANDOM % 20000 ))
runuser -u postgres -- "$BIN/initdb" -D "$D/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -l "$D/log" -w start -o \
	"-p $PORT -k $D -c listen_addresses='' -c shared_buffers=1GB -c work_mem=256MB -c jit=off -c max_parallel_workers=4" >/dev/null
trap 'runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -m immediate stop >/dev/null; rm -rf "$D"' EXIT
export PGHOST=$D PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres PATH="$BIN:$PATH"
export REPS=${REPS:-5} SCALE=${SCALE:-0.4} WORKERS=${WORKERS:-0}
export QUICK_BUILDS="$*"
bash ./agg_quick_run.sh
