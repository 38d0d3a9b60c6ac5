#!/usr/bin/env python3
"""ns per lookup in the Python package, printed as tab-separated rows
(n, form, call, ns): `c in f` and f.contains(c, since=...) one candidate at
a time, f.matches(cands) batched, over 120 absent-or-present candidates, for
a plain filter and a 30-bucket window of n elements.  Run by
test/bench/python_lookup_ab.sh, which compares two builds of the package.
"""
import sys, time, statistics, random
from datetime import datetime, timedelta, timezone
import sbf
random.seed(7)
t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
def med(f, reps=7):
    out = []
    for _ in range(reps):
        a = time.perf_counter_ns(); f(); out.append(time.perf_counter_ns() - a)
    return statistics.median(out)
cands = ["obj%d" % random.randrange(10**7) for _ in range(120)]
res = {}
for n in (30, 1000, 60000):
    items = ["obj%d" % i for i in range(n)]
    f = sbf.build(items)
    w = sbf.build_window([(x, t0 + timedelta(days=i % 30)) for i, x in enumerate(items)], buckets=30)
    since = t0 + timedelta(days=20)
    for name, g in (("plain", f), ("window", w)):
        res[(n, name, "in")] = med(lambda: [c in g for c in cands]) / 120
        res[(n, name, "matches")] = med(lambda: [g.matches(cands) for _ in range(10)]) / 1200
    res[(n, "window", "since")] = med(lambda: [w.contains(c, since=since) for c in cands]) / 120
for k, v in sorted(res.items()):
    print("%s\t%s\t%s\t%.1f" % (k[0], k[1], k[2], v))
