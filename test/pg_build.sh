#!/usr/bin/env bash
# Builds a PostgreSQL release from its source tarball (kept in ../shared/vendor)
# into a cache outside the clone, with TAP support, contrib and pg_upgrade, and
# prints the path of its pg_config.  A repeated run reuses the build.  Debian 12
# packages only PostgreSQL 15; 18 comes from here.
#   PG_SRC     path to postgresql-*.tar.bz2 (required)
#   SBF_CACHE  cache directory (default /var/cache/sbf)
# Progress goes to stderr; stdout carries only the pg_config path.
set -euo pipefail
. "$(dirname "$0")/packages.sh"

src=${PG_SRC:?PG_SRC must name a PostgreSQL source tarball}
cache=${SBF_CACHE:-/var/cache/sbf}
[ -f "$src" ] || { echo "pg_build: no such tarball: $src" >&2; exit 1; }

# Build dependencies (the vendor README's list); bison and flex because the
# release tarball holds no generated parser files.
packages=(bison flex libreadline-dev zlib1g-dev liblz4-dev libzstd-dev
          libipc-run-perl make gcc perl)
need_packages pg_build "${packages[@]}"

version=$(basename "$src" | sed -E 's/^postgresql-[0-9]+_([0-9.]+)\.orig\.tar\.bz2$/\1/; s/^postgresql-([0-9.]+)\.tar\.bz2$/\1/')
hash=$(sha256sum "$src" | cut -c1-16)
prefix=$cache/pg-$version-$hash

mkdir -p "$cache"
exec 9>"$prefix.lock"
flock 9

if [ -x "$prefix/bin/pg_config" ] && [ -f "$prefix/.built" ]; then
	echo "pg_build: reusing PostgreSQL $version in $prefix" >&2
else
	echo "pg_build: building PostgreSQL $version into $prefix (about 6 minutes on 2 cores)" >&2
	work=$prefix.src
	rm -rf "$prefix" "$work"
	mkdir -p "$work"
	tar -xjf "$src" -C "$work" --strip-components=1
	log=$cache/pg-$version-$hash.build.log
	if ! (cd "$work" &&
		./configure --prefix="$prefix" --enable-tap-tests --with-lz4 --with-zstd \
			--without-icu --enable-debug &&
		make -j"$(nproc)" world-bin && make install-world-bin) > "$log" 2>&1; then
		echo "pg_build: build failed; last lines of $log:" >&2
		tail -30 "$log" >&2
		exit 1
	fi
	rm -rf "$work"
	touch "$prefix/.built"
fi
echo "$prefix/bin/pg_config"
