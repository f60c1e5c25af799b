/* Numbers from the command line, range-checked (see numparse.h).
 *
 * Hand-written rather than strtol/strtod: those accept blanks, signs, hex,
 * exponents, "inf" and a locale's decimal comma, and saturate silently on
 * overflow; here every character is accounted for and arithmetic that does
 * not fit is refused.
 *
 * Sizes are 1024-based for every spelling (K, KB, Ki, KiB). fio's own rule
 * (fio(1), "Parameter types", int) is the same for K, KB and Ki with its
 * default kb_base=1024, but reads KiB as 1000 "for compatibility with old
 * scripts"; cmax does not follow that inversion, and since cmax hands fio
 * the plain byte count it computed, fio's reading never applies. */
#include "core/numparse.h"
#include "core/termsafe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

static int fail(char *err, const char *fmt, const char *opt, const char *s, const char *extra)
{
	if (err) {
		/* the argument as shown: escaped for a terminal (core/termsafe.h)
		 * and cut to 44 bytes, so a hostile one never reaches it raw */
		char *b = ts_oneline(s ? s : "", s ? strlen(s) : 0, 44);
		snprintf(err, NP_ERR_MAX, fmt, opt, b, extra ? extra : "");
		free(b);
	}
	return -1;
}

static int isdig(char c)
{
	return c >= '0' && c <= '9';
}

/* DIGITS into *v (saturating at UINT64_MAX, *over set); the end. */
static const char *digits(const char *p, uint64_t *v, int *over)
{
	*v = 0;
	for (; isdig(*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (*v > (UINT64_MAX - d) / 10)
			*over = 1;
		else
			*v = *v * 10 + d;
	}
	return p;
}

const char *np_fmt_size(uint64_t bytes, char *buf, size_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	int k = 0;
	while (k < 6 && bytes >> (10 * (k + 1)))
		k++;
	uint64_t u = UINT64_C(1) << (10 * k);
	if (k == 0 || bytes % u == 0)
		snprintf(buf, n, "%llu %s", (unsigned long long)(bytes / u), unit[k]);
	else
		snprintf(buf, n, "%.2f %s", (double)bytes / (double)u, unit[k]);
	return buf;
}

int np_size(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *err)
{
	static const char syntax[] = "%s wants a size such as 4096, 64K, 32M or 1G (1024-based), not '%s'%s";
	if (!s || !isdig(*s))
		return fail(err, syntax, opt, s, NULL);
	int over = 0;
	uint64_t ip, frac = 0, scale = 1;
	const char *p = digits(s, &ip, &over);
	if (*p == '.') {
		p++;
		if (!isdig(*p))
			return fail(err, syntax, opt, s, NULL);
		for (; isdig(*p); p++) {
			if (scale >= UINT64_C(100000000000000000))
				return fail(err, syntax, opt, s, " (at most 17 decimals)");
			frac = frac * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
	}
	int shift = 0;
	const char *pre = strchr("kmgtpe", *p | 0x20);
	if (*p && pre) {
		shift = 10 * (int)(pre - "kmgtpe" + 1);
		p++;
		if (*p == 'i' || *p == 'I')
			p++;
	}
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p)
		return fail(err, syntax, opt, s, NULL);
	char lb[32], hb[32], range[80];
	snprintf(range, sizeof range, " (%s to %s)", np_fmt_size(lo, lb, sizeof lb), np_fmt_size(hi, hb, sizeof hb));
	u128 fpart = (u128)frac << shift; /* frac < 10^17 < 2^57, shift <= 60 */
	if (fpart % scale)
		return fail(err, "%s '%s' is not a whole number of bytes%s", opt, s, NULL);
	u128 v = ((u128)ip << shift) + fpart / scale;
	if (over || v > hi || v < lo)
		return fail(err, "%s '%s' is out of range%s", opt, s, range);
	*out = (uint64_t)v;
	return 0;
}

int np_count(const char *opt, const char *s, long lo, long hi, long *out, char *err)
{
	char range[64];
	snprintf(range, sizeof range, " (%ld to %ld)", lo, hi);
	if (!s || !isdig(*s))
		return fail(err, "%s wants a whole number, not '%s'%s", opt, s, range);
	int over = 0;
	uint64_t v;
	const char *p = digits(s, &v, &over);
	if (*p)
		return fail(err, "%s wants a whole number, not '%s'%s", opt, s, range);
	if (over || v > (uint64_t)hi || (long)v < lo)
		return fail(err, "%s '%s' is out of range%s", opt, s, range);
	*out = (long)v;
	return 0;
}

int np_int(const char *opt, const char *s, int lo, int hi, int *out, char *err)
{
	long v;
	if (np_count(opt, s, lo, hi, &v, err) != 0)
		return -1;
	*out = (int)v;
	return 0;
}

/* A value cmax parses starts with a digit: no sign, no space, no "inf". */
static int starts_numeric(const char *s)
{
	return s && isdig(*s);
}

int np_seconds(const char *opt, const char *s, long lo, long hi, long *out, char *err)
{
	static const char syntax[] = "%s wants seconds such as 90, 90s, 5m or 1h, not '%s'%s";
	if (!starts_numeric(s))
		return fail(err, syntax, opt, s, NULL);
	int over = 0;
	uint64_t v;
	const char *p = digits(s, &v, &over);
	uint64_t mult = 1;
	if (*p == 's')
		p++;
	else if (*p == 'm')
		mult = 60, p++;
	else if (*p == 'h')
		mult = 3600, p++;
	if (*p)
		return fail(err, syntax, opt, s, NULL);
	if (over || v > (uint64_t)hi / mult || (long)(v * mult) < lo) {
		char range[80];
		snprintf(range, sizeof range, " (%ld to %ld seconds)", lo, hi);
		return fail(err, "%s '%s' is out of range%s", opt, s, range);
	}
	*out = (long)(v * mult);
	return 0;
}

int np_real(const char *opt, const char *s, double lo, double hi, double *out, char *err)
{
	static const char syntax[] = "%s wants a number such as 7.5, not '%s'%s";
	if (!starts_numeric(s))
		return fail(err, syntax, opt, s, NULL);
	double v = 0, scale = 1;
	int nd = 0;
	const char *p = s;
	for (; isdig(*p); p++, nd++)
		v = v * 10 + (*p - '0');
	if (*p == '.') {
		p++;
		if (!isdig(*p))
			return fail(err, syntax, opt, s, NULL);
		for (; isdig(*p); p++, nd++)
			v += (*p - '0') / (scale *= 10);
	}
	if (*p)
		return fail(err, syntax, opt, s, NULL);
	if (nd > 15 || !(v >= lo && v <= hi)) { /* beyond 15 digits a double is not exact */
		char range[80];
		snprintf(range, sizeof range, " (%g to %g)", lo, hi);
		return fail(err, "%s '%s' is out of range%s", opt, s, range);
	}
	*out = v;
	return 0;
}

int np_port(const char *opt, const char *s, int *out, char *err)
{
	long v;
	if (np_count(opt, s, 1, 65535, &v, NULL) != 0)
		return fail(err, "%s: '%s' is not a TCP/UDP port (1 to 65535)%s", opt, s, NULL);
	*out = (int)v;
	return 0;
}

int np_url_port(const char *opt, const char *url, int *port, char *err)
{
	*port = 0;
	const char *a = url ? strstr(url, "://") : NULL;
	if (!a)
		return fail(err, "%s wants a URL such as http://HOST:PORT%s%s", opt, "", NULL);
	a += 3;
	size_t alen = strcspn(a, "/?#");
	/* the last @ ends userinfo, which may itself hold ':' (never shown) */
	for (size_t i = alen; i > 0; i--)
		if (a[i - 1] == '@') {
			alen -= i;
			a += i;
			break;
		}
	const char *h = a, *end = a + alen, *colon;
	if (*h == '[') {
		const char *rb = memchr(h, ']', alen);
		if (!rb)
			return fail(err, "%s: an IPv6 address in a URL goes in [brackets]%s%s", opt, "", NULL);
		colon = rb + 1 < end && rb[1] == ':' ? rb + 1 : NULL;
		if (rb + 1 < end && !colon)
			return fail(err, "%s: unexpected text after ']' in the URL%s%s", opt, "", NULL);
	} else {
		colon = memchr(h, ':', alen);
	}
	if (!colon)
		return 0;
	char text[16];
	size_t n = (size_t)(end - colon - 1);
	if (n == 0)
		return fail(err, "%s: the URL names an empty port%s%s", opt, "", NULL);
	snprintf(text, sizeof text, "%.*s%s", n < 8 ? (int)n : 8, colon + 1, n < 8 ? "" : "...");
	if (n >= 8 || np_port(opt, text, port, NULL) != 0)
		return fail(err, "%s: port '%s' in the URL is not a TCP port (1 to 65535)%s", opt, text, NULL);
	return 0;
}
