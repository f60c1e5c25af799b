/* Fuzz the result-document loader (rate and accept read what users hand in). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "evidence/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *v = json_loadb((const char *)data, size, 0, &je);
	if (!v)
		return 0;
	struct ev_set s;
	ev_init(&s);
	char *err = NULL;
	int rc = ev_add_json(&s, v, "fuzz", &err);
	if ((rc == 0) != (err == NULL))
		abort();
	size_t pos = 0, n = 0;
	const struct ev_row *r;
	double x;
	while ((r = ev_next(&s, "*", &pos))) {
		if (!r->id || r->status >= ST__COUNT)
			abort();
		(void)ev_number(r->observed, "a.0.b", &x);
		n++;
	}
	if (n != s.nrows)
		abort();
	free(err);
	ev_free(&s);
	return 0;
}
