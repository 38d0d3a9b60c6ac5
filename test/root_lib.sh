# shellcheck shell=bash
# Sourced by test/root_build.sh, test/root_run.sh and test/run_all.sh: what a Debian root
# for one PostgreSQL major is, where it is cached, and how it is entered.
#   SBF_CACHE  cache directory (default /var/cache/sbf); roots live in roots/

# The Debian mirror this machine's apt uses: the first URIs of a deb822
# stanza (or deb line) whose suites are not the security ones.  Read at run
# time, so that no host is written into the repository.
root_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
			{ uri = ""; suites = ""
			  for (i = 1; i <= NF; i++) {
				if ($i ~ /^URIs:/) { uri = $i; sub(/^URIs:[ \t]*/, "", uri); sub(/[ \t].*/, "", uri) }
				if ($i ~ /^Suites:/) suites = $i }
			  if (uri != "" && suites !~ /security/) { print uri; exit } }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }' "$f"
	done
}

# Sets root_suite (debootstrap's suite), root_extra (another suite for
# apt), root_pkgs (packages from root_suite) and root_major_pkgs (the
# major's packages, with a /suite suffix when they come from root_extra) for
# a major; fails for a major no root is made for.
root_spec() {
	root_pkgs=(make gcc libc6-dev perl libipc-run-perl libxxhash-dev tzdata locales-all
	           ca-certificates)
	case $1 in
	17) root_suite=trixie; root_extra=
		root_major_pkgs=(postgresql-17 postgresql-server-dev-17) ;;
	19) root_suite=sid; root_extra=experimental
		# from experimental by name, the client library included; the
		# toolchain and the rest come from unstable
		root_major_pkgs=(postgresql-19/experimental postgresql-client-19/experimental
		                 postgresql-server-dev-19/experimental libpq5/experimental
		                 libpq-dev/experimental) ;;
	*) return 1 ;;
	esac
}

# The root directory of a major: named by its suite and a hash of what it
# holds, so that a changed package list makes a new root.
root_dir() {
	local major=$1 cache=${SBF_CACHE:-/var/cache/sbf}
	root_spec "$major" || return 1
	local key
	key=$(echo "$root_suite $root_extra ${root_pkgs[*]} ${root_major_pkgs[*]}" | sha256sum | cut -c1-12)
	echo "$cache/roots/pg$major-$root_suite-$key"
}

# Mounts what a root needs to run servers and builds (/proc, /dev, /dev/pts,
# /dev/shm), plus each extra "HOSTDIR:ROOTDIR" bind; records every mount
# point in root_mounts for root_umount.  Call root_umount from an EXIT trap.
root_mounts=()
root_mount() {
	local root=$1 spec
	shift
	mkdir -p "$root/proc" "$root/dev"
	mount -t proc proc "$root/proc" && root_mounts+=("$root/proc")
	mount --bind /dev "$root/dev" && root_mounts+=("$root/dev")
	mount --bind /dev/pts "$root/dev/pts" && root_mounts+=("$root/dev/pts")
	mount --bind /dev/shm "$root/dev/shm" && root_mounts+=("$root/dev/shm")
	for spec in "$@"; do
		mkdir -p "$root/${spec#*:}"
		mount --bind "${spec%%:*}" "$root/${spec#*:}" && root_mounts+=("$root/${spec#*:}")
	done
}

# Undoes root_mount's mounts, innermost first.
root_umount() {
	local i
	for ((i = ${#root_mounts[@]} - 1; i >= 0; i--)); do
		umount "${root_mounts[$i]}" 2>/dev/null || umount -l "${root_mounts[$i]}" 2>/dev/null
	done
	root_mounts=()
}

# Runs a command inside a root with a clean environment.
root_exec() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
		HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
