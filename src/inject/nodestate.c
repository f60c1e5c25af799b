/* What the scheduler says about one node, from `scontrol show node -o`
 * (read by parse/slurm.c, the one reader of that record), `sinfo -h -N -o
 * '%N|%T|%E|%H'` or `kubectl get node -o json`, reduced to the questions
 * the timing needs: schedulable, isolated, changed.  Pure functions over
 * untrusted text: every field is bounded and terminal-safe (core/termsafe.h). */
#include "inject/inject.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "parse/slurm.h"

#include <ctype.h>
#include <string.h>

static const struct {
	const char *name;
	enum nv_base base;
	unsigned flags;
} words[] = {
	/* scontrol bases and flags */
	{ "IDLE", NVB_IDLE, 0 }, { "ALLOCATED", NVB_ALLOCATED, 0 }, { "ALLOC", NVB_ALLOCATED, 0 },
	{ "MIXED", NVB_MIXED, 0 }, { "MIX", NVB_MIXED, 0 }, { "DOWN", NVB_DOWN, 0 },
	{ "ERROR", NVB_ERROR, 0 }, { "FUTURE", NVB_FUTURE, 0 }, { "FUTR", NVB_FUTURE, 0 },
	{ "UNKNOWN", NVB_UNKNOWN, 0 }, { "UNK", NVB_UNKNOWN, 0 },
	{ "DRAIN", NVB_UNKNOWN, NVF_DRAIN }, { "NOT_RESPONDING", NVB_UNKNOWN, NVF_NOT_RESPONDING },
	{ "FAIL", NVB_UNKNOWN, NVF_FAIL }, { "MAINTENANCE", NVB_UNKNOWN, NVF_MAINT },
	{ "MAINT", NVB_UNKNOWN, NVF_MAINT },
	{ "REBOOT_REQUESTED", NVB_UNKNOWN, NVF_REBOOT_REQUESTED },
	{ "REBOOT_ISSUED", NVB_UNKNOWN, NVF_REBOOT_ISSUED },
	{ "POWERED_DOWN", NVB_UNKNOWN, NVF_POWERED_DOWN }, { "POWER_DOWN", NVB_UNKNOWN, NVF_POWERING_DOWN },
	{ "POWERING_DOWN", NVB_UNKNOWN, NVF_POWERING_DOWN }, { "POWERING_UP", NVB_UNKNOWN, NVF_POWERING_UP },
	{ "POWER_UP", NVB_UNKNOWN, NVF_POWERING_UP }, { "INVALID_REG", NVB_UNKNOWN, NVF_INVALID_REG },
	{ "INVAL", NVB_UNKNOWN, NVF_INVALID_REG }, { "COMPLETING", NVB_COMPLETING, NVF_COMPLETING },
	{ "COMP", NVB_COMPLETING, NVF_COMPLETING },
	/* sinfo %T long names that are not scontrol words */
	{ "DRAINED", NVB_IDLE, NVF_DRAIN | NVF_DRAINED }, { "DRAINING", NVB_ALLOCATED, NVF_DRAIN },
	{ "DRNG", NVB_ALLOCATED, NVF_DRAIN }, { "FAILING", NVB_ALLOCATED, NVF_FAIL },
	{ "FAILG", NVB_ALLOCATED, NVF_FAIL }, { "REBOOT", NVB_UNKNOWN, NVF_REBOOT_REQUESTED },
	{ "POW_DN", NVB_UNKNOWN, NVF_POWERING_DOWN }, { "POW_UP", NVB_UNKNOWN, NVF_POWERING_UP },
	{ "PLANNED", NVB_IDLE, 0 }, { "PLND", NVB_IDLE, 0 }, { "RESERVED", NVB_IDLE, 0 },
	{ "RESV", NVB_IDLE, 0 },
};

/* One state word with sinfo's suffix characters. */
static void apply_word(struct node_view *v, const char *w, size_t len, int is_base)
{
	while (len && strchr("*~#!%$@^-+", w[len - 1])) {
		switch (w[len - 1]) {
		case '*': v->flags |= NVF_NOT_RESPONDING; break;
		case '~': v->flags |= NVF_POWERED_DOWN; break;
		case '#': v->flags |= NVF_POWERING_UP; break;
		case '!':
		case '%': v->flags |= NVF_POWERING_DOWN; break;
		case '@': v->flags |= NVF_REBOOT_REQUESTED; break;
		case '^': v->flags |= NVF_REBOOT_ISSUED; break;
		default: break; /* $ maintenance reservation, - planned, + completing jobs */
		}
		len--;
	}
	char up[32];
	if (len == 0 || len >= sizeof up)
		return;
	for (size_t i = 0; i < len; i++)
		up[i] = (char)toupper((unsigned char)w[i]);
	up[len] = 0;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		if (strcmp(words[i].name, up))
			continue;
		v->flags |= words[i].flags;
		if (is_base && (words[i].base != NVB_UNKNOWN || !words[i].flags))
			v->base = words[i].base;
		return;
	}
	if (is_base)
		v->base = NVB_OTHER;
}

static void parse_state(struct node_view *v, const char *s, size_t len)
{
	ts_copy(v->state, sizeof v->state, s, len, 0);
	size_t i = 0;
	int first = 1;
	while (i < len) {
		size_t j = i;
		while (j < len && s[j] != '+')
			j++;
		/* "allocated+" (sinfo: jobs completing) leaves an empty word */
		apply_word(v, s + i, j - i, first);
		first = 0;
		i = j + 1;
	}
}

int nv_parse_scontrol(const char *out, size_t len, const char *node, struct node_view *v)
{
	struct slurm_node_line n;

	memset(v, 0, sizeof *v);
	v->ready = -1;
	if (!out || slurm_node_line(out, len, node, &n) < 0)
		return -1;
	v->found = 1;
	ts_copys(v->name, sizeof v->name, n.name, 0);
	parse_state(v, n.state, strlen(n.state));
	ts_copys(v->boot_time, sizeof v->boot_time, n.boot_time, 0);
	ts_copys(v->reason, sizeof v->reason, n.reason, 0);
	ts_copys(v->reason_user, sizeof v->reason_user, n.reason_user, 0);
	ts_copys(v->reason_time, sizeof v->reason_time, n.reason_time, 0);
	return 0;
}

int nv_parse_sinfo(const char *out, size_t len, struct node_view *v)
{
	memset(v, 0, sizeof *v);
	v->ready = -1;
	if (!out)
		return -1;
	const char *nl = memchr(out, '\n', len);
	size_t ll = nl ? (size_t)(nl - out) : len;
	while (ll && (out[ll - 1] == '\r' || out[ll - 1] == ' '))
		ll--;
	const char *f[5];
	size_t fl[5];
	int nf = 0;
	const char *s = out;
	for (size_t i = 0; i <= ll && nf < 5; i++) {
		if (i == ll || out[i] == '|') {
			f[nf] = s;
			fl[nf] = (size_t)(out + i - s);
			nf++;
			s = out + i + 1;
		}
	}
	if (nf < 3 || nf > 4)
		return -1;
	int o = nf == 4;
	if (fl[o] == 0)
		return -1;
	v->found = 1;
	if (o)
		ts_copy(v->name, sizeof v->name, f[0], fl[0], 0);
	parse_state(v, f[o], fl[o]);
	if (!(fl[o + 1] == 4 && !memcmp(f[o + 1], "none", 4)))
		ts_copy(v->reason, sizeof v->reason, f[o + 1], fl[o + 1], 0);
	if (!(fl[o + 2] == 7 && !memcmp(f[o + 2], "Unknown", 7)))
		ts_copy(v->reason_time, sizeof v->reason_time, f[o + 2], fl[o + 2], 0);
	return 0;
}

int nv_parse_k8s(const char *out, size_t len, struct node_view *v)
{
	memset(v, 0, sizeof *v);
	v->ready = -1;
	v->k8s = 1;
	if (!out)
		return -1;
	json_t *j = json_loadb(out, len, 0, NULL);
	if (!json_is_object(j) || strcmp(jget_str_or(j, "kind", ""), "Node")) {
		json_decref(j);
		return -1;
	}
	v->found = 1;
	json_t *md = json_object_get(j, "metadata"), *spec = json_object_get(j, "spec");
	json_t *st = json_object_get(j, "status");
	const char *name = jget_str_or(md, "name", "");
	ts_copys(v->name, sizeof v->name, name, 0);
	v->unschedulable = json_is_true(json_object_get(spec, "unschedulable"));
	json_t *t;
	size_t i;
	json_array_foreach(json_object_get(spec, "taints"), i, t) {
		if (v->ntaints >= NV_MAX_MARKS)
			break;
		char buf[256];
		snprintf(buf, sizeof buf, "%s=%s:%s", jget_str_or(t, "key", ""), jget_str_or(t, "value", ""), jget_str_or(t, "effect", ""));
		ts_copys(v->taints[v->ntaints++], sizeof v->taints[0], buf, 0);
	}
	json_array_foreach(json_object_get(st, "conditions"), i, t) {
		if (v->nconds >= NV_MAX_MARKS)
			break;
		char buf[160];
		snprintf(buf, sizeof buf, "%s=%s", jget_str_or(t, "type", ""), jget_str_or(t, "status", ""));
		ts_copys(v->conds[v->nconds++], sizeof v->conds[0], buf, 0);
		if (!strcmp(jget_str_or(t, "type", ""), "Ready"))
			v->ready = !strcmp(jget_str_or(t, "status", ""), "True");
	}
	const char *bid = jget_str_or(json_object_get(st, "nodeInfo"), "bootID", "");
	ts_copys(v->boot_id, sizeof v->boot_id, bid, 0);
	snprintf(v->state, sizeof v->state, "%s%s", v->ready == 1 ? "Ready" : v->ready == 0 ? "NotReady" : "Unknown",
		 v->unschedulable ? ",SchedulingDisabled" : "");
	v->base = v->ready == 1 ? NVB_IDLE : NVB_DOWN;
	json_decref(j);
	return 0;
}

static int has_mark(const char (*marks)[96], int n, const char *m)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(marks[i], m))
			return 1;
	return 0;
}

static int taint_blocks(const char *t)
{
	return str_ends(t, ":NoSchedule") || str_ends(t, ":NoExecute");
}

/* A blocking taint the node did not have before the test. */
static int new_blocking_taint(const struct node_view *v, const struct node_view *base)
{
	for (int i = 0; i < v->ntaints; i++)
		if (taint_blocks(v->taints[i]) && !(base && has_mark(base->taints, base->ntaints, v->taints[i])))
			return 1;
	return 0;
}

#define NVF_UNSCHEDULABLE (NVF_DRAIN | NVF_NOT_RESPONDING | NVF_FAIL | NVF_MAINT | NVF_REBOOT_REQUESTED | \
			   NVF_REBOOT_ISSUED | NVF_POWERED_DOWN | NVF_POWERING_DOWN | NVF_INVALID_REG)

int nv_schedulable(const struct node_view *v, const struct node_view *base)
{
	if (!v->found)
		return 0;
	if (v->k8s)
		return !v->unschedulable && v->ready == 1 && !new_blocking_taint(v, base);
	switch (v->base) {
	case NVB_IDLE:
	case NVB_ALLOCATED:
	case NVB_MIXED:
	case NVB_COMPLETING:
		return !(v->flags & NVF_UNSCHEDULABLE);
	default:
		return 0;
	}
}

int nv_isolated(const struct node_view *v, const struct node_view *base)
{
	if (!v->found)
		return 0;
	if (v->k8s)
		return v->unschedulable || new_blocking_taint(v, base);
	return (v->flags & (NVF_DRAIN | NVF_FAIL)) || v->base == NVB_DOWN;
}

int nv_detected(const struct node_view *v, const struct node_view *base)
{
	if (!nv_schedulable(v, base))
		return 1;
	if (!v->k8s || !base)
		return 0;
	for (int i = 0; i < v->ntaints; i++)
		if (!has_mark(base->taints, base->ntaints, v->taints[i]))
			return 1;
	for (int i = 0; i < v->nconds; i++) {
		int seen = 0;
		for (int k = 0; k < base->nconds && !seen; k++)
			seen = !strcmp(base->conds[k], v->conds[i]);
		if (!seen)
			return 1;
	}
	return 0;
}

void nv_describe(const struct node_view *v, char *buf, size_t n)
{
	if (!v->found) {
		snprintf(buf, n, "node unknown to the scheduler");
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s", v->state[0] ? v->state : "?");
	if (v->reason[0])
		sb_addf(&sb, " reason=\"%s\"", v->reason);
	for (int i = 0; i < v->ntaints; i++)
		sb_addf(&sb, "%s%s", i ? "," : " taints=", v->taints[i]);
	snprintf(buf, n, "%s", sb_str(&sb));
	sb_free(&sb);
}

json_t *nv_json(const struct node_view *v)
{
	json_t *o = json_object();
	json_object_set_new(o, "found", json_boolean(v->found));
	json_object_set_new(o, "state", json_string(v->state));
	json_object_set_new(o, "reason", v->reason[0] ? json_string(v->reason) : json_null());
	if (v->reason_time[0])
		json_object_set_new(o, "reason_time", json_string(v->reason_time));
	if (v->reason_user[0])
		json_object_set_new(o, "reason_user", json_string(v->reason_user));
	if (v->k8s) {
		json_object_set_new(o, "unschedulable", json_boolean(v->unschedulable));
		json_t *a = json_array();
		for (int i = 0; i < v->ntaints; i++)
			json_array_append_new(a, json_string(v->taints[i]));
		json_object_set_new(o, "taints", a);
		a = json_array();
		for (int i = 0; i < v->nconds; i++)
			json_array_append_new(a, json_string(v->conds[i]));
		json_object_set_new(o, "conditions", a);
	}
	return o;
}
