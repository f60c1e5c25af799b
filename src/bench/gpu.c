/* `cmax bench gpu`: what one GPU achieves against its specification.
 * cuBLASLt grouped GEMMs with the MoE projection shapes of DeepSeek-V3- and
 * Kimi-K2-class models (the group is a loop of cublasLtMatmul calls, one
 * per expert with tokens, on one stream: what a naive grouped GEMM costs,
 * launch overhead included), a MAMF-style M,N,K sweep for the best
 * achievable TFLOPS, a one-token GEMV for HBM bandwidth (decode proxy), and
 * pinned host<->device and device-to-device copy bandwidth.
 *
 * CUDA is loaded with dlopen (cuda_dl.h); without the libraries, without a
 * driver or without a GPU every figure is a SKIP with the reason. Memory
 * comes from cudaMalloc/cudaMallocHost only, every CUDA return code is
 * checked, times are cudaEvent times of warmed-up, repeated runs. */
#include "bench/bench.h"
#include "bench/gpu.h"
#include "bench/cuda_dl.h"
#include "bench/gpu_calc.h"
#include "core/numparse.h"
#include "core/datafile.h"
#include "core/policyfile.h"
#include "core/error.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const part_names[] = { "copy", "gemv", "mamf", "moe" };

static const char usage[] =
	"usage: cmax bench gpu [--device N] [--only PARTS] [--dtypes LIST] [options]\n\n"
	"Measures one GPU against its specification (data/gpu-specs.json): grouped GEMMs on\n"
	"cuBLASLt with the MoE projection shapes of DeepSeek-V3- and Kimi-K2-class models\n"
	"(data/gemm-shapes.json), a MAMF sweep (best achievable matmul TFLOPS), a one-token\n"
	"GEMV (HBM bandwidth, decode proxy) and pinned host/device copy bandwidth. CUDA is\n"
	"loaded at run time; without it, or without a GPU, every figure is SKIP with the reason.\n"
	"It writes no files but keeps the GPU busy: other jobs on it slow down and disturb the figures.\n"
	"--timeout is the total time budget (default 300 s quick, 3600 s full): figures not\n"
	"reached by then are SKIP. env CMAX_CUDA_LIBDIR: load libcudart/libcublasLt only from\n"
	"this directory.\n";

#define GOPT(f) offsetof(struct gopts, f)
static const struct opt_def options[] = {
	{ .name = "device", .type = OPT_INT, .offset = GOPT(device), .metavar = "N", .min = 0, .max = 1023,
	  .dflt = "0", .help = "CUDA device index" },
	{ .name = "only", .type = OPT_STRING, .offset = GOPT(only), .metavar = "LIST",
	  .help = "comma list of copy,gemv,mamf,moe (default all)" },
	{ .name = "dtypes", .type = OPT_STRING, .offset = GOPT(dtype_list), .metavar = "LIST",
	  .help = "comma list of bf16,fp16,tf32,fp8 (default all; fp8 needs sm_89+)" },
	{ .name = "tokens", .type = OPT_STRING, .offset = GOPT(token_list), .metavar = "LIST",
	  .help = "token counts of the MoE cases (default from the shapes file)" },
	{ .name = "rep-ms", .type = OPT_INT, .offset = GOPT(rep_ms), .metavar = "MS", .min = 1, .max = 600000,
	  .units = "ms", .help = "time the repetitions of each figure for about MS ms (default 100 quick, 500 full)" },
	{ .name = "gpu-model", .type = OPT_STRING, .offset = GOPT(gpu_model), .metavar = "KEY",
	  .help = "grade against this gpu-specs.json key instead of the device name" },
	{ .name = "shapes", .type = OPT_STRING, .offset = GOPT(shapes_file), .metavar = "FILE",
	  .help = "another gemm-shapes.json", .flags = OPTF_PATH },
	{ .name = "specs", .type = OPT_STRING, .offset = GOPT(specs_file), .metavar = "FILE",
	  .help = "another gpu-specs.json", .flags = OPTF_PATH },
	OPTION_END
};

static int parse_list(const char *v, const char *const *names, int n, unsigned *mask)
{
	char *dup = xstrdup(v), *save = NULL;
	*mask = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int i;
		for (i = 0; i < n && strcmp(t, names[i]); i++)
			;
		if (i == n) {
			free(dup);
			return -1;
		}
		*mask |= 1u << i;
	}
	free(dup);
	return *mask ? 0 : -1;
}

static int bad_value(const char *opt, const char *v)
{
	fprintf(stderr, "cmax bench gpu: unknown option or bad value '%s %s' (see --help)\n", opt, ts_str(v));
	return EXIT_USAGE;
}

/* --only, --dtypes, --tokens; the defaults that depend on --full. */
static int check_options(struct gopts *o)
{
	static const char *dt_names[GD__COUNT];
	for (int d = 0; d < GD__COUNT; d++)
		dt_names[d] = gpu_dtype(d)->name;
	o->dtypes = (1u << GD__COUNT) - 1;
	o->parts = P_ALL;
	if (o->only && parse_list(o->only, part_names, 4, &o->parts) != 0)
		return bad_value("--only", o->only);
	if (o->dtype_list && parse_list(o->dtype_list, dt_names, GD__COUNT, &o->dtypes) != 0)
		return bad_value("--dtypes", o->dtype_list);
	if (o->token_list) {
		char *dup = xstrdup(o->token_list), *save = NULL;
		int bad = 0;
		for (char *t = strtok_r(dup, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
			long n = 0;
			bad = np_count("--tokens", t, 1, 1 << 20, &n, NULL) != 0 || o->ntokens == 16;
			if (!bad)
				o->tokens[o->ntokens++] = n;
		}
		free(dup);
		if (bad || !o->ntokens)
			return bad_value("--tokens", o->token_list);
	}
	if (!o->b.timeout_s)
		o->b.timeout_s = o->b.full ? 3600 : 300;
	if (!o->rep_ms)
		o->rep_ms = o->b.full ? 500 : 100;
	return 0;
}

/* ---- the plan: every figure, in the order they run ----------------------- */

static int load_models(const json_t *shapes, struct moe_src *out, int max)
{
	size_t i;
	json_t *e;
	int n = 0;
	json_array_foreach(json_object_get(shapes, "moe_models"), i, e) {
		if (n == max)
			break;
		struct moe_src *s = &out[n];
		s->m.key = json_string_value(json_object_get(e, "key"));
		s->name = json_string_value(json_object_get(e, "name"));
		s->m.hidden = (long)json_integer_value(json_object_get(e, "hidden"));
		s->m.inter = (long)json_integer_value(json_object_get(e, "moe_intermediate"));
		s->m.experts = (int)json_integer_value(json_object_get(e, "routed_experts"));
		s->m.top_k = (int)json_integer_value(json_object_get(e, "top_k"));
		if (!s->m.key || s->m.hidden <= 0 || s->m.inter <= 0 || s->m.experts <= 0 || s->m.top_k <= 0 ||
		    s->m.hidden % 16 || s->m.inter % 16)
			return -1;
		n++;
	}
	return n;
}

static int token_counts(const struct gopts *o, const json_t *shapes, long *out)
{
	if (o->ntokens) {
		memcpy(out, o->tokens, sizeof(long) * o->ntokens);
		return o->ntokens;
	}
	size_t i;
	json_t *e;
	int n = 0;
	json_array_foreach(json_object_get(json_object_get(shapes, "token_counts"), o->b.full ? "full" : "quick"), i, e)
		if (n < 16 && json_integer_value(e) > 0)
			out[n++] = (long)json_integer_value(e);
	return n;
}

const char *gpu_proj_name(enum gpu_proj p)
{
	return p == GP_GATE_UP ? "gate-up" : "down";
}

/* ---- output ----------------------------------------------------------------- */

static void table_head(FILE *out, const struct bench_run *b)
{
	fprintf(out, "cmax bench gpu on %s\n", ts_str(b->host));
}

static void table_row(FILE *out, const struct bench_run *b, const struct result *r)
{
	(void)b; /* one row needs no more than itself */
	fprintf(out, "%-5s %-40s %s\n", status_name(r->status), r->id + strlen("bench.gpu-"), ts_str(r->summary));
}

static void table(FILE *out, const struct bench_run *b)
{
	table_head(out, b);
	for (size_t i = 0; i < b->nrows; i++)
		table_row(out, b, b->rows[i]);
}

static void plan_text(const struct gopts *o, const struct moe_src *mods, int nmod, const long *tok, int ntok)
{
	printf("cmax bench gpu --dry-run: nothing is loaded or run.\n"
	       "Would load libcudart.so.13/.12 and libcublasLt.so.13/.12 with dlopen, use CUDA device %lld\n"
	       "for at most %ld s, and measure:\n", o->device, o->b.timeout_s);
	if (o->parts & P_COPY)
		printf("  copy: pinned host-to-device, device-to-host, device-to-device (%d MiB)\n", o->b.full ? 1024 : 256);
	if (o->parts & P_GEMV)
		printf("  gemv: one-token BF16 GEMV (HBM bandwidth)\n");
	for (int d = 0; d < GD__COUNT; d++) {
		if (!(o->dtypes & (1u << d)))
			continue;
		if (o->parts & P_MAMF)
			printf("  mamf: %s M,N,K sweep (%s grid)\n", gpu_dtype(d)->name, o->b.full ? "full" : "quick");
		if (o->parts & P_MOE)
			for (int i = 0; i < nmod; i++) {
				printf("  moe: %s %s gate-up and down, tokens", mods[i].m.key, gpu_dtype(d)->name);
				for (int j = 0; j < ntok; j++)
					printf(" %ld", tok[j]);
				printf("\n");
			}
	}
	printf("No files are written. Other work on the GPU slows down meanwhile.\n");
}

static int confirm(struct gctx *g)
{
	char *refusal = xasprintf("keeps GPU %lld (%s) busy for up to %ld s", g->o->device, g->name, g->o->b.timeout_s);
	char *prompt = xasprintf("will keep GPU %lld (%s, %s) busy for up to %ld s. ", g->o->device, g->name, g->busid,
				 g->o->b.timeout_s);
	int rc = bench_confirm(g->b, refusal, prompt);
	free(refusal);
	free(prompt);
	return rc;
}

static json_t *load_data(const char *file, const char *dflt, const char *schema, int *rc)
{
	char *path = file ? xstrdup(file) : datafile_path(dflt), *err = NULL;
	/* validated against its schema before use (core/policyfile.h) */
	enum cmax_err e;
	json_t *j = policy_load(path, schema, POLICY_JSON, &e, &err);
	*rc = exit_code_for(e);
	if (!j) {
		fprintf(stderr, "cmax bench gpu: %s\n", err);
		*rc = EXIT_DATAERR; /* a missing file too, as before */
	}
	free(err);
	free(path);
	return j;
}

/* ---- the hooks (bench.h) ------------------------------------------------ */

/* The data files and the device context. */
struct gpu_run {
	struct gctx g;
	json_t *shapes, *specs, *models;
	struct moe_src mods[8];
	long tok[16];
	int nmod, ntok;
};

/* The data files, before the thresholds (as before the driver). */
static int gpu_check(struct bench_run *b)
{
	struct gopts *o = BENCH_OPTS(b, struct gopts);
	int rc = check_options(o);
	if (rc)
		return rc;
	struct gpu_run *G = b->priv = xcalloc(1, sizeof *G);
	G->g.b = b;
	G->g.o = o;
	G->shapes = load_data(o->shapes_file, "gemm-shapes.json", "gemm-shapes", &rc);
	G->specs = G->shapes ? load_data(o->specs_file, "gpu-specs.json", "gpu-specs", &rc) : NULL;
	G->models = G->specs ? load_data(NULL, "gpu-models.json", "gpu-models", &rc) : NULL;
	G->nmod = G->shapes ? load_models(G->shapes, G->mods, 8) : 0;
	G->ntok = G->shapes ? token_counts(o, G->shapes, G->tok) : 0;
	if (!rc && (G->nmod <= 0 || G->ntok <= 0)) {
		fprintf(stderr, "cmax bench gpu: the shapes file has no usable moe_models or token_counts\n");
		rc = EXIT_DATAERR;
	}
	return rc;
}

static int gpu_prepare(struct bench_run *b)
{
	const struct gopts *o = BENCH_OPTS(b, const struct gopts);
	const struct gpu_run *G = b->priv;
	json_t *par = b->params;
	json_object_set_new(par, "mode", json_string(o->b.full ? "full" : "quick"));
	json_object_set_new(par, "device", json_integer(o->device));
	json_object_set_new(par, "timeout_s", json_integer(o->b.timeout_s));
	json_object_set_new(par, "rep_ms", json_integer(o->rep_ms));
	json_t *dl = json_array(), *pl = json_array(), *tl = json_array();
	for (int d = 0; d < GD__COUNT; d++)
		if (o->dtypes & (1u << d))
			json_array_append_new(dl, json_string(gpu_dtype(d)->name));
	for (int p = 0; p < 4; p++)
		if (o->parts & (1u << p))
			json_array_append_new(pl, json_string(part_names[p]));
	for (int i = 0; i < G->ntok; i++)
		json_array_append_new(tl, json_integer(G->tok[i]));
	json_object_set_new(par, "dtypes", dl);
	json_object_set_new(par, "parts", pl);
	json_object_set_new(par, "moe_tokens", tl);
	json_object_set_new(par, "grouped_gemm", json_string("a loop of cublasLtMatmul calls, one per expert with tokens, on one stream"));
	return 0;
}

/* The run stops every part at its deadline: the estimate is that bound. */
#define GPU_ESTIMATE_BASIS "at most --timeout: every part stops at the run's deadline; loading the libraries is not counted"

static int gpu_plan(struct bench_run *b)
{
	const struct gopts *o = BENCH_OPTS(b, const struct gopts);
	const struct gpu_run *G = b->priv;
	if (o->b.json) {
		json_t *p = json_object();
		json_object_set_new(p, "schema", json_string("cmax.bench.plan/1"));
		json_object_set_new(p, "benchmark", json_string("gpu"));
		json_object_set_new(p, "parameters", json_incref(b->params));
		json_object_set_new(p, "writes", json_string("nothing"));
		bench_plan_estimate(p, (double)o->b.timeout_s, GPU_ESTIMATE_BASIS);
		bench_print_json(p);
		json_decref(p);
	} else {
		plan_text(o, G->mods, G->nmod, G->tok, G->ntok);
		bench_plan_estimate_text(stdout, (double)o->b.timeout_s, GPU_ESTIMATE_BASIS);
	}
	return EXIT_OK;
}

/* The device row: what was found, and whether the figures can run. */
static int device_row(struct gpu_run *G)
{
	struct gctx *g = &G->g;
	json_t *dev = json_object();
	gpu_probe(g, dev);
	struct result *r = bench_row(g->b, "bench.gpu-device", "CUDA runtime, cuBLASLt and the GPU under test");
	if (!*g->skip_all) {
		g->spec = gpu_spec_lookup(G->specs, G->models, g->name, g->o->gpu_model, &g->spec_key);
		json_object_set_new(dev, "spec_key", g->spec_key ? json_string(g->spec_key) : json_null());
		json_object_set_new(dev, "spec", g->spec ? json_deep_copy(g->spec) : json_null());
	}
	r_observed(r, dev);
	if (*g->skip_all) {
		r_skip(r, "%s", g->skip_all);
		return 0;
	}
	int rc = confirm(g);
	if (rc)
		return rc;
	char err[512];
	if (gpu_setup(g, err, sizeof err) != 0) {
		snprintf(g->skip_all, sizeof g->skip_all, "set-up failed: %.480s", err);
		snprintf(g->skip_fig, sizeof g->skip_fig, "not run: set-up failed (see bench.gpu-device)");
		r_error(r, "%s", g->skip_all);
	} else if (*g->skip_gemm) {
		r_warn(r, "%s (sm_%d) found, but %s: only the copy figures run", g->name, g->cc, g->skip_gemm);
	} else {
		r_pass(r, "%s (sm_%d, %s), %s%s", g->name, g->cc, g->busid,
		       g->spec ? "graded against gpu-specs.json " : "no entry in gpu-specs.json: figures are not graded",
		       g->spec ? g->spec_key : "");
	}
	return 0;
}

static int gpu_run(struct bench_run *b)
{
	const struct gopts *o = BENCH_OPTS(b, const struct gopts);
	struct gpu_run *G = b->priv;
	struct gctx *g = &G->g;
	int rc = device_row(G);
	if (rc) {
		gpu_teardown(g);
		return rc;
	}
	bench_install_signals();
	g->deadline_ms = b->t0_ms + (long)o->b.timeout_s * 1000;
	/* the parts are the cases of the progress; their lengths are the GPU's
	 * (all of them within --timeout), not known beforehand */
	int ndt = 0;
	for (int d = 0; d < GD__COUNT; d++)
		ndt += (o->dtypes & (1u << d)) != 0;
	bench_cases_begin(b, (size_t)((o->parts & P_COPY) != 0) + ((o->parts & P_GEMV) != 0) +
				     (size_t)((o->parts & P_MAMF) ? ndt : 0) + (size_t)((o->parts & P_MOE) ? G->nmod * 2 * ndt : 0),
			  NULL);
	if (o->parts & P_COPY) {
		bench_case_start(b, "copy");
		gpu_run_copy(g, G->shapes);
		bench_case_done(b);
	}
	if (o->parts & P_GEMV) {
		bench_case_start(b, "gemv");
		gpu_run_gemv(g, G->shapes);
		bench_case_done(b);
	}
	for (int d = 0; d < GD__COUNT; d++)
		if ((o->parts & P_MAMF) && (o->dtypes & (1u << d))) {
			char *name = xasprintf("mamf %s", gpu_dtype(d)->name);
			bench_case_start(b, name);
			free(name);
			gpu_run_mamf(g, G->shapes, (enum gpu_dtype)d);
			bench_case_done(b);
		}
	for (int i = 0; i < G->nmod && (o->parts & P_MOE); i++)
		for (int p = GP_GATE_UP; p <= GP_DOWN; p++)
			for (int d = 0; d < GD__COUNT; d++)
				if (o->dtypes & (1u << d)) {
					char *name = xasprintf("moe %s %s %s", G->mods[i].m.key, gpu_proj_name((enum gpu_proj)p),
							       gpu_dtype(d)->name);
					bench_case_start(b, name);
					free(name);
					gpu_run_moe(g, &G->mods[i], (enum gpu_proj)p, (enum gpu_dtype)d, G->tok, G->ntok);
					bench_case_done(b);
				}
	gpu_teardown(g);
	return 0;
}

static void gpu_release(struct bench_run *b)
{
	struct gpu_run *G = b->priv;
	if (!G)
		return;
	json_decref(G->shapes);
	json_decref(G->specs);
	json_decref(G->models);
	free(G);
}

const struct bench_ops bench_gpu_ops = {
	.name = "gpu",
	.version = "1",
	.summary = "cuBLASLt grouped MoE GEMMs (bf16/fp16/tf32/fp8), MAMF sweep, GEMV and copy bandwidth vs spec",
	.profile = "hardware",
	.flags = BENCH_NO_FS,
	.usage = usage,
	.options = options,
	.opts_size = sizeof(struct gopts),
	.check = gpu_check,
	.prepare = gpu_prepare,
	.plan = gpu_plan,
	.run = gpu_run,
	.table = table,
	.table_head = table_head,
	.table_row = table_row,
	.release = gpu_release,
};
