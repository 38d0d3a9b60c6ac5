#!/usr/bin/env bash
# Runs the issue-27 benchmarks of release 1.3 against release 1.2 one after
# the other (never a pass/fail test): f4_agg.sh, f4_sizes.sh, f4_lookup.sh.
# This tree is built into the 1.3 copy of PostgreSQL 18 once (by the first
# script; the others reuse it), 1.2 (commit 232b1eb) into the other copy when
# it is not there yet: see f4_pair.sh.  Every knob of the three scripts
# passes through (BIG=1 adds the 200M group).  About 10 minutes (15 with
# BIG=1) on the 2-vCPU machine.  Results: test/bench/results/f4_*.txt.
#   bash test/bench/f4_all.sh          (as root)
set -euo pipefail
cd "$(dirname "$0")"
t0=$(date +%s)
bash ./f4_agg.sh
echo
F4_NOBUILD=1 bash ./f4_sizes.sh
echo
F4_NOBUILD=1 bash ./f4_lookup.sh
echo
echo "f4_all: $(( $(date +%s) - t0 )) s"
