/* Fuzz the version orderings: the input splits at the first newline into
 * two versions. Both orderings must be antisymmetric and reflexive, which
 * catches asymmetric tie-breaks as well as crashes. */
#include "policy/version.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sign(int x)
{
	return x < 0 ? -1 : x > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t la = nl ? (size_t)(nl - (const char *)data) : size;
	char *a = malloc(la + 1), *b;
	char mm[VER_MM_MAX];
	struct ver va, vb;
	int r1, r2;

	if (!a)
		return 0;
	memcpy(a, data, la);
	a[la] = 0;
	b = nl ? strndup(nl + 1, size - la - 1) : strdup("");
	if (!b) {
		free(a);
		return 0;
	}
	/* bytes after an embedded NUL are simply not seen, like a C caller */
	if (ver_compare(a, b, &r1) == 0) {
		if (ver_compare(b, a, &r2) != 0 || sign(r1) != -sign(r2))
			abort();
		if (ver_compare(a, a, &r2) != 0 || r2 != 0)
			abort();
	}
	if (ver_parse(a, &va) == 0) {
		char *g = ver_graded_form(a);

		/* the graded form must grade the same */
		if (!g || ver_parse(g, &vb) != 0 || ver_cmp(&va, &vb) != 0)
			abort();
		free(g);
		if (!ver_major_minor(a, mm) || ver_major(a) < 0)
			abort();
	}
	if (sign(dpkg_version_cmp(a, b)) != -sign(dpkg_version_cmp(b, a)))
		abort();
	if (dpkg_version_cmp(a, a) != 0 || dpkg_version_cmp(b, b) != 0)
		abort();
	free(a);
	free(b);
	return 0;
}
