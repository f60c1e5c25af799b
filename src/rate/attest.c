/* Attestation files (see attest.h and docs/rate.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exitcodes.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "core/timefmt.h"
#include "core/yamljson.h"
#include "rate/attest.h"

static const char *const hours_values[] = { "24x7", "business_hours", "none", NULL };
static const char *const sla_values[] = { "none", "bronze", "silver", "gold", NULL };
static const char *const partner_values[] = { "none", "partner", "preferred", NULL };

/* The one list of what an attestation may state; the rubric's attestation
 * items and disqualifiers are validated against it too. The upper bounds
 * of the numbers are declared: a year of minutes for a first response, a
 * million per GPU-hour (the --price-per-gpu-hour limit), a century of
 * months or days, a billion GPUs; beyond them a statement is a typo. */
static const struct att_field fields[] = {
	{ "certifications.soc2_type2", AT_BOOL, NULL, "a current SOC 2 Type II report", 0 },
	{ "certifications.iso27001", AT_BOOL, NULL, "a current ISO/IEC 27001 certificate", 0 },
	{ "certifications.other", AT_LIST, NULL, "other certifications (free text)", 0 },
	{ "support.response_minutes", AT_NUMBER, NULL, "first human response to a P1 ticket, minutes", 525600 },
	{ "support.hours", AT_ENUM, hours_values, "support hours", 0 },
	{ "support.channels", AT_LIST, NULL, "support channels (shared Slack, ticket, phone, ...)", 0 },
	{ "pricing.price_per_gpu_hour", AT_NUMBER, NULL, "price per GPU-hour of the rated offer", 1e6 },
	{ "pricing.currency", AT_STRING, NULL, "currency of the price (e.g. USD)", 0 },
	{ "pricing.commitment_months_min", AT_NUMBER, NULL, "shortest commitment offered, months (0 = on demand)", 1200 },
	{ "pricing.public_price", AT_BOOL, NULL, "the price is published", 0 },
	{ "billing.during_creation", AT_BOOL, NULL, "GPU-hours are billed while the cluster is being created", 0 },
	{ "billing.during_downtime", AT_BOOL, NULL, "GPU-hours are billed while hardware is down", 0 },
	{ "availability.days_to_delivery", AT_NUMBER, NULL, "days from signature to a usable cluster", 36500 },
	{ "availability.delivery_date", AT_DATE, NULL, "the delivery date promised (YYYY-MM-DD)", 0 },
	{ "availability.delivered_on_time", AT_BOOL, NULL, "the cluster was delivered by the promised date", 0 },
	{ "availability.capacity_gpus", AT_NUMBER, NULL, "GPUs available to one customer on short notice", 1e9 },
	{ "contract.sla_offered", AT_BOOL, NULL, "an SLA with service credits is offered", 0 },
	{ "contract.sla_level", AT_ENUM, sla_values, "SLA level offered", 0 },
	{ "contract.termination_rights", AT_BOOL, NULL, "the buyer may terminate below an availability threshold", 0 },
	{ "contract.acceptance_tests", AT_BOOL, NULL, "acceptance tests with a retest rule are in the contract", 0 },
	{ "partnerships.nvidia", AT_ENUM, partner_values, "NVIDIA partnership (cloud partner program)", 0 },
	{ "partnerships.amd", AT_ENUM, partner_values, "AMD partnership", 0 },
	{ "partnerships.open_source", AT_BOOL, NULL, "contributes upstream (schedulers, operators, NCCL plugins)", 0 },
	{ "partnerships.other", AT_LIST, NULL, "other partnerships (free text)", 0 },
	{ "monitoring.dashboard", AT_BOOL, NULL, "a Grafana-style dashboard is given to the customer", 0 },
	{ "monitoring.dashboard_shows", AT_LIST, NULL,
	  "what the dashboard shows (failing_component, affected_jobs, scheduler_state, check_last_run, ...)", 0 },
	{ "gpus_offered", AT_LIST, NULL, "GPU models on offer (B200, GB200, H100, ...)", 0 },
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static const char *const sections[] = { "certifications", "support", "pricing", "billing", "availability",
					"contract", "partnerships", "monitoring", NULL };
static const char *const meta_keys[] = { "schema", "provider", "date", "cluster", "collected_by", "notes", NULL };

const struct att_field *att_field_find(const char *path)
{
	for (size_t i = 0; path && i < NFIELDS; i++)
		if (!strcmp(fields[i].path, path))
			return &fields[i];
	return NULL;
}

const struct att_field *att_fields(size_t *n)
{
	*n = NFIELDS;
	return fields;
}

static int in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return 1;
	return 0;
}

static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "a mapping";
	case JSON_ARRAY: return "a list";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "true/false";
	default: return "null";
	}
}

static int valid_date(const char *s)
{
	return time_parse_day(s) >= 0;
}

/* NULL when v fits f, else a malloc'd reason. */
static char *type_error(const struct att_field *f, const json_t *v)
{
	switch (f->type) {
	case AT_BOOL:
		if (json_is_boolean(v))
			return NULL;
		return xasprintf("expected true or false, got %s", json_kind(v));
	case AT_NUMBER:
		if (!json_is_number(v))
			return xasprintf("expected a number, got %s", json_kind(v));
		if (!isfinite(json_number_value(v)) || json_number_value(v) < 0)
			return xasprintf("expected a number of 0 or more, got %g", json_number_value(v));
		/* a statement beyond any real offer is a typo or a broken file, not a figure to score */
		if (f->max > 0 && json_number_value(v) > f->max)
			return xasprintf("expected a number from 0 to %g, got %g", f->max, json_number_value(v));
		return NULL;
	case AT_STRING:
		return json_is_string(v) ? NULL : xasprintf("expected a string, got %s", json_kind(v));
	case AT_DATE:
		if (!json_is_string(v))
			return xasprintf("expected a date YYYY-MM-DD, got %s", json_kind(v));
		return valid_date(json_string_value(v)) ? NULL
							: xasprintf("expected a date YYYY-MM-DD, got '%s'", json_string_value(v));
	case AT_ENUM: {
		if (json_is_string(v) && in_list(f->values, json_string_value(v)))
			return NULL;
		struct strbuf sb = STRBUF_INIT;
		for (const char *const *p = f->values; *p; p++)
			sb_addf(&sb, "%s%s", p == f->values ? "" : ", ", *p);
		char *e = json_is_string(v) ? xasprintf("expected one of %s, got '%s'", sb_str(&sb), json_string_value(v))
					    : xasprintf("expected one of %s, got %s", sb_str(&sb), json_kind(v));
		sb_free(&sb);
		return e;
	}
	case AT_LIST: {
		if (!json_is_array(v))
			return xasprintf("expected a list of strings, got %s", json_kind(v));
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
			if (!json_is_string(x) || !*json_string_value(x))
				return xasprintf("expected a list of strings, item %zu is %s", i + 1,
						 json_is_string(x) ? "empty" : json_kind(x));
		return NULL;
	}
	}
	return NULL;
}

static char *errf(const char *label, const char *key, const char *why)
{
	return xasprintf("attestation %s: %s: %s", label, key, why);
}

static void warn(struct attest *a, const char *label, const char *fmt, const char *key)
{
	a->warnings = xrealloc(a->warnings, (a->nwarnings + 1) * sizeof *a->warnings);
	char *what = xasprintf(fmt, key);
	a->warnings[a->nwarnings++] = xasprintf("attestation %s: %s", label, what);
	free(what);
}

/* One stated value: bare, or {value, source|evidence|note}. */
static int add_entry(struct attest *a, const struct att_field *f, const json_t *entry, const char *label,
		     char **err)
{
	const json_t *v = entry;
	const char *source = NULL;
	if (json_is_object(entry)) {
		v = json_object_get(entry, "value");
		if (!v) {
			*err = errf(label, f->path, "a mapping needs a 'value' (and optionally 'source')");
			return CE_DATA;
		}
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)entry, k, x) {
			if (!strcmp(k, "value"))
				continue;
			if (!strcmp(k, "source") || !strcmp(k, "evidence") || !strcmp(k, "note")) {
				if (!json_is_string(x) && !json_is_null(x)) {
					char *why = xasprintf("'%s' must be a string, got %s", k, json_kind(x));
					*err = errf(label, f->path, why);
					free(why);
					return CE_DATA;
				}
				if (!source && json_is_string(x))
					source = json_string_value(x);
				continue;
			}
			char *full = xasprintf("%s.%s", f->path, k);
			warn(a, label, "unknown key '%s' ignored", full);
			free(full);
		}
	}
	if (json_is_null(v))
		return 0; /* stated as unknown: the same as not stated */
	char *why = type_error(f, v);
	if (why) {
		*err = errf(label, f->path, why);
		free(why);
		return CE_DATA;
	}
	a->v = xrealloc(a->v, (a->nv + 1) * sizeof *a->v);
	a->v[a->nv].f = f;
	a->v[a->nv].value = v;
	a->v[a->nv].source = source;
	a->nv++;
	return 0;
}

enum cmax_err attest_from_json(struct attest *a, json_t *root, const char *label, char **err)
{
	memset(a, 0, sizeof *a);
	*err = NULL;
	a->root = root;
	a->path = xstrdup(label);
	if (!json_is_object(root)) {
		*err = xasprintf("attestation %s: expected a mapping at the top, got %s", label, json_kind(root));
		return CE_DATA;
	}
	const char *k;
	json_t *x;
	json_object_foreach(root, k, x) {
		if (in_list(meta_keys, k)) {
			if (json_is_null(x))
				continue;
			if (!strcmp(k, "schema")) {
				if (!json_is_string(x) || strcmp(json_string_value(x), ATTEST_SCHEMA)) {
					*err = errf(label, k, "expected " ATTEST_SCHEMA);
					return CE_DATA;
				}
			} else if (!json_is_string(x)) {
				char *why = xasprintf("expected a string, got %s", json_kind(x));
				*err = errf(label, k, why);
				free(why);
				return CE_DATA;
			} else if (!strcmp(k, "date") && !valid_date(json_string_value(x))) {
				char *why = xasprintf("expected a date YYYY-MM-DD, got '%s'", json_string_value(x));
				*err = errf(label, k, why);
				free(why);
				return CE_DATA;
			}
			if (!strcmp(k, "provider"))
				a->provider = json_string_value(x);
			else if (!strcmp(k, "date"))
				a->date = json_string_value(x);
			continue;
		}
		if (in_list(sections, k)) {
			if (json_is_null(x))
				continue;
			if (!json_is_object(x)) {
				char *why = xasprintf("expected a mapping of fields, got %s", json_kind(x));
				*err = errf(label, k, why);
				free(why);
				return CE_DATA;
			}
			const char *k2;
			json_t *y;
			json_object_foreach(x, k2, y) {
				char *full = xasprintf("%s.%s", k, k2);
				const struct att_field *f = att_field_find(full);
				int rc = 0;
				if (!f)
					warn(a, label, "unknown key '%s' ignored", full);
				else
					rc = add_entry(a, f, y, label, err);
				free(full);
				if (rc)
					return rc;
			}
			continue;
		}
		const struct att_field *f = att_field_find(k);
		if (!f) {
			warn(a, label, "unknown key '%s' ignored", k);
			continue;
		}
		int rc = add_entry(a, f, x, label, err);
		if (rc)
			return rc;
	}
	return 0;
}

enum cmax_err attest_load(struct attest *a, const char *path, char **err)
{
	int missing = 0;
	char *yerr = NULL;
	memset(a, 0, sizeof *a);
	json_t *root = yamljson_load_file2(path, &yerr, &missing);
	if (!root) {
		*err = xasprintf("attestation %s", yerr ? yerr : path);
		free(yerr);
		return missing ? CE_NOINPUT : CE_DATA;
	}
	return attest_from_json(a, root, path, err);
}

void attest_free(struct attest *a)
{
	if (!a)
		return;
	json_decref(a->root);
	free(a->path);
	free(a->v);
	for (size_t i = 0; i < a->nwarnings; i++)
		free(a->warnings[i]);
	free(a->warnings);
	memset(a, 0, sizeof *a);
}

const struct att_value *attest_get(const struct attest *a, const char *path)
{
	for (size_t i = 0; a && i < a->nv; i++)
		if (!strcmp(a->v[i].f->path, path))
			return &a->v[i];
	return NULL;
}
