#!/usr/bin/env bash
# Runs a command inside the Debian root of a PostgreSQL major (made by
# test/root_build.sh), in a copy of the sources: DIR on the host is bind-
# mounted at /sbf in the root and the command starts there.  /proc, /dev,
# /dev/pts and /dev/shm are mounted for it; every mount is undone when the
# command ends, fails or is interrupted.  Returns the command's status.
#   usage: bash test/root_run.sh MAJOR DIR command [args...]
#   SBF_ROOT_BIND  more "HOSTDIR:ROOTDIR" binds, space-separated
#   SBF_ROOT_ENV   more NAME=VALUE settings for the command, space-separated
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/root_lib.sh"

major=${1:?usage: root_run.sh MAJOR DIR command...}
dir=${2:?usage: root_run.sh MAJOR DIR command...}
shift 2
root=$(root_dir "$major") && [ -f "$root/.complete" ] ||
	{ echo "root_run: no complete root for PostgreSQL $major (test/root_build.sh $major)" >&2; exit 1; }
trap 'root_umount' EXIT
trap 'exit 130' INT TERM
# shellcheck disable=SC2086
root_mount "$root" "$dir:/sbf" ${SBF_ROOT_BIND:-} || exit 1
# shellcheck disable=SC2086
root_exec "$root" ${SBF_ROOT_ENV:-} sh -c 'cd /sbf && exec "$@"' sh "$@"
