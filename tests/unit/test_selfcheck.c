/* doc_selfcheck: a document that breaks its own schema is an internal
 * error (CE_INTERNAL; exit 70 through doc_selfcheck) with the schema and the pointer on stderr; one that keeps
 * it passes. The documents are the shapes the writers produce, cut down. */
#include "tap.h"
#include "core/exitcodes.h"
#include "core/selfcheck.h"
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

/* stderr of one call, captured through a pipe */
static int check_capturing(const json_t *doc, const char *schema, char *err, size_t n)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	fflush(stderr);
	int saved = dup(2);
	dup2(p[1], 2);
	close(p[1]);
	int rc = doc_selfcheck(doc, schema, "test");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t got = read(p[0], err, n - 1);
	err[got > 0 ? got : 0] = 0;
	close(p[0]);
	return rc;
}

int main(void)
{
	char err[4096];
	json_error_t je;
	/* a bench document with one row, as bench_finish writes it */
	json_t *bench = json_loads(
		"{\"schema\":\"cmax.bench.results/1\",\"tool\":\"cmax\",\"tool_version\":\"0.1.0\",\"benchmark\":\"net\","
		"\"command\":\"cmax bench net\",\"started_at\":\"2026-12-01T10:00:00Z\",\"finished_at\":\"2026-12-01T10:00:01Z\","
		"\"duration_ms\":1000,\"target\":{\"harness\":\"standalone\",\"hosts\":[\"n1\"],\"path\":\"/tmp\",\"fstype\":\"ext4\"},"
		"\"interrupted\":false,\"parameters\":{},\"thresholds\":{\"path\":\"x\",\"values\":{}},"
		"\"results\":[{\"id\":\"bench.net-nccl\",\"profile\":\"networking\",\"title\":\"t\",\"status\":\"SKIP\","
		"\"summary\":\"no nccl-tests\",\"observed\":null,\"expected\":null,\"evidence\":[],\"remediation\":null,"
		"\"references\":[],\"reproduce\":null,\"host\":\"n1\",\"mode\":\"quick\"}],"
		"\"counts\":{\"PASS\":0,\"WARN\":0,\"FAIL\":0,\"SKIP\":1,\"ERROR\":0,\"total\":1}}",
		0, &je);
	T_OK(bench != NULL, "the bench document parses (%s)", bench ? "" : je.text);
	T_INTEQ(check_capturing(bench, "bench-results", err, sizeof err), 0, "a well-formed bench document passes");
	T_OK(err[0] == 0, "and says nothing (%s)", err);

	/* the row's mode dropped, as a writer that forgot it would */
	json_t *row = json_array_get(json_object_get(bench, "results"), 0);
	json_object_del(row, "mode");
	T_INTEQ(check_capturing(bench, "bench-results", err, sizeof err), CE_INTERNAL,
		"a row without its mode is an internal error (CE_INTERNAL)");
	T_OK(strstr(err, "internal error") && strstr(err, "docs/schema/bench-results.schema.json") &&
		     strstr(err, "/results/0") && strstr(err, "mode"),
	     "the message names the schema, the pointer and the key: %s", err);

	/* a status outside the model */
	json_object_set_new(row, "mode", json_string("quick"));
	json_object_set_new(row, "status", json_string("OK"));
	T_INTEQ(check_capturing(bench, "bench-results", err, sizeof err), CE_INTERNAL, "an unknown status is refused");

	json_t *empty = json_object();
	T_INTEQ(check_capturing(empty, "rate", err, sizeof err), CE_INTERNAL, "an empty rate document is refused");
	T_INTEQ(check_capturing(empty, "no-such-schema", err, sizeof err), CE_INTERNAL,
		"a schema cmax does not embed is an internal error too");
	fflush(stderr);
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 2);
	int code = exit_code_for(doc_selfcheck(empty, "rate", "test"));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	T_INTEQ(code, EXIT_SOFTWARE, "a command maps a document that breaks its schema to 70");
	json_decref(empty);
	json_decref(bench);
	return t_done();
}
