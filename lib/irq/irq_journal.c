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
#include "latscope/sysroot.h"
#include "latscope/topology.h"

/*
 * The journal is a JSON document:
 * { "schema": "latscope-irq-journal/1", "root": "/", "created": "...",
 *   "default_smp_affinity": "3\n",
 *   "irqs": [ { "irq": 38, "name": "virtio2-input.0",
 *               "files": { "smp_affinity_list": "0-1\n" } }, ... ],
 *   "refused": [ { "irq": 61, "name": "nvme0q3", "to": 2, "error": "ENOSPC",
 *                  "reason": "No space left on device", "at": "..." } ] }
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
	/* restore checks it against the IRQ's action now */
	if (!json_is_string(json_object_get(entry, "name")))
		return "an IRQ without its name";
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

/* NULL when usable, else why not (in @buf when it names an entry) */
static const char *check_document(struct irq_journal *journal, struct sysroot *root, char *buf,
				  size_t size)
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
		number = -1;
		why = check_entry(entry, &number);
		if (why && number >= 0) {
			snprintf(buf, size, "irq %lld: %s", (long long)number, why);
			return buf;
		}
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
	char reason[128];
	struct stat st;
	const char *why;

	*result = NULL;
	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode)) {
		log_error("journal %s is a directory: name a file", path);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		log_error("journal %s is not a regular file: nothing is written", path);
		return -EINVAL;
	}
	/* what mktemp(1) makes: a journal with nothing in it yet */
	if (!st.st_size) {
		*result = irq_journal_new(root);
		return *result ? 0 : -ENOMEM;
	}
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
	why = check_document(journal, root, reason, sizeof(reason));
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

int irq_journal_record_refusal(struct irq_journal *journal, const struct irq_info *irq,
			       unsigned int to, int error)
{
	json_t *refused = json_object_get(journal->doc, "refused"), *entry;
	size_t i;

	if (!json_is_array(refused)) {
		refused = json_array();
		if (!refused || json_object_set_new(journal->doc, "refused", refused))
			return -ENOMEM;
	}
	/* one entry per IRQ: the latest refusal */
	for (i = 0; i < json_array_size(refused); i++)
		if (json_integer_value(json_object_get(json_array_get(refused, i), "irq")) ==
		    (json_int_t)irq->number) {
			json_array_remove(refused, i);
			break;
		}
	entry = json_pack("{s:i, s:s, s:i, s:s, s:s, s:o}", "irq", (json_int_t)irq->number, "name",
			  irq->name, "to", (json_int_t)to, "error",
			  strerrorname_np(error) ? strerrorname_np(error) : "?", "reason",
			  strerror(error), "at", now_text());
	if (!entry || json_array_append_new(refused, entry))
		return -ENOMEM;
	return 0;
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

int irq_journal_save(const struct irq_journal *journal, const char *path)
{
	int ret = result_write(journal->doc, path);

	if (ret)
		log_error("cannot write the journal %s: %s", path, strerror(-ret));
	return ret;
}

/*
 * Restore: check everything, then write. What to do with each entry is
 * decided before the first write, so a journal that cannot be restored as
 * a whole changes nothing.
 */
enum entry_action {
	ENTRY_WRITE,
	ENTRY_GONE, /* no /proc/irq/N any more */
	ENTRY_STALE, /* IRQ N has another action now */
	ENTRY_UNMOVABLE, /* the kernel does not let user space set it */
};

struct restore_check {
	struct sysroot *root;
	const char *journal_path;
	struct topology topo;
	struct irq_table table;
	enum entry_action *actions; /* one per journal entry */
	unsigned int invalid; /* values refused */
};

/* "a non-empty cpu list of possible CPUs": NULL when @text is one, else why not */
static const char *value_problem(const struct restore_check *c, const char *file, const char *text)
{
	bool list = strstr(file, "_list") != NULL;
	struct cpuset set;

	if ((list ? cpuset_parse_list(text, &set) : cpuset_parse_mask(text, &set)))
		return list ? "not a cpu list" : "not a cpu mask";
	if (cpuset_empty(&set))
		return "no cpu at all";
	if (!cpuset_subset(&set, &c->topo.possible))
		return "cpus that are not possible here";
	return NULL;
}

static void refuse_value(struct restore_check *c, const char *what, const char *file,
			 const char *text, const char *why)
{
	char possible[256];
	size_t len = strcspn(text, "\n");

	log_error("journal %s: %s %s '%.*s' has %s (possible cpus: %s)", c->journal_path, what,
		  file, (int)(len > 64 ? 64 : len), text, why,
		  cpuset_format_list(&c->topo.possible, possible, sizeof(possible)));
	c->invalid++;
}

static enum entry_action check_irq_entry(struct restore_check *c, json_t *entry)
{
	unsigned int number = (unsigned int)json_integer_value(json_object_get(entry, "irq"));
	const char *recorded = json_string_value(json_object_get(entry, "name"));
	json_t *files = json_object_get(entry, "files"), *text;
	const struct irq_info *now;
	const char *file, *why;
	char what[64];

	snprintf(what, sizeof(what), "irq %u", number);
	json_object_foreach(files, file, text)
	{
		why = value_problem(c, file, json_string_value(text));
		if (why)
			refuse_value(c, what, file, json_string_value(text), why);
	}
	if (!sysroot_exists(c->root, "/proc/irq/%u/smp_affinity_list", number))
		return ENTRY_GONE;
	/* an IRQ without action has no line in /proc/interrupts: no name */
	now = irq_table_find(&c->table, number);
	if (strcmp(recorded, now ? now->name : ""))
		return ENTRY_STALE;
	/* a write the kernel refuses: what it holds was never changed by one */
	if (now && now->has_affinity && !now->movable)
		return ENTRY_UNMOVABLE;
	return ENTRY_WRITE;
}

static int check_journal(struct restore_check *c, struct irq_journal *journal)
{
	json_t *irqs = json_object_get(journal->doc, "irqs"), *entry, *text;
	const char *why;
	size_t i;
	int ret;

	ret = topology_load(c->root, &c->topo);
	if (!ret)
		ret = irq_table_load(c->root, &c->table);
	if (ret) {
		log_error(
			"cannot read the cpus and irqs to check the journal %s against: %s: nothing is written",
			c->journal_path, sysroot_strerror(ret));
		return ret;
	}
	c->actions = calloc(json_array_size(irqs) + 1, sizeof(*c->actions));
	if (!c->actions)
		return -ENOMEM;
	json_array_foreach(irqs, i, entry) c->actions[i] = check_irq_entry(c, entry);
	text = json_object_get(journal->doc, "default_smp_affinity");
	if (text) {
		why = value_problem(c, "default_smp_affinity", json_string_value(text));
		if (why)
			refuse_value(c, "the", "default_smp_affinity", json_string_value(text),
				     why);
	}
	if (c->invalid) {
		log_error(
			"journal %s refused: %u value%s cannot be written back: nothing is written; look at it, then remove it",
			c->journal_path, c->invalid, c->invalid == 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
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
	json_t *files = json_object_get(entry, "files"), *text = NULL;
	const char *name = json_string_value(json_object_get(entry, "name"));
	size_t i;
	int ret = 0;

	/* smp_affinity_list first: it is the one the kernel acts on */
	for (i = 0; i < NR_IRQ_FILES && !ret; i++) {
		text = json_object_get(files, irq_files[i]);
		if (text)
			ret = restore_file(root, number, irq_files[i], json_string_value(text));
	}
	if (ret) {
		size_t len = strcspn(json_string_value(text), "\n");

		log_error("irq %u %s: cannot write %s '%.*s' back: %s%s", number, name,
			  irq_files[i - 1], (int)len, json_string_value(text),
			  sysroot_strerror(ret), ret == -EIO ? " (read back otherwise)" : "");
		report->failed++;
		return;
	}
	report->restored++;
}

static void restore_default(struct sysroot *root, json_t *text, struct irq_restore_report *report)
{
	size_t len = strcspn(json_string_value(text), "\n");
	int ret;

	ret = sysroot_write(root, json_string_value(text), "/proc/irq/default_smp_affinity");
	if (ret) {
		log_error("cannot write /proc/irq/default_smp_affinity '%.*s' back: %s", (int)len,
			  json_string_value(text), sysroot_strerror(ret));
		report->failed++;
		return;
	}
	report->default_restored = true;
}

static void name_skipped(const struct restore_check *c, json_t *irqs)
{
	json_t *entry;
	size_t i;

	json_array_foreach(irqs, i, entry)
	{
		unsigned int number =
			(unsigned int)json_integer_value(json_object_get(entry, "irq"));
		const char *name = json_string_value(json_object_get(entry, "name"));
		const struct irq_info *now;

		if (c->actions[i] == ENTRY_GONE)
			log_warning("irq %u %s is gone: nothing to restore", number, name);
		if (c->actions[i] == ENTRY_UNMOVABLE)
			log_warning("irq %u %s cannot be set from user space (%s): not written "
				    "back",
				    number, name,
				    irq_unmovable_why(irq_table_find(&c->table, number)));
		if (c->actions[i] != ENTRY_STALE)
			continue;
		now = irq_table_find(&c->table, number);
		log_error(
			"irq %u skipped: recorded as '%s', now '%s' (its number was reused or its device renamed it): not restored",
			number, name, now ? now->name : "");
	}
}

static void restore_check_release(struct restore_check *c)
{
	free(c->actions);
	irq_table_release(&c->table);
	topology_release(&c->topo);
}

int irq_journal_restore(struct sysroot *root, const struct irq_journal_lock *lock,
			struct irq_restore_report *report)
{
	const char *path = irq_journal_lock_journal(lock);
	struct restore_check c = { .root = root, .journal_path = path };
	struct irq_journal *journal;
	json_t *irqs, *entry, *text;
	size_t i;
	int ret;

	memset(report, 0, sizeof(*report));
	ret = irq_journal_load(root, path, &journal);
	if (ret == -ENOENT)
		log_error("no journal %s: nothing to restore", path);
	if (ret)
		return ret;
	irqs = json_object_get(journal->doc, "irqs");
	text = json_object_get(journal->doc, "default_smp_affinity");
	if (json_array_size(irqs) || text)
		ret = check_journal(&c, journal);
	if (ret) {
		restore_check_release(&c);
		irq_journal_free(journal);
		return ret;
	}
	name_skipped(&c, irqs);
	json_array_foreach(irqs, i, entry)
	{
		if (c.actions[i] == ENTRY_WRITE)
			restore_irq(root, entry, report);
		report->gone += c.actions[i] == ENTRY_GONE;
		report->stale += c.actions[i] == ENTRY_STALE;
		report->unmovable += c.actions[i] == ENTRY_UNMOVABLE;
	}
	if (text)
		restore_default(root, text, report);
	restore_check_release(&c);
	irq_journal_free(journal);
	if (report->failed || report->stale) {
		log_error("journal %s kept: %u write%s failed, %u irq%s skipped", path,
			  report->failed, report->failed == 1 ? "" : "s", report->stale,
			  report->stale == 1 ? "" : "s");
		return report->failed ? -EIO : -ESTALE;
	}
	if (unlink(path))
		log_warning("cannot remove the journal %s: %s", path, strerror(errno));
	return 0;
}
