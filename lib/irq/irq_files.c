// SPDX-License-Identifier: GPL-2.0-or-later
/* Each IRQ's own files: /proc/irq/N/ (affinities) and /sys/kernel/irq/N/ (actions). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "irq_internal.h"
#include "latscope/log.h"

/* an affinity list of 8192 CPUs written the long way ("0,2,4,...") */
#define LIST_TEXT_SIZE 65536

int irq_files_open(struct irq_files *files, struct sysroot *root, struct irq_store *store)
{
	files->root = root;
	files->store = store;
	files->nr_noted = 0;
	memset(files->last, 0, sizeof(files->last));
	files->ring = NULL;
	files->ring_tried = false;
	files->proc_irq = files->sys_irq = -1;
	files->text = malloc(LIST_TEXT_SIZE);
	if (!files->text)
		return -ENOMEM;
	files->proc_irq = sysroot_open(root, O_RDONLY | O_DIRECTORY, "/proc/irq");
	files->proc_irq_error = files->proc_irq < 0 ? files->proc_irq : 0;
	files->sys_irq = sysroot_open(root, O_RDONLY | O_DIRECTORY, "/sys/kernel/irq");
	/* a tree is never written, and only root may write /proc/irq */
	files->probe = files->proc_irq >= 0 && sysroot_is_live(root) && !geteuid();
	return 0;
}

void irq_files_close(struct irq_files *files)
{
	if (files->nr_noted > IRQ_FILES_NOTED_MAX)
		log_warning("%u more IRQ affinity files cannot be used (-vv names them)",
			    files->nr_noted - IRQ_FILES_NOTED_MAX);
	if (files->proc_irq >= 0)
		close(files->proc_irq);
	if (files->sys_irq >= 0)
		close(files->sys_irq);
	irq_ring_free(files->ring);
	free(files->text);
}

/* Read "<number>/<file>" under @dir into files->text; the length or -errno. */
static int read_at(struct irq_files *files, int dir, unsigned int number, const char *file,
		   struct stat *st)
{
	struct stat own;
	char name[64];
	ssize_t n, used = 0;
	int fd;

	if (dir < 0)
		return -ENOENT;
	snprintf(name, sizeof(name), "%u/%s", number, file);
	/* as sysroot reads: no FIFO may block, no device be read */
	fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (!st)
		st = &own;
	if (fstat(fd, st))
		n = -errno;
	else if (!S_ISREG(st->st_mode))
		n = S_ISDIR(st->st_mode) ? -EISDIR : -SYSROOT_ENOTREG;
	else
		n = 0;
	if (n) {
		close(fd);
		return (int)n;
	}
	for (;;) {
		size_t want = LIST_TEXT_SIZE - 1 - (size_t)used;

		n = read(fd, files->text + used, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += n;
		if (used == LIST_TEXT_SIZE - 1) {
			n = -EFBIG;
			break;
		}
		/*
		 * sysfs and small seq_files hand over everything in the first
		 * read, as do regular files: a short read is the end, which
		 * saves the read that would return 0, a quarter of the calls.
		 */
		if ((size_t)n < want)
			break;
	}
	if (n < 0)
		n = n == -EFBIG ? n : -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	while (used && files->text[used - 1] == '\n')
		used--;
	files->text[used] = '\0';
	return (int)used;
}

/*
 * The set a list file's text names, kept by the store: 0, or why it cannot
 * be used (as in irq_info.affinity_error), *@set then the empty set. @read
 * is what reading it gave, the text's length or a negative errno code.
 */
static int list_of_text(struct irq_files *files, bool effective, int read, const char *text,
			const struct cpuset **set)
{
	struct irq_list_seen *last = &files->last[effective];
	struct cpuset parsed;
	int ret;

	*set = irq_store_empty(files->store);
	if (read < 0)
		return read;
	/* the kernel never shows an empty smp_affinity_list: no CPU is no answer */
	if (!text[0])
		return effective ? 0 : -ENODATA;
	if (last->set && !strcmp(text, last->text)) {
		*set = last->set;
		return 0;
	}
	ret = cpuset_parse_list(text, &parsed);
	if (ret)
		return ret == -ERANGE ? -ERANGE : -EINVAL;
	*set = irq_store_cpus(files->store, &parsed);
	if (!*set) {
		*set = irq_store_empty(files->store);
		return -ENOMEM;
	}
	if (strlen(text) < sizeof(last->text)) {
		strcpy(last->text, text);
		last->set = *set;
	}
	return 0;
}

/* One list file read here, one system call at a time: as list_of_text(). */
static int read_list(struct irq_files *files, unsigned int number, bool effective,
		     const struct cpuset **set, struct stat *st)
{
	*set = irq_store_empty(files->store);
	/* no /proc/irq at all: no IRQ is gone, none can be read */
	if (files->proc_irq < 0)
		return -ENOTDIR;
	return list_of_text(files, effective,
			    read_at(files, files->proc_irq, number,
				    effective ? "effective_affinity_list" : "smp_affinity_list",
				    st),
			    files->text, set);
}

/*
 * Say a file's problem once: when it is new for the IRQ (a refresh of the
 * balance daemon meets the same one every interval), and only for the first
 * few files of a read; an absent file is an IRQ that went away, no problem.
 */
static void note_error(struct irq_files *files, unsigned int number, const char *file, int was,
		       int err)
{
	const char *prefix = irq_root_prefix(files->root);

	/* without /proc/irq the directory is the one problem, said once by the load */
	if (!err || err == -ENOENT || err == was || files->proc_irq < 0)
		return;
	if (files->nr_noted++ >= IRQ_FILES_NOTED_MAX) {
		log_debug("%s/proc/irq/%u/%s: %s", prefix, number, file, irq_file_error_text(err));
		return;
	}
	/* the text that did not parse, read again: the read may have been another thread's */
	if ((err == -EINVAL || err == -ERANGE) &&
	    read_at(files, files->proc_irq, number, file, NULL) >= 0)
		log_warning("%s/proc/irq/%u/%s: %s: '%.40s'", prefix, number, file,
			    irq_file_error_text(err), files->text);
	else if (err == -EINVAL || err == -ERANGE)
		log_warning("%s/proc/irq/%u/%s: %s", prefix, number, file,
			    irq_file_error_text(err));
	else if (err == -ENODATA)
		log_warning("%s/proc/irq/%u/%s: empty", prefix, number, file);
	else
		log_warning("cannot read %s/proc/irq/%u/%s: %s", prefix, number, file,
			    irq_file_error_text(err));
}

enum irq_probe_verdict irq_probe_verdict(int error)
{
	switch (error) {
	case EINVAL:
		return IRQ_PROBE_SETTABLE;
	case EIO: /* before Linux 6.12 */
	case EPERM:
		return IRQ_PROBE_REFUSED;
	default:
		return IRQ_PROBE_UNKNOWN;
	}
}

/*
 * Ask the kernel whether user space may set an IRQ's affinity, setting
 * nothing: write_irq_affinity() refuses a managed IRQ, or one whose chip
 * cannot move it, before it parses the value, and a value no cpu list
 * parser takes is refused by the parse otherwise. Debian's 6.1 kernels
 * leave a managed IRQ's file 0644, where the mode alone said movable and
 * every write failed. The path is absolute, not under files->proc_irq, so
 * that bench/irq-policies' shim sees the write. Cost: an open, a write of
 * two bytes and a close per IRQ whose file has a write bit. Returns the
 * write's errno, 0 when it was taken.
 */
static int probe_affinity(struct irq_files *files, unsigned int number)
{
	static const char unparsable[] = "x\n";
	ssize_t n;
	int fd, error;

	fd = sysroot_open(files->root, O_WRONLY | O_NONBLOCK, "/proc/irq/%u/smp_affinity_list",
			  number);
	if (fd < 0)
		return -fd;
	do
		n = write(fd, unparsable, sizeof(unparsable) - 1);
	while (n < 0 && errno == EINTR);
	error = n < 0 ? errno : 0;
	close(fd);
	return error;
}

/*
 * Whether an IRQ is movable, from its smp_affinity_list's mode and, where
 * that says writable on the live system as root, the kernel's answer: the
 * one place every command (show, plan, apply, balance, restore, check)
 * gets it from.
 */
static void decide_movable(struct irq_files *files, struct irq_affinity *item, mode_t mode)
{
	item->movable = !item->affinity_error && (mode & 0222);
	item->movable_by = IRQ_MOVABLE_BY_MODE;
	item->probed = false;
	item->probe_error = 0;
	if (!item->movable || !files->probe)
		return;
	item->probed = true;
	item->probe_error = probe_affinity(files, item->number);
	switch (irq_probe_verdict(item->probe_error)) {
	case IRQ_PROBE_SETTABLE:
		item->movable_by = IRQ_MOVABLE_BY_PROBE;
		break;
	case IRQ_PROBE_REFUSED:
		item->movable = false;
		item->movable_by = IRQ_MOVABLE_BY_PROBE;
		break;
	case IRQ_PROBE_UNKNOWN:
		break;
	}
}

/* smp_affinity_list, whether it may be written, effective_affinity_list; no message */
void irq_affinity_read(struct irq_files *files, struct irq_affinity *item)
{
	struct stat st = { 0 };

	item->affinity_error = read_list(files, item->number, false, &item->affinity, &st);
	decide_movable(files, item, st.st_mode);
	item->effective_error = read_list(files, item->number, true, &item->effective, NULL);
}

/* What the ring gave for one file, as read_list() would say it. */
static int list_of_ring(struct irq_files *files, unsigned int number, bool effective,
			const struct irq_ring_file *file, const struct cpuset **set)
{
	/* longer than the ring's buffer: read here in one piece */
	if (file->ret == -EOVERFLOW)
		return read_list(files, number, effective, set, NULL);
	return list_of_text(files, effective, file->ret, file->text, set);
}

void irq_affinity_read_chunk(struct irq_files *files, struct irq_affinity *items, unsigned int nr)
{
	struct irq_ring_file out[2 * IRQ_RING_IRQS];
	unsigned int numbers[IRQ_RING_IRQS], i;

	if (!files->ring_tried && files->proc_irq >= 0) {
		files->ring = irq_ring_new(files->proc_irq);
		files->ring_tried = true;
	}
	if (files->ring && nr <= IRQ_RING_IRQS) {
		for (i = 0; i < nr; i++)
			numbers[i] = items[i].number;
		if (!irq_ring_read(files->ring, numbers, nr, out)) {
			for (i = 0; i < nr; i++) {
				struct irq_affinity *item = &items[i];

				item->affinity_error = list_of_ring(files, item->number, false,
								    &out[2 * i], &item->affinity);
				decide_movable(files, item, out[2 * i].mode);
				item->effective_error =
					list_of_ring(files, item->number, true, &out[2 * i + 1],
						     &item->effective);
			}
			return;
		}
		/* a ring that failed is not trusted again */
		irq_ring_free(files->ring);
		files->ring = NULL;
	}
	for (i = 0; i < nr; i++)
		irq_affinity_read(files, &items[i]);
}

/*
 * Two small files per IRQ, each an open, a read and a close: 10,000 IRQs
 * take 20,000 opens, whose time is the kernel's path walk and the system
 * calls themselves. A few threads share them, a chunk at a time, while
 * the caller parses /proc/interrupts, and the caller takes its share when
 * it is done; each thread has its own buffer. A thread is worth it from a
 * few hundred IRQs on, and more than a few contend in the kernel more
 * than they gain.
 */
#define IRQS_PER_READER 512
#define MAX_READERS 8
#define CHUNK IRQ_RING_IRQS
/* what a reader's frames need, not the default 8 MiB, all resident under mlockall() */
#define READER_STACK (256 * 1024)

struct reader {
	pthread_t thread;
	bool started;
	struct irq_files files;
	struct irq_reading *reading;
};

struct irq_reading {
	struct irq_files *files; /* the caller's */
	struct irq_affinity *items;
	unsigned int nr;
	unsigned int next; /* the first item no thread has taken */
	unsigned int nr_readers;
	struct reader readers[MAX_READERS];
};

/* chunks of the items, until none is left */
static void read_share(struct irq_reading *r, struct irq_files *files)
{
	unsigned int i, end;

	while ((i = __atomic_fetch_add(&r->next, CHUNK, __ATOMIC_RELAXED)) < r->nr) {
		end = i + CHUNK < r->nr ? i + CHUNK : r->nr;
		irq_affinity_read_chunk(files, &r->items[i], end - i);
	}
}

static void *reader_main(void *arg)
{
	struct reader *reader = arg;

	read_share(reader->reading, &reader->files);
	return NULL;
}

/* the CPUs this process may run on, at most @most */
static unsigned int usable_cpus(unsigned int most)
{
	size_t size = CPU_ALLOC_SIZE(CPUSET_MAX_CPUS);
	cpu_set_t *set = CPU_ALLOC(CPUSET_MAX_CPUS);
	unsigned int count = 1;

	if (set && !sched_getaffinity(0, size, set))
		count = (unsigned int)CPU_COUNT_S(size, set);
	CPU_FREE(set);
	return count < most ? count : most;
}

static bool start_reader(struct reader *reader)
{
	pthread_attr_t attr;

	reader->files = *reader->reading->files;
	memset(reader->files.last, 0, sizeof(reader->files.last));
	/* a ring per thread, made when it reads its first chunk */
	reader->files.ring = NULL;
	reader->files.ring_tried = false;
	reader->files.text = malloc(LIST_TEXT_SIZE);
	if (!reader->files.text || pthread_attr_init(&attr))
		return false;
	reader->started = !pthread_attr_setstacksize(&attr, READER_STACK) &&
			  !pthread_create(&reader->thread, &attr, reader_main, reader);
	pthread_attr_destroy(&attr);
	return reader->started;
}

struct irq_reading *irq_reading_start(struct irq_files *files, struct irq_affinity *items,
				      unsigned int nr)
{
	struct irq_reading *r = calloc(1, sizeof(*r));
	unsigned int wanted = nr / IRQS_PER_READER, i;

	if (!r)
		return NULL;
	r->files = files;
	r->items = items;
	r->nr = nr;
	/* this thread is one of them, once it calls irq_reading_finish() */
	wanted = wanted > 1 ? usable_cpus(wanted < MAX_READERS ? wanted : MAX_READERS) : 1;
	for (i = 0; i + 1 < wanted; i++) {
		r->readers[i].reading = r;
		/* one that does not start leaves its share to the others */
		if (!start_reader(&r->readers[i])) {
			free(r->readers[i].files.text);
			break;
		}
		r->nr_readers++;
	}
	return r;
}

void irq_reading_finish(struct irq_reading *r)
{
	unsigned int i;

	read_share(r, r->files);
	for (i = 0; i < r->nr_readers; i++) {
		pthread_join(r->readers[i].thread, NULL);
		free(r->readers[i].files.text);
		irq_ring_free(r->readers[i].files.ring);
	}
	free(r);
}

void irq_affinity_note(struct irq_files *files, unsigned int number, int was_affinity,
		       int was_effective, const struct irq_affinity *item)
{
	note_error(files, number, "smp_affinity_list", was_affinity, item->affinity_error);
	note_error(files, number, "effective_affinity_list", was_effective, item->effective_error);
}

void irq_affinity_apply(struct irq_info *irq, const struct irq_affinity *item)
{
	irq->affinity = item->affinity;
	irq->effective = item->effective;
	irq->affinity_error = item->affinity_error;
	irq->effective_error = item->effective_error;
	irq->has_affinity = !item->affinity_error;
	irq->has_effective = !item->effective_error;
	irq->movable = item->movable;
	irq->movable_by = item->movable_by;
	irq->probed = item->probed;
	irq->probe_error = item->probe_error;
}

const char *irq_unmovable_why(const struct irq_info *irq)
{
	if (irq->movable_by != IRQ_MOVABLE_BY_PROBE)
		return "affinity file mode 0444";
	return irq->probe_error == EPERM ? "the kernel refused a test write with EPERM" :
					   "the kernel refused a test write with EIO";
}

bool irq_affinity_unreadable(const struct irq_info *irq)
{
	return (irq->affinity_error && irq->affinity_error != -ENOENT) ||
	       (irq->effective_error && irq->effective_error != -ENOENT);
}

const char *irq_file_error_text(int err)
{
	/* CPUSET_MAX_CPUS - 1, spelled out below for a static string (before the
	 * switch: a declaration may not follow a case label before C23) */
	_Static_assert(CPUSET_MAX_CPUS == 8192, "say the largest cpu number");

	switch (err) {
	case -EINVAL:
		return "not a cpu list";
	case -ERANGE:
		return "a cpu number beyond 8191";
	case -ENODATA:
		return "empty";
	case -ENOENT:
		return "absent";
	case -ENOTDIR:
		return "its directory cannot be read";
	default:
		return sysroot_strerror(err);
	}
}

int irq_files_read_sysfs(struct irq_files *files, unsigned int number, const char *file)
{
	return read_at(files, files->sys_irq, number, file, NULL);
}

int irq_table_refresh_affinity(struct sysroot *root, struct irq_table *table)
{
	struct irq_affinity *items = calloc(table->nr_irqs + 1, sizeof(*items));
	struct irq_reading *reading = NULL;
	struct irq_files files;
	unsigned int i;
	int ret;

	ret = items ? irq_files_open(&files, root, table->store) : -ENOMEM;
	if (ret) {
		free(items);
		return ret;
	}
	for (i = 0; i < table->nr_irqs; i++)
		items[i].number = table->irqs[i].number;
	reading = irq_reading_start(&files, items, table->nr_irqs);
	if (reading) {
		irq_reading_finish(reading);
		/* a problem is said when it is new, in the order of the IRQs */
		for (i = 0; i < table->nr_irqs; i++) {
			irq_affinity_note(&files, items[i].number, table->irqs[i].affinity_error,
					  table->irqs[i].effective_error, &items[i]);
			irq_affinity_apply(&table->irqs[i], &items[i]);
		}
	}
	irq_files_close(&files);
	free(items);
	return reading ? 0 : -ENOMEM;
}
