# Sourced by the set-up scripts: need_packages WHO PACKAGE... installs the
# Debian packages of the list that are missing (as root; apt-get update
# first), or, run by another user, names them and fails.  Messages go to
# stderr, prefixed by WHO.
need_packages() {
	local who=$1 p
	local missing=()
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "$who: missing packages ${missing[*]}; run as root to install them" >&2
		return 1
	fi
	echo "$who: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	# another installer may hold dpkg's lock (test/run_all.sh starts the
	# s390x suite in the background): wait for it instead of failing
	apt-get -o DPkg::Lock::Timeout=900 update -qq
	apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
