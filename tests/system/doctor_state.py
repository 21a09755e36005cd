# SPDX-License-Identifier: GPL-2.0-or-later
"""What latscope doctor must leave as it found it, read before and after a
run: the PM QoS target, tracefs (mount, settings, instances), every IRQ's
affinity and the default one, the RT throttling knobs and the unbound
workqueue cpumask."""
import os

from harness import read_dma_latency, tracefs_state


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError as e:
        return f"unreadable: {e.strerror}"


def machine_state():
    irqs = {}
    for name in sorted(os.listdir("/proc/irq")):
        if name.isdigit():
            irqs[name] = read(f"/proc/irq/{name}/smp_affinity_list")
    return {
        "cpu_dma_latency": read_dma_latency(),
        "tracefs": tracefs_state(),
        "irqs": irqs,
        "default_smp_affinity": read("/proc/irq/default_smp_affinity"),
        "sched_rt_runtime_us": read("/proc/sys/kernel/sched_rt_runtime_us"),
        "sched_rt_period_us": read("/proc/sys/kernel/sched_rt_period_us"),
        "workqueue_cpumask": read("/sys/devices/virtual/workqueue/cpumask"),
    }


def differences(before, after):
    """What changed, one line each (empty when nothing did)."""
    lines = []
    for key in before:
        if key == "tracefs" and before[key].get("mounted") and after[key].get("mounted"):
            # a run removes the instances of dead runs it finds: only new ones leak
            new = set(after[key]["instances"]) - set(before[key]["instances"])
            if new:
                lines.append(f"tracefs instances left: {sorted(new)}")
            for field in before[key]:
                if field != "instances" and before[key][field] != after[key][field]:
                    lines.append(f"tracefs {field}: {before[key][field]} -> "
                                 f"{after[key][field]}")
        elif key == "irqs":
            for irq, affinity in before[key].items():
                # an IRQ that went away meanwhile is not ours to judge
                if irq in after[key] and after[key][irq] != affinity:
                    lines.append(f"irq {irq}: {affinity} -> {after[key][irq]}")
        elif before[key] != after[key]:
            lines.append(f"{key}: {before[key]} -> {after[key]}")
    return lines
