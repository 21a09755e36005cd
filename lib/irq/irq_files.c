// SPDX-License-Identifier: GPL-2.0-or-later
/* Each IRQ's own files: /proc/irq/N/ (affinities) and /sys/kernel/irq/N/ (actions). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "irq_internal.h"
#include "latscope/log.h"

/* an affinity list of 8192 CPUs written the long way ("0,2,4,...") */
#define LIST_TEXT_SIZE 65536

int irq_files_open(struct irq_files *files, struct sysroot *root)
{
	files->root = root;
	files->last_text[0] = '\0';
	cpuset_clear(&files->last_set);
	files->text = malloc(LIST_TEXT_SIZE);
	if (!files->text)
		return -ENOMEM;
	files->proc_irq = sysroot_open(root, O_RDONLY | O_DIRECTORY, "/proc/irq");
	files->sys_irq = sysroot_open(root, O_RDONLY | O_DIRECTORY, "/sys/kernel/irq");
	return 0;
}

void irq_files_close(struct irq_files *files)
{
	if (files->proc_irq >= 0)
		close(files->proc_irq);
	if (files->sys_irq >= 0)
		close(files->sys_irq);
	free(files->text);
}

/* Read "<number>/<file>" under @dir into files->text; the length or -errno. */
static int read_at(struct irq_files *files, int dir, unsigned int number, const char *file,
		   struct stat *st)
{
	char name[64];
	ssize_t n, used = 0;
	int fd;

	if (dir < 0)
		return -ENOENT;
	snprintf(name, sizeof(name), "%u/%s", number, file);
	fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (st && fstat(fd, st)) {
		n = -errno;
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

static bool read_list(struct irq_files *files, unsigned int number, const char *file,
		      struct cpuset *set, struct stat *st)
{
	if (read_at(files, files->proc_irq, number, file, st) < 0) {
		cpuset_clear(set);
		return false;
	}
	if (!strcmp(files->text, files->last_text)) {
		*set = files->last_set;
		return true;
	}
	if (cpuset_parse_list(files->text, set)) {
		log_warning("%s/proc/irq/%u/%s: not a cpu list: '%.40s'",
			    irq_root_prefix(files->root), number, file, files->text);
		cpuset_clear(set);
		return false;
	}
	if (strlen(files->text) < sizeof(files->last_text)) {
		strcpy(files->last_text, files->text);
		files->last_set = *set;
	}
	return true;
}

void irq_files_read_affinity(struct irq_files *files, struct irq_info *irq)
{
	struct stat st;

	irq->has_affinity = read_list(files, irq->number, "smp_affinity_list", &irq->affinity, &st);
	irq->movable = irq->has_affinity && (st.st_mode & 0222);
	irq->has_effective =
		read_list(files, irq->number, "effective_affinity_list", &irq->effective, NULL);
}

char *irq_files_read_sysfs(struct irq_files *files, unsigned int number, const char *file)
{
	if (read_at(files, files->sys_irq, number, file, NULL) < 0)
		return NULL;
	return strdup(files->text);
}

int irq_table_refresh_affinity(struct sysroot *root, struct irq_table *table)
{
	struct irq_files files;
	unsigned int i;
	int ret;

	ret = irq_files_open(&files, root);
	if (ret)
		return ret;
	for (i = 0; i < table->nr_irqs; i++)
		irq_files_read_affinity(&files, &table->irqs[i]);
	irq_files_close(&files);
	return 0;
}
