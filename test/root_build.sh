#!/usr/bin/env bash
# Creates a cached Debian root holding one PostgreSQL major's server and
# development packages with that distribution's own compiler, for the majors
# Debian 12 cannot install: 17 from Debian 13 (trixie), 19 (release candidate)
# from Debian unstable with experimental.  Made with debootstrap from the
# mirror this machine's apt sources name (test/root_lib.sh), under
# SBF_CACHE/roots/ outside the clone; reused when complete (marker file
# .complete; one build at a time per root, under flock).  Prints the root's
# path on stdout; progress goes to stderr.
#   usage: bash test/root_build.sh MAJOR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/packages.sh"
. "$here/root_lib.sh"

major=${1:?usage: root_build.sh MAJOR}
{ root_spec "$major" && root=$(root_dir "$major"); } || { echo "root_build: no root is made for PostgreSQL $major" >&2; exit 1; }
mirror=$(root_mirror | head -1)
[ -n "$mirror" ] || { echo "root_build: no Debian mirror in this machine's apt sources" >&2; exit 1; }

mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9
if [ -f "$root/.complete" ]; then
	echo "root_build: reusing $root" >&2
	echo "$root"
	exit 0
fi

need_packages root_build debootstrap
start=$(date +%s)
log=$root.log
echo "root_build: creating a Debian $root_suite root for PostgreSQL $major in $root (log $log)" >&2
trap 'root_umount' EXIT
fail() { echo "root_build: $1; last lines of $log:" >&2; tail -25 "$log" >&2; exit 1; }

rm -rf "$root"
debootstrap --variant=minbase --components=main "$root_suite" "$root" "$mirror" > "$log" 2>&1 ||
	fail "debootstrap failed"

# apt inside: this mirror (a dated snapshot's Release files may be past
# their Valid-Until), no recommends, no services started by package scripts
{
	echo "deb $mirror $root_suite main"
	[ -z "$root_extra" ] || echo "deb $mirror $root_extra main"
} > "$root/etc/apt/sources.list"
cat > "$root/etc/apt/apt.conf.d/90sbf" <<'CONF'
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
CONF
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
# no cluster is created by the packages: the suites make their own
mkdir -p "$root/etc/postgresql-common"
echo "create_main_cluster = false" > "$root/etc/postgresql-common/createcluster.conf"

root_mount "$root"
{
	root_exec "$root" apt-get update &&
	root_exec "$root" apt-get install -y -o Dpkg::Options::=--force-confold "${root_pkgs[@]}" &&
	root_exec "$root" apt-get install -y -o Dpkg::Options::=--force-confold "${root_major_pkgs[@]}" &&
	root_exec "$root" apt-get clean
} >> "$log" 2>&1 || fail "apt-get in the root failed"
root_umount

pg_config=$root/usr/lib/postgresql/$major/bin/pg_config
[ -x "$pg_config" ] || fail "no pg_config of $major in the root"
echo "$(root_exec "$root" gcc --version | head -1); $(root_exec "$root" /usr/lib/postgresql/$major/bin/pg_config --version)" > "$root/.complete"
echo "root_build: PostgreSQL $major root ready in $(( $(date +%s) - start )) s: $(cat "$root/.complete")" >&2
echo "$root"
