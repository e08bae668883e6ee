#!/usr/bin/env python3
# xmlns_sorted.py FILE: print FILE, a WebDAV multistatus answer, with each
# element's xmlns declarations sorted.  mod_dav writes them from an
# apr_hash_t, whose iteration order follows a seed APR takes from the clock
# and addresses: it differs between processes whatever the modules, and
# XML reads the declarations as one set.  Comparing two answers after this
# compares what they say.

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).

import re
import sys


def order(m):
    attrs = sorted(re.findall(r' xmlns:\w+="[^"]*"', m.group(2)))
    return m.group(1) + ''.join(attrs) + '>'


with open(sys.argv[1], encoding='latin-1') as f:
    text = f.read()
sys.stdout.write(re.sub(r'(<D:[a-z]+)((?: xmlns:\w+="[^"]*")+)>', order, text))
