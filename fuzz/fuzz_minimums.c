/* Fuzz the minimum-table reader: any bytes go to minimums_parse(); a table
 * that parses is graded with fixed versions and with slices of the input,
 * so the grading paths see values the table itself makes up. */
#include "policy/minimums.h"
#include "core/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const versions[] = {
	"580.95.05", "610.1", "470.1", "1.1.12", "1.5.0-rc.2", "0.0.9", "28.39.1002",
	"16.27.1", "25.10.3", "1.7.21", "26.3", "6.8.0-110-generic", "6.8.0-87.87",
	"1:8.2.2+ds-0ubuntu1.4", "6.4.1", "v29.7.0-rc.1", "", "garbage", NULL,
};

static const char *const qualifiers[] = {
	"MI300X", "AMD Instinct MI300A", "GA", "LTS25", "linuxFragnesia", "linuxVmscape", "qemu",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct minimums *m;
	struct mv_verdict v;
	char *err = NULL, *head, *tail;
	const char *nl;
	json_t *names, *meta;
	size_t i, n;

	m = minimums_parse((const char *)data, size, &err);
	if (!m) {
		/* the error must be one printable line */
		if (!err || strchr(err, '\n'))
			abort();
		free(err);
		return 0;
	}
	/* slices of the input become versions and qualifiers too */
	head = xstrndup((const char *)data, size < 24 ? size : 24);
	nl = memchr(data, '\n', size);
	tail = nl ? xstrndup(nl + 1, size - (size_t)(nl + 1 - (const char *)data)) : xstrdup("");
	names = minimums_component_names(m);
	n = json_array_size(names);
	for (i = 0; i < n; i++) {
		const char *c = json_string_value(json_array_get(names, i));

		for (size_t j = 0; j < sizeof(versions) / sizeof(versions[0]); j++) {
			for (size_t q = 0; q <= sizeof(qualifiers) / sizeof(qualifiers[0]); q++) {
				const char *qual = q ? qualifiers[q - 1] : NULL;

				minimums_grade(m, c, versions[j], qual, 1780000000, &v);
				if (!v.detail || !mv_status_name(v.status))
					abort();
				mv_verdict_free(&v);
			}
		}
		minimums_grade(m, c, head, tail, 1780000000, &v);
		mv_verdict_free(&v);
		minimums_grade(m, c, tail, head, 0, &v);
		mv_verdict_free(&v);
	}
	minimums_grade(m, head, "1.0", NULL, 0, &v);
	mv_verdict_free(&v);
	meta = minimums_meta(m, 1780000000);
	json_decref(meta);
	minimums_stale(m, 0);
	json_decref(names);
	free(head);
	free(tail);
	minimums_free(m);
	return 0;
}
