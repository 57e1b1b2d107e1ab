#!/usr/bin/env python3
"""sync_syscalls.py - the system calls of catan-peers-bench, split into
those made inside catan_store_sync and the others (the commits), from the
output of `strace -f`:

    strace -f -o /tmp/pb.strace build/catan-peers-bench --players 4 --fair
    python3 tools/sync_syscalls.py /tmp/pb.strace

A sync runs from its intent "refs/catan/" written at the start of
catan.lock to catan.lock emptied again (src/store/lock.c: truncated, or
since 2026-11-28 its lines blanked with newlines); a commit's
intents name other refs. Prints, per sync and for each part: system
calls, files created (O_CREAT|O_EXCL: loose objects' and packs'
temporary files, lock files), directories created, renames, unlinks and
flushes (syncfs, fsync, fdatasync)."""
import collections
import re
import sys

in_sync = {}  # catan.lock's file descriptor (per process) -> in a sync
count = {'sync': collections.Counter(), 'other': collections.Counter()}
syncs = 0
for line in open(sys.argv[1], errors='replace'):
    m = re.match(r'(\d+ +)?(\w+)\((.*)', line)
    if not m:
        continue
    pid, call, rest = m.groups()
    key = (pid, rest.split(',')[0])
    if (call == 'pwrite64' and ' refs/catan/"' in rest and
            re.search(r', 0\) = \d+$', rest.strip())):
        in_sync[key] = True
        syncs += 1
    c = count['sync' if any(in_sync.values()) else 'other']
    ok = not re.search(r'= -1 ', rest)
    c['system calls'] += 1
    if call == 'openat' and 'O_CREAT' in rest and 'O_EXCL' in rest and ok:
        c['files created'] += 1
    elif call == 'mkdir' and ok:
        c['directories created'] += 1
    elif call in ('rename', 'renameat', 'renameat2') and ok:
        c['renames'] += 1
    elif call in ('unlink', 'unlinkat') and ok:
        c['unlinks'] += 1
    elif call in ('syncfs', 'fsync', 'fdatasync'):
        c['flushes'] += 1
    elif ((call == 'ftruncate' and re.match(r'\d+, 0\)', rest)) or
          (call == 'pwrite64' and re.match(r'\d+, "(\\n)+"(\.\.\.)?, \d+, 0\)',
                                          rest))):
        # (catan.lock emptied: truncated before 2026-11-28, its lines
        # blanked with newlines since)
        in_sync[key] = False
print('syncs: %d' % syncs)
for part in ('sync', 'other'):
    print('%s: %s' % (part, ', '.join(
        '%s %d (%.2f per sync)' % (k, v, v / max(syncs, 1))
        for k, v in sorted(count[part].items()))))
