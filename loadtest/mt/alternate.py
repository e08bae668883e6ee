#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
"""alternate.py - the allocator benchmarks of loadtest/mt/ in alternation.

The runner behind loadtest/mt/run.sh.  It repeats rounds: each round runs
every benchmark at every thread count once under every allocator, the
allocators in an order that rotates from round to round, so a shared
machine's drift falls on all of them alike.  (Taking the best of a few
consecutive runs of one allocator, as run.sh used to, let one slow stretch
of the machine decide a whole row.)  Every figure it reports is a median
over the rounds:

  - seconds per allocator, with libreap's ratio to glibc and to the fastest
    of jemalloc, tcmalloc and mimalloc, as a ratio of medians and, round by
    round, the median and range of the same ratio;
  - peak RSS per allocator, with libreap's ratio to the smallest;
  - prodcons's blowup (RSS growth / peak live) per allocator.

usage: loadtest/mt/alternate.py [--build DIR] [--rounds N] [--threads "1 2 4 8"]
                                [--benches "threadtest ..."] [--allocs "..."]
                                [--scale S]
Writes, under loadtest/results/: mt-<stamp>-runs.csv (every run),
mt-<stamp>.csv (the medians), mt-<stamp>.txt (the tables) and, with
gnuplot, mt-<stamp>.png (time against threads) and mt-<stamp>-rss.png.
The tables end with libreap's ratios beside those of the newest earlier
mt-<stamp>.csv there (loadtest/compare.py), so that a regression shows.
Exit status 1 if a run fails or prints no result line.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

BENCHES = "threadtest larson cache-scratch cache-thrash prodcons mstress shbench"
OTHERS = ("jemalloc", "tcmalloc", "mimalloc")
EXTRA = ("blowup", "peak_live_kb")  # result fields some benchmarks add
FIELDS = ("seconds", "mops_per_s", "peak_rss_kb") + EXTRA  # the CSVs' columns after the keys


def preload(alloc, build):
    """The library to preload for alloc, from loadtest/mt/allocators."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "allocators")
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and not fields[0].startswith("#") and fields[0] == alloc:
                return "" if fields[1] == "-" else fields[1].replace("@BUILD@", build)
    sys.exit(f"alternate.py: unknown allocator {alloc} (see {path})")


def run_once(path, threads, scale, lib):
    """One run: its result line's fields (seconds, peak_rss_kb, ...)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if lib:
        env["LD_PRELOAD"] = lib
    out = subprocess.run([path, "-t", str(threads), "-s", str(scale)], env=env,
                         capture_output=True, text=True)
    for line in out.stdout.splitlines():
        if line.startswith("bench="):
            return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    sys.exit(f"alternate.py: {os.path.basename(path)} -t {threads} under "
             f"{lib or 'glibc'} gave no result (exit {out.returncode}): {out.stderr.strip()}")


def med(runs, key):
    """Median of field key over runs (the fields' dicts)."""
    return statistics.median(float(r[key]) for r in runs)


def ratios(mine, theirs, key):
    """reap against another: ratio of medians, and median, min, max round by round."""
    per_round = [float(m[key]) / float(o[key]) for m, o in zip(mine, theirs)]
    return (med(mine, key) / med(theirs, key), statistics.median(per_round),
            min(per_round), max(per_round))


def table(opt, runs, allocs, benches, threads):
    """The text of the three tables."""
    def section(title, key, unit, fmt, timing, cmp_name):
        """Times (timing): libreap against glibc and against the fastest of
        OTHERS, as the base allocator issue's targets put it; RSS: against
        the smallest of all the others.  Cells are medians of key / unit."""
        lines = ["", f"{title:14} {'thr':>3} |" + "".join(f" {a:>9}" for a in allocs)]
        if "reap" in allocs and timing and "glibc" in allocs:
            lines[-1] += " | reap/glibc (rounds: median, range)"
        others = [a for a in allocs if a != "reap" and (a in OTHERS or not timing)]
        if "reap" in allocs and others:
            lines[-1] += f" | reap/{cmp_name}"
        for b in benches:
            for t in threads:
                row = f"{b:14} {t:>3} |" + "".join(
                    f" {med(runs[(b, t, a)], key) / unit:9{fmt}}" for a in allocs)
                mine = runs.get((b, t, "reap"))
                if mine and timing and "glibc" in allocs:
                    m, rm, lo, hi = ratios(mine, runs[(b, t, "glibc")], key)
                    row += f" | {m:5.2f} ({rm:.2f}, {lo:.2f}-{hi:.2f})"
                if mine and others:
                    best = min(others, key=lambda a: med(runs[(b, t, a)], key))
                    m, rm, lo, hi = ratios(mine, runs[(b, t, best)], key)
                    row += f" | {m:5.2f} {best} ({rm:.2f}, {lo:.2f}-{hi:.2f})"
                lines.append(row)
        return lines

    lines = [f"medians of {opt.rounds} rounds, allocators rotated each round "
             f"(scale {opt.scale})"]
    lines += section("seconds", "seconds", 1, ".4f", True, "best")
    lines += section("peak RSS, MB", "peak_rss_kb", 1024, ".1f", False, "smallest")
    if "prodcons" in benches:
        lines += ["", "blowup (prodcons, RSS growth / peak live):",
                  f"{'':14} {'thr':>3} |" + "".join(f" {a:>9}" for a in allocs)]
        for t in threads:
            lines.append(f"{'prodcons':14} {t:>3} |" + "".join(
                f" {med(runs[('prodcons', t, a)], 'blowup'):9.2f}" for a in allocs))
    return "\n".join(lines) + "\n"


def plot(gp, png, csv, benches, allocs, column, ylabel):
    """One panel per benchmark, one line per allocator, from the medians' csv."""
    rows = (len(benches) + 2) // 3
    with open(gp, "w") as f:
        f.write(f"set terminal png size 1400,{330 * rows} font ',9'\n"
                f"set output '{png}'\nset datafile separator ','\n"
                f"set multiplot layout {rows},3\n"
                f"set xlabel 'threads'; set ylabel '{ylabel}'; set key top left; "
                "set logscale x 2\n"
                "set xrange [0.8:10]; set xtics (1,2,4,8); set yrange [0:*]\n")
        for b in benches:
            f.write(f"set title '{b}'\nplot " + ", ".join(
                f"\"< awk -F, '$1==\\\"{b}\\\" && $2==\\\"{a}\\\"' {csv}\" "
                f"using 3:{column} with linespoints title '{a}'" for a in allocs) + "\n")
        f.write("unset multiplot\n")
    if subprocess.run(["gnuplot", gp]).returncode == 0:
        print(f"png: {png}")


def main():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(top, "build"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", default="1 2 4 8")
    ap.add_argument("--benches", default=BENCHES)
    ap.add_argument("--allocs", default="glibc jemalloc tcmalloc mimalloc reap")
    ap.add_argument("--scale", default="1")
    opt = ap.parse_args()
    build = os.path.abspath(opt.build)
    allocs, benches = opt.allocs.split(), opt.benches.split()
    threads = [int(t) for t in opt.threads.split()]
    if opt.rounds < 1:
        sys.exit("alternate.py: --rounds must be at least 1")
    for b in benches:
        if not os.access(os.path.join(build, "loadtest/mt", b), os.X_OK):
            sys.exit(f"alternate.py: {b} is not built in {build}/loadtest/mt (make there)")
    libs = {a: preload(a, build) for a in allocs}
    for a, lib in libs.items():
        if lib and not os.path.exists(lib):
            sys.exit(f"alternate.py: {a}: {lib} missing")

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    res = os.path.join(top, "loadtest/results")
    os.makedirs(res, exist_ok=True)
    base = os.path.join(res, f"mt-{stamp}")
    runs = {}  # (bench, threads, alloc) -> [fields of each round's run]
    with open(base + "-runs.csv", "w") as csv:
        csv.write("round,bench,threads,allocator," + ",".join(FIELDS) + "\n")
        for r in range(opt.rounds):
            order = allocs[r % len(allocs):] + allocs[:r % len(allocs)]
            for b in benches:
                for t in threads:
                    for a in order:
                        f = run_once(os.path.join(build, "loadtest/mt", b), t,
                                     opt.scale, libs[a])
                        runs.setdefault((b, t, a), []).append(f)
                        csv.write(f"{r + 1},{b},{t},{a},"
                                  + ",".join(f.get(k, "") for k in FIELDS) + "\n")
            print(f"round {r + 1}/{opt.rounds} done", file=sys.stderr, flush=True)

    with open(base + ".csv", "w") as csv:  # the plots' input: columns 4 and 6
        csv.write("bench,allocator,threads," + ",".join(FIELDS) + "\n")
        for (b, t, a), rs in runs.items():
            csv.write(f"{b},{a},{t}," + ",".join(
                f"{med(rs, k):g}" if k in rs[0] else "" for k in FIELDS) + "\n")
    text = table(opt, runs, allocs, benches, threads)
    # libreap's ratios beside the run before's (the newest earlier mt-<stamp>.csv)
    text += subprocess.run([sys.executable, os.path.join(top, "loadtest/compare.py"), base + ".csv",
                            "--peers", " ".join(OTHERS)],
                           capture_output=True, text=True, check=True).stdout
    with open(base + ".txt", "w") as f:
        f.write(text)
    print(text, end="")
    print(f"csv: {base}.csv (every run: {base}-runs.csv)")
    if shutil.which("gnuplot"):
        plot(base + ".gp", base + ".png", base + ".csv", benches, allocs, 4,
             "seconds (lower is better)")
        plot(base + "-rss.gp", base + "-rss.png", base + ".csv", benches, allocs,
             "($6/1024)", "peak RSS, MB")


if __name__ == "__main__":
    main()
