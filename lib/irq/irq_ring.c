// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The affinity files of many IRQs read through io_uring, a batch of IRQs
 * per system call instead of eight calls per IRQ. On the development VM a
 * system call costs a microsecond before it does anything: the 80,000
 * calls of a 10,000-IRQ machine were 85 ms of the 170 ms its files took.
 *
 * A batch is two submissions. First a statx() of each file: what is not a
 * regular file is not opened, as sysroot and read_at() promise (no FIFO
 * may block, no device be read). Then, for each regular file, an open
 * into a slot of the ring's own file table, a read and a close, linked.
 * Where io_uring cannot be used (an old kernel, io_uring_disabled, a
 * seccomp filter) irq_ring_new() says NULL and the files are read one
 * system call at a time, the same way as before.
 *
 * No liburing: the three system calls and the ring layout of
 * <linux/io_uring.h> are all it takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "irq_internal.h"
#include "latscope/log.h"

#define FILES_PER_IRQ 2
#define SLOTS (IRQ_RING_IRQS * FILES_PER_IRQ)
/* a statx, then an open, a read and a close per file */
#define ENTRIES (4 * SLOTS)
/* a list of a few hundred CPUs; a longer one is read by the caller */
#define TEXT_SIZE 512

static const char *const file_names[FILES_PER_IRQ] = { "smp_affinity_list",
						       "effective_affinity_list" };

struct irq_ring {
	int fd;
	int dir; /* /proc/irq, not owned */
	void *sq_map, *cq_map, *sqe_map;
	size_t sq_size, cq_size, sqe_size;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	/* per file of a batch */
	char names[SLOTS][48];
	struct statx stats[SLOTS];
	char texts[SLOTS][TEXT_SIZE];
};

static int ring_setup(unsigned int entries, struct io_uring_params *params)
{
	return (int)syscall(__NR_io_uring_setup, entries, params);
}

static int ring_enter(int fd, unsigned int submit, unsigned int wait)
{
	return (int)syscall(__NR_io_uring_enter, fd, submit, wait, IORING_ENTER_GETEVENTS, NULL, 0);
}

static int ring_register(int fd, unsigned int opcode, void *arg, unsigned int nr)
{
	return (int)syscall(__NR_io_uring_register, fd, opcode, arg, nr);
}

void irq_ring_free(struct irq_ring *ring)
{
	if (!ring)
		return;
	if (ring->sqe_map && ring->sqe_map != MAP_FAILED)
		munmap(ring->sqe_map, ring->sqe_size);
	if (ring->cq_map && ring->cq_map != MAP_FAILED && ring->cq_map != ring->sq_map)
		munmap(ring->cq_map, ring->cq_size);
	if (ring->sq_map && ring->sq_map != MAP_FAILED)
		munmap(ring->sq_map, ring->sq_size);
	if (ring->fd >= 0)
		close(ring->fd);
	free(ring);
}

static void *map(int fd, size_t size, off_t offset)
{
	return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, offset);
}

struct irq_ring *irq_ring_new(int proc_irq)
{
	struct io_uring_rsrc_register files = { .nr = SLOTS, .flags = IORING_RSRC_REGISTER_SPARSE };
	struct irq_ring *ring = calloc(1, sizeof(*ring));
	struct io_uring_params p;
	char *sq, *cq;

	if (!ring)
		return NULL;
	memset(&p, 0, sizeof(p));
	ring->dir = proc_irq;
	ring->fd = ring_setup(ENTRIES, &p);
	if (ring->fd < 0) {
		log_debug("no io_uring (%s): the IRQ files are read one system call at a time",
			  strerror(errno));
		goto fail;
	}
	ring->sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	ring->cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (ring->cq_size > ring->sq_size)
			ring->sq_size = ring->cq_size;
		ring->cq_size = ring->sq_size;
	}
	ring->sqe_size = p.sq_entries * sizeof(struct io_uring_sqe);
	ring->sq_map = map(ring->fd, ring->sq_size, IORING_OFF_SQ_RING);
	ring->cq_map = p.features & IORING_FEAT_SINGLE_MMAP ?
			       ring->sq_map :
			       map(ring->fd, ring->cq_size, IORING_OFF_CQ_RING);
	ring->sqe_map = map(ring->fd, ring->sqe_size, IORING_OFF_SQES);
	if (ring->sq_map == MAP_FAILED || ring->cq_map == MAP_FAILED || ring->sqe_map == MAP_FAILED)
		goto fail;
	sq = ring->sq_map;
	cq = ring->cq_map;
	ring->sq_head = (unsigned int *)(sq + p.sq_off.head);
	ring->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	ring->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	ring->sq_array = (unsigned int *)(sq + p.sq_off.array);
	ring->cq_head = (unsigned int *)(cq + p.cq_off.head);
	ring->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	ring->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	ring->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	ring->sqes = ring->sqe_map;
	/* a file table of the ring's own (5.19): the open, read and close of a file link */
	if (ring_register(ring->fd, IORING_REGISTER_FILES2, &files, sizeof(files)) < 0) {
		log_debug("io_uring without a sparse file table (%s): the IRQ files are read "
			  "one system call at a time",
			  strerror(errno));
		goto fail;
	}
	return ring;
fail:
	irq_ring_free(ring);
	return NULL;
}

/* The next submission entry, zeroed; the tail is published by submit(). */
static struct io_uring_sqe *next_entry(struct irq_ring *ring, unsigned int *tail)
{
	unsigned int at = *tail & *ring->sq_mask;
	struct io_uring_sqe *sqe = &ring->sqes[at];

	memset(sqe, 0, sizeof(*sqe));
	ring->sq_array[at] = at;
	(*tail)++;
	return sqe;
}

/*
 * Hand @count entries to the kernel and wait for as many completions;
 * each completion's result goes to results[user_data]. 0 or -errno (the
 * ring is then not to be used again).
 */
static int submit(struct irq_ring *ring, unsigned int tail, unsigned int count, int *results)
{
	unsigned int head, submitted = 0, seen = 0;
	int ret;

	__atomic_store_n(ring->sq_tail, tail, __ATOMIC_RELEASE);
	while (seen < count) {
		ret = ring_enter(ring->fd, count - submitted, count - seen);
		if (ret < 0 && errno != EINTR && errno != EAGAIN && errno != EBUSY)
			return -errno;
		if (ret > 0)
			submitted += (unsigned int)ret;
		head = *ring->cq_head;
		while (head != __atomic_load_n(ring->cq_tail, __ATOMIC_ACQUIRE)) {
			const struct io_uring_cqe *cqe = &ring->cqes[head & *ring->cq_mask];

			if (cqe->user_data < ENTRIES)
				results[cqe->user_data] = cqe->res;
			head++;
			seen++;
		}
		__atomic_store_n(ring->cq_head, head, __ATOMIC_RELEASE);
	}
	return 0;
}

/* A completion's result, as read_at() says it. */
static int file_error(const struct statx *st)
{
	if (S_ISREG(st->stx_mode))
		return 0;
	return S_ISDIR(st->stx_mode) ? -EISDIR : -SYSROOT_ENOTREG;
}

int irq_ring_read(struct irq_ring *ring, const unsigned int *numbers, unsigned int nr,
		  struct irq_ring_file *out)
{
	/* results[]: statx at slot, open at SLOTS + 3 * slot, read and close after it */
	int results[ENTRIES];
	unsigned int tail = *ring->sq_tail, slot, count = 0;
	size_t len;
	int ret;

	if (nr > IRQ_RING_IRQS)
		return -EINVAL;
	/* what each file is, before any is opened */
	for (slot = 0; slot < nr * FILES_PER_IRQ; slot++) {
		struct io_uring_sqe *sqe = next_entry(ring, &tail);

		snprintf(ring->names[slot], sizeof(ring->names[slot]), "%u/%s",
			 numbers[slot / FILES_PER_IRQ], file_names[slot % FILES_PER_IRQ]);
		sqe->opcode = IORING_OP_STATX;
		sqe->fd = ring->dir;
		sqe->addr = (unsigned long)ring->names[slot];
		sqe->len = STATX_TYPE | STATX_MODE;
		sqe->off = (unsigned long)&ring->stats[slot];
		sqe->user_data = slot;
		count++;
	}
	ret = submit(ring, tail, count, results);
	if (ret)
		return ret;
	/* the regular files: open into the slot, read, close, one linked chain each */
	count = 0;
	for (slot = 0; slot < nr * FILES_PER_IRQ; slot++) {
		struct io_uring_sqe *sqe;
		unsigned int at = SLOTS + 3 * slot;

		out[slot].ret = results[slot] < 0 ? results[slot] : file_error(&ring->stats[slot]);
		out[slot].mode = ring->stats[slot].stx_mode;
		if (out[slot].ret)
			continue;
		sqe = next_entry(ring, &tail);
		sqe->opcode = IORING_OP_OPENAT;
		sqe->fd = ring->dir;
		sqe->addr = (unsigned long)ring->names[slot];
		sqe->open_flags = O_RDONLY | O_NONBLOCK;
		sqe->file_index = slot + 1;
		sqe->flags = IOSQE_IO_LINK;
		sqe->user_data = at;
		sqe = next_entry(ring, &tail);
		sqe->opcode = IORING_OP_READ;
		sqe->fd = (int)slot;
		sqe->addr = (unsigned long)ring->texts[slot];
		sqe->len = TEXT_SIZE - 1;
		/* a short read breaks a plain link: the close must come all the same */
		sqe->flags = IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
		sqe->user_data = at + 1;
		sqe = next_entry(ring, &tail);
		sqe->opcode = IORING_OP_CLOSE;
		sqe->file_index = slot + 1;
		sqe->user_data = at + 2;
		count += 3;
	}
	ret = count ? submit(ring, tail, count, results) : 0;
	if (ret)
		return ret;
	for (slot = 0; slot < nr * FILES_PER_IRQ; slot++) {
		unsigned int at = SLOTS + 3 * slot;

		if (out[slot].ret)
			continue;
		/* the open's error, else the read's length or error */
		ret = results[at] < 0 ? results[at] : results[at + 1];
		if (ret < 0) {
			out[slot].ret = ret;
			continue;
		}
		len = (size_t)ret;
		/* a full buffer may be a longer list: the caller reads it in one piece */
		if (len >= TEXT_SIZE - 1) {
			out[slot].ret = -EOVERFLOW;
			continue;
		}
		while (len && ring->texts[slot][len - 1] == '\n')
			len--;
		ring->texts[slot][len] = '\0';
		out[slot].text = ring->texts[slot];
		out[slot].ret = (int)len;
	}
	return 0;
}
