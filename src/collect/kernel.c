/* Kernel currency: the running kernel against the kernels installed on
 * disk, and whether the distribution asked for a reboot. A node that
 * installed a fixed kernel but never rebooted into it is still exposed,
 * which is the case the audit method saw take a node down. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/kernelrel.h"
#include "policy/version.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* "6.8.0-137-generic" -> base len 9 ("6.8.0-137"), flavour "generic".
 * A release without a "-<digits>" ABI part (RHEL "5.14.0-427.13.1.el9_4.x86_64"
 * has one, custom builds may not) keeps the whole string as its base. */
static void kernel_release_split(const char *rel, size_t *base_len, const char **flavour)
{
	const char *p = rel;
	*flavour = "";
	*base_len = strlen(rel);
	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	if (p == rel || *p != '-' || !isdigit((unsigned char)p[1]))
		return;
	p++;
	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	if (*p == '-' && p[1]) {
		*base_len = (size_t)(p - rel);
		*flavour = p + 1;
	}
}

static int kernel_release_cmp(const char *a, const char *b)
{
	size_t la, lb;
	const char *fa, *fb;
	kernel_release_split(a, &la, &fa);
	kernel_release_split(b, &lb, &fb);
	char *ba = xstrndup(a, la), *bb = xstrndup(b, lb);
	int r = dpkg_version_cmp(ba, bb);
	free(ba);
	free(bb);
	return r;
}

static long kernel_release_abi(const char *rel)
{
	/* the number after the first '-' of "6.8.0-137-generic" */
	const char *d = strchr(rel, '-');
	if (!d || !isdigit((unsigned char)d[1]))
		return -1;
	return strtol(d + 1, NULL, 10);
}

static const char *const image_fmts[] = {
	"/boot/vmlinuz-%s", "/boot/vmlinux-%s", "/boot/Image-%s",
	"/lib/modules/%s/vmlinuz", /* Fedora/RHEL (BLS) keep the image here */
	NULL,
};

static char *find_image(const char *rel)
{
	for (int i = 0; image_fmts[i]; i++) {
		char *p = xasprintf(image_fmts[i], rel);
		if (sr_exists(p))
			return p;
		free(p);
	}
	return NULL;
}

/* "Ubuntu 6.8.0-137.137-generic 6.8.12" -> "6.8.0-137.137" */
static char *signature_package_version(const char *sig)
{
	const char *sp = strchr(sig, ' ');
	if (!sp)
		return NULL;
	sp++;
	size_t n = strcspn(sp, " ");
	char *tok = xstrndup(sp, n);
	size_t base;
	const char *fl;
	kernel_release_split(tok, &base, &fl);
	tok[base] = 0;
	if (!*tok || !isdigit((unsigned char)*tok)) {
		free(tok);
		return NULL;
	}
	return tok;
}

/* The running release (from the os facts, else /proc), its flavour and ABI.
 * *rflav points into the returned string. */
static char *kernel_running(struct audit_ctx *ctx, struct col_run *c, json_t *f, const char **rflav)
{
	enum col_state ost;
	json_t *os = facts_get(ctx, "os", &ost);
	char *running = NULL;
	if (ost == COL_OK && fact_str(os, "kernel_release"))
		running = xstrdup(fact_str(os, "kernel_release"));
	else
		running = col_read(c, "/proc/sys/kernel/osrelease");
	/* an empty release is unread, not a kernel older than every one on disk */
	if (running && !*running) {
		free(running);
		running = NULL;
	}
	fact_set_str(f, "running", running);
	*rflav = "";
	if (running) {
		size_t bl;
		kernel_release_split(running, &bl, rflav);
		fact_set_str(f, "running_flavour", *rflav);
		long abi = kernel_release_abi(running);
		if (abi >= 0)
			fact_set_int(f, "running_abi", abi);
		else
			fact_set_null(f, "running_abi");
	} else {
		fact_set_null(f, "running_flavour");
		fact_set_null(f, "running_abi");
	}
	return running;
}

/* The kernels under /lib/modules, and the newest bootable one of the
 * running flavour. */
static void kernel_installed(struct col_run *c, json_t *f, const char *running, const char *rflav)
{
	char **names = NULL;
	size_t n = 0;
	json_t *inst = json_array();
	const char *newest = NULL;
	int rc = sr_list("/lib/modules", &names, &n);
	if (rc == 0) {
		struct strbuf ev = STRBUF_INIT;
		for (size_t i = 0; i < n; i++) {
			char *img = find_image(names[i]);
			json_t *k = json_object();
			fact_set_str(k, "release", names[i]);
			fact_set_str(k, "image", img);
			size_t bl;
			const char *fl;
			kernel_release_split(names[i], &bl, &fl);
			int same = strcmp(fl, rflav) == 0;
			fact_set_bool(k, "same_flavour", same);
			json_array_append_new(inst, k);
			sb_addf(&ev, "%s%s\n", names[i], img ? "" : " (no kernel image: leftover modules)");
			/* leftover module trees (dpkg keeps them after a purge) cannot boot */
			if (img && same && (!newest || kernel_release_cmp(names[i], newest) > 0))
				newest = names[i];
			free(img);
		}
		col_evidence_file(c, "/lib/modules", sb_str(&ev));
		sb_free(&ev);
		fact_set_bool(f, "modules_dir_readable", 1);
	} else {
		col_evidence_note(c, "/lib/modules not listable: %s", strerror(-rc));
		fact_set_bool(f, "modules_dir_readable", 0);
	}
	json_object_set_new(f, "installed", inst);
	fact_set_str(f, "newest_installed", newest);
	if (newest && running)
		fact_set_bool(f, "newer_installed", kernel_release_cmp(newest, running) > 0);
	else
		fact_set_null(f, "newer_installed");
	sr_list_free(names, n);
}

/* update-notifier writes these; /var/run is normally a link to /run */
static void kernel_reboot_required(struct col_run *c, json_t *f)
{
	const char *rr = NULL;
	if (sr_exists("/var/run/reboot-required"))
		rr = "/var/run/reboot-required";
	else if (sr_exists("/run/reboot-required"))
		rr = "/run/reboot-required";
	fact_set_bool(f, "reboot_required", rr != NULL);
	json_t *pkgs = json_array();
	if (rr) {
		char *msg = col_read(c, rr);
		free(msg);
		char *pp = xasprintf("%s.pkgs", rr);
		char *pk = col_read_quiet(pp);
		if (pk) {
			col_evidence_file(c, pp, pk);
			for (char *save = NULL, *t = strtok_r(pk, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
				char *w = str_trim(t);
				if (*w)
					json_array_append_new(pkgs, json_string(w));
			}
		}
		free(pk);
		free(pp);
	}
	json_object_set_new(f, "reboot_required_pkgs", pkgs);
}

/* What the release string says in the distribution's own numbering
 * (parse/kernelrel.h): Ubuntu's signature names the package build and
 * the upstream stable base, Debian's /proc/version the package version. */
static void kernel_release_facts(struct col_run *c, json_t *f, const char *running, const char *sig)
{
	char *pv = col_read_quiet("/proc/version");
	if (pv)
		col_evidence_file(c, "/proc/version", pv);
	struct kernel_rel k;
	if (running && kernelrel_parse(running, sig, pv, &k) == 0) {
		json_t *r = json_object();
		fact_set_str(r, "format", k.format);
		fact_set_str(r, "series", k.series);
		fact_set_str(r, "distro", k.distro);
		fact_set_str(r, "upstream", k.upstream);
		fact_set_str(r, "flavour", k.flavour);
		if (k.abi >= 0)
			fact_set_int(r, "abi", k.abi);
		else
			fact_set_null(r, "abi");
		json_object_set_new(f, "release", r);
		kernelrel_release(&k);
	} else {
		fact_set_null(f, "release");
	}
	free(pv);
}

void collect_kernel(struct audit_ctx *ctx, struct col_run *c)
{
	json_t *f = c->facts;
	const char *rflav;
	char *running = kernel_running(ctx, c, f, &rflav);

	/* Ubuntu names the exact package build here; the release string only
	 * carries the ABI, and security fixes land per upload. */
	char *sig = col_read_quiet("/proc/version_signature");
	fact_set_str(f, "version_signature", sig);
	char *pkgver = sig ? signature_package_version(sig) : NULL;
	fact_set_str(f, "package_version", pkgver);
	if (sig)
		col_evidence_file(c, "/proc/version_signature", sig);
	kernel_release_facts(c, f, running, sig);
	free(sig);
	free(pkgver);

	kernel_installed(c, f, running, rflav);
	kernel_reboot_required(c, f);

	if (!running)
		col_set_state(c, COL_FAILED, "the running kernel release could not be read");
	free(running);
}
