# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared helpers of the system tests: run latscope, start a known
disturbance and stop it by its pid, skip (exit 77) without root."""
import atexit
import contextlib
import json
import os
import signal
import subprocess
import sys
import time

LATSCOPE = os.environ.get("LATSCOPE", "latscope")
DISTURB = os.environ.get("DISTURB", "disturb")
SKIP = 77
# the result schemas this version reads: latscope/1 wrote CPU sets as arrays
# of numbers, latscope/2 as cpu-list strings ("0-3,8-11")
RESULT_SCHEMAS = ("latscope/2", "latscope/1")


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def stop_at_exit(proc):
    """End @proc (a latscope the test started) when the test exits, by
    SIGTERM and then SIGKILL, if it still runs: a failed check must not
    leave a measuring thread behind to disturb the tests after it."""
    def stop():
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    atexit.register(stop)
    return proc


def check(condition, message):
    if not condition:
        fail(message)


def require_root(cpus=1):
    """Skip (exit 77) without root or CPUs enough; returns the binary."""
    if os.geteuid() != 0:
        print("skipped: needs root")
        sys.exit(SKIP)
    if os.cpu_count() < cpus:
        print(f"skipped: needs {cpus} cpus")
        sys.exit(SKIP)
    return LATSCOPE


def measured_cpu():
    """CPU 1 as the issues ask, or the highest allowed CPU on a smaller box."""
    allowed = sorted(os.sched_getaffinity(0))
    return 1 if 1 in allowed else allowed[-1]


def latscope(*args, timeout=60):
    return subprocess.run([LATSCOPE, *args], capture_output=True, text=True, timeout=timeout)


def timer(*args, timeout=60):
    """Run latscope timer; returns (exit status, stdout, stderr)."""
    done = subprocess.run([LATSCOPE, "timer", *args], capture_output=True, text=True,
                          timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def start_timer(*args):
    """Start latscope timer in the background; the caller ends it by pid."""
    return subprocess.Popen([LATSCOPE, "timer", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def cpu_set(value):
    """A CPU set of a result document as a sorted list of numbers: a cpu-list
    string ("0-3,8", latscope/2) or an array of numbers (latscope/1)."""
    if isinstance(value, list):
        return sorted(value)
    cpus = set()
    for part in filter(None, value.strip().split(",")):
        span, _, stride = part.partition(":")
        first, _, last = span.partition("-")
        cpus.update(range(int(first), int(last or first) + 1, int(stride or 1)))
    return sorted(cpus)


def load_result(path, command=None):
    """A result document of a schema this version reads (and of `command`)."""
    with open(path) as f:
        doc = json.load(f)
    check(doc.get("schema") in RESULT_SCHEMAS, f"schema is {doc.get('schema')!r}")
    if command:
        check(doc.get("command") == command, f"command is {doc.get('command')!r}")
    return doc


def load_timer_json(path):
    """A timer result document, with the fields the issue requires checked."""
    doc = load_result(path)
    check(doc.get("command") == "timer", f"command is {doc.get('command')!r}")
    for field in ("params", "threads", "host", "start_time", "end_time"):
        check(field in doc, f"no {field} in the JSON")
    for thread in doc["threads"]:
        for field in ("thread", "cpu", "tid", "priority", "interval_ns", "cycles", "min_ns",
                      "avg_ns", "max_ns", "percentiles", "missed", "max_overrun_ns",
                      "spikes", "histogram"):
            check(field in thread, f"thread {thread.get('thread')} has no {field}")
    return doc


@contextlib.contextmanager
def disturbance(cpu, period_us, spin_us, priority, duration_ms, name="latscope-disturb"):
    """A FIFO thread on `cpu` spinning `spin_us` every `period_us`."""
    proc = subprocess.Popen([DISTURB, str(cpu), str(period_us), str(spin_us), str(priority),
                             str(duration_ms), name])
    time.sleep(0.2)
    if proc.poll() is not None:
        fail(f"disturb exited {proc.returncode}")
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
        proc.wait()


def read_dma_latency():
    """The PM QoS target in effect: 2000000000 when nobody holds a request."""
    with open("/dev/cpu_dma_latency", "rb") as f:
        return int.from_bytes(f.read(4), "little", signed=True)


def tracefs_mount():
    """Where tracefs is mounted, or None."""
    with open("/proc/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            if fields[2] == "tracefs":
                return fields[1]
    return None


def owned_by_live_process(instance):
    """An instance named latscope-PID whose process still runs: another
    latscope on the machine, not one a test's finished run left behind."""
    prefix, _, pid = instance.rpartition("-")
    return prefix == "latscope" and pid.isdigit() and os.path.exists(f"/proc/{pid}")


def tracefs_state():
    """What a run must leave as it found: the mount, the top-level settings
    and the instances (less those of latscope processes still running, so
    that another run on the machine is not taken for a leak)."""
    where = tracefs_mount()
    if not where:
        return {"mounted": False}

    def read(name):
        with open(os.path.join(where, name)) as f:
            return f.read().strip()

    instances = os.listdir(os.path.join(where, "instances"))
    return {"mounted": where, "trace_clock": read("trace_clock"),
            "tracing_on": read("tracing_on"), "current_tracer": read("current_tracer"),
            "instances": sorted(i for i in instances if not owned_by_live_process(i))}
