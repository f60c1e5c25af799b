/* Kernel release strings of each distribution the GPU fleets run, as
 * `uname -r`, /proc/version_signature and /proc/version print them. */
#include "parse/kernelrel.h"
#include "tap.h"
#include <string.h>

static void one(const char *rel, const char *sig, const char *pv, const char *format, const char *series,
		const char *distro, const char *upstream, const char *flavour, long abi)
{
	struct kernel_rel k;
	int rc = kernelrel_parse(rel, sig, pv, &k);
	T_INTEQ(rc, 0, "%s parses", rel);
	if (rc)
		return;
	T_STREQ(k.format, format, "%s: format", rel);
	T_STREQ(k.series, series, "%s: series", rel);
	T_STREQ(k.distro, distro, "%s: distribution build", rel);
	if (upstream)
		T_STREQ(k.upstream, upstream, "%s: upstream release", rel);
	else
		T_OK(k.upstream == NULL, "%s: no upstream release (got %s)", rel, k.upstream ? k.upstream : "");
	T_STREQ(k.flavour, flavour, "%s: flavour", rel);
	T_INTEQ(k.abi, abi, "%s: ABI", rel);
	kernelrel_release(&k);
}

static void test_distributions(void)
{
	one("5.15.0-143-generic", "Ubuntu 5.15.0-143.153-generic 5.15.185", NULL, "ubuntu", "5.15",
	    "5.15.0-143.153", "5.15.185", "generic", 143);
	/* 20.04 HWE: the backport suffix stays in the package version */
	one("5.15.0-139-generic", "Ubuntu 5.15.0-139.149~20.04.1-generic 5.15.178", NULL, "ubuntu", "5.15",
	    "5.15.0-139.149~20.04.1", "5.15.178", "generic", 139);
	one("6.8.0-1030-nvidia-64k", "Ubuntu 6.8.0-1030.33-nvidia-64k 6.8.12", NULL, "ubuntu", "6.8",
	    "6.8.0-1030.33", "6.8.12", "nvidia-64k", 1030);
	/* no signature (a container, a locked /proc): only the ABI is known */
	one("5.4.0-216-generic", NULL, NULL, "ubuntu", "5.4", "5.4.0-216", NULL, "generic", 216);
	one("6.1.0-28-amd64", NULL,
	    "Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, "
	    "GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)\n",
	    "debian", "6.1", "6.1.119-1", "6.1.119", "amd64", 28);
	one("5.10.0-33-cloud-amd64", NULL, NULL, "debian", "5.10", "5.10.0-33", NULL, "cloud-amd64", 33);
	one("5.14.0-503.15.1.el9_5.x86_64", NULL, NULL, "rhel", "5.14", "5.14.0-503.15.1.el9_5", NULL, "x86_64", -1);
	one("4.18.0-553.el8_10.x86_64", NULL, NULL, "rhel", "4.18", "4.18.0-553.el8_10", NULL, "x86_64", -1);
	one("5.14.0-427.13.1.el9_4.x86_64+rt", NULL, NULL, "rhel", "5.14", "5.14.0-427.13.1.el9_4", NULL,
	    "x86_64+rt", -1);
	one("5.10.230-223.885.amzn2.x86_64", NULL, NULL, "amazon", "5.10", "5.10.230-223.885.amzn2", "5.10.230",
	    "x86_64", -1);
	one("6.1.115-126.197.amzn2023.aarch64", NULL, NULL, "amazon", "6.1", "6.1.115-126.197.amzn2023", "6.1.115",
	    "aarch64", -1);
	one("5.14.21-150500.55.83-default", NULL, NULL, "suse", "5.14", "5.14.21-150500.55.83", NULL, "default", -1);
	one("6.6.63", NULL, NULL, "upstream", "6.6", "6.6.63", "6.6.63", "", -1);
	one("6.12.1-custom", NULL, NULL, "upstream", "6.12", "6.12.1", "6.12.1", "custom", -1);
}

static void test_refused(void)
{
	static const char *const bad[] = { "", "generic", "6", "6.", ".6.8", "6.8.0 -137", "6.8.0-137-gen\xc3\xa9ric",
					   "999.1.0", "6.8.0-137-generic\n", NULL };
	struct kernel_rel k;
	for (int i = 0; bad[i]; i++)
		T_INTEQ(kernelrel_parse(bad[i], NULL, NULL, &k), -1, "refused: '%s'", bad[i]);
	char longrel[200];
	memset(longrel, '1', sizeof longrel - 1);
	longrel[sizeof longrel - 1] = 0;
	longrel[1] = '.';
	T_INTEQ(kernelrel_parse(longrel, NULL, NULL, &k), -1, "a 199-character release is refused");
	/* garbage beside a good release is ignored, never an error */
	T_INTEQ(kernelrel_parse("5.15.0-143-generic", "Ubuntu \x01\x02 zz", "Debian (", &k), 0,
		"garbage signature and /proc/version: the release alone");
	T_STREQ(k.distro, "5.15.0-143", "garbage signature: ABI only");
	T_OK(k.upstream == NULL, "garbage signature: upstream unknown");
	kernelrel_release(&k);
	T_INTEQ(kernelrel_parse("5.15.0-143-generic", "Ubuntu 5.15.0-143.153-lowlatency 5.15.185", NULL, &k), 0,
		"a signature of another flavour");
	T_STREQ(k.distro, "5.15.0-143", "another flavour's signature is not this kernel's build");
	kernelrel_release(&k);
}

int main(void)
{
	test_distributions();
	test_refused();
	return t_done();
}
