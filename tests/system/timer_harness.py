# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared pieces of the latscope timer system tests (python3 stdlib only).

Each test runs the real binary ($LATSCOPE) against the real kernel. Without
root it exits 77 (skipped). A load generator is a process this harness
starts itself and ends by its pid.
"""
import json
import os
import signal
import struct
import subprocess
import sys
import time

SKIP = 77


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def require_root():
    if os.geteuid() != 0:
        print("skipped: needs root (SCHED_FIFO, /dev/cpu_dma_latency)")
        sys.exit(SKIP)
    binary = os.environ.get("LATSCOPE")
    if not binary or not os.access(binary, os.X_OK):
        print("skipped: LATSCOPE does not name the latscope binary")
        sys.exit(SKIP)
    return binary


def measured_cpu():
    """CPU 1 as the issue asks, or the highest allowed CPU on a smaller box."""
    allowed = sorted(os.sched_getaffinity(0))
    return 1 if 1 in allowed else allowed[-1]


def run(binary, args, timeout=60):
    """Run latscope timer; returns (exit status, stdout, stderr)."""
    done = subprocess.run([binary, "timer"] + args, capture_output=True, text=True,
                          timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def load_json(path):
    with open(path) as f:
        doc = json.load(f)
    check(doc.get("schema") == "latscope/1", "schema is %r" % doc.get("schema"))
    check(doc.get("command") == "timer", "command is %r" % doc.get("command"))
    for field in ("params", "threads", "host", "start_time", "end_time"):
        check(field in doc, "no %s in the JSON" % field)
    for thread in doc["threads"]:
        for field in ("thread", "cpu", "tid", "priority", "interval_ns", "cycles", "min_ns",
                      "avg_ns", "max_ns", "percentiles", "missed", "max_overrun_ns",
                      "spikes", "histogram"):
            check(field in thread, "thread %s has no %s" % (thread.get("thread"), field))
    return doc


def pm_qos_value():
    """The current CPU latency QoS target in us, as the kernel reports it."""
    with open("/dev/cpu_dma_latency", "rb") as f:
        return struct.unpack("i", f.read(4))[0]


# A process at a FIFO priority above the measuring thread's that takes the
# CPU for busy_ms every period_ms: the timer thread cannot run meanwhile.
BLOCKER = r"""
import os, sys, time
cpu, priority, busy_ns, period_ns = (int(a) for a in sys.argv[1:5])
os.sched_setaffinity(0, {cpu})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
print("ready", flush=True)
next_start = time.monotonic_ns()
while True:
    next_start += period_ns
    end = time.monotonic_ns() + busy_ns
    while time.monotonic_ns() < end:
        pass
    time.sleep(max(0, next_start - time.monotonic_ns()) / 1e9)
"""


class Blocker:
    """Blocks one CPU at a FIFO priority: start it with 'with Blocker(...)'."""

    def __init__(self, cpu, priority=95, busy_ms=3, period_ms=100):
        self.args = [str(cpu), str(priority), str(busy_ms * 1000000),
                     str(period_ms * 1000000)]
        self.process = None

    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, "-c", BLOCKER] + self.args,
                                        stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if line.strip() != "ready":
            self.__exit__(None, None, None)
            fail("the load generator did not start")
        return self

    def __exit__(self, *unused):
        # only the pid we started
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.process.stdout.close()


def start(binary, args):
    """Start latscope timer in the background; the caller ends it by pid."""
    return subprocess.Popen([binary, "timer"] + args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_a_little(seconds):
    time.sleep(seconds)
