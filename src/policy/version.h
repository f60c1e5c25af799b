/* Version strings as vendors print them, and the two ways cmax orders them.
 *
 * The generic form follows the minimum-table rules: an optional leading "v",
 * an optional epoch ("1:"), then up to four numeric parts (missing ones are
 * zero). A pre-release tag right after the numbers ("-rc.3", "-rc1", "~rc1",
 * "-beta2") sorts below the stable release of the same numbers; any other
 * tail ("-1ubuntu1", "+ds", "~22.04", " (build 1234)") is packaging noise and
 * is dropped, because the floors in the table are upstream versions.
 *
 * dpkg_version_cmp() is the Debian policy ordering, for distro packages where
 * the packaging revision is what carries the fix. */
#ifndef CMAX_VERSION_H
#define CMAX_VERSION_H
#include <stddef.h>

#define VER_PARTS 4
#define VER_MM_MAX 48	/* room for "major.minor" of two longs */

enum ver_pre {
	VER_PRE_ALPHA = 1,
	VER_PRE_BETA,
	VER_PRE_RC,
	VER_STABLE,
};

struct ver {
	long part[VER_PARTS];	/* zero padded */
	int nparts;		/* how many the string actually had (1..4) */
	enum ver_pre pre;
	long prenum;		/* "rc.3" -> 3; 0 when the tag has no number */
	size_t start, end;	/* the graded span inside the parsed string */
};

/* 0, or -1 when s has no leading numeric version (garbage, empty, NULL). */
int ver_parse(const char *s, struct ver *out);
/* <0, 0, >0 like strcmp. */
int ver_cmp(const struct ver *a, const struct ver *b);
/* Parse both and compare into *res; -1 when either does not parse. */
int ver_compare(const char *a, const char *b, int *res);
/* The part of s that grading looked at, as the vendor wrote it: no "v", no
 * epoch, no packaging tail ("5:29.7.0-1~ubuntu.24.04~noble" -> "29.7.0",
 * "1.5.0-rc.2" stays). malloc'd; NULL when s does not parse. */
char *ver_graded_form(const char *s);

/* Debian policy 5.6.12 ordering of epoch:upstream-revision. Never fails:
 * malformed strings still get a total, deterministic order. NULL == "". */
int dpkg_version_cmp(const char *a, const char *b);

/* First numeric part, or -1 when s does not parse. */
long ver_major(const char *s);
/* "major.minor" of s into buf (>= VER_MM_MAX bytes); NULL when s does not
 * parse. A version with one part reads as "N.0". */
const char *ver_major_minor(const char *s, char *buf);
#endif
