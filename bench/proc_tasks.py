# SPDX-License-Identifier: GPL-2.0-or-later
"""A process's threads as /proc shows them, for the benchmarks."""
import os


def realtime_tasks(pid):
    """{tid: True when the thread has a real-time policy (FIFO or RR)}.
    A thread that ends between the listing and the read is left out."""
    found = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                # the fields after the comm, which may hold spaces: state is
                # field 3, the policy field 41
                policy = int(f.read().rsplit(")", 1)[1].split()[41 - 3])
        except (OSError, IndexError, ValueError):
            continue
        found[int(tid)] = policy in (1, 2)
    return found
