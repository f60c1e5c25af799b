/* The one reader of whole input files (readfile.h; docs/inputs.md is the
 * user-facing table and must list the same kinds, caps and variables). */
#include "core/readfile.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/exitcodes.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)
/* Overrides are whole MiB from 1 MiB to 1 TiB: below 1 MiB no real input
 * fits, and above 1 TiB the cap no longer protects a login node's memory. */
#define OVERRIDE_MAX_MIB 1048576UL
#define GLOBAL_ENV "CMAX_MAX_INPUT_MB"
#define TIMEOUT_ENV "CMAX_INPUT_TIMEOUT_S"
/* Pipe and FIFO deadline, declared: what feeds cmax through a pipe is a
 * local command (zcat of rotated logs, sacctmgr, kubectl get events) that
 * ends within seconds to a minute; two minutes covers a slow sacctmgr on a
 * large cluster. Revisit if a documented producer is slower (raise it with
 * CMAX_INPUT_TIMEOUT_S). Regular files have no deadline: they end. */
#define PIPE_TIMEOUT_S 120
#define TIMEOUT_MAX_S 86400

/* One row per input kind: the name used in messages, the override suffix,
 * the default cap in MiB, whether "-" means standard input, and (in the
 * comment) the basis of the cap. Every basis is declared: no source
 * publishes a size for these files. */
static const struct kind_row {
	const char *what;
	const char *env;
	unsigned mib;
	int stdin_ok;
} kinds[INPUT__COUNT] = {
	/* Declared: one host's audit.results.json is 60-90 KiB (the fixture
	 * hosts under tests/fixtures/hosts), so a fleet audit of about 3,000
	 * nodes fits in 256 MiB; jansson's tree is a few times the text, so
	 * the cap keeps rate/accept/review near 1 GiB. Revisit for larger
	 * fleets in one document. */
	[INPUT_RESULTS] = { "result documents", "CMAX_MAX_INPUT_MB_RESULTS", 256, 0 },
	/* Declared: a month of slurmctld.log at the default level is tens to
	 * a few hundred MiB on large clusters; sacctmgr event lists and kubectl
	 * event dumps are far smaller. sla holds the text and its records
	 * (about twice the file). Revisit for a site whose monthly log is
	 * larger (or grep the node-state lines first). */
	[INPUT_EVENTS] = { "event histories", "CMAX_MAX_INPUT_MB_EVENTS", 512, 1 },
	/* Declared: the largest policy file shipped in data/ is 80 KiB
	 * (xid-catalog.json); 16 MiB is 200 times that and bounds the YAML
	 * parser's tree. It was yamljson's own cap before this table. */
	[INPUT_POLICY] = { "policy files", "CMAX_MAX_INPUT_MB_POLICY", 16, 0 },
	/* Declared: the shipped table is 28 KiB; 4 MiB is the cap minimums.c
	 * applied before this table, kept so a wrong path cannot eat memory. */
	[INPUT_MINIMUMS] = { "minimum-version tables", "CMAX_MAX_INPUT_MB_MINIMUMS", 4, 0 },
	/* Declared: health's state holds one offset per log source and the
	 * pending drains, a few KiB; 16 MiB is far above any real state. */
	[INPUT_STATE] = { "health state files", "CMAX_MAX_INPUT_MB_STATE", 16, 0 },
	/* Declared: recordings are small test fixtures; 64 MiB was replay.c's
	 * bound for a recorded output before this table. */
	[INPUT_RECORDING] = { "scheduler recordings", "CMAX_MAX_INPUT_MB_RECORDING", 64, 0 },
	/* Declared: an AWS credentials file is a few hundred bytes per
	 * profile; 1 MiB was bench s3's cap before this table. */
	[INPUT_CREDENTIALS] = { "credentials files", "CMAX_MAX_INPUT_MB_CREDENTIALS", 1, 0 },
};

/* A variable's value as a whole number in [1, max]; 0 when unset or empty,
 * -1 when malformed. */
static long env_number(const char *name, unsigned long max)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return 0;
	if (*s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || errno || v < 1 || v > max)
		return -1;
	return (long)v;
}

char *input_limits_check(void)
{
	for (int k = 0; k <= INPUT__COUNT; k++) {
		const char *name = k < INPUT__COUNT ? kinds[k].env : GLOBAL_ENV;
		if (env_number(name, OVERRIDE_MAX_MIB) < 0)
			return xasprintf("%s=%s: not a whole number of MiB from 1 to %lu (docs/inputs.md)", name,
					 getenv(name), OVERRIDE_MAX_MIB);
	}
	if (env_number(TIMEOUT_ENV, TIMEOUT_MAX_S) < 0)
		return xasprintf("%s=%s: not a whole number of seconds from 1 to %d (docs/inputs.md)", TIMEOUT_ENV,
				 getenv(TIMEOUT_ENV), TIMEOUT_MAX_S);
	return NULL;
}

static size_t cap_mib(enum input_kind kind)
{
	long v = env_number(kinds[kind].env, OVERRIDE_MAX_MIB);
	if (v <= 0)
		v = env_number(GLOBAL_ENV, OVERRIDE_MAX_MIB);
	return v > 0 ? (size_t)v : kinds[kind].mib;
}

size_t input_cap(enum input_kind kind)
{
	return cap_mib(kind) * MIB;
}

static int pipe_timeout_ms(void)
{
	long v = env_number(TIMEOUT_ENV, TIMEOUT_MAX_S);
	return (int)((v > 0 ? v : PIPE_TIMEOUT_S) * 1000);
}

static const char *type_name(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a file";
}

enum rd { RD_OK, RD_OPEN, RD_TYPE, RD_BIG, RD_IO, RD_TIME };

struct rd_out {
	struct strbuf sb;
	mode_t mode; /* RD_TYPE */
	int eno;     /* RD_OPEN, RD_IO */
};

/* Reads path (or standard input for "-" when use_stdin) into o->sb: at
 * most limit bytes; without truncate, more than limit is RD_BIG. */
static enum rd rd_read(const char *path, int use_stdin, size_t limit, int truncate, struct rd_out *o)
{
	struct stat st;
	int fd, own = 1;

	if (use_stdin && !strcmp(path, "-")) {
		fd = STDIN_FILENO;
		own = 0;
	} else {
		/* refused before open(): opening a device can itself act (a tape
		 * rewinds, a serial line waits for carrier) */
		if (stat(path, &st) < 0) {
			o->eno = errno;
			return RD_OPEN;
		}
		if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
			o->mode = st.st_mode;
			return RD_TYPE;
		}
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			o->eno = errno;
			return RD_OPEN;
		}
	}
	enum rd r = RD_OK;
	if (fstat(fd, &st) < 0) {
		o->eno = errno;
		r = errno == EBADF ? RD_OPEN : RD_IO;
		goto out;
	}
	/* the authoritative check: what was opened, whatever the name said */
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		o->mode = st.st_mode;
		r = RD_TYPE;
		goto out;
	}
	int is_pipe = S_ISFIFO(st.st_mode);
	if (!is_pipe && !truncate && st.st_size > 0 && (unsigned long long)st.st_size > limit) {
		r = RD_BIG;
		goto out;
	}
	long long deadline = is_pipe ? clock_mono_ms() + pipe_timeout_ms() : 0;
	size_t want = truncate ? limit : limit + 1;
	/* a regular file's size is known: one allocation, not doubling past it */
	if (!is_pipe && st.st_size > 0 && !o->sb.buf) {
		size_t sz = (unsigned long long)st.st_size < want ? (size_t)st.st_size : want;
		o->sb.buf = xmalloc(sz + 2);
		o->sb.cap = sz + 2;
		o->sb.buf[0] = 0;
	}
	char buf[65536];
	while (o->sb.len < want) {
		if (is_pipe) {
			/* poll first: a FIFO with no writer yet, or a writer that keeps
			 * it open and silent, waits here, never past the deadline */
			long long left = deadline - clock_mono_ms();
			if (left <= 0) {
				r = RD_TIME;
				break;
			}
			struct pollfd p = { .fd = fd, .events = POLLIN };
			int pr = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
			if (pr < 0 && errno != EINTR) {
				o->eno = errno;
				r = RD_IO;
				break;
			}
			if (pr <= 0)
				continue;
		}
		size_t ask = want - o->sb.len < sizeof buf ? want - o->sb.len : sizeof buf;
		ssize_t n = read(fd, buf, ask);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			o->eno = errno;
			r = RD_IO;
			break;
		}
		if (n == 0)
			break;
		sb_add(&o->sb, buf, (size_t)n);
	}
	if (r == RD_OK && !truncate && o->sb.len > limit)
		r = RD_BIG;
out:
	if (own)
		close(fd);
	return r;
}

enum cmax_err read_input(const char *path, enum input_kind kind, char **data, size_t *len, char **err)
{
	*data = NULL;
	*err = NULL;
	if (len)
		*len = 0;
	if ((unsigned)kind >= INPUT__COUNT) {
		*err = xasprintf("%s: internal error: unknown input kind %d", path, (int)kind);
		return CE_INTERNAL;
	}
	char *bad = input_limits_check();
	if (bad) {
		*err = bad;
		return CE_USAGE;
	}
	const struct kind_row *k = &kinds[kind];
	int use_stdin = k->stdin_ok;
	const char *name = use_stdin && !strcmp(path, "-") ? "standard input" : path;
	size_t mib = cap_mib(kind);
	struct rd_out o = { STRBUF_INIT, 0, 0 };
	enum rd r = rd_read(path, use_stdin, mib * MIB, 0, &o);
	enum cmax_err rc = CE_DATA;
	switch (r) {
	case RD_OK:
		sb_add(&o.sb, "", 0);
		if (len)
			*len = o.sb.len;
		*data = o.sb.buf ? sb_detach(&o.sb) : xstrdup("");
		return CE_OK;
	case RD_OPEN:
		*err = xasprintf("%s: %s", name, strerror(o.eno));
		rc = CE_NOINPUT;
		break;
	case RD_TYPE:
		*err = xasprintf("%s: %s, not a regular file", name, type_name(o.mode));
		break;
	case RD_BIG:
		*err = xasprintf("%s: larger than the %zu MiB cap for %s (raise it with %s=N or %s=N, in MiB)", name,
				 mib, k->what, k->env, GLOBAL_ENV);
		break;
	case RD_IO:
		*err = xasprintf("%s: read error: %s", name, strerror(o.eno));
		break;
	case RD_TIME:
		*err = xasprintf("%s: a pipe that did not end within %d s (raise it with %s=N, in seconds)", name,
				 pipe_timeout_ms() / 1000, TIMEOUT_ENV);
		break;
	}
	sb_free(&o.sb);
	return rc;
}

char *read_file_capped(const char *path, size_t cap, size_t *len)
{
	struct rd_out o = { STRBUF_INIT, 0, 0 };
	enum rd r = rd_read(path, 0, cap, 1, &o);
	if (r != RD_OK) {
		sb_free(&o.sb);
		errno = r == RD_TYPE ? (S_ISDIR(o.mode) ? EISDIR : ENODEV) : r == RD_TIME ? ETIMEDOUT : o.eno;
		return NULL;
	}
	sb_add(&o.sb, "", 0);
	if (len)
		*len = o.sb.len;
	return o.sb.buf ? sb_detach(&o.sb) : xstrdup("");
}

int read_input_or_say(const char *cmd, const char *path, enum input_kind kind, char **data, size_t *len)
{
	char *err = NULL;
	enum cmax_err e = read_input(path, kind, data, len, &err);
	if (!e)
		return 0;
	fprintf(stderr, "cmax %s: %s\n", cmd, ts_str(err));
	free(err);
	return exit_code_for(e);
}
