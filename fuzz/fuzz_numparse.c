/* Fuzz the command-line number parsers (core/numparse.h): any bytes give a
 * value inside the range asked for, or a one-line printable message that
 * names the option; never both, never a crash. Each line of the input is
 * tried as every kind. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/numparse.h"

static void check_err(int rc, const char *err, const char *opt)
{
	if (rc != 0 && rc != -1)
		abort();
	if (rc == 0)
		return;
	if (strncmp(err, opt, strlen(opt)) != 0)
		abort(); /* names the option first */
	for (const char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			abort(); /* one printable line */
}

static void one(const char *s)
{
	char err[NP_ERR_MAX];
	uint64_t sz;
	int rc = np_size("--size", s, 1, NP_PIB, &sz, err);
	check_err(rc, err, "--size");
	if (rc == 0 && (sz < 1 || sz > NP_PIB))
		abort();
	rc = np_size("--any", s, 0, UINT64_MAX, &sz, err);
	check_err(rc, err, "--any");
	char buf[32];
	if (rc == 0 && !*np_fmt_size(sz, buf, sizeof buf))
		abort();
	long n;
	rc = np_count("--clients", s, 1, 1024, &n, err);
	check_err(rc, err, "--clients");
	if (rc == 0 && (n < 1 || n > 1024))
		abort();
	rc = np_seconds("--timeout", s, 0, 7 * 86400, &n, err);
	check_err(rc, err, "--timeout");
	if (rc == 0 && (n < 0 || n > 7 * 86400))
		abort();
	double d;
	rc = np_real("--minutes", s, 0.001, 1440, &d, err);
	check_err(rc, err, "--minutes");
	if (rc == 0 && !(d >= 0.001 && d <= 1440))
		abort();
	int p;
	rc = np_port("--port", s, &p, err);
	check_err(rc, err, "--port");
	if (rc == 0 && (p < 1 || p > 65535))
		abort();
	rc = np_url_port("--endpoint", s, &p, err);
	check_err(rc, err, "--endpoint");
	if (rc == 0 && (p < 0 || p > 65535))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	one(s); /* the whole input, up to its first NUL */
	for (char *line = s, *nl; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		one(line);
	}
	free(s);
	return 0;
}
