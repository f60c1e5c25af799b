/* Fuzz what `cmax accept` reads from users: the acceptance plan (YAML or
 * JSON) with its requirements (require.h) checked against a fixed bench
 * document, the earlier accept document (--previous), and the dotted paths
 * with [key=value] selectors its criteria use. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "accept/judge.h"
#include "accept/plan.h"
#include "accept/verdict.h"
#include "core/yamljson.h"

/* What a plan's requirements are checked against: a quick run that records
 * some of what ran (clients, size, NVLink) and not the rest. */
static const char *BENCH =
	"{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"storage\",\"parameters\":{\"mode\":\"quick\","
	"\"clients_max\":4,\"size_per_client\":\"32M\",\"nvlink\":\"off\",\"device\":1},\"results\":["
	"{\"id\":\"bench.storage-a-c1\",\"status\":\"FAIL\",\"mode\":\"quick\",\"observed\":{\"clients\":2,"
	"\"curve_size_time_us_busbw_oop_inp\":[[8,1,0,0],[1024,2,1,1]]}},{\"id\":\"x\",\"status\":\"PASS\"}]}";

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
				json_error_t bje;
				struct ev_set es;
				ev_init(&es);
				char *berr = NULL;
				if (ev_add_json(&es, json_loads(BENCH, 0, &bje), "bench", &berr) == 0)
					free(acc_reqs_unmet(&p.tests[i].req, &es, es.docs[0]));
				free(berr);
				ev_free(&es);
				json_decref(acc_reqs_json(&p.tests[i].req));
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
		json_decref(doc);
		free(s);
	}
	return 0;
}
