/* Saved advisories (OSV, CSAF 2.0) into the normalised shape, and the
 * offline refresh of a minimum table from them: floors only move up, a
 * Windows product does not move a Linux floor, a distro notice moves only
 * the entries whose CVEs it fixes, a withdrawn record fixes nothing. */
#include "parse/advisory.h"
#include "policy/refresh.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static const char osv_runc[] =
	"{\"id\":\"GHSA-aaaa-bbbb-cccc\",\"published\":\"2026-11-18T16:40:05Z\",\"aliases\":[\"CVE-2026-61207\"],"
	"\"summary\":\"runc escape\",\"affected\":[{\"package\":{\"ecosystem\":\"Go\",\"name\":\"github.com/opencontainers/runc\"},"
	"\"ranges\":[{\"type\":\"SEMVER\",\"events\":[{\"introduced\":\"0\"},{\"fixed\":\"1.4.5\"}]},"
	"{\"type\":\"SEMVER\",\"events\":[{\"introduced\":\"1.5.0-rc.1\"},{\"fixed\":\"1.5.1\"}]}]}],"
	"\"references\":[{\"type\":\"WEB\",\"url\":\"https://w\"},{\"type\":\"ADVISORY\",\"url\":\"https://a\"}]}";

static const char csaf_driver[] =
	"{\"document\":{\"csaf_version\":\"2.0\",\"title\":\"Driver bulletin\",\"publisher\":{\"name\":\"NVIDIA Corporation\"},"
	"\"references\":[{\"category\":\"self\",\"url\":\"https://nv/5902\"}],"
	"\"tracking\":{\"id\":\"5902\",\"initial_release_date\":\"2026-10-21T00:00:00.000Z\"}},"
	"\"product_tree\":{\"branches\":[{\"category\":\"vendor\",\"name\":\"NVIDIA\",\"branches\":[{\"category\":\"product_name\","
	"\"name\":\"GPU Display Driver\",\"branches\":[{\"category\":\"product_family\",\"name\":\"Linux\",\"branches\":["
	"{\"category\":\"product_version\",\"name\":\"580.172.01\",\"product\":{\"product_id\":\"P1\",\"name\":\"x\"}}]},"
	"{\"category\":\"product_family\",\"name\":\"Windows\",\"branches\":[{\"category\":\"product_version\",\"name\":\"581.57\","
	"\"product\":{\"product_id\":\"P2\",\"name\":\"y\"}}]}]}]}]},"
	"\"vulnerabilities\":[{\"cve\":\"CVE-2026-24412\",\"product_status\":{\"fixed\":[\"P1\",\"P2\",\"P9\"]}}]}";

static const char table[] =
	"{\"schemaVersion\":1,\"generated\":\"2026-11-01T00:00:00Z\",\"components\":{"
	"\"runc\":{\"kind\":\"ladder\",\"ladder\":{\"1.4\":\"1.4.3\",\"1.5\":\"1.5.0-rc.3\",\"1.1\":\"1.1.14\"}},"
	"\"nvidiaDriver\":{\"kind\":\"branchMap\",\"branches\":{\"580\":\"580.159.03\",\"595\":\"595.71.05\"}},"
	"\"docker\":{\"kind\":\"minimum\",\"minimum\":\"29.7.0\"},"
	"\"ubuntuNoble\":{\"kind\":\"distroPackages\",\"packages\":{"
	"\"a\":{\"package\":\"linux\",\"fixed\":\"6.8.0-124.124\",\"abi\":124,\"cves\":[\"CVE-2026-46300\"]},"
	"\"b\":{\"package\":\"linux\",\"fixed\":\"6.8.0-137.137\",\"cves\":[\"CVE-2026-53359\"]}}}}}";

int main(void)
{
	char *err = NULL;
	json_t *a = advisory_parse(S(osv_runc), &err);
	T_OK(a != NULL, "OSV record parses");
	T_STREQ(jstr(a, "feed"), "OSV", "OSV feed");
	T_STREQ(jstr(a, "url"), "https://a", "OSV: the ADVISORY reference is the url");
	T_STREQ(jstr(a, "published"), "2026-11-18", "OSV: published date");
	T_STREQ(json_string_value(json_array_get(json_object_get(a, "cves"), 0)), "CVE-2026-61207", "OSV: CVE alias");
	T_INTEQ(json_array_size(json_object_get(a, "fixes")), 2, "OSV: one fix per fixed event");

	json_t *c = advisory_parse(S(csaf_driver), &err);
	T_OK(c != NULL, "CSAF document parses");
	T_STREQ(jstr(c, "feed"), "NVIDIA CSAF", "CSAF from NVIDIA");
	T_STREQ(jstr(c, "id"), "5902", "CSAF tracking id");
	T_INTEQ(json_array_size(json_object_get(c, "fixes")), 2, "CSAF: fixed products that exist in the tree (P9 does not)");
	T_STREQ(jstr(json_array_get(json_object_get(c, "fixes"), 0), "package"), "NVIDIA GPU Display Driver Linux",
		"CSAF: the branch path is the package");
	T_STREQ(jstr(json_array_get(json_object_get(c, "fixes"), 0), "version"), "580.172.01", "CSAF: product_version");

	json_t *usn = advisory_parse(S("{\"id\":\"USN-1-1\",\"published\":\"2026-11-10T19:31:07Z\",\"upstream\":[\"CVE-2026-46300\"],"
				       "\"affected\":[{\"package\":{\"ecosystem\":\"Ubuntu:24.04:LTS\",\"name\":\"linux\"},"
				       "\"ranges\":[{\"type\":\"ECOSYSTEM\",\"events\":[{\"introduced\":\"0\"},{\"fixed\":\"6.8.0-141.141\"}]}]}]}"),
				     &err);
	json_t *gone = advisory_parse(S("{\"id\":\"GHSA-w\",\"withdrawn\":\"2026-11-01T00:00:00Z\",\"affected\":[{\"package\":"
					"{\"ecosystem\":\"Go\",\"name\":\"github.com/moby/moby\"},\"ranges\":[{\"events\":[{\"fixed\":\"99.0.0\"}]}]}]}"),
				      &err);
	T_INTEQ(json_array_size(json_object_get(gone, "fixes")), 0, "withdrawn OSV record: no fixes");

	T_OK(advisory_parse(S("[]"), &err) == NULL && err, "neither format: refused with a reason");
	free(err);
	err = NULL;
	T_OK(advisory_parse(S("{"), &err) == NULL && err, "not JSON: refused");
	free(err);

	json_error_t je;
	json_t *t = json_loads(table, 0, &je), *advs = json_array(), *changes = NULL;
	json_array_append(advs, a);
	json_array_append(advs, c);
	json_array_append(advs, usn);
	json_array_append(advs, gone);
	json_t *out = minimums_refresh(t, advs, "2026-12-02", &changes);
	json_t *comps = json_object_get(out, "components");
	T_STREQ(jstr(json_object_get(json_object_get(comps, "runc"), "ladder"), "1.4"), "1.4.5", "ladder line 1.4 moves up");
	T_STREQ(jstr(json_object_get(json_object_get(comps, "runc"), "ladder"), "1.5"), "1.5.1", "ladder line 1.5 moves past rc");
	T_STREQ(jstr(json_object_get(json_object_get(comps, "runc"), "ladder"), "1.1"), "1.1.14", "an untouched line stays");
	T_STREQ(jstr(json_object_get(json_object_get(comps, "nvidiaDriver"), "branches"), "580"), "580.172.01",
		"CSAF Linux fix moves branch 580");
	T_OK(!json_object_get(json_object_get(json_object_get(comps, "nvidiaDriver"), "branches"), "581"),
	     "the Windows product adds no branch");
	T_STREQ(jstr(json_object_get(comps, "docker"), "minimum"), "29.7.0", "a withdrawn record moves nothing");
	json_t *pk = json_object_get(json_object_get(comps, "ubuntuNoble"), "packages");
	T_STREQ(jstr(json_object_get(pk, "a"), "fixed"), "6.8.0-141.141", "USN moves the entry of its CVE");
	T_INTEQ(json_integer_value(json_object_get(json_object_get(pk, "a"), "abi")), 141, "and its ABI");
	T_STREQ(jstr(json_object_get(pk, "b"), "fixed"), "6.8.0-137.137", "an entry for other CVEs stays");
	T_STREQ(jstr(json_object_get(json_object_get(pk, "a"), "basis"), "kind"), "source", "a moved entry gets its basis");
	T_STREQ(jstr(json_object_get(json_object_get(comps, "runc"), "source"), "feed"), "OSV", "and its source");
	T_INTEQ(json_array_size(changes), 4, "four floors moved: 1.4, 1.5, 580 and linux entry a (no Windows branch)");
	T_STREQ(jstr(out, "generated"), "2026-11-18T00:00:00Z", "generated: the newest advisory, not today");

	/* a floor never moves down */
	json_t *changes2 = NULL, *out2 = minimums_refresh(out, advs, "2026-12-02", &changes2);
	T_INTEQ(json_array_size(changes2), 0, "a second refresh from the same feeds moves nothing");
	json_decref(out2);
	json_decref(changes2);
	json_decref(out);
	json_decref(changes);
	json_decref(t);
	json_decref(advs);
	json_decref(a);
	json_decref(c);
	json_decref(usn);
	json_decref(gone);
	return t_done();
}
