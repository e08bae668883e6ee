#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
"""compare.py - a benchmark's goal ratios beside those of the run before.

usage: loadtest/compare.py RESULTS [--same TEXT] [--before FILE] [--peers "A B"]
       loadtest/compare.py --base BUILD FOLDER

RESULTS is what a runner has just written under loadtest/results/:
  wrk-<stamp>-summary.csv  loadtest/wrk/run.sh: reap / stock req/s and
                           peak RSS per scenario and connections
  h2-<stamp>-summary.csv   loadtest/h2/run.sh: the same, and idle RSS,
                           per protocol and MaxMemFree
  mt-<stamp>.csv           loadtest/mt/run.sh: libreap-malloc's time over
                           the fastest of the peers that alternate.py
                           names with --peers, per benchmark and threads
  reapbench-ratios.csv     loadtest/reapbench.sh: reap / each peer per
                           workload, and the reap's footprint / live bytes
The run before is FILE, else the newest earlier results of the same kind
in the same folder whose .md (or .txt) contains TEXT (wrk/run.sh passes
its MPM, so that worker runs are compared with worker runs).  Prints, in
Markdown (the wrk and h2 runners append it to their .md), each ratio both
runs have as before -> now, marking moves beyond 10%: about what the same
code moves between runs on a shared two-core machine, so a mark is a
reason to look, not a verdict.  Prints nothing without a run before.

With --base, FOLDER is where loadtest/reapbench.sh BASE=BUILD wrote its
rounds: it prints each reap and APR row of this build's glibc processes
(reapbench-round-N-glibc.csv) over the same row of BUILD's
(reapbench-base-round-N.csv), the medians of the rounds they share and in
brackets the least and most of the rounds' own ratios, and writes them to
FOLDER/reapbench-base.csv.
"""
import argparse
import csv
import glob
import os
import re
import statistics

# reapbench-ratios.csv's columns: reap / peer, and the reap's footprint over
# the live bytes; lower is better for every one
REAPBENCH = (("ratio_best_malloc", "÷ best malloc"), ("ratio_mi_heap", "÷ mimalloc heap"),
             ("ratio_talloc_glibc", "÷ talloc"), ("ratio_apr_pool", "÷ APR pool"),
             ("footprint_live", "footprint ÷ live"))


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def reap_over_stock(path, keys, cols, where):
    """wrk and h2 summaries: point -> {label: (reap / stock, higher is better)}."""
    val = {(tuple(r[k] for k in keys), r["config"]): r for r in rows(path)}
    out = {}
    for (point, config), r in val.items():
        base = val.get((point, "stock"))
        if config != "reap" or base is None:
            continue
        out[where(point)] = {}
        for col, label, higher_better in cols:
            try:
                out[where(point)][label] = (float(r[col]) / float(base[col]), higher_better)
            except (ValueError, ZeroDivisionError):
                pass
    return out


def mt_ratios(path, opt):
    secs = {(r["bench"], r["threads"], r["allocator"]): float(r["seconds"])
            for r in rows(path) if r.get("seconds")}
    out = {}
    for (b, t, a), v in secs.items():
        times = [secs[(b, t, p)] for p in opt.peers.split() if (b, t, p) in secs]
        if a == "reap" and times:
            out[f"{b}, {t} thread{'s' if t != '1' else ''}"] = {"÷ fastest peer": (v / min(times), False)}
    return out


def reapbench_ratios(path, opt):
    out = {}
    for r in rows(path):
        cells = {}
        for col, label in REAPBENCH:
            try:
                cells[label] = (float(r[col]), False)
            except (KeyError, ValueError):
                pass  # "-": not a goal of this workload
        out[r["workload"]] = cells
    return out


# kind -> (file name pattern, with the stamp as group 1; reader(path, options))
KINDS = {
    "wrk": (r"wrk-(\d{8}-\d{6})-summary\.csv", lambda p, opt: reap_over_stock(
        p, ("scenario", "threads"),
        (("req_per_s", "req/s", True), ("rss_peak_mb", "peak RSS", False)),
        lambda k: f"{k[0]}, {k[1]} connections")),
    "h2": (r"h2-(\d{8}-\d{6})-summary\.csv", lambda p, opt: reap_over_stock(
        p, ("protocol", "maxmemfree"),
        (("req_per_s", "req/s", True), ("rss_peak_mb", "peak RSS", False),
         ("rss_idle_mb", "idle RSS", False)),
        lambda k: f"{k[0]}, MaxMemFree {k[1]}")),
    "mt": (r"mt-(\d{8}-\d{6})\.csv", mt_ratios),
    "reapbench": (r"reapbench-ratios\.csv()", reapbench_ratios),
}


def base_rounds(folder, pattern):
    """(workload, allocator) -> {round: ns per allocation} of the reap and
    APR rows in the round files of folder matching pattern."""
    got = {}
    for f in glob.glob(os.path.join(folder, pattern)):
        rnd = int(re.search(r"round-(\d+)", f).group(1))
        for row in rows(f):
            if row["allocator"] in ("reap", "reap-free", "apr-pool"):
                got.setdefault((row["workload"], row["allocator"]), {})[rnd] = float(row["ns_per_alloc"])
    return got


def against_base(folder, base):
    """reapbench.sh BASE=base: this build ÷ base, row by row, both under
    glibc, each round's pair having run one after the other."""
    now, then = base_rounds(folder, "reapbench-round-*-glibc.csv"), base_rounds(folder, "reapbench-base-round-*.csv")
    print()
    print(f"this build ÷ BASE ({base}), ns per allocation under glibc; below 1 this build is faster")
    lines = ["workload,allocator,ns_now,ns_base,ratio,ratio_min,ratio_max,rounds"]
    workloads = "batch halffree mixed request reuse".split()
    for key in sorted(now, key=lambda k: (workloads.index(k[0]), k[1])):
        if key not in then:
            continue
        rounds = sorted(set(now[key]) & set(then[key]))
        per = [now[key][r] / then[key][r] for r in rounds]
        a, b = statistics.median(now[key][r] for r in rounds), statistics.median(then[key][r] for r in rounds)
        print(f"{key[0]:9} {key[1]:9} {a:8.2f} {b:8.2f}  {a / b:5.2f} [{min(per):.2f}-{max(per):.2f}]")
        lines.append(f"{key[0]},{key[1]},{a:.3f},{b:.3f},{a / b:.3f},{min(per):.3f},{max(per):.3f},{len(rounds)}")
    with open(os.path.join(folder, "reapbench-base.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("(CSV: loadtest/results/reapbench-base.csv)")


def mark(was, now, higher_better):
    """' (worse)' or ' (better)' for a move beyond 10%, else ''."""
    up, down = now > was * 1.10, now < was / 1.10
    if up or down:
        return " (better)" if up == higher_better else " (worse)"
    return ""


def run_before(folder, kind, stamp, same):
    """The newest results of kind in folder older than stamp whose .md or
    .txt holds same, or None."""
    pattern = KINDS[kind][0]
    found = None
    for f in sorted(os.listdir(folder)):
        m = re.fullmatch(pattern, f)
        if not m or m.group(1) >= stamp:
            continue
        if same:
            text = ""
            for ext in (".md", ".txt"):
                try:
                    with open(os.path.join(folder, f"{kind}-{m.group(1)}{ext}")) as fh:
                        text = fh.read()
                    break
                except OSError:
                    pass
            if same not in text:
                continue
        found = f
    return os.path.join(folder, found) if found else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--same", default="")
    ap.add_argument("--before")
    ap.add_argument("--peers", help="mt: the allocators libreap-malloc is timed against")
    ap.add_argument("--base", metavar="BUILD",
                    help="RESULTS is reapbench.sh's folder: this build's rounds over BUILD's")
    opt = ap.parse_args()
    if opt.base:
        against_base(opt.results, opt.base)
        return
    folder, name = os.path.split(os.path.abspath(opt.results))
    for kind, (pattern, read) in KINDS.items():
        m = re.fullmatch(pattern, name)
        if m:
            break
    else:
        ap.error(f"{name}: not results this script knows (see its header)")
    if kind == "mt" and not opt.peers:
        ap.error("mt results need --peers")
    before = opt.before or run_before(folder, kind, m.group(1), opt.same)
    if not before or not os.path.exists(before) or os.path.getsize(before) == 0:
        return
    was, now = read(before, opt), read(opt.results, opt)
    lines = []
    for point, cells in now.items():
        both = [(label, was[point][label][0], v, hb) for label, (v, hb) in cells.items()
                if label in was.get(point, {})]
        if both:
            lines.append(f"- {point}: " + "; ".join(
                f"{label} {a:.2f} -> {b:.2f}{mark(a, b, hb)}" for label, a, b, hb in both))
    if not lines:
        return
    what = {"wrk": "reap / stock", "h2": "reap / stock", "mt": "reap / peer"}.get(
        kind, "reap / peer, and the reap's footprint / live bytes")
    label = f"the previous {name}" if opt.before else os.path.basename(before)
    print(f"\n## Against the run before ({label})\n")
    print(f"{what}, before -> now; \"worse\" and \"better\" mark moves beyond 10%.\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
