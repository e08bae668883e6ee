#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
"""Compare two callgrind profiles of httpd per request (profile.sh).

    profile_compare.py [--top N] [--threads T] A.callgrind B.callgrind

The requests of each profile are counted in the profile itself: the calls
of httpd's ap_process_request (what wrk or mod_status count missed a fifth
of them under callgrind).  Prints Markdown: the instructions a request
costs on each side, their difference, the difference by shared object and by function (self cost,
the functions that differ most first), and the share of mod_reap's status
snapshot, which runs per wall-clock interval and so far more often per
request under callgrind than in a real run.
"""

import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict

LINE = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(?:\*\s+)?(\S.*?)(?: \[(.+)\])?$")


def annotate(path, inclusive):
    args = ["callgrind_annotate", "--auto=no", "--threshold=100",
            "--inclusive=" + ("yes" if inclusive else "no"), path]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"callgrind_annotate {path}: {run.stderr.strip()}")
    return run.stdout.splitlines()


def load(path):
    """(total, {function: self cost}, {function: object}, snapshot inclusive)"""
    total = None
    cost = defaultdict(int)
    obj = {}
    for line in annotate(path, False):
        m = LINE.match(line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        where = m.group(2)
        if where.startswith("PROGRAM TOTALS"):
            total = n
            continue
        fn = where.rsplit(":", 1)[-1] if ":" in where else where
        cost[fn] += n
        if m.group(3):
            obj.setdefault(fn, os.path.basename(m.group(3)))
    if total is None:
        sys.exit(f"{path}: no PROGRAM TOTALS (not a callgrind file?)")
    snapshot = 0
    for line in annotate(path, True):
        m = LINE.match(line)
        if m and m.group(2).rsplit(":", 1)[-1] == "take_snapshot":
            snapshot = max(snapshot, int(m.group(1).replace(",", "")))
    return total, cost, obj, snapshot


def calls_to(path, target):
    """Calls of function `target' recorded in callgrind file `path'."""
    names = {}
    total = 0
    current = None
    ref = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")
    with open(path, errors="replace") as f:
        for line in f:
            m = ref.match(line.rstrip("\n"))
            if m:
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                current = names.get(m.group(1)) if line.startswith("cfn=") else None
                continue
            if current == target and line.startswith("calls="):
                total += int(line[6:].split()[0])
                current = None
    return total


def short_object(name):
    name = re.sub(r"\.so[.\d]*$", ".so", name or "?")
    return name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--threads", default="?")
    ap.add_argument("a")
    ap.add_argument("b")
    opt = ap.parse_args()
    ra, rb = calls_to(opt.a, "ap_process_request"), calls_to(opt.b, "ap_process_request")
    if ra <= 0 or rb <= 0:
        sys.exit("no calls of ap_process_request in a profile: not httpd serving requests?")

    ta, ca, oa, sa = load(opt.a)
    tb, cb, ob, sb = load(opt.b)
    pa, pb = ta / ra, tb / rb
    print("# Instructions per static request, stock APR against reaps\n")
    print(f"callgrind, apache2 worker MPM with {opt.threads} threads, keep-alive "
          f"connections, counters zeroed after start-up and warm-up; requests are "
          f"the child's calls of ap_process_request: `{os.path.basename(opt.a)}` "
          f"({ra} requests), `{os.path.basename(opt.b)}` ({rb} requests). Produced "
          f"by `loadtest/wrk/profile.sh`.\n")
    print("| | stock APR | reaps | reaps - stock |")
    print("|---|---:|---:|---:|")
    print(f"| instructions a request | {pa:,.0f} | {pb:,.0f} | {pb - pa:+,.0f} ({pb / pa:.3f}x) |")
    print(f"| of which mod_reap's status snapshot | {sa / ra:,.0f} | {sb / rb:,.0f} | {sb / rb - sa / ra:+,.0f} |")
    qa, qb = (ta - sa) / ra, (tb - sb) / rb
    print(f"| without the snapshot | {qa:,.0f} | {qb:,.0f} | {qb - qa:+,.0f} ({qb / qa:.3f}x) |")

    objs = defaultdict(lambda: [0.0, 0.0])
    for fn, n in ca.items():
        objs[short_object(oa.get(fn, ob.get(fn)))][0] += n / ra
    for fn, n in cb.items():
        objs[short_object(ob.get(fn, oa.get(fn)))][1] += n / rb
    print("\n## By shared object (self cost a request)\n")
    print("| object | stock APR | reaps | difference |")
    print("|---|---:|---:|---:|")
    for name, (x, y) in sorted(objs.items(), key=lambda kv: -abs(kv[1][1] - kv[1][0])):
        if abs(y - x) >= 1 or max(x, y) >= 100:
            print(f"| {name} | {x:,.0f} | {y:,.0f} | {y - x:+,.0f} |")

    print(f"\n## The {opt.top} functions that differ most (self cost a request)\n")
    print("| function | object | stock APR | reaps | difference |")
    print("|---|---|---:|---:|---:|")
    names = set(ca) | set(cb)
    rows = sorted(names, key=lambda f: -abs(cb.get(f, 0) / rb - ca.get(f, 0) / ra))
    for fn in rows[:opt.top]:
        x, y = ca.get(fn, 0) / ra, cb.get(fn, 0) / rb
        o = short_object(ob.get(fn, oa.get(fn)))
        print(f"| `{fn}` | {o} | {x:,.1f} | {y:,.1f} | {y - x:+,.1f} |")


if __name__ == "__main__":
    main()
