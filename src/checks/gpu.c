/* NVIDIA GPU checks: driver and CUDA versions, what nvcc can target,
 * profiling access, and the per-GPU health a buyer checks on delivery
 * (count, uniformity, ECC, persistence, PCIe link, power cap, idle state).
 * All facts come from the nvidia, cuda and pci collectors (one nvidia-smi
 * call); model data and ceilings come from data/gpu-models.json and
 * data/thresholds.json. */
#include "checks/common.h"
#include "core/jsonget.h"
#include "collect/collector.h"
#include "checks/gpu_verdict.h"
#include "policy/gpu_models.h"
#include "core/strbuf.h"
#include "policy/version.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------ */
/* shared helpers                                                      */

static int gnum(const json_t *g, const char *k, double *out)
{
	json_t *v = json_object_get(g, k);
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return 0;
}

/* "GPU 3 (00000000:3B:00.0)" into buf */
static const char *glabel(const json_t *g, size_t i, char *buf, size_t n)
{
	json_t *idx = json_object_get(g, "index");
	const char *bus = jget_str(g, "pci.bus_id");
	long long k = json_is_integer(idx) ? json_integer_value(idx) : (long long)i;
	if (bus)
		snprintf(buf, n, "GPU %lld (%s)", k, bus);
	else
		snprintf(buf, n, "GPU %lld", k);
	return buf;
}

/* The nvidia-smi rows, or NULL after grading the result as not readable. */
static json_t *nv_gpus(struct audit_ctx *ctx, struct result *r, json_t **facts_out)
{
	json_t *f = facts_get(ctx, "nvidia", NULL);
	json_t *gpus = json_object_get(f, "gpus");
	if (facts_out)
		*facts_out = f;
	if (!json_is_array(gpus)) {
		r_warn(r, "could not read per-GPU facts: an NVIDIA %s is present but nvidia-smi is not on PATH",
		       json_is_true(json_object_get(f, "driver_loaded")) ? "driver" : "GPU");
		r_remedy(r, "Install the NVIDIA driver utilities (nvidia-smi) matching the loaded driver.");
		return NULL;
	}
	if (json_array_size(gpus) == 0) {
		r_skip(r, "nvidia-smi lists no GPU (\"No devices were found\"); see hardware.gpu-count");
		return NULL;
	}
	return gpus;
}

/* The nvidia-smi call behind a WARN or FAIL, so the finding carries its proof. */
static void smi_evidence(struct audit_ctx *ctx, struct result *r)
{
	if (!r->status_set || (r->status != ST_WARN && r->status != ST_FAIL))
		return;
	chk_attach_evidence(ctx, r, "nvidia", "nvidia-smi");
}

/* A new observed row {"gpu": label} at the end of obs (borrowed). */
static json_t *obs_row(json_t *obs, const char *label)
{
	json_t *o = json_object();
	json_object_set_new(o, "gpu", json_string(label));
	json_array_append_new(obs, o);
	return o;
}

/* An nvidia-smi field into an observed row as read; null when missing. */
static void obs_copy(json_t *o, const char *key, const json_t *g, const char *field)
{
	json_object_set(o, key, json_object_get(g, field) ?: json_null());
}

/* One line per finding, kept to a readable length in the summary. */
struct findings {
	struct strbuf sb;
	int n;
};

#define FND_INIT { STRBUF_INIT, 0 }

static void __attribute__((format(printf, 2, 3))) fnd_add(struct findings *x, const char *fmt, ...)
{
	va_list ap;
	if (x->n < 4) {
		if (x->n)
			sb_adds(&x->sb, "; ");
		va_start(ap, fmt);
		sb_vaddf(&x->sb, fmt, ap);
		va_end(ap);
	} else if (x->n == 4) {
		sb_adds(&x->sb, "; ...");
	}
	x->n++;
}

static void fnd_free(struct findings *x)
{
	sb_free(&x->sb);
}

static int in_container(struct audit_ctx *ctx)
{
	return (ctx->target.mask & TGT_CONTAINER) != 0 ||
	       json_is_true(json_object_get(facts_get(ctx, "os", NULL), "is_container"));
}

/* ------------------------------------------------------------------ */
/* versions                                                            */

/*
 * Driver-level checks consult the nvidia collector themselves: the module
 * version and parameters come from /proc and stay readable when nvidia-smi
 * hangs or is denied, so a broken nvidia-smi costs the per-GPU checks only.
 * Returns the facts, or NULL after grading the result.
 */
static json_t *nv_driver_facts(struct audit_ctx *ctx, struct result *r)
{
	struct col_run *c = facts_run(ctx, "nvidia");
	if (!c) {
		r_error(r, "no nvidia collector in this build");
		return NULL;
	}
	if (c->state == COL_ABSENT) {
		r_skip(r, "%s", c->reason ? c->reason : "no NVIDIA GPU");
		return NULL;
	}
	if (c->state == COL_OK)
		return c->facts;
	if (!json_is_true(json_object_get(c->facts, "driver_loaded"))) {
		chk_attach_evidence(ctx, r, "nvidia", NULL);
		if (c->state == COL_DENIED)
			r_skip(r, "needs privileges: %s", c->reason ? c->reason : "no reason recorded");
		else
			r_error(r, "probe failed (nvidia collector): %s", c->reason ? c->reason : "no reason recorded");
		return NULL;
	}
	r_evidence_note(r, "nvidia-smi unusable (%s); graded from /proc/driver/nvidia instead",
			c->reason ? c->reason : "no reason recorded");
	return c->facts;
}

void check_nvidia_driver(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = nv_driver_facts(ctx, r);
	if (!f)
		return;
	const char *ver = fact_str(f, "driver_version");
	if (!ver)
		ver = fact_str(f, "kernel_module_version");
	json_t *drivers = json_object_get(f, "driver_versions");
	if (!ver) {
		r_warn(r, "could not read the NVIDIA driver version (nvidia-smi gave none and /proc/driver/nvidia/version is unreadable)");
		return;
	}
	if (json_array_size(drivers) > 1) {
		r_fail(r, "GPUs report different driver versions (%s and %s): a driver/library mismatch",
		       json_string_value(json_array_get(drivers, 0)), json_string_value(json_array_get(drivers, 1)));
		r_observed(r, json_incref(drivers));
		return;
	}
	const char *kind = json_is_true(json_object_get(f, "open_module")) ? "open kernel module" :
			   json_is_false(json_object_get(f, "open_module")) ? "proprietary kernel module" : NULL;
	char *label = xasprintf("NVIDIA driver %s%s%s%s", ver, kind ? " (" : "", kind ? kind : "", kind ? ")" : "");
	gpu_grade_version(ctx, r, "nvidiaDriver", label, ver, NULL, NULL);
	free(label);
}

static int nvcc_can_target(struct audit_ctx *ctx, const char *release, const char *sm, const char **need);

/* The CUDA architectures the GPUs need ("sm_103"), from nvidia-smi's
 * compute_cap, else the model table; empty when neither tells. */
static json_t *gpu_archs(struct audit_ctx *ctx, const json_t *gpus)
{
	json_t *archs = json_array();
	size_t i;
	json_t *g;
	json_array_foreach(gpus, i, g) {
		char *sm = gpu_sm_from_cap(jget_str(g, "compute_cap"));
		if (!sm) {
			const json_t *m = gpu_model_by_key(ctx->gpu_models, jget_str(g, "_model_key"));
			const char *s = json_string_value(json_object_get(m, "sm"));
			sm = s ? xstrdup(s) : NULL;
		}
		if (sm) {
			int dup = 0;
			size_t k;
			json_t *a;
			json_array_foreach(archs, k, a)
				dup |= strcmp(json_string_value(a), sm) == 0;
			if (!dup)
				json_array_append_new(archs, json_string(sm));
		}
		free(sm);
	}
	return archs;
}

/*
 * The method's CUDA expectation for the GPUs' architecture
 * (gpu-models.json method_min_cuda: Blackwell sm_100/sm_103 "requires CUDA
 * 13.0+"), for every default compiler a user gets: the graded toolkit and
 * /usr/bin/nvcc. Adds its verdict to the security grade already in r: a
 * compiler below it FAILs, and the summary says whether that nvcc can
 * target the architecture at all. Nothing is graded where the architecture
 * is unknown (nvidia-smi unusable): that is not a finding.
 */
/* The compilers graded against the method, and what the grade found. */
struct method_cuda {
	struct {
		char *name;
		const char *release;
	} cand[2];
	int nc;
	struct strbuf below, met, want, unk;
	json_t *rows;
};

/* The graded toolkit, and /usr/bin/nvcc when it is another compiler. */
static void method_cuda_candidates(const json_t *cu, const char *ver, const char *where, const char *tkpath,
				   struct method_cuda *m)
{
	m->cand[m->nc].name = xstrdup(where);
	m->cand[m->nc++].release = ver;
	const char *utk = fact_str(cu, "usr_bin_nvcc.toolkit"), *urel = fact_str(cu, "usr_bin_nvcc_release");
	if (json_is_true(fact_get(cu, "usr_bin_nvcc.exists")) && !(utk && tkpath && strcmp(utk, tkpath) == 0) &&
	    strcmp(where, "/usr/bin/nvcc") != 0) {
		const char *tgt = fact_str(cu, "usr_bin_nvcc.target");
		m->cand[m->nc].name = tgt && strcmp(tgt, "/usr/bin/nvcc") ? xasprintf("/usr/bin/nvcc -> %s", tgt) :
				      xstrdup("/usr/bin/nvcc");
		m->cand[m->nc++].release = urel;
	}
}

/* Every compiler against the method's CUDA for one architecture. */
static void method_cuda_arch(struct audit_ctx *ctx, const char *sm, struct method_cuda *m)
{
	const json_t *ai = gpu_arch_info(ctx->gpu_models, sm);
	const char *mv = json_string_value(json_object_get(json_object_get(ai, "method_min_cuda"), "version"));
	const char *an = json_string_value(json_object_get(ai, "name"));
	if (!mv)
		return;
	sb_addf(&m->want, "%s>= %s on %s", m->want.len ? "; " : "", mv, sm);
	for (int k = 0; k < m->nc; k++) {
		const char *name = m->cand[k].name, *rel = m->cand[k].release;
		int c;
		if (!rel || ver_compare(rel, mv, &c) != 0) {
			/* unread: neither meets nor misses the method */
			if (!strstr(sb_str(&m->unk), name))
				sb_addf(&m->unk, "%sthe CUDA release of %s is unreadable", m->unk.len ? "; " : "", name);
			continue;
		}
		const char *need = NULL;
		int can = nvcc_can_target(ctx, rel, sm, &need);
		json_array_append_new(m->rows, json_pack("{s:s,s:s,s:s,s:s,s:b,s:o}", "compiler", name, "release", rel,
							 "architecture", sm, "method_min_cuda", mv, "meets_method",
							 c >= 0, "can_target", can < 0 ? json_null() : json_boolean(can)));
		if (c >= 0) {
			if (!strstr(sb_str(&m->met), sm))
				sb_addf(&m->met, "%sCUDA %s+ for %s (%s)", m->met.len ? ", " : "", mv, sm, an ? an : "?");
			continue;
		}
		sb_addf(&m->below, "%sCUDA %s (%s) is below the method's CUDA %s+ for %s (%s): ",
			m->below.len ? "; " : "", rel, name, mv, sm, an ? an : "?");
		if (can == 0)
			sb_addf(&m->below, "this nvcc cannot target %s at all (needs >= %s)", sm, need ? need : "?");
		else if (can == 1)
			sb_addf(&m->below, "this nvcc can target %s (since %s) but the method requires %s+", sm,
				need ? need : "?", mv);
		else
			sb_adds(&m->below, "whether this nvcc can target it at all is unknown");
	}
}

/* The method's verdict joined to the security grade already in r. */
static void method_cuda_verdict(struct result *r, struct method_cuda *m)
{
	if (m->want.len) {
		char *exp = xasprintf("%s (security minimum); %s (the method, data/gpu-models.json)",
				      json_string_value(r->expected) ? json_string_value(r->expected) : "the minimum",
				      sb_str(&m->want));
		r_expectedf(r, "%s", exp);
		free(exp);
	}
	char *prev = xstrdup(r->summary ? r->summary : "");
	if (m->below.len) {
		if (r->status == ST_FAIL)
			r_fail(r, "%s; %s", prev, sb_str(&m->below));
		else
			r_fail(r, "%s; %s", sb_str(&m->below), prev);
		r_remedy(r, "Install a CUDA toolkit at or above both the security minimum and the method's release for "
			 "the architecture (%s; e.g. cuda-toolkit-13-1), make it the default (/usr/local/cuda, PATH) "
			 "and point /usr/bin/nvcc at it or remove the distribution's nvidia-cuda-toolkit package.",
			 sb_str(&m->want));
	} else if (m->unk.len && (r->status == ST_PASS || r->status == ST_WARN)) {
		/* a PASS would claim the method's expectation holds, which nobody read */
		r_warn(r, "%s; could not confirm the method's CUDA for the GPU architecture: %s", prev, sb_str(&m->unk));
	} else if (m->met.len && (r->status == ST_PASS || r->status == ST_WARN || r->status == ST_FAIL)) {
		/* a security FAIL still says the method's part holds: two criteria, one row */
		r_status(r, r->status, "%s; meets the method's %s", prev, sb_str(&m->met));
	}
	if (m->unk.len)
		r_evidence_note(r, "method's CUDA expectation: %s", sb_str(&m->unk));
	free(prev);
}

static void grade_method_cuda(struct audit_ctx *ctx, struct result *r, json_t *obs, const char *ver,
			      const char *where, const char *tkpath)
{
	json_t *cu = facts_get(ctx, "cuda", NULL);
	enum col_state nst;
	json_t *nv = facts_get(ctx, "nvidia", &nst);
	json_t *archs = gpu_archs(ctx, json_object_get(nv, "gpus"));
	struct method_cuda m = { .nc = 0, .below = STRBUF_INIT, .met = STRBUF_INIT, .want = STRBUF_INIT,
				 .unk = STRBUF_INIT };
	method_cuda_candidates(cu, ver, where, tkpath, &m);
	json_t *mo = json_object();
	m.rows = json_array();
	size_t i;
	json_t *a;
	json_array_foreach(archs, i, a)
		method_cuda_arch(ctx, json_string_value(a), &m);
	json_object_set_new(mo, "architectures", archs);
	json_object_set_new(mo, "compilers", m.rows);
	json_object_set_new(obs, "method", mo);
	if (!json_array_size(archs) && json_is_true(json_object_get(nv, "present")))
		sb_addf(&m.unk, "%sthe GPUs' CUDA architecture is unknown (%s)", m.unk.len ? "; " : "",
			nst == COL_OK ? "no compute capability, model not in cmax's table" : "nvidia-smi unusable");
	method_cuda_verdict(r, &m);
	for (int k = 0; k < m.nc; k++)
		free(m.cand[k].name);
	sb_free(&m.below);
	sb_free(&m.met);
	sb_free(&m.want);
	sb_free(&m.unk);
}

/* What users get: the PATH nvcc's toolkit, else /usr/local/cuda, else the newest. */
void check_cuda_toolkit(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = facts_get(ctx, "cuda", NULL);
	json_t *tks = json_object_get(f, "toolkits");
	const char *ver = NULL, *where = NULL;
	const char *tkpath = fact_str(f, "nvcc_toolkit");
	size_t i;
	json_t *t;

	if (fact_str(f, "nvcc_release")) {
		where = fact_str(f, "nvcc_path") ? fact_str(f, "nvcc_path") : "the nvcc on PATH";
		json_array_foreach(tks, i, t)
			if (tkpath && strcmp(jget_str(t, "path"), tkpath) == 0)
				ver = jget_str(t, "version");
		if (!ver)
			ver = fact_str(f, "nvcc_release");
	} else if (fact_str(f, "default_toolkit_version")) {
		ver = fact_str(f, "default_toolkit_version");
		where = fact_str(f, "default_toolkit");
		tkpath = where;
	} else if (fact_str(f, "newest_toolkit_version")) {
		ver = fact_str(f, "newest_toolkit_version");
		t = json_array_get(tks, json_array_size(tks) - 1);
		where = jget_str(t, "path");
		tkpath = where;
	} else if (fact_str(f, "usr_bin_nvcc_release")) {
		ver = fact_str(f, "usr_bin_nvcc_release");
		where = "/usr/bin/nvcc";
	}
	if (!ver) {
		r_warn(r, "a CUDA toolkit is installed but its version could not be read%s%s",
		       fact_str(f, "nvcc_error") ? ": nvcc " : "",
		       fact_str(f, "nvcc_error") ? fact_str(f, "nvcc_error") : "");
		return;
	}

	/* Other toolkits below the floor stay installed and runnable: name them. */
	struct strbuf older = STRBUF_INIT;
	int nold = 0;
	json_array_foreach(tks, i, t) {
		const char *p = jget_str(t, "path"), *v = jget_str(t, "version");
		struct mv_verdict mv;
		if (!v || (tkpath && strcmp(p, tkpath) == 0) || !ctx->minimums)
			continue;
		minimums_grade(ctx->minimums, "cudaToolkit", v, NULL, ctx->now, &mv);
		if (mv.status == MV_FAIL) {
			sb_addf(&older, "%s%s (%s)", nold ? ", " : "", p, v);
			nold++;
		}
		mv_verdict_free(&mv);
	}
	char *extra = nold ? xasprintf("also installed below the minimum: %s", sb_str(&older)) : NULL;
	char *label = xasprintf("CUDA toolkit %s (%s)", ver, where);
	gpu_grade_version(ctx, r, "cudaToolkit", label, ver, NULL, extra);
	free(label);
	free(extra);
	sb_free(&older);
	json_t *obs = json_object();
	json_object_set_new(obs, "graded", json_string(ver));
	json_object_set_new(obs, "graded_from", json_string(where));
	json_object_set(obs, "toolkits", tks);
	grade_method_cuda(ctx, r, obs, ver, where, tkpath);
	r_observed(r, obs);
}

/* ------------------------------------------------------------------ */
/* software                                                            */

/* Can a toolkit of this release generate code for arch? 1 yes, 0 no, -1 unknown. */
static int nvcc_can_target(struct audit_ctx *ctx, const char *release, const char *sm, const char **need)
{
	const json_t *a = gpu_arch_info(ctx->gpu_models, sm);
	const char *min = json_string_value(json_object_get(a, "min_cuda"));
	const char *removed = json_string_value(json_object_get(a, "removed_in"));
	int c;
	*need = min;
	if (!min || !release || ver_compare(release, min, &c) != 0)
		return -1;
	if (c < 0)
		return 0;
	if (removed && ver_compare(release, removed, &c) == 0 && c >= 0)
		return 0;
	return 1;
}

/* A default compiler a user gets: the first nvcc on PATH, or /usr/bin/nvcc. */
struct nvcc_cand {
	const char *what, *release;
};

/* Each compiler against each architecture the GPUs need; the compilers
 * for the observation. */
static json_t *nvcc_arch_grade(struct audit_ctx *ctx, const json_t *cu, const struct nvcc_cand *cands, int nc,
			       const json_t *archs, struct findings *bad, struct findings *unk, struct findings *good)
{
	const char *pth = fact_str(cu, "nvcc_path");
	json_t *ol = json_array();
	for (int k = 0; k < nc; k++) {
		const struct nvcc_cand *c = &cands[k];
		const char *tgt = fact_str(cu, "usr_bin_nvcc.target");
		char *name;
		if (strcmp(c->what, "/usr/bin/nvcc") == 0)
			name = tgt && strcmp(tgt, "/usr/bin/nvcc") ? xasprintf("/usr/bin/nvcc -> %s", tgt) :
			       xstrdup("/usr/bin/nvcc");
		else
			name = pth ? xasprintf("first nvcc on PATH (%s)", pth) : xstrdup("first nvcc on PATH");
		json_t *o = json_object();
		json_object_set_new(o, "nvcc", json_string(name));
		json_object_set_new(o, "release", c->release ? json_string(c->release) : json_null());
		json_array_append_new(ol, o);
		size_t a;
		json_t *arch;
		json_array_foreach(archs, a, arch) {
			const char *sm = json_string_value(arch), *need = NULL;
			int ok = nvcc_can_target(ctx, c->release, sm, &need);
			if (ok == 0)
				fnd_add(bad, "%s is CUDA %s and cannot target %s (needs >= %s)", name, c->release,
					sm, need ? need : "?");
			else if (ok < 0)
				fnd_add(unk, "%s: %s", name, c->release ? "no minimum CUDA known for the architecture" :
					"its CUDA release could not be read");
			else
				fnd_add(good, "%s: CUDA %s targets %s", name, c->release, sm);
		}
		free(name);
	}
	return ol;
}

/* Where each compiler's release was read. */
static void nvcc_arch_evidence(struct result *r, const json_t *cu)
{
	const char *pth = fact_str(cu, "nvcc_path");
	if (json_is_true(json_object_get(cu, "nvcc_on_path")))
		r_evidence_note(r, "first nvcc on PATH: `nvcc --version` says release %s (V%s); path %s",
				fact_str(cu, "nvcc_release") ? fact_str(cu, "nvcc_release") : "unknown",
				fact_str(cu, "nvcc_version") ? fact_str(cu, "nvcc_version") : "?",
				!pth ? "unknown (inside a sysroot no installed toolkit matched its version uniquely)" :
				fact_str(cu, "nvcc_path_source") && !strcmp(fact_str(cu, "nvcc_path_source"), "version-match") ?
				"attributed to the one installed toolkit with that nvcc version" : "resolved on PATH");
	if (json_is_true(fact_get(cu, "usr_bin_nvcc.exists")))
		r_evidence_note(r, "/usr/bin/nvcc resolves to %s; release %s read from %s",
				fact_str(cu, "usr_bin_nvcc.target") ? fact_str(cu, "usr_bin_nvcc.target") : "?",
				fact_str(cu, "usr_bin_nvcc_release") ? fact_str(cu, "usr_bin_nvcc_release") : "unknown",
				fact_str(cu, "usr_bin_nvcc.source") ? fact_str(cu, "usr_bin_nvcc.source") : "nothing readable");
}

void check_nvcc_arch(struct audit_ctx *ctx, struct result *r)
{
	json_t *nv;
	json_t *gpus = nv_gpus(ctx, r, &nv);
	json_t *cu = facts_get(ctx, "cuda", NULL);
	if (!gpus)
		return;

	/* Architectures the GPUs need, from nvidia-smi compute_cap, else the model table. */
	json_t *archs = gpu_archs(ctx, gpus);
	if (!json_array_size(archs)) {
		r_warn(r, "could not tell the GPU architecture: nvidia-smi gave no compute capability and the model (%s) is not in cmax's GPU table",
		       json_string_value(json_array_get(json_object_get(nv, "models"), 0)));
		json_decref(archs);
		return;
	}

	struct nvcc_cand cands[2];
	int nc = 0;
	const char *ptk = fact_str(cu, "nvcc_toolkit");
	if (json_is_true(json_object_get(cu, "nvcc_on_path")))
		cands[nc++] = (struct nvcc_cand){ "PATH", fact_str(cu, "nvcc_release") };
	if (json_is_true(fact_get(cu, "usr_bin_nvcc.exists"))) {
		const char *utk = fact_str(cu, "usr_bin_nvcc.toolkit");
		/* the same compiler twice is one finding */
		if (!(nc && ptk && utk && strcmp(ptk, utk) == 0))
			cands[nc++] = (struct nvcc_cand){ "/usr/bin/nvcc", fact_str(cu, "usr_bin_nvcc_release") };
	}
	if (!nc) {
		const json_t *tks = json_object_get(cu, "toolkits");
		r_warn(r, "no nvcc on PATH and no /usr/bin/nvcc, although a CUDA toolkit is installed (%s): builds in a plain shell or batch job find no CUDA compiler",
		       jget_str(json_array_get(tks, json_array_size(tks) - 1), "path"));
		r_remedy(r, "Put the toolkit's bin directory on the default PATH (/etc/profile.d or an environment module).");
		json_decref(archs);
		return;
	}

	struct findings bad = FND_INIT, unk = FND_INIT, good = FND_INIT;
	json_t *obs = json_object();
	json_object_set(obs, "architectures", archs);
	json_object_set_new(obs, "compilers", nvcc_arch_grade(ctx, cu, cands, nc, archs, &bad, &unk, &good));
	nvcc_arch_evidence(r, cu);
	r_observed(r, obs);
	char *archlist = json_dumps(archs, JSON_COMPACT);
	r_expectedf(r, "every nvcc a user may run can generate code for %s (data/gpu-models.json)", archlist);
	free(archlist);
	if (bad.n) {
		r_fail(r, "%s%s%s", sb_str(&bad.sb), good.n ? "; meanwhile " : "", good.n ? sb_str(&good.sb) : "");
		r_remedy(r, "Point /usr/bin/nvcc (or remove it) and PATH at a CUDA toolkit new enough for the GPUs, e.g. 'ln -sf /usr/local/cuda-13.1/bin/nvcc /usr/bin/nvcc' or remove the distribution's nvidia-cuda-toolkit package.");
	} else if (unk.n) {
		r_warn(r, "could not confirm: %s", sb_str(&unk.sb));
	} else {
		r_pass(r, "%s", sb_str(&good.sb));
	}
	fnd_free(&bad);
	fnd_free(&unk);
	fnd_free(&good);
	json_decref(archs);
}

void check_gpu_profiling(struct audit_ctx *ctx, struct result *r)
{
	json_t *f = nv_driver_facts(ctx, r);
	if (!f)
		return;
	int rt = -1;
	long long mp = -1;
	int b;
	if (fact_bool(f, "profiling_admin_only", &b) == 0)
		rt = b;
	if (fact_int(f, "modprobe_restrict_profiling", &mp) != 0)
		mp = -1;
	const char *file = fact_str(f, "modprobe_restrict_profiling_file");
	json_t *obs = json_object();
	json_object_set_new(obs, "RmProfilingAdminOnly", rt < 0 ? json_null() : json_integer(rt));
	json_object_set_new(obs, "NVreg_RestrictProfilingToAdminUsers", mp < 0 ? json_null() : json_integer(mp));
	json_object_set_new(obs, "modprobe_file", file ? json_string(file) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "RmProfilingAdminOnly: 0 (GPU performance counters open to users)");
	r_ref(r, "https://developer.nvidia.com/nvidia-development-tools-solutions-err_nvgpuctrperm-permission-issue-performance-counters");

	if (rt == 1) {
		if (mp == 1)
			r_warn(r, "GPU performance counters are restricted to administrators (RmProfilingAdminOnly: 1, set by NVreg_RestrictProfilingToAdminUsers=1 in %s): Nsight Compute and CUPTI fail with ERR_NVGPUCTRPERM for tenants", file);
		else
			r_warn(r, "GPU performance counters are restricted to administrators (RmProfilingAdminOnly: 1, the driver default): Nsight Compute and CUPTI fail with ERR_NVGPUCTRPERM for tenants");
	} else if (rt == 0 && mp == 1) {
		r_warn(r, "GPU performance counters are open now (RmProfilingAdminOnly: 0), but %s sets NVreg_RestrictProfilingToAdminUsers=1, which restricts them at the next driver load", file);
	} else if (rt == 0) {
		r_pass(r, "GPU performance counters are open to users (RmProfilingAdminOnly: 0%s%s)",
		       mp == 0 ? ", NVreg_RestrictProfilingToAdminUsers=0 in " : "", mp == 0 ? file : "");
	} else if (mp == 1) {
		r_warn(r, "%s sets NVreg_RestrictProfilingToAdminUsers=1 (counters restricted to administrators); the loaded value could not be read from /proc/driver/nvidia/params", file);
	} else {
		r_skip(r, "could not read RmProfilingAdminOnly: /proc/driver/nvidia/params is unreadable here%s%s",
		       mp == 0 ? "; modprobe.d sets NVreg_RestrictProfilingToAdminUsers=0 in " : "", mp == 0 ? file : "");
	}
}

/* ------------------------------------------------------------------ */
/* hardware                                                            */

/* PCI address into comparable numbers; nvidia-smi prints an 8-digit domain. */
static int bdf_parse(const char *s, unsigned long v[4])
{
	unsigned long d, b, dev, fn;
	if (!s || sscanf(s, "%lx:%lx:%lx.%lx", &d, &b, &dev, &fn) != 4)
		return -1;
	v[0] = d, v[1] = b, v[2] = dev, v[3] = fn;
	return 0;
}

static int is_gpu_class(const char *cls)
{
	return cls && (str_starts(cls, "0x0300") || str_starts(cls, "0x0302") || str_starts(cls, "0x1200"));
}

void check_gpu_count(struct audit_ctx *ctx, struct result *r)
{
	json_t *nv = facts_get(ctx, "nvidia", NULL);
	json_t *gpus = json_object_get(nv, "gpus");
	json_t *pci;
	long long onbus = col_pci_gpus(ctx, "nvidia_gpus", &pci);

	if (!json_is_array(gpus)) {
		if (onbus > 0)
			r_warn(r, "the PCI bus holds %lld NVIDIA GPU(s) but nvidia-smi is not on PATH, so whether the driver sees them is unknown", onbus);
		else
			r_warn(r, "an NVIDIA driver is loaded but nvidia-smi is not on PATH: GPU count unknown");
		return;
	}
	size_t i;
	json_t *g;
	struct findings lost = FND_INIT;
	long long seen = 0;
	json_array_foreach(gpus, i, g) {
		if (json_object_get(g, "_error"))
			fnd_add(&lost, "%s", jget_str(g, "_error"));
		else
			seen++;
	}
	json_t *obs = json_object();
	json_object_set_new(obs, "nvidia_smi", json_integer(seen));
	json_object_set_new(obs, "unreachable", json_integer(lost.n));
	json_object_set_new(obs, "pci_bus", onbus >= 0 ? json_integer(onbus) : json_null());
	r_observed(r, obs);
	r_expectedf(r, "nvidia-smi reaches every NVIDIA GPU on the PCI bus");
	r_reproduce(r, "nvidia-smi -L; lspci -d 10de: -nn");

	if (lost.n) {
		r_fail(r, "nvidia-smi cannot reach %d GPU(s): %s", lost.n, sb_str(&lost.sb));
		r_remedy(r, "Drain the node; check the kernel log for XID 79 (fallen off the bus), reset or reseat the GPU.");
		smi_evidence(ctx, r);
		fnd_free(&lost);
		return;
	}
	fnd_free(&lost);
	if (onbus < 0) {
		r_skip(r, "nvidia-smi sees %lld GPU(s); the PCI inventory is unavailable (%s), so the count cannot be compared",
		       seen, pci ? "pci collector not OK" : "no pci collector");
		return;
	}
	if (seen == onbus) {
		r_pass(r, "nvidia-smi sees all %lld NVIDIA GPU(s) on the PCI bus", seen);
		return;
	}
	if (seen > onbus) {
		r_warn(r, "nvidia-smi lists %lld GPU(s) but the PCI inventory shows only %lld: the sysfs view is incomplete here", seen, onbus);
		return;
	}
	if (in_container(ctx)) {
		r_skip(r, "this container sees %lld of the %lld NVIDIA GPUs on the host's PCI bus; a container is normally given a subset, so the counts are not comparable here", seen, onbus);
		return;
	}
	/* Name the bus addresses nvidia-smi does not know. */
	struct findings miss = FND_INIT;
	size_t k;
	json_t *d;
	json_array_foreach(json_object_get(pci, "devices"), k, d) {
		unsigned long a[4], b[4];
		if (!jget_str(d, "vendor") || strcmp(jget_str(d, "vendor"), "0x10de") || !is_gpu_class(jget_str(d, "class")) ||
		    bdf_parse(jget_str(d, "bdf"), a))
			continue;
		int found = 0;
		json_array_foreach(gpus, i, g)
			if (bdf_parse(jget_str(g, "pci.bus_id"), b) == 0 && !memcmp(a, b, sizeof a))
				found = 1;
		if (!found)
			fnd_add(&miss, "%s (driver %s)", jget_str(d, "bdf"), jget_str(d, "driver") ? jget_str(d, "driver") : "none");
	}
	r_fail(r, "nvidia-smi sees %lld of the %lld NVIDIA GPUs on the PCI bus: a GPU fell off the bus, is unbound from the driver or hidden%s%s",
	       seen, onbus, miss.n ? "; missing: " : "", miss.n ? sb_str(&miss.sb) : "");
	r_remedy(r, "Drain the node; check the kernel log for XID 79 and the device's driver binding, then reset or replace the GPU.");
	smi_evidence(ctx, r);
	fnd_free(&miss);
}

static void set_diff(json_t *gpus, const char *field, json_t *vals)
{
	size_t i;
	json_t *g;
	json_array_foreach(gpus, i, g) {
		const char *v = jget_str(g, field);
		if (!v)
			continue;
		json_t *c = json_object_get(vals, v);
		json_object_set_new(vals, v, json_integer(c ? json_integer_value(c) + 1 : 1));
	}
}

static char *set_desc(json_t *vals)
{
	struct strbuf sb = STRBUF_INIT;
	const char *k;
	json_t *v;
	int first = 1;
	json_object_foreach(vals, k, v) {
		sb_addf(&sb, "%s%lldx %s", first ? "" : ", ", (long long)json_integer_value(v), k);
		first = 0;
	}
	return sb_detach(&sb);
}

void check_gpu_uniformity(struct audit_ctx *ctx, struct result *r)
{
	json_t *gpus = nv_gpus(ctx, r, NULL);
	if (!gpus)
		return;
	json_t *names = json_object(), *drv = json_object(), *vb = json_object();
	set_diff(gpus, "name", names);
	set_diff(gpus, "driver_version", drv);
	set_diff(gpus, "vbios_version", vb);
	json_t *obs = json_object();
	json_object_set(obs, "models", names);
	json_object_set(obs, "drivers", drv);
	json_object_set(obs, "vbios", vb);
	r_observed(r, obs);
	r_expectedf(r, "one model, one driver and one VBIOS version across all GPUs");
	/* the platform the GPUs sit in, when root's SMBIOS read ran (collect/dmi.c) */
	enum col_state dst;
	json_t *dmi = facts_get(ctx, "dmi", &dst);
	if (dst == COL_OK)
		r_evidence_note(r, "platform: %s %s, baseboard %s, BIOS %s %s (dmidecode through %s)",
				fact_str(dmi, "system.manufacturer") ? fact_str(dmi, "system.manufacturer") : "?",
				fact_str(dmi, "system.product_name") ? fact_str(dmi, "system.product_name") : "?",
				fact_str(dmi, "baseboard.product_name") ? fact_str(dmi, "baseboard.product_name") : "?",
				fact_str(dmi, "bios.version") ? fact_str(dmi, "bios.version") : "?",
				fact_str(dmi, "bios.release_date") ? fact_str(dmi, "bios.release_date") : "",
				fact_str(dmi, "via") ? fact_str(dmi, "via") : "?");
	size_t lost = 0, i;
	json_t *g;
	json_array_foreach(gpus, i, g)
		lost += json_object_get(g, "_error") != NULL;
	char note[96] = "";
	if (lost)
		snprintf(note, sizeof note, " (%zu unreachable GPU(s) not compared, see hardware.gpu-count)", lost);
	char *dn = set_desc(names), *dd = set_desc(drv), *dv = set_desc(vb);
	if (json_object_size(names) > 1 || json_object_size(drv) > 1) {
		r_fail(r, "GPUs differ: models %s; drivers %s%s", dn, dd, note);
		r_remedy(r, "A node should hold one GPU model on one driver; have the provider replace the odd GPU.");
	} else if (json_object_size(vb) > 1) {
		r_warn(r, "GPUs run different VBIOS versions (%s): firmware drift across one node%s", dv, note);
		r_remedy(r, "Flash every GPU to the same VBIOS with the vendor's firmware update package.");
	} else if (json_object_size(names) == 0 || json_object_size(vb) == 0) {
		r_warn(r, "could not read %s on every GPU", json_object_size(names) ? "the VBIOS version" : "the model");
	} else {
		r_pass(r, "%s, driver %s, VBIOS %s%s", dn, json_object_iter_key(json_object_iter(drv)),
		       json_object_iter_key(json_object_iter(vb)), note);
	}
	smi_evidence(ctx, r);
	free(dn);
	free(dd);
	free(dv);
	json_decref(names);
	json_decref(drv);
	json_decref(vb);
}

/* Per-GPU "Enabled"/"Disabled" field: FAIL or WARN on the off ones. */
static void check_enabled_field(struct audit_ctx *ctx, struct result *r, const char *field, const char *what,
				enum status off_status, const char *remedy)
{
	json_t *gpus = nv_gpus(ctx, r, NULL);
	if (!gpus)
		return;
	struct findings off = FND_INIT, unk = FND_INIT;
	json_t *obs = json_array();
	size_t i;
	json_t *g;
	char lb[96];
	json_array_foreach(gpus, i, g) {
		const char *v = jget_str(g, field);
		json_array_append_new(obs, v ? json_string(v) : json_null());
		if (!v)
			fnd_add(&unk, "%s", glabel(g, i, lb, sizeof lb));
		else if (strcasecmp(v, "Enabled") != 0)
			fnd_add(&off, "%s", glabel(g, i, lb, sizeof lb));
	}
	r_observed(r, obs);
	r_expectedf(r, "%s Enabled on every GPU", what);
	if (off.n) {
		r_status(r, off_status, "%s is off on %d of %zu GPU(s): %s", what, off.n, json_array_size(gpus), sb_str(&off.sb));
		r_remedy(r, "%s", remedy);
	} else if (unk.n == (int)json_array_size(gpus)) {
		r_skip(r, "nvidia-smi does not report %s on these GPUs", what);
	} else if (unk.n) {
		r_warn(r, "could not read %s on %d GPU(s): %s", what, unk.n, sb_str(&unk.sb));
	} else {
		r_pass(r, "%s is enabled on all %zu GPU(s)", what, json_array_size(gpus));
	}
	smi_evidence(ctx, r);
	fnd_free(&off);
	fnd_free(&unk);
}

void check_gpu_ecc(struct audit_ctx *ctx, struct result *r)
{
	check_enabled_field(ctx, r, "ecc.mode.current", "ECC", ST_FAIL,
			    "Enable ECC ('nvidia-smi -i N -e 1') and reset the GPU or reboot; without ECC, memory errors corrupt results silently.");
}

void check_gpu_persistence(struct audit_ctx *ctx, struct result *r)
{
	check_enabled_field(ctx, r, "persistence_mode", "persistence mode", ST_WARN,
			    "Run nvidia-persistenced (systemctl enable --now nvidia-persistenced) so the driver stays initialised between jobs.");
}

void check_gpu_pcie_link(struct audit_ctx *ctx, struct result *r)
{
	json_t *gpus = nv_gpus(ctx, r, NULL);
	if (!gpus)
		return;
	struct findings narrow = FND_INIT, slow = FND_INIT, unk = FND_INIT, idle = FND_INIT, c2c = FND_INIT;
	json_t *obs = json_array();
	size_t i;
	json_t *g;
	char lb[96];
	json_array_foreach(gpus, i, g) {
		double wc = 0, wm = 0, gc = 0, gm = 0, gg = NAN;
		int have_w = gnum(g, "pcie.link.width.current", &wc) == 0 && gnum(g, "pcie.link.width.max", &wm) == 0;
		int have_g = gnum(g, "pcie.link.gen.max", &gm) == 0;
		const char *gg_src = "nvidia-smi";
		if (gnum(g, "pcie.link.gen.gpumax", &gg) != 0) {
			const json_t *m = gpu_model_by_key(ctx->gpu_models, jget_str(g, "_model_key"));
			json_t *pg = json_object_get(m, "pcie_gen_max");
			gg = json_is_number(pg) ? json_number_value(pg) : NAN;
			gg_src = "data/gpu-models.json";
		}
		json_t *o = obs_row(obs, glabel(g, i, lb, sizeof lb));
		obs_copy(o, "width", g, "pcie.link.width.current");
		obs_copy(o, "width_max", g, "pcie.link.width.max");
		obs_copy(o, "gen", g, "pcie.link.gen.current");
		obs_copy(o, "gen_max", g, "pcie.link.gen.max");
		json_object_set_new(o, "gen_gpumax", isnan(gg) ? json_null() : json_integer((long long)gg));
		if (!have_w || !have_g) {
			fnd_add(&unk, "%s", lb);
			continue;
		}
		struct pcie_link pl = { wc, wm, gnum(g, "pcie.link.gen.current", &gc) == 0 ? gc : NAN, gm, gg };
		unsigned lf = pcie_link_judge(&pl);
		if (lf & PCIE_NARROW)
			fnd_add(&narrow, "%s at x%.0f of x%.0f", lb, wc, wm);
		const json_t *mdl = gpu_model_by_key(ctx->gpu_models, jget_str(g, "_model_key"));
		const char *hl = json_string_value(json_object_get(mdl, "host_link"));
		if (hl && strcmp(hl, "nvlink-c2c") == 0 && (lf & PCIE_SLOT_LIMITED))
			fnd_add(&c2c, "%s", lb);
		else if (lf & PCIE_SLOT_LIMITED)
			fnd_add(&slow, "%s max Gen%.0f, the GPU supports Gen%.0f (%s)", lb, gm, gg, gg_src);
		if (lf & PCIE_BELOW_GEN)
			fnd_add(&idle, "%s", lb);
	}
	r_observed(r, obs);
	r_expectedf(r, "link width at its maximum on every GPU; the slot's max generation equal to the GPU's");
	char idle_note[256] = "";
	if (idle.n || c2c.n)
		snprintf(idle_note, sizeof idle_note, "%s%s%s",
			 idle.n ? " (a lower current generation at idle is normal power saving and not graded)" : "",
			 c2c.n ? "; the PCIe generation of Grace superchip GPUs is set by the Grace root ports and is not graded, " : "",
			 c2c.n ? "host traffic uses NVLink-C2C" : "");
	if (narrow.n) {
		r_fail(r, "PCIe link trained narrower than its maximum on %d GPU(s): %s%s%s%s", narrow.n,
		       sb_str(&narrow.sb), slow.n ? "; also slot-limited: " : "", slow.n ? sb_str(&slow.sb) : "", idle_note);
		r_remedy(r, "Reseat the GPU or its riser/cable and check the slot; a degraded link halves host-device bandwidth.");
	} else if (slow.n) {
		r_warn(r, "PCIe generation limited by the slot or host on %d GPU(s): %s%s", slow.n, sb_str(&slow.sb), idle_note);
		r_remedy(r, "Check the BIOS PCIe speed setting, risers and retimers on the GPU's path.");
	} else if (unk.n) {
		r_warn(r, "could not read the PCIe link of %d GPU(s): %s", unk.n, sb_str(&unk.sb));
	} else {
		r_pass(r, "every GPU's link runs at its full width and the slot supports the GPU's PCIe generation%s", idle_note);
	}
	fnd_free(&narrow);
	fnd_free(&slow);
	fnd_free(&unk);
	smi_evidence(ctx, r);
	fnd_free(&idle);
	fnd_free(&c2c);
}

void check_gpu_power_limit(struct audit_ctx *ctx, struct result *r)
{
	json_t *gpus = nv_gpus(ctx, r, NULL);
	if (!gpus)
		return;
	double tol = threshold(ctx, "gpu.power_limit_tolerance_w", 1);
	struct findings capped = FND_INIT, unk = FND_INIT;
	json_t *obs = json_array();
	size_t i;
	json_t *g;
	char lb[96];
	json_array_foreach(gpus, i, g) {
		double lim, ref;
		const char *reff = "power.default_limit";
		if (gnum(g, reff, &ref) != 0) {
			reff = "power.max_limit";
			if (gnum(g, reff, &ref) != 0)
				ref = NAN;
		}
		json_t *o = obs_row(obs, glabel(g, i, lb, sizeof lb));
		obs_copy(o, "limit_w", g, "power.limit");
		obs_copy(o, "default_w", g, "power.default_limit");
		obs_copy(o, "max_w", g, "power.max_limit");
		if (gnum(g, "power.limit", &lim) != 0 || isnan(ref)) {
			fnd_add(&unk, "%s", lb);
			continue;
		}
		if (lim < ref - tol)
			fnd_add(&capped, "%s limited to %.0f W of its %.0f W %s", lb, lim, ref,
				strcmp(reff, "power.default_limit") == 0 ? "default" : "maximum");
	}
	r_observed(r, obs);
	r_expectedf(r, "enforced power limit equal to the default limit (within %.0f W)", tol);
	if (capped.n) {
		r_warn(r, "power-capped GPU(s): %s", sb_str(&capped.sb));
		r_remedy(r, "Restore the default limit ('nvidia-smi -i N -pl <default>') or ask why the provider caps it; a capped GPU runs slower under load.");
	} else if (unk.n == (int)json_array_size(gpus)) {
		r_skip(r, "nvidia-smi does not report power limits on these GPUs");
	} else if (unk.n) {
		r_warn(r, "could not read the power limit of %d GPU(s): %s", unk.n, sb_str(&unk.sb));
	} else {
		r_pass(r, "every GPU runs at its default power limit");
	}
	smi_evidence(ctx, r);
	fnd_free(&capped);
	fnd_free(&unk);
}

/* Idle ceilings: field value vs a per-GPU ceiling, graded only on idle GPUs. */
static void check_idle(struct audit_ctx *ctx, struct result *r, int power)
{
	json_t *gpus = nv_gpus(ctx, r, NULL);
	if (!gpus)
		return;
	double util_max = threshold(ctx, "gpu.idle_utilization_pct_max", 5);
	const char *field = power ? "power.draw" : "temperature.gpu";
	const char *unit = power ? "W" : "C";
	struct findings over = FND_INIT, busy = FND_INIT, unk = FND_INIT, noceil = FND_INIT;
	json_t *obs = json_array();
	size_t i;
	json_t *g;
	char lb[96];
	int graded = 0;
	double worst = -1;
	json_array_foreach(gpus, i, g) {
		double u, v, ceil;
		json_t *o = obs_row(obs, glabel(g, i, lb, sizeof lb));
		obs_copy(o, "utilization_pct", g, "utilization.gpu");
		obs_copy(o, power ? "power_w" : "temperature_c", g, field);
		if (gnum(g, "utilization.gpu", &u) != 0 || gnum(g, field, &v) != 0) {
			fnd_add(&unk, "%s", lb);
			continue;
		}
		if (u > util_max) {
			fnd_add(&busy, "%s at %.0f%%", lb, u);
			continue;
		}
		if (power) {
			const char *key = jget_str(g, "_model_key");
			char *path = xasprintf("gpu.idle_power_w_max.%s", key ? key : "?");
			ceil = key ? threshold(ctx, path, NAN) : NAN;
			free(path);
			if (isnan(ceil)) {
				fnd_add(&noceil, "%s", jget_str(g, "name") ? jget_str(g, "name") : lb);
				continue;
			}
		} else {
			ceil = threshold(ctx, "gpu.idle_temp_c_max", 60);
		}
		json_object_set_new(o, "ceiling", json_real(ceil));
		graded++;
		if (v > ceil)
			fnd_add(&over, "%s %.0f %s (ceiling %.0f %s)", lb, v, unit, ceil, unit);
		if (v > worst)
			worst = v;
	}
	r_observed(r, obs);
	r_expectedf(r, power ? "idle power draw at or below the model's ceiling (data/thresholds.json gpu.idle_power_w_max)"
			     : "idle temperature at or below %.0f C (data/thresholds.json gpu.idle_temp_c_max)",
		    threshold(ctx, "gpu.idle_temp_c_max", 60));
	const char *what = power ? "idle power" : "idle temperature";
	char note[200] = "";
	if (busy.n)
		snprintf(note, sizeof note, "; %d busy GPU(s) not graded", busy.n);
	if (over.n) {
		r_warn(r, "%s above the ceiling on %d GPU(s): %s%s", what, over.n, sb_str(&over.sb), note);
		r_remedy(r, power ? "Look for stuck processes or clocks pinned high (nvidia-smi -q -d PERFORMANCE); high idle draw also means heat and cooling issues."
				  : "Check airflow, fan and liquid-cooling health around the hot GPU; a hot idle GPU throttles under load.");
	} else if (!graded && busy.n) {
		r_skip(r, "not idle: %s", sb_str(&busy.sb));
	} else if (!graded && noceil.n) {
		r_skip(r, "no idle power ceiling for %s in data/thresholds.json", sb_str(&noceil.sb));
	} else if (!graded) {
		r_warn(r, "could not read utilization and %s on any GPU", power ? "power draw" : "temperature");
	} else if (unk.n) {
		r_warn(r, "could not read %s on %d GPU(s): %s (the other %d are within the ceiling)", what, unk.n,
		       sb_str(&unk.sb), graded);
	} else {
		r_pass(r, "%s within the ceiling on %d idle GPU(s) (highest %.0f %s)%s", what, graded, worst, unit, note);
	}
	smi_evidence(ctx, r);
	fnd_free(&over);
	fnd_free(&busy);
	fnd_free(&unk);
	fnd_free(&noceil);
}

void check_gpu_idle_temperature(struct audit_ctx *ctx, struct result *r)
{
	check_idle(ctx, r, 0);
}

void check_gpu_idle_power(struct audit_ctx *ctx, struct result *r)
{
	check_idle(ctx, r, 1);
}
