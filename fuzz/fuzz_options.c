/* Fuzz the command-line parser (core/options.h): the input's lines are an
 * argv. Whatever they hold, opt_parse returns OK, HELP or USAGE; on OK
 * every value lies in its option's range and every positional and list
 * item is one of the words given; on USAGE exactly one printable line in
 * the usage shape was written; never a crash or a leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/options.h"

struct o {
	int verbose, yes, json;
	const char *path, *output;
	long long nodes, level;
	unsigned long long size;
	long timeout;
	double minutes;
	int port;
	struct opt_list include;
};

static const struct opt_def defs[] = {
	OPTION_VERBOSE(struct o, verbose),
	OPTION_YES(struct o, yes),
	OPTION_JSON(struct o, json),
	OPTION_OUTPUT(struct o, output),
	{ "path", 'p', OPT_STRING, offsetof(struct o, path), "DIR", "dir", NULL, 0, 0, NULL, NULL, OPTF_ONCE },
	{ "nodes", 'N', OPT_COUNT_N, offsetof(struct o, nodes), "N", "nodes", NULL, 1, 0, NULL, NULL, 0 },
	{ "level", 0, OPT_INT, offsetof(struct o, level), "N", "level", NULL, 0, 9, NULL, NULL, 0 },
	{ "size", 's', OPT_SIZE, offsetof(struct o, size), "SIZE", "size", NULL, 4096, 1099511627776.0, NULL, NULL, 0 },
	{ "timeout", 't', OPT_SECONDS, offsetof(struct o, timeout), "S", "t", NULL, 1, 86400, "s", NULL, 0 },
	{ "minutes", 0, OPT_REAL, offsetof(struct o, minutes), "M", "m", NULL, 0.001, 1440, NULL, NULL, 0 },
	{ "port", 0, OPT_PORT, offsetof(struct o, port), "PORT", "p", NULL, 0, 0, NULL, NULL, 0 },
	{ "include", 'I', OPT_LIST, offsetof(struct o, include), "ID", "i", NULL, 0, 0, NULL, NULL, 0 },
	OPTION_END
};

static int is_word(char **argv, int argc, const char *s)
{
	for (int i = 1; i < argc; i++)
		if (s >= argv[i] && s <= argv[i] + strlen(argv[i]))
			return 1; /* the word itself or its tail (--x=VALUE, -tVALUE) */
	return 0;
}

static void check_message(const char *m, size_t n)
{
	if (n == 0 || m[n - 1] != '\n' || strncmp(m, "cmax fuzz: ", 11) != 0 || !strstr(m, " (see cmax fuzz --help)\n"))
		abort();
	for (size_t i = 0; i + 1 < n; i++)
		if ((unsigned char)m[i] < 0x20 || (unsigned char)m[i] == 0x7f)
			abort(); /* one printable line */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	char *argv[65];
	int argc = 0;
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	argv[argc++] = "fuzz";
	for (char *line = s, *nl; line && argc < 64; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		argv[argc++] = line;
	}
	argv[argc] = NULL;

	struct o o;
	memset(&o, 0, sizeof o);
	struct opt_parser p = { .cmd = "fuzz", .defs = defs, .dst = &o, .max_positional = (int)(size % 4) - 1 };
	char *msg = NULL;
	size_t mlen = 0;
	FILE *saved = stderr, *mem = open_memstream(&msg, &mlen);
	if (!mem) {
		free(s);
		return 0;
	}
	stderr = mem;
	enum opt_status rc = opt_parse(&p, argc, argv);
	stderr = saved;
	fclose(mem);
	if (rc == OPT_USAGE)
		check_message(msg, mlen);
	else if (rc != OPT_OK && rc != OPT_HELP)
		abort();
	else if (mlen)
		abort(); /* nothing printed unless refused */
	if (rc == OPT_OK) {
		if (o.verbose < 0 || (o.yes & ~1) || (o.json & ~1))
			abort();
		if ((o.nodes && o.nodes < 1) || o.level < 0 || o.level > 9 ||
		    (o.size && (o.size < 4096 || o.size > 1099511627776ULL)) || (o.timeout && (o.timeout < 1 || o.timeout > 86400)) ||
		    (o.minutes != 0 && !(o.minutes >= 0.001 && o.minutes <= 1440)) || (o.port && (o.port < 1 || o.port > 65535)))
			abort();
		if (o.output && strcmp(o.output, "text") && strcmp(o.output, "json") && strcmp(o.output, "yaml"))
			abort();
		if ((o.path && !is_word(argv, argc, o.path)) || (p.max_positional >= 0 && p.npositional > (size_t)p.max_positional))
			abort();
		for (size_t i = 0; i < p.npositional; i++)
			if (!is_word(argv, argc, p.positional[i]))
				abort();
		for (size_t i = 0; i < o.include.n; i++)
			if (!is_word(argv, argc, o.include.v[i]))
				abort();
	}
	opt_parser_release(&p);
	if (o.include.v || p.positional)
		abort();
	free(msg);
	free(s);
	return 0;
}
