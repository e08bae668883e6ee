#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
"""tap.py - the subtest results of one httpd-tests run, and the comparison
of two (tests/httpd-tests/run.sh).

  tap.py MPM SIDE LOG        CSV rows "mpm,side,file,subtest,result" from the
                             verbose output of t/TEST (HARNESS_VERBOSE=1)
  tap.py --compare CSV A B   per MPM: the subtests whose result differs
                             between sides A and B, and the counts; exit 1
                             when any differs

A result is ok, not-ok, skip, todo-ok, todo-not-ok; a subtest the plan
announced but the file never reported is "missing"; a file skipped whole
is one row with subtest "*" and result "skipped"; a file that died
(Dubious, or a plan it did not keep) adds a row "*" with "died".  The
subtest's number is the key: the suite's descriptions are not unique.
"""
import csv
import re
import sys

HEADER = re.compile(r'^(t/\S+\.t) \.+ ?(.*)$')
RESULT = re.compile(r'^(not ok|ok)\s+(\d+)\b(.*)$')
PLAN = re.compile(r'^1\.\.(\d+)(.*)$')


def classify(verdict, rest):
    directive = rest.split('#', 1)[1].strip().lower() if '#' in rest else ''
    if directive.startswith('skip'):
        return 'skip'
    if directive.startswith('todo'):
        return 'todo-' + verdict.replace(' ', '-')
    return verdict.replace(' ', '-')


def parse(log):
    """{file: {"plan": n, "results": {num: result}, "skipped": bool, "died": bool}}"""
    files = {}
    cur = None
    with open(log, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = HEADER.match(line)
            if m:
                cur = files.setdefault(m.group(1), {'plan': None, 'results': {},
                                                    'skipped': False, 'died': False})
                line = m.group(2)
                if line.startswith('skipped:'):
                    cur['skipped'] = True
                    continue
            if cur is None:
                continue
            m = RESULT.match(line)
            if m:
                cur['results'][int(m.group(2))] = classify(m.group(1), m.group(3))
                continue
            m = PLAN.match(line)
            if m:
                cur['plan'] = int(m.group(1))
                if int(m.group(1)) == 0:
                    cur['skipped'] = True
                continue
            if line.startswith('Dubious') or 'No subtests run' in line:
                cur['died'] = True
            if line.startswith('Test Summary Report'):
                cur = None
    return files


def rows(mpm, side, log):
    out = csv.writer(sys.stdout, lineterminator='\n')
    for name, r in sorted(parse(log).items()):
        if r['skipped'] and not r['results']:
            out.writerow([mpm, side, name, '*', 'skipped'])
            continue
        for n in range(1, max([r['plan'] or 0] + list(r['results'])) + 1):
            out.writerow([mpm, side, name, n, r['results'].get(n, 'missing')])
        if r['died']:
            out.writerow([mpm, side, name, '*', 'died'])


def compare(path, name_a, name_b):
    runs = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row['file'], row['subtest'])
            runs.setdefault(row['mpm'], {}).setdefault(row['config'], {})[key] = row['result']
    differ_total = 0
    for mpm, sides in runs.items():
        a, b = sides.get('A', {}), sides.get('B', {})
        keys = sorted(set(a) | set(b), key=lambda k: (k[0], k[1].isdigit(), int(k[1]) if k[1].isdigit() else 0))
        differ = [k for k in keys if a.get(k, 'absent') != b.get(k, 'absent')]
        differ_total += len(differ)

        def counts(side):
            c = {}
            for v in side.values():
                c[v] = c.get(v, 0) + 1
            return ', '.join(f'{n} {k}' for k, n in sorted(c.items()))
        print(f'{mpm}: {len(keys)} subtests in {len({k[0] for k in keys})} files; '
              f'{len(keys) - len(differ)} identical, {len(differ)} differ')
        print(f'  A ({name_a}): {counts(a)}')
        print(f'  B ({name_b}): {counts(b)}')
        for k in differ:
            print(f'  differs: {k[0]} #{k[1]}: A {a.get(k, "absent")}, B {b.get(k, "absent")}')
    print(f'{"identical" if differ_total == 0 else "DIFFERENT"}: '
          f'{differ_total} subtest result(s) differ between A and B')
    return 1 if differ_total else 0


if __name__ == '__main__':
    if len(sys.argv) == 5 and sys.argv[1] == '--compare':
        sys.exit(compare(sys.argv[2], sys.argv[3], sys.argv[4]))
    if len(sys.argv) == 4:
        rows(*sys.argv[1:])
        sys.exit(0)
    sys.exit(__doc__)
