#include "collect/collector.h"
#include "engine/context.h"
#include "core/interrupt.h"
#include "core/privilege.h"
#include "core/result.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define EXCERPT_MAX 1024

static col_runner_fn g_runner;

void col_set_runner(col_runner_fn fn)
{
	g_runner = fn;
}

int col_runner(const char *const argv[], const struct run_opts *o, struct cmd_result *res)
{
	/* After SIGINT/SIGTERM/SIGHUP a collector starts nothing new: the
	 * audit writes what it has (core/interrupt.h). */
	if (interrupt_pending()) {
		runner_refuse_interrupted(argv, res);
		return -1;
	}
	return g_runner ? g_runner(argv, o, res) : runner_run(argv, o, res);
}

int col_run_cmd(struct col_run *c, const char *const argv[], int timeout_ms, struct cmd_result *res)
{
	struct run_opts o = { .timeout_ms = timeout_ms };
	int rc = col_runner(argv, &o, res);
	/* A missing tool is a fact (absent), not evidence worth a row of noise,
	 * but it is still recorded so "why SKIP" can be answered. */
	json_array_append_new(c->evidence, cmd_evidence(res, EXCERPT_MAX));
	return rc;
}

int col_run_priv(struct audit_ctx *ctx, struct col_run *c, const char *const argv[], int timeout_ms,
		 struct cmd_result *res, char **why)
{
	/* the access collector makes the one decision and keeps its evidence
	 * (its own BMC read comes after it decided) */
	if (priv_get_mode() == PRIV_UNDECIDED)
		facts_get(ctx, "access", NULL);
	static const char *const dirs[] = { "/usr/sbin", "/usr/bin", "/sbin", "/bin", NULL };
	int found = 0;
	for (int i = 0; dirs[i] && !found; i++) {
		char *p = xasprintf("%s/%s", dirs[i], argv[0]);
		found = sr_exists(p);
		free(p);
	}
	if (!found) {
		*why = xasprintf("%s is not installed (not in /usr/sbin, /usr/bin, /sbin or /bin)", argv[0]);
		return -1;
	}
	struct run_opts o = { .timeout_ms = timeout_ms };
	if (interrupt_pending()) {
		*why = xstrdup("interrupted before it started");
		return -1;
	}
	if (priv_run(col_runner, argv, &o, res, why) != 0)
		return -1;
	json_array_append_new(c->evidence, cmd_evidence(res, EXCERPT_MAX));
	return 0;
}

void col_evidence_file(struct col_run *c, const char *path, const char *content)
{
	json_t *e = json_object();
	json_object_set_new(e, "kind", json_string("file"));
	json_object_set_new(e, "path", json_string(path));
	if (content) {
		char *x = str_excerpt(content, strlen(content), EXCERPT_MAX);
		json_object_set_new(e, "excerpt", json_string(x));
		free(x);
	} else {
		json_object_set_new(e, "excerpt", json_null());
		json_object_set_new(e, "readable", json_false());
	}
	json_array_append_new(c->evidence, e);
}

char *col_read(struct col_run *c, const char *path)
{
	char *s = sr_read_str(path);
	col_evidence_file(c, path, s);
	return s;
}

char *col_read_quiet(const char *path)
{
	return sr_read_str(path);
}

void col_evidence_note(struct col_run *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	json_array_append_new(c->evidence, evidence_note_v(fmt, ap));
	va_end(ap);
}

char *col_cmd_first_line(const struct cmd_result *r)
{
	const char *s = (r->err && *r->err) ? r->err : (r->out ? r->out : "");
	while (*s == '\n' || *s == ' ')
		s++;
	size_t n = strcspn(s, "\n");
	return str_sanitize(s, n > 240 ? 240 : n);
}

char *col_cmd_broke_why(const struct cmd_result *r)
{
	switch (r->outcome) {
	case RUN_SIGNALED:
		return xasprintf("%s: killed by signal %d", r->cmdline, r->term_signal);
	case RUN_TIMEOUT:
		return xasprintf("%s: no answer within %d ms, killed", r->cmdline, r->timeout_ms);
	case RUN_EXITED:
		if (r->out_truncated || r->err_truncated)
			return xasprintf("%s: printed more than the output cap (%zu bytes kept): garbage, not a version",
					 r->cmdline, r->out_len);
		if (r->exit_code > 128 && r->exit_code < 128 + 65)
			return xasprintf("%s: exit %d, a crash (signal %d)", r->cmdline, r->exit_code,
					 r->exit_code - 128);
		return xasprintf("%s: exit %d but no version in its output", r->cmdline, r->exit_code);
	default: {
		char *d = cmd_describe(r);
		char *s = xasprintf("%s: %s", r->cmdline, d);
		free(d);
		return s;
	}
	}
}

void fact_set_str(json_t *obj, const char *key, const char *val)
{
	if (!val) {
		json_object_set_new(obj, key, json_null());
		return;
	}
	char *s = str_sanitize(val, strlen(val));
	json_object_set_new(obj, key, json_string(s));
	free(s);
}

void fact_set_int(json_t *obj, const char *key, long long val)
{
	json_object_set_new(obj, key, json_integer(val));
}

void fact_set_bool(json_t *obj, const char *key, int val)
{
	json_object_set_new(obj, key, json_boolean(val));
}

void fact_set_null(json_t *obj, const char *key)
{
	json_object_set_new(obj, key, json_null());
}

long long col_pci_gpus(struct audit_ctx *ctx, const char *key, json_t **pci)
{
	enum col_state st;
	json_t *f = facts_get(ctx, "pci", &st);
	long long n;
	if (pci)
		*pci = f;
	if (!f || st != COL_OK || fact_int(f, key, &n) != 0)
		return -1;
	return n;
}

char *fact_join(const json_t *arr, const char *sep)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		sb_addf(&sb, "%s%s", i ? sep : "", json_string_value(v) ? json_string_value(v) : "?");
	return sb_detach(&sb);
}

void fact_add_unique(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;
	if (!s)
		return;
	json_array_foreach(arr, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return;
	json_array_append_new(arr, json_string(s));
}
