/* The affected-jobs parsers (health/jobs.c) and their metrics (metrics.c):
 * squeue's ID|USER|NAME rows, kubectl's pod list, unknown never rendered as
 * zero, the series capped at HJOBS_MAX whatever the state holds. */
#include "tap.h"
#include "health/health.h"

#include <stdlib.h>
#include <string.h>

static const char *field(json_t *jobs, size_t i, const char *k)
{
	return json_string_value(json_object_get(json_array_get(jobs, i), k));
}

static void test_squeue(void)
{
	char *err = NULL;
	const char *out = "4242|alice|train-llm\r\n4243_7|bob|sweep|lr=3e-4\n\n4244+0|carol|";
	json_t *j = hjobs_parse_squeue(out, strlen(out), &err);
	T_INTEQ(json_array_size(j), 3, "squeue: three rows, the blank line skipped");
	T_STREQ(field(j, 0, "id"), "4242", "squeue: id");
	T_STREQ(field(j, 0, "name"), "train-llm", "squeue: CR of a CRLF line not in the name");
	T_STREQ(field(j, 1, "id"), "4243_7", "squeue: an array task's id as squeue prints it");
	T_STREQ(field(j, 1, "name"), "sweep|lr=3e-4", "squeue: a name holding '|' is kept whole");
	T_STREQ(field(j, 2, "name"), "", "squeue: an empty name (last row without newline)");
	T_OK(!err, "squeue: no error");
	json_decref(j);

	j = hjobs_parse_squeue("", 0, &err);
	T_OK(json_is_array(j) && json_array_size(j) == 0 && !err,
	     "squeue: no output is zero jobs (a listing that worked)");
	json_decref(j);

	const char *bad = "4242|alice|x\n4243 bob x\n";
	j = hjobs_parse_squeue(bad, strlen(bad), &err);
	T_OK(!j, "squeue: a row without two '|' fails the listing (never a partial count)");
	T_STREQ(err, "squeue: line 2 is not JOBID|USER|NAME", "squeue: the error names the line");
	free(err);
	j = hjobs_parse_squeue("|alice|x\n", 9, &err);
	T_OK(!j && err, "squeue: an empty job id is refused");
	free(err);
	j = hjobs_parse_squeue("42\xff|al\x1bice|n\n", 13, &err);
	T_OK(j && field(j, 0, "id") && !strchr(field(j, 0, "user"), 0x1b),
	     "squeue: invalid UTF-8 and controls sanitized");
	json_decref(j);
}

static void test_pods(void)
{
	char *err = NULL;
	const char *out = "{\"kind\":\"List\",\"items\":"
			  "[{\"metadata\":{\"namespace\":\"team-a\",\"name\":\"train-0\"}}]}";
	json_t *j = hjobs_parse_pods(out, strlen(out), &err);
	T_INTEQ(json_array_size(j), 1, "pods: one item");
	T_STREQ(field(j, 0, "id"), "team-a/train-0", "pods: id namespace/name");
	T_STREQ(field(j, 0, "user"), "team-a", "pods: user the namespace");
	T_STREQ(field(j, 0, "name"), "train-0", "pods: name");
	json_decref(j);
	j = hjobs_parse_pods("{\"items\":[]}", 12, &err);
	T_OK(json_is_array(j) && json_array_size(j) == 0 && !err, "pods: an empty list is zero jobs");
	json_decref(j);
	j = hjobs_parse_pods("Error from server", 17, &err);
	T_OK(!j && err && strstr(err, "not a JSON list"), "pods: not JSON is an error");
	free(err);
	j = hjobs_parse_pods("{\"items\":[{\"metadata\":{\"name\":\"x\"}}]}", 37, &err);
	T_OK(!j && err && strstr(err, "item 0"), "pods: an item without a namespace is an error");
	free(err);
}

static void test_metrics(void)
{
	json_t *e = json_object();
	json_t *unknown = json_pack("{s:s,s:s,s:n,s:s}", "at", "2026-11-30T06:00:00Z", "source", "squeue", "count",
				    "error", "squeue: not found on PATH");
	json_object_set_new(e, "affected_jobs", unknown);
	char *m = health_metrics_text(e, "node1", "kmsg");
	T_OK(strstr(m, "# TYPE cmax_health_affected_jobs gauge") && !strstr(m, "\ncmax_health_affected_jobs "),
	     "metrics: an unknown listing has no count sample (not 0)");
	T_OK(!strstr(m, "\ncmax_health_affected_job_info{"), "metrics: and no job series");
	free(m);

	json_t *jobs = json_array();
	for (int i = 0; i < HJOBS_MAX + 10; i++) {
		char id[16];
		snprintf(id, sizeof(id), "%d", 1000 + i);
		json_array_append_new(jobs, json_pack("{s:s,s:s,s:s}", "id", id, "user", i ? "bob" : "a\"l\\ice",
						      "name", "n"));
	}
	json_object_set_new(e, "affected_jobs",
			    json_pack("{s:I,s:o}", "count", (json_int_t)(HJOBS_MAX + 10), "jobs", jobs));
	m = health_metrics_text(e, "node1", "kmsg");
	size_t n = 0;
	for (const char *p = m; (p = strstr(p, "\ncmax_health_affected_job_info{")); p++)
		n++;
	T_INTEQ(n, HJOBS_MAX, "metrics: at most HJOBS_MAX job series, even from a state that holds more");
	T_OK(strstr(m, "\ncmax_health_affected_jobs 60\n") != NULL, "metrics: the count is the whole number");
	T_OK(strstr(m, "cmax_health_affected_job_info{job_id=\"1000\",user=\"a\\\"l\\\\ice\"} 1\n") != NULL,
	     "metrics: label values escaped");
	T_OK(!strstr(m, "job_id=\"1050\""), "metrics: the 51st job is not a series");
	free(m);
	json_decref(e);
}

int main(void)
{
	test_squeue();
	test_pods();
	test_metrics();
	return t_done();
}
