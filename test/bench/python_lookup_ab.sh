#!/usr/bin/env bash
# The Python package's lookups, two builds side by side in one run:
#   bash test/bench/python_lookup_ab.sh BASE [ROUNDS]
# builds clients/python from commit BASE and from the working tree into two
# venvs, runs test/bench/python_lookup_ab.py alternately ROUNDS times
# (default 5) and prints, per case, the median ns of each build and the
# median of the per-round ratios base/new (> 1: the working tree is
# faster).  No server needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: python_lookup_ab.sh BASE [ROUNDS]}
rounds=${2:-5}
work=$(mktemp -d /var/tmp/sbf-pyab.XXXXXX)
trap 'rm -rf "$work"' EXIT
git worktree add -q --detach "$work/base" "$base"
trap 'git worktree remove --force "$work/base"; rm -rf "$work"' EXIT
mkdir -p "$work/new"
cp -a src clients "$work/new/"
for v in base new; do
	/usr/bin/python3 -m venv --system-site-packages "$work/venv-$v"
	(cd "$work/$v" && PIP_DISABLE_PIP_VERSION_CHECK=1 "$work/venv-$v/bin/pip" install -q \
		--no-index --no-build-isolation --no-cache-dir ./clients/python > /dev/null)
done
echo "# $(date -u +%Y-%m-%dT%H:%MZ), base $(git rev-parse --short "$base"), new $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src clients || echo '+changes'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds"
for r in $(seq "$rounds"); do
	for v in base new; do
		nice "$work/venv-$v/bin/python" test/bench/python_lookup_ab.py > "$work/$v.$r"
	done
done
cat "$work"/base.* | sed 's/^/base\t/' > "$work/all"
cat "$work"/new.* | sed 's/^/new\t/' >> "$work/all"
python3 - "$work" "$rounds" <<'PY'
import statistics, sys, collections
work, rounds = sys.argv[1], int(sys.argv[2])
ns = collections.defaultdict(list)
for r in range(1, rounds + 1):
    for v in ("base", "new"):
        for line in open("%s/%s.%d" % (work, v, r)):
            n, form, call, x = line.split("\t")
            ns[(int(n), form, call, v)].append(float(x))
print("%8s %-7s %-8s %10s %10s %8s" % ("n", "form", "call", "base ns", "new ns", "base/new"))
for key in sorted({k[:3] for k in ns}):
    b, w = ns[key + ("base",)], ns[key + ("new",)]
    ratio = statistics.median(x / y for x, y in zip(b, w))
    print("%8d %-7s %-8s %10.1f %10.1f %8.2f" % (key + (statistics.median(b), statistics.median(w), ratio)))
PY
