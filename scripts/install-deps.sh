#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian packages latscope needs to build, test and benchmark.
# Installs only what is missing; does nothing when everything is there.
set -eu

BUILD="meson ninja-build pkg-config gcc libc6-dev libtracefs-dev libtraceevent-dev
libjansson-dev libnuma-dev zlib1g-dev libgsl-dev"
TEST="check python3 util-linux mount procps r-base-core r-cran-evd"
# latscope monitor: HTTP with TLS, native histograms, web config, bcrypt, sd_notify;
# its tests run a real Prometheus and promtool and make certificates with openssl
BUILD="$BUILD libmicrohttpd-dev libgnutls28-dev libprotobuf-c-dev protobuf-c-compiler
libyaml-dev libcrypt-dev libsystemd-dev"
TEST="$TEST prometheus openssl"
# report: xmllint checks the SVG, headless chromium renders the page, gnuplot
# runs the scripts report writes
TEST="$TEST libxml2-utils chromium gnuplot-nox"
# compare's and report's system tests read real cyclictest and oslat files
TEST="$TEST rt-tests"
# the Debian package and its check (scripts/check-package.sh): build, lintian,
# man -w, systemd-analyze verify and security, the installed bash completion
TEST="$TEST build-essential debhelper dpkg-dev lintian man-db systemd bash-completion"
# the fuzzers (libFuzzer is in clang's runtime) and the symbolizer of sanitizer reports
FUZZ="clang libclang-rt-14-dev llvm"
# irq-fixture delays one apply's rename with strace to interleave two applies
TEST="$TEST strace"
# --junit: libxml2 writes the XML; the tests read it as CI does (junitparser) and
# run contrib/ci's LAVA definition (yaml)
BUILD="$BUILD libxml2-dev"
TEST="$TEST python3-junitparser python3-yaml"
# the lab (tests/lab/lab): Debian's kernels booted under QEMU with this
# machine's root over 9p, an initramfs of busybox and the kernel's modules
# (modinfo orders them), and rtla beside latscope in the guest
LAB="qemu-system-x86 busybox-static cpio kmod rtla"
# peers the benchmarks compare against; optional at run time
BENCH="rt-tests hyperfine time"

want="$BUILD $TEST $FUZZ $LAB"
[ "${1:-}" = "--bench" ] && want="$want $BENCH"

missing=""
for pkg in $want; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $pkg" ;;
	esac
done

# the lab's kernels: fetched with apt-get download and unpacked, never
# installed on this machine (again only when the archive has a newer one)
fetch_kernels() {
	if [ "$(id -u)" -eq 0 ]; then
		"$(dirname "$0")/../tests/lab/lab" fetch
	else
		echo "install-deps: the lab's kernels are fetched as root (tests/lab/lab fetch)" >&2
	fi
}

if [ -z "$missing" ]; then
	fetch_kernels
	exit 0
fi

echo "install-deps: installing:$missing"
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "install-deps: need root to install:$missing" >&2
		exit 1
	fi
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
# Nothing installed here may start a service (prometheus would, and systemd
# is installed for systemd-analyze only): where systemd is not the init and
# no policy-rc.d decides, one that refuses every start (101) is in place
# while apt runs.
if [ ! -d /run/systemd/system ] && [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\n# install-deps.sh: start nothing while it installs\nexit 101\n' |
		$SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod 755 /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
fi
# shellcheck disable=SC2086
$SUDO apt-get install -y --no-install-recommends $missing >/dev/null ||
	{ $SUDO apt-get update >/dev/null && $SUDO apt-get install -y --no-install-recommends $missing >/dev/null; }
fetch_kernels
