/* The rating rubric (data/rubric.json, docs/rate.md): ten categories of
 * weighted items, the tier ladder with its score and confidence bars, the
 * quick disqualifiers with the tier each one caps, and the goodput
 * assumptions. Loading validates everything once so that scoring never has
 * to doubt a field; strings are borrowed from the kept document. */
#ifndef CMAX_RATE_RUBRIC_H
#define CMAX_RATE_RUBRIC_H
#include "core/error.h"
#include <stddef.h>
#include <jansson.h>

#include "core/result.h"

#define RUBRIC_SCHEMA "cmax.rubric/1"
#define RATE_NCAT 10

/* The method's ladder, best first. Rated tiers are 0..5; a disqualifier can
 * cap down to TIER_UNDERPERFORMING; TIER_UNAVAILABLE is never a cap. */
enum tier {
	TIER_PLATINUM,
	TIER_GOLD,
	TIER_SILVER,
	TIER_BRONZE,
	TIER_RIBBON,
	TIER_UNDERPERFORMING,
	TIER_UNAVAILABLE,
	TIER__COUNT
};
#define TIER_NRATED 5 /* Platinum .. Participation Ribbon carry thresholds */

const char *tier_name(enum tier t);
int tier_parse(const char *s, enum tier *out);

enum item_kind { IK_CHECKS, IK_FIGURE, IK_ATTEST };
enum item_agg { AGG_MEAN, AGG_WORST, AGG_BEST };
enum fig_from { FROM_ROW, FROM_DOCUMENT, FROM_EVENT };
enum att_mode { AM_MAP, AM_SCALE, AM_COVERS };

/* The anchors a figure is scored against. An item without a "platforms"
 * block has one, from its own good/bad; with one, each platform named in
 * the row's document (platforms.path, else platforms.default) has its own. */
struct r_anchor {
	const char *platform; /* NULL: the item's own anchors */
	double good, bad;     /* linear: 100 at good or better, 0 at bad or worse */
	double floor;	      /* a measured value never scores below this (0 default) */
	int has_absent;
	double absent_score; /* no value, but absent_if holds a number: this score */
	const char *absent_if;
	const char *absent_why; /* shown when it applies */
};

struct r_item {
	const char *id;   /* "category.item" (malloc'd) */
	const char *key;  /* the item's own id inside its category */
	const char *name;
	const char *note; /* may be NULL */
	enum item_kind kind;
	double weight;
	/* checks and figures: row id globs, minus exclusions */
	const char **rows;
	size_t nrows;
	const char **exclude;
	size_t nexclude;
	enum item_agg agg;
	/* figures */
	enum fig_from from;
	const char *path;  /* dotted path in the row (observed.x) or the document */
	const char *event; /* FROM_EVENT: the event name whose offset_s is the figure */
	struct r_anchor *anchors; /* one without platforms, else one per platform */
	size_t nanchors;
	const char *platform_path;    /* document path of the platform name (NULL: no platforms) */
	const struct r_anchor *dflt; /* the anchors of a document that names no platform */
	double good, bad;	      /* attestation AM_SCALE only */
	const char *unit;
	int has_numerator;
	double numerator;  /* figure = numerator / raw (a size over a rate = a time) */
	int fail_is_never; /* a FAIL row without the figure counts as "never" (score 0) */
	/* attestation */
	const char **fields;
	size_t nfields;
	enum att_mode amode;
	const json_t *map; /* AM_MAP: value ("true"/"false"/enum) -> score 0..100 */
	const char **required; /* AM_COVERS */
	size_t nrequired;
	int count; /* AM_SCALE over the length of a list */
};

struct r_category {
	const char *id, *name;
	double weight;
	struct r_item *items;
	size_t nitems;
};

struct r_tier {
	double min_score, min_confidence;
};

enum dq_kind { DQ_ROWS, DQ_ATTEST_ALL_FALSE, DQ_ATTEST_ANY_TRUE, DQ_GPU_GENERATION };

struct r_disq {
	const char *id, *name, *note;
	enum dq_kind kind;
	enum tier cap;
	const char **rows; /* DQ_ROWS, DQ_GPU_GENERATION (rows holding GPU models) */
	size_t nrows;
	int on_status[ST__COUNT]; /* DQ_ROWS: statuses that apply it (default FAIL) */
	const char **fields; /* DQ_ATTEST_*, DQ_GPU_GENERATION (gpus_offered) */
	size_t nfields;
	const char **current; /* DQ_GPU_GENERATION: accepted model keys */
	size_t ncurrent;
};

/* Goodput figures: each names rubric figure items, the first with a value wins. */
enum gp_fig { GPF_IMPORT, GPF_MODEL_LOAD, GPF_DETECT, GPF_RECOVERY, GPF_DEGRADATION, GPF__COUNT };

struct r_goodput {
	double gpus, gpus_per_node, job_starts_per_day, failures_per_month, storage_bound_fraction,
		hours_per_month;
	const char *note;
	const char **figs[GPF__COUNT];
	size_t nfigs[GPF__COUNT];
};

struct rubric {
	json_t *root; /* owned; every const char * above points into it */
	char *path;
	const char *version, *method, *note;
	double status_score[ST__COUNT]; /* PASS 1, WARN 0.5, FAIL 0; SKIP/ERROR unused */
	/* A row measured in quick mode (small sizes, short runs) counts this
	 * much of a full row toward confidence (0..1; 1 when the rubric has no
	 * "quick" block), and never toward goodput. */
	double quick_confidence;
	struct r_category cats[RATE_NCAT];
	struct r_tier tiers[TIER_NRATED];
	double unavail_min_confidence;
	int unavail_min_categories;
	int unavail_min_measured; /* categories with hands-on (not attested) evidence */
	struct r_disq *dq;
	size_t ndq;
	struct r_goodput gp;
};

extern const char *const rate_category_ids[RATE_NCAT];

/* Parse and validate (steals root). 0, or CE_DATA with a malloc'd
 * one-line *err naming label and the offending field. */
enum cmax_err rubric_from_json(struct rubric *rb, json_t *root, const char *label, char **err);
/* A YAML or JSON file: 0, CE_NOINPUT (missing) or CE_DATA. */
enum cmax_err rubric_load(struct rubric *rb, const char *path, char **err);
void rubric_free(struct rubric *rb);

const struct r_item *rubric_item(const struct rubric *rb, const char *id, size_t *cat, size_t *idx);
#endif
