#!/usr/bin/env bash
# Bytes and count errors of grown / sbf_agg / union filters at n = 1 .. 1e6,
# 1.1 (this tree) against 1.0 (a checkout of main), each in a private
# install and a throwaway cluster (tools/devcheck.sh).
#   test/bench/lifecycle_sizes.sh [main-checkout-dir]   (default /tmp/sbf-main)
# Writes test/bench/results/lifecycle_sizes.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
MAIN=${1:-/tmp/sbf-main}
OUT=test/bench/results/lifecycle_sizes.txt
SQL=$PWD/test/bench/lifecycle_sizes.sql
{
	echo "# sbf 1.1 (format 2), $(git rev-parse --short HEAD)"
	/work/tools/devcheck.sh lifecycle psql -q -f "$SQL"
	echo "# sbf 1.0 (format 1), $(git -C "$MAIN" rev-parse --short HEAD)"
	(cd "$MAIN" && /work/tools/devcheck.sh lifecycle10 psql -q -f "$SQL")
} > "$OUT"
cat "$OUT"
