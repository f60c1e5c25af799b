/* The facts cache: each collector runs once, on first demand. */
#include "engine/context.h"
#include "core/clock.h"
#include "core/strbuf.h"
#include "core/interrupt.h"
#include "core/runner.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Which collector is running (innermost first), for the test hooks. */
#define RUN_DEPTH 16
static const char *g_running[RUN_DEPTH];
static int g_depth;
static facts_dep_hook_fn g_dep_hook;
static void *g_dep_hook_arg;

const char *facts_running(void)
{
	return g_depth > 0 && g_depth <= RUN_DEPTH ? g_running[g_depth - 1] : NULL;
}

void facts_set_dep_hook(facts_dep_hook_fn fn, void *arg)
{
	g_dep_hook = fn;
	g_dep_hook_arg = arg;
}

void facts_forget(struct audit_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->reg->n_collectors; i++) {
		if (strcmp(ctx->reg->collectors[i].name, name) != 0)
			continue;
		struct col_run *c = &ctx->cols[i];
		free(c->reason);
		json_decref(c->facts);
		json_decref(c->evidence);
		memset(c, 0, sizeof *c);
	}
}

struct col_run *facts_run(struct audit_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->reg->n_collectors; i++) {
		if (strcmp(ctx->reg->collectors[i].name, name) != 0)
			continue;
		struct col_run *c = &ctx->cols[i];
		if (g_dep_hook && facts_running())
			g_dep_hook(facts_running(), ctx->reg->collectors[i].name, g_dep_hook_arg);
		if (!c->done) {
			c->name = ctx->reg->collectors[i].name;
			c->facts = json_object();
			c->evidence = json_array();
			c->state = COL_OK;
			c->done = 1; /* set first: a collector may ask for another, never itself */
			long t0 = clock_mono_ms();
			if (interrupt_pending())
				col_set_state(c, COL_FAILED, "not run: the audit was interrupted (%s)",
					      interrupt_signal_name(interrupt_signal()));
			else if (runner_budget_exhausted())
				col_set_state(c, COL_FAILED, "not run: the --timeout budget was spent");
			else {
				if (g_depth < RUN_DEPTH)
					g_running[g_depth] = ctx->reg->collectors[i].name;
				g_depth++;
				ctx->reg->collectors[i].fn(ctx, c);
				g_depth--;
			}
			c->duration_ms = clock_mono_ms() - t0;
		}
		return c;
	}
	return NULL;
}

json_t *facts_get(struct audit_ctx *ctx, const char *name, enum col_state *state)
{
	struct col_run *c = facts_run(ctx, name);
	if (!c) {
		if (state)
			*state = COL_FAILED;
		return NULL;
	}
	if (state)
		*state = c->state;
	return c->facts;
}

json_t *fact_get(const json_t *facts, const char *path)
{
	if (!facts)
		return NULL;
	const json_t *cur = facts;
	const char *p = path;
	while (cur && *p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		char key[128];
		if (n >= sizeof key)
			return NULL;
		memcpy(key, p, n);
		key[n] = 0;
		if (json_is_array(cur)) {
			char *end;
			long idx = strtol(key, &end, 10);
			cur = (*end == 0 && idx >= 0) ? json_array_get(cur, (size_t)idx) : NULL;
		} else {
			cur = json_object_get(cur, key);
		}
		p += n;
		if (*p == '.')
			p++;
	}
	return (json_t *)cur;
}

const char *fact_str(const json_t *facts, const char *path)
{
	return json_string_value(fact_get(facts, path));
}

int fact_int(const json_t *facts, const char *path, long long *out)
{
	json_t *v = fact_get(facts, path);
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (json_is_real(v)) {
		*out = (long long)json_real_value(v);
		return 0;
	}
	return -1;
}

int fact_real(const json_t *facts, const char *path, double *out)
{
	json_t *v = fact_get(facts, path);
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	return -1;
}

int fact_bool(const json_t *facts, const char *path, int *out)
{
	json_t *v = fact_get(facts, path);
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return 0;
	}
	return -1;
}

double threshold(struct audit_ctx *ctx, const char *path, double dflt)
{
	double v;
	if (ctx->thresholds && fact_real(ctx->thresholds, path, &v) == 0)
		return v;
	return dflt;
}

const struct probe_def *probe_find(const struct audit_ctx *ctx, const char *check_id)
{
	for (size_t i = 0; ctx->reg && i < ctx->reg->n_probes; i++)
		if (strcmp(ctx->reg->probes[i].check_id, check_id) == 0)
			return &ctx->reg->probes[i];
	return NULL;
}

long probe_budget_ms(const struct audit_ctx *ctx, const char *check_id)
{
	const struct probe_def *p = probe_find(ctx, check_id);
	if (!p)
		return 0;
	/* the key is the check id, dots and all: no dotted-path lookup */
	json_t *v = json_object_get(json_object_get(json_object_get(ctx->thresholds, "probes"), "budget_s"), check_id);
	if (json_is_number(v) && json_number_value(v) > 0)
		return (long)(json_number_value(v) * 1000);
	return (long)p->budget_s * 1000;
}

size_t fleet_node_count(const struct audit_ctx *ctx)
{
	return ctx->fleet ? json_array_size(ctx->fleet) : 0;
}

const char *fleet_node_name(const struct audit_ctx *ctx, size_t i)
{
	return json_string_value(json_object_get(json_array_get(ctx->fleet, i), "host"));
}

int fleet_node_answered(const struct audit_ctx *ctx, size_t i)
{
	return json_is_true(json_object_get(json_array_get(ctx->fleet, i), "answered"));
}

static int state_parse(const char *s, enum col_state *st)
{
	static const char *const n[] = { "ok", "absent", "denied", "failed" };
	for (int i = 0; i < 4; i++)
		if (s && !strcmp(s, n[i])) {
			*st = (enum col_state)i;
			return 0;
		}
	return -1;
}

json_t *fleet_node_facts(const struct audit_ctx *ctx, size_t i, const char *collector, enum col_state *state)
{
	json_t *node = json_array_get(ctx->fleet, i);
	json_t *c = json_object_get(json_object_get(json_object_get(node, "doc"), "facts"), collector);
	enum col_state st = COL_FAILED;
	if (!c || state_parse(json_string_value(json_object_get(c, "state")), &st) != 0) {
		if (state)
			*state = COL_FAILED;
		return NULL;
	}
	if (state)
		*state = st;
	return json_object_get(c, "facts");
}

/* The one way a collector run gets its state and reason (the engine and
 * the collectors both set it). */
void col_set_state(struct col_run *c, enum col_state st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	str_vset_sanitized(&c->reason, fmt, ap);
	va_end(ap);
	c->state = st;
}
