#!/usr/bin/env bash
# Lookups through a plan in a compact segment (version 5) against fused and
# bloom (plan_compact.c; issues 35/36), core only:
#   bash test/bench/plan_compact.sh [N]   (lookups a run, default 1,000,000)
# writes test/bench/results/plan_compact.txt.  About half a minute.
exec bash "$(dirname "$0")/core_run.sh" plan_compact "$@"
