/* Fuzz what `cmax accept` reads from users: the acceptance plan (YAML or
 * JSON), the earlier accept document (--previous), and the dotted paths
 * with [key=value] selectors its criteria use. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "accept/judge.h"
#include "accept/plan.h"
#include "accept/verdict.h"
#include "core/yamljson.h"

static const char *DOC = "{\"a\":{\"b.c\":1,\"l\":[{\"k\":\"v\",\"n\":2},3]},\"events\":[{\"event\":\"usable\",\"offset_s\":5}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	json_t *y = yamljson_loadb((const char *)data, size, &err);
	free(err);
	err = NULL;
	if (y) {
		struct acc_plan p;
		int rc = acc_plan_from_json(y, "fuzz", &p, &err);
		if ((rc == 0) != (err == NULL))
			abort();
		if (rc == 0) {
			for (size_t i = 0; i < p.ntests; i++) {
				char *e = NULL;
				char **a = acc_test_argv(&p, &p.tests[i], &e);
				if (!a == !e)
					abort();
				acc_argv_free(a);
				free(e);
				for (size_t k = 0; k < p.tests[i].ncrit; k++)
					free(acc_crit_describe(&p.tests[i].crit[k]));
			}
		}
		free(err);
		err = NULL;
		acc_plan_free(&p);
		json_decref(y);
	}
	json_error_t je;
	json_t *j = json_loadb((const char *)data, size, 0, &je);
	if (j) {
		struct acc_prev pv;
		int rc = acc_prev_from_json(j, "fuzz", &pv, &err);
		if ((rc == 0) != (err == NULL))
			abort();
		free(err);
		acc_prev_free(&pv);
		json_decref(j);
	}
	if (size < 512) {
		char *s = malloc(size + 1);
		memcpy(s, data, size);
		s[size] = 0;
		json_t *doc = json_loads(DOC, 0, &je);
		double x;
		long secs;
		(void)acc_path_get(doc, s);
		(void)acc_path_number(doc, s, &x);
		(void)acc_parse_duration(s, &secs);
		(void)acc_parse_day(s);
		json_decref(doc);
		free(s);
	}
	return 0;
}
