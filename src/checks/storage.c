/* Storage checks: free space on / and the shared file systems a GPU node
 * needs for weights, datasets and checkpoints. */
#include "checks/common.h"
#include "collect/collector.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

void check_st_root_free(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "storage", NULL);
	json_t *df = fact_get(f, "root_df");
	const char *err = fact_str(f, "df_error"), *detail = fact_str(f, "df_detail");
	const char *fstype = fact_str(f, "root.fstype");
	int overlay = 0;
	fact_bool(f, "root.overlay", &overlay);

	if (!json_is_object(df)) {
		if (err && strcmp(err, "not_found") == 0) {
			r_skip(r, "df is not installed, so free space on / is unknown");
		} else {
			r_error(r, "df -P -k / %s (%s)", err && strcmp(err, "unparseable") == 0 ? "printed no usable row for /"
				: "failed", detail ? detail : "no detail");
			chk_attach_evidence(ctx, r, "storage", NULL);
		}
		return;
	}
	long long used = 0, avail = 0, size = 0;
	fact_int(df, "used_kb", &used);
	fact_int(df, "avail_kb", &avail);
	fact_int(df, "size_kb", &size);
	/* df's own definition: reserved blocks count as neither used nor free */
	double free_pct = used + avail > 0 ? 100.0 * (double)avail / (double)(used + avail) : 0;
	double free_gib = (double)avail / (1024.0 * 1024.0);
	double warn_pct = threshold(ctx, "storage.root_free_warn_pct", 10);
	double warn_gib = threshold(ctx, "storage.root_free_warn_gib", 20);
	double fail_pct = threshold(ctx, "storage.root_free_fail_pct", 3);

	json_t *obs = json_object();
	fact_set_str(obs, "filesystem", fact_str(df, "filesystem"));
	fact_set_str(obs, "fstype", fstype);
	json_object_set_new(obs, "size_kb", json_integer(size));
	json_object_set_new(obs, "avail_kb", json_integer(avail));
	json_object_set(obs, "use_pct", json_object_get(df, "use_pct"));
	json_object_set_new(obs, "free_pct", json_real((double)(long long)(free_pct * 10 + 0.5) / 10));
	fact_set_bool(obs, "overlay", overlay);
	r_observed(r, obs);
	r_expectedf(r, ">= %.0f%% and >= %.0f GiB free on / (FAIL below %.0f%%)", warn_pct, warn_gib, fail_pct);

	char note[200] = "";
	if (overlay)
		snprintf(note, sizeof note, "; / is %s (an ephemeral or RAM-backed root: spools, container "
			 "layers and logs compete for it and are lost on reboot)", fstype ? fstype : "an overlay");
	if (free_pct < fail_pct) {
		r_fail(r, "/ has %.1f%% free (%.1f GiB of %.1f GiB)%s", free_pct, free_gib,
		       (double)size / (1024.0 * 1024.0), note);
	} else if (free_pct < warn_pct || free_gib < warn_gib) {
		r_warn(r, "/ has only %.1f%% free (%.1f GiB of %.1f GiB)%s", free_pct, free_gib,
		       (double)size / (1024.0 * 1024.0), note);
	} else {
		r_pass(r, "/ has %.1f%% free (%.1f GiB)%s", free_pct, free_gib, note);
		return;
	}
	r_remedy(r, "Free or grow the root file system (journal vacuum, old kernels, container images and "
		 "build caches) and move scratch, spools and container storage to local NVMe.");
}

void check_st_shared_mounts(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "storage", NULL), *m;
	int readable = 0;
	fact_bool(f, "mounts_readable", &readable);
	if (!readable) {
		r_skip(r, "/proc/mounts is unreadable, so mounted file systems are unknown");
		return;
	}
	json_t *shared = fact_get(f, "shared_mounts");
	struct strbuf posix = STRBUF_INIT, vfs = STRBUF_INIT, obj = STRBUF_INIT;
	size_t i;
	json_array_foreach(shared, i, m) {
		const char *kind = fact_str(m, "kind");
		struct strbuf *sb = strcmp(kind, "virtiofs") == 0 ? &vfs : strcmp(kind, "object") == 0 ? &obj : &posix;
		sb_addf(sb, "%s%s %s", sb->len ? ", " : "", fact_str(m, "fstype"), fact_str(m, "target"));
	}
	r_observed(r, json_deep_copy(shared));
	r_expectedf(r, "a shared POSIX file system (NFS, Lustre, GPFS, WekaFS, BeeGFS, CephFS...) with working cross-node locks");
	if (vfs.len) {
		r_warn(r, "shared storage via virtiofs (%s): cross-node flock/fcntl locks are not enforced%s%s",
		       sb_str(&vfs), posix.len ? "; also " : "", sb_str(&posix));
		r_remedy(r, "Mount the shared file system natively inside the VM (NFS/Lustre/Weka client) for "
			 "data that several nodes lock or write, or confirm the provider's virtiofs backend enforces locks.");
	} else if (posix.len) {
		r_pass(r, "shared file systems mounted: %s%s%s", sb_str(&posix), obj.len ? "; object stores: " : "",
		       sb_str(&obj));
	} else {
		int g = chk_gpu_node(ctx);
		if (g == 0) {
			if (obj.len)
				r_skip(r, "no shared POSIX file system (object stores only: %s); not required on a "
				       "node without GPUs", sb_str(&obj));
			else
				r_skip(r, "no shared file system mounted; not required on a node without GPUs");
		} else if (obj.len) {
			r_warn(r, "no shared POSIX file system: only object stores through FUSE (%s), which have no "
			       "locks or atomic rename", sb_str(&obj));
		} else {
			r_warn(r, "no shared file system mounted%s: weights, datasets and checkpoints must be copied "
			       "to every node", g < 0 ? "" : " on a GPU node");
		}
		if (g != 0)
			r_remedy(r, "Mount the cluster's shared file system (home and a data/scratch tree) on every GPU node.");
	}
	sb_free(&posix);
	sb_free(&vfs);
	sb_free(&obj);
}
