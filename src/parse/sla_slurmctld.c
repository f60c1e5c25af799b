/* Node state transitions from slurmctld.log. The controller writes one
 * line per message, "[2026-11-03T04:12:55.123] message" (or, through
 * journald/syslog with a year, "2026-11-03T04:12:55+0000 host
 * slurmctld[123]: message"). The messages read (their text is Slurm's own,
 * from node_mgr.c and ping_nodes.c):
 *
 *   error: Nodes gpu[017-018] not responding, setting DOWN   DOWN (+ not responding)
 *   error: Nodes gpu017 not responding                         NOT_RESPONDING
 *   Node gpu017 now responding                                 not responding ends
 *   node gpu017 returned to service                            DOWN ends
 *   update_node: node gpu017 reason set to: Xid 79             the reason of what follows
 *   update_node: node gpu017 state set to DRAINING             DRAIN / DOWN / FAIL per the state;
 *                                                              IDLE, RESUME, ... end them
 *   drain_nodes: node gpu017 state set to DRAIN                DRAIN
 *   error: Setting node gpu017 state to DRAIN with reason:R    DRAIN (also INVAL, DOWN)
 *   validate_node_specs: Node gpu017 unexpectedly rebooted ... DOWN
 *   ...Prolog or job env setup failure on node gpu017, draining the node   DRAIN
 *
 * Everything else with a time stamp is log noise: counted, not listed. A
 * line without a time stamp is malformed (listed). A state still open at the
 * end of the log is "still down when the log ended". */
#include "parse/sla_parse_util.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct pending {
	char *node, *reason;
};

struct ctx {
	struct sla_parse *p;
	struct sla_tracks *t;
	struct pending *pend;
	size_t npend, cap;
};

static struct pending *pend_find(struct ctx *c, const char *node)
{
	for (size_t i = 0; i < c->npend; i++)
		if (!strcmp(c->pend[i].node, node))
			return &c->pend[i];
	return NULL;
}

static void pend_set(struct ctx *c, const char *node, const char *reason)
{
	struct pending *x = pend_find(c, node);
	if (!x) {
		if (c->npend == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 16;
			c->pend = xrealloc(c->pend, c->cap * sizeof *c->pend);
		}
		x = &c->pend[c->npend++];
		x->node = xstrdup(node);
		x->reason = NULL;
	}
	free(x->reason);
	x->reason = xstrdup(reason);
}

/* The reason set for the node before this state change, consumed. */
static char *pend_take(struct ctx *c, const char *node)
{
	struct pending *x = pend_find(c, node);
	if (!x)
		return NULL;
	char *r = x->reason;
	free(x->node);
	*x = c->pend[--c->npend];
	return r;
}

/* Split "[time] msg" / "time host proc[pid]: msg"; -1 without a usable stamp. */
static int split_line(const char *l, size_t n, const struct sla_parse *p, sla_ms *t, const char **msg,
		      const char **why)
{
	if (n && l[0] == '[') {
		const char *close = memchr(l, ']', n);
		if (!close) {
			*why = "'[' without ']' around the time stamp";
			return -1;
		}
		*t = sla_time_parsen(l + 1, (size_t)(close - l - 1), p->offset_ms);
		if (*t == SLA_NOTIME) {
			*why = "the time stamp is not an ISO time (LogTimeFormat iso8601 or iso8601_ms)";
			return -1;
		}
		*msg = close + 1;
		while (**msg == ' ')
			(*msg)++;
		return 0;
	}
	const char *sp = memchr(l, ' ', n);
	size_t tn = sp ? (size_t)(sp - l) : n;
	*t = sla_time_parsen(l, tn, p->offset_ms);
	if (*t == SLA_NOTIME) {
		*why = n >= 15 && isalpha((unsigned char)l[0]) && memmem(l, n, "slurmctld", 9)
			       ? "a syslog time stamp without a year: log with journalctl -o short-iso, or "
				 "LogTimeFormat=iso8601_ms"
			       : "no time stamp";
		return -1;
	}
	const char *rest = sp ? sp + 1 : l + n;
	const char *end = l + n;
	const char *tag = memmem(rest, (size_t)(end - rest), "slurmctld", 9);
	if (tag && tag - rest < 80) {
		const char *colon = memmem(tag, (size_t)(end - tag), ": ", 2);
		if (colon) {
			*msg = colon + 2;
			return 0;
		}
	}
	*msg = rest;
	return 0;
}

static const char *strip_level(const char *m)
{
	static const char *const lv[] = { "error: ", "warning: ", "fatal: ", "info: ", "verbose: ", "sched: ",
					  "debug: ", "debug2: ", "debug3: ", "debug4: ", "debug5: " };
	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; i < sizeof lv / sizeof *lv; i++)
			if (str_starts(m, lv[i])) {
				m += strlen(lv[i]);
				while (*m == ' ')
					m++;
				again = 1;
			}
	}
	return m;
}

/* The word after `key` in m (up to a blank or `stop`), malloc'd; NULL when absent. */
static char *word_after(const char *m, const char *key, const char *stop)
{
	const char *k = strstr(m, key);
	if (!k)
		return NULL;
	k += strlen(key);
	size_t n = strcspn(k, stop ? stop : " ");
	if (!n)
		return NULL;
	return xstrndup(k, n);
}

static int has_token(const char *state, const char *const *set)
{
	char *s = xstrdup(state), *save = NULL;
	int hit = 0;
	for (char *tok = strtok_r(s, "+", &save); tok && !hit; tok = strtok_r(NULL, "+", &save)) {
		size_t n = strlen(tok);
		while (n && strchr("*~#!%$@^-", tok[n - 1]))
			tok[--n] = 0;
		for (size_t i = 0; set[i]; i++)
			if (!strcasecmp(tok, set[i]))
				hit = 1;
	}
	free(s);
	return hit;
}

static const char *const S_DOWN[] = { "DOWN", NULL };
static const char *const S_DRAIN[] = { "DRAIN", "DRAINED", "DRAINING", "DRNG", NULL };
static const char *const S_FAIL[] = { "FAIL", "FAILING", "FAILG", NULL };
static const char *const S_UP[] = { "IDLE", "ALLOCATED", "ALLOC", "MIXED", "MIX", "COMPLETING", "COMP", "RESUME",
				    "UNDRAIN", "FUTURE", NULL };
static const char *const TRACKED[] = { "DOWN", "DRAIN", "FAIL", NULL };

static void each_node(struct ctx *c, const char *expr, const char *src, void (*fn)(struct ctx *, const char *, void *),
		      void *arg)
{
	const char *why;
	json_t *names = sla_node_names(expr, &why);
	if (!names) {
		sla_bad(c->p, src, "node list '%s': %s", expr, why);
		return;
	}
	size_t i;
	json_t *v;
	json_array_foreach(names, i, v)
		fn(c, json_string_value(v), arg);
	json_decref(names);
}

struct act {
	sla_ms t;
	const char *src;
	const char *state;	/* set / clear this */
	const char *reason;
	int set, count_unknown;
};

static void do_act(struct ctx *c, const char *node, void *arg)
{
	struct act *a = arg;
	if (a->set) {
		char *r = pend_take(c, node);
		sla_tracks_set(c->t, node, a->state, a->t, a->reason ? a->reason : r, a->src);
		free(r);
	} else if (a->count_unknown >= 0 || sla_tracks_open(c->t, node, a->state)) {
		/* count_unknown -1: end it only when it is open, silently otherwise */
		sla_tracks_clear(c->t, c->p, node, a->state, a->t, a->src, a->count_unknown > 0);
	}
}

static void act(struct ctx *c, const char *nodes, sla_ms t, const char *src, const char *state, int set,
		const char *reason, int count_unknown)
{
	struct act a = { t, src, state, reason, set, count_unknown };
	each_node(c, nodes, src, do_act, &a);
}

/* "update_node: node X state set to S": S decides every tracked state. */
static void state_set(struct ctx *c, const char *node, const char *state, sla_ms t, const char *src)
{
	int down = has_token(state, S_DOWN), drain = has_token(state, S_DRAIN), fail = has_token(state, S_FAIL);
	int up = has_token(state, S_UP);
	if (!down && !drain && !fail && !up) {
		if (!strcasecmp(state, "NoResp"))
			act(c, node, t, src, "NOT_RESPONDING", 1, NULL, 0);
		else
			sla_note(c->p, src, "%s set to %s: not a state cmax sla tracks from the log", node, state);
		return;
	}
	int any_open = 0;
	for (int i = 0; TRACKED[i]; i++)
		any_open |= sla_tracks_open(c->t, node, TRACKED[i]);
	const int want[] = { down, drain, fail };
	char *r = pend_take(c, node);
	for (int i = 0; TRACKED[i]; i++) {
		if (want[i])
			sla_tracks_set(c->t, node, TRACKED[i], t, r, src);
		else if (sla_tracks_open(c->t, node, TRACKED[i]))
			sla_tracks_clear(c->t, c->p, node, TRACKED[i], t, src, 0);
	}
	free(r);
	if (!down && !drain && !fail && !any_open)
		sla_note(c->p, src, "%s set to %s with no down or drain recorded before it here: nothing counted", node,
			 state);
}

/* 1 when the message was about node state. */
static int message(struct ctx *c, const char *m, sla_ms t, const char *src)
{
	char *node = NULL;
	int used = 1;
	size_t ml = strlen(m);
	if ((str_starts(m, "Nodes ") || str_starts(m, "Node ")) && str_ends(m, " not responding, setting DOWN")) {
		node = word_after(m, " ", " ");
		if (node) {
			/* the same outage goes on as DOWN: the not-responding part ends here */
			act(c, node, t, src, "NOT_RESPONDING", 0, NULL, -1);
			act(c, node, t, src, "DOWN", 1, "Not responding", 0);
		}
	} else if ((str_starts(m, "Nodes ") || str_starts(m, "Node ")) && str_ends(m, " not responding")) {
		node = word_after(m, " ", " ");
		if (node)
			act(c, node, t, src, "NOT_RESPONDING", 1, "Not responding", 0);
	} else if (str_starts(m, "Node ") && str_ends(m, " now responding")) {
		node = word_after(m, " ", " ");
		if (node)
			act(c, node, t, src, "NOT_RESPONDING", 0, NULL, -1);
	} else if (ml > 20 && str_ends(m, " returned to service") && (node = word_after(m, "node ", " "))) {
		act(c, node, t, src, "NOT_RESPONDING", 0, NULL, -1);
		act(c, node, t, src, "DOWN", 0, NULL, 1);
	} else if (strstr(m, "update_node: node ") && strstr(m, " reason set to: ")) {
		node = word_after(m, "update_node: node ", " ");
		const char *r = strstr(m, " reason set to: ") + 16;
		if (node) {
			pend_set(c, node, r);
			/* older controllers log the state first: fill its reason */
			for (int i = 0; TRACKED[i]; i++)
				if (sla_tracks_open(c->t, node, TRACKED[i]))
					sla_tracks_set(c->t, node, TRACKED[i], t, r, src);
		}
	} else if (strstr(m, "update_node: node ") && strstr(m, " state set to ")) {
		node = word_after(m, "update_node: node ", " ");
		const char *s = strstr(m, " state set to ") + 14;
		if (node && *s)
			state_set(c, node, s, t, src);
		else
			used = 0;
	} else if (strstr(m, "drain_nodes: node ") && strstr(m, " state set to DRAIN")) {
		node = word_after(m, "drain_nodes: node ", " ");
		if (node)
			act(c, node, t, src, "DRAIN", 1, NULL, 0);
	} else if (str_starts(m, "Setting node ") && strstr(m, " with reason:")) {
		node = word_after(m, "Setting node ", " ");
		char *st = word_after(m, " state to ", " ");
		const char *r = strstr(m, " with reason:") + 13;
		if (node && st && (!strcmp(st, "DRAIN") || !strcmp(st, "DOWN") || !strcmp(st, "INVAL")))
			act(c, node, t, src, st, 1, r, 0);
		else
			used = 0;
		free(st);
	} else if (strstr(m, " unexpectedly rebooted") && (node = word_after(m, "Node ", " "))) {
		act(c, node, t, src, "DOWN", 1, "Node unexpectedly rebooted", 0);
	} else if (strstr(m, "Prolog or job env setup failure on node ") &&
		   (node = word_after(m, "Prolog or job env setup failure on node ", ", "))) {
		act(c, node, t, src, "DRAIN", 1, "Prolog error", 0);
	} else {
		used = 0;
	}
	free(node);
	return used;
}

static int parse(const char *buf, size_t len, struct sla_parse *p, char **err)
{
	struct ctx c = { .p = p, .t = sla_tracks_new() };
	size_t pos = 0;
	long lineno = 0, stamped = 0;
	const char *l;
	size_t n;
	while (sla_next_text_line(buf, len, &pos, &lineno, &l, &n)) {
		p->records++;
		char *src = sla_src_line(p, lineno);
		char *line = xstrndup(l, n);
		sla_ms t;
		const char *msg, *why = NULL;
		if (split_line(line, n, p, &t, &msg, &why) < 0) {
			sla_bad(p, src, "%s", why);
		} else {
			stamped++;
			sla_seen(p, t);
			if (message(&c, strip_level(msg), t, src))
				p->used++;
			else
				p->irrelevant++;
		}
		free(line);
		free(src);
	}
	sla_tracks_finish(c.t, p);
	sla_tracks_free(c.t);
	for (size_t i = 0; i < c.npend; i++) {
		free(c.pend[i].node);
		free(c.pend[i].reason);
	}
	free(c.pend);
	if (p->records > 0 && stamped == 0) {
		*err = xasprintf("%s: no line has a slurmctld time stamp", p->file);
		return -1;
	}
	return 0;
}

/* "[2026-11-03T04:12:55.123]" or "2026-11-03T04:12:55+0000 host slurmctld[12]:" */
static int stamped_line(const char *l, size_t n)
{
	if (n > 21 && l[0] == '[' && sla_time_parsen(l + 1, 19, 0) != SLA_NOTIME)
		return 1;
	if (n > 20 && sla_time_parsen(l, 19, 0) != SLA_NOTIME && memmem(l, n, "slurmctld", 9))
		return 1;
	return 0;
}

/* A log that starts like JSON ('[') is one when its first line is stamped;
 * other text when any of its first 50 lines is. */
static int detect(const struct sla_sniff *s)
{
	if (s->json)
		return stamped_line(s->line, s->line_len);
	const char *l = s->text;
	for (int i = 0; i < 50 && l < s->end; i++) {
		const char *e = memchr(l, '\n', (size_t)(s->end - l));
		if (stamped_line(l, (size_t)((e ? e : s->end) - l)))
			return 1;
		if (!e)
			break;
		l = e + 1;
	}
	return 0;
}

const struct sla_parser sla_parser_slurmctld = { SF_SLURMCTLD, detect, parse };
