/* Version parsing and the two orderings the minimum table relies on. */
#include "policy/version.h"
#include "tap.h"

#include <stdlib.h>

static int sign(int x)
{
	return x < 0 ? -1 : x > 0;
}

static void generic(const char *a, const char *b, int want)
{
	int r = 99;

	if (ver_compare(a, b, &r) < 0) {
		T_OK(0, "generic %s vs %s parses", a, b);
		return;
	}
	T_INTEQ(sign(r), want, "generic %s vs %s", a, b);
	if (ver_compare(b, a, &r) == 0)
		T_INTEQ(sign(r), -want, "generic %s vs %s (reversed)", b, a);
}

static void dpkg(const char *a, const char *b, int want)
{
	T_INTEQ(sign(dpkg_version_cmp(a, b)), want, "dpkg %s vs %s", a, b);
	T_INTEQ(sign(dpkg_version_cmp(b, a)), -want, "dpkg %s vs %s (reversed)", b, a);
}

static void graded(const char *in, const char *want)
{
	char *g = ver_graded_form(in);

	T_STREQ(g, want, "graded form of '%s'", in);
	free(g);
}

int main(void)
{
	struct ver v;
	char mm[VER_MM_MAX];

	/* normalisation */
	generic("580.159.03", "580.159.3", 0);
	generic("13.1", "13.1.0.0", 0);
	generic("v1.19.1", "1.19.1", 0);
	generic("1:8.2.2", "8.2.2", 0);
	generic("5:29.7.0-1~ubuntu.24.04~noble", "29.7.0", 0);
	generic("1.2.3-1ubuntu1", "1.2.3", 0);
	generic("8.2.2+ds-0ubuntu1.10", "8.2.2", 0);
	generic("1.2.3~22.04", "1.2.3", 0);
	generic("1.2.3.4.5", "1.2.3.4", 0);	/* only four parts count */
	generic("580.95.05", "580.159.03", -1);
	generic("10.0", "9.99", 1);
	generic("1.10", "1.9", 1);

	/* release candidates sort below the stable release */
	generic("1.5.0-rc.3", "1.5.0", -1);
	generic("1.5.0-rc.2", "1.5.0-rc.3", -1);
	generic("1.2.0-rc1", "1.2.0", -1);
	generic("1.2.0-rc1", "1.2.0-rc.1", 0);
	generic("29.0.0-rc.1", "29.0.0", -1);
	generic("29.0.0-rc.1", "28.5.2", 1);
	generic("1.0.0-rc93", "1.0.0-rc95", -1);
	generic("2.0.0~rc1", "2.0.0", -1);
	generic("2.0.0-beta.2", "2.0.0-rc.1", -1);
	generic("2.0.0-alpha", "2.0.0-beta", -1);
	generic("1.4.0-RC.3", "1.4.0-rc.3", 0);
	generic("1.4.0-rcfoo", "1.4.0", 0);	/* a word, not an rc tag */

	graded("v1.5.0-rc.2", "1.5.0-rc.2");
	graded("5:29.7.0-1~ubuntu.24.04~noble", "29.7.0");
	graded(" 580.95.05 ", "580.95.05");
	graded("28.39.1002 (MT_0000000838)", "28.39.1002");

	/* garbage is an error, not a crash */
	T_INTEQ(ver_parse("", &v), -1, "empty string does not parse");
	T_INTEQ(ver_parse(NULL, &v), -1, "NULL does not parse");
	T_INTEQ(ver_parse("garbage", &v), -1, "'garbage' does not parse");
	T_INTEQ(ver_parse("v", &v), -1, "'v' alone does not parse");
	T_INTEQ(ver_parse("1:", &v), -1, "epoch alone does not parse");
	T_INTEQ(ver_parse(".5", &v), -1, "leading dot does not parse");
	T_INTEQ(ver_parse("99999999999999999999999", &v), -1, "overflowing part does not parse");
	T_INTEQ(ver_parse("000000000000000000000000001.2", &v), 0, "leading zeros are not digits");
	T_INTEQ(v.part[0], 1, "leading zeros read as 1");
	{
		int r = 7;

		T_INTEQ(ver_compare("1.0", "n/a", &r), -1, "compare with garbage fails");
		T_INTEQ(r, 7, "result untouched on failure");
	}
	T_OK(ver_graded_form("none") == NULL, "graded form of garbage is NULL");

	/* helpers */
	T_INTEQ(ver_major("580.95.05"), 580, "ver_major");
	T_INTEQ(ver_major("v1.2"), 1, "ver_major with v");
	T_INTEQ(ver_major("x"), -1, "ver_major garbage");
	T_STREQ(ver_major_minor("1.5.0-rc.3", mm), "1.5", "ver_major_minor rc");
	T_STREQ(ver_major_minor("7", mm), "7.0", "ver_major_minor one part");
	T_OK(ver_major_minor("?", mm) == NULL, "ver_major_minor garbage");

	/* Debian policy ordering (examples from the policy manual and dpkg) */
	dpkg("1.0", "1.0", 0);
	dpkg("1.0~rc1", "1.0", -1);
	dpkg("1.0~~", "1.0~~a", -1);
	dpkg("1.0~~a", "1.0~", -1);
	dpkg("1.0~", "1.0", -1);
	dpkg("1.0", "1.0a", -1);
	dpkg("1.0a", "1.0+", -1);	/* letters before other symbols */
	dpkg("1.0", "1.0.1", -1);
	dpkg("1.0-1", "1.0-2", -1);
	dpkg("1.0-1", "1.0", 1);
	dpkg("1.0-0", "1.0", 0);	/* absent revision reads as 0 */
	dpkg("1:0.5", "2.0", 1);	/* epoch wins */
	dpkg("0:1.0", "1.0", 0);
	dpkg("2:1.0", "10:0.1", -1);
	dpkg("1.2.3", "1.2.10", -1);	/* numeric, not lexical */
	dpkg("1.002", "1.2", 0);
	dpkg("1:8.2.2+ds-0ubuntu1.4", "1:8.2.2+ds-0ubuntu1.10", -1);
	dpkg("1:8.2.2+ds-0ubuntu1.10", "1:8.2.2+ds-0ubuntu1.10", 0);
	dpkg("8.2.2+ds-0ubuntu1.10", "1:8.2.2+ds-0ubuntu1.10", -1);
	dpkg("6.8.0-110.110", "6.8.0-124.124", -1);
	dpkg("6.8.0-87.88", "6.8.0-87.87", 1);
	dpkg("2.30-0ubuntu2", "2.30-0ubuntu10", -1);
	dpkg("1.2-3-4", "1.2-3-5", -1);	/* revision splits at the last hyphen */
	dpkg("99999999999999999999999.1", "99999999999999999999998.9", 1);
	dpkg("", "0", 0);
	T_INTEQ(dpkg_version_cmp(NULL, "1"), -1, "dpkg NULL sorts as empty");
	return t_done();
}
