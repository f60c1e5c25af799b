/* Kernel currency (isolation.kernel-current), the Ubuntu 24.04 kernel
 * advisories of the minimum table (versions.ubuntu-kernel) and every
 * distribution's kernel lines against data/kernel-series.json
 * (versions.kernel-series). */
#include "checks/checks.h"
#include "collect/collector.h"
#include "core/strbuf.h"
#include "core/jsonget.h"
#include "policy/minimums.h"
#include "policy/version.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* ---- versions.kernel-series: every distribution's kernel lines ---- */

static int kseries_version_match(const json_t *versions, const char *ver)
{
	size_t i;
	json_t *v;
	json_array_foreach(versions, i, v) {
		const char *want = json_string_value(v);
		size_t n = strlen(want);
		/* "9" matches VERSION_ID "9.5"; "22.04" only itself */
		if (!strcmp(ver, want) || (!strncmp(ver, want, n) && ver[n] == '.'))
			return 1;
	}
	return 0;
}

static int kseries_id_match(const json_t *ids, const char *id)
{
	size_t i;
	json_t *v;
	json_array_foreach(ids, i, v)
		if (!strcmp(json_string_value(v), id))
			return 1;
	return 0;
}

/* The table's line for this host: the distribution's own, or a kernel.org
 * series for a mainline build (format "upstream") on any distribution. */
static const json_t *kseries_find(const json_t *table, const char *id, const char *ver, const char *format,
				  const char *series)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(table, "series"), i, s) {
		if (strcmp(jget_str(s, "format"), format) || strcmp(jget_str(s, "kernel"), series))
			continue;
		if (!strcmp(format, "upstream") && !json_array_size(json_object_get(s, "os_ids")))
			return s;
		if (id && ver && kseries_id_match(json_object_get(s, "os_ids"), id) &&
		    kseries_version_match(json_object_get(s, "os_versions"), ver))
			return s;
	}
	return NULL;
}

/* 1 when obs is below the floor, 0 when not, -1 when it cannot tell. An
 * Ubuntu release known only by its ABI ("5.15.0-143", no signature) is held
 * against the floor's ABI; at the same ABI only a floor whose upload equals
 * the ABI ("6.8.0-124.124") is met for sure, as for versions.ubuntu-kernel. */
static int kseries_below(const char *obs, const char *fixed, int abi_only)
{
	if (!abi_only)
		return dpkg_version_cmp(obs, fixed) < 0;
	const char *d = strchr(fixed, '-');
	size_t n = d ? (size_t)(d - fixed) + 1 + strspn(d + 1, "0123456789") : strlen(fixed);
	char *cut = xstrndup(fixed, n);
	int c = dpkg_version_cmp(obs, cut);
	free(cut);
	if (c || !d)
		return c < 0 ? 1 : c > 0 ? 0 : -1;
	const char *abi = d + 1, *up = fixed[n] == '.' ? fixed + n + 1 : "";
	size_t al = (size_t)(fixed + n - abi);
	return strlen(up) == al && !strncmp(up, abi, al) ? 0 : -1;
}

struct kseries_tally {
	struct strbuf fail, warn, unknown, ok;
	int nfail, nwarn, nunknown;
};

static void kseries_tally_release(struct kseries_tally *t)
{
	sb_free(&t->fail);
	sb_free(&t->warn);
	sb_free(&t->unknown);
	sb_free(&t->ok);
}

/* Each known fault of the line: a row, and its verdict in the tally. */
static json_t *kseries_faults(struct audit_ctx *ctx, struct result *r, const json_t *line, const json_t *rel,
			      struct kseries_tally *t)
{
	json_t *rows = json_array(), *fx;
	json_t *faults = json_object_get(ctx->kernel_series, "faults");
	const char *distro = fact_str(rel, "distro"), *upstream = fact_str(rel, "upstream");
	/* "5.15.0-143" without the ".153" upload: the signature was not read */
	const char *dash = distro ? strchr(distro, '-') : NULL;
	int ubuntu = !strcmp(fact_str(rel, "format"), "ubuntu");
	int abi_only = ubuntu && dash && !strchr(dash, '.');
	/* linux-nvidia, -aws, -azure... number their ABIs from 1000 and carry
	 * their own notices: the generic package's build says nothing of them */
	long long abi = -1;
	fact_int(rel, "abi", &abi);
	int derivative = ubuntu && abi >= 1000;
	size_t i;
	json_array_foreach(json_object_get(line, "fixes"), i, fx) {
		const char *fid = jget_str(fx, "fault"), *fixed = jget_str(fx, "fixed");
		const char *how = jget_str(fx, "compare");
		const json_t *fault = json_object_get(faults, fid);
		const char *title = fault ? jget_str(fault, "title") : fid;
		int confirmed = !strcmp(jget_str(json_object_get(fx, "basis"), "kind"), "source");
		int by_release = !strcmp(how, "release");
		const char *obs = by_release ? (derivative ? NULL : distro) : upstream;
		json_t *row = json_object();
		fact_set_str(row, "fault", fid);
		fact_set_str(row, "fixed", fixed);
		fact_set_str(row, "compare", how);
		fact_set_str(row, "observed", obs);
		fact_set_bool(row, "floor_confirmed", confirmed);
		const char *st;
		int below = obs ? kseries_below(obs, fixed, abi_only && by_release) : -1;
		if (below < 0) {
			st = "unknown";
			sb_addf(&t->unknown, "%s%s (%s)", t->nunknown++ ? ", " : "", fid,
				obs ? "the ABI matches the fix, but without /proc/version_signature its upload is unknown"
				: by_release && derivative ? "a derivative kernel (ABI 1000+) with its own notices; the table "
							     "lists the generic package"
				: by_release ? "the distribution build is not known here"
					     : "the upstream release is not known here");
		} else if (below) {
			st = confirmed ? "fail" : "warn";
			struct strbuf *sb = confirmed ? &t->fail : &t->warn;
			int *n = confirmed ? &t->nfail : &t->nwarn;
			sb_addf(sb, "%s%s, fixed in %s%s (%s %s)", (*n)++ ? "; " : "", title, fixed,
				confirmed ? "" : " (estimated floor)", how, obs);
			if (fault) {
				r_refs_json(r, json_object_get(fault, "cves"));
				r_refs_json(r, json_object_get(fault, "references"));
			}
		} else {
			st = "pass";
			sb_addf(&t->ok, "%s%s", t->ok.len ? ", " : "", fid);
		}
		fact_set_str(row, "status", st);
		json_array_append_new(rows, row);
	}
	return rows;
}

static void kseries_verdict(struct result *r, const json_t *line, const char *running, int eol,
			    struct kseries_tally *t)
{
	const char *name = jget_str(line, "name"), *until = jget_str(line, "supported_until");
	if (eol) {
		r_fail(r, "kernel %s is on %s, whose standard support ended %s: no fixes land in it any more%s%s",
		       running, name, until, t->nfail ? "; also missing: " : "", sb_str(&t->fail));
		const char *url = jget_str(json_object_get(line, "basis"), "url");
		if (url)
			r_ref(r, url);
		r_remedy(r, "Move the node to a supported kernel line (the distribution's current GA or HWE kernel, "
			 "or a supported release of the distribution) and reboot into it.");
	} else if (t->nfail) {
		r_fail(r, "kernel %s (%s) is below the fix for: %s%s%s", running, name, sb_str(&t->fail),
		       t->nwarn ? "; and below the estimated fix of: " : "", sb_str(&t->warn));
		r_remedy(r, "Install the distribution's current kernel of this line (apt-get install --only-upgrade "
			 "linux-image-*, dnf upgrade kernel, zypper update kernel-default) and reboot into it.");
	} else if (t->nwarn) {
		r_warn(r, "kernel %s (%s) is below the estimated fix of: %s", running, name, sb_str(&t->warn));
		r_remedy(r, "Upgrade to the current kernel of this line and reboot; confirm the fix in the "
			 "distribution's changelog for this kernel.");
	} else if (t->nunknown) {
		r_skip(r, "kernel %s (%s, supported until %s) not fully graded: %s", running, name, until,
		       sb_str(&t->unknown));
	} else {
		r_pass(r, "kernel %s: %s is supported until %s%s%s", running, name, until,
		       t->ok.len ? " and has the fixes for " : "", sb_str(&t->ok));
	}
}

void check_kern_series(struct audit_ctx *ctx, struct result *r)
{
	json_t *k = facts_get(ctx, "kernel", NULL);
	json_t *os = facts_get(ctx, "os", NULL);
	const char *running = fact_str(k, "running");
	const json_t *rel = fact_get(k, "release");
	const char *id = fact_str(os, "os_id"), *ver = fact_str(os, "os_version_id");
	if (!running) {
		r_skip(r, "the running kernel release could not be read");
		return;
	}
	if (!json_is_object(rel)) {
		r_observedf(r, "%s", running);
		r_skip(r, "kernel release %s is not in a format cmax reads, so its series is unknown", running);
		return;
	}
	const char *format = fact_str(rel, "format"), *series = fact_str(rel, "series");
	json_t *obs = json_object();
	fact_set_str(obs, "running", running);
	fact_set_str(obs, "os_id", id);
	fact_set_str(obs, "os_version_id", ver);
	json_object_set(obs, "release", (json_t *)rel);
	r_observed(r, obs);
	if (!ctx->kernel_series) {
		r_warn(r, "kernel %s read but not graded: cmax's kernel series table (kernel-series.json) is "
		       "unavailable. This is a cmax installation problem, not the provider's", running);
		return;
	}
	const json_t *line = kseries_find(ctx->kernel_series, id, ver, format, series);
	if (!line) {
		r_skip(r, "not in the table: %s %s with a %s kernel of the %s series (%s) is not a line cmax knows "
		       "the lifecycle and fixes of", id ? id : "an unknown distribution", ver ? ver : "",
		       format, series, running);
		return;
	}
	r_expectedf(r, "%s within its standard support (until %s) and at or above the fixed release of each known "
		    "fault", jget_str(line, "name"), jget_str(line, "supported_until"));
	char today[16];
	struct tm tm;
	gmtime_r(&ctx->now, &tm);
	strftime(today, sizeof today, "%Y-%m-%d", &tm);
	int eol = strcmp(today, jget_str(line, "supported_until")) > 0;

	struct kseries_tally t = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, 0, 0, 0 };
	json_t *rows = kseries_faults(ctx, r, line, rel, &t);
	json_object_set_new(obs, "line", json_string(jget_str(line, "id")));
	json_object_set_new(obs, "supported_until", json_string(jget_str(line, "supported_until")));
	json_object_set_new(obs, "faults", rows);
	kseries_verdict(r, line, running, eol, &t);
	kseries_tally_release(&t);
}
