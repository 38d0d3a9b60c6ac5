#!/usr/bin/env bash
# Builds Citus from a release tarball (plus an optional patch) and installs it
# into the PostgreSQL that PG_CONFIG names, for test/t/020_citus.pl.  Debian
# does not package Citus; its source is kept in ../shared/vendor/ (see
# .ci/run).  The build is cached outside the clone, keyed by the tarball, the
# patch and the PostgreSQL version, so a repeated run only reinstalls.
#   CITUS_SRC    path to citus-X.Y.Z.tar.gz (required)
#   CITUS_PATCH  path to a patch applied with patch -p1 (optional)
#   PG_CONFIG    target PostgreSQL (default /usr/lib/postgresql/15/bin/pg_config)
#   SBF_CACHE    cache directory (default /var/cache/sbf)
#   CITUS_BUILD_ONLY=1  fill the cache, install nothing (e.g. to prepare a CI image)
set -euo pipefail
. "$(dirname "$0")/packages.sh"

src=${CITUS_SRC:?CITUS_SRC must name a Citus source tarball}
patchfile=${CITUS_PATCH:-}
pg_config=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
cache=${SBF_CACHE:-/var/cache/sbf}

[ -f "$src" ] || { echo "citus_setup: no such tarball: $src" >&2; exit 1; }
[ -z "$patchfile" ] || [ -f "$patchfile" ] ||
	{ echo "citus_setup: no such patch: $patchfile" >&2; exit 1; }

# Debian build dependencies (the vendor README's list, and ICU's headers,
# which the server headers of a PostgreSQL built with ICU include).
# Installing needs root; without it, say what is missing.
packages=(liblz4-dev libzstd-dev libkrb5-dev libselinux1-dev libxslt1-dev
          libpam0g-dev libreadline-dev libpq-dev libicu-dev patch make gcc)
need_packages citus_setup "${packages[@]}"

# Cache key: the version from the tarball's name, the server's major version,
# and a hash of the tarball, the patch, the server's full version (an
# extension is built against one minor release's headers: 15.14 changed them)
# and its header directory (the build's dependency files name the headers, so
# a build is reused only for the same installation).
version=$(basename "$src" | sed -E 's/^citus-(.*)\.tar\.gz$/\1/')
pg_version=$("$pg_config" --version)
pg_major=$(echo "$pg_version" | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
hash=$({ cat "$src"; [ -z "$patchfile" ] || cat "$patchfile"; echo "$pg_version";
	"$pg_config" --includedir-server; } | sha256sum | cut -c1-16)
build=$cache/citus-$version-$pg_major-$hash

mkdir -p "$cache"
# One build at a time per cache entry: a concurrent run waits, then reuses it.
exec 9>"$build.lock"
flock 9

if [ -f "$build/.built" ]; then
	echo "citus_setup: reusing the build in $build"
else
	echo "citus_setup: building Citus $version for PostgreSQL $pg_major in $build (about 3 CPU-minutes)"
	rm -rf "$build" "$build.tmp"
	mkdir -p "$build.tmp"
	tar -xzf "$src" -C "$build.tmp" --strip-components=1
	if [ -n "$patchfile" ]; then
		patch -s -p1 -d "$build.tmp" < "$patchfile"
	fi
	# configure remembers its directory in the Makefiles: build in place
	# under the final name
	mv "$build.tmp" "$build"
	log=$build/build.log
	if ! (cd "$build" && PG_CONFIG="$pg_config" ./configure --without-libcurl &&
		make -j"$(nproc)") > "$log" 2>&1; then
		echo "citus_setup: build failed; last lines of $log:" >&2
		tail -30 "$log" >&2
		exit 1
	fi
	touch "$build/.built"
fi

if [ "${CITUS_BUILD_ONLY:-0}" = 1 ]; then
	echo "citus_setup: built in $build; nothing installed (CITUS_BUILD_ONLY)"
	exit 0
fi

# Install into the server PG_CONFIG names.
make -s -C "$build" install PG_CONFIG="$pg_config" > "$build/install.log" 2>&1 || {
	echo "citus_setup: make install failed; see $build/install.log" >&2
	tail -20 "$build/install.log" >&2
	exit 1
}
echo "citus_setup: Citus $version installed into $("$pg_config" --pkglibdir)"
