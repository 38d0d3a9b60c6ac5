#!/usr/bin/env bash
# Segment by segment, where a filter grown at growth 1 loses its rate
# (grown_segments.c; issue 36, item 4), core only:
#   bash test/bench/grown_segments.sh [N]   (N absent probes, default 1,000,000)
# writes test/bench/results/grown_segments.txt.  About 3 minutes at N = 10^6.
exec bash "$(dirname "$0")/core_run.sh" grown_segments "$@"
