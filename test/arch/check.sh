#!/usr/bin/env bash
# test/arch/check.sh: the shape of src/, measured from the sources.
#
#   bash test/arch/check.sh          report, exit 1 when a limit is broken
#   SBF_ARCH_VERBOSE=1 bash ...      also list every cross-file edge
#
# What it measures (every .c and .h under src/, walked recursively, so files
# may move into subfolders):
#   - the file graph: a .c "uses" another .c when it calls (or reads) a
#     non-static symbol defined there, read exactly from `nm` of objects this
#     script compiles into a scratch directory (defined T/D/B/R, undefined U);
#     any file "includes" a header named by #include "..." (resolved first
#     beside the file, then by name anywhere under src/);
#   - circles: the strongly connected components of that graph with more
#     than one file;
#   - upward includes: a file including a header of a higher layer (LAYERS
#     below: first pattern matching the path relative to src/ wins);
#   - .c files over the line limit;
#   - files outside the kinds (basename sbf_kind*) naming a kind constant;
#   - benchmark sources (test/bench/*.c) that no longer compile against the
#     core (SBF_ARCH_MAX_BENCH_BROKEN, default 0).
#
# Limits: each is an environment variable; a number is the most allowed,
# "off" turns the check into a report only.
#   SBF_ARCH_MAX_CIRCLES     circles between files           (default 0)
#   SBF_ARCH_MAX_UPWARD      includes from a lower layer up  (default 0)
#   SBF_ARCH_MAX_KIND_FILES  files naming a kind constant outside the kinds
#                            (default 0)
#   SBF_ARCH_MAX_LONG        .c files over SBF_ARCH_LINES lines (default 0;
#                            SBF_ARCH_LINES defaults to 800)
#   SBF_ARCH_MAX_LONG_FUNCS  functions over SBF_ARCH_FUNC_LINES lines (default
#                            0; 120 lines), from the name line to the closing
#                            brace, read in pgindent style (braces of a
#                            function body in column 0)
# The glue's objects need PostgreSQL's server headers: PG_CONFIG (default
# pg_config on PATH, else the newest /usr/lib/postgresql/*/bin/pg_config).
# CC defaults to cc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${SBF_ARCH_MAX_CIRCLES:=0}"
: "${SBF_ARCH_MAX_UPWARD:=0}"
: "${SBF_ARCH_MAX_KIND_FILES:=0}"
: "${SBF_ARCH_MAX_LONG:=0}"
: "${SBF_ARCH_LINES:=800}"
: "${SBF_ARCH_MAX_LONG_FUNCS:=0}"
: "${SBF_ARCH_FUNC_LINES:=120}"
: "${CC:=cc}"
if [ -z "${PG_CONFIG:-}" ]; then
	if command -v pg_config >/dev/null 2>&1; then
		PG_CONFIG=pg_config
	else
		PG_CONFIG=$(ls -d /usr/lib/postgresql/*/bin/pg_config 2>/dev/null | sort -V | tail -n 1)
	fi
fi
pg_inc=$("$PG_CONFIG" --includedir-server 2>/dev/null) || {
	echo "check.sh: no pg_config (set PG_CONFIG): the glue's objects need the server headers" >&2
	exit 2
}
export SBF_ARCH_MAX_CIRCLES SBF_ARCH_MAX_UPWARD SBF_ARCH_MAX_KIND_FILES \
	SBF_ARCH_MAX_LONG SBF_ARCH_LINES SBF_ARCH_MAX_LONG_FUNCS SBF_ARCH_FUNC_LINES CC
exec python3 - "$root/src" "$pg_inc" <<'PYEOF'
import os, re, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

# Layers, lowest first: (name, pattern on the path relative to src/).  The
# first pattern that matches a file gives its layer; edit this table when
# files move.  A file may include headers of its own layer or lower ones.
LAYERS = [
    # the core (src/core), one folder a subsystem
    ("common", r"^core/common/"),
    ("compact", r"^core/compact/"),
    ("kinds", r"^core/kinds/"),
    ("dir", r"^core/dir/"),
    # the window subsystem by layer: reading a value, building a bucket,
    # writing a value
    ("window-read", r"^core/window/sbf_window(_int)?\.[ch]$"),
    ("window-build", r"^core/window/sbf_window_build\.c$"),
    ("window-write", r"^core/window/"),
    ("plain", r"^core/plain/"),
    ("union", r"^core/union/"),
    ("hashset", r"^core/hashset/"),
    ("plan", r"^core/plan/"),
    ("app", r"^core/app/"),
    # the PostgreSQL glue
    ("glue", r"^pg/"),
]
KIND_CONST = re.compile(r"\bSBF_KIND_(BLOOM|BLOCKED|FUSED|WBLOOM)\b")
KIND_FILE = re.compile(r"^sbf_kind[^/]*$")

src, pg_inc = sys.argv[1], sys.argv[2]
env = os.environ
verbose = env.get("SBF_ARCH_VERBOSE", "") not in ("", "0")
max_lines = int(env["SBF_ARCH_LINES"])

files = []
for d, dirs, names in os.walk(src):
    dirs.sort()
    for n in sorted(names):
        if n.endswith((".c", ".h")):
            files.append(os.path.relpath(os.path.join(d, n), src))
dirs_all = sorted({os.path.dirname(os.path.join(src, f)) for f in files})
by_name = {}
for f in files:
    by_name.setdefault(os.path.basename(f), []).append(f)

def layer(f):
    for i, (name, pat) in enumerate(LAYERS):
        if re.search(pat, f):
            return i, name
    return len(LAYERS), "?"

text = {}
for f in files:
    with open(os.path.join(src, f), encoding="utf-8", errors="replace") as fh:
        text[f] = fh.read()

# include edges
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
edges = {f: {} for f in files}          # f -> {g: reason}
includes = []
for f in files:
    for name in inc_re.findall(text[f]):
        beside = os.path.normpath(os.path.join(os.path.dirname(f), name))
        cands = by_name.get(os.path.basename(name), [])
        if beside in text:
            g = beside
        elif len(cands) == 1:
            g = cands[0]
        elif cands:
            # several headers of that name: the one sharing most of f's path
            def shared(c):
                return len(os.path.commonpath([os.path.dirname(f) or ".",
                                               os.path.dirname(c) or "."]))
            g = max(cands, key=shared)
            print("note: %s includes \"%s\": several under src/, taking %s"
                  % (f, name, g))
        else:
            continue                    # a PostgreSQL or system header
        includes.append((f, g))
        edges[f].setdefault(g, "#include")

# use edges, from nm of objects compiled here
cfiles = [f for f in files if f.endswith(".c")]
tmp = tempfile.mkdtemp(prefix="sbf-arch-")
incs = ["-I" + d for d in dirs_all] + ["-I" + pg_inc]

def compile_one(f):
    obj = os.path.join(tmp, f.replace("/", "__") + ".o")
    r = subprocess.run([env["CC"], "-c", "-O0", "-w", "-o", obj,
                        os.path.join(src, f)] + incs,
                       capture_output=True, text=True)
    if r.returncode != 0:
        return f, None, r.stderr
    r2 = subprocess.run(["nm", "-P", obj], capture_output=True, text=True)
    return f, r2.stdout, None

defined, undef = {}, {}
with ThreadPoolExecutor(max_workers=2) as ex:
    for f, out, err in ex.map(compile_one, cfiles):
        if out is None:
            sys.stderr.write("check.sh: cannot compile %s:\n%s" % (f, err))
            sys.exit(2)
        undef[f] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) < 2:
                continue
            sym, t = parts[0], parts[1]
            if t == "U":
                undef[f].add(sym)
            elif t in "TDBRCVWG":
                defined.setdefault(sym, []).append(f)
subprocess.run(["rm", "-rf", tmp])
uses = []
for f in cfiles:
    for sym in sorted(undef[f]):
        for g in defined.get(sym, []):
            if g != f:
                uses.append((f, g, sym))
                prev = edges[f].get(g)
                if prev is None:
                    edges[f][g] = "uses " + sym
                elif "uses " not in prev:
                    edges[f][g] = prev + ", uses " + sym
                else:
                    edges[f][g] = prev + " " + sym

# strongly connected components (Tarjan, iterative)
index, low, onstack, stack, sccs = {}, {}, set(), [], []
counter = [0]
for root in files:
    if root in index:
        continue
    work = [(root, iter(sorted(edges[root])))]
    index[root] = low[root] = counter[0]; counter[0] += 1
    stack.append(root); onstack.add(root)
    while work:
        v, it = work[-1]
        advanced = False
        for w in it:
            if w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1
                stack.append(w); onstack.add(w)
                work.append((w, iter(sorted(edges[w]))))
                advanced = True
                break
            elif w in onstack:
                low[v] = min(low[v], index[w])
        if advanced:
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); onstack.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))
sccs.sort()

upward = [(f, g) for f, g in includes if layer(f)[0] < layer(g)[0]]
upcalls = sorted({(f, g) for f, g, _ in uses if layer(f)[0] < layer(g)[0]})
long_files = sorted((f, text[f].count("\n")) for f in cfiles
                    if text[f].count("\n") > max_lines)
func_lines = int(env["SBF_ARCH_FUNC_LINES"])
long_funcs = []
for f in cfiles:
    ls = text[f].split("\n")
    for i, l in enumerate(ls):
        if l != "{" or i == 0:
            continue
        j = i - 1               # the name line: "name(" at column 0
        while j > 0 and not re.match(r"^[A-Za-z_]\w*\s*\(", ls[j]) and ls[j] != "":
            j -= 1
        m = re.match(r"^([A-Za-z_]\w*)\s*\(", ls[j])
        k = i
        while k < len(ls) and ls[k] != "}":
            k += 1
        if m and k - j + 1 > func_lines:
            long_funcs.append((f, m.group(1), k - j + 1))
kind_files = sorted(f for f in files
                    if not KIND_FILE.match(os.path.basename(f))
                    and KIND_CONST.search(text[f]))

print("sbf architecture: %d files under src/ (%d .c), %d includes, %d file-to-file uses"
      % (len(files), len(cfiles), len(includes), len({(f, g) for f, g, _ in uses})))
print("layers, lowest first: " + " < ".join(n for n, _ in LAYERS))
print("\ncircles between files: %d" % len(sccs))
for comp in sccs:
    print("  - " + " ".join(comp))
    for f in comp:
        for g in sorted(edges[f]):
            if g in comp:
                print("      %s -> %s (%s)" % (f, g, edges[f][g]))
print("\nincludes from a lower layer up: %d" % len(upward))
for f, g in upward:
    print("  - %s (%s) includes %s (%s)" % (f, layer(f)[1], g, layer(g)[1]))
print("\nuses from a lower layer up (report only): %d" % len(upcalls))
for f, g in upcalls:
    syms = sorted(s for a, b, s in uses if a == f and b == g)
    print("  - %s (%s) uses %s (%s): %s" % (f, layer(f)[1], g, layer(g)[1], " ".join(syms)))
print("\n.c files over %d lines: %d" % (max_lines, len(long_files)))
for f, n in long_files:
    print("  - %s (%d)" % (f, n))
print("functions over %d lines: %d" % (func_lines, len(long_funcs)))
for f, name, n in long_funcs:
    print("  - %s: %s (%d)" % (f, name, n))
unlayered = [f for f in files if layer(f)[1] == "?"]
print("\nfiles in no layer (add a row to LAYERS): %d" % len(unlayered))
for f in unlayered:
    print("  - %s" % f)
print("\nfiles outside the kinds naming a kind constant: %d" % len(kind_files))
for f in kind_files:
    print("  - %s" % f)
if verbose:
    print("\nall cross-file edges:")
    for f in files:
        for g in sorted(edges[f]):
            print("  %s -> %s (%s)" % (f, g, edges[f][g]))

# The benchmarks in test/bench/*.c compile straight against the core (their
# headers give the command); a moved header or a changed struct must not
# leave them broken unnoticed.
bench = os.path.join(os.path.dirname(src), "test", "bench")
core_incs = sorted("-I" + d for d, _, fs in os.walk(os.path.join(src, "core"))
                   if any(f.endswith(".h") for f in fs))
kit_inc = "-I" + os.path.join(os.path.dirname(src), "test", "kit")
def bench_broken(path):
    r = subprocess.run([env.get("CC", "cc"), "-fsyntax-only",
                        "-Werror=implicit-function-declaration"] + core_incs +
                       [kit_inc, path], capture_output=True, text=True)
    return None if r.returncode == 0 else (path, r.stderr.strip().splitlines()[:3])
with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
    broken = [b for b in ex.map(bench_broken, sorted(
        os.path.join(bench, f) for f in os.listdir(bench) if f.endswith(".c"))) if b]
print("\nbench sources that do not compile: %d" % len(broken))
for path, err in broken:
    print("  - %s" % os.path.relpath(path, os.path.dirname(src)))
    for line in err:
        print("      %s" % line)

failed = []
env["SBF_ARCH_MAX_UNLAYERED"] = "0"
env.setdefault("SBF_ARCH_MAX_BENCH_BROKEN", "0")
for var, what, n in (("SBF_ARCH_MAX_UNLAYERED", "files in no layer", len(unlayered)),
                     ("SBF_ARCH_MAX_CIRCLES", "circles", len(sccs)),
                      ("SBF_ARCH_MAX_UPWARD", "upward includes", len(upward)),
                      ("SBF_ARCH_MAX_KIND_FILES", "kind-constant files", len(kind_files)),
                      ("SBF_ARCH_MAX_LONG", "long .c files", len(long_files)),
                      ("SBF_ARCH_MAX_LONG_FUNCS", "long functions", len(long_funcs)),
                      ("SBF_ARCH_MAX_BENCH_BROKEN", "broken bench sources", len(broken))):
    lim = env[var].strip().lower()
    if lim == "off":
        print("%-20s %3d  (limit off)" % (what, n))
        continue
    ok = n <= int(lim)
    print("%-20s %3d  limit %s  %s" % (what, n, lim, "ok" if ok else "FAILED (" + var + ")"))
    if not ok:
        failed.append(what)
sys.exit(1 if failed else 0)
PYEOF
