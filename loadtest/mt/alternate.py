#!/usr/bin/env python3
"""alternate.py - the allocator benchmarks of loadtest/mt/ in alternation.

run.sh keeps the best of a few runs per allocator, one allocator after the
other, which a drifting shared machine can bias.  This runner repeats
rounds instead: each round runs every benchmark at every thread count once
under every allocator, the allocators in an order that rotates from round
to round, so drift falls on all of them alike.  It prints, per benchmark
and thread count, the median seconds of each allocator and libreap's ratio
to glibc and to the fastest of jemalloc, tcmalloc and mimalloc (by median),
with the median and range of the same ratio taken round by round.

usage: loadtest/mt/alternate.py [--build DIR] [--rounds N] [--threads "2 4 8"]
                                [--benches "threadtest ..."] [--allocs "..."]
                                [--scale S]
Writes every run to loadtest/results/mt-alt-<stamp>.csv and the table to
...txt beside it.  Exit status 1 if a run fails or prints no result line.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

OTHERS = ("jemalloc", "tcmalloc", "mimalloc")


def preload(alloc, build):
    """The library to preload for alloc, from loadtest/mt/allocators (run.sh's list too)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "allocators")
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and not fields[0].startswith("#") and fields[0] == alloc:
                return "" if fields[1] == "-" else fields[1].replace("@BUILD@", build)
    sys.exit(f"alternate.py: unknown allocator {alloc} (see {path})")


def run_once(path, threads, scale, lib):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if lib:
        env["LD_PRELOAD"] = lib
    out = subprocess.run([path, "-t", str(threads), "-s", str(scale)], env=env,
                         capture_output=True, text=True)
    for line in out.stdout.splitlines():
        if line.startswith("bench="):
            fields = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
            return float(fields["seconds"]), int(fields["peak_rss_kb"])
    sys.exit(f"alternate.py: {os.path.basename(path)} -t {threads} under "
             f"{lib or 'glibc'} gave no result (exit {out.returncode}): {out.stderr.strip()}")


def main():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(top, "build"))
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--threads", default="2 4 8")
    ap.add_argument("--benches", default="threadtest larson cache-scratch cache-thrash")
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
            sys.exit(f"alternate.py: {b} is not built in {build}/loadtest/mt")
    libs = {a: preload(a, build) for a in allocs}
    for a, lib in libs.items():
        if lib and not os.path.exists(lib):
            sys.exit(f"alternate.py: {a}: {lib} missing")

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    res = os.path.join(top, "loadtest/results")
    os.makedirs(res, exist_ok=True)
    csv_path = os.path.join(res, f"mt-alt-{stamp}.csv")
    secs = {}  # (bench, threads, alloc) -> [seconds per round]
    with open(csv_path, "w") as csv:
        csv.write("round,bench,threads,allocator,seconds,peak_rss_kb\n")
        for r in range(opt.rounds):
            order = allocs[r % len(allocs):] + allocs[:r % len(allocs)]
            for b in benches:
                for t in threads:
                    for a in order:
                        s, rss = run_once(os.path.join(build, "loadtest/mt", b), t,
                                          opt.scale, libs[a])
                        secs.setdefault((b, t, a), []).append(s)
                        csv.write(f"{r + 1},{b},{t},{a},{s:.4f},{rss}\n")
            print(f"round {r + 1}/{opt.rounds} done", file=sys.stderr, flush=True)

    def ratio_line(b, t, other):
        mine, theirs = secs[(b, t, "reap")], secs[(b, t, other)]
        per_round = [m / o for m, o in zip(mine, theirs)]
        return (statistics.median(mine) / statistics.median(theirs),
                statistics.median(per_round), min(per_round), max(per_round))

    lines = [f"median seconds of {opt.rounds} rounds, allocators rotated each round "
             f"(scale {opt.scale})", ""]
    head = f"{'bench':14} {'thr':>3} |" + "".join(f" {a:>9}" for a in allocs)
    if "reap" in allocs and "glibc" in allocs:
        head += " | reap/glibc (rounds: median, range)"
    others = [a for a in OTHERS if a in allocs]
    if "reap" in allocs and others:
        head += " | reap/best"
    lines.append(head)
    for b in benches:
        for t in threads:
            row = f"{b:14} {t:>3} |" + "".join(
                f" {statistics.median(secs[(b, t, a)]):9.4f}" for a in allocs)
            if "reap" in allocs and "glibc" in allocs:
                m, rm, lo, hi = ratio_line(b, t, "glibc")
                row += f" | {m:5.2f} ({rm:.2f}, {lo:.2f}-{hi:.2f})"
            if "reap" in allocs and others:
                best = min(others, key=lambda a: statistics.median(secs[(b, t, a)]))
                m, rm, lo, hi = ratio_line(b, t, best)
                row += f" | {m:5.2f} {best} ({rm:.2f}, {lo:.2f}-{hi:.2f})"
            lines.append(row)
    text = "\n".join(lines) + "\n"
    with open(csv_path[:-4] + ".txt", "w") as f:
        f.write(text)
    print(text, end="")
    print(f"csv: {csv_path}")


if __name__ == "__main__":
    main()
