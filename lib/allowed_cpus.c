// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CPUs this process's cpuset allows, read from the cgroup file systems
 * the way the kernel finds them: /proc/self/cgroup names the process's
 * cgroup in each hierarchy, /proc/self/mountinfo where each hierarchy is
 * mounted, and the cpuset files of that cgroup (or of the nearest parent
 * that has them) the CPUs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/allowed_cpus.h"
#include "latscope/log.h"

#define CGROUP_PATH_MAX 4096

/* One hierarchy's line of /proc/self/cgroup. */
struct cgroup_line {
	bool found;
	char path[CGROUP_PATH_MAX]; /* the cgroup, from the namespace's root */
};

/* The cgroups that can hold the process's cpuset. */
struct cgroup_membership {
	struct cgroup_line v2; /* the "0::" line */
	struct cgroup_line v1_cpuset; /* a v1 hierarchy with the cpuset controller */
};

/* Where the process's cgroup of one hierarchy is, on this root. */
struct cgroup_place {
	char mount_point[CGROUP_PATH_MAX]; /* the walk up stops here */
	char dir[CGROUP_PATH_MAX]; /* the cgroup's directory, below the mount point */
	bool whole_tree; /* the mount shows the hierarchy from its root */
	bool noprefix; /* v1 mounted with noprefix: "cpus", not "cpuset.cpus" */
};

/* One read of the cpuset: where it goes wrong, in words, for the warning. */
struct cpuset_reading {
	struct sysroot *root;
	const struct cpuset *online;
	char why[CGROUP_PATH_MAX + 256];
};

static int give_up(struct cpuset_reading *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int give_up(struct cpuset_reading *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return err;
}

/* true when @word is one of the comma-separated words of @list */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *at;

	for (at = list; at; at = strchr(at, ',')) {
		if (*at == ',')
			at++;
		if (!strncmp(at, word, len) && (at[len] == ',' || at[len] == '\0'))
			return true;
	}
	return false;
}

/* "hierarchy-id:controllers:path"; the path may hold colons of its own */
static int parse_membership(struct cpuset_reading *r, char *text, struct cgroup_membership *m)
{
	unsigned int number = 0;
	char *line, *next, *controllers, *path;
	struct cgroup_line *target;

	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		number++;
		controllers = strchr(line, ':');
		path = controllers ? strchr(controllers + 1, ':') : NULL;
		if (!path || controllers == line || path[1] != '/' ||
		    strspn(line, "0123456789") != (size_t)(controllers - line))
			return give_up(r, -EINVAL, "line %u of /proc/self/cgroup is malformed",
				       number);
		*controllers++ = '\0';
		*path++ = '\0';
		if (!strcmp(line, "0") && !*controllers)
			target = &m->v2;
		else if (has_word(controllers, "cpuset"))
			target = &m->v1_cpuset;
		else
			continue;
		if (strlen(path) >= sizeof(target->path))
			return give_up(r, -ENAMETOOLONG, "line %u of /proc/self/cgroup is too long",
				       number);
		strcpy(target->path, path);
		target->found = true;
	}
	if (!number)
		return give_up(r, -EINVAL, "/proc/self/cgroup is empty");
	return 0;
}

/* A cgroup namespace shows a cgroup outside it as "/../..": no file names it. */
static bool outside_namespace(const char *path)
{
	const char *at;

	for (at = strstr(path, "/.."); at; at = strstr(at + 1, "/.."))
		if (at[3] == '/' || at[3] == '\0')
			return true;
	return false;
}

/* mountinfo escapes blanks and backslashes as \ooo: undo it in place */
static void unescape_octal(char *text)
{
	char *from = text, *to = text;

	while (*from) {
		if (from[0] == '\\' && from[1] >= '0' && from[1] <= '3' && from[2] >= '0' &&
		    from[2] <= '7' && from[3] >= '0' && from[3] <= '7') {
			*to++ = (char)((from[1] - '0') * 64 + (from[2] - '0') * 8 +
				       (from[3] - '0'));
			from += 4;
		} else {
			*to++ = *from++;
		}
	}
	*to = '\0';
}

/* The fields of a mountinfo line that say which hierarchy is where. */
struct mount_fields {
	char *root; /* the directory of the file system shown at the mount point */
	char *point;
	char *type;
	char *options; /* the super block's: a v1 hierarchy's controllers */
};

/*
 * "id parent major:minor root point options [optional...] - type source
 * super-options". Returns false when the line has not that shape.
 */
static bool split_mount_line(char *line, struct mount_fields *f)
{
	char *field, *save = NULL;
	unsigned int n = 0, after_dash = 0;

	memset(f, 0, sizeof(*f));
	for (field = strtok_r(line, " ", &save); field; field = strtok_r(NULL, " ", &save), n++) {
		if (n == 3)
			f->root = field;
		else if (n == 4)
			f->point = field;
		else if (n >= 6 && !after_dash && !strcmp(field, "-"))
			after_dash = 1;
		else if (after_dash)
			after_dash++;
		/* after the dash: the type, the source, the options */
		if (after_dash == 2)
			f->type = field;
		else if (after_dash == 4)
			f->options = field;
	}
	return f->root && f->point && f->type;
}

/*
 * The directory of @path in the mount of its hierarchy: a mount of a
 * subtree (a container's) shows the paths below its root.
 */
static bool place_in_mount(const struct mount_fields *f, const char *path,
			   struct cgroup_place *place)
{
	size_t root_len = strlen(f->root), point_len = strlen(f->point);
	const char *below;

	if (!strcmp(f->root, "/"))
		below = path;
	else if (!strncmp(path, f->root, root_len) &&
		 (path[root_len] == '/' || path[root_len] == '\0'))
		below = path + root_len;
	else
		return false;
	if (!strcmp(below, "/"))
		below = "";
	while (point_len > 0 && f->point[point_len - 1] == '/')
		point_len--;
	if (point_len >= sizeof(place->mount_point) ||
	    snprintf(place->dir, sizeof(place->dir), "%.*s%s", (int)point_len, f->point, below) >=
		    (int)sizeof(place->dir))
		return false;
	if (!place->dir[0])
		strcpy(place->dir, "/");
	memcpy(place->mount_point, f->point, point_len);
	place->mount_point[point_len] = '\0';
	place->whole_tree = !strcmp(f->root, "/");
	place->noprefix = f->options && has_word(f->options, "noprefix");
	return true;
}

/*
 * Where @path of the v2 hierarchy (@v2) or of the v1 cpuset hierarchy is
 * mounted. Returns 0, -ENOENT when no mount shows it, or -EINVAL for a line
 * the kernel would not write.
 */
static int find_place(struct cpuset_reading *r, char *mountinfo, bool v2, const char *path,
		      struct cgroup_place *place)
{
	struct mount_fields f;
	unsigned int number = 0;
	char *line, *next;

	for (line = mountinfo; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		number++;
		if (!split_mount_line(line, &f))
			return give_up(r, -EINVAL, "line %u of /proc/self/mountinfo is malformed",
				       number);
		if (v2 ? strcmp(f.type, "cgroup2") :
			 strcmp(f.type, "cgroup") || !f.options || !has_word(f.options, "cpuset"))
			continue;
		unescape_octal(f.root);
		unescape_octal(f.point);
		if (place_in_mount(&f, path, place))
			return 0;
	}
	return -ENOENT;
}

/*
 * The CPUs of the first of @files (NULL-terminated) found in the cgroup's
 * directory, else in its parent's, up to the mount point: the kernel gives
 * a cgroup without the controller its parent's cpuset, and a cpuset left
 * without an online CPU (hot-unplug) its parent's CPUs too. Returns 0,
 * -ENOENT when none holds one, or the error of a file that would not read.
 */
static int walk_up(struct cpuset_reading *r, struct cgroup_place *place, const char *const *files,
		   struct cpuset *cpus, const char **found)
{
	size_t top = strlen(place->mount_point), len = strlen(place->dir);
	unsigned int i;
	int ret;

	for (;;) {
		for (i = 0; files[i]; i++) {
			ret = sysroot_read_cpulist(r->root, cpus, "%s/%s", place->dir, files[i]);
			if (ret == -ENOENT)
				continue;
			if (ret)
				return give_up(r, ret, "cannot read %s/%s: %s", place->dir,
					       files[i], sysroot_strerror(ret));
			if (cpuset_intersects(cpus, r->online)) {
				*found = files[i];
				return 0;
			}
			log_debug("%s/%s names no online cpu: its parent's cpus apply", place->dir,
				  files[i]);
			break;
		}
		if (len <= top)
			return -ENOENT;
		while (len > top && place->dir[len - 1] != '/')
			len--;
		if (len > top)
			len--;
		place->dir[len] = '\0';
	}
}

static int read_cpuset(struct cpuset_reading *r, struct cpuset *cpus,
		       enum allowed_cpus_source *source)
{
	static const char *const v2_files[] = { "cpuset.cpus.effective", NULL };
	/* kernels older than effective_cpus have cpuset.cpus alone */
	static const char *const v1_files[] = { "cpuset.effective_cpus", "cpuset.cpus", NULL };
	static const char *const v1_noprefix_files[] = { "effective_cpus", "cpus", NULL };
	struct cgroup_membership *m;
	struct cgroup_place *place;
	const struct cgroup_line *line;
	const char *const *files;
	const char *found = NULL;
	char *text = NULL;
	bool v2;
	int ret;

	ret = sysroot_read_alloc(r->root, &text, NULL, "/proc/self/cgroup");
	if (ret == -ENOENT) {
		/* a kernel built without cgroups confines no process */
		*cpus = *r->online;
		*source = ALLOWED_CPUS_NO_CPUSET;
		return 0;
	}
	if (ret)
		return give_up(r, ret, "cannot read /proc/self/cgroup: %s", sysroot_strerror(ret));
	/* 8 KiB each, off the stack */
	m = calloc(1, sizeof(*m));
	place = calloc(1, sizeof(*place));
	if (!m || !place) {
		ret = give_up(r, -ENOMEM, "out of memory");
		goto out;
	}
	ret = parse_membership(r, text, m);
	free(text);
	text = NULL;
	if (ret)
		goto out;

	/* a controller is bound to one hierarchy: a v1 line naming cpuset has it */
	v2 = !m->v1_cpuset.found;
	line = v2 ? &m->v2 : &m->v1_cpuset;
	*source = v2 ? ALLOWED_CPUS_CGROUP2 : ALLOWED_CPUS_CGROUP1;
	if (!line->found) {
		*cpus = *r->online;
		*source = ALLOWED_CPUS_NO_CPUSET;
		goto out;
	}
	if (outside_namespace(line->path)) {
		ret = give_up(r, -ENOENT, "its cgroup %s is outside this cgroup namespace",
			      line->path);
		goto out;
	}
	ret = sysroot_read_alloc(r->root, &text, NULL, "/proc/self/mountinfo");
	if (ret) {
		ret = give_up(r, ret, "cannot read /proc/self/mountinfo: %s",
			      sysroot_strerror(ret));
		goto out;
	}
	ret = find_place(r, text, v2, line->path, place);
	if (ret == -ENOENT && !strcmp(line->path, "/")) {
		/* the root cpuset, not mounted here: nothing confines the process */
		*cpus = *r->online;
		*source = ALLOWED_CPUS_NO_CPUSET;
		ret = 0;
		goto out;
	}
	if (ret == -ENOENT)
		ret = give_up(r, ret, "its cgroup%s %s is in no mounted hierarchy", v2 ? " v2" : "",
			      line->path);
	if (ret)
		goto out;
	if (!sysroot_exists(r->root, "%s", place->dir)) {
		ret = give_up(r, -ENOENT, "its cgroup %s is not in %s", line->path,
			      place->mount_point);
		goto out;
	}

	files = v2 ? v2_files : place->noprefix ? v1_noprefix_files : v1_files;
	ret = walk_up(r, place, files, cpus, &found);
	if (!ret) {
		log_debug("the cpuset of this process: %s/%s", place->dir, found);
		goto out;
	}
	if (ret != -ENOENT)
		goto out;
	/*
	 * Up to the root of the hierarchy without a cpuset file: no cpuset
	 * controller on v2. The root has no cgroup.type; the root of a cgroup
	 * namespace does, and above it a cpuset this process cannot see may
	 * still confine it.
	 */
	if (v2 && place->whole_tree && !sysroot_exists(r->root, "%s/cgroup.type", place->dir)) {
		*cpus = *r->online;
		*source = ALLOWED_CPUS_NO_CPUSET;
		ret = 0;
		goto out;
	}
	ret = give_up(r, ret, "no %s from its cgroup %s up to %s", files[0], line->path,
		      place->mount_point);
out:
	free(text);
	free(place);
	free(m);
	return ret;
}

enum allowed_cpus_source allowed_cpus_read(struct sysroot *root, const struct cpuset *online,
					   const struct cpuset *affinity, struct cpuset *allowed)
{
	struct cpuset_reading r = { .root = root, .online = online };
	enum allowed_cpus_source source = ALLOWED_CPUS_NO_CPUSET;
	struct cpuset cpus;
	char list[256];

	if (read_cpuset(&r, &cpus, &source)) {
		cpuset_and(allowed, affinity, online);
		log_warning("cannot tell which cpus this process's cpuset allows (%s): taking its "
			    "affinity, %s",
			    r.why, cpuset_format_list(allowed, list, sizeof(list)));
		return ALLOWED_CPUS_AFFINITY;
	}
	/*
	 * The kernel keeps a task's affinity inside its cpuset: a CPU of the
	 * affinity the files left out was misread, and the process may use it
	 * whatever they say.
	 */
	cpuset_or(&cpus, &cpus, affinity);
	cpuset_and(allowed, &cpus, online);
	return source;
}
