#!/usr/bin/env bash
# Installs what sbf needs on a fresh Debian 12 machine (as root), then builds
# and installs the extension into the PostgreSQL that PG_CONFIG names (default
# Debian's PostgreSQL 15; test/run_all.sh passes the 18 it builds from
# ../shared/vendor with test/pg_build.sh).  The build starts clean, since the
# same tree is built for several majors in turn.
#   SBF_EXTRA_PACKAGES  more Debian packages to install (benchmarks, study)
#   SBF_PACKAGES_ONLY=1 install the packages, build nothing
#   CITUS_SRC, CITUS_PATCH  also build and install Citus (test/citus_setup.sh)
set -euo pipefail
. "$(dirname "$0")/packages.sh"
cd "$(dirname "$0")/.."

packages=(make gcc clang libclang-rt-14-dev postgresql-15 postgresql-server-dev-15
          postgresql-common libxxhash-dev libipc-run-perl perl ${SBF_EXTRA_PACKAGES:-})
need_packages setup "${packages[@]}"

[ "${SBF_PACKAGES_ONLY:-0}" = 1 ] && exit 0

export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
make -s PG_CONFIG="$PG_CONFIG" clean >/dev/null
make -s PG_CONFIG="$PG_CONFIG" WERROR=${WERROR:-1} >/dev/null
make -s PG_CONFIG="$PG_CONFIG" install >/dev/null
echo "setup: sbf built (-Werror) and installed into $("$PG_CONFIG" --pkglibdir) ($("$PG_CONFIG" --version))"

# Citus for test/t/020_citus.pl, built from source (Debian does not package it)
if [ -n "${CITUS_SRC:-}" ]; then
	bash test/citus_setup.sh
fi
