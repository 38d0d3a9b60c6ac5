#!/usr/bin/env bash
# A window bucket as each complete kind would store it (bucket_kinds.c;
# issue 36, windows row), core only:
#   bash test/bench/bucket_kinds.sh [N]   (N absent probes, default 1,000,000)
# writes test/bench/results/bucket_kinds.txt.  About a minute at N = 10^6.
exec bash "$(dirname "$0")/core_run.sh" bucket_kinds "$@"
