/* The reliability limits of inject and reboot-test, from the "reliability"
 * section of data/thresholds.json (each with its basis there). Loaded and
 * checked before anything is injected or rebooted: a broken or missing
 * limit is CE_DATA (exit 65) naming the key, never a silent default that passes. */
#include "inject/inject.h"
#include "core/datafile.h"
#include "core/error.h"
#include "core/policyfile.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* obj.key.field as a positive finite number; -1 with *why when it is not. */
static int num(const json_t *sec, const char *key, const char *field, double *out, char **why)
{
	const json_t *o = json_object_get(sec, key);
	const json_t *v = json_is_object(o) ? json_object_get(o, field) : NULL;
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) <= 0) {
		*why = xasprintf("/reliability/%s/%s: expected a number of seconds > 0%s", key, field,
				 !o ? " (the key is missing)" : v ? "" : " (missing)");
		return -1;
	}
	*out = json_number_value(v);
	return 0;
}

enum cmax_err inj_limits_load(const char *prog, struct inj_limits *l)
{
	char *path = datafile_path("thresholds.json"), *err = NULL, *why = NULL;
	enum cmax_err e;
	/* the whole file against its schema first (core/policyfile.h) */
	json_t *doc = policy_load(path, "thresholds", POLICY_JSON, &e, &err);
	memset(l, 0, sizeof *l);
	if (!doc) {
		fprintf(stderr, "%s: %s\n", prog, err);
		free(err);
		free(path);
		return e;
	}
	const json_t *sec = json_object_get(doc, "reliability");
	if (!json_is_object(sec))
		why = xstrdup("/reliability: the section is missing");
	else if (num(sec, "inject_detect_s", "fail_above", &l->detect_s, &why) == 0 &&
		 num(sec, "inject_return_hgx_s", "fail_above", &l->return_hgx_s, &why) == 0 &&
		 num(sec, "reboot_back_s", "warn_above", &l->reboot_warn_s, &why) == 0 &&
		 num(sec, "reboot_back_s", "fail_above", &l->reboot_fail_s, &why) == 0 &&
		 l->reboot_warn_s > l->reboot_fail_s)
		why = xstrdup("/reliability/reboot_back_s: warn_above must not be above fail_above");
	if (why) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, why);
		e = CE_DATA;
	}
	free(why);
	free(path);
	json_decref(doc);
	return e;
}
