#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
"""Pool several wrk runs of run.sh and compare two configurations.

    python3 loadtest/wrk/pool.py [--scenario static] [--a stock] [--b reap]
                                 loadtest/results/wrk-*.csv[.gz] ...

run.sh measures the configurations of one point in alternation, so the
b run of repeat r and the a run of the same repeat were taken seconds
apart: that pair's ratio b/a is what machine drift disturbs least.  For
each thread count this prints, per file, the ratio of the medians (what
the run's own Markdown table shows) and, over the pairs of all the files,
the geometric mean of the ratios with a 95% bootstrap interval (10,000
resamples, fixed seed, so the same files give the same figures), the
median pair, and the ratios of CPU time per request (and, in runs that
record them, of user and system time and minor page faults per request).
The last line pools every pair of every thread count.
"""

import argparse
import csv
import gzip
import math
import random
import statistics
import sys
from collections import defaultdict


# Per-request columns of run.sh's CSV, compared pair by pair (older runs
# have only the first).
COUNTERS = {
    "cpu_us_per_req": "CPU per request",
    "user_us_per_req": "user CPU per request",
    "sys_us_per_req": "system CPU per request",
    "minflt_per_req": "minor page faults per request",
}


def read_pairs(path, scenario, a, b):
    """{threads: [(b_rps / a_rps, {counter: b / a per request})]}, plus the medians."""
    runs = defaultdict(dict)            # (threads, rep) -> {config: row}
    opener = gzip.open if path.endswith(".gz") else open  # old runs are kept compressed
    with opener(path, "rt", newline="") as f:
        for row in csv.DictReader(f):
            if row["scenario"] != scenario or row["config"] not in (a, b):
                continue
            if row["crashed"] not in ("0", ""):
                sys.exit(f"{path}: a crashed run at {row['threads']} threads")
            runs[(int(row["threads"]), int(row["rep"]))][row["config"]] = row
    pairs = defaultdict(list)
    per_config = defaultdict(lambda: defaultdict(list))
    for (threads, _rep), cfg in sorted(runs.items()):
        for name, row in cfg.items():
            per_config[threads][name].append(float(row["req_per_s"]))
        if a not in cfg or b not in cfg:
            continue
        ra, rb = float(cfg[a]["req_per_s"]), float(cfg[b]["req_per_s"])
        if ra <= 0 or rb <= 0:
            sys.exit(f"{path}: a run with no requests at {threads} threads")
        counters = {}
        for name in COUNTERS:
            ca, cb = cfg[a].get(name, ""), cfg[b].get(name, "")
            if ca not in ("", "-", None) and cb not in ("", "-", None) and float(ca) > 0 and float(cb) > 0:
                counters[name] = float(cb) / float(ca)
        pairs[threads].append((rb / ra, counters))
    medians = {t: statistics.median(c[b]) / statistics.median(c[a])
               for t, c in per_config.items() if c[a] and c[b]}
    return pairs, medians


def geomean(xs):
    return math.exp(statistics.fmean(math.log(x) for x in xs))


def bootstrap(xs, rounds=10000, seed=1):
    """95% percentile interval of the geometric mean of xs."""
    rng = random.Random(seed)
    logs = [math.log(x) for x in xs]
    n = len(logs)
    means = sorted(sum(rng.choice(logs) for _ in range(n)) / n
                   for _ in range(rounds))
    return math.exp(means[int(0.025 * rounds)]), math.exp(means[int(0.975 * rounds) - 1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", default="static")
    ap.add_argument("--a", default="stock", help="the reference configuration")
    ap.add_argument("--b", default="reap", help="the configuration compared")
    ap.add_argument("csv", nargs="+")
    opt = ap.parse_args()

    pooled = defaultdict(list)
    medians = []
    for path in opt.csv:
        pairs, med = read_pairs(path, opt.scenario, opt.a, opt.b)
        if not pairs:
            sys.exit(f"{path}: no {opt.a}/{opt.b} pairs of scenario {opt.scenario}")
        for t, p in pairs.items():
            pooled[t].extend(p)
        medians.append((path, med))

    threads = sorted(pooled)
    def row(label, cells):
        print(f"| {label} | " + " | ".join(cells) + " |")

    print(f"{opt.scenario}: {opt.b} / {opt.a}, {len(opt.csv)} file(s)\n")
    row("T", [str(t) for t in threads])
    print("|---|" + "---|" * len(threads))
    for i, (path, med) in enumerate(medians, 1):
        row(f"run {i}, ratio of medians",
            [f"{med[t]:.2f}" if t in med else "-" for t in threads])
    every = []
    lows, gms, pms, ns = [], [], [], []
    counter_cells = {name: [] for name in COUNTERS}
    for t in threads:
        r = [p[0] for p in pooled[t]]
        every.extend(r)
        lo, hi = bootstrap(r)
        ns.append(str(len(r)))
        gms.append(f"{geomean(r):.3f}")
        lows.append(f"{lo:.3f}–{hi:.3f}")
        pms.append(f"{statistics.median(r):.3f}")
        for name in COUNTERS:
            c = [p[1][name] for p in pooled[t] if name in p[1]]
            counter_cells[name].append(f"{geomean(c):.3f}" if c else "-")
    row("pairs", ns)
    row("geometric mean of the pairs", gms)
    row("its 95% bootstrap interval", lows)
    row("median pair", pms)
    for name, label in COUNTERS.items():
        if any(cell != "-" for cell in counter_cells[name]):
            row(f"{label}, geometric mean", counter_cells[name])
    cpu_every = [p[1]["cpu_us_per_req"] for t in threads for p in pooled[t]
                 if "cpu_us_per_req" in p[1]]
    lo, hi = bootstrap(every)
    print(f"\nall {len(every)} pairs: geometric mean {geomean(every):.3f} "
          f"(95% {lo:.3f}–{hi:.3f}), median {statistics.median(every):.3f}, "
          f"range {min(every):.2f}–{max(every):.2f}"
          + (f"; CPU per request {geomean(cpu_every):.3f}" if cpu_every else ""))


if __name__ == "__main__":
    main()
