#!/usr/bin/env bash
# Docs that cannot go stale: runs every ```sql example of README.md and
# docs/*.md in a throwaway cluster (test/pg_tmp.sh), one fresh database per
# file, and compares the output where the text shows it (a ```text block
# right after the example).  See test/doc_check.py for the rules and the
# <!-- doc_check: skip REASON --> and <!-- doc_check: error --> markers.
# Needs sbf installed in the installation PG_CONFIG names (default: Debian's
# PostgreSQL 15; hold /var/lock/sbf-pg15.lock on a shared machine).
# Prints one line per example and ends with "N passed, N failed, N skipped".
#   usage: [PG_CONFIG=/path/to/pg_config] bash test/doc_check.sh [files...]
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PSQL="$("$PG_CONFIG" --bindir)/psql"
export PSQL
if [ $# -eq 0 ]; then
	set -- README.md docs/*.md
fi
bash test/pg_tmp.sh python3 test/doc_check.py "$@"
