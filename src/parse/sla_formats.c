/* The table of cmax sla history parsers (parse/sla_formats.h): names,
 * detection by walking the table, and parsing one buffer through its
 * format's entry. */
#include "parse/sla_formats.h"
#include "parse/sla_parse_util.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Detection order. A slurmctld log can start with '[' like JSON: its entry
 * comes before the JSON formats, whose documents it never claims; sacctmgr
 * and CSV come before it, as a log is only recognised by its lines'
 * stamps. Among the JSON formats a document's own schema wins over a
 * Kubernetes kind. */
static const struct sla_parser *const parsers[] = {
	&sla_parser_sacctmgr, &sla_parser_csv, &sla_parser_slurmctld, &sla_parser_timeline,
	&sla_parser_json, &sla_parser_k8s_events, &sla_parser_k8s_nodes,
};
#define NPARSERS (sizeof parsers / sizeof *parsers)

static const struct sla_parser *parser_of(enum sla_format f)
{
	for (size_t i = 0; i < NPARSERS; i++)
		if (parsers[i]->format == f)
			return parsers[i];
	return NULL;
}

const char *const sla_format_names[SF__COUNT + 1] = {
	"auto", "sacctmgr", "slurmctld-log", "k8s-events", "k8s-nodes", "cmax-timeline", "csv", "json", NULL,
};

const char *sla_format_name(enum sla_format f)
{
	return (unsigned)f < SF__COUNT ? sla_format_names[f] : "?";
}

int sla_format_parse(const char *s, enum sla_format *f)
{
	for (int i = 0; i < SF__COUNT; i++)
		if (s && !strcmp(s, sla_format_names[i])) {
			*f = (enum sla_format)i;
			return 0;
		}
	return -1;
}

void sla_parse_init(struct sla_parse *p, const char *file, struct sla_events *out, sla_ms offset_ms)
{
	memset(p, 0, sizeof *p);
	p->file = file;
	p->out = out;
	p->offset_ms = offset_ms;
	p->malformed = json_array();
	p->notes = json_array();
	p->first = p->last = SLA_NOTIME;
}

void sla_parse_release(struct sla_parse *p)
{
	json_decref(p->malformed);
	json_decref(p->notes);
	p->malformed = p->notes = NULL;
}

/* When no entry claims a document that starts like JSON, why. */
static const char *json_why(const json_t *doc)
{
	if (!doc)
		return "looks like JSON but does not parse";
	const json_t *items = json_object_get(doc, "items");
	if (json_is_array(items) && json_array_size(items) == 0)
		return "a Kubernetes list with no items: say which with --format k8s-events or k8s-nodes";
	return "JSON, but none of the documents cmax sla reads (cmax.sla-events/1, kubectl get events / nodes "
	       "-o json, cmax inject / reboot-test --json)";
}

enum sla_format sla_detect(const char *buf, size_t len, const char **why)
{
	struct sla_sniff s = { .text = buf, .end = buf + len };
	while (s.text < s.end && isspace((unsigned char)*s.text))
		s.text++;
	*why = NULL;
	if (s.text == s.end) {
		*why = "the file is empty";
		return SF_UNKNOWN;
	}
	const char *nl = memchr(s.text, '\n', (size_t)(s.end - s.text));
	s.line = s.text;
	s.line_len = (size_t)((nl ? nl : s.end) - s.text);
	char *lower = xstrndup(s.line, s.line_len);
	for (char *c = lower; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	s.lower = lower;
	s.json = *s.text == '{' || *s.text == '[';
	if (s.json) {
		json_error_t je;
		s.doc = json_loadb(s.text, (size_t)(s.end - s.text), 0, &je);
	}
	enum sla_format f = SF_UNKNOWN;
	for (size_t i = 0; i < NPARSERS && f == SF_UNKNOWN; i++)
		if (parsers[i]->detect(&s))
			f = parsers[i]->format;
	if (f == SF_UNKNOWN)
		*why = s.json ? json_why(s.doc)
			      : "not a format cmax sla reads (sacctmgr -P, slurmctld log, kubectl JSON, cmax timeline, "
				"CSV with a node,start,end header, JSON events)";
	json_decref(s.doc);
	free(lower);
	return f;
}

int sla_parse_buffer(enum sla_format f, const char *buf, size_t len, struct sla_parse *p, char **err)
{
	const struct sla_parser *x = parser_of(f);
	if (!x) {
		*err = xstrdup("no format");
		return -1;
	}
	size_t first = p->out->n;
	int rc = x->parse(buf, len, p, err);
	/* every format's records pass the same test, whatever its parser checked */
	if (rc == 0)
		sla_drop_insane(p, first);
	return rc;
}
