/* Rendering of a cmax sla run: the JSON document (schema cmax.sla/1) and
 * the text report (report.c). */
#ifndef CMAX_SLA_REPORT_H
#define CMAX_SLA_REPORT_H
#include <stdio.h>
#include "sla/engine.h"

struct sla_run {
	const struct sla_layout *l;
	const struct sla_events *ev;
	const struct sla_windows *w;
	const struct sla_policy *pol;
	const struct sla_result *res;		/* the chosen level */
	struct sla_result *const *all;		/* every level of the policy, for the comparison; may be NULL */
	size_t nall;
	json_t *inputs;		/* [{file, format, records, used, irrelevant, malformed, notes, covers}] */
	const char *period_label;
	double price;		/* per GPU-hour; < 0 when not given */
	int verbose;
};

json_t *sla_report_json(const struct sla_run *r);
void sla_report_text(const struct sla_run *r, FILE *f);
/* 1 when an input has malformed records, an unknown node or an unmapped state. */
int sla_report_input_problems(const struct sla_run *r);
#endif
