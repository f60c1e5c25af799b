#include "selfcheck.h"
#include "exitcodes.h"
#include "policyfile.h"
#include <stdio.h>
#include <stdlib.h>

int doc_selfcheck(const json_t *doc, const char *schema, const char *who)
{
	char *err = NULL, *label = NULL;
	if (asprintf(&label, "the %s document", schema) < 0)
		label = NULL;
	int rc = policy_validate(doc, schema, label ? label : schema, &err);
	if (rc != 0) {
		fprintf(stderr,
			"cmax %s: internal error: %s does not match docs/schema/%s.schema.json, so it was not "
			"written (%s); please report this with the command line\n",
			who, label ? label : schema, schema, err ? err : "?");
		rc = EXIT_SOFTWARE;
	}
	free(err);
	free(label);
	return rc;
}
