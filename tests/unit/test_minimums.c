/* The minimum-version table: the shipped file loads, every kind grades the
 * way the rules say, grace and staleness behave, broken tables are refused. */
#include "core/timefmt.h"
#include "core/strbuf.h"
#include "policy/minimums.h"
#include "tap.h"

#include <stdlib.h>

static struct minimums *M;
static time_t NOW;

static void check(const struct minimums *m, const char *comp, const char *obs, const char *q,
		  time_t now, enum mv_status want, const char *needle)
{
	struct mv_verdict v;

	minimums_grade(m, comp, obs, q, now, &v);
	if (!T_OK(v.status == want, "%s %s%s%s -> %s", comp, obs ? obs : "(null)", q ? " / " : "",
	     q ? q : "", mv_status_name(want)))
		printf("#   got %s: %s\n", mv_status_name(v.status), v.detail ? v.detail : "");
	if (needle)
		if (!T_OK(v.detail && strstr(v.detail, needle), "  detail names '%s'", needle))
			printf("#   detail: %s\n", v.detail ? v.detail : "(null)");
	mv_verdict_free(&v);
}

#define G(comp, obs, q, want, needle) check(M, comp, obs, q, NOW, want, needle)

static void test_shipped(void)
{
	json_t *names, *meta;
	char *path, *err = NULL;
	const char *root = getenv("CMAX_SRCDIR");

	path = xasprintf("%s/data/minimum-versions.json", root && *root ? root : ".");
	M = minimums_load(path, &err);
	if (!T_OK(M != NULL, "shipped table loads"))
		printf("#   %s\n", err ? err : "");
	free(err);
	free(path);
	if (!M)
		return;
	names = minimums_component_names(M);
	{
		static const char *const want[] = {
			"amdDriver", "connectxFirmware", "cudaToolkit", "dcgm", "dcgmExporter",
			"docker", "nvhpc", "nvidiaContainerToolkit", "nvidiaDriver", "rocm",
			"runc", "ubuntuNoble", "virtioNetBluefield",
		};
		size_t n = sizeof(want) / sizeof(want[0]);

		T_INTEQ(json_array_size(names), n, "every component is in the table");
		for (size_t i = 0; i < n && i < json_array_size(names); i++)
			T_STREQ(json_string_value(json_array_get(names, i)), want[i], "component %zu", i);
	}
	json_decref(names);
	meta = minimums_meta(M, NOW);
	T_INTEQ(json_integer_value(json_object_get(meta, "max_age_days")), 30, "maxAgeDays 30");
	T_INTEQ(json_integer_value(json_object_get(meta, "grace_period_days")), 3, "grace 3 days");
	T_INTEQ(json_integer_value(json_object_get(meta, "age_days")), 1, "age 1 day at 2026-12-01");
	T_OK(json_is_false(json_object_get(meta, "stale")), "not stale after 1 day");
	T_OK(json_is_string(json_object_get(meta, "path")), "meta has the path");
	T_STREQ(json_string_value(json_object_get(meta, "generated")), "2026-11-30T00:00:00Z",
		"meta generated");
	json_decref(meta);
	T_OK(!minimums_stale(M, time_parse_iso("2026-12-30T00:00:00Z")), "29 days is fresh");
	T_OK(minimums_stale(M, time_parse_iso("2027-01-01T00:00:00Z")), "32 days is stale");
	T_OK(!minimums_stale(M, time_parse_iso("2020-01-01")), "a table from the future is not stale");
}

static void test_kinds(void)
{
	struct mv_verdict v;

	/* branchMap */
	G("nvidiaDriver", "580.95.05", NULL, MV_FAIL, "branch 580 floor 580.159.03");
	G("nvidiaDriver", "580.159.03", NULL, MV_PASS, "branch 580 floor");
	G("nvidiaDriver", "580.200.01", NULL, MV_PASS, NULL);
	G("nvidiaDriver", "610.10", NULL, MV_PASS, "newer than the newest listed branch 595");
	G("nvidiaDriver", "470.256.02", NULL, MV_UNKNOWN, "outside");
	G("nvidiaDriver", "1000.1.1", NULL, MV_UNKNOWN, "outside");
	G("nvidiaDriver", "545.29.06", NULL, MV_PASS, "nearest rule applies: nvidiaDriver 545.29.06 meets the branch 535 floor");
	G("nvidiaDriver", "560.35.03", NULL, MV_FAIL, "the branch 570 floor");
	G("nvidiaDriver", "575.57.08", NULL, MV_FAIL, "branch 580");	/* tie goes to the newer */
	G("nvidiaDriver", "garbage", NULL, MV_UNKNOWN, "not a version");
	G("nvidiaDriver", "", NULL, MV_UNKNOWN, "no nvidiaDriver version was read");
	G("nvidiaDriver", NULL, NULL, MV_UNKNOWN, "no nvidiaDriver version");
	G("nvidiaDriver", "  \t", NULL, MV_UNKNOWN, "no nvidiaDriver version");

	minimums_grade(M, "nvidiaDriver", "580.95.05", NULL, NOW, &v);
	T_STREQ(v.version, "580.95.05", "driver graded version");
	T_STREQ(v.minimum, "580.159.03", "driver minimum");
	T_INTEQ(json_array_size(v.advisories), 2, "driver advisories");
	T_OK(v.advisory_url && strstr(v.advisory_url, "5821"), "driver advisory URL");
	T_INTEQ(v.grace_active, 0, "no grace long after the bulletin");
	mv_verdict_free(&v);

	/* minimum */
	G("cudaToolkit", "12.8", NULL, MV_FAIL, "below the minimum 13.1");
	G("cudaToolkit", "13.1", NULL, MV_PASS, "meets the minimum 13.1");
	G("cudaToolkit", "13.2.1", NULL, MV_PASS, NULL);
	G("cudaToolkit", "V13.0.88", NULL, MV_FAIL, NULL);
	G("nvidiaContainerToolkit", "1.19.0", NULL, MV_FAIL, NULL);
	G("nvidiaContainerToolkit", "1.19.1", NULL, MV_PASS, NULL);
	G("nvidiaContainerToolkit", "1.19.1-rc.1", NULL, MV_FAIL, NULL);
	G("dcgm", "4.5.2", NULL, MV_FAIL, NULL);
	G("dcgm", "1:4.5.3-1", NULL, MV_PASS, NULL);
	G("dcgmExporter", "4.8.1", NULL, MV_FAIL, NULL);
	G("dcgmExporter", "4.8.2", NULL, MV_PASS, NULL);
	G("dcgmExporter", "latest", NULL, MV_UNKNOWN, NULL);

	/* docker: release plus rc */
	G("docker", "29.6.1", NULL, MV_FAIL, "29.7.0");
	G("docker", "29.7.0", NULL, MV_PASS, NULL);
	G("docker", "29.7.0-rc.1", NULL, MV_FAIL, NULL);
	G("docker", "5:29.7.0-1~ubuntu.24.04~noble", NULL, MV_PASS, NULL);
	G("docker", "30.0.0-rc.1", NULL, MV_PASS, NULL);
	G("docker", "dev", NULL, MV_UNKNOWN, NULL);
	minimums_grade(M, "docker", "5:29.6.0-1~ubuntu.24.04~noble", NULL, NOW, &v);
	T_STREQ(v.version, "29.6.0", "docker graded form drops epoch and packaging");
	T_INTEQ(json_array_size(v.cves), 1, "docker CVE listed");
	mv_verdict_free(&v);

	/* ladder */
	G("runc", "1.1.12", NULL, MV_FAIL, "1.1 line floor 1.1.14");
	G("runc", "1.1.14", NULL, MV_PASS, NULL);
	G("runc", "1.2.8", NULL, MV_PASS, "1.2 line floor");
	G("runc", "1.2.7", NULL, MV_FAIL, NULL);
	G("runc", "1.5.0-rc.2", NULL, MV_FAIL, "1.5.0-rc.3");
	G("runc", "1.5.0-rc.3", NULL, MV_PASS, NULL);
	G("runc", "1.5.0", NULL, MV_PASS, NULL);
	G("runc", "1.4.0-rc.3", NULL, MV_FAIL, "1.4.3");
	G("runc", "0.0.9", NULL, MV_FAIL, "nearest supported line is 0.1");
	G("runc", "1.6.0", NULL, MV_PASS, "newer than the newest listed line 1.5");
	G("runc", "2.0.0-rc.1", NULL, MV_PASS, NULL);
	G("runc", "0.9.1", NULL, MV_UNKNOWN, "not in the ladder");
	G("runc", "runc version 1.1.12", NULL, MV_UNKNOWN, NULL);

	/* trainMap */
	G("connectxFirmware", "28.39.1002", NULL, MV_FAIL, "train 39 floor 28.39.8002");
	G("connectxFirmware", "28.39.8002", NULL, MV_PASS, NULL);
	G("connectxFirmware", "22.43.9000", NULL, MV_PASS, "22.43.8002");
	G("connectxFirmware", "20.46.1000", NULL, MV_FAIL, "20.46.3008");
	G("connectxFirmware", "28.48.1000", NULL, MV_PASS, "newer than the newest listed train 46");
	G("connectxFirmware", "16.27.2008", NULL, MV_UNKNOWN, "older");
	G("connectxFirmware", "28.40.1000", NULL, MV_UNKNOWN, "not in the table");
	G("connectxFirmware", "28.39", NULL, MV_UNKNOWN, "AA.TT.PPPP");
	G("connectxFirmware", "28.39.0800 (MT_0000000838)", NULL, MV_FAIL, NULL);

	/* releaseLines */
	G("virtioNetBluefield", "24.10.49", NULL, MV_FAIL, "LTS24 line floor 24.10.50");
	G("virtioNetBluefield", "24.10.50", NULL, MV_PASS, "LTS24");
	G("virtioNetBluefield", "23.10.22", NULL, MV_FAIL, "LTS23");
	G("virtioNetBluefield", "25.10.3", NULL, MV_UNKNOWN, "read but ungraded");
	G("virtioNetBluefield", "25.10.3", "LTS25", MV_PASS, "LTS25 line floor 25.10.2");
	G("virtioNetBluefield", "25.10.3", "GA", MV_FAIL, "GA line floor 25.10.6");
	G("virtioNetBluefield", "25.10.6", "ga", MV_PASS, NULL);
	G("virtioNetBluefield", "25.10.3", "LTS99", MV_UNKNOWN, "not in the table");
	G("virtioNetBluefield", "1.7.21", NULL, MV_FAIL, "affected range through 1.7.21");
	G("virtioNetBluefield", "1.7.22", NULL, MV_PASS, NULL);
	G("virtioNetBluefield", "1.7.13", "LTS23", MV_FAIL, NULL);
	G("virtioNetBluefield", "26.4.1", NULL, MV_PASS, "newer than every listed release line");
	G("virtioNetBluefield", "24.4.1", NULL, MV_UNKNOWN, "no listed release line");
	minimums_grade(M, "virtioNetBluefield", "25.10.3", NULL, NOW, &v);
	T_OK(v.detail && strstr(v.detail, "GA floor 25.10.6: below") &&
	     strstr(v.detail, "LTS25 floor 25.10.2: meets"), "ungraded detail keeps the raw comparison");
	mv_verdict_free(&v);

	/* releaseWindow */
	G("nvhpc", "26.11", NULL, MV_PASS, "current release");
	G("nvhpc", "26.9", NULL, MV_PASS, "window");
	G("nvhpc", "26.10", NULL, MV_PASS, NULL);
	G("nvhpc", "26.5", NULL, MV_FAIL, "previous release 26.9");
	G("nvhpc", "25.11", NULL, MV_FAIL, NULL);
	G("nvhpc", "27.1", NULL, MV_PASS, NULL);
	G("nvhpc", "26.9.1", NULL, MV_PASS, NULL);

	/* distroPackages */
	G("ubuntuNoble", "6.8.0-110-generic", "linuxFragnesia", MV_FAIL, "ABI 110 is below the fixed ABI 124");
	G("ubuntuNoble", "6.8.0-124-generic", "linuxFragnesia", MV_PASS, NULL);
	G("ubuntuNoble", "6.8.0-130-lowlatency", "linuxFragnesia", MV_PASS, NULL);
	G("ubuntuNoble", "6.8.0-110.110", "linuxFragnesia", MV_FAIL, "older than the fixed package");
	G("ubuntuNoble", "6.8.0-124.124", "linuxFragnesia", MV_PASS, NULL);
	G("ubuntuNoble", "6.11.0-29-generic", "linuxFragnesia", MV_UNKNOWN, "not the 6.8.0 series");
	G("ubuntuNoble", "6.8.0-136-generic", "linuxJanuscape", MV_FAIL, NULL);
	G("ubuntuNoble", "6.8.0-137-generic", "linuxJanuscape", MV_PASS, NULL);
	G("ubuntuNoble", "6.8.0-87-generic", "linuxVmscape", MV_UNKNOWN, "upload number");
	G("ubuntuNoble", "6.8.0-87.87", "linuxVmscape", MV_FAIL, NULL);
	G("ubuntuNoble", "6.8.0-87.88", "linuxVmscape", MV_PASS, NULL);
	G("ubuntuNoble", "6.8.0-86-generic", "linuxVmscape", MV_FAIL, NULL);
	G("ubuntuNoble", "1:8.2.2+ds-0ubuntu1.4", "qemu", MV_FAIL, "dpkg order");
	G("ubuntuNoble", "1:8.2.2+ds-0ubuntu1.10", "qemu", MV_PASS, NULL);
	G("ubuntuNoble", "1:8.2.2+ds-0ubuntu1.11", "qemu", MV_PASS, NULL);
	G("ubuntuNoble", "1:8.2.2+ds-0ubuntu1.4", NULL, MV_UNKNOWN, "package key");
	G("ubuntuNoble", "1:8.2.2", "libc6", MV_UNKNOWN, "not in the table");
	G("ubuntuNoble", "unknown", "qemu", MV_UNKNOWN, NULL);
	minimums_grade(M, "ubuntuNoble", "6.8.0-110-generic", "linuxFragnesia", NOW, &v);
	T_OK(json_array_size(v.cves) == 3, "fragnesia lists its three CVEs");
	T_OK(v.advisory_url && strstr(v.advisory_url, "USN-8373-1"), "fragnesia advisory is USN-8373-1");
	T_STREQ(v.minimum, "6.8.0-124.124", "fragnesia minimum");
	mv_verdict_free(&v);

	/* programMap */
	G("amdDriver", "6.4.1", "MI300X", MV_FAIL, "MI300X floor 6.4.2");
	G("amdDriver", "6.4.2", "MI300X", MV_PASS, NULL);
	G("amdDriver", "6.4.2", "MI300A", MV_FAIL, "MI300A floor 7.0.1");
	G("amdDriver", "7.0.1", "AMD Instinct MI300A", MV_PASS, "MI300A");
	G("amdDriver", "6.4.2", "mi325x", MV_PASS, NULL);
	G("rocm", "6.4.2", "MI355X", MV_UNKNOWN, "MI355X");
	G("rocm", "6.4.2", NULL, MV_UNKNOWN, "GPU program");
	G("rocm", "7.0.1", "MI250", MV_PASS, NULL);

	/* not in the table, no table */
	T_INTEQ(minimums_grade(M, "slurm", "24.05", NULL, NOW, &v), -1, "unknown component returns -1");
	T_INTEQ(v.status, MV_UNKNOWN, "unknown component is UNKNOWN");
	T_OK(v.detail && strstr(v.detail, "not in the minimum-version table"), "and says so");
	mv_verdict_free(&v);
	T_INTEQ(minimums_grade(NULL, "runc", "1.1.12", NULL, NOW, &v), -1, "no table returns -1");
	T_STREQ(v.minimum, "unavailable", "no table: minimum unavailable");
	mv_verdict_free(&v);
	T_STREQ(mv_status_name(MV_NOT_APPLICABLE), "not_applicable", "status names");
}

/* A one-component table whose bulletin and fix dates the test controls. */
static struct minimums *grace_table(const char *bulletin, const char *available, const char *status)
{
	char *err = NULL;
	char *js = xasprintf(
		"{\"schemaVersion\":1,\"generated\":\"2026-06-01T00:00:00Z\",\"maxAgeDays\":10,"
		"\"gracePeriodDays\":3,\"components\":{\"dcgm\":{\"kind\":\"minimum\",\"minimum\":\"4.5.3\","
		"\"advisory\":\"https://example.invalid/a\",\"cves\":[\"CVE-2026-47483\"],\"advisories\":[],"
		"\"source\":{\"feed\":\"NVIDIA CSAF\",\"aId\":5857,\"title\":\"t\",\"url\":\"u\",\"released\":\"%s\"},"
		"\"fixAvailability\":{\"available\":%s%s%s,\"status\":\"%s\"}}}}",
		bulletin, available ? "\"" : "", available ? available : "null", available ? "\"" : "", status);
	struct minimums *m = minimums_parse(js, strlen(js), &err);

	if (!T_OK(m != NULL, "grace table (%s, %s, %s) parses", bulletin, available ? available : "null",
	     status))
		printf("#   %s\n", err ? err : "");
	free(err);
	free(js);
	return m;
}

static void test_grace(void)
{
	struct minimums *m;
	struct mv_verdict v;

	/* fix available after the bulletin: the window runs from the later */
	m = grace_table("2026-06-01", "2026-06-05", "confirmed");
	minimums_grade(m, "dcgm", "4.5.2", NULL, time_parse_iso("2026-06-07T12:00:00Z"), &v);
	T_INTEQ(v.status, MV_PASS, "failing version passes inside the grace window");
	T_INTEQ(v.grace_active, 1, "grace active");
	T_STREQ(v.grace_until, "2026-06-08T00:00:00Z", "grace runs 3 days from the fix");
	T_OK(v.detail && strstr(v.detail, "grace period"), "detail mentions the grace period");
	mv_verdict_free(&v);
	minimums_grade(m, "dcgm", "4.5.2", NULL, time_parse_iso("2026-06-08T00:00:00Z"), &v);
	T_INTEQ(v.status, MV_FAIL, "grace expired at the end of the window");
	T_INTEQ(v.grace_active, 0, "grace not active");
	T_OK(v.grace_until == NULL, "no grace_until after expiry");
	mv_verdict_free(&v);
	minimums_grade(m, "dcgm", "4.5.3", NULL, time_parse_iso("2026-06-06"), &v);
	T_INTEQ(v.status, MV_PASS, "passing version needs no grace");
	T_INTEQ(v.grace_active, 0, "no grace record on a plain pass");
	mv_verdict_free(&v);
	T_OK(minimums_stale(m, time_parse_iso("2026-06-12")), "10-day table stale after 11 days");
	minimums_free(m);

	/* bulletin later than the fix */
	m = grace_table("2026-06-10", "2026-06-01", "confirmed");
	check(m, "dcgm", "4.5.2", NULL, time_parse_iso("2026-06-12"), MV_PASS, "2026-06-13");
	check(m, "dcgm", "4.5.2", NULL, time_parse_iso("2026-06-14"), MV_FAIL, NULL);
	minimums_free(m);

	/* fix not confirmed: grace holds however long ago the bulletin was */
	m = grace_table("2026-01-01", NULL, "pending");
	minimums_grade(m, "dcgm", "4.5.2", NULL, time_parse_iso("2026-12-01"), &v);
	T_INTEQ(v.status, MV_PASS, "unconfirmed fix keeps grace");
	T_INTEQ(v.grace_active, 1, "grace active while unconfirmed");
	T_OK(v.grace_until == NULL, "no end date while unconfirmed");
	T_OK(v.detail && strstr(v.detail, "not yet confirmed"), "detail says the fix is unconfirmed");
	mv_verdict_free(&v);
	minimums_free(m);

	/* the shipped table: fragnesia grace at the bulletin (USN-8373-1,
	 * 2026-06-02), then expired */
	if (M) {
		check(M, "ubuntuNoble", "6.8.0-110-generic", "linuxFragnesia",
		      time_parse_iso("2026-06-03"), MV_PASS, "grace period");
		check(M, "ubuntuNoble", "6.8.0-110-generic", "linuxFragnesia",
		      time_parse_iso("2026-06-06"), MV_FAIL, NULL);
	}
}

static void rejected(const char *why, const char *js, const char *needle)
{
	char *err = NULL;
	struct minimums *m = minimums_parse(js, strlen(js), &err);

	T_OK(m == NULL, "rejected: %s", why);
	if (!T_OK(err && strstr(err, needle) && !strchr(err, '\n'), "  one-line message names '%s'", needle))
		printf("#   err: %s\n", err ? err : "(null)");
	minimums_free(m);
	free(err);
}

#define HEAD "{\"schemaVersion\":1,\"generated\":\"2026-11-30T00:00:00Z\",\"maxAgeDays\":30,\"gracePeriodDays\":3,"
#define PROV "\"advisory\":\"u\",\"cves\":[],\"advisories\":[],\"source\":{\"feed\":\"f\",\"title\":\"t\"," \
	     "\"url\":\"u\",\"released\":\"2026-01-01\"},\"fixAvailability\":{\"available\":\"2026-01-01\"," \
	     "\"status\":\"confirmed\"}"

static void test_broken(void)
{
	char *err = NULL;
	struct minimums *m;

	rejected("not JSON", "{", "not valid JSON");
	rejected("array", "[]", "top level");
	rejected("schema 2", "{\"schemaVersion\":2}", "schemaVersion");
	rejected("no generated", "{\"schemaVersion\":1}", "generated");
	rejected("bad maxAgeDays", "{\"schemaVersion\":1,\"generated\":\"2026-11-30\",\"maxAgeDays\":\"x\",\"gracePeriodDays\":3}", "'maxAgeDays'");
	rejected("negative grace", "{\"schemaVersion\":1,\"generated\":\"2026-11-30\",\"maxAgeDays\":3,\"gracePeriodDays\":-1}", "'gracePeriodDays'");
	rejected("no components", HEAD "\"components\":{}}", "components");
	rejected("unknown kind", HEAD "\"components\":{\"foo\":{\"kind\":\"fuzzy\"," PROV "}}}", "'foo': unknown kind 'fuzzy'");
	rejected("missing kind", HEAD "\"components\":{\"foo\":{" PROV "}}}", "'foo': 'kind' is missing");
	rejected("minimum wrong type", HEAD "\"components\":{\"cuda\":{\"kind\":\"minimum\",\"minimum\":13," PROV "}}}", "'cuda': 'minimum'");
	rejected("minimum garbage", HEAD "\"components\":{\"cuda\":{\"kind\":\"minimum\",\"minimum\":\"new\"," PROV "}}}", "'cuda'");
	rejected("missing provenance", HEAD "\"components\":{\"cuda\":{\"kind\":\"minimum\",\"minimum\":\"1\"}}}", "'cuda': 'advisory'");
	rejected("cves not strings", HEAD "\"components\":{\"c\":{\"kind\":\"minimum\",\"minimum\":\"1\",\"advisory\":\"u\",\"cves\":[1],\"advisories\":[]}}}", "'cves'");
	rejected("bad release date", HEAD "\"components\":{\"c\":{\"kind\":\"minimum\",\"minimum\":\"1\",\"advisory\":\"u\",\"cves\":[],\"advisories\":[],\"source\":{\"feed\":\"f\",\"title\":\"t\",\"url\":\"u\",\"released\":\"soon\"}}}}", "source.released");
	rejected("confirmed without date", HEAD "\"components\":{\"c\":{\"kind\":\"minimum\",\"minimum\":\"1\",\"advisory\":\"u\",\"cves\":[],\"advisories\":[],\"source\":{\"feed\":\"f\",\"title\":\"t\",\"url\":\"u\",\"released\":\"2026-01-01\"},\"fixAvailability\":{\"status\":\"confirmed\"}}}}", "'available'");
	rejected("branch mismatch", HEAD "\"components\":{\"drv\":{\"kind\":\"branchMap\",\"branches\":{\"580\":\"570.1\"}," PROV "}}}", "'drv': branch '580'");
	rejected("branches missing", HEAD "\"components\":{\"drv\":{\"kind\":\"branchMap\"," PROV "}}}", "'drv': 'branches'");
	rejected("ladder key", HEAD "\"components\":{\"runc\":{\"kind\":\"ladder\",\"ladder\":{\"1\":\"1.0.3\"}," PROV "}}}", "'runc': ladder line '1'");
	rejected("ladder ranges", HEAD "\"components\":{\"runc\":{\"kind\":\"ladder\",\"ladder\":{\"1.0\":\"1.0.3\"},\"advisoryRanges\":[{\"id\":\"G\",\"fixed\":\"1.0.3\"}]," PROV "}}}", "'runc': advisoryRanges[0].fixed");
	rejected("train floor", HEAD "\"components\":{\"cx\":{\"kind\":\"trainMap\",\"trains\":{\"39\":\"xx.40.8002\"}," PROV "}}}", "'cx': train '39'");
	rejected("line shape", HEAD "\"components\":{\"bf\":{\"kind\":\"releaseLines\",\"lines\":{\"GA\":\"25.10.6\"}," PROV "}}}", "'bf': line 'GA'");
	rejected("window policy", HEAD "\"components\":{\"hpc\":{\"kind\":\"releaseWindow\",\"policy\":\"latest\",\"minimum\":\"26.5\",\"current\":\"26.9\"," PROV "}}}", "'hpc': 'policy'");
	rejected("window order", HEAD "\"components\":{\"hpc\":{\"kind\":\"releaseWindow\",\"policy\":\"current-or-previous\",\"minimum\":\"26.9\",\"current\":\"26.5\"," PROV "}}}", "'hpc'");
	rejected("package abi", HEAD "\"components\":{\"u\":{\"kind\":\"distroPackages\",\"packages\":{\"k\":{\"fixed\":\"6.8.0-1.1\",\"abi\":\"1\"}}," PROV "}}}", "'u': package 'k': 'abi'");
	rejected("package fixed", HEAD "\"components\":{\"u\":{\"kind\":\"distroPackages\",\"packages\":{\"k\":{}}," PROV "}}}", "'u': package 'k'");
	rejected("package provenance", HEAD "\"components\":{\"u\":{\"kind\":\"distroPackages\",\"packages\":{\"k\":{\"fixed\":\"1\",\"cves\":\"CVE\"}}," PROV "}}}", "'u': package 'k': 'cves'");
	rejected("program floor", HEAD "\"components\":{\"amd\":{\"kind\":\"programMap\",\"programs\":{\"MI300X\":6.4}," PROV "}}}", "'amd': program 'MI300X'");
	rejected("duplicate keys", HEAD "\"components\":{\"a\":{},\"a\":{}}}", "not valid JSON");
	rejected("control chars in names", HEAD "\"components\":{\"a\\u0001b\":{\"kind\":\"x\"}}}", "'a?b'");

	m = minimums_load("/nonexistent/minimum-versions.json", &err);
	if (!T_OK(m == NULL && err && strstr(err, "/nonexistent/minimum-versions.json"),
	     "missing file names the path"))
		printf("#   err: %s\n", err ? err : "(null)");
	free(err);
	err = NULL;

	/* unknown extra fields are tolerated: newer tables add provenance */
	m = minimums_parse(HEAD "\"deferredBulletins\":[1],\"components\":{\"c\":{\"kind\":\"docker\",\"minimum\":\"29.7.0\",\"future\":true," PROV "}}}",
			   strlen(HEAD "\"deferredBulletins\":[1],\"components\":{\"c\":{\"kind\":\"docker\",\"minimum\":\"29.7.0\",\"future\":true," PROV "}}}"),
			   &err);
	if (!T_OK(m != NULL, "extra fields and the docker kind are accepted"))
		printf("#   %s\n", err);
	check(m, "c", "29.0.0-rc.1", NULL, NOW, MV_FAIL, NULL);
	{
		json_t *meta = minimums_meta(m, NOW);

		T_OK(json_is_null(json_object_get(meta, "path")), "parsed table has no path");
		T_OK(json_is_null(json_object_get(meta, "source")), "no source given");
		json_decref(meta);
	}
	minimums_free(m);
	free(err);
}

int main(void)
{
	NOW = time_parse_iso("2026-12-01T00:00:00Z");
	test_shipped();
	if (M)
		test_kinds();
	test_grace();
	test_broken();
	minimums_free(M);
	return t_done();
}
