/* The minimum-version table (data/minimum-versions.json, or the file given
 * with --minimums) and the grading of one observed version against it.
 * This is the only code that reads the table: everything else asks here, so
 * no minimum version is ever written into a check. */
#ifndef CMAX_MINIMUMS_H
#define CMAX_MINIMUMS_H
#include <jansson.h>
#include <time.h>

struct minimums;

/* NULL with a one-line, malloc'd message in *err on any problem. */
struct minimums *minimums_load(const char *path, char **err);
/* Strict shape check: an unknown kind, a missing field or a wrong type is an
 * error that names the component. */
struct minimums *minimums_parse(const char *buf, size_t len, char **err);
void minimums_free(struct minimums *m);

enum mv_status { MV_PASS, MV_FAIL, MV_UNKNOWN, MV_NOT_APPLICABLE };

struct mv_verdict {
	enum mv_status status;
	char *version;		/* graded form of the observed version */
	char *minimum;		/* the floor it was held to; "unavailable" without a table */
	char *detail;		/* one sentence that names the rule */
	json_t *cves;		/* owned references; arrays, possibly empty */
	json_t *advisories;
	char *advisory_url;
	int grace_active;
	char *grace_until;	/* ISO time; NULL while the fix is unconfirmed */
};

/* qualifier: GPU program for programMap ("MI300X"), release line for
 * releaseLines (may be NULL), package key for distroPackages
 * ("linuxFragnesia"). observed NULL or "" gives MV_UNKNOWN with a reason.
 * Returns 0, or -1 when m is NULL or the component is not in the table (the
 * verdict is then MV_UNKNOWN and says why). *out is always filled and must
 * be released with mv_verdict_free(). */
int minimums_grade(const struct minimums *m, const char *component, const char *observed,
		   const char *qualifier, time_t now, struct mv_verdict *out);
void mv_verdict_free(struct mv_verdict *v);
const char *mv_status_name(enum mv_status s); /* "pass", "fail", "unknown", "not_applicable" */

/* {generated, age_days, max_age_days, stale, grace_period_days, source, path} */
json_t *minimums_meta(const struct minimums *m, time_t now);
int minimums_stale(const struct minimums *m, time_t now);
json_t *minimums_component_names(const struct minimums *m); /* sorted array */
#endif
