#include "policy/version.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* More digits than this cannot be a real version part, and refusing them
 * keeps the arithmetic below free of overflow on hostile input. */
#define VER_MAX_DIGITS 18

static int read_number(const char **sp, long *out)
{
	const char *s = *sp;
	long v = 0;
	int sig = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		if (v == 0 && *s == '0')
			continue;
		if (++sig > VER_MAX_DIGITS)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*sp = s;
	*out = v;
	return 0;
}

static const struct {
	const char *word;
	enum ver_pre pre;
} pre_words[] = {
	{ "alpha", VER_PRE_ALPHA },
	{ "beta", VER_PRE_BETA },
	{ "rc", VER_PRE_RC },
};

/* A pre-release tag only counts directly after the numbers; anything else
 * in the tail belongs to the packager, not to the upstream release. */
static const char *parse_pre(const char *s, struct ver *v)
{
	const char *p = s;

	if (*p == '-' || *p == '.' || *p == '~' || *p == '_')
		p++;
	for (size_t i = 0; i < sizeof(pre_words) / sizeof(pre_words[0]); i++) {
		size_t n = strlen(pre_words[i].word);
		const char *q = p + n;
		long num = 0;

		if (strncasecmp(p, pre_words[i].word, n) != 0)
			continue;
		if ((*q == '.' || *q == '-') && isdigit((unsigned char)q[1]))
			q++;
		if (isdigit((unsigned char)*q) && read_number(&q, &num) < 0)
			return s;
		if (isalpha((unsigned char)*q))
			return s;	/* "rcfoo" is a word, not a tag */
		v->pre = pre_words[i].pre;
		v->prenum = num;
		return q;
	}
	return s;
}

int ver_parse(const char *str, struct ver *v)
{
	const char *s = str, *p;
	int n = 0;

	memset(v, 0, sizeof(*v));
	v->pre = VER_STABLE;
	if (!s)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == 'v' || *s == 'V')
		s++;
	for (p = s; isdigit((unsigned char)*p); p++)
		;
	if (p > s && *p == ':')
		s = p + 1;
	if (!isdigit((unsigned char)*s))
		return -1;
	v->start = (size_t)(s - str);
	for (;;) {
		long num;

		if (read_number(&s, &num) < 0)
			return -1;
		if (n < VER_PARTS)
			v->part[n] = num;
		n++;
		if (s[0] == '.' && isdigit((unsigned char)s[1])) {
			s++;
			continue;
		}
		break;
	}
	v->nparts = n > VER_PARTS ? VER_PARTS : n;
	s = parse_pre(s, v);
	v->end = (size_t)(s - str);
	return 0;
}

static int cmp_long(long a, long b)
{
	return a < b ? -1 : a > b;
}

int ver_cmp(const struct ver *a, const struct ver *b)
{
	for (int i = 0; i < VER_PARTS; i++)
		if (a->part[i] != b->part[i])
			return cmp_long(a->part[i], b->part[i]);
	if (a->pre != b->pre)
		return a->pre < b->pre ? -1 : 1;
	return cmp_long(a->prenum, b->prenum);
}

int ver_compare(const char *a, const char *b, int *res)
{
	struct ver va, vb;

	if (ver_parse(a, &va) < 0 || ver_parse(b, &vb) < 0)
		return -1;
	*res = ver_cmp(&va, &vb);
	return 0;
}

char *ver_graded_form(const char *s)
{
	struct ver v;

	if (ver_parse(s, &v) < 0)
		return NULL;
	return xstrndup(s + v.start, v.end - v.start);
}

long ver_major(const char *s)
{
	struct ver v;

	return ver_parse(s, &v) < 0 ? -1 : v.part[0];
}

const char *ver_major_minor(const char *s, char *buf)
{
	struct ver v;

	if (ver_parse(s, &v) < 0)
		return NULL;
	snprintf(buf, VER_MM_MAX, "%ld.%ld", v.part[0], v.part[1]);
	return buf;
}

/* Debian orders the non-digit runs of a version with '~' below the end of
 * the run, the end below letters, and letters below everything else. */
static int dpkg_weight(const char *p, const char *end)
{
	if (p >= end || isdigit((unsigned char)*p))
		return 0;
	if (*p == '~')
		return -1;
	if (isalpha((unsigned char)*p))
		return (unsigned char)*p;
	return (unsigned char)*p + 256;
}

static int dpkg_part_cmp(const char *a, const char *ae, const char *b, const char *be)
{
	while (a < ae || b < be) {
		while ((a < ae && !isdigit((unsigned char)*a)) ||
		       (b < be && !isdigit((unsigned char)*b))) {
			int wa = dpkg_weight(a, ae), wb = dpkg_weight(b, be);

			if (wa != wb)
				return wa < wb ? -1 : 1;
			if (a < ae && !isdigit((unsigned char)*a))
				a++;
			if (b < be && !isdigit((unsigned char)*b))
				b++;
		}
		/* Digit runs compare as numbers of any size: drop leading
		 * zeros, then the longer run is larger, then lexically. */
		while (a < ae && *a == '0')
			a++;
		while (b < be && *b == '0')
			b++;
		const char *da = a, *db = b;

		while (a < ae && isdigit((unsigned char)*a))
			a++;
		while (b < be && isdigit((unsigned char)*b))
			b++;
		size_t la = (size_t)(a - da), lb = (size_t)(b - db);

		if (la != lb)
			return la < lb ? -1 : 1;
		int c = memcmp(da, db, la);

		if (c)
			return c < 0 ? -1 : 1;
	}
	return 0;
}

struct dpkg_ver {
	const char *ep, *epe, *up, *upe, *rev, *reve;
};

static void dpkg_split(const char *s, struct dpkg_ver *d)
{
	const char *end, *colon, *dash;

	if (!s)
		s = "";
	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	colon = memchr(s, ':', (size_t)(end - s));
	d->ep = s;
	d->epe = colon ? colon : s;
	d->up = colon ? colon + 1 : s;
	dash = NULL;
	for (const char *p = d->up; p < end; p++)
		if (*p == '-')
			dash = p;
	d->upe = dash ? dash : end;
	d->rev = dash ? dash + 1 : end;
	d->reve = end;
}

int dpkg_version_cmp(const char *a, const char *b)
{
	struct dpkg_ver x, y;
	int c;

	dpkg_split(a, &x);
	dpkg_split(b, &y);
	c = dpkg_part_cmp(x.ep, x.epe, y.ep, y.epe);
	if (!c)
		c = dpkg_part_cmp(x.up, x.upe, y.up, y.upe);
	if (!c)
		c = dpkg_part_cmp(x.rev, x.reve, y.rev, y.reve);
	return c;
}
