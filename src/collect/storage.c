/* Storage: what is mounted (/proc/mounts) and how full the root file
 * system is (df). Shared file systems are where model weights, datasets
 * and checkpoints live; a full root stops containers, logs and the
 * scheduler's spool before any job can. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/procfs.h"
#include <stdlib.h>
#include <string.h>

/* fstype -> kind. "posix": a shared POSIX file system; "object": an object
 * store behind FUSE (shared, but not POSIX: no locks, no rename);
 * "virtiofs": host directories shared into a VM, which may or may not be
 * shared between nodes and do not enforce cross-node locks. */
static const struct {
	const char *fstype, *kind;
} shared_types[] = {
	{ "nfs", "posix" }, { "nfs4", "posix" }, { "lustre", "posix" }, { "gpfs", "posix" },
	{ "wekafs", "posix" }, { "beegfs", "posix" }, { "ceph", "posix" },
	{ "fuse.ceph-fuse", "posix" }, { "fuse.juicefs", "posix" }, { "glusterfs", "posix" },
	{ "fuse.glusterfs", "posix" }, { "cifs", "posix" }, { "smb3", "posix" },
	{ "panfs", "posix" }, { "orangefs", "posix" }, { "9p", "posix" },
	{ "virtiofs", "virtiofs" },
	{ "fuse.mountpoint-s3", "object" }, { "fuse.s3fs", "object" }, { "fuse.gcsfuse", "object" },
	{ "fuse.blobfuse2", "object" }, { "fuse.goofys", "object" }, { "fuse.geesefs", "object" },
	{ NULL, NULL },
};

static const char *shared_kind(const char *fstype)
{
	for (int i = 0; fstype && shared_types[i].fstype; i++)
		if (strcmp(fstype, shared_types[i].fstype) == 0)
			return shared_types[i].kind;
	return NULL;
}

static void collect_mounts(struct col_run *c, json_t *f)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = sr_read("/proc/mounts", 8 << 20, &buf, &len, NULL);
	if (rc != 0) {
		col_evidence_note(c, "/proc/mounts unreadable: %s", strerror(-rc));
		fact_set_bool(f, "mounts_readable", 0);
		fact_set_null(f, "root");
		json_object_set_new(f, "shared_mounts", json_array());
		fact_set_null(f, "mount_points");
		fact_set_null(f, "mount_count");
		return;
	}
	json_t *mounts = parse_mounts(buf, len);
	fact_set_bool(f, "mounts_readable", 1);
	fact_set_int(f, "mount_count", (long long)json_array_size(mounts));

	json_t *root = NULL, *shared = json_array(), *points = json_array(), *m;
	struct strbuf ev = STRBUF_INIT;
	size_t i;
	json_array_foreach(mounts, i, m) {
		const char *tgt = json_string_value(json_object_get(m, "target"));
		const char *fs = json_string_value(json_object_get(m, "fstype"));
		const char *src = json_string_value(json_object_get(m, "source"));
		if (!tgt || !fs)
			continue;
		/* every mount point, so a check can tell what holds a path (a home
		 * directory, /etc) and whether an overlay's upper layer is in RAM */
		json_t *pt = json_object();
		fact_set_str(pt, "target", tgt);
		fact_set_str(pt, "fstype", fs);
		fact_set_str(pt, "source", src);
		const char *opts = json_string_value(json_object_get(m, "options"));
		const char *up = opts ? strstr(opts, "upperdir=") : NULL;
		if (up) {
			up += strlen("upperdir=");
			char *u = xstrndup(up, strcspn(up, ","));
			fact_set_str(pt, "upperdir", u);
			free(u);
		}
		json_array_append_new(points, pt);
		/* the last mount on "/" is the visible one ("rootfs" comes first) */
		if (strcmp(tgt, "/") == 0)
			root = m;
		const char *kind = shared_kind(fs);
		if (!kind)
			continue;
		json_t *s = json_object();
		fact_set_str(s, "source", src);
		fact_set_str(s, "target", tgt);
		fact_set_str(s, "fstype", fs);
		fact_set_str(s, "kind", kind);
		json_array_append_new(shared, s);
		sb_addf(&ev, "%s %s %s\n", src ? src : "?", tgt, fs);
	}
	if (root) {
		const char *fs = json_string_value(json_object_get(root, "fstype"));
		json_t *r = json_object();
		fact_set_str(r, "fstype", fs);
		fact_set_str(r, "source", json_string_value(json_object_get(root, "source")));
		fact_set_str(r, "options", json_string_value(json_object_get(root, "options")));
		fact_set_bool(r, "overlay", fs && (strcmp(fs, "overlay") == 0 || strcmp(fs, "tmpfs") == 0 ||
						   strcmp(fs, "rootfs") == 0));
		json_object_set_new(f, "root", r);
		sb_addf(&ev, "root: %s %s\n", json_string_value(json_object_get(root, "source")), fs);
	} else {
		fact_set_null(f, "root");
	}
	json_object_set_new(f, "shared_mounts", shared);
	json_object_set_new(f, "mount_points", points);
	col_evidence_file(c, "/proc/mounts", ev.len ? sb_str(&ev) : "(no shared file systems; root not listed)");
	sb_free(&ev);
	json_decref(mounts);
	free(buf);
}

static void collect_df(struct col_run *c, json_t *f)
{
	const char *argv[] = { "df", "-P", "-k", "/", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, 5000, &r);
	json_t *d = NULL;
	const char *err = NULL;
	if (r.outcome == RUN_NOT_FOUND) {
		err = "not_found";
	} else if (!cmd_ok(&r)) {
		err = r.outcome == RUN_TIMEOUT ? "timeout" : "failed";
	} else {
		json_t *rows = parse_df_posix(r.out, r.out_len), *row;
		size_t i;
		json_array_foreach(rows, i, row) {
			const char *mp = json_string_value(json_object_get(row, "mountpoint"));
			if (mp && strcmp(mp, "/") == 0)
				d = json_deep_copy(row);
		}
		json_decref(rows);
		if (!d || !json_is_integer(json_object_get(d, "avail_kb")) ||
		    !json_is_integer(json_object_get(d, "used_kb"))) {
			json_decref(d);
			d = NULL;
			err = "unparseable";
		}
	}
	json_object_set_new(f, "root_df", d ? d : json_null());
	fact_set_str(f, "df_error", err);
	if (err) {
		/* no durations in facts: they would make reports differ run to run */
		char *why = r.outcome == RUN_EXITED ? xasprintf("exit %d", r.exit_code)
			  : r.outcome == RUN_TIMEOUT ? xasprintf("timed out after %d ms", r.timeout_ms)
			  : r.outcome == RUN_SIGNALED ? xasprintf("killed by signal %d", r.term_signal)
			  : cmd_describe(&r);
		fact_set_str(f, "df_detail", why);
		free(why);
	} else {
		fact_set_null(f, "df_detail");
	}
	cmd_result_free(&r);
}

void collect_storage(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	collect_mounts(c, c->facts);
	collect_df(c, c->facts);
}
