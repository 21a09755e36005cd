#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the fixture sysroots of the `latscope check` tests.

    python3 tests/data/check-make-fixtures.py

Three machines: check-rt-box (a well-tuned PREEMPT_RT box), check-workstation
(a badly tuned two-node NUMA workstation) and check-vm (a KVM guest like the
development machine). Each gets an `expected` file, the finding ids and
statuses the audit must produce, and a `file-modes` file for the 0444 files
git cannot keep (managed IRQs). Rerun after changing this script and review
the diff: the expected files are written by hand here, never from the tool.
"""
import gzip
import io
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


class Tree:
    def __init__(self, name):
        self.dir = os.path.join(HERE, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.modes = []

    def put(self, path, text, mode=None):
        full = os.path.join(self.dir, path.lstrip('/'))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        data = text if isinstance(text, bytes) else (text + '\n').encode()
        with open(full, 'wb') as f:
            f.write(data)
        if mode is not None:
            self.modes.append('%04o %s' % (mode, path.lstrip('/')))

    def config_gz(self, text):
        # gzip -n: no name, no time stamp, so the bytes are reproducible
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode='wb', mtime=0, filename='') as z:
            z.write(text.encode())
        self.put('/proc/config.gz', buf.getvalue())

    def finish(self, expected):
        with open(os.path.join(self.dir, 'file-modes'), 'w') as f:
            f.write(''.join(m + '\n' for m in self.modes))
        with open(os.path.join(self.dir, 'expected'), 'w') as f:
            f.write(expected.strip() + '\n')


def config_text(options):
    lines = []
    for name, value in options:
        lines.append('# CONFIG_%s is not set' % name if value is None
                     else 'CONFIG_%s=%s' % (name, value))
    return '#\n# Automatically generated file; DO NOT EDIT.\n#\n' + '\n'.join(lines) + '\n'


def cpu_files(t, cpus, siblings, node_of, governor=None, driver=None, idle=None,
              qos='0'):
    for cpu in cpus:
        d = '/sys/devices/system/cpu/cpu%d' % cpu
        t.put(d + '/topology/thread_siblings_list', siblings[cpu])
        t.put(d + '/topology/core_id', str(cpu))
        t.put(d + '/topology/physical_package_id', str(node_of[cpu]))
        t.put(d + '/power/pm_qos_resume_latency_us', qos)
        if governor:
            t.put(d + '/cpufreq/scaling_governor', governor)
            t.put(d + '/cpufreq/scaling_driver', driver)
        for k, (name, latency, disable) in enumerate(idle or []):
            t.put(d + '/cpuidle/state%d/name' % k, name)
            t.put(d + '/cpuidle/state%d/latency' % k, str(latency))
            t.put(d + '/cpuidle/state%d/disable' % k, str(disable))


def nodes(t, node_cpus):
    t.put('/sys/devices/system/node/possible', '0-%d' % (len(node_cpus) - 1))
    t.put('/sys/devices/system/node/online', '0-%d' % (len(node_cpus) - 1))
    for n, cpus in enumerate(node_cpus):
        t.put('/sys/devices/system/node/node%d/cpulist' % n, cpus)


def sysctls(t, values):
    for path, value in values.items():
        t.put(path, value)


def irqs(t, ncpus, rows, default_mask):
    """rows: (number, counts, chip, name, affinity, effective, managed, device)"""
    header = ' ' * 11 + ''.join('CPU%-8d' % c for c in range(ncpus)).rstrip()
    lines = [header]
    for number, counts, chip, name, affinity, effective, managed, device in rows:
        lines.append('%4d: %s %s %s' % (number, ' '.join('%10d' % c for c in counts),
                                        chip, name))
        d = '/proc/irq/%d' % number
        mode = 0o444 if managed else None
        t.put(d + '/smp_affinity_list', affinity, mode)
        t.put(d + '/smp_affinity', mask_of(affinity), mode)
        t.put(d + '/effective_affinity_list', effective)
        t.put(d + '/effective_affinity', mask_of(effective))
        t.put(d + '/node', '0')
        t.put('/sys/kernel/irq/%d/actions' % number, name)
        if device:
            t.put('/sys/bus/pci/devices/%s/msi_irqs/%d' % (device, number), 'msix')
            t.put('/sys/bus/pci/devices/%s/class' % device, '0x010802')
            t.put('/sys/bus/pci/devices/%s/numa_node' % device, '0')
            t.put('/sys/bus/pci/devices/%s/irq' % device, '0')
    lines.append(' LOC: %s   Local timer interrupts' %
                 ' '.join('%10d' % 1000 for _ in range(ncpus)))
    t.put('/proc/interrupts', '\n'.join(lines))
    t.put('/proc/irq/default_smp_affinity', default_mask)


def mask_of(cpulist):
    bits = 0
    for part in cpulist.split(','):
        if '-' in part:
            a, b = part.split('-')
            for c in range(int(a), int(b) + 1):
                bits |= 1 << c
        else:
            bits |= 1 << int(part)
    return '%x' % bits


def task(t, pid, comm, kthread, allowed, extra_flags=0, environ=None):
    flags = extra_flags | (0x00200000 if kthread else 0x00400100)
    t.put('/proc/%d/stat' % pid,
          '%d (%s) S 0 0 0 0 -1 %d 0 0 0 0 0 0 0 0 20 0 1 0 10 0 0' % (pid, comm, flags))
    t.put('/proc/%d/comm' % pid, comm)
    t.put('/proc/%d/status' % pid,
          'Name:\t%s\nState:\tS (sleeping)\nCpus_allowed:\t%s\nCpus_allowed_list:\t%s' %
          (comm, mask_of(allowed), allowed))
    if environ is not None:
        t.put('/proc/%d/environ' % pid, environ.encode())


LIMITS = ('Limit                     Soft Limit           Hard Limit           Units     \n'
          'Max cpu time              unlimited            unlimited            seconds   \n'
          'Max locked memory         %s            %s            bytes     \n'
          'Max realtime priority     %s                    %s                    ')


def dma_latency(t, value):
    t.put('/dev/cpu_dma_latency', struct.pack('<i', value))


def common_vulnerabilities(t, spectre_v2):
    t.put('/sys/devices/system/cpu/vulnerabilities/meltdown', 'Not affected')
    t.put('/sys/devices/system/cpu/vulnerabilities/spectre_v2', spectre_v2)


# ---------------------------------------------------------------- rt box ---
def rt_box():
    t = Tree('check-rt-box')
    release = '6.12.0-rt5'
    t.put('/proc/sys/kernel/osrelease', release)
    t.put('/proc/sys/kernel/version', '#1 SMP PREEMPT_RT Thu Jan  1 00:00:00 UTC 2026')
    t.put('/proc/sys/kernel/ostype', 'Linux')
    t.put('/proc/sys/kernel/hostname', 'rt-box')
    t.put('/sys/kernel/realtime', '1')
    t.put('/proc/cmdline', 'BOOT_IMAGE=/vmlinuz-6.12.0-rt5 root=/dev/sda2 ro quiet '
          'isolcpus=managed_irq,domain,2-7 nohz_full=2-7 rcu_nocbs=2-7 irqaffinity=0-1 '
          'skew_tick=1 nowatchdog tsc=reliable')
    t.config_gz(config_text([
        ('PREEMPT_RT', 'y'), ('PREEMPT_BUILD', 'y'), ('PREEMPT_DYNAMIC', None),
        ('PROVE_LOCKING', None), ('DEBUG_LOCK_ALLOC', None), ('LOCK_STAT', None),
        ('DEBUG_PREEMPT', None), ('KASAN', None), ('SLUB_DEBUG', 'y'),
        ('SLUB_DEBUG_ON', None), ('DEBUG_ATOMIC_SLEEP', 'y'), ('DEBUG_INFO', 'y'),
        ('IRQSOFF_TRACER', None), ('PREEMPT_TRACER', None), ('FUNCTION_TRACER', 'y'),
        ('LOCKUP_DETECTOR', 'y'), ('SOFTLOCKUP_DETECTOR', 'y'),
        ('HARDLOCKUP_DETECTOR', 'y'), ('CPU_FREQ', 'y'),
        ('CPU_FREQ_DEFAULT_GOV_PERFORMANCE', 'y'), ('CPU_FREQ_GOV_PERFORMANCE', 'y'),
        ('CPU_FREQ_GOV_ONDEMAND', None), ('CPU_FREQ_GOV_CONSERVATIVE', None),
        ('NO_HZ_FULL', 'y'), ('RCU_NOCB_CPU', 'y'), ('EFI_DISABLE_RUNTIME', 'y'),
        ('HZ', '1000'),
    ]))
    t.put('/proc/cpuinfo', 'processor\t: 0\nmodel name\t: Intel(R) Xeon(R) E-2278G\n'
          'flags\t\t: fpu tsc constant_tsc nonstop_tsc')
    t.put('/proc/stat', 'cpu  100 0 100 10000 10 0 5 0 0 0')
    t.put('/proc/swaps', 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority')
    t.put('/proc/self/limits', LIMITS % ('unlimited', 'unlimited', '99', '99'))
    sysctls(t, {
        '/proc/sys/kernel/watchdog': '0', '/proc/sys/kernel/nmi_watchdog': '0',
        '/proc/sys/kernel/soft_watchdog': '0', '/proc/sys/kernel/watchdog_cpumask': '0-1',
        '/proc/sys/kernel/sched_rt_runtime_us': '-1',
        '/proc/sys/kernel/sched_rt_period_us': '1000000',
        '/proc/sys/kernel/timer_migration': '0', '/proc/sys/kernel/numa_balancing': '0',
        '/proc/sys/kernel/hung_task_timeout_secs': '600',
        '/proc/sys/kernel/printk': '4\t4\t1\t7', '/proc/sys/vm/stat_interval': '10',
        '/proc/sys/vm/swappiness': '10', '/proc/sys/vm/zone_reclaim_mode': '0',
    })
    cpus = range(8)
    t.put('/sys/devices/system/cpu/online', '0-7')
    t.put('/sys/devices/system/cpu/possible', '0-7')
    t.put('/sys/devices/system/cpu/isolated', '2-7')
    t.put('/sys/devices/system/cpu/nohz_full', '2-7')
    t.put('/sys/devices/system/cpu/smt/control', 'off')
    t.put('/sys/devices/system/cpu/cpuidle/current_driver', 'intel_idle')
    cpu_files(t, cpus, {c: str(c) for c in cpus}, {c: 0 for c in cpus},
              governor='performance', driver='intel_cpufreq',
              idle=[('POLL', 0, 0), ('C1', 2, 0), ('C1E', 10, 0), ('C6', 133, 1)])
    dma_latency(t, 2000000000)
    nodes(t, ['0-7'])
    t.put('/sys/devices/system/clocksource/clocksource0/current_clocksource', 'tsc')
    t.put('/sys/devices/system/clocksource/clocksource0/available_clocksource',
          'tsc hpet acpi_pm ')
    t.put('/sys/kernel/mm/transparent_hugepage/enabled', 'always madvise [never]')
    t.put('/sys/kernel/mm/transparent_hugepage/defrag',
          'always defer defer+madvise madvise [never]')
    t.put('/sys/kernel/mm/ksm/run', '0')
    t.put('/sys/module/pcie_aspm/parameters/policy',
          'default [performance] powersave powersupersave ')
    t.put('/sys/devices/system/machinecheck/machinecheck0/ignore_ce', '1')
    t.put('/sys/devices/virtual/workqueue/cpumask', '03')
    t.put('/sys/devices/virtual/workqueue/writeback/cpumask', 'ff')
    t.put('/sys/firmware/efi/fw_platform_size', '64')
    t.put('/sys/kernel/tracing/current_tracer', 'nop')
    t.put('/sys/kernel/tracing/set_event', '')
    t.put('/sys/kernel/tracing/tracing_on', '1')
    common_vulnerabilities(t, 'Mitigation: Enhanced / Automatic IBRS')
    irqs(t, 8, [
        (0, [40] + [0] * 7, 'IO-APIC   2-edge', 'timer', '0-1', '0', False, None),
        (24, [900, 300] + [0] * 6, 'PCI-MSIX-0000:02:00.0   0-edge', 'eth0-rx-0', '0-1',
         '1', False, None),
        (25, [0, 700] + [0] * 6, 'PCI-MSIX-0000:01:00.0   0-edge', 'nvme0q0', '0-1', '1',
         True, '0000:01:00.0'),
        (26, [0] * 8, 'PCI-MSIX-0000:01:00.0   1-edge', 'nvme0q1', '0-7', '0', True,
         '0000:01:00.0'),
    ], '03')
    task(t, 1, 'systemd', False, '0-1')
    task(t, 2, 'kthreadd', True, '0-1')
    task(t, 14, 'ksoftirqd/2', True, '2', extra_flags=0x04000000)
    task(t, 20, 'rcuop/2', True, '0-1')
    task(t, 300, 'irq/24-eth0-rx-0', True, '0-1')
    task(t, 1000, 'rt-app', False, '2-7')
    t.finish('''
kernel.preempt_rt pass
kernel.preempt_model pass
kernel.lock_debugging pass
kernel.debug_options pass
kernel.latency_tracers pass
kernel.lockup_detector pass
kernel.cpufreq_default_governor pass
kernel.cpufreq_governors pass
kernel.efi_runtime pass
kernel.tracing_active pass
cpu.governor pass
cpu.idle_states pass
cpu.smt_siblings pass
isolation.cpus pass
isolation.nohz_full pass
isolation.rcu_nocbs pass
isolation.workqueues pass
isolation.kthreads pass
isolation.processes pass
irq.default_affinity pass
irq.device_affinity pass
irq.managed pass
irq.arriving pass
irq.irqbalance pass
sched.rt_throttling pass
timer.migration pass
timer.skew_tick pass
sched.hung_task pass
mem.numa_balancing pass
mem.thp pass
mem.vmstat_interval pass
mem.ksm pass
mem.swap pass
mem.limits pass
timer.clocksource pass
platform.pcie_aspm pass
platform.smi skip
platform.machine_check pass
kernel.console_loglevel pass
platform.virtualization pass
platform.mitigations warn
''')


# ------------------------------------------------------- workstation ---
def workstation():
    t = Tree('check-workstation')
    release = '6.8.0-45-generic'
    t.put('/proc/sys/kernel/osrelease', release)
    t.put('/proc/sys/kernel/version', '#45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 2026')
    t.put('/proc/sys/kernel/ostype', 'Linux')
    t.put('/proc/sys/kernel/hostname', 'workstation')
    t.put('/proc/cmdline', 'BOOT_IMAGE=/boot/vmlinuz-%s root=UUID=1234 ro console=ttyS0,115200 '
          'isolcpus=2-3' % release)
    # no /proc/config.gz: the distribution ships /boot/config-<release>
    t.put('/boot/config-%s' % release, config_text([
        ('PREEMPT_RT', None), ('PREEMPT_VOLUNTARY', 'y'), ('PREEMPT_DYNAMIC', 'y'),
        ('PROVE_LOCKING', 'y'), ('DEBUG_LOCK_ALLOC', 'y'), ('LOCKDEP', 'y'),
        ('LOCK_STAT', None), ('DEBUG_PREEMPT', 'y'), ('KASAN', 'y'),
        ('DEBUG_KMEMLEAK', 'y'), ('DEBUG_KMEMLEAK_DEFAULT_OFF', 'y'),
        ('IRQSOFF_TRACER', 'y'), ('PREEMPT_TRACER', None),
        ('LOCKUP_DETECTOR', 'y'), ('SOFTLOCKUP_DETECTOR', 'y'),
        ('HARDLOCKUP_DETECTOR', 'y'), ('CPU_FREQ', 'y'),
        ('CPU_FREQ_DEFAULT_GOV_ONDEMAND', 'y'), ('CPU_FREQ_DEFAULT_GOV_PERFORMANCE', None),
        ('CPU_FREQ_GOV_ONDEMAND', 'y'), ('CPU_FREQ_GOV_CONSERVATIVE', 'm'),
        ('NO_HZ_IDLE', 'y'), ('NO_HZ_FULL', None), ('RCU_NOCB_CPU', None),
        ('EFI_DISABLE_RUNTIME', None), ('HZ', '250'),
    ]))
    t.put('/sys/kernel/debug/sched/preempt', 'none (voluntary) full lazy')
    t.put('/proc/cpuinfo', 'processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Silver 4110\n'
          'flags\t\t: fpu tsc constant_tsc nonstop_tsc')
    t.put('/proc/stat', 'cpu  1000 0 800 90000 40 0 30 0 0 0')
    t.put('/proc/swaps', 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n'
          '/swap.img                               file\t\t8388604\t\t0\t\t-2')
    t.put('/proc/self/limits', LIMITS % ('8388608', '8388608', '0', '0'))
    sysctls(t, {
        '/proc/sys/kernel/watchdog': '1', '/proc/sys/kernel/nmi_watchdog': '1',
        '/proc/sys/kernel/soft_watchdog': '1', '/proc/sys/kernel/watchdog_cpumask': '0-7',
        '/proc/sys/kernel/sched_rt_runtime_us': '950000',
        '/proc/sys/kernel/sched_rt_period_us': '1000000',
        '/proc/sys/kernel/timer_migration': '1', '/proc/sys/kernel/numa_balancing': '1',
        '/proc/sys/kernel/hung_task_timeout_secs': '120',
        '/proc/sys/kernel/printk': '7\t4\t1\t7', '/proc/sys/vm/stat_interval': '1',
        '/proc/sys/vm/swappiness': '60', '/proc/sys/vm/zone_reclaim_mode': '0',
    })
    cpus = range(8)
    # two sockets; SMT siblings are CPU n and n+4; node 0 holds 0-1,4-5
    t.put('/sys/devices/system/cpu/online', '0-7')
    t.put('/sys/devices/system/cpu/possible', '0-7')
    t.put('/sys/devices/system/cpu/isolated', '2-3')
    t.put('/sys/devices/system/cpu/smt/control', 'on')
    t.put('/sys/devices/system/cpu/cpuidle/current_driver', 'intel_idle')
    siblings = {c: '%d,%d' % (c % 4, c % 4 + 4) for c in cpus}
    cpu_files(t, cpus, siblings, {c: (c % 4) // 2 for c in cpus},
              governor='ondemand', driver='acpi-cpufreq',
              idle=[('POLL', 0, 0), ('C1', 2, 0), ('C1E', 10, 0), ('C6', 133, 0)])
    dma_latency(t, 2000000000)
    nodes(t, ['0-1,4-5', '2-3,6-7'])
    t.put('/sys/devices/system/clocksource/clocksource0/current_clocksource', 'hpet')
    t.put('/sys/devices/system/clocksource/clocksource0/available_clocksource',
          'tsc hpet acpi_pm ')
    t.put('/sys/kernel/mm/transparent_hugepage/enabled', '[always] madvise never')
    t.put('/sys/kernel/mm/transparent_hugepage/defrag',
          'always defer defer+madvise [madvise] never')
    t.put('/sys/kernel/mm/ksm/run', '1')
    t.put('/sys/module/pcie_aspm/parameters/policy',
          '[default] performance powersave powersupersave ')
    t.put('/sys/devices/system/machinecheck/machinecheck0/ignore_ce', '0')
    t.put('/sys/devices/virtual/workqueue/cpumask', 'ff')
    t.put('/sys/devices/virtual/workqueue/writeback/cpumask', 'ff')
    t.put('/sys/firmware/efi/fw_platform_size', '64')
    t.put('/sys/kernel/tracing/current_tracer', 'nop')
    t.put('/sys/kernel/tracing/set_event', 'sched:sched_switch\nsched:sched_wakeup')
    t.put('/sys/kernel/tracing/tracing_on', '1')
    common_vulnerabilities(t, 'Mitigation: Retpolines; IBPB: conditional')
    irqs(t, 8, [
        (0, [40] + [0] * 7, 'IO-APIC   2-edge', 'timer', '0', '0', False, None),
        (30, [900, 300, 500, 0, 0, 0, 0, 0], 'PCI-MSIX-0000:03:00.0   0-edge', 'enp3s0-rx-0',
         '0-7', '2', False, None),
        (31, [5] * 8, 'PCI-MSIX-0000:04:00.0   0-edge', 'snd_hda_intel:card0', '0-7', '0',
         False, None),
        (40, [0, 0, 700, 0, 0, 0, 0, 0], 'PCI-MSIX-0000:01:00.0   2-edge', 'nvme0q2', '2',
         '2', True, '0000:01:00.0'),
        (41, [0, 0, 0, 0, 0, 0, 0, 0], 'PCI-MSIX-0000:01:00.0   0-edge', 'nvme0q0', '0-7',
         '0', True, '0000:01:00.0'),
    ], 'ff')
    task(t, 1, 'systemd', False, '0-7')
    task(t, 2, 'kthreadd', True, '0-7')
    task(t, 24, 'ksoftirqd/2', True, '2', extra_flags=0x04000000)
    task(t, 900, 'irqbalance', False, '0-1,4-7',
         environ='LANG=C\0PATH=/usr/sbin:/usr/bin\0IRQBALANCE_BANNED_CPULIST=7\0')
    task(t, 1500, 'Xorg', False, '0-7')
    t.finish('''
kernel.preempt_rt fail
kernel.preempt_model fail
kernel.lock_debugging fail
kernel.debug_options fail
kernel.latency_tracers fail
kernel.lockup_detector fail
kernel.cpufreq_default_governor fail
kernel.cpufreq_governors fail
kernel.efi_runtime fail
kernel.tracing_active fail
cpu.governor fail
cpu.idle_states fail
cpu.smt_siblings fail
isolation.cpus pass
isolation.nohz_full warn
isolation.rcu_nocbs fail
isolation.workqueues fail
isolation.kthreads warn
isolation.processes warn
irq.default_affinity fail
irq.device_affinity fail
irq.managed fail
irq.arriving warn
irq.irqbalance fail
sched.rt_throttling warn
timer.migration warn
timer.skew_tick warn
sched.hung_task warn
mem.numa_balancing fail
mem.thp fail
mem.vmstat_interval warn
mem.ksm warn
mem.swap warn
mem.limits warn
timer.clocksource fail
platform.pcie_aspm warn
platform.smi skip
platform.machine_check warn
kernel.console_loglevel warn
platform.virtualization pass
platform.mitigations warn
''')


# ---------------------------------------------------------------- vm ---
def vm():
    t = Tree('check-vm')
    release = '6.18.44-fc'
    t.put('/proc/sys/kernel/osrelease', release)
    t.put('/proc/sys/kernel/version', '#1 SMP PREEMPT_DYNAMIC @0')
    t.put('/proc/sys/kernel/ostype', 'Linux')
    t.put('/proc/sys/kernel/hostname', 'vm')
    t.put('/proc/cmdline', 'mitigations=auto console=ttyS0 quiet reboot=k panic=1 '
          'rdinit=/init -- --firecracker-init isolcpus=1')
    t.config_gz(config_text([
        ('PREEMPT_BUILD', 'y'), ('PREEMPT_NONE', 'y'), ('PREEMPT_VOLUNTARY', None),
        ('PREEMPT', None), ('PREEMPT_DYNAMIC', 'y'), ('PREEMPT_RCU', 'y'),
        ('NO_HZ_IDLE', 'y'), ('NO_HZ_FULL', None), ('RCU_NOCB_CPU', 'y'),
        ('CPU_FREQ', 'y'), ('CPU_FREQ_DEFAULT_GOV_PERFORMANCE', 'y'),
        ('CPU_FREQ_GOV_ONDEMAND', None), ('CPU_FREQ_GOV_CONSERVATIVE', None),
        ('CPU_FREQ_GOV_SCHEDUTIL', 'y'), ('CPU_IDLE', 'y'), ('HALTPOLL_CPUIDLE', 'y'),
        ('LOCKUP_DETECTOR', 'y'), ('SOFTLOCKUP_DETECTOR', 'y'),
        ('HARDLOCKUP_DETECTOR', 'y'), ('PROVE_LOCKING', None), ('DEBUG_LOCK_ALLOC', None),
        ('LOCK_STAT', None), ('DEBUG_PREEMPT', None), ('KASAN', None), ('SLUB_DEBUG', 'y'),
        ('SLUB_DEBUG_ON', None), ('DEBUG_LIST', 'y'), ('IRQSOFF_TRACER', None),
        ('PREEMPT_TRACER', None), ('FUNCTION_TRACER', 'y'), ('HZ', '250'),
    ]))
    t.put('/proc/cpuinfo', 'processor\t: 0\nmodel name\t: AMD EPYC\n'
          'flags\t\t: fpu tsc constant_tsc nonstop_tsc hypervisor')
    t.put('/proc/stat', 'cpu  3003 0 2051 101110 403 0 126 195 0 0')
    t.put('/proc/swaps', 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority')
    t.put('/proc/self/limits', LIMITS % ('8388608', '8388608', '0', '0'))
    sysctls(t, {
        '/proc/sys/kernel/watchdog': '1', '/proc/sys/kernel/nmi_watchdog': '0',
        '/proc/sys/kernel/soft_watchdog': '1', '/proc/sys/kernel/watchdog_cpumask': '0-1',
        '/proc/sys/kernel/sched_rt_runtime_us': '950000',
        '/proc/sys/kernel/sched_rt_period_us': '1000000',
        '/proc/sys/kernel/timer_migration': '1', '/proc/sys/kernel/numa_balancing': '0',
        '/proc/sys/kernel/hung_task_timeout_secs': '120',
        '/proc/sys/kernel/printk': '4\t4\t1\t7', '/proc/sys/vm/stat_interval': '1',
        '/proc/sys/vm/swappiness': '60', '/proc/sys/vm/zone_reclaim_mode': '0',
    })
    t.put('/sys/devices/system/cpu/online', '0-1')
    t.put('/sys/devices/system/cpu/possible', '0-1')
    t.put('/sys/devices/system/cpu/isolated', '')
    t.put('/sys/devices/system/cpu/smt/control', 'notsupported')
    t.put('/sys/devices/system/cpu/cpuidle/current_driver', 'haltpoll')
    # no cpufreq directory: the hypervisor owns the frequency
    cpu_files(t, range(2), {0: '0', 1: '1'}, {0: 0, 1: 0},
              idle=[('POLL', 0, 0), ('haltpoll', 1, 0)])
    dma_latency(t, 2000000000)
    t.put('/sys/devices/system/clocksource/clocksource0/current_clocksource', 'tsc')
    t.put('/sys/devices/system/clocksource/clocksource0/available_clocksource',
          'tsc kvm-clock ')
    t.put('/sys/kernel/mm/transparent_hugepage/enabled', 'always [madvise] never')
    t.put('/sys/kernel/mm/transparent_hugepage/defrag',
          'always defer defer+madvise [madvise] never')
    t.put('/sys/kernel/mm/ksm/run', '0')
    t.put('/sys/module/pcie_aspm/parameters/policy',
          '[default] performance powersave powersupersave ')
    t.put('/sys/devices/virtual/workqueue/cpumask', '3')
    common_vulnerabilities(t, 'Mitigation: Retpolines; IBPB: conditional')
    irqs(t, 2, [
        (26, [0, 10], 'IO-APIC   4-edge', 'ttyS0', '0-1', '1', False, None),
        (36, [0, 30921], 'PCI-MSIX-0000:00:02.0   1-edge', 'virtio1-req.0', '0-1', '1',
         True, '0000:00:02.0'),
    ], '3')
    task(t, 1, 'process_api', False, '0-1')
    task(t, 2, 'kthreadd', True, '0-1')
    t.finish('''
kernel.preempt_rt fail
kernel.preempt_model fail
kernel.lock_debugging pass
kernel.debug_options pass
kernel.latency_tracers pass
kernel.lockup_detector warn
kernel.cpufreq_default_governor pass
kernel.cpufreq_governors pass
kernel.efi_runtime pass
kernel.tracing_active skip
cpu.governor skip
cpu.idle_states pass
cpu.smt_siblings skip
isolation.cpus warn
isolation.nohz_full skip
isolation.rcu_nocbs skip
isolation.workqueues skip
isolation.kthreads skip
isolation.processes skip
irq.default_affinity skip
irq.device_affinity skip
irq.managed skip
irq.arriving skip
irq.irqbalance skip
sched.rt_throttling warn
timer.migration warn
timer.skew_tick warn
sched.hung_task warn
mem.numa_balancing pass
mem.thp warn
mem.vmstat_interval warn
mem.ksm pass
mem.swap pass
mem.limits warn
timer.clocksource pass
platform.pcie_aspm warn
platform.smi skip
platform.machine_check skip
kernel.console_loglevel pass
platform.virtualization warn
platform.mitigations warn
''')


if __name__ == '__main__':
    rt_box()
    workstation()
    vm()
