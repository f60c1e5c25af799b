/* src/evidence: recognising result documents, the rows, and the refusals. */
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "core/exitcodes.h"
#include "evidence/evidence.h"

static int add(struct ev_set *s, const char *text, char **err)
{
	json_error_t je;
	json_t *v = json_loads(text, 0, &je);
	if (!v) {
		*err = strdup(je.text);
		return -1;
	}
	return ev_add_json(s, v, "inline", err);
}

int main(void)
{
	struct ev_set s;
	char *err = NULL;
	ev_init(&s);
	const char *src = getenv("CMAX_SRCDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/fixtures/hosts/misconfig-h100/expected.json", src ? src : ".");
	T_INTEQ(ev_load(&s, path, &err), 0, "an audit report loads (%s)", err ? err : "");
	T_OK(s.ndocs == 1 && s.docs[0]->kind == EV_AUDIT && !strcmp(s.docs[0]->name, "full") &&
		     !strcmp(s.docs[0]->harness, "standalone"),
	     "recognised as an audit of profile full");
	size_t counts[ST__COUNT];
	size_t n = ev_count(&s, "hardware.*", counts);
	T_OK(n > 5 && counts[ST_FAIL] > 0, "hardware rows found by pattern, some FAIL (%zu rows)", n);
	size_t pos = 0;
	const struct ev_row *r = ev_next(&s, "hardware.gpu-uniformity", &pos);
	T_OK(r && r->observed && json_is_object(ev_get(r->observed, "models")), "observed reachable");

	T_INTEQ(add(&s,
		    "{\"schema\":\"cmax.bench.results/1\",\"benchmark\":\"storage\",\"target\":{\"harness\":\"slurm\"},"
		    "\"results\":[{\"id\":\"bench.storage-seq-read-1m-direct-c1\",\"status\":\"PASS\",\"observed\":"
		    "{\"bw_bytes_per_s\":1.5e9,\"lat\":{\"p99\":[1,2,3]}},\"expected\":null}]}",
		    &err),
		0, "a bench document loads");
	pos = 0;
	r = ev_next(&s, "bench.storage-*", &pos);
	double v = 0;
	T_OK(r && r->doc->kind == EV_BENCH && ev_number(r->observed, "bw_bytes_per_s", &v) && v == 1.5e9,
	     "bench figure read by path");
	T_OK(r && !r->expected, "JSON null expected is NULL");
	T_OK(r && ev_number(r->observed, "lat.p99.2", &v) && v == 3, "array index in a path");
	T_OK(r && !ev_number(r->observed, "lat.p99.x", &v) && !ev_number(r->observed, "lat", &v) &&
		     !ev_number(r->observed, "lat.p99.-1", &v) && !ev_get(r->observed, "a..b"),
	     "non-numbers and bad paths are not numbers");

	T_INTEQ(add(&s, "{\"schema\":\"cmax.inject/1\",\"scheduler\":\"slurm\",\"timeline\":{\"times\":{\"detect_s\":61}},"
			"\"results\":[{\"id\":\"inject.detect\",\"status\":\"PASS\"}]}",
		    &err),
		0, "an inject timeline loads");
	T_OK(s.ndocs == 3 && s.docs[2]->kind == EV_INJECT && !strcmp(s.docs[2]->harness, "slurm") &&
		     ev_number(s.docs[2]->root, "timeline.times.detect_s", &v) && v == 61,
	     "inject document: scheduler as harness, timeline reachable");

	size_t before = s.nrows;
	T_INTEQ(add(&s, "{\"schema\":\"cmax.audit.plan/1\",\"results\":[]}", &err), CE_DATA, "a plan is refused");
	T_OK(err && strstr(err, "cmax.audit.plan/1"), "the error names the schema (%s)", err ? err : "");
	free(err);
	T_INTEQ(add(&s, "{\"schema\":\"cmax.audit.results/1\",\"results\":[{\"id\":\"a\",\"status\":\"PASS\"},"
			"{\"id\":\"b\",\"status\":\"MAYBE\"}]}",
		    &err),
		CE_DATA, "an unknown status is refused");
	free(err);
	T_INTEQ(add(&s, "{\"schema\":\"cmax.audit.results/1\",\"results\":[{\"status\":\"PASS\"}]}", &err), CE_DATA,
		"a row without id is refused");
	free(err);
	T_INTEQ(add(&s, "[1,2]", &err), CE_DATA, "not an object");
	free(err);
	T_INTEQ(s.nrows, before, "a refused document adds no rows");
	T_INTEQ(ev_load(&s, "/nonexistent/r.json", &err), CE_NOINPUT, "missing file");
	free(err);
	T_INTEQ(exit_code_for(ev_load(&s, "/nonexistent/r.json", &err)), EXIT_NOINPUT, "  a command maps it to 66");
	free(err);
	T_INTEQ(ev_load(&s, "/", &err), CE_NOINPUT, "a directory that is not a run directory");
	T_OK(err && strstr(err, "audit.results.json"), "says what it looked for");
	free(err);
	snprintf(path, sizeof path, "%s/tests/fixtures/hosts/misconfig-h100/README", src ? src : ".");
	T_INTEQ(ev_load(&s, path, &err), CE_DATA, "a text file is bad data");
	T_OK(err && !strchr(err, '\n'), "one-line error");
	free(err);
	ev_free(&s);
	return t_done();
}
