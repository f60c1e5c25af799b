/* `cmax rate`: gather the result documents and the attestation, judge them
 * with the rubric (score.c), render (render.c). Only wiring lives here. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/datafile.h"
#include "core/policyfile.h"
#include "core/selfcheck.h"
#include "core/error.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/outfile.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "rate/rate.h"
#include "rate/score.h"
#include "report/report.h"
#include "store/input.h"
#include "store/sink.h"

struct ropts {
	const char *attestation, *rubric, *provider, *output_file;
	int compare, json, verbose;
	size_t nargs;               /* the evidence paths */
	const char *const *args;
	double flag[GPA__COUNT];    /* NAN: not given */
	struct sink_opts sink;      /* --store, --no-store, --junit, --fail-on (store/sink.h) */
};

#define RO(f) offsetof(struct ropts, f)
#define ASSUME(name, a, mv, help, lo, hi, units) \
	{ name, 0, OPT_REAL, RO(flag[a]), mv, help, NULL, lo, hi, units, NULL, 0 }
const struct opt_def rate_options[] = {
	{ "attestation", 0, OPT_STRING, RO(attestation), "FILE", "attestation (YAML or JSON)",
	  "attestation.yaml, .yml or .json inside a DIR given", 0, 0, NULL, NULL, OPTF_PATH },
	{ "rubric", 0, OPT_STRING, RO(rubric), "FILE", "another rubric", "data/rubric.json", 0, 0, NULL, NULL, OPTF_PATH },
	{ "provider", 0, OPT_STRING, RO(provider), "NAME", "name shown for the provider", "the attestation's", 0, 0, NULL,
	  NULL, 0 },
	{ "compare", 0, OPT_FLAG, RO(compare), NULL, "each argument is one provider's evidence: rank them", NULL, 0, 0,
	  NULL, NULL, 0 },
	ASSUME("gpus", GPA_GPUS, "N", "GPUs rented", 1, 1e7, "GPUs"),
	ASSUME("gpus-per-node", GPA_GPUS_PER_NODE, "N", "GPUs lost while one node is out", 1, 1024, "GPUs"),
	ASSUME("job-starts-per-day", GPA_JOB_STARTS, "N", "job starts a day that wait for imports and model loads", 0, 1e6, NULL),
	ASSUME("failures-per-month", GPA_FAILURES, "N", "node failures a month", 0, 1e6, NULL),
	ASSUME("storage-bound-fraction", GPA_STORAGE_FRACTION, "F", "share of the time jobs wait on storage", 0, 1, NULL),
	ASSUME("price-per-gpu-hour", GPA_PRICE, "X", "price (default: the attestation's pricing.price_per_gpu_hour)", 0,
	       1e6, NULL),
	OPTION_JSON(struct ropts, json),
	OPTION_OUTPUT_FILE(struct ropts, output_file),
	OPTION_SINK(struct ropts, sink),
	OPTION_VERBOSE(struct ropts, verbose),
	OPTION_END,
};
#undef ASSUME
#undef RO

static int usage_error(const char *fmt, const char *arg)
{
	return usage_fail("rate", fmt, arg);
}

static const char rate_help_head[] =
	"usage: cmax rate [options] FILE|DIR...\n"
	"       cmax rate --compare [options] DIR|FILE DIR|FILE...\n"
	"\n"
	"Scores the ten categories of the ClusterMAX method from cmax result documents\n"
	"(audit, bench, inject, reboot-test JSON; a DIR is an audit run directory or a\n"
	"directory of result files) and an attestation of what cannot be measured, gives\n"
	"the tier, the disqualifiers that cap it, and the GPU-hours lost to waiting.\n"
	"Missing evidence lowers confidence; it never counts as bad. The goodput\n"
	"assumptions (--gpus to --price-per-gpu-hour) default to the rubric's goodput section.\n"
	"--json prints the rating as JSON (schema cmax.rate/1; cmax.rate.compare/1); -v shows\n"
	"every item with its weight, rows and score (-vv: every row).\n"
	"An argument run:ID is a run of the results store (cmax runs list; the store of\n"
	"--store, else $CMAX_STORE, else $CMAX_HOME/cmax.db) in place of a file.\n"
	"\n"
	"Options:\n";
static const char rate_help_tail[] =
	"Exit status: 0 rated (any tier); 64 usage; 65 a broken result file, rubric or\n"
	"attestation; 66 a file or directory that does not exist; 73 --output-file cannot\n"
	"be written.\n";

/* One provider's evidence. */
struct pset {
	char *name;
	struct ev_set ev;
	unsigned char *active;
	struct rate_dup *dups;
	size_t ndups;
	struct attest att;
	int has_att;
	char **notes;
	size_t nnotes;
};

static void pset_free(struct pset *p)
{
	free(p->name);
	ev_free(&p->ev);
	free(p->active);
	free(p->dups);
	if (p->has_att)
		attest_free(&p->att);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
}

static void note(struct pset *p, char *s)
{
	p->notes = xrealloc(p->notes, (p->nnotes + 1) * sizeof *p->notes);
	p->notes[p->nnotes++] = s;
}

static int fail(char *err, int rc)
{
	fprintf(stderr, "cmax rate: %s\n", ts_str(err ? err : "failed")); /* may quote a document */
	free(err);
	return rc;
}

static int load_attestation(struct pset *p, const char *path)
{
	char *err = NULL;
	int rc = exit_code_for(attest_load(&p->att, path, &err));
	if (rc) {
		attest_free(&p->att);
		return fail(err, rc);
	}
	p->has_att = 1;
	for (size_t i = 0; i < p->att.nwarnings; i++)
		fprintf(stderr, "cmax rate: warning: %s\n", ts_str(p->att.warnings[i]));
	return 0;
}

static int json_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

/* A directory: every *.json result document in it; other cmax documents
 * (audit.values.json, plans) are skipped with a note; attestation.* is the
 * attestation unless one was given. */
static int load_dir(struct pset *p, const char *dir, int want_att)
{
	static const char *const att_names[] = { "attestation.yaml", "attestation.yml", "attestation.json" };
	char *found = NULL;
	for (size_t i = 0; i < 3; i++) {
		char *cand = xasprintf("%s/%s", dir, att_names[i]);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
			if (found) {
				fprintf(stderr, "cmax rate: %s: two attestation files (%s and %s); keep one\n", dir,
					found, cand);
				free(found);
				free(cand);
				return EXIT_USAGE;
			}
			found = cand;
		} else {
			free(cand);
		}
	}
	if (found && want_att && !p->has_att) {
		int rc = load_attestation(p, found);
		if (rc) {
			free(found);
			return rc;
		}
	} else if (found) {
		note(p, xasprintf("%s not used: the attestation %s is already loaded", found, p->att.path));
	}
	struct dirent **list = NULL;
	int n = scandir(dir, &list, json_file, alphasort);
	if (n < 0) {
		free(found);
		return fail(xasprintf("%s: %s", dir, strerror(errno)), EXIT_NOINPUT);
	}
	int rc = 0;
	size_t before = p->ev.ndocs;
	for (int i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, list[i]->d_name);
		if (found && !strcmp(path, found)) {
			free(path);
			continue;
		}
		json_t *root = NULL;
		char *rerr = NULL;
		if (!rc) {
			/* the one input reader (core/readfile.h): capped, no device or FIFO hang */
			enum cmax_err r = ev_load_json(path, &root, &rerr);
			if (r)
				rc = fail(rerr, exit_code_for(r));
		}
		if (root) {
			const char *schema = json_string_value(json_object_get(root, "schema"));
			if (schema && (!strcmp(schema, "cmax.audit.results/1") || !strcmp(schema, "cmax.bench.results/1") ||
				       !strcmp(schema, "cmax.inject/1") || !strcmp(schema, "cmax.reboot-test/1"))) {
				char *err = NULL;
				enum cmax_err r = ev_add_json(&p->ev, root, path, &err);
				if (r)
					rc = fail(err, exit_code_for(r));
			} else {
				note(p, xasprintf("%s skipped: %s", path,
						  schema ? "not a result document (schema is not audit, bench, inject or "
							   "reboot-test)"
							 : "no \"schema\": not a cmax result document"));
				json_decref(root);
			}
		}
		free(path);
	}
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
	if (!rc && p->ev.ndocs == before && !found)
		note(p, xasprintf("%s: no result document and no attestation in this directory", dir));
	free(found);
	return rc;
}

/* store: --store, where a "run:ID" is read from (NULL: $CMAX_STORE, else the default) */
static int load_path(struct pset *p, const char *path, int want_att, const char *store)
{
	if (store_input_is_run(path)) { /* "run:ID": a document of the results store */
		json_t *root = NULL;
		char *label = NULL, *err = NULL;
		enum cmax_err e = store_resolve_input(path, store, &root, &label, &err);
		if (!e)
			e = ev_add_json(&p->ev, root, label, &err); /* steals root */
		free(label);
		return e ? fail(err, exit_code_for(e)) : 0;
	}
	struct stat st;
	if (stat(path, &st) != 0)
		return fail(xasprintf("%s: %s", path, strerror(errno)), EXIT_NOINPUT);
	if (S_ISDIR(st.st_mode))
		return load_dir(p, path, want_att);
	char *err = NULL;
	enum cmax_err e = ev_load(&p->ev, path, &err);
	return e ? fail(err, exit_code_for(e)) : 0;
}

static char *name_of(const char *path)
{
	char *dup = xstrdup(path);
	size_t n = strlen(dup);
	while (n > 1 && dup[n - 1] == '/')
		dup[--n] = 0;
	char *b = xstrdup(basename(dup));
	free(dup);
	n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".json"))
		b[n - 5] = 0;
	return b;
}

static void finish_set(struct pset *p)
{
	p->active = xmalloc(p->ev.nrows + 1);
	memset(p->active, 1, p->ev.nrows + 1);
	p->dups = rate_dedup(&p->ev, p->active, &p->ndups);
}

static void assumptions(struct gp_assume *as, const struct ropts *o, const struct rubric *rb, const struct attest *att)
{
	gp_assume_from_rubric(as, rb, att);
	for (int i = 0; i < GPA__COUNT; i++)
		if (!isnan(o->flag[i])) {
			as->v[i] = o->flag[i];
			as->set[i] = 1;
			as->src[i] = "flag";
		}
}

/* Parse: the flags into o; args/nargs are the evidence paths, borrowed
 * from p (the caller releases it). Returns 0, -1 after --help, or an exit
 * code. */
static int rate_parse(int argc, char **argv, struct ropts *o, struct opt_parser *p)
{
	for (int i = 0; i < GPA__COUNT; i++)
		o->flag[i] = NAN;
	*p = (struct opt_parser){ .cmd = "rate", .defs = rate_options, .dst = o, .max_positional = -1,
				  .help_head = rate_help_head, .help_tail = rate_help_tail };
	int rc = opt_parse_result(opt_parse(p, argc, argv));
	if (rc)
		return rc;
	o->nargs = p->npositional;
	o->args = p->positional;
	if (o->compare && o->nargs < 2)
		return usage_error("%s needs at least two providers' evidence (one DIR or FILE each)", "--compare");
	if (o->compare && o->attestation)
		return usage_error("%s: with --compare each provider's directory holds its own attestation.yaml",
				   "--attestation");
	if (o->compare && o->provider)
		return usage_error("%s: with --compare names come from each attestation or directory", "--provider");
	if (!o->nargs && !o->attestation)
		return usage_error("%s", "no result files given");
	rc = sink_check(&o->sink, "rate");
	return rc < 0 ? 0 : rc;
}

/* One `cmax rate` run: what its phases share, released once by
 * rate_cmd_release(); zeroed, every field is safe to release. */
struct rate_cmd {
	struct ropts o;
	struct opt_parser parser;   /* owns o.args */
	struct rubric rb;
	json_t *gpu_models;
	size_t nsets;
	struct pset *sets;          /* one, or one per provider (--compare) */
	struct rate_provider *prov; /* nsets */
	json_t *doc;                /* the rating, or the comparison */
};

static void rate_cmd_release(struct rate_cmd *rc)
{
	for (size_t i = 0; rc->prov && i < rc->nsets; i++) {
		rate_result_free(&rc->prov[i].res);
		json_decref(rc->prov[i].doc);
	}
	free(rc->prov);
	json_decref(rc->doc);
	for (size_t i = 0; rc->sets && i < rc->nsets; i++)
		pset_free(&rc->sets[i]);
	free(rc->sets);
	json_decref(rc->gpu_models);
	rubric_free(&rc->rb);
	opt_parser_release(&rc->parser);
}

/* Prepare: the rubric (its schema first, core/policyfile.h; a missing file
 * is rubric_load()'s to report) and the GPU models. */
static int rate_load_policy(struct rate_cmd *rc)
{
	char *err = NULL;
	char *rpath = rc->o.rubric ? xstrdup(rc->o.rubric) : datafile_path("rubric.json");
	enum cmax_err e = policy_check(rpath, "rubric", POLICY_YAML, &err);
	if (e == CE_NOINPUT) {
		free(err);
		err = NULL;
		e = CE_OK;
	}
	int r = exit_code_for(e);
	if (!r)
		r = exit_code_for(rubric_load(&rc->rb, rpath, &err));
	free(rpath);
	if (r)
		return fail(err, r);
	char *gpath = datafile_path("gpu-models.json");
	rc->gpu_models = policy_load(gpath, "gpu-models", POLICY_JSON, &e, &err);
	free(gpath);
	if (e == CE_NOINPUT) { /* without it GPU models stay unknown, as before */
		free(err);
		return 0;
	}
	return e ? fail(err, exit_code_for(e)) : 0;
}

/* Prepare: every provider's evidence, each named (--compare) uniquely. */
static int rate_gather(struct rate_cmd *rc)
{
	const struct ropts *o = &rc->o;
	rc->nsets = o->compare ? o->nargs : 1;
	rc->sets = xcalloc(rc->nsets, sizeof *rc->sets);
	for (size_t i = 0; i < rc->nsets; i++)
		ev_init(&rc->sets[i].ev);
	int r = 0;
	if (!o->compare && o->attestation)
		r = load_attestation(&rc->sets[0], o->attestation);
	for (size_t i = 0; !r && i < o->nargs; i++) {
		struct pset *p = &rc->sets[o->compare ? i : 0];
		r = load_path(p, o->args[i], 1, o->sink.store);
		if (o->compare && !r) {
			p->name = xstrdup(p->has_att && p->att.provider ? p->att.provider : "");
			if (!*p->name) {
				free(p->name);
				p->name = name_of(o->args[i]);
			}
		}
	}
	if (r || !o->compare)
		return r;
	for (size_t i = 0; i < rc->nsets; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(rc->sets[i].name, rc->sets[j].name)) {
				char *nn = xasprintf("%s (%zu)", rc->sets[i].name, i + 1);
				free(rc->sets[i].name);
				rc->sets[i].name = nn;
			}
	return 0;
}

/* Execute and render: score every provider (the text as it goes), rank
 * them (--compare), then the document. */
static void rate_execute(struct rate_cmd *rc)
{
	const struct ropts *o = &rc->o;
	rc->prov = xcalloc(rc->nsets, sizeof *rc->prov);
	for (size_t i = 0; i < rc->nsets; i++) {
		struct pset *p = &rc->sets[i];
		struct rate_provider *pv = &rc->prov[i];
		finish_set(p);
		struct rate_input in = { .rb = &rc->rb, .ev = &p->ev, .active = p->active,
					 .att = p->has_att ? &p->att : NULL, .gpu_models = rc->gpu_models };
		assumptions(&in.as, o, &rc->rb, in.att);
		rate_compute(&in, &pv->res);
		const char *name = o->compare ? p->name
				   : o->provider ? o->provider
				   : p->has_att ? p->att.provider
						: NULL;
		pv->name = name ? name : "";
		struct rate_doc_meta m = { name, &p->ev, p->dups, p->ndups, (const char *const *)p->notes, p->nnotes };
		pv->doc = rate_to_json(&pv->res, &m);
		if (!o->compare) {
			rc->doc = json_incref(pv->doc);
			if (!o->json)
				rate_text(stdout, &pv->res, &m, o->verbose);
		}
	}
	if (o->compare) {
		rate_rank(rc->prov, rc->nsets);
		rc->doc = rate_compare_json(rc->prov, rc->nsets, &rc->rb);
		if (!o->json)
			rate_compare_text(stdout, rc->prov, rc->nsets, &rc->rb, o->verbose);
	}
}

/* Write: --json on stdout and --output-file, never a document that breaks
 * its own schema. Returns the exit code. */
static int rate_write(const struct rate_cmd *rc)
{
	const struct ropts *o = &rc->o;
	enum cmax_err self = doc_selfcheck(rc->doc, o->compare ? "rate-compare" : "rate", "rate"), e = self;
	if (!e && o->json)
		report_json(stdout, rc->doc);
	fflush(stdout);
	if (o->output_file && !e)
		e = report_json_file(o->output_file, rc->doc, "rate");
	/* the store, --junit, --fail-on (store/sink.h); never a document that broke its schema */
	struct sink_opts sink = o->sink;
	sink.verbose = o->verbose;
	return sink_finish(&sink, "rate", self ? NULL : rc->doc, e ? NULL : o->output_file, exit_code_for(e));
}

int cmd_rate(int argc, char **argv)
{
	struct rate_cmd rc;
	memset(&rc, 0, sizeof rc);
	int r = rate_parse(argc, argv, &rc.o, &rc.parser);
	if (!r && !(r = rate_load_policy(&rc)) && !(r = rate_gather(&rc))) {
		rate_execute(&rc);
		r = rate_write(&rc);
	}
	rate_cmd_release(&rc);
	return r < 0 ? EXIT_OK : r; /* < 0: --help */
}
