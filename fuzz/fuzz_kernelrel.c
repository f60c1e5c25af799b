/* Fuzz the kernel release parser: the input splits at newlines into the
 * release, /proc/version_signature and /proc/version. A parsed release
 * must have a series that prefixes it and a distribution build. */
#include "parse/kernelrel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *field(const uint8_t **p, const uint8_t *end)
{
	if (*p > end)
		return NULL;
	const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	char *s = strndup((const char *)*p, n);
	*p += n + 1;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	char *rel = field(&p, end), *sig = field(&p, end), *pv = field(&p, end);
	struct kernel_rel k;
	if (rel && kernelrel_parse(rel, sig, pv, &k) == 0) {
		char want[32];
		snprintf(want, sizeof want, "%d.%d", k.major, k.minor);
		if (!k.format || strcmp(want, k.series) || strncmp(rel, k.series, strlen(k.series)) || !k.distro ||
		    !k.flavour)
			abort();
		if (k.upstream && strncmp(k.upstream, k.series, strlen(k.series)))
			abort();
		kernelrel_release(&k);
	}
	free(rel);
	free(sig);
	free(pv);
	return 0;
}
