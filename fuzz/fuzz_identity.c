/* Fuzz the account-source parsers (parse/identity.h): each input is read
 * as /etc/passwd, /etc/nsswitch.conf and sssd.conf; results are always
 * objects with their documented arrays, and every string is valid UTF-8
 * (jansson refuses anything else). */
#include "parse/identity.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;
	json_t *p = parse_passwd(t, size, 1000), *n = parse_nsswitch(t, size), *s = parse_sssd_conf(t, size);
	if (!json_is_object(p) || !json_is_integer(json_object_get(p, "local_users")) || !json_is_object(n) ||
	    !json_is_array(json_object_get(s, "domains")))
		abort();
	char *d = json_dumps(s, 0);
	if (!d)
		abort();
	free(d);
	json_decref(p);
	json_decref(n);
	json_decref(s);
	return 0;
}
