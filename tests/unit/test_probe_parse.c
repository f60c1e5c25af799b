/* The --active probes' tool formats: dcgmi diag -j in DCGM 3.x and 4.x
 * shapes (Pass, Fail with an error, a Pass carrying an error, a run that
 * did not start, leading text, garbage) and nvidia-smi boost-slider -l. */
#include "tap.h"
#include "parse/boostslider.h"
#include "parse/dcgmdiag.h"

#include <stdlib.h>
#include <string.h>

static const char dcgm3[] =
	"Successfully ran diagnostic for group.\n"
	"{\n  \"DCGM GPU Diagnostic\" : {\n    \"test_categories\" : [\n"
	"      {\"category\" : \"Deployment\", \"tests\" : [\n"
	"        {\"name\" : \"Denylist\", \"results\" : [{\"status\" : \"Pass\"}]},\n"
	"        {\"name\" : \"Page Retirement/Row Remap\", \"results\" : [{\"gpu_id\" : 2, \"status\" : \"Fail\",\n"
	"          \"warnings\" : [{\"warnings\" : \"GPU 2 had uncorrectable memory errors and row remapping failed.\",\n"
	"            \"error_id\" : 95, \"error_category\" : 3, \"error_severity\" : 3}]}]}]},\n"
	"      {\"category\" : \"Hardware\", \"tests\" : [\n"
	"        {\"name\" : \"GPU Memory\", \"results\" : [{\"gpu_ids\" : \"0\", \"status\" : \"Pass\"},\n"
	"          {\"gpu_ids\" : \"1\", \"status\" : \"Warn\", \"warnings\" : [{\"warning\" : \"slow\", \"error_id\" : 0,\n"
	"            \"error_category\" : 0, \"error_severity\" : 1}]}]}]}\n"
	"    ]\n  },\n  \"version\" : \"3.3.9\"\n}\n";

static const char dcgm4[] =
	"{\"DCGM Diagnostic\": {\"test_categories\": [{\"category\": \"Integration\", \"tests\": [{\"name\": \"pcie\",\n"
	" \"results\": [{\"entity_group\": \"GPU\", \"entity_group_id\": 1, \"entity_id\": 5, \"status\": \"Pass\",\n"
	"  \"warnings\": [{\"error_category\": 2, \"error_id\": 28, \"error_severity\": 2,\n"
	"   \"warning\": \"GPU 5 PCIe replay rate above threshold\"}]}], \"test_summary\": {\"status\": \"Pass\"}}]}]},\n"
	" \"metadata\": {\"version\": \"4.5.3\"}}";

static void test_dcgm(void)
{
	struct dd_report r;
	char *err = NULL;
	T_OK(dd_parse(dcgm3, strlen(dcgm3), &r, &err) == 0, "3.x report after a text line parses");
	T_OK(!r.dcgm4, "3.x root key recognised");
	T_STREQ(r.version, "3.3.9", "3.x version at the top level");
	T_INTEQ(r.n, 4, "four results");
	T_INTEQ(r.results[0].gpu, -1, "a deployment result names no GPU");
	T_INTEQ(r.results[1].status, DD_FAIL, "Fail read");
	T_INTEQ(r.results[1].gpu, 2, "integer gpu_id read");
	T_INTEQ(r.results[1].error_id, 95, "error_id of a deployment warning");
	T_OK(r.results[1].message && strstr(r.results[1].message, "row remapping"), "deployment text under 'warnings'");
	T_INTEQ(r.results[2].gpu, 0, "string gpu_ids read");
	T_INTEQ(r.results[3].status, DD_WARN, "Warn read");
	T_INTEQ(r.results[3].error_id, 0, "error_id 0 is no error");
	dd_report_free(&r);

	T_OK(dd_parse(dcgm4, strlen(dcgm4), &r, &err) == 0, "4.x report parses");
	T_OK(r.dcgm4, "4.x root key recognised");
	T_STREQ(r.version, "4.5.3", "4.x version from metadata");
	T_INTEQ(r.n, 1, "one result");
	T_INTEQ(r.results[0].gpu, 5, "entity_id of a GPU entity");
	T_INTEQ(r.results[0].status, DD_PASS, "Pass read");
	T_INTEQ(r.results[0].error_id, 28, "a Pass carrying error 28 keeps it");
	T_INTEQ(r.results[0].nwarnings, 1, "one warning on the Pass");
	dd_report_free(&r);

	const char rt[] = "{\"DCGM Diagnostic\": {\"runtime_error\": \"Error: unable to connect to host engine\", "
			  "\"version\": \"4.5.3\"}}";
	T_OK(dd_parse(rt, strlen(rt), &r, &err) == 0, "a runtime error parses");
	T_OK(r.runtime_error && strstr(r.runtime_error, "host engine"), "runtime_error read");
	T_INTEQ(r.n, 0, "no results with a runtime error");
	dd_report_free(&r);

	const char *bad[] = { "", "garbage", "{\"other\": 1}", "{\"DCGM Diagnostic\": [1]}", "{\"DCGM Diagnostic\": {" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err = NULL;
		T_OK(dd_parse(bad[i], strlen(bad[i]), &r, &err) == -1 && err, "refused: bad input %zu", i);
		free(err);
	}
}

static void test_boost(void)
{
	const char list[] = "+------------------------------------------+\n"
			    "| GPU  Boost Slider          Max    Value   |\n"
			    "|==========================================|\n"
			    "|   0  vboost                  4        0   |\n"
			    "|   1  vboost                  4        1   |\n"
			    "+------------------------------------------+\n";
	struct bs_row *rows;
	size_t n;
	char *err = NULL;
	T_OK(bs_parse_vboost(list, strlen(list), &rows, &n, &err) == 0, "boost-slider -l table parses");
	T_INTEQ(n, 2, "two vboost rows");
	T_INTEQ(rows[0].gpu, 0, "GPU index");
	T_INTEQ(rows[0].max, 4, "maximum");
	T_INTEQ(rows[1].value, 1, "current value is the last number");
	free(rows);
	const char *bad[] = { "", "Not Supported\n", "| GPU  Boost Slider  Max  Value |\n", "vboost\n",
			      "|   0  vboost   4  1.5 |\n" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err = NULL;
		T_OK(bs_parse_vboost(bad[i], strlen(bad[i]), &rows, &n, &err) == -1 && err && !n, "refused: bad input %zu", i);
		free(err);
	}
}

int main(void)
{
	test_dcgm();
	test_boost();
	return t_done();
}
