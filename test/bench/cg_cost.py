"""Costs from a cachegrind output file (--cache-sim=yes), for the benchmarks
agg_cachegrind.sh and lookup_cachegrind.sh: instructions, L1 data misses,
last-level misses, and the estimate of cycles both scripts quote,
instructions + 10 per L1 miss + 100 per last-level miss (a crude model that
ignores instructions per cycle, branch mispredictions and division costs)."""


def cost(path):
    """(Ir, D1 misses, LL misses, estimated cycles) of one cachegrind file."""
    events = totals = None
    with open(path) as f:
        for line in f:
            if line.startswith('events:'):
                events = line.split()[1:]
            elif line.startswith('summary:'):
                totals = [int(x) for x in line.split()[1:]]
    e = dict(zip(events, totals))
    d1 = e['D1mr'] + e['D1mw']
    ll = e['DLmr'] + e['DLmw']
    return e['Ir'], d1, ll, e['Ir'] + 10 * d1 + 100 * ll
