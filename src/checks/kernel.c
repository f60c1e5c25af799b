/* Kernel currency (isolation.kernel-current) and the Ubuntu 24.04 kernel
 * advisories of the minimum table (versions.ubuntu-kernel). */
#include "checks/checks.h"
#include "collect/collector.h"
#include "core/strbuf.h"
#include "policy/minimums.h"
#include <stdlib.h>
#include <string.h>

void check_kern_current(struct audit_ctx *ctx, struct result *r)
{
	json_t *k = facts_get(ctx, "kernel", NULL);
	const char *running = fact_str(k, "running");
	const char *newest = fact_str(k, "newest_installed");
	const char *flav = fact_str(k, "running_flavour");
	int newer = 0, reboot = 0, listable = 0;
	int newer_known = fact_bool(k, "newer_installed", &newer) == 0;
	fact_bool(k, "reboot_required", &reboot);
	fact_bool(k, "modules_dir_readable", &listable);

	json_t *obs = json_object();
	fact_set_str(obs, "running", running);
	fact_set_str(obs, "newest_installed", newest);
	fact_set_bool(obs, "reboot_required", reboot);
	json_t *pk = fact_get(k, "reboot_required_pkgs");
	if (json_array_size(pk))
		json_object_set(obs, "reboot_required_pkgs", pk);
	json_t *inst = json_array(), *e;
	size_t i;
	json_array_foreach(fact_get(k, "installed"), i, e)
		if (json_is_string(json_object_get(e, "image")))
			json_array_append(inst, json_object_get(e, "release"));
	json_object_set_new(obs, "installed", inst);
	r_observed(r, obs);
	r_expectedf(r, "the running kernel is the newest installed one and no reboot is pending");

	struct strbuf pkgs = STRBUF_INIT;
	json_array_foreach(pk, i, e)
		sb_addf(&pkgs, "%s%s", i ? ", " : "", json_string_value(e));

	if (newer_known && newer) {
		r_fail(r, "kernel %s is installed but %s is running: the node has not rebooted into its "
		       "update%s", newest, running, reboot ? " (and /var/run/reboot-required is present)" : "");
		r_remedy(r, "Drain the node and reboot it into %s (check `grub-editenv list` or the "
			 "GRUB default if it boots an older entry).", newest);
	} else if (reboot) {
		r_fail(r, "the system asks for a reboot (/var/run/reboot-required%s%s); running %s",
		       pkgs.len ? ", for " : "", sb_str(&pkgs), running ? running : "an unknown kernel");
		r_remedy(r, "Drain the node and reboot it so updated packages (kernel, libc, microcode) take effect.");
	} else if (!listable) {
		r_skip(r, "no /lib/modules visible, so the installed kernels are unknown; running %s",
		       running ? running : "an unknown kernel");
	} else if (!newest) {
		r_skip(r, "no bootable installed kernel of the running flavour '%s' found (no /boot/vmlinuz-* "
		       "next to /lib/modules/*): cannot tell whether %s is current", flav ? flav : "",
		       running ? running : "the running kernel");
	} else if (strcmp(newest, running) == 0) {
		r_pass(r, "running the newest installed kernel %s; no reboot pending", running);
	} else {
		/* the running kernel is newer than any on disk: booted over the
		 * network or its package was removed */
		r_pass(r, "running %s, newer than every installed %s kernel (newest on disk %s); no reboot pending",
		       running, flav && *flav ? flav : "", newest);
		r_evidence_note(r, "the running kernel has no installed image here (network boot or removed package)");
	}
	sb_free(&pkgs);
}

static const struct {
	const char *key, *name;
} noble_pkgs[] = {
	{ "linuxFragnesia", "Fragnesia" },
	{ "linuxJanuscape", "Januscape" },
	{ "linuxVmscape", "VMScape" },
};

/* Whether the noble table applies to this host's kernel; when it does
 * not, the row says why. Returns 0 when the kernel is to be graded. */
static int noble_applies(struct result *r, const json_t *os, const json_t *k)
{
	const char *id = fact_str(os, "os_id"), *ver = fact_str(os, "os_version_id");
	const char *pretty = fact_str(os, "os_pretty");
	const char *running = fact_str(k, "running");
	const char *flav = fact_str(k, "running_flavour");
	long long abi = -1;
	fact_int(k, "running_abi", &abi);

	if (!id || !ver) {
		r_skip(r, "the OS release could not be read, so the Ubuntu 24.04 kernel table cannot be applied");
		return -1;
	}
	if (strcmp(id, "ubuntu") != 0 || strcmp(ver, "24.04") != 0) {
		r_skip(r, "not applicable: the table grades Ubuntu 24.04 (noble) kernels; this is %s",
		       pretty ? pretty : id);
		return -1;
	}
	if (!running || !str_starts(running, "6.8.0-") || abi < 0) {
		r_skip(r, "not applicable: kernel %s is not the noble 6.8.0-N series the table covers "
		       "(HWE and mainline kernels are separate packages)", running ? running : "(unknown)");
		return -1;
	}
	if (abi >= 1000) {
		/* linux-nvidia, -aws, -azure, -gcp... number their ABIs from 1000 up
		 * and carry their own USNs; grading them against the generic
		 * package's ABI would pass them unconditionally */
		r_observedf(r, "%s", running);
		r_skip(r, "not graded: %s is a derivative kernel (flavour %s, ABI %lld) with its own "
		       "advisories; the table lists the generic 'linux' package only", running,
		       flav ? flav : "?", abi);
		r_remedy(r, "Check the Ubuntu security notices for the linux-%s source package by hand.",
			 flav ? flav : "derivative");
		return -1;
	}
	return 0;
}

/* Each advisory's verdict: the rows, a summary, the failures. */
struct noble_tally {
	struct strbuf sum, failed;
	int nfail, nunk;
};

static json_t *noble_grade(struct audit_ctx *ctx, struct result *r, const char *observed, struct noble_tally *t)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < sizeof noble_pkgs / sizeof noble_pkgs[0]; i++) {
		struct mv_verdict v;
		minimums_grade(ctx->minimums, "ubuntuNoble", observed, noble_pkgs[i].key, ctx->now, &v);
		json_t *row = json_object();
		fact_set_str(row, "advisory", noble_pkgs[i].name);
		fact_set_str(row, "package", noble_pkgs[i].key);
		fact_set_str(row, "status", mv_status_name(v.status));
		fact_set_str(row, "fixed", v.minimum);
		fact_set_str(row, "detail", v.detail);
		if (v.cves)
			json_object_set(row, "cves", v.cves);
		if (v.grace_active)
			fact_set_str(row, "grace_until", v.grace_until);
		json_array_append_new(rows, row);
		sb_addf(&t->sum, "%s%s %s", i ? ", " : "", noble_pkgs[i].name,
			v.status == MV_PASS ? (v.grace_active ? "pass (grace)" : "pass")
			: v.status == MV_FAIL ? "FAIL" : mv_status_name(v.status));
		if (v.status == MV_FAIL) {
			t->nfail++;
			sb_addf(&t->failed, "%s%s (fixed in %s)", t->nfail > 1 ? ", " : "", noble_pkgs[i].name,
				v.minimum ? v.minimum : "?");
		} else if (v.status == MV_UNKNOWN) {
			t->nunk++;
		}
		if (v.status == MV_FAIL || v.grace_active) {
			r_refs_json(r, v.cves);
			r_refs_json(r, v.advisories);
		}
		mv_verdict_free(&v);
	}
	return rows;
}

void check_kern_ubuntu(struct audit_ctx *ctx, struct result *r)
{
	json_t *k = facts_get(ctx, "kernel", NULL);
	enum col_state ost;
	json_t *os = facts_get(ctx, "os", &ost);
	if (noble_applies(r, os, k))
		return;
	const char *running = fact_str(k, "running");
	const char *pkgver = fact_str(k, "package_version");
	const char *observed = pkgver ? pkgver : running;

	if (!ctx->minimums) {
		r_observedf(r, "%s", observed);
		r_warn(r, "kernel %s read but not graded: cmax's minimum-version table is unavailable (%s). "
		       "This is a cmax installation problem, not the provider's", observed,
		       ctx->minimums_error ? ctx->minimums_error : "no reason recorded");
		return;
	}

	struct noble_tally t = { STRBUF_INIT, STRBUF_INIT, 0, 0 };
	json_t *rows = noble_grade(ctx, r, observed, &t);
	json_t *obs = json_object();
	fact_set_str(obs, "running", running);
	fact_set_str(obs, "package_version", pkgver);
	json_object_set_new(obs, "verdicts", rows);
	r_observed(r, obs);
	r_expectedf(r, "at or above the fixed build of each noble kernel advisory in the table");

	int vm = 0;
	fact_bool(os, "is_vm", &vm);
	const char *vmnote = vm ? "; in a VM, Januscape and VMScape are also a matter of the host kernel, "
				  "which a guest cannot check" : "";
	if (t.nfail) {
		r_fail(r, "kernel %s is missing fixes: %s [%s]%s", observed, sb_str(&t.failed), sb_str(&t.sum), vmnote);
		r_remedy(r, "Install the current linux-image-generic for 24.04 (apt-get install --only-upgrade "
			 "linux-image-generic) and reboot into it.");
	} else if (t.nunk) {
		r_warn(r, "kernel %s could not be graded against every advisory [%s]%s%s", observed, sb_str(&t.sum),
		       pkgver ? "" : " (/proc/version_signature unreadable: only the ABI is known)", vmnote);
	} else {
		r_pass(r, "kernel %s has the fixes [%s]%s", observed, sb_str(&t.sum), vmnote);
	}
	sb_free(&t.sum);
	sb_free(&t.failed);
}
