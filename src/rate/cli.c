/* `cmax rate`: gather the result documents and the attestation, judge them
 * with the rubric (score.c), render (render.c). Only wiring lives here. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/datafile.h"
#include "core/policyfile.h"
#include "core/selfcheck.h"
#include "core/exitcodes.h"
#include "core/outfile.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "core/usage.h"
#include "rate/rate.h"
#include "rate/score.h"
#include "report/report.h"

static void usage(FILE *out)
{
	fputs("usage: cmax rate [options] FILE|DIR...\n"
	      "       cmax rate --compare [options] DIR|FILE DIR|FILE...\n"
	      "\n"
	      "Scores the ten categories of the ClusterMAX method from cmax result documents\n"
	      "(audit, bench, inject, reboot-test JSON; a DIR is an audit run directory or a\n"
	      "directory of result files) and an attestation of what cannot be measured, gives\n"
	      "the tier, the disqualifiers that cap it, and the GPU-hours lost to waiting.\n"
	      "Missing evidence lowers confidence; it never counts as bad.\n"
	      "\n"
	      "Inputs:\n"
	      "      --attestation FILE     attestation (YAML or JSON; default: attestation.yaml,\n"
	      "                             .yml or .json inside a DIR given)\n"
	      "      --rubric FILE          another rubric (default: data/rubric.json)\n"
	      "      --provider NAME        name shown for the provider (default: the attestation's)\n"
	      "      --compare              each argument is one provider's evidence: rank them\n"
	      "\n"
	      "Goodput assumptions (defaults from the rubric's goodput section):\n"
	      "      --gpus N               GPUs rented\n"
	      "      --gpus-per-node N      GPUs lost while one node is out\n"
	      "      --job-starts-per-day N job starts that wait for imports and model loads\n"
	      "      --failures-per-month N node failures per month\n"
	      "      --storage-bound-fraction F  share of the time jobs wait on storage (0..1)\n"
	      "      --price-per-gpu-hour X price (default: the attestation's pricing.price_per_gpu_hour)\n"
	      "\n"
	      "Output:\n"
	      "      --json                 the rating as JSON (schema cmax.rate/1; cmax.rate.compare/1)\n"
	      "      --output-file PATH     also write the JSON document to PATH\n"
	      "  -v, --verbose              every item with its weight, rows and score (-vv: every row)\n"
	      "  -h, --help                 this help\n"
	      "\n"
	      "Exit status: 0 rated (any tier); 64 usage; 65 a broken result file, rubric or\n"
	      "attestation; 66 a file or directory that does not exist; 73 --output-file cannot\n"
	      "be written.\n",
	      out);
}

static int usage_error(const char *fmt, const char *arg)
{
	return usage_fail("rate", fmt, arg);
}

enum {
	O_ATT = 1000, O_RUBRIC, O_PROVIDER, O_COMPARE, O_GPUS, O_GPN, O_STARTS, O_FAILS, O_FRAC, O_PRICE, O_JSON,
	O_OUTFILE,
};

static const struct option longopts[] = {
	{ "attestation", required_argument, NULL, O_ATT },
	{ "rubric", required_argument, NULL, O_RUBRIC },
	{ "provider", required_argument, NULL, O_PROVIDER },
	{ "compare", no_argument, NULL, O_COMPARE },
	{ "gpus", required_argument, NULL, O_GPUS },
	{ "gpus-per-node", required_argument, NULL, O_GPN },
	{ "job-starts-per-day", required_argument, NULL, O_STARTS },
	{ "failures-per-month", required_argument, NULL, O_FAILS },
	{ "storage-bound-fraction", required_argument, NULL, O_FRAC },
	{ "price-per-gpu-hour", required_argument, NULL, O_PRICE },
	{ "json", no_argument, NULL, O_JSON },
	{ "output-file", required_argument, NULL, O_OUTFILE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct ropts {
	const char *attestation, *rubric, *provider, *output_file;
	int compare, json, verbose;
	double flag[GPA__COUNT];
	int flag_set[GPA__COUNT];
};

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
	int rc = attest_load(&p->att, path, &err);
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
			int r = ev_load_json(path, &root, &rerr);
			if (r)
				rc = fail(rerr, r);
		}
		if (root) {
			const char *schema = json_string_value(json_object_get(root, "schema"));
			if (schema && (!strcmp(schema, "cmax.audit.results/1") || !strcmp(schema, "cmax.bench.results/1") ||
				       !strcmp(schema, "cmax.inject/1") || !strcmp(schema, "cmax.reboot-test/1"))) {
				char *err = NULL;
				int r = ev_add_json(&p->ev, root, path, &err);
				if (r)
					rc = fail(err, r);
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

static int load_path(struct pset *p, const char *path, int want_att)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return fail(xasprintf("%s: %s", path, strerror(errno)), EXIT_NOINPUT);
	if (S_ISDIR(st.st_mode))
		return load_dir(p, path, want_att);
	char *err = NULL;
	int rc = ev_load(&p->ev, path, &err);
	return rc ? fail(err, rc) : 0;
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

static int parse_num(const char *flag, const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi) {
		fprintf(stderr, "cmax rate: %s: '%s' is not a number from %g to %g (see cmax rate --help)\n", flag, s, lo,
			hi);
		return -1;
	}
	*out = v;
	return 0;
}

static void assumptions(struct gp_assume *as, const struct ropts *o, const struct rubric *rb, const struct attest *att)
{
	gp_assume_from_rubric(as, rb, att);
	for (int i = 0; i < GPA__COUNT; i++)
		if (o->flag_set[i]) {
			as->v[i] = o->flag[i];
			as->set[i] = 1;
			as->src[i] = "flag";
		}
}

int cmd_rate(int argc, char **argv)
{
	struct ropts o;
	memset(&o, 0, sizeof o);
	static const struct {
		int opt;
		enum gp_asm a;
		double lo, hi;
	} numflags[] = {
		{ O_GPUS, GPA_GPUS, 1, 1e7 },
		{ O_GPN, GPA_GPUS_PER_NODE, 1, 1024 },
		{ O_STARTS, GPA_JOB_STARTS, 0, 1e6 },
		{ O_FAILS, GPA_FAILURES, 0, 1e6 },
		{ O_FRAC, GPA_STORAGE_FRACTION, 0, 1 },
		{ O_PRICE, GPA_PRICE, 0, 1e6 },
	};
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":vh", longopts, NULL)) != -1) {
		int handled = 0;
		for (size_t k = 0; k < sizeof numflags / sizeof numflags[0]; k++)
			if (numflags[k].opt == c) {
				char flag[64] = "--?";
				for (const struct option *lo = longopts; lo->name; lo++)
					if (lo->val == c)
						snprintf(flag, sizeof flag, "--%s", lo->name);
				if (parse_num(flag, optarg, numflags[k].lo, numflags[k].hi, &o.flag[numflags[k].a]))
					return EXIT_USAGE;
				o.flag_set[numflags[k].a] = 1;
				handled = 1;
			}
		if (handled)
			continue;
		switch (c) {
		case O_ATT: o.attestation = optarg; break;
		case O_RUBRIC: o.rubric = optarg; break;
		case O_PROVIDER: o.provider = optarg; break;
		case O_COMPARE: o.compare = 1; break;
		case O_JSON: o.json = 1; break;
		case O_OUTFILE: o.output_file = optarg; break;
		case 'v': o.verbose++; break;
		case 'h': usage(stdout); return EXIT_OK;
		case ':': return usage_error("%s needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	int nargs = argc - optind;
	char **args = argv + optind;
	if (o.compare && nargs < 2)
		return usage_error("%s needs at least two providers' evidence (one DIR or FILE each)", "--compare");
	if (o.compare && o.attestation)
		return usage_error("%s: with --compare each provider's directory holds its own attestation.yaml",
				   "--attestation");
	if (o.compare && o.provider)
		return usage_error("%s: with --compare names come from each attestation or directory", "--provider");
	if (!nargs && !o.attestation)
		return usage_error("%s", "no result files given");

	struct rubric rb;
	char *err = NULL;
	char *rpath = o.rubric ? xstrdup(o.rubric) : datafile_path("rubric.json");
	/* the schema first (core/policyfile.h); a missing file is rubric_load()'s to report */
	int rc = policy_check(rpath, "rubric", POLICY_YAML, &err);
	if (rc == EXIT_NOINPUT) {
		free(err);
		err = NULL;
		rc = 0;
	}
	if (rc) {
		free(rpath);
		return fail(err, rc);
	}
	rc = rubric_load(&rb, rpath, &err);
	free(rpath);
	if (rc) {
		rubric_free(&rb);
		return fail(err, rc);
	}
	char *gpath = datafile_path("gpu-models.json");
	json_t *gpu_models = policy_load(gpath, "gpu-models", POLICY_JSON, &rc, &err);
	free(gpath);
	if (rc == EXIT_NOINPUT) { /* without it GPU models stay unknown, as before */
		free(err);
		err = NULL;
		rc = 0;
	}
	if (rc) {
		rubric_free(&rb);
		return fail(err, rc);
	}

	size_t nsets = o.compare ? (size_t)nargs : 1;
	struct pset *sets = xcalloc(nsets, sizeof *sets);
	for (size_t i = 0; i < nsets; i++)
		ev_init(&sets[i].ev);
	if (!o.compare && o.attestation)
		rc = load_attestation(&sets[0], o.attestation);
	for (int i = 0; !rc && i < nargs; i++) {
		struct pset *p = &sets[o.compare ? (size_t)i : 0];
		rc = load_path(p, args[i], 1);
		if (o.compare && !rc) {
			p->name = xstrdup(p->has_att && p->att.provider ? p->att.provider : "");
			if (!*p->name) {
				free(p->name);
				p->name = name_of(args[i]);
			}
		}
	}
	if (!rc && o.compare)
		for (size_t i = 0; i < nsets; i++)
			for (size_t j = 0; j < i; j++)
				if (!strcmp(sets[i].name, sets[j].name)) {
					char *nn = xasprintf("%s (%zu)", sets[i].name, i + 1);
					free(sets[i].name);
					sets[i].name = nn;
				}
	json_t *doc = NULL;
	if (!rc) {
		struct rate_provider *prov = xcalloc(nsets, sizeof *prov);
		for (size_t i = 0; i < nsets; i++) {
			struct pset *p = &sets[i];
			finish_set(p);
			struct rate_input in = { .rb = &rb, .ev = &p->ev, .active = p->active,
						 .att = p->has_att ? &p->att : NULL, .gpu_models = gpu_models };
			assumptions(&in.as, &o, &rb, in.att);
			rate_compute(&in, &prov[i].res);
			const char *name = o.compare ? p->name
					   : o.provider ? o.provider
					   : p->has_att ? p->att.provider
							: NULL;
			prov[i].name = name ? name : "";
			struct rate_doc_meta m = { name, &p->ev, p->dups, p->ndups, (const char *const *)p->notes,
						   p->nnotes };
			prov[i].doc = rate_to_json(&prov[i].res, &m);
			if (!o.compare) {
				doc = json_incref(prov[i].doc);
				if (!o.json)
					rate_text(stdout, &prov[i].res, &m, o.verbose);
			}
		}
		if (o.compare) {
			rate_rank(prov, nsets);
			doc = rate_compare_json(prov, nsets, &rb);
			if (!o.json)
				rate_compare_text(stdout, prov, nsets, &rb, o.verbose);
		}
		int bad = doc_selfcheck(doc, o.compare ? "rate-compare" : "rate", "rate");
		if (bad)
			rc = bad;
		else if (o.json)
			report_json(stdout, doc);
		fflush(stdout);
		if (o.output_file && !bad)
			rc = report_json_file(o.output_file, doc, "rate");
		for (size_t i = 0; i < nsets; i++) {
			rate_result_free(&prov[i].res);
			json_decref(prov[i].doc);
		}
		free(prov);
	}
	json_decref(doc);
	for (size_t i = 0; i < nsets; i++)
		pset_free(&sets[i]);
	free(sets);
	json_decref(gpu_models);
	rubric_free(&rb);
	return rc;
}
