#include "policy/minimums.h"
#include "core/jsonget.h"
#include "policy/version.h"
#include "core/clock.h"
#include "core/timefmt.h"
#include "core/policyfile.h"
#include "core/readfile.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAY_SECONDS 86400L
/* Driver branches above this are not NVIDIA branch numbers at all. */
#define BRANCH_CEILING 999

struct minimums {
	json_t *root;
	json_t *components;	/* borrowed from root */
	const char *generated_s;
	time_t generated;
	long max_age_days;
	long grace_days;
	char *path;
};

/* ------------------------------------------------------------------ */
/* Shape validation                                                    */

/* Names in messages come from the file, which may be hostile. */
static char *safe(const char *s)
{
	return str_excerpt(s ? s : "", s ? strlen(s) : 0, 64);
}

static int __attribute__((format(printf, 3, 4)))
bad(char **err, const char *comp, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!err)
		return -1;
	if (comp) {
		char *c = safe(comp);

		sb_addf(&sb, "minimum table: component '%s': ", c);
		free(c);
	} else {
		sb_adds(&sb, "minimum table: ");
	}
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(*err);
	*err = sb_detach(&sb);
	return -1;
}

static int is_version(const char *s)
{
	struct ver v;

	return s && ver_parse(s, &v) == 0;
}

static int is_date(const char *s)
{
	return s && time_parse_iso(s) != -1;
}

static int is_string_array(const json_t *a)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a))
		return 0;
	json_array_foreach(a, i, v)
		if (!json_is_string(v))
			return 0;
	return 1;
}

/* A key made only of digits, short enough to be a branch or train. */
static int numeric_key(const char *k, long *out)
{
	size_t n = strlen(k);

	if (n == 0 || n > 6)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)k[i]))
			return 0;
	*out = strtol(k, NULL, 10);
	return 1;
}

/* "1.2" -> 1, 2 */
static int line_key(const char *k, long *maj, long *min)
{
	char *end;

	if (!isdigit((unsigned char)k[0]) || strlen(k) > 13)
		return 0;
	*maj = strtol(k, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return 0;
	*min = strtol(end + 1, &end, 10);
	return *end == 0;
}

/* "xx.39.8002" or "28.39.8002": the family part is free, the train must
 * match the key it is filed under, the patch is what gets compared. */
static int train_floor(const char *s, long train, long *patch)
{
	const char *p = s, *dot;
	char *end;

	dot = strchr(p, '.');
	if (!dot || dot == p)
		return 0;
	if (!(dot - p == 2 && strncasecmp(p, "xx", 2) == 0))
		for (const char *q = p; q < dot; q++)
			if (!isdigit((unsigned char)*q))
				return 0;
	p = dot + 1;
	if (!isdigit((unsigned char)*p))
		return 0;
	errno = 0;
	if (strtol(p, &end, 10) != train || *end != '.' || errno)
		return 0;
	p = end + 1;
	if (!isdigit((unsigned char)*p) || strlen(p) > 9)
		return 0;
	*patch = strtol(p, &end, 10);
	return *end == 0;
}

/* Provenance: required on a component, optional (but well-formed) on a
 * distro package entry, which may override the component's. */
static int check_provenance(const json_t *o, const char *comp, const char *where, int required,
			    char **err)
{
	json_t *v, *src, *fa;

	v = json_object_get(o, "advisory");
	if (v ? !json_is_string(v) : required)
		return bad(err, comp, "%s'advisory' must be a URL string", where);
	v = json_object_get(o, "cves");
	if (v ? !is_string_array(v) : required)
		return bad(err, comp, "%s'cves' must be an array of strings", where);
	v = json_object_get(o, "advisories");
	if (v ? !is_string_array(v) : required)
		return bad(err, comp, "%s'advisories' must be an array of strings", where);

	src = json_object_get(o, "source");
	if (src) {
		static const char *const keys[] = { "feed", "title", "url" };

		if (!json_is_object(src))
			return bad(err, comp, "%s'source' must be an object", where);
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!json_is_string(json_object_get(src, keys[i])))
				return bad(err, comp, "%s'source.%s' must be a string", where, keys[i]);
		if (!is_date(jget_str(src, "released")))
			return bad(err, comp, "%s'source.released' must be a YYYY-MM-DD date", where);
		v = json_object_get(src, "aId");
		if (v && !json_is_string(v) && !json_is_integer(v))
			return bad(err, comp, "%s'source.aId' must be a string or an integer", where);
	} else if (required) {
		return bad(err, comp, "%s'source' is missing", where);
	}

	fa = json_object_get(o, "fixAvailability");
	if (fa) {
		const char *st;

		if (!json_is_object(fa))
			return bad(err, comp, "%s'fixAvailability' must be an object", where);
		st = jget_str(fa, "status");
		if (!st)
			return bad(err, comp, "%s'fixAvailability.status' must be a string", where);
		v = json_object_get(fa, "available");
		if (v && !json_is_null(v) && !is_date(json_string_value(v)))
			return bad(err, comp, "%s'fixAvailability.available' must be a date or null", where);
		if (strcmp(st, "confirmed") == 0 && !json_is_string(v))
			return bad(err, comp, "%sa confirmed 'fixAvailability' needs an 'available' date",
				   where);
		v = json_object_get(fa, "bulletinReleased");
		if (v && !json_is_null(v) && !is_date(json_string_value(v)))
			return bad(err, comp, "%s'fixAvailability.bulletinReleased' must be a date", where);
	} else if (required) {
		return bad(err, comp, "%s'fixAvailability' is missing", where);
	}
	return 0;
}

static json_t *nonempty_object(const json_t *c, const char *key, const char *comp, char **err)
{
	json_t *o = json_object_get(c, key);

	if (!json_is_object(o) || json_object_size(o) == 0) {
		bad(err, comp, "'%s' must be a non-empty object", key);
		return NULL;
	}
	return o;
}

static int check_minimum(json_t *c, const char *comp, char **err)
{
	if (!is_version(jget_str(c, "minimum")))
		return bad(err, comp, "'minimum' must be a version string");
	return 0;
}

static int check_branch_map(json_t *c, const char *comp, char **err)
{
	json_t *o = nonempty_object(c, "branches", comp, err), *v;
	const char *k;
	long br;

	if (!o)
		return -1;
	json_object_foreach(o, k, v) {
		char *sk = safe(k);
		int ok = numeric_key(k, &br) && br <= BRANCH_CEILING && is_version(json_string_value(v)) &&
			 ver_major(json_string_value(v)) == br;

		if (!ok) {
			bad(err, comp, "branch '%s' needs a version string of that branch", sk);
			free(sk);
			return -1;
		}
		free(sk);
	}
	return 0;
}

static int check_ladder(json_t *c, const char *comp, char **err)
{
	json_t *o = nonempty_object(c, "ladder", comp, err), *v, *ranges;
	const char *k;
	char mm[VER_MM_MAX];
	size_t i;

	if (!o)
		return -1;
	json_object_foreach(o, k, v) {
		long maj, min;
		const char *s = json_string_value(v);
		char *sk = safe(k);
		int ok = line_key(k, &maj, &min) && is_version(s) && strcmp(ver_major_minor(s, mm), k) == 0;

		if (!ok) {
			bad(err, comp, "ladder line '%s' needs a version string of that major.minor", sk);
			free(sk);
			return -1;
		}
		free(sk);
	}
	ranges = json_object_get(c, "advisoryRanges");
	if (!ranges)
		return 0;
	if (!json_is_array(ranges))
		return bad(err, comp, "'advisoryRanges' must be an array");
	json_array_foreach(ranges, i, v) {
		json_t *fixed = json_object_get(v, "fixed"), *f;
		const char *intro = jget_str(v, "introduced");
		size_t j;

		if (!json_is_object(v) || !jget_str(v, "id"))
			return bad(err, comp, "advisoryRanges[%zu] needs an 'id' string", i);
		if (intro && !is_version(intro))
			return bad(err, comp, "advisoryRanges[%zu].introduced is not a version", i);
		if (!json_is_array(fixed))
			return bad(err, comp, "advisoryRanges[%zu].fixed must be an array of versions", i);
		json_array_foreach(fixed, j, f)
			if (!is_version(json_string_value(f)))
				return bad(err, comp, "advisoryRanges[%zu].fixed[%zu] is not a version", i, j);
	}
	return 0;
}

static int check_train_map(json_t *c, const char *comp, char **err)
{
	json_t *o = nonempty_object(c, "trains", comp, err), *v;
	const char *k;
	long tr, patch;

	if (!o)
		return -1;
	json_object_foreach(o, k, v) {
		const char *s = json_string_value(v);

		if (!numeric_key(k, &tr) || !s || !train_floor(s, tr, &patch)) {
			char *sk = safe(k);

			bad(err, comp, "train '%s' needs a firmware floor 'xx.%s.PPPP'", sk, sk);
			free(sk);
			return -1;
		}
	}
	return 0;
}

static int check_release_lines(json_t *c, const char *comp, char **err)
{
	json_t *o = nonempty_object(c, "lines", comp, err), *v, *legacy;
	const char *k;
	struct ver mv;

	if (!o)
		return -1;
	json_object_foreach(o, k, v) {
		char *sk = safe(k);
		int ok = json_is_object(v) && ver_parse(jget_str(v, "minimum"), &mv) == 0 && mv.nparts >= 2;

		legacy = json_object_get(v, "legacyAffectedThrough");
		if (ok && legacy && !is_version(json_string_value(legacy)))
			ok = 0;
		if (!ok) {
			bad(err, comp, "line '%s' needs {\"minimum\": \"YY.MM.N\"} and an optional "
				       "'legacyAffectedThrough' version", sk);
			free(sk);
			return -1;
		}
		free(sk);
	}
	return 0;
}

static int check_release_window(json_t *c, const char *comp, char **err)
{
	const char *pol = jget_str(c, "policy");
	int r;

	if (!pol || strcmp(pol, "current-or-previous") != 0)
		return bad(err, comp, "'policy' must be \"current-or-previous\"");
	if (!is_version(jget_str(c, "minimum")) || !is_version(jget_str(c, "current")))
		return bad(err, comp, "'minimum' and 'current' must be version strings");
	if (ver_compare(jget_str(c, "minimum"), jget_str(c, "current"), &r) < 0 || r > 0)
		return bad(err, comp, "'minimum' (the previous release) is newer than 'current'");
	return 0;
}

static int check_distro_packages(json_t *c, const char *comp, char **err)
{
	json_t *o = nonempty_object(c, "packages", comp, err), *v, *abi;
	const char *k;

	if (!o)
		return -1;
	json_object_foreach(o, k, v) {
		char *sk = safe(k), *where = xasprintf("package '%s': ", sk);
		int rc = 0;

		if (!json_is_object(v) || !is_version(jget_str(v, "fixed")))
			rc = bad(err, comp, "%sneeds a 'fixed' package version string", where);
		abi = json_object_get(v, "abi");
		if (!rc && abi && (!json_is_integer(abi) || json_integer_value(abi) <= 0))
			rc = bad(err, comp, "%s'abi' must be a positive integer", where);
		if (!rc && json_object_get(v, "package") && !jget_str(v, "package"))
			rc = bad(err, comp, "%s'package' must be a string", where);
		if (!rc)
			rc = check_provenance(v, comp, where, 0, err);
		free(where);
		free(sk);
		if (rc)
			return -1;
	}
	return 0;
}

static int check_program_map(json_t *c, const char *comp, char **err)
{
	json_t *o = nonempty_object(c, "programs", comp, err), *v;
	const char *k;

	if (!o)
		return -1;
	json_object_foreach(o, k, v) {
		if (!*k || !is_version(json_string_value(v))) {
			char *sk = safe(k);

			bad(err, comp, "program '%s' needs a version string", sk);
			free(sk);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Grading                                                             */

struct grade_ctx {
	const struct minimums *m;
	const char *comp;
	const json_t *c;
	const char *observed;	/* trimmed */
	const char *qualifier;
	const json_t *prov;	/* where grace dates come from: component or package */
};

static void __attribute__((format(printf, 4, 5)))
verdict(struct mv_verdict *o, enum mv_status st, const char *minimum, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;

	o->status = st;
	free(o->minimum);
	o->minimum = minimum ? xstrdup(minimum) : NULL;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(o->detail);
	o->detail = sb_detach(&sb);
}

/* Fills o->version; on garbage the verdict is UNKNOWN, never a failure:
 * a value cmax cannot read is not evidence against the provider. */
static int observed_ver(const struct grade_ctx *g, struct mv_verdict *o, struct ver *v)
{
	if (ver_parse(g->observed, v) == 0) {
		o->version = ver_graded_form(g->observed);
		return 0;
	}
	o->version = safe(g->observed);
	verdict(o, MV_UNKNOWN, NULL, "%s version '%s' is not a version string cmax can grade", g->comp,
		o->version);
	return -1;
}

static void compare_floor(const struct grade_ctx *g, struct mv_verdict *o, const struct ver *ov,
			  const char *floor, const char *rule)
{
	struct ver fv;

	ver_parse(floor, &fv);
	if (ver_cmp(ov, &fv) < 0)
		verdict(o, MV_FAIL, floor, "%s %s is below the %s %s", g->comp, o->version, rule, floor);
	else
		verdict(o, MV_PASS, floor, "%s %s meets the %s %s", g->comp, o->version, rule, floor);
}

static void grade_minimum(struct grade_ctx *g, struct mv_verdict *o)
{
	struct ver ov;

	if (observed_ver(g, o, &ov) == 0)
		compare_floor(g, o, &ov, jget_str(g->c, "minimum"), "minimum");
}

static void grade_branch_map(struct grade_ctx *g, struct mv_verdict *o)
{
	json_t *o_br = json_object_get(g->c, "branches"), *v;
	const char *k, *exact = NULL, *near_floor = NULL, *new_floor = NULL;
	long lowest = -1, newest = -1, near = -1, br;
	struct ver ov;

	if (observed_ver(g, o, &ov) < 0)
		return;
	br = ov.part[0];
	json_object_foreach(o_br, k, v) {
		long b = strtol(k, NULL, 10);
		long d = labs(b - br), nd = labs(near - br);

		if (lowest < 0 || b < lowest)
			lowest = b;
		if (b > newest) {
			newest = b;
			new_floor = json_string_value(v);
		}
		if (b == br)
			exact = json_string_value(v);
		/* ties go to the newer branch: the stricter floor */
		if (near < 0 || d < nd || (d == nd && b > near)) {
			near = b;
			near_floor = json_string_value(v);
		}
	}
	if (br < lowest || br > BRANCH_CEILING) {
		verdict(o, MV_UNKNOWN, NULL, "%s branch %ld is outside the graded branch range %ld..%d",
			g->comp, br, lowest, BRANCH_CEILING);
	} else if (exact) {
		char *rule = xasprintf("branch %ld floor", br);

		compare_floor(g, o, &ov, exact, rule);
		free(rule);
	} else if (br > newest) {
		verdict(o, MV_PASS, new_floor,
			"%s branch %ld is newer than the newest listed branch %ld and is taken as fixed",
			g->comp, br, newest);
	} else {
		char *rule = xasprintf("branch %ld floor", near);
		char *d;

		compare_floor(g, o, &ov, near_floor, rule);
		d = xasprintf("branch %ld is not listed, so the nearest rule applies: %s", br, o->detail);
		free(o->detail);
		o->detail = d;
		free(rule);
	}
}

static int line_cmp(long amaj, long amin, long bmaj, long bmin)
{
	if (amaj != bmaj)
		return amaj < bmaj ? -1 : 1;
	return amin < bmin ? -1 : amin > bmin;
}

static void grade_ladder(struct grade_ctx *g, struct mv_verdict *o)
{
	json_t *lad = json_object_get(g->c, "ladder"), *v;
	const char *k, *exact = NULL, *low_k = NULL, *low_floor = NULL, *high_k = NULL;
	long lmaj = 0, lmin = 0, hmaj = 0, hmin = 0, maj, min;
	char key[VER_MM_MAX];
	struct ver ov;

	if (observed_ver(g, o, &ov) < 0)
		return;
	snprintf(key, sizeof(key), "%ld.%ld", ov.part[0], ov.part[1]);
	json_object_foreach(lad, k, v) {
		line_key(k, &maj, &min);
		if (strcmp(k, key) == 0)
			exact = json_string_value(v);
		if (!low_k || line_cmp(maj, min, lmaj, lmin) < 0) {
			low_k = k;
			low_floor = json_string_value(v);
			lmaj = maj;
			lmin = min;
		}
		if (!high_k || line_cmp(maj, min, hmaj, hmin) > 0) {
			high_k = k;
			hmaj = maj;
			hmin = min;
		}
	}
	if (exact) {
		char *rule = xasprintf("%s line floor", key);

		compare_floor(g, o, &ov, exact, rule);
		free(rule);
	} else if (line_cmp(ov.part[0], ov.part[1], lmaj, lmin) < 0) {
		verdict(o, MV_FAIL, low_floor,
			"%s line %s is below the oldest supported line; the nearest supported line is %s "
			"(floor %s)", g->comp, key, low_k, low_floor);
	} else if (line_cmp(ov.part[0], ov.part[1], hmaj, hmin) > 0) {
		verdict(o, MV_PASS, NULL,
			"%s line %s is newer than the newest listed line %s and is taken as fixed", g->comp,
			key, high_k);
	} else {
		verdict(o, MV_UNKNOWN, NULL, "%s line %s is not in the ladder, so there is no floor for it",
			g->comp, key);
	}
}

static void grade_train_map(struct grade_ctx *g, struct mv_verdict *o)
{
	json_t *trains = json_object_get(g->c, "trains"), *v;
	const char *k, *exact = NULL;
	long lowest = -1, newest = -1, tr, t, patch;
	struct ver ov;

	if (observed_ver(g, o, &ov) < 0)
		return;
	if (ov.nparts < 3) {
		verdict(o, MV_UNKNOWN, NULL, "%s %s is not firmware of the form AA.TT.PPPP", g->comp,
			o->version);
		return;
	}
	tr = ov.part[1];
	json_object_foreach(trains, k, v) {
		t = strtol(k, NULL, 10);
		if (lowest < 0 || t < lowest)
			lowest = t;
		if (t > newest)
			newest = t;
		if (t == tr)
			exact = json_string_value(v);
	}
	if (exact) {
		/* Show the floor in the device's own family, not "xx". */
		char *floor;

		train_floor(exact, tr, &patch);
		floor = xasprintf("%ld.%ld.%04ld", ov.part[0], tr, patch);
		if (ov.part[2] < patch)
			verdict(o, MV_FAIL, floor, "%s %s is below the train %ld floor %s", g->comp,
				o->version, tr, floor);
		else
			verdict(o, MV_PASS, floor, "%s %s meets the train %ld floor %s", g->comp, o->version,
				tr, floor);
		free(floor);
	} else if (tr > newest) {
		verdict(o, MV_PASS, NULL,
			"%s train %ld is newer than the newest listed train %ld and is taken as fixed", g->comp,
			tr, newest);
	} else {
		verdict(o, MV_UNKNOWN, NULL, "%s train %ld is not in the table (%s than train %ld)", g->comp,
			tr, tr < lowest ? "older" : "not newer", tr < lowest ? lowest : newest);
	}
}

static void grade_one_line(const struct grade_ctx *g, struct mv_verdict *o, const struct ver *ov,
			   const char *name, const json_t *line)
{
	const char *min = jget_str(line, "minimum");
	const char *legacy = jget_str(line, "legacyAffectedThrough");
	struct ver mv, lv;

	ver_parse(min, &mv);
	/* Before year.month numbering the controller shipped as 1.x; the
	 * bulletin names the last affected legacy build, not a floor. */
	if (legacy && ver_parse(legacy, &lv) == 0 && ov->part[0] == lv.part[0] &&
	    ov->part[0] != mv.part[0]) {
		if (ver_cmp(ov, &lv) <= 0)
			verdict(o, MV_FAIL, min,
				"%s legacy build %s is in the %s affected range through %s", g->comp,
				o->version, name, legacy);
		else
			verdict(o, MV_PASS, min, "%s legacy build %s is after the %s affected range through %s",
				g->comp, o->version, name, legacy);
		return;
	}
	char *rule = xasprintf("%s line floor", name);

	compare_floor(g, o, ov, min, rule);
	free(rule);
}

static void grade_release_lines(struct grade_ctx *g, struct mv_verdict *o)
{
	json_t *lines = json_object_get(g->c, "lines"), *v, *hit = NULL;
	const char *k, *hit_name = NULL;
	struct strbuf names = STRBUF_INIT, raw = STRBUF_INIT;
	int nhit = 0, newer_than_all = 1;
	struct ver ov, mv;

	if (observed_ver(g, o, &ov) < 0)
		return;
	if (g->qualifier && *g->qualifier) {
		json_object_foreach(lines, k, v)
			if (strcasecmp(k, g->qualifier) == 0)
				break;
		if (!k) {
			char *q = safe(g->qualifier);

			verdict(o, MV_UNKNOWN, NULL, "%s release line '%s' is not in the table", g->comp, q);
			free(q);
			return;
		}
		grade_one_line(g, o, &ov, k, v);
		return;
	}
	json_object_foreach(lines, k, v) {
		ver_parse(jget_str(v, "minimum"), &mv);
		if (line_cmp(ov.part[0], ov.part[1], mv.part[0], mv.part[1]) <= 0)
			newer_than_all = 0;
		if (mv.part[0] != ov.part[0] || mv.part[1] != ov.part[1])
			continue;
		nhit++;
		hit = v;
		hit_name = k;
		sb_addf(&names, "%s%s", names.len ? " and " : "", k);
		sb_addf(&raw, "%s%s floor %s: %s", raw.len ? ", " : "", k, jget_str(v, "minimum"),
			ver_cmp(&ov, &mv) < 0 ? "below" : "meets");
	}
	if (nhit == 1) {
		grade_one_line(g, o, &ov, hit_name, hit);
	} else if (nhit > 1) {
		verdict(o, MV_UNKNOWN, NULL,
			"%s %s is read but ungraded: prefix %ld.%02ld is shared by lines %s and the line was "
			"not reported (%s)", g->comp, o->version, ov.part[0], ov.part[1], sb_str(&names),
			sb_str(&raw));
	} else {
		/* No year.month match: a legacy 1.x build, or a newer line. */
		json_object_foreach(lines, k, v) {
			struct ver lv;
			const char *legacy = jget_str(v, "legacyAffectedThrough");

			if (legacy && ver_parse(legacy, &lv) == 0 && lv.part[0] == ov.part[0])
				break;
		}
		if (k)
			grade_one_line(g, o, &ov, k, v);
		else if (newer_than_all)
			verdict(o, MV_PASS, NULL,
				"%s %s is newer than every listed release line and is taken as fixed",
				g->comp, o->version);
		else
			verdict(o, MV_UNKNOWN, NULL, "%s %s matches no listed release line", g->comp,
				o->version);
	}
	sb_free(&names);
	sb_free(&raw);
}

static void grade_release_window(struct grade_ctx *g, struct mv_verdict *o)
{
	const char *min = jget_str(g->c, "minimum"), *cur = jget_str(g->c, "current");
	struct ver ov, mv, cv;

	if (observed_ver(g, o, &ov) < 0)
		return;
	ver_parse(min, &mv);
	ver_parse(cur, &cv);
	/* Releases are year.month; a patch or build number does not move a
	 * release in or out of the window. */
	ov.part[2] = ov.part[3] = mv.part[2] = mv.part[3] = cv.part[2] = cv.part[3] = 0;
	ov.pre = mv.pre = cv.pre = VER_STABLE;
	ov.prenum = mv.prenum = cv.prenum = 0;
	if (ver_cmp(&ov, &mv) < 0)
		verdict(o, MV_FAIL, min,
			"%s %s is older than the previous release %s; the current-or-previous policy "
			"accepts %s or %s", g->comp, o->version, min, cur, min);
	else if (ver_cmp(&ov, &cv) >= 0)
		verdict(o, MV_PASS, min, "%s %s is the current release %s or newer", g->comp, o->version,
			cur);
	else
		verdict(o, MV_PASS, min,
			"%s %s is within the current-or-previous window (current %s, previous %s)",
			g->comp, o->version, cur, min);
}

/* "6.8.0-110-generic" (uname -r) or "6.8.0-110": base and ABI, no upload. */
static int parse_uname(const char *s, char *base, size_t bn, long *abi)
{
	const char *dash = strchr(s, '-'), *p;
	char *end;

	if (!dash || (size_t)(dash - s) >= bn || dash == s)
		return 0;
	for (p = s; p < dash; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return 0;
	if (!isdigit((unsigned char)dash[1]) || strlen(dash + 1) > 64)
		return 0;
	errno = 0;
	*abi = strtol(dash + 1, &end, 10);
	if (errno || (*end != 0 && *end != '-') || (*end == '-' && !end[1]))
		return 0;
	memcpy(base, s, (size_t)(dash - s));
	base[dash - s] = 0;
	return 1;
}

/* "6.8.0-124.124" -> base 6.8.0, ABI 124, upload 124. */
static int parse_kernel_pkg(const char *s, char *base, size_t bn, long *abi, long *upload)
{
	const char *dash = strchr(s, '-');
	char *end;

	if (!dash || (size_t)(dash - s) >= bn || !isdigit((unsigned char)dash[1]) ||
	    strlen(dash + 1) > 64)
		return 0;
	*abi = strtol(dash + 1, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return 0;
	*upload = strtol(end + 1, &end, 10);
	memcpy(base, s, (size_t)(dash - s));
	base[dash - s] = 0;
	return 1;
}

static void grade_distro_packages(struct grade_ctx *g, struct mv_verdict *o)
{
	json_t *pkgs = json_object_get(g->c, "packages"), *pkg, *abi_j;
	const char *fixed;
	char obase[80], fbase[80];
	long oabi, fabi = -1, fup = -1, abi;
	struct ver ov;

	if (!g->qualifier || !*g->qualifier) {
		o->version = safe(g->observed);
		verdict(o, MV_UNKNOWN, NULL, "%s needs a package key to grade %s", g->comp, o->version);
		return;
	}
	pkg = json_object_get(pkgs, g->qualifier);
	if (!pkg) {
		char *q = safe(g->qualifier);

		o->version = safe(g->observed);
		verdict(o, MV_UNKNOWN, NULL, "%s package '%s' is not in the table", g->comp, q);
		free(q);
		return;
	}
	g->prov = pkg;
	fixed = jget_str(pkg, "fixed");
	if (ver_parse(g->observed, &ov) < 0) {
		o->version = safe(g->observed);
		verdict(o, MV_UNKNOWN, fixed, "%s %s version '%s' is not a package version cmax can grade",
			g->comp, g->qualifier, o->version);
		return;
	}
	o->version = safe(g->observed);
	abi_j = json_object_get(pkg, "abi");
	parse_kernel_pkg(fixed, fbase, sizeof(fbase), &fabi, &fup);
	abi = abi_j ? (long)json_integer_value(abi_j) : fabi;

	/* A running kernel shows only its ABI, not the upload number, so the
	 * ABI is all that can be graded; equal ABIs with a later fixed upload
	 * cannot be told apart and stay unknown. */
	if (fabi >= 0 && parse_uname(g->observed, obase, sizeof(obase), &oabi)) {
		if (strcmp(obase, fbase) != 0)
			verdict(o, MV_UNKNOWN, fixed, "%s %s: kernel %s is not the %s series the fix %s was "
				"published for", g->comp, g->qualifier, obase, fbase, fixed);
		else if (oabi < abi)
			verdict(o, MV_FAIL, fixed, "%s %s: kernel ABI %ld is below the fixed ABI %ld (%s)",
				g->comp, g->qualifier, oabi, abi, fixed);
		else if (oabi > abi || abi_j || fup == fabi)
			verdict(o, MV_PASS, fixed, "%s %s: kernel ABI %ld meets the fixed ABI %ld (%s)",
				g->comp, g->qualifier, oabi, abi, fixed);
		else
			verdict(o, MV_UNKNOWN, fixed, "%s %s: kernel ABI %ld equals the fixed ABI but the "
				"running kernel does not show its upload number (fixed %s)", g->comp,
				g->qualifier, oabi, fixed);
		return;
	}
	int c = dpkg_version_cmp(g->observed, fixed);
	long pabi, pup;

	if (c < 0) {
		verdict(o, MV_FAIL, fixed, "%s %s %s is older than the fixed package %s (dpkg order)",
			g->comp, g->qualifier, o->version, fixed);
	} else if (abi_j && parse_kernel_pkg(g->observed, obase, sizeof(obase), &pabi, &pup) &&
		   pabi < abi) {
		verdict(o, MV_FAIL, fixed, "%s %s %s has kernel ABI %ld, below the fixed ABI %ld", g->comp,
			g->qualifier, o->version, pabi, abi);
	} else {
		verdict(o, MV_PASS, fixed, "%s %s %s is at or after the fixed package %s (dpkg order)",
			g->comp, g->qualifier, o->version, fixed);
	}
}

/* "AMD Instinct MI300X OAM" names MI300X: take the longest program id that
 * appears as a whole word, so MI300X is not read as MI300. */
static const char *find_program(const json_t *progs, const char *q, json_t **floor)
{
	const char *k, *best = NULL;
	json_t *v;
	size_t bl = 0, ql = strlen(q);

	json_object_foreach((json_t *)progs, k, v) {
		size_t kl = strlen(k);

		if (strcasecmp(k, q) == 0) {
			*floor = v;
			return k;
		}
		for (size_t i = 0; kl && i + kl <= ql; i++) {
			if (strncasecmp(q + i, k, kl) != 0)
				continue;
			if ((i && isalnum((unsigned char)q[i - 1])) || isalnum((unsigned char)q[i + kl]))
				continue;
			if (kl > bl) {
				best = k;
				bl = kl;
				*floor = v;
			}
		}
	}
	return best;
}

static void grade_program_map(struct grade_ctx *g, struct mv_verdict *o)
{
	json_t *progs = json_object_get(g->c, "programs"), *floor = NULL;
	const char *prog;
	struct ver ov;

	if (observed_ver(g, o, &ov) < 0)
		return;
	if (!g->qualifier || !*g->qualifier) {
		verdict(o, MV_UNKNOWN, NULL, "%s %s cannot be graded without the GPU program", g->comp,
			o->version);
		return;
	}
	prog = find_program(progs, g->qualifier, &floor);
	if (!prog) {
		char *q = safe(g->qualifier);

		verdict(o, MV_UNKNOWN, NULL, "%s has no floor for GPU program '%s'", g->comp, q);
		free(q);
		return;
	}
	char *rule = xasprintf("%s floor", prog);

	compare_floor(g, o, &ov, json_string_value(floor), rule);
	free(rule);
}

static const struct kind {
	const char *name;
	int (*check)(json_t *c, const char *comp, char **err);
	void (*grade)(struct grade_ctx *g, struct mv_verdict *o);
} kinds[] = {
	{ "minimum", check_minimum, grade_minimum },
	/* Docker's release plus rc ordering is what the generic compare does;
	 * the alias lets a table say so explicitly. */
	{ "docker", check_minimum, grade_minimum },
	{ "branchMap", check_branch_map, grade_branch_map },
	{ "ladder", check_ladder, grade_ladder },
	{ "trainMap", check_train_map, grade_train_map },
	{ "releaseLines", check_release_lines, grade_release_lines },
	{ "releaseWindow", check_release_window, grade_release_window },
	{ "distroPackages", check_distro_packages, grade_distro_packages },
	{ "programMap", check_program_map, grade_program_map },
};

static const struct kind *find_kind(const char *name)
{
	for (size_t i = 0; name && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].name, name) == 0)
			return &kinds[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Loading                                                             */

static long get_days(const json_t *root, const char *key, long lo)
{
	json_t *v = json_object_get(root, key);

	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > 3650)
		return -1;
	return (long)json_integer_value(v);
}

struct minimums *minimums_parse(const char *buf, size_t len, char **err)
{
	json_error_t jerr;
	json_t *root, *comps, *c, *src;
	struct minimums *m;
	const char *name;

	if (err)
		*err = NULL;
	root = json_loadb(buf ? buf : "", buf ? len : 0, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		bad(err, NULL, "not valid JSON (line %d: %s)", jerr.line, jerr.text);
		return NULL;
	}
	m = xcalloc(1, sizeof(*m));
	m->root = root;
	if (!json_is_object(root)) {
		bad(err, NULL, "the top level must be an object");
		goto fail;
	}
	if (!json_is_integer(json_object_get(root, "schemaVersion")) ||
	    json_integer_value(json_object_get(root, "schemaVersion")) != 1) {
		bad(err, NULL, "'schemaVersion' must be 1");
		goto fail;
	}
	m->generated_s = jget_str(root, "generated");
	m->generated = time_parse_iso(m->generated_s);
	if (m->generated == -1) {
		bad(err, NULL, "'generated' must be an ISO-8601 time");
		goto fail;
	}
	m->max_age_days = get_days(root, "maxAgeDays", 1);
	m->grace_days = get_days(root, "gracePeriodDays", 0);
	if (m->max_age_days < 0 || m->grace_days < 0) {
		bad(err, NULL, "'maxAgeDays' (1..3650) and 'gracePeriodDays' (0..3650) must be integers");
		goto fail;
	}
	src = json_object_get(root, "source");
	if (src && !json_is_string(src) && !json_is_object(src)) {
		bad(err, NULL, "'source' must be a string or an object");
		goto fail;
	}
	comps = json_object_get(root, "components");
	if (!json_is_object(comps) || json_object_size(comps) == 0) {
		bad(err, NULL, "'components' must be a non-empty object");
		goto fail;
	}
	json_object_foreach(comps, name, c) {
		const struct kind *k;

		if (!*name) {
			bad(err, NULL, "a component has an empty name");
			goto fail;
		}
		if (!json_is_object(c)) {
			bad(err, name, "must be an object");
			goto fail;
		}
		k = find_kind(jget_str(c, "kind"));
		if (!k) {
			char *kn = safe(jget_str(c, "kind"));

			bad(err, name, jget_str(c, "kind") ? "unknown kind '%s'" : "'kind' is missing%s",
			    jget_str(c, "kind") ? kn : "");
			free(kn);
			goto fail;
		}
		if (k->check(c, name, err) < 0 || check_provenance(c, name, "", 1, err) < 0)
			goto fail;
	}
	m->components = comps;
	return m;
fail:
	minimums_free(m);
	return NULL;
}

struct minimums *minimums_load(const char *path, char **err)
{
	struct minimums *m;
	char *text = NULL, *rerr = NULL;
	size_t len = 0;

	if (err)
		*err = NULL;
	if (!path) {
		if (err)
			*err = xasprintf("minimum table (none): no path given");
		return NULL;
	}
	/* the one input reader (core/readfile.h): its cap for minimum tables,
	 * so a wrong path cannot eat memory, and no device or FIFO hang */
	if (read_input(path, INPUT_MINIMUMS, &text, &len, &rerr) != 0) {
		if (err)
			*err = xasprintf("minimum table %s", rerr);
		free(rerr);
		return NULL;
	}
	struct strbuf sb = { text, len, len + 1 };
	/* Its schema first (core/policyfile.h): a table that breaks it never grades;
	 * text that is not JSON gets minimums_parse()'s message. */
	json_t *doc = json_loadb(sb_str(&sb), sb.len, JSON_REJECT_DUPLICATES, NULL);
	if (doc) {
		char *verr = NULL;
		enum cmax_err vrc = policy_validate(doc, "minimum-versions", path, &verr);

		json_decref(doc);
		if (vrc) {
			if (err)
				*err = verr;
			else
				free(verr);
			sb_free(&sb);
			return NULL;
		}
	}
	m = minimums_parse(sb_str(&sb), sb.len, err);
	sb_free(&sb);
	if (!m) {
		if (err && *err) {
			char *e = xasprintf("%s: %s", path, *err);

			free(*err);
			*err = e;
		}
		return NULL;
	}
	m->path = xstrdup(path);
	return m;
}

void minimums_free(struct minimums *m)
{
	if (!m)
		return;
	json_decref(m->root);
	free(m->path);
	free(m);
}

/* ------------------------------------------------------------------ */
/* Verdicts                                                            */

static json_t *copy_array(const json_t *a)
{
	return json_is_array(a) ? json_deep_copy(a) : json_array();
}

static time_t get_date(const json_t *o, const char *key)
{
	return time_parse_iso(jget_str(o, key));
}

/* A finding about a fix nobody could install yet, or one published hours
 * ago, says nothing about how the provider patches; it turns into a pass
 * that carries the grace record instead. */
static void apply_grace(const struct grade_ctx *g, struct mv_verdict *o, time_t now)
{
	const json_t *fa = json_object_get(g->prov, "fixAvailability");
	const json_t *src = json_object_get(g->prov, "source");
	const char *st;
	time_t bulletin, avail, start, until;
	char iso[32];
	char *d;

	if (!fa)
		fa = json_object_get(g->c, "fixAvailability");
	if (!src)
		src = json_object_get(g->c, "source");
	st = jget_str(fa, "status");
	if (!st || strcmp(st, "confirmed") != 0) {
		o->status = MV_PASS;
		o->grace_active = 1;
		d = xasprintf("%s; grace period active because the fix is not yet confirmed available",
			      o->detail);
		free(o->detail);
		o->detail = d;
		return;
	}
	bulletin = get_date(fa, "bulletinReleased");
	if (bulletin == -1)
		bulletin = get_date(src, "released");
	avail = get_date(fa, "available");
	start = bulletin > avail ? bulletin : avail;
	if (start == -1)
		return;
	until = start + g->m->grace_days * DAY_SECONDS;
	if (now >= until)
		return;
	clock_iso(until, iso, sizeof(iso));
	o->status = MV_PASS;
	o->grace_active = 1;
	o->grace_until = xstrdup(iso);
	d = xasprintf("%s; within the %ld-day grace period until %s", o->detail, g->m->grace_days, iso);
	free(o->detail);
	o->detail = d;
}

int minimums_grade(const struct minimums *m, const char *component, const char *observed,
		   const char *qualifier, time_t now, struct mv_verdict *out)
{
	struct grade_ctx g = { 0 };
	const struct kind *k;
	char *obs;
	const json_t *c;

	memset(out, 0, sizeof(*out));
	out->status = MV_UNKNOWN;
	if (!m) {
		out->minimum = xstrdup("unavailable");
		out->detail = xstrdup("the minimum-version table is unavailable, so nothing was graded");
		out->cves = json_array();
		out->advisories = json_array();
		return -1;
	}
	c = component ? json_object_get(m->components, component) : NULL;
	if (!c) {
		char *cn = safe(component);

		out->detail = xasprintf("component '%s' is not in the minimum-version table", cn);
		free(cn);
		out->cves = json_array();
		out->advisories = json_array();
		return -1;
	}
	g.m = m;
	g.comp = component;
	g.c = c;
	g.prov = c;
	g.qualifier = qualifier;
	obs = xstrdup(observed ? observed : "");
	g.observed = str_trim(obs);
	k = find_kind(jget_str(c, "kind"));
	if (!*g.observed) {
		out->detail = xasprintf("no %s version was read, so it cannot be graded", component);
	} else {
		k->grade(&g, out);
		if (out->status == MV_FAIL)
			apply_grace(&g, out, now);
	}
	out->cves = copy_array(json_object_get(g.prov, "cves") ?: json_object_get(c, "cves"));
	out->advisories = copy_array(json_object_get(g.prov, "advisories") ?:
				     json_object_get(c, "advisories"));
	out->advisory_url = xstrdup(jget_str(g.prov, "advisory") ?: jget_str(c, "advisory"));
	free(obs);
	return 0;
}

void mv_verdict_free(struct mv_verdict *v)
{
	if (!v)
		return;
	free(v->version);
	free(v->minimum);
	free(v->detail);
	json_decref(v->cves);
	json_decref(v->advisories);
	free(v->advisory_url);
	free(v->grace_until);
	memset(v, 0, sizeof(*v));
}

const char *mv_status_name(enum mv_status s)
{
	switch (s) {
	case MV_PASS:
		return "pass";
	case MV_FAIL:
		return "fail";
	case MV_NOT_APPLICABLE:
		return "not_applicable";
	case MV_UNKNOWN:
		break;
	}
	return "unknown";
}

/* ------------------------------------------------------------------ */
/* Provenance                                                          */

static long age_days(const struct minimums *m, time_t now)
{
	/* A table from the future is clock skew, not freshness. */
	return now > m->generated ? (long)((now - m->generated) / DAY_SECONDS) : 0;
}

int minimums_stale(const struct minimums *m, time_t now)
{
	return m && age_days(m, now) > m->max_age_days;
}

json_t *minimums_meta(const struct minimums *m, time_t now)
{
	json_t *src;

	if (!m)
		return json_pack("{s:s, s:b}", "minimum", "unavailable", "stale", 1);
	src = json_object_get(m->root, "source");
	return json_pack("{s:s, s:I, s:I, s:b, s:I, s:O?, s:s?}",
			 "generated", m->generated_s,
			 "age_days", (json_int_t)age_days(m, now),
			 "max_age_days", (json_int_t)m->max_age_days,
			 "stale", minimums_stale(m, now),
			 "grace_period_days", (json_int_t)m->grace_days,
			 "source", src,
			 "path", m->path);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *minimums_component_names(const struct minimums *m)
{
	json_t *out = json_array(), *v;
	const char **names;
	const char *k;
	size_t n = 0;

	if (!m)
		return out;
	names = xcalloc(json_object_size(m->components) + 1, sizeof(*names));
	json_object_foreach(m->components, k, v)
		names[n++] = k;
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(out, json_string(names[i]));
	free(names);
	return out;
}
