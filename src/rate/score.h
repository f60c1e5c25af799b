/* Scoring: rubric + evidence + attestation -> category scores, confidence,
 * tier, disqualifiers and the goodput estimate. Pure: no I/O, no clock.
 * Missing evidence lowers confidence and is shown as missing; it never
 * scores as bad. */
#ifndef CMAX_RATE_SCORE_H
#define CMAX_RATE_SCORE_H
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "evidence/evidence.h"
#include "rate/attest.h"
#include "rate/rubric.h"

/* Duplicate evidence: the same row id, host (and fault, for injections) in
 * two documents. The newer document wins; equal or unknown times: the one
 * loaded later. */
struct rate_dup {
	const struct ev_row *kept, *dropped;
};
/* active[i] (s->nrows entries) is set to 0 for rows that lost; returns the
 * malloc'd list of pairs (NULL when none) and its length in *n. */
struct rate_dup *rate_dedup(const struct ev_set *s, unsigned char *active, size_t *n);

struct ev_use {
	const struct ev_row *row;
	int counted;   /* graded status (checks) or a figure value (figures) */
	int has_value; /* figures: value read */
	int never;     /* figures: a FAIL without the figure, counted as never */
	int absent;    /* figures: no value, the anchor's absent_score applies */
	double value;  /* after the numerator transform */
	double score;  /* figures: this row's score against its anchors */
	const struct r_anchor *anchor; /* figures: the anchors that applied (its platform's) */
	const char *malformed;	       /* the row holds malformed evidence: not scored (why) */
	int quick;		       /* measured in quick mode */
};

struct item_res {
	const struct r_item *it;
	int has_evidence;
	double score;  /* 0..100 when has_evidence */
	/* 0..1: how much of the item's weight counts toward confidence: 1 for
	 * full evidence, the rubric's quick factor for rows measured in quick
	 * mode (the mean over the rows counted); 0 without evidence */
	double confidence;
	int has_value; /* figures: the aggregate */
	int never;
	int absent; /* figures: scored as absent (its anchor's absent_score) */
	double value;
	const struct ev_row *value_row; /* the row the aggregate came from */
	const struct r_anchor *anchor;	/* figures: the anchors of that row */
	const struct ev_use *gp;	/* figures: the same aggregate over full-mode rows only (goodput) */
	size_t quick;			/* rows counted that were measured in quick mode */
	size_t nmalformed;		/* rows not scored: malformed evidence */
	struct ev_use *uses;
	size_t nuses;
	const struct att_value *att; /* attestation: the field that scored (best of fields) */
	char *detail;		     /* one line: what was counted, or why nothing was */
};

struct cat_res {
	const struct r_category *c;
	struct item_res *items;
	int has_score;
	double score, confidence; /* 0..100, 0..1 */
	size_t counted, missing;
};

enum dq_state { DQS_NOT_ASSESSED, DQS_CLEAR, DQS_APPLIED };
struct dq_res {
	const struct r_disq *d;
	enum dq_state state;
	char *why;
	enum tier would; /* applied: the tier without this one (the other applied caps still hold) */
};

/* A row that holds malformed evidence: named, never scored. */
struct rate_bad {
	const struct ev_row *row;
	char *path; /* where in the row or its document ("observed.cold_s", "timeline.times.detect_s") */
	char *why;
};

/* Goodput assumptions: rubric defaults, replaced by flags (and the price by
 * the attestation); each remembers where it came from. */
enum gp_asm { GPA_GPUS, GPA_GPUS_PER_NODE, GPA_JOB_STARTS, GPA_FAILURES, GPA_STORAGE_FRACTION, GPA_HOURS, GPA_PRICE,
	      GPA__COUNT };
struct gp_assume {
	double v[GPA__COUNT];
	int set[GPA__COUNT];	     /* GPA_PRICE may be unset (no price known) */
	const char *src[GPA__COUNT]; /* "rubric", "flag", "attestation" */
	const char *currency;
};
extern const char *const gp_asm_names[GPA__COUNT];
void gp_assume_from_rubric(struct gp_assume *a, const struct rubric *rb, const struct attest *att);

/* GPS_NOT_COUNTED: a figure exists but may not become a loss (it came
 * from a quick run only, or the anchors scored it as absent) */
enum gp_state { GPS_MEASURED, GPS_NOT_MEASURED, GPS_UNBOUNDED, GPS_NOT_COUNTED };
enum gp_cause { GPC_IMPORT, GPC_MODEL_LOAD, GPC_DETECT, GPC_RECOVERY, GPC_STORAGE, GPC__COUNT };
struct gp_line {
	enum gp_cause cause;
	enum gp_state state;
	double hours, pct; /* GPU-hours per month, % of the month's rent */
	double money;	   /* when the price is known */
	const struct item_res *fig[2];
	const struct ev_use *use[2]; /* the rows the figures came from (NULL: none) */
	char *inputs; /* the formula with its numbers */
	char *note;   /* may be NULL */
};
extern const char *const gp_cause_names[GPC__COUNT];
extern const char *const gp_cause_formulas[GPC__COUNT];

struct rate_result {
	const struct rubric *rb;
	const struct attest *att;
	struct cat_res cats[RATE_NCAT];
	int has_score;
	double score, confidence;
	int ncats;		  /* categories with evidence */
	int nmeasured;		  /* of those, with hands-on evidence (checks or figures) */
	enum tier tier, uncapped; /* uncapped: before the disqualifiers */
	char *tier_reason;
	struct dq_res *dq;
	size_t ndq;
	struct gp_assume as;
	struct gp_line gp[GPC__COUNT];
	double gp_hours, gp_pct, gp_money;
	int gp_lower_bound; /* some cause unbounded or not measured */
	int gp_measured;    /* how many causes had a figure */
	struct rate_bad *bad; /* rows holding malformed evidence, in load order */
	size_t nbad;
	const char **row_bad; /* per row of the set: NULL, or the why of its bad entry */
};

struct rate_input {
	const struct rubric *rb;
	const struct ev_set *ev;
	const unsigned char *active; /* NULL: every row counts */
	const struct attest *att;    /* NULL: no attestation */
	const json_t *gpu_models;    /* data/gpu-models.json, may be NULL */
	struct gp_assume as;
};

void rate_compute(const struct rate_input *in, struct rate_result *out);
void rate_result_free(struct rate_result *r);

/* Linear score between good (100) and bad (0), clamped. */
double rate_linear(double v, double good, double bad);

/* Rendering (render.c). provider may be NULL. */
struct rate_doc_meta {
	const char *provider;
	const struct ev_set *ev;
	const struct rate_dup *dups;
	size_t ndups;
	const char *const *notes; /* input notes (files skipped in a directory) */
	size_t nnotes;
};
json_t *rate_to_json(const struct rate_result *r, const struct rate_doc_meta *m);
void rate_text(FILE *out, const struct rate_result *r, const struct rate_doc_meta *m, int verbose);
/* Several providers: rank (tier, then score, then confidence) and print. */
struct rate_provider {
	const char *name;
	struct rate_result res;
	json_t *doc; /* rate_to_json of res */
	int rank;
	int cat_rank[RATE_NCAT]; /* 0 when the category has no evidence */
};
void rate_rank(struct rate_provider *p, size_t n);
json_t *rate_compare_json(const struct rate_provider *p, size_t n, const struct rubric *rb);
void rate_compare_text(FILE *out, const struct rate_provider *p, size_t n, const struct rubric *rb, int verbose);
#endif
