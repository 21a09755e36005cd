# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared helpers of the system tests: run latscope, start a known
disturbance and stop it by its pid, skip (exit 77) without root.

Every process a test starts is ended on every exit path: a background one
is registered with stop_at_exit() right where it is started (and ended
early, where the test needs it gone, with end_process()); a foreground
command that may change the machine goes through run_process(). Both end
with SIGTERM first, SIGKILL only if that did not end it."""
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
LOCK_HOLDER = os.environ.get("LOCK_HOLDER", "lock-holder")
SKIP = 77
# the result schemas this version reads: latscope/1 wrote CPU sets as arrays
# of numbers, latscope/2 on as cpu-list strings ("0-3,8-11")
RESULT_SCHEMAS = ("latscope/3", "latscope/2", "latscope/1")


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


# the processes this test started, ended at its exit if they still run
_started = []
# how long a process has to end on SIGTERM before it is killed
END_TIMEOUT = 30


def _send(proc, signo):
    """@signo to @proc, or to its process group when it leads one (started
    with start_new_session: a shell's children go with it)."""
    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, signo)
        else:
            os.kill(proc.pid, signo)
    except ProcessLookupError:
        pass


def _drain(proc, timeout):
    """Wait for @proc, reading what is left in its pipes so that a full pipe
    cannot hold it; TimeoutExpired past @timeout."""
    try:
        proc.communicate(timeout=timeout)
    except (ValueError, OSError):  # a pipe the test closed or reads in a thread
        proc.wait(timeout=timeout)


def end_process(proc, timeout=END_TIMEOUT):
    """End @proc, a process this test started, if it still runs: SIGTERM
    first, so that a latscope puts back what it changed (its tracing
    instance, the PM QoS request, IRQ affinities, a journal), SIGKILL if it
    has not ended @timeout seconds later. Returns its exit status."""
    if proc.poll() is None:
        _send(proc, signal.SIGTERM)
        try:
            _drain(proc, timeout)
        except subprocess.TimeoutExpired:
            _send(proc, signal.SIGKILL)
            proc.wait()
    return proc.returncode


def stop_at_exit(proc):
    """End @proc (a process the test started) when the test exits, however
    it exits (a failed check, an exception, a timeout), as end_process does
    if it still runs: a failed check must not leave a measuring thread
    behind to disturb the tests after it. Returns @proc."""
    _started.append(proc)
    return proc


def _end_started():
    live = [proc for proc in _started if proc.poll() is None]
    # all at once: each has END_TIMEOUT to put back what it changed
    for proc in live:
        _send(proc, signal.SIGTERM)
    deadline = time.monotonic() + END_TIMEOUT
    for proc in live:
        try:
            _drain(proc, max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _send(proc, signal.SIGKILL)
            proc.wait()


def _terminated(signo, frame):
    """meson ends a test past its timeout with SIGTERM to the test's process
    group, and SIGKILLs the group unless the test is gone half a second
    later: pass SIGTERM on to the processes started here (one in a session
    of its own did not get it) and die of it at once, so that none is
    SIGKILLed while it puts back what it changed. Not waited for here: a
    signal handler must not block; returncode, not poll(): nothing reaped."""
    for proc in _started:
        if proc.returncode is None:
            _send(proc, signo)
    signal.signal(signo, signal.SIG_DFL)
    os.kill(os.getpid(), signo)


atexit.register(_end_started)
signal.signal(signal.SIGTERM, _terminated)


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


def run_process(args, timeout=60, **kwargs):
    """subprocess.run(args, capture_output=True, text=True) for a command
    that may change the machine: past @timeout it is ended as end_process
    does (SIGTERM first, so that it puts back what it changed; subprocess.run
    would SIGKILL it) before TimeoutExpired is raised."""
    proc = stop_at_exit(subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, **kwargs))
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        end_process(proc)
        raise
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def latscope(*args, timeout=60):
    return run_process([LATSCOPE, *args], timeout=timeout)


def timer(*args, timeout=60):
    """Run latscope timer; returns (exit status, stdout, stderr)."""
    done = run_process([LATSCOPE, "timer", *args], timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def start_timer(*args):
    """Start latscope timer in the background, ended at the test's exit
    (stop_at_exit) if the caller has not ended it."""
    return stop_at_exit(subprocess.Popen([LATSCOPE, "timer", *args], stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True))


def balancers_of_this_machine():
    """The pids of the irqbalance processes that balance this machine: not
    one whose /proc/interrupts is a file bound over its own /proc (a
    simulated machine, as bench/irq-policies runs the real irqbalance), the
    rule latscope's check and irq balance use. A process that cannot be
    looked into is counted."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "irqbalance":
                    continue
        except OSError:
            continue  # exited while we looked
        try:
            proc = os.stat(f"/proc/{pid}/root/proc")
            interrupts = os.stat(f"/proc/{pid}/root/proc/interrupts")
            if interrupts.st_dev != proc.st_dev:
                continue
        except OSError:
            pass
        pids.append(int(pid))
    return pids


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


def window_column(windows, name):
    """A column of a monitor state's windows, a value a window, whichever
    its form: numbers, or runs [value, windows] (in which the index counts
    up by one a window and the other columns repeat)."""
    column = windows[name]
    if not column or not isinstance(column[0], list):
        return column
    step = 1 if name == "index" else 0
    return [value + step * i for value, count in column for i in range(count)]


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
def disturbance(cpu, period_us, spin_us, priority, duration_ms, name="latscope-disturb",
                every=0, long_us=0):
    """A FIFO thread on `cpu` spinning `spin_us` every `period_us`; with
    `every`, every `every`-th wake-up spins `long_us` instead."""
    nested = [str(every), str(long_us)] if every else []
    proc = stop_at_exit(subprocess.Popen([DISTURB, str(cpu), str(period_us), str(spin_us),
                                          str(priority), str(duration_ms), name] + nested))
    time.sleep(0.2)
    if proc.poll() is not None:
        fail(f"disturb exited {proc.returncode}")
    try:
        yield proc
    finally:
        end_process(proc)


def analysis_names(spike, label):
    """Whether a spike's analysis in rtla's words names the thread @label:
    as the blocking thread (the one on the CPU when the timer's handler
    returned) or among the threads that interfered after it."""
    analysis = spike["analysis"]
    threads = analysis["interference"]["thread"]["sources"] + (
        [analysis["blocking_thread"]] if analysis["blocking_thread"] else [])
    return any(t["label"] == label for t in threads)


@contextlib.contextmanager
def lock_holder(cpu, waiter_cpu, period_us, hold_us, priority, duration_ms):
    """A SCHED_OTHER thread "lab-holder" on `cpu` holding a PI mutex for
    `hold_us` every `period_us` while a FIFO `priority` thread "lab-waiter"
    on `waiter_cpu` waits for it: priority inheritance boosts the holder."""
    proc = stop_at_exit(subprocess.Popen([LOCK_HOLDER, str(cpu), str(waiter_cpu),
                                          str(period_us), str(hold_us), str(priority),
                                          str(duration_ms)]))
    time.sleep(0.2)
    if proc.poll() is not None:
        fail(f"lock-holder exited {proc.returncode}")
    try:
        yield proc
    finally:
        end_process(proc)


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


TRACEFS = "/sys/kernel/tracing"


@contextlib.contextmanager
def tracefs_mounted():
    """Where tracefs is mounted, mounting it at /sys/kernel/tracing for the
    block when it is not (as on a machine just booted) and unmounting it
    after: for a test that itself writes to tracefs, as a user would after
    mounting it. latscope needs no such help: it mounts tracefs itself."""
    where = tracefs_mount()
    if where:
        yield where
        return
    subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)
    try:
        yield TRACEFS
    finally:
        subprocess.run(["umount", TRACEFS], check=False)


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
