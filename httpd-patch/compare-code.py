#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
"""compare-code.py A.so B.so [-v]: do two builds of a module hold the same
machine code?

Both .text sections are disassembled (objdump), addresses and immediates
replaced by placeholders, and cut into blocks at the padding between
functions, so that the link order of the objects and the symbols (Debian's
modules are stripped) do not matter.  Prints "identical code" or how many
blocks each holds that the other does not (with -v, the blocks); exit 0
when identical.  httpd-patch/build-modules.sh --compare-debian uses it to
check the apache2 source it builds from against the installed modules.
"""
import collections
import re
import subprocess
import sys

PAD = re.compile(r'^(nop|xchg +%ax,%ax|data16|cs nop|int3)')


def blocks(path):
    dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn', '-j', '.text', path],
                         capture_output=True, text=True, check=True).stdout
    out, cur = [], []
    for line in dis.splitlines():
        m = re.match(r'^\s+[0-9a-f]+:\t(.*)$', line)
        if not m:
            continue
        ins = re.sub(r' *#.*', '', m.group(1))
        ins = re.sub(r'<[^>]*>', '', ins)
        ins = re.sub(r'\b[0-9a-f]{3,}\b', 'ADDR', ins)
        ins = re.sub(r'0x[0-9a-f]+', 'IMM', ins).strip()
        if PAD.match(ins):
            if cur:
                out.append('\n'.join(cur))
                cur = []
            continue
        cur.append(ins)
    if cur:
        out.append('\n'.join(cur))
    return collections.Counter(out)


def main():
    a, b = blocks(sys.argv[1]), blocks(sys.argv[2])
    only_a, only_b = a - b, b - a
    if not only_a and not only_b:
        print(f'identical code ({sum(a.values())} blocks)')
        return 0
    print(f'code differs: {sum(only_a.values())} of {sum(a.values())} blocks only in the first, '
          f'{sum(only_b.values())} of {sum(b.values())} only in the second')
    if '-v' in sys.argv[3:]:
        for k in only_a:
            print('--- only in the first\n' + k)
        for k in only_b:
            print('--- only in the second\n' + k)
    return 1


if __name__ == '__main__':
    sys.exit(main())
