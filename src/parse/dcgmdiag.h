/* `dcgmi diag -r N -j`: the JSON report of a DCGM diagnostic run, in the
 * two shapes DCGM prints. 3.x: {"DCGM GPU Diagnostic": {"test_categories":
 * [{"category", "tests": [{"name", "results": [{"gpu_ids" | "gpu_id":
 * "0", "status": "Pass", "warnings": [{"warning", "error_id",
 * "error_category", "error_severity"}], "info"}]}]}]}, "version", ...}.
 * 4.x: {"DCGM Diagnostic": {"test_categories": [... results with
 * "entity_group": "GPU", "entity_id": 0 ...], "test_summary"}]},
 * "metadata": {"version"}}. A run that could not start prints
 * {"<root>": {"runtime_error": "..."}}. Formats read from NVIDIA/DCGM
 * dcgmi/Diag.cpp, nvvs/include/NvvsJsonStrings.h and
 * testing/python3/dcgm_diag_schema.json. Pure functions. */
#ifndef CMAX_PARSE_DCGMDIAG_H
#define CMAX_PARSE_DCGMDIAG_H
#include <stddef.h>

enum dd_status { DD_PASS, DD_WARN, DD_FAIL, DD_SKIP, DD_NOTRUN, DD_UNKNOWN };

struct dd_result {
	char *category;        /* "Deployment", "Hardware", ... (NULL when absent) */
	char *test;            /* "GPU Memory", "memory", "software", ... */
	int gpu;               /* the GPU this entry is about; -1 when it names none or several */
	enum dd_status status;
	char *status_text;     /* as printed, sanitised */
	long error_id;         /* the first non-zero error_id of its warnings; 0 none */
	int nwarnings;         /* warnings entries (objects or strings) */
	char *message;         /* the first warning's text, sanitised; NULL none */
};

struct dd_report {
	int dcgm4;             /* the 4.x root key "DCGM Diagnostic" */
	char *version;         /* DCGM version ("version" or metadata.version); NULL unknown */
	char *runtime_error;   /* the run did not happen: DCGM's message */
	struct dd_result *results;
	size_t n;
};

/* 0 on success (free with dd_report_free), -1 with *err: no JSON object
 * (text before the first '{' and after the last '}' is ignored: some
 * versions print a line first), or neither root key. */
int dd_parse(const char *text, size_t len, struct dd_report *r, char **err);
void dd_report_free(struct dd_report *r);
const char *dd_status_name(enum dd_status s);
#endif
