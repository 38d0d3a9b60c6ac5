#!/usr/bin/env bash
# Runs test/bench/python_bench.py once: builds the package into a temporary
# venv, installs the extension into the PostgreSQL that SBF_PY_PG_CONFIG
# names (default Debian's 15, under /var/lock/sbf-pg15.lock) and runs the
# benchmark in a throwaway cluster (test/pg_tmp.sh).  Prints its tables.
set -euo pipefail
cd "$(dirname "$0")/../.."
pg_config=${SBF_PY_PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
work=$(mktemp -d /tmp/sbf-pybench.XXXXXX)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
rm -rf clients/python/build
PIP_DISABLE_PIP_VERSION_CHECK=1 "$work/venv/bin/pip" install -q --no-index --no-build-isolation --no-cache-dir ./clients/python
rm -rf clients/python/build
make -s clean PG_CONFIG="$pg_config" >/dev/null
make -s -j2 PG_CONFIG="$pg_config" >/dev/null
export pg_config work
run() {
	make -s PG_CONFIG="$pg_config" install >/dev/null
	PG_CONFIG="$pg_config" bash test/pg_tmp.sh bash -c \
		'cd /tmp && "$work/venv/bin/python" "$OLDPWD/test/bench/python_bench.py"'
}
export -f run
if [ "$pg_config" = /usr/lib/postgresql/15/bin/pg_config ]; then
	flock /var/lock/sbf-pg15.lock bash -c run
else
	bash -c run
fi
