/* Fuzz the S3 XML walker, its three readers and the AWS credentials INI
 * reader: any bytes must parse or fail with a reason, never crash. */
#include "parse/s3xml.h"
#include <stdint.h>
#include <stdlib.h>

static int count_cb(void *u, const char *path, const char *text, size_t tlen)
{
	(void)path;
	(void)text;
	*(size_t *)u += tlen;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;
	char *err = NULL, *code = NULL, *msg = NULL;
	size_t n = 0;
	if (s3xml_walk(t, size, count_cb, &n, &err) != 0 && !err)
		abort();
	free(err);
	err = NULL;
	struct s3xml_list l;
	if (s3xml_list(t, size, &l, &err) == 0) {
		for (size_t i = 0; i < l.nkeys; i++)
			if (!l.keys[i])
				abort();
		s3xml_list_free(&l);
	} else if (!err) {
		abort();
	}
	free(err);
	s3xml_error(t, size, &code, &msg);
	free(code);
	free(msg);
	free(s3xml_upload_id(t, size));
	char *k, *s, *tok, *reg;
	aws_ini_profile(t, size, "default", &k, &s, &tok, &reg);
	free(k);
	free(s);
	free(tok);
	free(reg);
	return 0;
}
