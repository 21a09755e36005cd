#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run the shipped systemd units, sandbox and all, under a real systemd on a
# machine whose init is not systemd (a development VM or container): systemd
# boots as PID 1 of private namespaces (pid, mount, uts, ipc, net, and a
# cgroup of its own), the units' files come from contrib/systemd/ with the
# build's binary, and each unit is started, checked and stopped:
#
#   latscope-irq-balance  three intervals on the last CPU as the RT CPU, with
#                         --restore-on-exit: moves made, journal in
#                         /run/latscope, every affinity as before at the end
#   latscope-monitor      `latscope monitor` with the options of
#                         /etc/default/latscope-monitor: READY=1
#                         (Type=notify), /metrics answers, the state is
#                         checkpointed in StateDirectory= with an audit run
#                         and spikes explained, SIGTERM ends it with status
#                         0, no tracing instance is left
#   latscope check        once in the monitor's unit and sandbox: no audit
#                         rule skipped there that is not skipped outside
#
# Not part of `make test`: it boots an init. What the host's kernel and this
# systemd cannot give is said and replaced in a drop-in (an rlimit that
# cannot be raised without CAP_SYS_RESOURCE; the RT runtime a new cpu cgroup
# lacks under CONFIG_RT_GROUP_SCHED). Everything it makes (cgroups,
# /var/lib/latscope-try, the namespaces) is removed on every exit path; it
# runs under the machine lock, as anything that changes IRQs or runs FIFO.
#
# Usage: scripts/try-units.sh [BUILD_DIR]     (default: build)
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=$(cd "${1:-build}" && pwd)
LATSCOPE=$BUILD/cli/latscope
# the units run copies in the namespaces' own /run: a build tree under /tmp
# is out of their sight (PrivateTmp=)
BIN=/run/try-bin
LOCK=/tmp/latscope-machine.lock
GROUP=latscope-try
PORT=$((19700 + RANDOM % 100))

say() { echo "try-units: $*"; }
fail() {
	echo "try-units: FAIL: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || fail "needs root"
[ -x "$LATSCOPE" ] || fail "no $LATSCOPE: build first"
[ -x /lib/systemd/systemd ] || fail "no /lib/systemd/systemd (apt-get install systemd)"
[ ! -d /run/systemd/system ] || fail "systemd is this machine's init: use systemctl and the installed units"
for tool in unshare nsenter curl python3 flock; do
	command -v "$tool" >/dev/null || fail "$tool is missing"
done
if [ -z "${TRY_UNITS_LOCKED:-}" ]; then
	exec env TRY_UNITS_LOCKED=1 flock "$LOCK" "$0" "$@"
fi

work=$(mktemp -d /tmp/latscope-try-units.XXXXXX)
cgroups=()
systemd_pid=""
unshare_pid=""
cleanup() {
	status=$?
	trap - EXIT INT TERM
	if [ -n "$systemd_pid" ]; then
		nsenter -t "$systemd_pid" -m -p -- systemctl stop latscope-monitor.service \
			latscope-irq-balance.service >/dev/null 2>&1 || true
		kill -KILL "$systemd_pid" 2>/dev/null || true
		wait "$unshare_pid" 2>/dev/null || true
	fi
	for dir in "${cgroups[@]}"; do
		[ -d "$dir" ] && find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null
	done
	rm -rf /var/lib/latscope-try "$work"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the units, as meson configures them, with the test's drop-ins ---------
units=$work/units
mkdir -p "$units" "$work/etc/default"
cp contrib/default/* "$work/etc/default/"
for unit in latscope-monitor latscope-irq-balance; do
	sed "s|@BINDIR@|$BIN|; s|@SYSCONFDIR@|$work/etc|" \
		"contrib/systemd/$unit.service.in" >"$units/$unit.service"
	mkdir -p "$units/$unit.service.d"
done
printf '[Unit]\nDescription=nothing but what try-units starts\nDefaultDependencies=no\n' \
	>"$units/latscope-try.target"

last_cpu=$(tr ',' '\n' </sys/devices/system/cpu/online | tail -n 1 | sed 's/.*-//')
cat >"$units/latscope-irq-balance.service.d/try.conf" <<EOF
[Unit]
DefaultDependencies=no
[Service]
ExecStart=
ExecStart=$BIN/latscope irq balance --rt-cpus $last_cpu --interval 1s --count 3 --json /run/latscope/balance.json \$LATSCOPE_IRQ_BALANCE_OPTIONS
StandardOutput=file:/run/try/irq-balance.out
StandardError=file:/run/try/irq-balance.err
Restart=no
EOF

"$LATSCOPE" monitor --help >/dev/null 2>&1 || fail "$LATSCOPE has no monitor command"
# the unit's own options (/etc/default/latscope-monitor: --explain) after the test's
monitor="$BIN/latscope monitor --cpus $last_cpu --listen 127.0.0.1:$PORT --state /var/lib/latscope-try/monitor.json --checkpoint 2s --audit-every 3s \$LATSCOPE_MONITOR_OPTIONS"
# shellcheck disable=SC1091
monitor_options=$(. contrib/default/latscope-monitor && echo "$LATSCOPE_MONITOR_OPTIONS")
say "monitor: latscope monitor, with LATSCOPE_MONITOR_OPTIONS=\"$monitor_options\""
cat >"$units/latscope-monitor.service.d/try.conf" <<EOF
[Unit]
DefaultDependencies=no
[Service]
ExecStart=
ExecStart=$monitor
StateDirectory=
StateDirectory=latscope-try
StandardOutput=file:/run/try/monitor.out
StandardError=file:/run/try/monitor.err
Restart=no
EOF
# LimitRTPRIO=99 and LimitMEMLOCK=infinity raise hard limits: that needs
# CAP_SYS_RESOURCE, which a container's systemd may not have; CAP_SYS_NICE
# and CAP_IPC_LOCK stand in for them then (SCHED_FIFO and mlockall() with
# the limits as they are)
effective=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
if [ $(((0x$effective >> 24) & 1)) -eq 0 ]; then
	say "no CAP_SYS_RESOURCE here: LimitRTPRIO= and LimitMEMLOCK= replaced by CAP_SYS_NICE, CAP_IPC_LOCK and the current limits"
	cat >>"$units/latscope-monitor.service.d/try.conf" <<EOF
LimitRTPRIO=$(ulimit -Hr)
LimitMEMLOCK=$(($(ulimit -Hl) * 1024))
CapabilityBoundingSet=CAP_SYS_NICE CAP_IPC_LOCK
EOF
fi
# The monitor's drift audit is check's: `latscope check` once in the
# monitor's unit and sandbox (its file and drop-in, run once) tells whether
# the sandbox hides a file an audit rule reads
cp "$units/latscope-monitor.service" "$units/latscope-try-check.service"
mkdir -p "$units/latscope-try-check.service.d"
sed -e "s|^ExecStart=.\{1,\}|ExecStart=$BIN/latscope check --rt-cpus $last_cpu --all --json /var/lib/latscope-try/check.json|" \
	-e 's|/run/try/monitor\.|/run/try/check.|' \
	"$units/latscope-monitor.service.d/try.conf" >"$units/latscope-try-check.service.d/try.conf"
printf 'Type=oneshot\nNotifyAccess=none\nSuccessExitStatus=2\n' >>"$units/latscope-try-check.service.d/try.conf"

# --- a cgroup of its own in every hierarchy; RT runtime where it is split --
# the cgroup mounts: ROOT MOUNTPOINT FSTYPE SUPER_OPTIONS
cgroup_mounts() {
	awk '{ split($0, half, " - "); split(half[1], a, " "); split(half[2], b, " ");
		if (b[1] == "cgroup" || b[1] == "cgroup2") print a[4], a[5], b[1], b[3] }' \
		/proc/self/mountinfo
}
while read -r root mountpoint fstype _; do
	[ "$root" = / ] || continue
	mkdir -p "$mountpoint/$GROUP"
	cgroups+=("$mountpoint/$GROUP")
	if [ -f "$mountpoint/cpuset.cpus" ] && [ -f "$mountpoint/$GROUP/cpuset.cpus" ]; then
		cat "$mountpoint/cpuset.cpus" >"$mountpoint/$GROUP/cpuset.cpus"
		cat "$mountpoint/cpuset.mems" >"$mountpoint/$GROUP/cpuset.mems"
	fi
	if [ -f "$mountpoint/$GROUP/cpu.rt_runtime_us" ]; then
		say "CONFIG_RT_GROUP_SCHED: $mountpoint/$GROUP gets 900000 us of RT runtime per second"
		echo 900000 >"$mountpoint/$GROUP/cpu.rt_runtime_us"
	fi
done < <(cgroup_mounts)

# --- boot: the namespaces' own /run, cgroup mounts and tracefs -------------
cat >"$work/boot.sh" <<EOF
#!/bin/sh
set -e
# what systemd as PID 1 could write for the whole machine, read-only here
mount --rbind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys
mount --rbind /sys /sys && mount -o remount,bind,ro /sys
mount -t tmpfs -o mode=755 tmpfs /run
if [ "\$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
else
	mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup
$(cgroup_mounts | while read -r root mountpoint fstype options; do
	if [ "$root" != / ] || [ "$mountpoint" = /sys/fs/cgroup ]; then continue; fi
	opts=$(echo "$options" | tr ',' '\n' | grep -v -E '^(rw|ro)$' | paste -sd, - || true)
	case $opts in name=*) opts=none,$opts ;; esac
	echo "	mkdir -p $mountpoint && mount -t $fstype ${opts:+-o $opts} $fstype $mountpoint"
done)
fi
mountpoint -q /sys/kernel/tracing ||
	mount -t tracefs -o nosuid,nodev,noexec tracefs /sys/kernel/tracing
mkdir -p /run/systemd/system /run/try $BIN
cp $LATSCOPE $BIN/
cp -r $units/. /run/systemd/system/
exec env container=latscope-try /lib/systemd/systemd --system --unit=latscope-try.target \\
	--log-target=null --show-status=no
EOF
chmod +x "$work/boot.sh"

affinities() {
	for f in /proc/irq/*/smp_affinity_list; do echo "$f $(cat "$f")"; done
	cat /proc/irq/default_smp_affinity
}
affinities >"$work/affinities.before"

moves=""
for dir in "${cgroups[@]}"; do moves="$moves echo \$\$ > $dir/cgroup.procs;"; done
bash -c "$moves exec unshare --pid --fork --mount-proc --mount --uts --ipc --net --cgroup --propagation private $work/boot.sh" \
	>"$work/boot.log" 2>&1 &
unshare_pid=$!
for _ in $(seq 50); do
	systemd_pid=$(pgrep -P "$unshare_pid" || true)
	[ -n "$systemd_pid" ] &&
		nsenter -t "$systemd_pid" -m -p -- systemctl is-system-running >/dev/null 2>&1 && break
	sleep 0.2
done
[ -n "$systemd_pid" ] || { cat "$work/boot.log" >&2; fail "systemd did not boot"; }
in_ns() { nsenter -t "$systemd_pid" -m -p -n -u -i -- "$@"; }
say "systemd $(in_ns systemctl --version | head -n 1 | cut -d' ' -f2) is PID 1 of the namespaces (host pid $systemd_pid)"
show() { in_ns systemctl show -p "$2" --value "$1"; }
# tracing instances (tracefs is one for the whole machine)
instances() { in_ns sh -c 'ls -d /sys/kernel/tracing/instances/latscope-* 2>/dev/null | wc -l'; }
instances_before=$(instances)

# What unit $1 said on stderr ($2), shown; a refusal the sandbox would
# cause (EACCES, EPERM, EROFS, a device not allowed) fails.
denied() {
	in_ns test -s "$2" || return 0
	say "$1 said on stderr:"
	in_ns sed 's/^/  /' "$2"
	! in_ns grep -q -E 'Permission denied|Operation not permitted|Read-only file system' "$2" ||
		fail "$1: the sandbox refused something it needs (above)"
}

# --- latscope-irq-balance ---------------------------------------------------
in_ns systemctl start latscope-irq-balance.service || true
for _ in $(seq 40); do
	[ "$(show latscope-irq-balance.service ActiveState)" != active ] && break
	sleep 0.25
done
result=$(show latscope-irq-balance.service Result)
if [ "$result" != success ]; then
	in_ns cat /run/try/irq-balance.out /run/try/irq-balance.err >&2 || true
	fail "latscope-irq-balance: $result, status $(show latscope-irq-balance.service ExecMainStatus)"
fi
moved=$(in_ns python3 -c "import json; print(len(json.load(open('/run/latscope/balance.json'))['moves']))")
affinities >"$work/affinities.after"
diff -u "$work/affinities.before" "$work/affinities.after" >&2 ||
	fail "latscope-irq-balance left affinities changed"
in_ns test ! -e /run/latscope/irq-journal.json || fail "latscope-irq-balance left its journal"
say "latscope-irq-balance: success; $moved moves under the sandbox, every affinity restored on exit"
denied latscope-irq-balance /run/try/irq-balance.err

# --- latscope-monitor -------------------------------------------------------
in_ns systemctl start latscope-monitor.service ||
	{ in_ns cat /run/try/monitor.err >&2; fail "latscope-monitor did not start"; }
[ "$(show latscope-monitor.service ActiveState)" = active ] || fail "latscope-monitor is not active"
say "latscope-monitor: active after READY=1 ($(show latscope-monitor.service StatusText))"
main=$(show latscope-monitor.service MainPID)
in_ns grep -E '^(CapEff|NoNewPrivs|Seccomp):' "/proc/$main/status" | tr '\n' ' ' | sed 's/\t/ /g'
echo
sleep 5
count=$(in_ns curl -sf "127.0.0.1:$PORT/metrics" |
	sed -n "s/^latscope_timer_latency_seconds_count{cpu=\"$last_cpu\"} //p")
if [ -z "$count" ] || [ "$count" -le 0 ]; then fail "latscope-monitor: no samples on /metrics"; fi
say "latscope-monitor: /metrics has $count samples of cpu $last_cpu"
in_ns systemctl stop latscope-monitor.service
[ "$(show latscope-monitor.service Result)" = success ] ||
	{ in_ns cat /run/try/monitor.err >&2; fail "latscope-monitor: $(show latscope-monitor.service Result) on SIGTERM"; }
# what the sandbox must let through: the state, the audit (every 3 s) and,
# with --explain, the tracing instance's spikes explained
python3 - "$monitor $monitor_options" /var/lib/latscope-try/monitor.json >"$work/state.txt" 2>&1 <<'EOF' ||
import json, sys
d = json.load(open(sys.argv[2]))
assert d["command"] == "monitor", "not a monitor state"
assert d["audit"] and d["audit"]["runs"] >= 1, "no audit ran: %s" % d["audit"]
explained = [c["explain"] for c in d["cpus"] if "explain" in c]
if " --explain" in sys.argv[1] + " ":
    assert explained, "--explain but no cpu's spikes explained"
print("%d audit runs (%d rules failed), %s" % (
    d["audit"]["runs"], len(d["audit"].get("failed", [])),
    "%d causes named, %d events lost" % (sum(len(x["causes"]) for x in explained),
                                         sum(x["lost_events"] for x in explained))
    if explained else "no explain"))
EOF
	{ cat "$work/state.txt" >&2; in_ns cat /run/try/monitor.err >&2; fail "latscope-monitor: the state in StateDirectory="; }
[ "$(instances)" -le "$instances_before" ] || fail "latscope-monitor left a tracing instance"
say "latscope-monitor: SIGTERM ended it with status 0, state checkpointed ($(cat "$work/state.txt")), no tracing instance left"
denied latscope-monitor /run/try/monitor.err
# --- the audit in the monitor's sandbox --------------------------------------
in_ns systemctl start latscope-try-check.service ||
	{ in_ns cat /run/try/check.err >&2; fail "latscope check in the monitor's sandbox failed"; }
"$LATSCOPE" check --rt-cpus "$last_cpu" --all --json "$work/check.json" >/dev/null ||
	[ $? -eq 2 ] || fail "latscope check outside the sandbox failed"
python3 - /var/lib/latscope-try/check.json "$work/check.json" >"$work/audit.txt" 2>&1 <<'EOF' ||
import json, sys
inside, outside = ({f["id"]: f for f in json.load(open(path))["findings"]} for path in sys.argv[1:])
hidden = [f"{rule}: {f['detail']}" for rule, f in sorted(inside.items())
          if f["status"] == "skip" and outside.get(rule, {}).get("status") != "skip"]
assert set(inside) == set(outside), "not the same rules"
assert not hidden, "skipped in the sandbox only:\n  " + "\n  ".join(hidden)
# (a rule on tasks sees only the namespaces' own in their /proc)
moved = ["%s %s here, %s outside" % (rule, inside[rule]["status"], outside[rule]["status"])
         for rule in sorted(inside) if inside[rule]["status"] != outside[rule]["status"]]
print("%d rules, none skipped for the sandbox%s" % (
    len(inside), "; not the same in both runs: " + ", ".join(moved) if moved else ""))
EOF
	{ cat "$work/audit.txt" >&2; fail "the monitor's sandbox hides what the audit reads"; }
say "latscope check in the monitor's sandbox: $(cat "$work/audit.txt")"
denied "latscope check in the monitor's sandbox" /run/try/check.err
say "ok"
