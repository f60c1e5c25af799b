#include "core/selfcheck.h"
#include "core/exitcodes.h"
#include "core/policyfile.h"
#include <stdio.h>
#include <stdlib.h>

enum cmax_err doc_selfcheck(const json_t *doc, const char *schema, const char *who)
{
	char *err = NULL, *label = NULL;
	if (asprintf(&label, "the %s document", schema) < 0)
		label = NULL;
	enum cmax_err rc = policy_validate(doc, schema, label ? label : schema, &err);
	if (rc != CE_OK) {
		fprintf(stderr,
			"cmax %s: internal error: %s does not match docs/schema/%s.schema.json, so it was not "
			"written (%s); please report this with the command line\n",
			who, label ? label : schema, schema, err ? err : "?");
		rc = CE_INTERNAL;
	}
	free(err);
	free(label);
	return rc;
}
