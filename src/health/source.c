/* Log sources for cmax health: a file, the /dev/kmsg ring, the journal.
 *
 * Speed matters here: a week of kernel log on a busy node is gigabytes of
 * noise around a handful of driver lines.  So the scan never looks at a
 * line without a marker: it jumps from one "NVRM: " / "SXid (" hit to the
 * next (next_marker: one vectorised pass for both) and parses only the
 * line around a hit.  Files are mapped, not copied; nothing is allocated per line. */
#include "health/health.h"
#include "core/argv.h"
#include "core/runner.h"
#include "core/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void add_event(struct xid_classifier *c, struct kmsg_event *ev, long long boot_epoch_us)
{
	if (!ev->has_wall && ev->has_mono && boot_epoch_us > 0) {
		ev->has_wall = 1;
		ev->wall = (boot_epoch_us + ev->mono_us) / 1000000;
	}
	xid_classifier_add(c, ev);
}

static int is_marker(const char *s, const char *e)
{
	return e - s >= 6 && (!memcmp(s, "NVRM: ", 6) || !memcmp(s, "SXid (", 6));
}

/* Start of the next "NVRM: " or "SXid (" at or after p, or NULL.  One pass
 * for both markers: 64 bytes at a time are compared against their second
 * bytes ('V', 'X', both rare in kernel text) with vector compares (GCC
 * vector extensions: SSE2 on x86-64, NEON on arm64, plain code elsewhere),
 * and only the candidates are checked in full. */
typedef signed char v16 __attribute__((vector_size(16)));

static const char *next_marker(const char *p, const char *e)
{
	const char *q = p + 1;
	const v16 vv = { 'V', 'V', 'V', 'V', 'V', 'V', 'V', 'V', 'V', 'V', 'V', 'V', 'V', 'V', 'V', 'V' };
	const v16 vx = { 'X', 'X', 'X', 'X', 'X', 'X', 'X', 'X', 'X', 'X', 'X', 'X', 'X', 'X', 'X', 'X' };

	if (p >= e)
		return NULL;
	while (e - q >= 64) {
		v16 a, b, c, d, m;
		memcpy(&a, q, 16);
		memcpy(&b, q + 16, 16);
		memcpy(&c, q + 32, 16);
		memcpy(&d, q + 48, 16);
		m = (a == vv) | (a == vx) | (b == vv) | (b == vx) | (c == vv) | (c == vx) |
		    (d == vv) | (d == vx);
		unsigned long long lo, hi;
		memcpy(&lo, &m, 8);
		memcpy(&hi, (char *)&m + 8, 8);
		if (lo | hi) {
			for (int i = 0; i < 64; i++)
				if ((q[i] == 'V' || q[i] == 'X') && is_marker(q + i - 1, e))
					return q + i - 1;
		}
		q += 64;
	}
	for (; q < e; q++)
		if ((*q == 'V' || *q == 'X') && is_marker(q - 1, e))
			return q - 1;
	return NULL;
}

size_t health_scan(struct xid_classifier *c, struct kmsg_ctx *ctx, const char *buf, size_t len,
		   int final, long long boot_epoch_us, size_t *events)
{
	const char *p = buf, *e = buf + len;
	const char *done = buf;	/* everything before it is consumed */
	struct kmsg_event ev;

	while (p < e) {
		const char *ls, *le, *m;
		if (ctx->pending_lines > 0) {
			/* inside a multi-line notice: every line counts */
			ls = p;
		} else {
			m = next_marker(p, e);
			if (!m)
				break;
			ls = m;
			while (ls > p && ls[-1] != '\n')
				ls--;
		}
		le = memchr(ls, '\n', (size_t)(e - ls));
		if (!le) {
			if (!final)
				return (size_t)(done - buf);
			le = e;
		}
		if (kmsg_parse_line_ctx(ctx, ls, (size_t)(le - ls), &ev) != KMSG_NONE) {
			add_event(c, &ev, boot_epoch_us);
			(*events)++;
		}
		p = le < e ? le + 1 : e;
		done = p;
	}
	if (final)
		return len;
	/* no more markers: consume up to the last complete line */
	const char *nl = e > done ? memrchr(done, '\n', (size_t)(e - done)) : NULL;
	return nl ? (size_t)(nl + 1 - buf) : (size_t)(done - buf);
}

char *hsrc_key(const struct hsrc *s)
{
	switch (s->kind) {
	case HSRC_KMSG:
		return xstrdup("kmsg");
	case HSRC_JOURNAL:
		return xstrdup("journal");
	case HSRC_FILE:
	default:
		return xasprintf("file:%s", s->path);
	}
}

/* ---- what can be a log ---- */

char *hsrc_not_a_log(const char *path, const struct stat *sb)
{
	unsigned maj = major(sb->st_rdev), min = minor(sb->st_rdev);

	switch (sb->st_mode & S_IFMT) {
	case S_IFREG:
		return NULL;
	case S_IFDIR:
		return xasprintf("%s is a directory, not a log file", path);
	case S_IFIFO:
		/* a pass would wait for the writer to close it: a
		 * HealthCheckProgram that never returns */
		return xasprintf("%s is a FIFO (named pipe): reading it blocks until its writer closes it; "
				 "cmax reads regular files", path);
	case S_IFSOCK:
		return xasprintf("%s is a socket, not a log file", path);
	case S_IFCHR:
		if (maj == 1 && min == 11)
			return xasprintf("%s is the kernel ring device: use --kmsg", path);
		return xasprintf("%s is a character device (%u:%u), not a log file: it has no end to read to "
				 "(the kernel ring is --kmsg)", path, maj, min);
	case S_IFBLK:
		return xasprintf("%s is a block device (%u:%u), not a log file", path, maj, min);
	default:
		return xasprintf("%s is not a regular file", path);
	}
}

int hsrc_scan_fd(int fd, const char *name, unsigned long long cap, struct xid_classifier *c,
		 struct hsrc_read *st, unsigned long long *off, char **err)
{
	size_t bufcap = 8u << 20, have = 0;
	unsigned long long total = 0;
	char *buf = xmalloc(bufcap);
	struct kmsg_ctx ctx = KMSG_CTX_INIT;
	int rc = 0;

	for (;;) {
		ssize_t n = read(fd, buf + have, bufcap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = xasprintf("%s: %s", name, strerror(errno));
			rc = -1;
			break;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		total += (unsigned long long)n;
		st->bytes += (size_t)n;
		size_t used = health_scan(c, &ctx, buf, have, 0, 0, &st->events);
		*off += used;
		memmove(buf, buf + used, have - used);
		have -= used;
		if (have == bufcap) {	/* one line longer than the buffer: drop it */
			*off += have;
			have = 0;
		}
		if (total >= cap) {
			*err = xasprintf("%s: more than %llu MiB in one pass without an end: not a log "
					 "(an unbounded stream?); stopped there", name, cap >> 20);
			rc = -1;
			break;
		}
	}
	free(buf);
	return rc;
}

/* ---- file ---- */

/* The file opened for reading, checked to be a log both before and after
 * the open; -1 with *err (and, for a missing file, the position reset). */
static int open_log(const struct hsrc *s, struct hsrc_pos *pos, struct hsrc_read *st, struct stat *sb, char **err)
{
	char *why;
	int fd;

	/* stat before open: opening a FIFO waits for a writer, opening a
	 * device may do things; neither is a log */
	if (stat(s->path, sb) < 0) {
		if (errno == ENOENT) {
			/* cannot see: say so.  Whatever appears later under the
			 * name is new, so the position starts again at 0. */
			st->absent = 1;
			st->vanished = pos->vanished || (pos->valid && (pos->dev || pos->ino));
			*err = st->vanished ?
				xasprintf("%s vanished (deleted, or rotated away and not replaced)", s->path) :
				xasprintf("%s: %s", s->path, strerror(ENOENT));
			pos->valid = 1;
			pos->vanished = st->vanished;
			pos->dev = pos->ino = 0;
			pos->offset = 0;
			return -1;
		}
		*err = xasprintf("%s: %s", s->path, strerror(errno));
		return -1;
	}
	if ((why = hsrc_not_a_log(s->path, sb))) {
		*err = why;
		return -1;
	}
	fd = open(s->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		*err = xasprintf("%s: %s", s->path, strerror(errno));
		return -1;
	}
	if (fstat(fd, sb) < 0) {
		*err = xasprintf("%s: %s", s->path, strerror(errno));
		close(fd);
		return -1;
	}
	if ((why = hsrc_not_a_log(s->path, sb))) {	/* replaced between stat and open */
		*err = why;
		close(fd);
		return -1;
	}
	return fd;
}

/* Where this pass starts: the remembered offset, unless the file was
 * replaced or truncated, --since reads it all, or --from-end skips it. */
static unsigned long long start_offset(const struct hsrc *s, struct hsrc_pos *pos, struct hsrc_read *st,
				       const struct stat *sb)
{
	pos->vanished = 0;
	unsigned long long size = (unsigned long long)sb->st_size, off = pos->offset;
	if (pos->valid && (pos->dev || pos->ino) &&
	    (pos->dev != (unsigned long long)sb->st_dev || pos->ino != (unsigned long long)sb->st_ino)) {
		st->rotated = 1;	/* a new file under the old name */
		off = 0;
	} else if (pos->valid && off > size) {
		st->rotated = 1;	/* truncated in place */
		off = 0;
	}
	if (s->from_start)
		off = 0;
	else if (!pos->valid && s->from_end)
		off = size, st->skipped = 1;
	pos->valid = 1;
	pos->dev = sb->st_dev;
	pos->ino = sb->st_ino;
	return off;
}

/* The new bytes through a mapping, at most cap of them. Returns 1 when
 * nothing was mapped (no new bytes, or a file mmap refuses): the caller
 * reads instead. Otherwise fd is closed. */
static int read_mapped(const struct hsrc *s, struct hsrc_pos *pos, struct xid_classifier *c, struct hsrc_read *st,
		       int fd, unsigned long long off, unsigned long long size, unsigned long long cap, char **err)
{
	struct kmsg_ctx ctx = KMSG_CTX_INIT;
	if (size <= off)
		return 1;
	/* at most cap bytes a pass (health.h, HSRC_STREAM_CAP) */
	unsigned long long end = size - off > cap ? off + cap : size;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long long base = off - off % (unsigned long long)pg;
	size_t maplen = (size_t)(end - base);
	char *map = mmap(NULL, maplen, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd,
			 (off_t)base);
	if (map == MAP_FAILED)
		return 1;
	madvise(map, maplen, MADV_SEQUENTIAL);
	size_t used = health_scan(c, &ctx, map + (off - base), (size_t)(end - off), 0,
				  0, &st->events);
	st->bytes += (size_t)(end - off);
	munmap(map, maplen);
	close(fd);
	if (end < size) {
		/* a window with no line end at all is no log line:
		 * skipped, so that the position always moves on */
		pos->offset = used ? off + used : end;
		st->more = 1;
		if (s->from_start)	/* it starts at 0 again every pass */
			*err = xasprintf("%s: %llu MiB, more than the %llu MiB one pass reads "
					 "(--read-cap); --since reads from the start on "
					 "every pass: raise --read-cap", s->path,
					 (size - off) >> 20, cap >> 20);
		else
			*err = xasprintf("%s: %llu MiB new since the last pass, more than the %llu MiB "
					 "one pass reads (--read-cap): read to offset %llu, the rest "
					 "is the next pass's", s->path, (size - off) >> 20, cap >> 20,
					 pos->offset);
		return -1;
	}
	pos->offset = off + used;
	return 0;
}

static int read_file(const struct hsrc *s, struct hsrc_pos *pos, struct xid_classifier *c,
		     struct hsrc_read *st, char **err)
{
	struct stat sb;
	int fd = open_log(s, pos, st, &sb, err);
	if (fd < 0)
		return -1;
	unsigned long long size = (unsigned long long)sb.st_size, off = start_offset(s, pos, st, &sb);
	unsigned long long cap = s->read_cap ? s->read_cap : HSRC_STREAM_CAP;
	int rc = read_mapped(s, pos, c, st, fd, off, size, cap, err);
	if (rc != 1)
		return rc;
	/* not mappable (procfs, an odd filesystem): large reads, capped,
	 * since such a file's size says nothing about where it ends */
	if (lseek(fd, (off_t)off, SEEK_SET) < 0 && off) {
		*err = xasprintf("%s: cannot seek: %s", s->path, strerror(errno));
		close(fd);
		return -1;
	}
	rc = hsrc_scan_fd(fd, s->path, cap, c, st, &off, err);
	pos->offset = off;
	close(fd);
	return rc;
}

/* ---- /dev/kmsg ---- */

/* The ring is char device 1:11.  Containers often mask it (/dev/null
 * bind-mounted over it, a link to /dev/console): reading that says
 * "nothing new" for ever, so anything else is a source that cannot be seen. */
static char *kmsg_not_the_ring(const char *path, int fd)
{
	struct stat sb;
	if (fstat(fd, &sb) < 0)
		return xasprintf("%s: %s", path, strerror(errno));
	if (!S_ISCHR(sb.st_mode) || major(sb.st_rdev) != 1 || minor(sb.st_rdev) != 11)
		return S_ISCHR(sb.st_mode) ?
			xasprintf("%s is character device %u:%u, not the kernel ring (1:11): masked "
				  "(a container?); use --journal or --log-file", path,
				  major(sb.st_rdev), minor(sb.st_rdev)) :
			xasprintf("%s is not a character device, not the kernel ring: masked (a "
				  "container?); use --journal or --log-file", path);
	return NULL;
}

int hsrc_kmsg_open(const char *path, char **err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	char *why;

	*err = NULL;
	if (fd < 0) {
		*err = errno == EPERM || errno == EACCES ?
			xasprintf("%s: %s (reading the ring needs root or CAP_SYSLOG while "
				  "kernel.dmesg_restrict=1)", path, strerror(errno)) :
			xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	if ((why = kmsg_not_the_ring(path, fd))) {
		*err = why;
		close(fd);
		return -1;
	}
	return fd;
}

static int read_kmsg(const struct hsrc *s, struct hsrc_pos *pos, struct xid_classifier *c,
		     struct hsrc_read *st, char **err)
{
	int fd = hsrc_kmsg_open(s->path, err);
	char rec[8192];
	struct kmsg_ctx ctx = KMSG_CTX_INIT;
	int judge = pos->valid || s->from_start, rc = 0;
	long long last = (pos->valid && !s->from_start) ? pos->seq : -1;

	if (fd < 0)
		return -1;
	if (!judge)
		st->skipped = 1;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten under us: go on with the next */
		if (n < 0 && errno == EAGAIN)
			break;		/* the end of the ring */
		if (n < 0) {
			*err = xasprintf("%s: %s", s->path, strerror(errno));
			rc = -1;
			break;
		}
		if (n == 0)
			break;
		st->bytes += (size_t)n;
		if (st->bytes >= (s->read_cap ? s->read_cap : HSRC_STREAM_CAP)) {
			*err = xasprintf("%s: more than %llu MiB in one pass: records arrive faster than "
					 "they are read; stopped there", s->path,
					 (s->read_cap ? s->read_cap : HSRC_STREAM_CAP) >> 20);
			rc = -1;
			break;
		}
		/* "prio,seq,ts,flags;message\n KEY=val\n": the sequence number is the position */
		const char *c1 = memchr(rec, ',', (size_t)n);
		long long seq = c1 ? strtoll(c1 + 1, NULL, 10) : -1;
		if (seq > pos->seq || !pos->valid)
			pos->seq = seq;
		if (!judge || (last >= 0 && seq <= last))
			continue;
		const char *nl = memchr(rec, '\n', (size_t)n);
		size_t l = nl ? (size_t)(nl - rec) : (size_t)n;
		struct kmsg_event ev;
		if (kmsg_parse_line_ctx(&ctx, rec, l, &ev) != KMSG_NONE) {
			add_event(c, &ev, s->boot_epoch_us);
			st->events++;
		}
	}
	close(fd);
	pos->valid = 1;
	return rc;
}

/* ---- journal ---- */

static int read_journal(const struct hsrc *s, struct hsrc_pos *pos, struct xid_classifier *c,
			struct hsrc_read *st, char **err)
{
	static const char *const base[] = { "journalctl", "-k", "-o", "short-iso", "--no-pager", "--show-cursor", NULL };
	struct argv_list a = { 0 };
	int judge = pos->valid || s->from_start;
	struct run_opts ro = { .timeout_ms = s->cmd_timeout_ms, .cap_out = HSRC_JOURNAL_CAP };
	struct cmd_result res;

	argv_add_all(&a, base);
	if (!judge) {
		argv_add(&a, "-n");	/* the newest entry only, for its cursor */
		argv_add(&a, "1");
		st->skipped = 1;
	} else if (pos->valid && pos->cursor[0] && !s->from_start) {
		argv_addf(&a, "--after-cursor=%s", pos->cursor);
	} else {
		argv_add(&a, "-b");
	}
	runner_run((const char *const *)a.v, &ro, &res);
	argv_free(&a);
	if (res.outcome != RUN_EXITED || res.exit_code != 0) {
		char *d = cmd_describe(&res);
		*err = xasprintf("journalctl: %s%s%.200s", d, res.err_len ? ": " : "",
				 res.err ? str_trim(res.err) : "");
		free(d);
		cmd_result_free(&res);
		return -1;
	}
	if (res.out_truncated) {
		/* the cursor is the last line: without it the pass cannot
		 * move on, and would judge the same entries again for ever */
		*err = xasprintf("journalctl: more than %u MiB in one pass: output cut at the cap, "
				 "position not advanced", HSRC_JOURNAL_CAP >> 20);
		cmd_result_free(&res);
		return -1;
	}
	st->bytes = res.out_len;
	/* the last line is "-- cursor: s=..." */
	char *cur = NULL;
	for (char *q = res.out; (q = strstr(q, "-- cursor: ")); q += 11)
		cur = q;
	size_t body = cur ? (size_t)(cur - res.out) : res.out_len;
	if (cur) {
		char *v = cur + 11, *nl = strchr(v, '\n');
		snprintf(pos->cursor, sizeof(pos->cursor), "%.*s",
			 (int)(nl ? nl - v : (long)strlen(v)), v);
	} else if (!(pos->valid && pos->cursor[0] && !s->from_start)) {
		/* no entry at all for -k (this boot's kernel messages): the
		 * kernel always logs at boot, so journald is not collecting
		 * the kernel log (ReadKMsg=no, a container) and nothing
		 * would ever be seen.  After a cursor, nothing new is normal. */
		*err = xstrdup("journalctl -k: no kernel messages in this boot's journal: journald is "
			       "not collecting the kernel log (ReadKMsg=no, a container?); use --kmsg "
			       "or --log-file");
		cmd_result_free(&res);
		return -1;
	}
	if (judge) {
		struct kmsg_ctx ctx = KMSG_CTX_INIT;
		health_scan(c, &ctx, res.out, body, 1, 0, &st->events);
	}
	pos->valid = 1;
	cmd_result_free(&res);
	return 0;
}

int hsrc_read(const struct hsrc *s, struct hsrc_pos *pos, struct xid_classifier *c,
	      struct hsrc_read *st, char **err)
{
	memset(st, 0, sizeof(*st));
	*err = NULL;
	switch (s->kind) {
	case HSRC_KMSG:
		return read_kmsg(s, pos, c, st, err);
	case HSRC_JOURNAL:
		return read_journal(s, pos, c, st, err);
	case HSRC_FILE:
	default:
		return read_file(s, pos, c, st, err);
	}
}
