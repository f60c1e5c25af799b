/* Fuzz target: input is a candidate data/xid-catalog.json.  Parsing must
 * either succeed, and then every lookup works, or fail with a one-line
 * message; never crash or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xid/catalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	struct xid_catalog *c = xid_catalog_parse((const char *)data, size, &err);

	if (!c) {
		if (!err || strchr(err, '\n'))
			abort();	/* the promise: one line, always */
		free(err);
		return 0;
	}
	for (int code = 0; code <= 200; code++) {
		const struct xid_info *x = xid_catalog_lookup(c, code);
		enum xid_action a;
		if (x && (!x->mnemonic || !xid_action_name(x->action) ||
			  (x->immediate[0] && xid_catalog_bucket_action(c, x->immediate, &a) < 0)))
			abort();
	}
	struct sxid_info si;
	static const int sx[] = { 1, 10001, 12020, 20034, 23001, 30006, 99999 };
	for (size_t i = 0; i < sizeof(sx) / sizeof(*sx); i++)
		xid_catalog_sxid(c, sx[i], &si);
	(void)xid_catalog_date(c);
	xid_catalog_free(c);
	return 0;
}
