// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim of bench/irq-policies: a balancer's writes of
 * /proc/irq/N/smp_affinity and smp_affinity_list go to the simulated
 * kernel (irq-policies-driver, on the socket IRQ_POLICIES_SOCKET names)
 * instead of the file, and fail with the errno it answers: EIO for a
 * managed IRQ, ENOSPC when the mask's CPUs have no vector left. A plain
 * file cannot refuse a write; the real kernel does.
 *
 * Covers open()/openat()+write() (latscope) and fopen()+fprintf() (stdio:
 * irqbalance), whose writes glibc makes inside itself where no shim sees
 * them: such a FILE is a fopencookie() stream that talks to the driver.
 *
 * Each open of /proc/interrupts for reading is told to the driver too: a
 * balancer reads it once a scan, so the driver counts its scans.
 *
 * With IRQ_POLICIES_TIME_SCALE=N, CLOCK_MONOTONIC runs N times faster and
 * nanosleep() and poll() wait N times shorter: the balancer lives in
 * simulated time, so its interval, dwell and hourly budget are its own,
 * and "the last hour" is a simulated hour, not N of them. That covers
 * both balancers' clocks: latscope sleeps with nanosleep(); irqbalance
 * 1.9.2 scans from a glib main loop (g_timeout_add_seconds), whose clock
 * is g_get_monotonic_time(), clock_gettime(CLOCK_MONOTONIC) through the
 * PLT, and whose waits are poll() timeouts; its rescan sleep is a
 * nanosleep(). CLOCK_REALTIME (gettimeofday, log time stamps) stays real.
 *
 * With IRQ_POLICIES_TIME_SCALE=0 (lockstep) no real time passes for the
 * balancer at all: its CLOCK_MONOTONIC stands still while it works and
 * moves only by what it waits, and each wait is a request to the driver
 * ("0 w NS"), answered once the simulated kernel has played every second
 * the wait covers. A day is then as long as the balancer's own work and
 * the driver's, and a run made again makes its scans on the same
 * simulated seconds.
 */
/* open() and open64() both defined here, each under its own name */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 1024

/* per descriptor: the IRQ whose affinity it writes, 0 none; 'm' mask, 'l' list */
static unsigned int fd_irq[MAX_FDS];
static char fd_kind[MAX_FDS];

/* "/proc/irq/N/smp_affinity[_list]" opened for writing: N and the kind */
static unsigned int affinity_file(const char *path, int flags, char *kind)
{
	unsigned int irq;
	int end = 0;

	if ((flags & O_ACCMODE) == O_RDONLY || strncmp(path, "/proc/irq/", 10))
		return 0;
	if (sscanf(path, "/proc/irq/%u/smp_affinity%n", &irq, &end) != 1 || !end)
		return 0;
	if (!path[end])
		*kind = 'm';
	else if (!strcmp(path + end, "_list"))
		*kind = 'l';
	else
		return 0;
	return irq;
}

/*
 * Ask the simulated kernel: "IRQ KIND TEXT", KIND 'm' (a mask written),
 * 'l' (a list written), 'r' (/proc/interrupts read, IRQ 0) or 'w' (a
 * wait of TEXT simulated ns in lockstep, IRQ 0). Returns 0 or an errno.
 */
static int ask_kernel(unsigned int irq, char kind, const char *buf, size_t len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *socket_path = getenv("IRQ_POLICIES_SOCKET");
	char request[8192], reply[16];
	int fd, n, err = EIO;
	size_t text = len;

	while (text && (buf[text - 1] == '\n' || buf[text - 1] == ' '))
		text--;
	if (!socket_path || text + 32 > sizeof(request))
		return EIO;
	n = snprintf(request, sizeof(request), "%u %c %.*s", irq, kind, (int)text, buf);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", socket_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return EIO;
	if (!connect(fd, (struct sockaddr *)&addr, sizeof(addr)) &&
	    send(fd, request, (size_t)n, 0) == n) {
		n = (int)recv(fd, reply, sizeof(reply) - 1, 0);
		if (n > 0) {
			reply[n] = '\0';
			err = atoi(reply);
		}
	}
	close(fd);
	return err;
}

static int remember(int fd, unsigned int irq, char kind)
{
	if (fd >= 0 && fd < MAX_FDS) {
		fd_irq[fd] = irq;
		fd_kind[fd] = kind;
	}
	return fd;
}

static int (*real_openat(void))(int, const char *, int, ...)
{
	static int (*fn)(int, const char *, int, ...);

	if (!fn)
		fn = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	return fn;
}

/* a scan begins: the driver counts them */
static void tell_read(const char *path, int flags)
{
	if ((flags & O_ACCMODE) == O_RDONLY && !strcmp(path, "/proc/interrupts"))
		ask_kernel(0, 'r', "-", 1);
}

static int open_at(int dirfd, const char *path, int flags, mode_t mode)
{
	char kind = 0;
	unsigned int irq = affinity_file(path, flags, &kind);

	tell_read(path, flags);
	if (irq)
		/* the file itself is the driver's: nothing is written through it */
		return remember(
			real_openat()(AT_FDCWD, "/dev/null", O_WRONLY | (flags & O_CLOEXEC)), irq,
			kind);
	return real_openat()(dirfd, path, flags, mode);
}

/* the third argument of open(), there only when a file may be made */
static mode_t mode_of(int flags, va_list ap)
{
	return flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, mode_t) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return open_at(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return open_at(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

/* _FORTIFY_SOURCE's entries, for flags not known at compile time */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

int __open_2(const char *path, int flags)
{
	return open_at(AT_FDCWD, path, flags, 0);
}

int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));

int __openat_2(int dirfd, const char *path, int flags)
{
	return open_at(dirfd, path, flags, 0);
}

int __openat64_2(int dirfd, const char *path, int flags) __attribute__((alias("__openat_2")));

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real_write)(int, const void *, size_t);
	int err;

	if (fd >= 0 && fd < MAX_FDS && fd_irq[fd]) {
		err = ask_kernel(fd_irq[fd], fd_kind[fd], buf, len);
		if (err) {
			errno = err;
			return -1;
		}
		return (ssize_t)len;
	}
	if (!real_write)
		real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	return real_write(fd, buf, len);
}

int close(int fd)
{
	static int (*real_close)(int);

	if (fd >= 0 && fd < MAX_FDS)
		fd_irq[fd] = 0;
	if (!real_close)
		real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	return real_close(fd);
}

/* stdio: the cookie is the IRQ and the kind */
struct cookie {
	unsigned int irq;
	char kind;
};

static ssize_t cookie_write(void *c, const char *buf, size_t len)
{
	struct cookie *cookie = c;
	int err = ask_kernel(cookie->irq, cookie->kind, buf, len);

	if (err) {
		errno = err;
		return -1;
	}
	return (ssize_t)len;
}

static int cookie_close(void *c)
{
	free(c);
	return 0;
}

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real_fopen)(const char *, const char *);
	cookie_io_functions_t io = { .write = cookie_write, .close = cookie_close };
	struct cookie *cookie;
	char kind = 0;
	int flags = strpbrk(mode, "wa+") ? O_WRONLY : O_RDONLY;
	unsigned int irq = affinity_file(path, flags, &kind);

	tell_read(path, flags);
	if (irq) {
		cookie = malloc(sizeof(*cookie));
		if (!cookie)
			return NULL;
		cookie->irq = irq;
		cookie->kind = kind;
		return fopencookie(cookie, "w", io);
	}
	if (!real_fopen)
		real_fopen = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
	return real_fopen(path, mode);
}

FILE *fopen64(const char *path, const char *mode) __attribute__((alias("fopen")));

/* IRQ_POLICIES_TIME_SCALE, read once: 1 without it, 0 in lockstep */
static unsigned long time_scale(void)
{
	static unsigned long scale;
	static int read;
	const char *text;

	if (!read) {
		text = getenv("IRQ_POLICIES_TIME_SCALE");
		scale = text ? strtoul(text, NULL, 10) : 1;
		read = 1;
	}
	return scale;
}

static uint64_t ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

static struct timespec timespec_of(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ULL),
				  .tv_nsec = (long)(ns % 1000000000ULL) };
}

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_nanosleep)(const struct timespec *, struct timespec *);
static uint64_t base; /* simulated time starts at the shim's load, for every thread */
static uint64_t waited; /* lockstep: the simulated time waited since then */

__attribute__((constructor)) static void start_clock(void)
{
	struct timespec ts;

	real_clock_gettime =
		(int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	real_nanosleep =
		(int (*)(const struct timespec *, struct timespec *))dlsym(RTLD_NEXT, "nanosleep");
	if (real_clock_gettime && !real_clock_gettime(CLOCK_MONOTONIC, &ts))
		base = ns_of(&ts);
}

/*
 * Lockstep: a wait of @ns is over once the driver has played the seconds
 * it covers. A driver that no longer answers has ended the run: then a
 * short real sleep, so that a balancer waiting to be stopped cannot spin.
 */
static void wait_simulated(uint64_t ns)
{
	const struct timespec pause = { .tv_nsec = 10000000 };
	char text[24];
	int n = snprintf(text, sizeof(text), "%llu", (unsigned long long)ns);

	if (ask_kernel(0, 'w', text, (size_t)n))
		real_nanosleep(&pause, NULL);
	__atomic_add_fetch(&waited, ns, __ATOMIC_RELAXED);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	int ret;

	if (!real_clock_gettime)
		start_clock();
	ret = real_clock_gettime(id, ts);
	if (ret || id != CLOCK_MONOTONIC || time_scale() == 1)
		return ret;
	if (!time_scale())
		*ts = timespec_of(base + __atomic_load_n(&waited, __ATOMIC_RELAXED));
	else
		*ts = timespec_of(base + (ns_of(ts) - base) * time_scale());
	return 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	struct timespec shorter;
	int ret;

	if (!real_nanosleep)
		start_clock();
	if (time_scale() == 1)
		return real_nanosleep(req, rem);
	if (!time_scale()) {
		wait_simulated(ns_of(req));
		if (rem)
			*rem = timespec_of(0);
		return 0;
	}
	shorter = timespec_of(ns_of(req) / time_scale());
	ret = real_nanosleep(&shorter, rem);
	if (ret && rem)
		*rem = timespec_of(ns_of(rem) * time_scale());
	return ret;
}

/*
 * glib's main loop waits here; a timeout rounded up, or it would spin. In
 * lockstep, what is ready now is returned at once, and otherwise the
 * timeout passes in simulated time (an endless wait stays a real one).
 */
int poll(struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	static int (*real_poll)(struct pollfd *, nfds_t, int);
	int ready;

	if (!real_poll)
		real_poll = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
	if (!time_scale() && timeout_ms > 0) {
		ready = real_poll(fds, nfds, 0);
		if (ready)
			return ready;
		wait_simulated((uint64_t)timeout_ms * 1000000ULL);
		return 0;
	}
	if (timeout_ms > 0)
		timeout_ms = (int)(((unsigned long)timeout_ms + time_scale() - 1) / time_scale());
	return real_poll(fds, nfds, timeout_ms);
}
