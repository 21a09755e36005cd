// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "latscope/array.h"
#include "latscope/irq_journal.h"
#include "latscope/log.h"
#include "latscope/result.h"

/*
 * The journal is a JSON document:
 * { "schema": "latscope-irq-journal/1", "root": "/", "created": "...",
 *   "default_smp_affinity": "3\n",
 *   "irqs": [ { "irq": 38, "name": "virtio2-input.0",
 *               "files": { "smp_affinity_list": "0-1\n" } }, ... ] }
 * Texts are the files' exact bytes. Restoring writes them back, so a
 * journal is a list of writes: only the affinity files below are accepted,
 * and only texts made of the characters of cpu lists and masks.
 */
static const char *const irq_files[] = {
	"smp_affinity_list",
	"smp_affinity",
	"effective_affinity_list",
	"effective_affinity",
};

#define NR_IRQ_FILES (sizeof(irq_files) / sizeof(irq_files[0]))
#define MAX_TEXT 65536

struct irq_journal {
	json_t *doc;
	unsigned int *numbers; /* recorded IRQs, ascending */
	unsigned int nr, cap;
};

int irq_journal_default_path(struct sysroot *root, char *buf, size_t size)
{
	return sysroot_path(root, buf, size, IRQ_JOURNAL_PATH);
}

static json_t *now_text(void)
{
	struct timespec now;
	char text[32];
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(text);
}

struct irq_journal *irq_journal_new(struct sysroot *root)
{
	struct irq_journal *journal = calloc(1, sizeof(*journal));

	if (!journal)
		return NULL;
	journal->doc = json_pack("{s:s, s:s, s:o, s:[]}", "schema", IRQ_JOURNAL_SCHEMA, "root",
				 sysroot_dir(root), "created", now_text(), "irqs");
	if (!journal->doc) {
		free(journal);
		return NULL;
	}
	return journal;
}

void irq_journal_free(struct irq_journal *journal)
{
	if (!journal)
		return;
	json_decref(journal->doc);
	free(journal->numbers);
	free(journal);
}

unsigned int irq_journal_irqs(const struct irq_journal *journal)
{
	return journal->nr;
}

static bool find_number(const struct irq_journal *journal, unsigned int number,
			unsigned int *position)
{
	unsigned int low = 0, high = journal->nr;

	while (low < high) {
		unsigned int mid = low + (high - low) / 2;

		if (journal->numbers[mid] == number) {
			*position = mid;
			return true;
		}
		if (journal->numbers[mid] < number)
			low = mid + 1;
		else
			high = mid;
	}
	*position = low;
	return false;
}

bool irq_journal_has_irq(const struct irq_journal *journal, unsigned int number)
{
	unsigned int position;

	return find_number(journal, number, &position);
}

static int index_number(struct irq_journal *journal, unsigned int number)
{
	unsigned int position, *numbers;

	if (find_number(journal, number, &position))
		return -EEXIST;
	numbers = array_grow(journal->numbers, &journal->cap, journal->nr + 1, sizeof(*numbers));
	if (!numbers)
		return -ENOMEM;
	journal->numbers = numbers;
	memmove(journal->numbers + position + 1, journal->numbers + position,
		(journal->nr - position) * sizeof(*journal->numbers));
	journal->numbers[position] = number;
	journal->nr++;
	return 0;
}

/* The characters of cpu lists ("0-3,8-15:2") and masks ("ff,00000003"). */
static bool plausible_text(const char *text)
{
	size_t len = strlen(text);

	if (len >= MAX_TEXT)
		return false;
	return strspn(text, "0123456789abcdefABCDEF,-: \n") == len;
}

static bool known_file(const char *name)
{
	size_t i;

	for (i = 0; i < NR_IRQ_FILES; i++)
		if (!strcmp(name, irq_files[i]))
			return true;
	return false;
}

static const char *check_entry(json_t *entry, json_int_t *number)
{
	json_t *files, *value;
	const char *name;

	if (!json_is_object(entry) || !json_is_integer(json_object_get(entry, "irq")))
		return "an IRQ without number";
	*number = json_integer_value(json_object_get(entry, "irq"));
	if (*number < 0 || *number > (json_int_t)UINT32_MAX)
		return "an IRQ number out of range";
	files = json_object_get(entry, "files");
	if (!json_is_object(files) || !json_is_string(json_object_get(files, "smp_affinity_list")))
		return "an IRQ without smp_affinity_list";
	json_object_foreach(files, name, value)
	{
		if (!known_file(name))
			return "a file that is not an affinity file";
		if (!json_is_string(value) || !plausible_text(json_string_value(value)))
			return "a text that is not a cpu list or mask";
	}
	return NULL;
}

static const char *check_document(struct irq_journal *journal, struct sysroot *root)
{
	json_t *doc = journal->doc, *irqs, *entry, *value;
	const char *why;
	json_int_t number;
	size_t i;

	if (!json_is_object(doc) || !json_is_string(value = json_object_get(doc, "schema")) ||
	    strcmp(json_string_value(value), IRQ_JOURNAL_SCHEMA))
		return "not a " IRQ_JOURNAL_SCHEMA " document";
	if (!json_is_string(value = json_object_get(doc, "root")))
		return "no root";
	if (strcmp(json_string_value(value), sysroot_dir(root)))
		return "it was written for another root";
	value = json_object_get(doc, "default_smp_affinity");
	if (value && (!json_is_string(value) || !plausible_text(json_string_value(value))))
		return "default_smp_affinity is not a cpu mask";
	irqs = json_object_get(doc, "irqs");
	if (!json_is_array(irqs))
		return "no irqs list";
	json_array_foreach(irqs, i, entry)
	{
		why = check_entry(entry, &number);
		if (why)
			return why;
		if (index_number(journal, (unsigned int)number) == -EEXIST)
			return "an IRQ listed twice";
	}
	return NULL;
}

int irq_journal_load(struct sysroot *root, const char *path, struct irq_journal **result)
{
	struct irq_journal *journal;
	json_error_t error;
	const char *why;

	*result = NULL;
	if (access(path, F_OK))
		return -errno;
	journal = calloc(1, sizeof(*journal));
	if (!journal)
		return -ENOMEM;
	journal->doc = json_load_file(path, JSON_REJECT_DUPLICATES, &error);
	if (!journal->doc) {
		log_error(
			"journal %s does not parse (line %d: %s): nothing is written; look at it, then remove it",
			path, error.line, error.text);
		irq_journal_free(journal);
		return -EINVAL;
	}
	why = check_document(journal, root);
	if (why) {
		log_error(
			"journal %s is not usable: %s: nothing is written; look at it, then remove it",
			path, why);
		irq_journal_free(journal);
		return -EINVAL;
	}
	*result = journal;
	return 0;
}

/* The exact bytes of a file, or NULL (*error set). */
static char *read_raw(struct sysroot *root, int *error, const char *fmt, unsigned int number,
		      const char *file)
{
	char *text;

	*error = sysroot_read_alloc(root, &text, NULL, fmt, number, file);
	return *error ? NULL : text;
}

int irq_journal_record_irq(struct irq_journal *journal, struct sysroot *root,
			   const struct irq_info *irq)
{
	json_t *files = json_object(), *entry;
	size_t i, nr_files = sysroot_is_live(root) ? 1 : NR_IRQ_FILES;
	int ret = 0;

	if (!files)
		return -ENOMEM;
	/* live: only the file written; a fixture: the ones latscope fakes too */
	for (i = 0; i < nr_files && !ret; i++) {
		char *text = read_raw(root, &ret, "/proc/irq/%u/%s", irq->number, irq_files[i]);

		if (ret == -ENOENT && i > 0) {
			ret = 0;
			continue;
		}
		if (!ret && !plausible_text(text))
			ret = -EINVAL;
		if (!ret)
			ret = json_object_set_new(files, irq_files[i], json_string(text)) ?
				      -ENOMEM :
				      0;
		free(text);
	}
	if (ret) {
		json_decref(files);
		return ret;
	}
	entry = json_pack("{s:i, s:s, s:o}", "irq", (json_int_t)irq->number, "name", irq->name,
			  "files", files);
	if (!entry || json_array_append_new(json_object_get(journal->doc, "irqs"), entry))
		return -ENOMEM;
	return index_number(journal, irq->number);
}

bool irq_journal_has_default(const struct irq_journal *journal)
{
	return json_object_get(journal->doc, "default_smp_affinity") != NULL;
}

int irq_journal_record_default(struct irq_journal *journal, struct sysroot *root)
{
	char *text;
	int ret;

	ret = sysroot_read_alloc(root, &text, NULL, "/proc/irq/default_smp_affinity");
	if (ret)
		return ret;
	if (!plausible_text(text))
		ret = -EINVAL;
	else if (json_object_set_new(journal->doc, "default_smp_affinity", json_string(text)))
		ret = -ENOMEM;
	free(text);
	return ret;
}

/* mkdir -p of the directory holding @path */
static int make_parent(const char *path)
{
	char dir[4096];
	char *slash;

	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int irq_journal_save(const struct irq_journal *journal, const char *path)
{
	int ret = make_parent(path);

	if (!ret)
		ret = result_write(journal->doc, path);
	if (ret)
		log_error("cannot write the journal %s: %s", path, strerror(-ret));
	return ret;
}

/* Write one recorded text back and check it took. */
static int restore_file(struct sysroot *root, unsigned int number, const char *file,
			const char *text)
{
	struct cpuset want, now;
	int ret;

	ret = sysroot_write(root, text, "/proc/irq/%u/%s", number, file);
	if (ret || strcmp(file, "smp_affinity_list"))
		return ret;
	ret = sysroot_read_cpulist(root, &now, "/proc/irq/%u/smp_affinity_list", number);
	if (ret)
		return ret;
	if (cpuset_parse_list(text, &want) || !cpuset_equal(&want, &now))
		return -EIO;
	return 0;
}

static void restore_irq(struct sysroot *root, json_t *entry, struct irq_restore_report *report)
{
	unsigned int number = (unsigned int)json_integer_value(json_object_get(entry, "irq"));
	json_t *files = json_object_get(entry, "files"), *text;
	const char *name = json_string_value(json_object_get(entry, "name"));
	size_t i;
	int ret = 0;

	if (!sysroot_exists(root, "/proc/irq/%u/smp_affinity_list", number)) {
		log_warning("irq %u %s is gone: nothing to restore", number, name ? name : "");
		report->gone++;
		return;
	}
	/* smp_affinity_list first: it is the one the kernel acts on */
	for (i = 0; i < NR_IRQ_FILES && !ret; i++) {
		text = json_object_get(files, irq_files[i]);
		if (text)
			ret = restore_file(root, number, irq_files[i], json_string_value(text));
	}
	if (ret) {
		log_error("irq %u %s: cannot restore its affinity: %s", number, name ? name : "",
			  strerror(-ret));
		report->failed++;
		return;
	}
	report->restored++;
}

int irq_journal_restore(struct sysroot *root, const char *journal_path,
			struct irq_restore_report *report)
{
	struct irq_journal *journal;
	json_t *irqs, *entry, *text;
	size_t i;
	int ret;

	memset(report, 0, sizeof(*report));
	ret = irq_journal_load(root, journal_path, &journal);
	if (ret == -ENOENT)
		log_error("no journal %s: nothing to restore", journal_path);
	if (ret)
		return ret;
	irqs = json_object_get(journal->doc, "irqs");
	json_array_foreach(irqs, i, entry) restore_irq(root, entry, report);
	text = json_object_get(journal->doc, "default_smp_affinity");
	if (text) {
		ret = sysroot_write(root, json_string_value(text),
				    "/proc/irq/default_smp_affinity");
		if (ret) {
			log_error("cannot restore /proc/irq/default_smp_affinity: %s",
				  strerror(-ret));
			report->failed++;
		} else {
			report->default_restored = true;
		}
	}
	irq_journal_free(journal);
	if (report->failed) {
		log_error("journal %s kept: %u write%s failed", journal_path, report->failed,
			  report->failed == 1 ? "" : "s");
		return -EIO;
	}
	if (unlink(journal_path))
		log_warning("cannot remove the journal %s: %s", journal_path, strerror(errno));
	return 0;
}
