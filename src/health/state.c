/* The health agent's memory: one JSON file, one entry per log source,
 * {"version":1,"sources":{"file:/var/log/kern.log":{...}}}.  Several
 * agents may share it (Slurm's HealthCheckProgram and a `watch` on the same
 * node), so every read-modify-write holds an flock on FILE.lock and the
 * file is replaced by rename(2), never rewritten in place. */
#include "health/state.h"
#include "core/strbuf.h"
#include "core/outfile.h"
#include "core/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p of the directory part of path. */
static void mkparents(const char *path)
{
	char *d = xstrdup(path);
	for (char *p = d + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(d, 0755);
		*p = '/';
	}
	free(d);
}

int hstate_lock(const char *path)
{
	char *l = xasprintf("%s.lock", path);
	int fd;
	mkparents(l);
	struct stat st;
	if (lstat(l, &st) == 0 && !S_ISREG(st.st_mode)) {
		free(l);
		errno = EINVAL; /* a link, device or FIFO: not opened at all */
		return -1;
	}
	/* never through a planted symlink, never on a device or FIFO (the lock
	 * is only flock'd, but O_CREAT through a link would create its target) */
	fd = open(l, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	free(l);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	return fd;
}

void hstate_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* drops the flock */
}

static json_t *checked(json_t *s, const json_error_t *je, const char *path, char **err)
{
	if (!json_is_object(s) || !json_is_object(json_object_get(s, "sources"))) {
		/* a broken state file costs the position, not the agent */
		*err = xasprintf("%s: unreadable state (%s), starting afresh", path,
				 s ? "wrong shape" : je->text);
		json_decref(s);
		return json_pack("{s:i,s:{}}", "version", 1, "sources");
	}
	return s;
}

json_t *hstate_parse(const char *buf, size_t len, const char *name, char **err)
{
	json_error_t je;
	*err = NULL;
	return checked(json_loadb(buf, len, 0, &je), &je, name, err);
}

json_t *hstate_load(const char *path, char **err)
{
	char *text = NULL, *rerr = NULL;
	size_t len = 0;

	*err = NULL;
	if (access(path, F_OK) < 0)
		return json_pack("{s:i,s:{}}", "version", 1, "sources");
	/* the one input reader (core/readfile.h): capped, no device or FIFO hang */
	if (read_input(path, INPUT_STATE, &text, &len, &rerr)) {
		*err = xasprintf("%s: unreadable state, starting afresh", rerr);
		free(rerr);
		return json_pack("{s:i,s:{}}", "version", 1, "sources");
	}
	json_t *s = hstate_parse(text, len, path, err);
	free(text);
	return s;
}

/* core/outfile.h: a temporary file beside the state under a random name,
 * renamed over it; a device, symlink or directory at the path, or a
 * directory anyone can write, is refused (the caller exits 73). */
int hstate_save(const char *path, json_t *s, char **err)
{
	char *text = json_dumps(s, JSON_INDENT(1) | JSON_SORT_KEYS);
	int rc = 0;

	*err = NULL;
	mkparents(path);
	if (!text) {
		*err = xasprintf("cannot write %s: out of memory", path);
		return -1;
	}
	if (outfile_write(path, text, strlen(text), OUTFILE_REPLACE, err) != 0)
		rc = -1;
	free(text);
	return rc;
}

json_t *hstate_entry(json_t *s, const char *key)
{
	json_t *src = json_object_get(s, "sources"), *e = json_object_get(src, key);
	if (!json_is_object(e)) {
		e = json_object();
		json_object_set_new(src, key, e);
	}
	return e;
}

void hstate_get_pos(json_t *e, struct hsrc_pos *p)
{
	json_t *pos = json_object_get(e, "position");
	const char *c;

	memset(p, 0, sizeof(*p));
	p->seq = -1;
	if (!json_is_object(pos))
		return;
	p->valid = 1;
	p->dev = (unsigned long long)json_integer_value(json_object_get(pos, "dev"));
	p->ino = (unsigned long long)json_integer_value(json_object_get(pos, "inode"));
	p->offset = (unsigned long long)json_integer_value(json_object_get(pos, "offset"));
	if (json_is_integer(json_object_get(pos, "seq")))
		p->seq = json_integer_value(json_object_get(pos, "seq"));
	p->vanished = json_is_true(json_object_get(pos, "vanished"));
	if ((c = json_string_value(json_object_get(pos, "cursor"))))
		snprintf(p->cursor, sizeof(p->cursor), "%s", c);
}

void hstate_set_pos(json_t *e, const struct hsrc_pos *p)
{
	json_t *pos = json_object();
	json_object_set_new(pos, "dev", json_integer((json_int_t)p->dev));
	json_object_set_new(pos, "inode", json_integer((json_int_t)p->ino));
	json_object_set_new(pos, "offset", json_integer((json_int_t)p->offset));
	if (p->seq >= 0)
		json_object_set_new(pos, "seq", json_integer(p->seq));
	if (p->cursor[0])
		json_object_set_new(pos, "cursor", json_string(p->cursor));
	if (p->vanished)
		json_object_set_new(pos, "vanished", json_true());
	json_object_set_new(e, "position", pos);
}
