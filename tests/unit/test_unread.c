/* Unread is never FAIL, as a property of the whole fixture corpus.
 *
 * Every fixture host (tests/fixtures/hosts/<name>/) is audited in-process
 * once, as tests/cli/t-fixtures.sh runs it (--local, the host's env and
 * args, fakecmd alone on PATH): that is the baseline. Then every file a
 * collector read through the sysroot layer is replaced, one at a time,
 * with garbage (bytes that read but are no format anything parses) and,
 * separately, with an empty file; and so is the stdout of every recorded
 * tool invocation (cmd/<tool>/<n>/stdout). A check may become ERROR or
 * SKIP, or stay as it was; it may never turn FAIL from a non-FAIL
 * baseline, because an unread value is unknown, not a finding.
 * (Rows that turn PASS are counted and, with CMAX_UNREAD_VERBOSE=1,
 * listed: unread is never a PASS either, but this test asserts FAIL.)
 *
 * Speed (the suite runs it under ASan too): nothing is copied per
 * mutation. The sysroot layer replaces the one file in memory
 * (sr_set_override), remembers resolved paths and file contents
 * (sr_set_resolve_cache) and reports which collector read what
 * (sr_set_read_hook, facts_running); the commands of the baseline are
 * replayed from memory (col_set_runner) except the mutated tool's. Only the
 * collectors that read the mutated source run again, then, while some
 * collector's facts came out different, those that asked it for facts
 * (facts_set_dep_hook); then every check grades again. Devices of one kind
 * are one case: of files that differ only in numbers and PCI addresses,
 * read by the same collectors, under devices of the same PCI class (eight
 * GPUs' link-speed files), the first PER_KIND are mutated
 * (CMAX_UNREAD_ALL=1: every file).
 *
 * Hosts run in parallel, one child process each, up to one per CPU
 * (CMAX_UNREAD_JOBS=N to choose).
 *
 * usage: test_unread [HOST...]    (default: every host)
 *        CMAX_UNREAD_TIMING=1       per-mutation timings and kinds on stderr */
#include "tap.h"
#include "config.h"
#include "audit/baseline.h"
#include "audit/cli.h"
#include "engine/engine.h"
#include "checks/registry.h"
#include "collect/collector.h"
#include "engine/target.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "core/clock.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ALL_COLLECTORS UINT64_MAX

/* Bytes no parser of cmax accepts as data: control characters, invalid
 * UTF-8, no separator of any key/value format, no digits. */
static const char GARBAGE[] = "\x01\x7f cmax-garbage \xfe\xff ~~ ### \x1b[?! not-a-format\n\x02\x03 \xc3\x28 ~\n";

struct mutation_src {
	char *path;        /* virtual path (file) or cmd/<tool>/<rec> (tool output) */
	int is_tool;
	uint64_t readers;  /* collectors that read it (bit = collector_table index) */
	int skip;          /* another instance of the same kind of file stands for it */
};

struct host_run {
	const char *name;
	char *dir;             /* the host's fixture directory */
	char *tmp;             /* scratch: bin/, home/, per-child fake dirs */
	struct audit_ctx ctx;
	struct audit_plan plan;
	enum status *base;     /* baseline status per plan entry */
	char **base_summary;
	struct mutation_src *src;
	size_t nsrc, capsrc;
	uint64_t deps[64];     /* deps[i]: collectors that collector i asked for facts */
	char *minimums;
	char *baseline_path;   /* args --baseline: the host's stored run (audit/baseline.h) */
	struct baseline bl;
	long tool_timeout_s;
	int active;            /* args has --active: the host records the probes */
	char *fake_dir;        /* the host's own cmd/ */
	int failures;
	int pass_turns;
	int runs;              /* mutations graded again */
	int no_effect;         /* mutations no collector's outcome saw */
	int sampled_out;       /* files another of their kind stands for */
	int moved;             /* rows whose status a mutation changed at all */
};

static const char *g_srcdir, *g_fakecmd;
static int g_timing, g_verbose, g_all;
static const char *g_jobs_env; /* read before the fixture's environment replaces ours */
static struct host_run *g_host; /* for the hooks */
static char **g_env0;           /* the environment this test started with */

extern char **environ;

static void env_save(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	g_env0 = xcalloc(n + 1, sizeof *g_env0);
	for (size_t i = 0; i < n; i++)
		g_env0[i] = xstrdup(environ[i]);
}

static void env_restore(void)
{
	clearenv();
	for (size_t i = 0; g_env0[i]; i++) {
		char *eq = strchr(g_env0[i], '=');
		if (!eq)
			continue;
		char *k = xstrndup(g_env0[i], (size_t)(eq - g_env0[i]));
		setenv(k, eq + 1, 1);
		free(k);
	}
}

/* ---- replayed commands ----------------------------------------------------
 * Every command a collector runs is run for real once, in the baseline, and
 * its result replayed afterwards: the fixture's recordings do not change
 * between mutations, except the one tool whose output a mutation rewrote,
 * which runs again each time (g_fresh_tool). */
struct cmd_memo {
	char *key;
	int rc;
	struct cmd_result res;
};
static struct cmd_memo *g_memo;
static size_t g_nmemo, g_capmemo;
static const char *g_fresh_tool;

static char *memo_key(const char *const argv[], const struct run_opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%d %zu %zu", o ? o->timeout_ms : 0, o ? o->cap_out : 0, o ? o->cap_err : 0);
	for (size_t i = 0; argv[i]; i++)
		sb_addf(&sb, "\x1f%s", argv[i]);
	return sb_detach(&sb);
}

static void res_copy(struct cmd_result *to, const struct cmd_result *from)
{
	*to = *from;
	to->cmdline = from->cmdline ? xstrdup(from->cmdline) : NULL;
	to->path = from->path ? xstrdup(from->path) : NULL;
	to->out = NULL;
	to->err = NULL;
	if (from->out) {
		to->out = xmalloc(from->out_len + 1);
		memcpy(to->out, from->out, from->out_len + 1);
	}
	if (from->err) {
		to->err = xmalloc(from->err_len + 1);
		memcpy(to->err, from->err, from->err_len + 1);
	}
}

static void memo_clear(void)
{
	for (size_t i = 0; i < g_nmemo; i++) {
		free(g_memo[i].key);
		cmd_result_free(&g_memo[i].res);
	}
	free(g_memo);
	g_memo = NULL;
	g_nmemo = g_capmemo = 0;
}

static int replay_runner(const char *const argv[], const struct run_opts *o, struct cmd_result *res)
{
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (g_fresh_tool && strcmp(base, g_fresh_tool) == 0)
		return runner_run(argv, o, res);
	char *key = memo_key(argv, o);
	for (size_t i = 0; i < g_nmemo; i++)
		if (strcmp(g_memo[i].key, key) == 0) {
			free(key);
			res_copy(res, &g_memo[i].res);
			return g_memo[i].rc;
		}
	int rc = runner_run(argv, o, res);
	if (g_nmemo == g_capmemo) {
		g_capmemo = g_capmemo ? 2 * g_capmemo : 64;
		g_memo = xrealloc(g_memo, g_capmemo * sizeof *g_memo);
	}
	g_memo[g_nmemo].key = key;
	g_memo[g_nmemo].rc = rc;
	res_copy(&g_memo[g_nmemo].res, res);
	g_nmemo++;
	return rc;
}

static int col_index(const char *name)
{
	for (size_t i = 0; name && i < collector_table_len && i < 64; i++)
		if (strcmp(collector_table[i].name, name) == 0)
			return (int)i;
	return -1;
}

static void add_src(struct host_run *h, const char *path, int is_tool, uint64_t readers)
{
	for (size_t i = 0; i < h->nsrc; i++)
		if (h->src[i].is_tool == is_tool && strcmp(h->src[i].path, path) == 0) {
			h->src[i].readers |= readers;
			return;
		}
	if (h->nsrc == h->capsrc) {
		h->capsrc = h->capsrc ? 2 * h->capsrc : 64;
		h->src = xrealloc(h->src, h->capsrc * sizeof *h->src);
	}
	h->src[h->nsrc++] = (struct mutation_src){ xstrdup(path), is_tool, readers, 0 };
}

static void read_hook(const char *vpath, void *arg)
{
	(void)arg;
	int i = col_index(facts_running());
	add_src(g_host, vpath, 0, i < 0 ? ALL_COLLECTORS : (uint64_t)1 << i);
}

static void dep_hook(const char *from, const char *to, void *arg)
{
	(void)arg;
	int f = col_index(from), t = col_index(to);
	if (f >= 0 && t >= 0)
		g_host->deps[f] |= (uint64_t)1 << t;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_add(&sb, buf, n);
	fclose(f);
	return sb_detach(&sb);
}

static int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int rc = write(fd, data, len) == (ssize_t)len ? 0 : -1;
	close(fd);
	return rc;
}

/* rm -rf DIR (a scratch directory this test made) */
static void remove_tree(const char *dir)
{
	char *cmd = xasprintf("/bin/rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_unread: could not remove %s\n", dir);
	free(cmd);
}

/* The run's environment, as run_fixture() in tests/lib/tap.sh sets it. */
static void host_env(struct host_run *h, const char *fake_dir)
{
	const char *keep[] = { "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", NULL };
	char *saved[3] = { 0 };
	for (int i = 0; keep[i]; i++)
		saved[i] = getenv(keep[i]) ? xstrdup(getenv(keep[i])) : NULL;
	clearenv();
	for (int i = 0; keep[i]; i++)
		if (saved[i]) {
			setenv(keep[i], saved[i], 1);
			free(saved[i]);
		}
	char *p = xasprintf("%s/home", h->tmp);
	setenv("HOME", p, 1);
	free(p);
	p = xasprintf("%s/bin", h->tmp);
	setenv("PATH", p, 1);
	free(p);
	setenv("TZ", "UTC", 1);
	setenv("CMAX_FAKE_DIR", fake_dir, 1);
	p = xasprintf("%s/fake.log", h->tmp);
	setenv("CMAX_FAKE_LOG", p, 1);
	free(p);
	p = xasprintf("%s/data", g_srcdir);
	setenv("CMAX_DATADIR", p, 1);
	free(p);
	p = xasprintf("%s/env", h->dir);
	char *env = slurp(p);
	free(p);
	for (char *sv = NULL, *l = env ? strtok_r(env, "\n", &sv) : NULL; l; l = strtok_r(NULL, "\n", &sv)) {
		char *eq = strchr(l, '=');
		if (l[0] == '#' || !eq)
			continue;
		*eq = 0;
		setenv(l, eq + 1, 1);
	}
	free(env);
}

/* The per-host flags t-fixtures.sh passes (only those the corpus uses). */
static int host_args(struct host_run *h)
{
	char *p = xasprintf("%s/args", h->dir);
	char *a = slurp(p);
	free(p);
	h->tool_timeout_s = 0;
	h->minimums = NULL;
	int rc = 0;
	char *sv = NULL;
	for (char *w = a ? strtok_r(a, " \t\n", &sv) : NULL; w; w = strtok_r(NULL, " \t\n", &sv)) {
		if (!strcmp(w, "--active")) {
			h->active = 1;
			continue;
		}
		char *v = strtok_r(NULL, " \t\n", &sv);
		if (!v) {
			rc = -1;
			break;
		}
		if (!strcmp(w, "--tool-timeout"))
			h->tool_timeout_s = atol(v);
		else if (!strcmp(w, "--minimums"))
			h->minimums = v[0] == '/' ? xstrdup(v) : xasprintf("%s/%s", h->dir, v);
		else if (!strcmp(w, "--baseline"))
			h->baseline_path = v[0] == '/' ? xstrdup(v) : xasprintf("%s/%s", h->dir, v);
		else
			rc = -1;
	}
	free(a);
	return rc;
}

static void resolve_target(struct audit_ctx *ctx)
{
	char *err = NULL;
	target_resolve(ctx, TF_LOCAL, &err);
	free(err);
	json_t *os = facts_get(ctx, "os", NULL);
	free(ctx->hostname);
	ctx->hostname = xstrdup(fact_str(os, "hostname") ? fact_str(os, "hostname") : "unknown-host");
	int root = 0;
	ctx->is_root = fact_bool(os, "is_root", &root) == 0 && root;
}

/* The tools each collector ran, from the commands in its evidence. */
static void tool_sources(struct host_run *h)
{
	char *cmdroot = xasprintf("%s/cmd", h->dir);
	DIR *d = opendir(cmdroot);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		uint64_t readers = 0;
		for (size_t i = 0; i < collector_table_len && i < 64; i++) {
			struct col_run *c = &h->ctx.cols[i];
			size_t k;
			json_t *e;
			json_array_foreach(c->done ? c->evidence : NULL, k, e) {
				const char *cl = json_string_value(json_object_get(e, "command"));
				size_t n = cl ? strcspn(cl, " ") : 0;
				const char *base = cl ? memrchr(cl, '/', n) : NULL;
				base = base ? base + 1 : cl;
				if (cl && (size_t)(cl + n - base) == strlen(de->d_name) &&
				    !strncmp(base, de->d_name, strlen(de->d_name)))
					readers |= (uint64_t)1 << i;
			}
		}
		if (!readers)
			continue; /* recorded for another kind of run (fleet, bench) */
		char *td = xasprintf("%s/%s", cmdroot, de->d_name);
		DIR *rd = opendir(td);
		struct dirent *re;
		while (rd && (re = readdir(rd))) {
			if (re->d_name[0] == '.')
				continue;
			char *hang = xasprintf("%s/%s/hang", td, re->d_name);
			int hangs = access(hang, F_OK) == 0;
			free(hang);
			if (hangs)
				continue; /* never prints a thing that could be parsed */
			char *rel = xasprintf("cmd/%s/%s", de->d_name, re->d_name);
			add_src(h, rel, 1, readers);
			free(rel);
		}
		if (rd)
			closedir(rd);
		free(td);
	}
	if (d)
		closedir(d);
	free(cmdroot);
}

/* Copy the files of one recording directory (argv, stdout, exit, ...). */
static void copy_recording(const char *from, const char *to)
{
	mkdir(to, 0755);
	DIR *d = opendir(from);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *f = xasprintf("%s/%s", from, de->d_name), *t = xasprintf("%s/%s", to, de->d_name);
		char *data = slurp(f);
		if (data)
			write_file(t, data, strlen(data));
		free(data);
		free(f);
		free(t);
	}
	if (d)
		closedir(d);
}

/* A fake-command directory for one mutation: links to the host's
 * recordings, except the mutated tool, whose recordings are copied and the
 * one recording's stdout rewritten (and not repeated). */
static char *mutated_fake_dir(struct host_run *h, const char *rel, const char *content, size_t len, int n)
{
	char *dir = xasprintf("%s/fake.%d", h->tmp, n);
	mkdir(dir, 0755);
	char *tool = xstrdup(rel + 4); /* "cmd/" */
	char *rec = strchr(tool, '/');
	*rec++ = 0;
	char *cmdroot = xasprintf("%s/cmd", h->dir);
	DIR *d = opendir(cmdroot);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *from = xasprintf("%s/%s", cmdroot, de->d_name), *to = xasprintf("%s/%s", dir, de->d_name);
		if (strcmp(de->d_name, tool) == 0) {
			mkdir(to, 0755);
			DIR *rd = opendir(from);
			struct dirent *re;
			while (rd && (re = readdir(rd))) {
				if (re->d_name[0] == '.')
					continue;
				char *rf = xasprintf("%s/%s", from, re->d_name), *rt = xasprintf("%s/%s", to, re->d_name);
				copy_recording(rf, rt);
				free(rf);
				free(rt);
			}
			if (rd)
				closedir(rd);
		} else if (symlink(from, to) != 0) {
			perror(to);
		}
		free(from);
		free(to);
	}
	if (d)
		closedir(d);
	char *out = xasprintf("%s/%s/%s/stdout", dir, tool, rec);
	write_file(out, content, len);
	char *repeat = xasprintf("%s/%s/%s/repeat", dir, tool, rec);
	unlink(repeat);
	free(repeat);
	free(out);
	free(cmdroot);
	free(tool);
	return dir;
}

/* The baseline's run of the collectors a mutation runs again, kept aside. */
struct stash {
	struct col_run cols[64];
	uint64_t mask;
	struct target target;
	char *hostname;
	int is_root;
};

static void stash_add(struct host_run *h, struct stash *st, uint64_t mask)
{
	for (size_t i = 0; i < collector_table_len && i < 64; i++)
		if ((mask >> i) & 1 && !((st->mask >> i) & 1)) {
			st->cols[i] = h->ctx.cols[i];
			memset(&h->ctx.cols[i], 0, sizeof h->ctx.cols[i]); /* not done: runs on the next request */
			st->mask |= (uint64_t)1 << i;
		}
}

static void stash_init(struct host_run *h, struct stash *st)
{
	st->mask = 0;
	st->target = h->ctx.target;
	st->target.why = h->ctx.target.why ? xstrdup(h->ctx.target.why) : NULL;
	st->hostname = h->ctx.hostname ? xstrdup(h->ctx.hostname) : NULL;
	st->is_root = h->ctx.is_root;
}

static void stash_back(struct host_run *h, struct stash *st)
{
	for (size_t i = 0; i < collector_table_len && i < 64; i++)
		if ((st->mask >> i) & 1) {
			facts_forget(&h->ctx, collector_table[i].name);
			h->ctx.cols[i] = st->cols[i];
		}
	free(h->ctx.target.why);
	h->ctx.target = st->target;
	free(h->ctx.hostname);
	h->ctx.hostname = st->hostname;
	h->ctx.is_root = st->is_root;
}

/* Did the collector's run come out different from the baseline's? Checks
 * grade state, reason and facts; evidence excerpts only travel along. */
static int col_changed(const struct col_run *a, const struct col_run *b)
{
	return a->state != b->state || !json_equal(a->facts, b->facts) ||
	       strcmp(a->reason ? a->reason : "", b->reason ? b->reason : "") != 0;
}

/* Run the stashed collectors of `mask` again; the ones whose outcome changed. */
static uint64_t rerun(struct host_run *h, struct stash *st, uint64_t mask)
{
	uint64_t changed = 0;
	for (size_t i = 0; i < collector_table_len && i < 64; i++)
		if ((mask >> i) & 1) {
			facts_run(&h->ctx, collector_table[i].name);
		}
	for (size_t i = 0; i < collector_table_len && i < 64; i++)
		if ((mask >> i) & 1 && col_changed(&h->ctx.cols[i], &st->cols[i]))
			changed |= (uint64_t)1 << i;
	return changed;
}

/* One mutation: replace the source, run the collectors that read it again,
 * then, as long as some collector's outcome changed, those that asked it for
 * facts; grade and compare with the baseline. A mutation that changes no
 * collector's outcome cannot change a row and is not graded again. */
static void run_mutation(struct host_run *h, const struct mutation_src *s, const char *kind, const char *content,
			 size_t len, int seq)
{
	char *fake = NULL;
	char *tool = NULL;
	if (s->is_tool) {
		fake = mutated_fake_dir(h, s->path, content, len, seq);
		setenv("CMAX_FAKE_DIR", fake, 1);
		tool = xstrdup(s->path + 4); /* "cmd/<tool>/<rec>" */
		*strchr(tool, '/') = 0;
		g_fresh_tool = tool;
	} else {
		sr_set_override(s->path, content, len);
	}
	struct stash st;
	stash_init(h, &st);
	uint64_t os_bit = (uint64_t)1 << col_index("os"), xid_bit = (uint64_t)1 << col_index("xid");
	long t0 = clock_mono_ms();
	uint64_t todo = s->readers == ALL_COLLECTORS ? ((uint64_t)1 << collector_table_len) - 1 : s->readers;
	uint64_t changed_all = 0;
	while (todo) {
		stash_add(h, &st, todo);
		uint64_t changed = rerun(h, &st, todo);
		if (changed & os_bit) {
			resolve_target(&h->ctx);
			changed |= xid_bit; /* it reads ctx->is_root, which the os facts set */
		}
		changed_all |= changed;
		/* the collectors that asked a changed one for facts, not yet run again */
		todo = 0;
		for (size_t i = 0; i < collector_table_len && i < 64; i++)
			if (((h->deps[i] & changed) || (changed & xid_bit && (int)i == col_index("xid"))) &&
			    !((st.mask >> i) & 1) && h->ctx.cols[i].done)
				todo |= (uint64_t)1 << i;
	}
	if (changed_all) {
		struct audit_report rep;
		audit_run(&h->ctx, &h->plan, &rep);
		h->runs++;
		for (size_t i = 0; i < rep.n; i++) {
			enum status st0 = h->base[i], st1 = rep.results[i]->status;
			const char *sum = rep.results[i]->summary ? rep.results[i]->summary : "";
			h->moved += st0 != st1;
			if (st1 == ST_FAIL && st0 != ST_FAIL) {
				h->failures++;
				T_OK(0, "%s: %s %s: %s does not turn FAIL", h->name, s->path, kind, rep.results[i]->id);
				printf("#   %s -> FAIL: %s\n", status_name(st0), sum);
			} else if (st1 == ST_PASS && st0 != ST_PASS) {
				h->pass_turns++;
				if (g_verbose)
					printf("# note: %s: %s %s: %s %s -> PASS: %s\n", h->name, s->path, kind,
					       rep.results[i]->id, status_name(st0), sum);
			}
		}
		audit_report_release(&rep);
	} else {
		h->no_effect++;
	}
	if (g_timing)
		fprintf(stderr, "timing %ld %s %llx %llx\n", clock_mono_ms() - t0, s->path, (unsigned long long)st.mask,
			(unsigned long long)changed_all);
	stash_back(h, &st);
	g_fresh_tool = NULL;
	free(tool);
	if (s->is_tool) {
		setenv("CMAX_FAKE_DIR", h->fake_dir, 1);
		remove_tree(fake);
		free(fake);
	} else {
		sr_set_override(NULL, NULL, 0);
	}
}

/* The kind of file a path is: every PCI address, PCI domain and number in
 * it generalised ("/sys/class/infiniband/mlx5_3/ports/1/state" ->
 * ".../mlx#_#/ports/#/state"), plus the PCI class of the device directory
 * that holds it, so a GPU's link speed and a NIC's stay different kinds. */
static char *file_kind(const char *path, uint64_t readers)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%llx:", (unsigned long long)readers);
	for (const char *p = path; *p;) {
		unsigned a, b, c, d;
		int n = 0;
		if (sscanf(p, "%4x:%2x:%2x.%1x%n", &a, &b, &c, &d, &n) == 4 && n == 12) {
			sb_adds(&sb, "<bdf>");
			p += n;
		} else if (!strncmp(p, "pci", 3) && sscanf(p + 3, "%4x:%2x%n", &a, &b, &n) == 2 && n == 7) {
			sb_adds(&sb, "pci<domain:bus>");
			p += 3 + n;
		} else if (*p >= '0' && *p <= '9') {
			sb_adds(&sb, "#");
			while (*p >= '0' && *p <= '9')
				p++;
		} else {
			sb_add(&sb, p++, 1);
		}
	}
	const char *slash = strrchr(path, '/');
	if (slash && slash != path) {
		char *cls = xasprintf("%.*s/class", (int)(slash - path), path);
		char *v = strstr(path, "/sys/") ? sr_read_str(cls) : NULL;
		if (v)
			sb_addf(&sb, " class=%.6s", v); /* 0x0302..: the base class and subclass */
		free(v);
		free(cls);
	}
	return sb_detach(&sb);
}

/* Mutate at most PER_KIND files of one kind (CMAX_UNREAD_ALL=1: every
 * file): eight GPUs' link-speed files are read by the same code into the
 * same facts, and one mutated GPU shows what a mutated eighth would. */
#define PER_KIND 2
static void sample_kinds(struct host_run *h)
{
	char **kinds = xcalloc(h->nsrc + 1, sizeof *kinds);
	for (size_t i = 0; i < h->nsrc; i++) {
		if (h->src[i].is_tool)
			continue;
		kinds[i] = file_kind(h->src[i].path, h->src[i].readers);
		int same = 0;
		for (size_t j = 0; j < i; j++)
			same += kinds[j] && !strcmp(kinds[j], kinds[i]);
		h->src[i].skip = !g_all && same >= PER_KIND;
		if (g_timing)
			fprintf(stderr, "kind %s %s %s\n", h->src[i].skip ? "skip" : "keep", kinds[i], h->src[i].path);
		h->sampled_out += h->src[i].skip;
	}
	for (size_t i = 0; i < h->nsrc; i++)
		free(kinds[i]);
	free(kinds);
}

static void run_mutations(struct host_run *h)
{
	static const struct {
		const char *name;
		const char *data;
		size_t len;
	} kinds[] = {
		{ "garbage", GARBAGE, sizeof GARBAGE - 1 },
		{ "empty", "", 0 },
	};
	int seq = 0;
	for (size_t i = 0; i < h->nsrc; i++)
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && !h->src[i].skip; k++)
			run_mutation(h, &h->src[i], kinds[k].name, kinds[k].data, kinds[k].len, ++seq);
}

static int host_setup(struct host_run *h)
{
	char tmpl[] = "/tmp/cmax-unread.XXXXXX";
	if (!mkdtemp(tmpl))
		return -1;
	h->tmp = xstrdup(tmpl);
	char *p = xasprintf("%s/home", h->tmp);
	mkdir(p, 0700);
	free(p);
	char *cmd = xasprintf("%s/cmd", h->dir), *bin = xasprintf("%s/bin", h->tmp);
	char *mk = xasprintf("%s/tests/fakecmd/mkbin.sh", g_srcdir);
	char *line = xasprintf("'%s' '%s' '%s' '%s' >/dev/null", mk, cmd, g_fakecmd, bin);
	int rc = system(line);
	free(line);
	free(mk);
	free(cmd);
	free(bin);
	return rc == 0 ? 0 : -1;
}

static void host_free(struct host_run *h)
{
	for (size_t i = 0; i < h->nsrc; i++)
		free(h->src[i].path);
	free(h->src);
	for (size_t i = 0; i < h->plan.n; i++)
		free(h->base_summary[i]);
	free(h->base_summary);
	free(h->base);
	audit_plan_release(&h->plan);
	audit_free_policy(&h->ctx);
	audit_ctx_release(&h->ctx);
	if (h->tmp)
		remove_tree(h->tmp);
	free(h->tmp);
	free(h->minimums);
	free(h->baseline_path);
	baseline_release(&h->bl);
	free(h->fake_dir);
	free(h->dir);
}

static void run_host(const char *name)
{
	struct host_run h;
	memset(&h, 0, sizeof h);
	h.name = name;
	h.dir = xasprintf("%s/tests/fixtures/hosts/%s", g_srcdir, name);
	long t0 = clock_mono_ms();
	if (host_args(&h) != 0 || host_setup(&h) != 0) {
		T_OK(0, "%s: fixture set up (args understood, fake bin made)", name);
		host_free(&h);
		return;
	}
	h.fake_dir = xasprintf("%s/cmd", h.dir);
	host_env(&h, h.fake_dir);
	if (chdir(h.dir) != 0 || sysroot_set("root") != 0) {
		T_OK(0, "%s: sysroot root/ usable", name);
		host_free(&h);
		return;
	}
	sr_set_resolve_cache(1); /* the fixture tree does not change: mutations live in memory */
	runner_set_budget_ms(0);
	runner_set_tool_timeout_cap_ms((int)h.tool_timeout_s * 1000);

	/* the baseline, with the hooks listening */
	g_host = &h;
	col_set_runner(replay_runner);
	sr_set_read_hook(read_hook, NULL);
	facts_set_dep_hook(dep_hook, NULL);
	audit_ctx_init(&h.ctx, builtin_registry());
	h.ctx.now = clock_now();
	h.ctx.active = h.active;
	char *mins = h.minimums ? xstrdup(h.minimums) : xasprintf("%s/data/minimum-versions.json", g_srcdir);
	char *perr = NULL;
	enum cmax_err lrc = audit_load_policy(&h.ctx, mins, &perr);
	free(mins);
	if (lrc) {
		T_OK(0, "%s: policy files load: %s", name, perr ? perr : "?");
		free(perr);
	}
	resolve_target(&h.ctx);
	if (h.baseline_path) {
		char *berr = NULL;
		if (baseline_load(h.baseline_path, &h.bl, &berr) != CE_OK) {
			T_OK(0, "%s: --baseline loads: %s", name, berr ? berr : "?");
			free(berr);
		} else {
			h.ctx.baseline_facts = h.bl.facts;
			h.ctx.baseline_desc = h.bl.path;
		}
	}
	audit_plan_build(&h.plan, builtin_registry(), NULL);
	audit_plan_scope(&h.plan, SCOPE_HOST, 0);
	struct audit_report rep;
	audit_run(&h.ctx, &h.plan, &rep);
	sr_set_read_hook(NULL, NULL);
	facts_set_dep_hook(NULL, NULL);
	h.base = xcalloc(rep.n + 1, sizeof *h.base);
	h.base_summary = xcalloc(rep.n + 1, sizeof *h.base_summary);
	for (size_t i = 0; i < rep.n; i++) {
		h.base[i] = rep.results[i]->status;
		h.base_summary[i] = xstrdup(rep.results[i]->summary ? rep.results[i]->summary : "");
	}
	size_t nrows = rep.n;
	audit_report_release(&rep);
	if (g_timing) {
		for (size_t i = 0; i < collector_table_len; i++)
			if (h.ctx.cols[i].done)
				fprintf(stderr, "collector %s %ld ms\n", collector_table[i].name, h.ctx.cols[i].duration_ms);
		long t1 = clock_mono_ms();
		audit_run(&h.ctx, &h.plan, &rep);
		fprintf(stderr, "checks only: %ld ms\n", clock_mono_ms() - t1);
		audit_report_release(&rep);
	}
	size_t nfiles = h.nsrc;
	tool_sources(&h);
	sample_kinds(&h);
	T_OK(nrows > 0 && nfiles > 0, "%s: baseline audit graded %zu checks from %zu files read", name, nrows, nfiles);

	run_mutations(&h);
	long ms = clock_mono_ms() - t0;
	T_OK(h.failures == 0, "%s: no check turns FAIL when one of %zu files (%d more of the same kinds not mutated) "
	     "or %zu tool outputs is garbage or empty (%d graded again, %d without effect on any fact, %ld ms)", name,
	     nfiles - (size_t)h.sampled_out, h.sampled_out, h.nsrc - nfiles, h.runs, h.no_effect, ms);
	/* the machinery itself: mutations that reach no row would prove nothing */
	T_OK(h.moved > 0, "%s: the mutations reach the checks (%d row changes in all)", name, h.moved);
	if (h.pass_turns)
		printf("# %s: %d row(s) turned PASS under a mutation (CMAX_UNREAD_VERBOSE=1 lists them)\n", name,
		       h.pass_turns);
	col_set_runner(NULL);
	memo_clear();
	sr_set_resolve_cache(0);
	if (chdir("/") != 0)
		perror("chdir");
	sysroot_set(NULL);
	host_free(&h);
}

/* Hosts are independent: each runs in a child of its own (stdout into a
 * file), up to one per CPU (CMAX_UNREAD_JOBS), and the parent replays
 * their assertions in host order under its own numbering. */
struct host_job {
	pid_t pid;
	char *out;
	int status;
};

static void replay_host(const char *name, struct host_job *j)
{
	char *txt = slurp(j->out);
	for (char *sv = NULL, *l = txt ? strtok_r(txt, "\n", &sv) : NULL; l; l = strtok_r(NULL, "\n", &sv)) {
		int ok = strncmp(l, "ok ", 3) == 0;
		if (ok || strncmp(l, "not ok ", 7) == 0) {
			const char *d = strstr(l, " - ");
			T_OK(ok, "%s", d ? d + 3 : l);
		} else {
			printf("%s\n", l);
		}
	}
	free(txt);
	T_OK(WIFEXITED(j->status) && WEXITSTATUS(j->status) == 0, "%s: the host's run ended cleanly (%s %d)", name,
	     WIFSIGNALED(j->status) ? "signal" : "exit",
	     WIFSIGNALED(j->status) ? WTERMSIG(j->status) : WEXITSTATUS(j->status));
	unlink(j->out);
	free(j->out);
}

static void run_hosts(char **names, size_t n)
{
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	const char *e = g_jobs_env;
	if (e && *e)
		jobs = atol(e);
	if (jobs < 1)
		jobs = 1;
	if (jobs > 8)
		jobs = 8;
	struct host_job *j = xcalloc(n + 1, sizeof *j);
	size_t next = 0, running = 0, done = 0;
	fflush(stdout);
	while (done < n) {
		while (next < n && running < (size_t)jobs) {
			char tmpl[] = "/tmp/cmax-unread-out.XXXXXX";
			int fd = mkstemp(tmpl);
			if (fd < 0) {
				perror("mkstemp");
				exit(1);
			}
			j[next].out = xstrdup(tmpl);
			pid_t pid = fork();
			if (pid == 0) {
				dup2(fd, STDOUT_FILENO);
				close(fd);
				env_restore();
				run_host(names[next]);
				fflush(stdout);
				exit(0); /* exit, not _exit: LeakSanitizer checks the child too */
			}
			close(fd);
			if (pid < 0) {
				perror("fork");
				exit(1);
			}
			j[next].pid = pid;
			next++;
			running++;
		}
		int ws;
		pid_t p = wait(&ws);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			perror("wait");
			exit(1);
		}
		for (size_t i = 0; i < next; i++)
			if (j[i].pid == p) {
				j[i].status = ws;
				j[i].pid = 0;
				running--;
				done++;
			}
	}
	for (size_t i = 0; i < n; i++)
		replay_host(names[i], &j[i]);
	free(j);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	static char src[4096];
	const char *env = getenv("CMAX_SRCDIR") ? getenv("CMAX_SRCDIR") : getenv("SRCDIR");
	if (env && *env) {
		snprintf(src, sizeof src, "%s", env);
	} else {
		snprintf(src, sizeof src, "%s", CMAX_SRC_DATADIR);
		char *slash = strrchr(src, '/');
		if (slash)
			*slash = 0; /* .../data -> source root */
	}
	g_srcdir = src;
	env_save();
	g_timing = getenv("CMAX_UNREAD_TIMING") != NULL;
	g_verbose = getenv("CMAX_UNREAD_VERBOSE") != NULL;
	g_all = getenv("CMAX_UNREAD_ALL") != NULL;
	g_jobs_env = getenv("CMAX_UNREAD_JOBS");
	static char fk[4096];
	const char *b = getenv("BUILD");
	snprintf(fk, sizeof fk, "%s/fakecmd", b && *b ? b : CMAX_BUILDDIR);
	g_fakecmd = fk;

	char **names = NULL;
	size_t n = 0;
	if (argc > 1) {
		names = xcalloc((size_t)argc, sizeof *names);
		for (int i = 1; i < argc; i++)
			names[n++] = xstrdup(argv[i]);
	} else {
		char *hosts = xasprintf("%s/tests/fixtures/hosts", g_srcdir);
		DIR *d = opendir(hosts);
		struct dirent *de;
		size_t cap = 0;
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				names = xrealloc(names, cap * sizeof *names);
			}
			names[n++] = xstrdup(de->d_name);
		}
		if (d)
			closedir(d);
		free(hosts);
		qsort(names, n, sizeof *names, cmp_name);
	}
	T_OK(n > 0, "fixture hosts found under %s/tests/fixtures/hosts (%zu)", g_srcdir, n);
	run_hosts(names, n);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	for (size_t i = 0; g_env0[i]; i++)
		free(g_env0[i]);
	free(g_env0);
	return t_done();
}
