#!/usr/bin/env bash
# agg_quick.sh against the installation whose bin directory is BIN (kept for
# the command lines of earlier results): the same as
#   PG_CONFIG=$BIN/pg_config bash test/bench/agg_quick.sh [LABEL=PATH ...]
# Never a pass/fail test.  Run as root (the cluster runs as postgres).
set -euo pipefail
: "${BIN:?set BIN to the bin directory of a PostgreSQL installation with sbf installed}"
PG_CONFIG=$BIN/pg_config exec bash "$(dirname "$0")/agg_quick.sh" "$@"
