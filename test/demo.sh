#!/usr/bin/env bash
# The demo: installs sbf (test/setup.sh), then, in a throwaway cluster, builds
# filters from sample interactions, scores candidates and prints the results.
set -euo pipefail
cd "$(dirname "$0")/.."
bash test/setup.sh
pg_virtualenv -t -v 15 psql -X -q -f test/demo.sql
