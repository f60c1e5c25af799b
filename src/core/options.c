/* The one command-line parser (see options.h).
 *
 * Not getopt_long: it accepts a prefix of a long name (--verb for
 * --verbose), which a later option can turn into an ambiguity or a
 * different option, it prints its own messages in its own shape, and it
 * knows nothing of types or ranges, so each command repeated the value
 * checks. Here one table drives the grammar, the value checks
 * (core/numparse.h, the same messages as before) and the help. */
#include "core/options.h"
#include "core/exitcodes.h"
#include "core/numparse.h"
#include "core/suggest.h"
#include "core/termsafe.h"
#include "core/usage.h"

#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const opt_output_formats[] = { "text", "json", "yaml", NULL };

/* What shows of a user's argument in a message: escaped for a terminal
 * and cut, like numparse does with values. */
#define ARG_SHOWN 44

struct state {
	struct opt_parser *p;
	unsigned char *seen;     /* per def: OPTF_ONCE */
	size_t npos_cap;
};

static int fail(const struct opt_parser *p, const char *fmt, const char *a, const char *b)
{
	char *ta = a ? ts_oneline(a, strlen(a), ARG_SHOWN) : NULL;
	char *tb = b ? ts_oneline(b, strlen(b), ARG_SHOWN) : NULL;
	char msg[NP_ERR_MAX * 2];
	snprintf(msg, sizeof msg, fmt, ta ? ta : "", tb ? tb : "");
	free(ta);
	free(tb);
	usage_fail(p->cmd, "%s", msg);
	return OPT_USAGE;
}

static const struct opt_def *find_long(const struct opt_def *defs, const char *name, size_t n)
{
	for (const struct opt_def *d = defs; d->name; d++)
		if (strlen(d->name) == n && !strncmp(d->name, name, n))
			return d;
	return NULL;
}

static const struct opt_def *find_short(const struct opt_def *defs, char c)
{
	for (const struct opt_def *d = defs; d->name; d++)
		if (d->short_name && d->short_name == c)
			return d;
	return NULL;
}

static int takes_value(const struct opt_def *d)
{
	return d->type != OPT_FLAG && d->type != OPT_COUNT;
}

/* The nearest visible long name to an unknown one (core/suggest.h). */
static const char *nearest_long(const struct opt_def *defs, const char *word)
{
	size_t n = 0;
	for (const struct opt_def *d = defs; d->name; d++)
		n++;
	const char **names = calloc(n + 2, sizeof *names);
	if (!names)
		return NULL;
	size_t k = 0;
	for (const struct opt_def *d = defs; d->name; d++)
		if (!(d->flags & OPTF_HIDDEN))
			names[k++] = d->name;
	names[k++] = "help";
	const char *best = suggest(word, names);
	/* a prefix is refused (options.h), but it names what it abbreviates
	 * when it abbreviates one visible option */
	size_t nprefix = 0, at = 0;
	for (size_t i = 0; !best && i < k; i++)
		if (!strncmp(names[i], word, strlen(word)))
			nprefix++, at = i;
	if (!best && nprefix == 1)
		best = names[at];
	free(names);
	return best;
}

static int unknown_long(const struct opt_parser *p, const char *arg, size_t n)
{
	char *name = strndup(arg, n);
	if (!name)
		return fail(p, "unknown option '--%s'", arg, NULL);
	const char *best = nearest_long(p->defs, name);
	int rc = best ? fail(p, "unknown option '--%s' (did you mean '--%s'?)", name, best)
		      : fail(p, "unknown option '--%s'", name, NULL);
	free(name);
	return rc;
}

/* Both 0: the type's own range; a max below min: no bound above but the
 * type's (a count ">= 1" is {1, 0}). */
static void range_of(const struct opt_def *d, double own_lo, double own_hi, double *lo, double *hi)
{
	*lo = d->min;
	*hi = d->max;
	if (d->min == 0 && d->max == 0) {
		*lo = own_lo;
		*hi = own_hi;
	} else if (d->max < d->min) {
		*hi = own_hi;
	}
}

static long to_long(double v)
{
	return v >= (double)LONG_MAX ? LONG_MAX : (long)v;
}

static uint64_t to_u64(double v)
{
	return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}

static int list_append(struct opt_list *l, const char *v)
{
	const char **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
	if (!nv)
		return -1;
	nv[l->n++] = v;
	l->v = nv;
	return 0;
}

/* "--output wants text, json or yaml, not 'jsn' (did you mean 'json'?)" */
static int bad_choice(const struct opt_parser *p, const struct opt_def *d, const char *opt, const char *v)
{
	char list[256] = "", msg[NP_ERR_MAX + 256];
	for (const char *const *c = d->choices; c && *c; c++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
			 c == d->choices ? "" : (c[1] ? ", " : " or "), *c);
	const char *best = suggest(v, d->choices);
	char *tv = ts_oneline(v, strlen(v), ARG_SHOWN);
	snprintf(msg, sizeof msg, "%s wants %s, not '%s'%s%s%s", opt, list, tv ? tv : "",
		 best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
	free(tv);
	usage_fail(p->cmd, "%s", msg);
	return OPT_USAGE;
}

static int set_value(struct state *st, const struct opt_def *d, const char *v)
{
	struct opt_parser *p = st->p;
	char *field = (char *)p->dst + d->offset;
	char opt[SUGGEST_MAX_LEN + 8], err[NP_ERR_MAX];
	double lo, hi;
	int rc = 0;

	snprintf(opt, sizeof opt, "--%s", d->name);
	switch (d->type) {
	case OPT_FLAG:
		*(int *)field = 1;
		return OPT_OK;
	case OPT_COUNT:
		if (*(int *)field < INT_MAX)
			++*(int *)field;
		return OPT_OK;
	case OPT_STRING:
		if (!*v && !(d->flags & OPTF_EMPTY_OK))
			return fail(p, "%s needs a value, not an empty string", opt, NULL);
		*(const char **)field = v;
		return OPT_OK;
	case OPT_CHOICE:
		for (const char *const *c = d->choices; c && *c; c++)
			if (!strcmp(*c, v)) {
				*(const char **)field = *c;
				return OPT_OK;
			}
		return bad_choice(p, d, opt, v);
	case OPT_INT:
	case OPT_COUNT_N: {
		long out;
		range_of(d, d->type == OPT_INT ? 0 : 1, (double)LONG_MAX, &lo, &hi);
		rc = np_count(opt, v, to_long(lo), to_long(hi), &out, err);
		if (rc == 0)
			*(long long *)field = out;
		break;
	}
	case OPT_SIZE: {
		uint64_t out;
		range_of(d, 0, 18446744073709551615.0, &lo, &hi);
		rc = np_size(opt, v, to_u64(lo), to_u64(hi), &out, err);
		if (rc == 0)
			*(unsigned long long *)field = out;
		break;
	}
	case OPT_SECONDS: {
		long out;
		range_of(d, 0, (double)LONG_MAX, &lo, &hi);
		rc = np_seconds(opt, v, to_long(lo), to_long(hi), &out, err);
		if (rc == 0)
			*(long *)field = out;
		break;
	}
	case OPT_REAL: {
		double out;
		range_of(d, 0, DBL_MAX, &lo, &hi);
		rc = np_real(opt, v, lo, hi, &out, err);
		if (rc == 0)
			*(double *)field = out;
		break;
	}
	case OPT_PORT:
		rc = np_port(opt, v, (int *)field, err);
		break;
	case OPT_LIST:
		if (list_append((struct opt_list *)field, v) != 0)
			return fail(p, "out of memory at %s", opt, NULL);
		return OPT_OK;
	}
	if (rc != 0) {
		usage_fail(p->cmd, "%s", err);
		return OPT_USAGE;
	}
	return OPT_OK;
}

static int occur(struct state *st, const struct opt_def *d, const char *v)
{
	size_t i = (size_t)(d - st->p->defs);
	if ((d->flags & OPTF_ONCE) && st->seen[i]) {
		char opt[SUGGEST_MAX_LEN + 8];
		snprintf(opt, sizeof opt, "--%s", d->name);
		return fail(st->p, "%s given more than once", opt, NULL);
	}
	st->seen[i] = 1;
	return set_value(st, d, v);
}

static int positional(struct state *st, const char *a)
{
	struct opt_parser *p = st->p;
	if (p->max_positional >= 0 && p->npositional >= (size_t)p->max_positional)
		return fail(p, "unexpected argument '%s'", a, NULL);
	if (p->npositional == st->npos_cap) {
		size_t cap = st->npos_cap ? st->npos_cap * 2 : 8;
		const char **nv = realloc(p->positional, cap * sizeof *nv);
		if (!nv)
			return fail(p, "out of memory at '%s'", a, NULL);
		p->positional = nv;
		st->npos_cap = cap;
	}
	p->positional[p->npositional++] = a;
	return OPT_OK;
}

/* "--name", "--name=value" (value maybe in argv[*i + 1]). */
static int long_opt(struct state *st, int argc, char **argv, int *i)
{
	const char *a = argv[*i] + 2;
	const char *eq = strchr(a, '=');
	size_t n = eq ? (size_t)(eq - a) : strlen(a);
	const struct opt_def *d = find_long(st->p->defs, a, n);
	if (!d) {
		if (n == 4 && !strncmp(a, "help", 4) && !eq)
			return OPT_HELP;
		return unknown_long(st->p, a, n);
	}
	char opt[SUGGEST_MAX_LEN + 8];
	snprintf(opt, sizeof opt, "--%s", d->name);
	if (!takes_value(d)) {
		if (eq)
			return fail(st->p, "%s takes no value (got '%s')", opt, eq + 1);
		return occur(st, d, NULL);
	}
	if (eq)
		return occur(st, d, eq + 1);
	if (*i + 1 >= argc)
		return fail(st->p, "%s needs a value (%s)", opt, d->metavar ? d->metavar : "VALUE");
	return occur(st, d, argv[++*i]);
}

/* "-abc", "-xVALUE", "-x VALUE". */
static int short_opts(struct state *st, int argc, char **argv, int *i)
{
	for (const char *c = argv[*i] + 1; *c; c++) {
		const struct opt_def *d = find_short(st->p->defs, *c);
		if (!d) {
			if (*c == 'h')
				return OPT_HELP;
			char s[2] = { *c, 0 };
			return fail(st->p, "unknown option '-%s'", s, NULL);
		}
		if (!takes_value(d)) {
			int rc = occur(st, d, NULL);
			if (rc != OPT_OK)
				return rc;
			continue;
		}
		if (c[1])
			return occur(st, d, c + 1);
		if (*i + 1 >= argc) {
			char s[3] = { '-', *c, 0 };
			return fail(st->p, "%s needs a value (%s)", s, d->metavar ? d->metavar : "VALUE");
		}
		return occur(st, d, argv[++*i]);
	}
	return OPT_OK;
}

enum opt_status opt_parse(struct opt_parser *p, int argc, char **argv)
{
	struct state st = { .p = p };
	size_t ndefs = 0;
	for (const struct opt_def *d = p->defs; d && d->name; d++)
		ndefs++;
	st.seen = calloc(ndefs + 1, 1);
	if (!st.seen)
		return (enum opt_status)fail(p, "out of memory%s%s", NULL, NULL);
	static const struct opt_def none[] = { OPTION_END };
	if (!p->defs)
		p->defs = none;
	int rc = OPT_OK, only_pos = 0;
	for (int i = 1; i < argc && rc == OPT_OK; i++) {
		const char *a = argv[i];
		if (only_pos || a[0] != '-' || !a[1])
			rc = positional(&st, a);
		else if (!strcmp(a, "--"))
			only_pos = 1;
		else if (a[1] == '-')
			rc = long_opt(&st, argc, argv, &i);
		else
			rc = short_opts(&st, argc, argv, &i);
	}
	free(st.seen);
	if (rc == OPT_HELP && p->help_head)
		opt_help_page(stdout, p->help_head, p->defs, p->help_tail);
	return (enum opt_status)rc;
}

int opt_parse_result(enum opt_status st)
{
	return st == OPT_OK ? 0 : st == OPT_HELP ? -1 : EXIT_USAGE;
}

void opt_list_free(struct opt_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void opt_parser_release(struct opt_parser *p)
{
	free(p->positional);
	p->positional = NULL;
	p->npositional = 0;
	if (!p->dst || !p->defs)
		return;
	for (const struct opt_def *d = p->defs; d->name; d++)
		if (d->type == OPT_LIST)
			opt_list_free((struct opt_list *)((char *)p->dst + d->offset));
}

/* A range bound as people write it: 1000000, not %g's 1e+06; 0.5 stays. */
static const char *fmt_bound(double v, char *buf, size_t n)
{
	if (v == (double)(long long)v && v > -1e15 && v < 1e15)
		snprintf(buf, n, "%lld", (long long)v);
	else
		snprintf(buf, n, "%g", v);
	return buf;
}

/* "1 to 86400 s", "64 KiB to 1 GiB", "at least 1 node" ... into buf. */
void opt_range_text(const struct opt_def *d, char *buf, size_t n)
{
	buf[0] = 0;
	if (d->min == 0 && d->max == 0)
		return;
	const char *u = d->units ? d->units : "";
	const char *sp = d->units ? " " : "";
	if (d->type == OPT_SIZE) {
		char a[32], b[32];
		np_fmt_size(to_u64(d->min), a, sizeof a);
		if (d->max < d->min)
			snprintf(buf, n, "at least %s", a);
		else
			snprintf(buf, n, "%s to %s", a, np_fmt_size(to_u64(d->max), b, sizeof b));
	} else {
		char a[32], b[32];
		fmt_bound(d->min, a, sizeof a);
		if (d->max < d->min)
			snprintf(buf, n, "at least %s%s%s", a, sp, u);
		else
			snprintf(buf, n, "%s to %s%s%s", a, fmt_bound(d->max, b, sizeof b), sp, u);
	}
}

/* "-v, --verbose", "    --timeout SECONDS" into buf. */
void opt_synopsis(const struct opt_def *d, char *buf, size_t n)
{
	char s[8] = "    ";
	if (d->short_name)
		snprintf(s, sizeof s, "-%c, ", d->short_name);
	const char *mv = d->metavar ? d->metavar : (takes_value(d) ? "VALUE" : NULL);
	snprintf(buf, n, "%s--%s%s%s", s, d->name, mv ? " " : "", mv ? mv : "");
}

#define HELP_SYNOPSIS "-h, --help"

void opt_help(FILE *out, const struct opt_def *defs)
{
	int w = (int)strlen(HELP_SYNOPSIS);
	char syn[128], range[96];
	for (const struct opt_def *d = defs; d && d->name; d++) {
		if (d->flags & OPTF_HIDDEN)
			continue;
		opt_synopsis(d, syn, sizeof syn);
		if ((int)strlen(syn) > w)
			w = (int)strlen(syn);
	}
	if (w > 30)
		w = 30;
	for (const struct opt_def *d = defs; d && d->name; d++) {
		if (d->flags & OPTF_HIDDEN)
			continue;
		opt_synopsis(d, syn, sizeof syn);
		fprintf(out, "  %-*s  %s", w, syn, d->help ? d->help : "");
		opt_range_text(d, range, sizeof range);
		const char *sep = " (";
		if (d->dflt) {
			fprintf(out, "%sdefault %s", sep, d->dflt);
			sep = "; ";
		}
		if (*range) {
			fprintf(out, "%s%s", sep, range);
			sep = "; ";
		}
		if (d->type == OPT_CHOICE && d->choices) {
			fprintf(out, "%sone of", sep);
			for (const char *const *c = d->choices; *c; c++)
				fprintf(out, "%s%s", c == d->choices ? " " : ", ", *c);
			sep = "; ";
		}
		fputs(sep[0] == ';' ? ")\n" : "\n", out);
	}
	fprintf(out, "  %-*s  this help\n", w, HELP_SYNOPSIS);
}

void opt_help_page(FILE *out, const char *head, const struct opt_def *defs, const char *tail)
{
	fputs(head, out);
	opt_help(out, defs);
	if (tail) {
		fputc('\n', out);
		fputs(tail, out);
	}
}
