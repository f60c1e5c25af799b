/* Fuzz the attestation loader (`cmax rate --attestation FILE`): any YAML or
 * JSON either validates or is refused with one message, never a crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/yamljson.h"
#include "rate/attest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	json_t *v = yamljson_loadb((const char *)data, size, &err);
	free(err);
	err = NULL;
	if (!v)
		return 0;
	struct attest a;
	int rc = attest_from_json(&a, v, "fuzz", &err);
	if ((rc == 0) != (err == NULL) || (err && strchr(err, '\n')))
		abort();
	for (size_t i = 0; rc == 0 && i < a.nv; i++)
		if (!a.v[i].f || !a.v[i].value || json_is_null(a.v[i].value) || attest_get(&a, a.v[i].f->path) == NULL)
			abort();
	free(err);
	attest_free(&a);
	return 0;
}
