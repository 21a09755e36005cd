# SPDX-License-Identifier: GPL-2.0-or-later
"""What the lab's tests (run inside the guest by tests/lab/lab) share: the
system tests' helpers, and what the guest was booted with."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "system"))
from harness import check, cpu_set, latscope  # noqa: E402,F401

CPU_DIR = "/sys/devices/system/cpu"


def read_cpus(name):
    """A CPU list of /sys/devices/system/cpu ("isolated", "nohz_full"); a
    mask the kernel never allocated reads "(null)" (nohz_full without
    nohz_full= on 6.1) and holds no CPU."""
    with open(os.path.join(CPU_DIR, name)) as f:
        text = f.read().strip()
    return [] if text == "(null)" else cpu_set(text)


def cpu_list(cpus):
    return ",".join(str(cpu) for cpu in cpus)


def boot_parameter(name):
    """The value of @name= on the kernel command line, "" when given bare,
    None when absent."""
    with open("/proc/cmdline") as f:
        for word in f.read().split():
            key, eq, value = word.partition("=")
            if key == name:
                return value if eq else ""
    return None


def preempt_rt():
    try:
        with open("/sys/kernel/realtime") as f:
            return f.read().strip() == "1"
    except FileNotFoundError:
        return False


def in_guest():
    """The lab's guests run their command from /lab/command; refuse to run
    anywhere else, where a test would change this machine."""
    check(os.path.exists("/lab/command"),
          "a lab test runs in the lab's guest: tests/lab/lab --profile P -- " + sys.argv[0])


def run(*args, timeout=120):
    """latscope with @args: (exit status, stdout, stderr)."""
    done = latscope(*args, timeout=timeout)
    return done.returncode, done.stdout, done.stderr
