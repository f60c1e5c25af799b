/* Distribution kernel release strings: what `uname -r`, Ubuntu's
 * /proc/version_signature and Debian's /proc/version say about the series,
 * the distribution's own build and the upstream stable release it carries.
 * Each distribution numbers its kernels its own way, and a fix is published
 * against that number (an Ubuntu ABI upload, a RHEL errata build, a Debian
 * package version), so the grading needs the right one of them:
 *
 *   ubuntu   5.15.0-143-generic     + "Ubuntu 5.15.0-143.153-generic 5.15.185"
 *   debian   6.1.0-28-amd64         + "... Debian 6.1.119-1 (2024-11-22)"
 *   rhel     5.14.0-503.15.1.el9_5.x86_64 (also Rocky, Alma, CentOS Stream, Oracle RHCK)
 *   amazon   5.10.230-223.885.amzn2.x86_64, 6.1.115-126.197.amzn2023.x86_64
 *   suse     5.14.21-150500.55.83-default
 *   upstream 6.6.63, 6.12.1-custom (a mainline/stable build)
 *
 * Pure: strings in, struct out; nothing is read here. */
#ifndef CMAX_PARSE_KERNELREL_H
#define CMAX_PARSE_KERNELREL_H

struct kernel_rel {
	const char *format;  /* "ubuntu" | "debian" | "rhel" | "amazon" | "suse" | "upstream" (static) */
	int major, minor;    /* the series: 5.15 */
	char series[24];     /* "5.15" */
	char *upstream;      /* the upstream stable release it is built from ("5.15.185"), NULL when the
			      * release does not say (RHEL, SUSE, Ubuntu without its signature) */
	char *distro;        /* the distribution's own build, compared within its series:
			      * "5.15.0-143.153" (or "5.15.0-143" without the signature), "6.1.119-1",
			      * "5.14.0-503.15.1.el9_5", "5.10.230-223.885.amzn2", "5.14.21-150500.55.83" */
	char *flavour;       /* "generic", "amd64", "x86_64", "default", "" */
	long abi;            /* Ubuntu/Debian ABI number ("143"), -1 when the format has none */
};

/* 0 and *out filled, or -1 (nothing to release) when release is not a
 * kernel release ("X.Y..." of at most 128 printable characters). signature
 * and proc_version may be NULL; garbage in them is ignored, never an error. */
int kernelrel_parse(const char *release, const char *signature, const char *proc_version, struct kernel_rel *out);
void kernelrel_release(struct kernel_rel *k);
#endif
