#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the latscope/2 form of a latscope/1 result (issue 9: CPU sets as
cpu-list strings, schema latscope/2), so that readers are tested on both
before any command writes the new schema.

usage: make-v2.py IN.json OUT.json"""
import json
import sys

SETS = ("cpus", "affinity", "effective", "allowed_cpus", "rt_cpus", "housekeeping_cpus",
        "online_cpus", "isolated_cpus", "nohz_full_cpus", "rt_cpus_asked",
        "default_smp_affinity", "from", "to")


def cpu_list(cpus):
    cpus, ranges = sorted(set(cpus)), []
    for cpu in cpus:
        if ranges and cpu == ranges[-1][1] + 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in ranges)


def convert(value, key=None):
    if isinstance(value, dict):
        return {k: convert(v, k) for k, v in value.items()}
    if isinstance(value, list):
        if key in SETS and all(isinstance(v, int) for v in value):
            return cpu_list(value)
        return [convert(v) for v in value]
    return value


doc = json.load(open(sys.argv[1]))
doc = convert(doc)
doc["schema"] = "latscope/2"
with open(sys.argv[2], "w") as out:
    json.dump(doc, out, indent=1)
    out.write("\n")
