/* The one command-line parser (core/options.h) and "did you mean"
 * (core/suggest.h): every form of the grammar, value ranges through
 * core/numparse.h, prefixes refused, suggestions, lists, positionals, the
 * help lines. The one-line message goes to stderr; it is captured here. */
#include "tap.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/suggest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct o {
	int verbose, yes, json, dry_run, quick;
	const char *output_file, *output, *path, *mode;
	long long nodes, level;
	unsigned long long size;
	long timeout;
	double minutes;
	int port;
	struct opt_list include;
};

static const char *const modes[] = { "read", "write", "mixed", NULL };

static const struct opt_def defs[] = {
	OPTION_VERBOSE(struct o, verbose),
	OPTION_YES(struct o, yes),
	OPTION_JSON(struct o, json),
	OPTION_DRY_RUN(struct o, dry_run),
	OPTION_OUTPUT_FILE(struct o, output_file),
	OPTION_OUTPUT(struct o, output),
	{ "path", 'p', OPT_STRING, offsetof(struct o, path), "DIR", "file system to test", NULL, 0, 0, NULL, NULL, OPTF_DIR | OPTF_ONCE },
	{ "mode", 0, OPT_CHOICE, offsetof(struct o, mode), "MODE", "what to do", "read", 0, 0, NULL, modes, 0 },
	{ "nodes", 'N', OPT_COUNT_N, offsetof(struct o, nodes), "N", "nodes to use", NULL, 1, 0, "nodes", NULL, 0 },
	{ "level", 0, OPT_INT, offsetof(struct o, level), "N", "a level", "3", 0, 9, NULL, NULL, 0 },
	{ "size", 's', OPT_SIZE, offsetof(struct o, size), "SIZE", "bytes per file", "1G", 4096, 1099511627776.0, NULL, NULL, 0 },
	{ "timeout", 't', OPT_SECONDS, offsetof(struct o, timeout), "SECONDS", "overall budget", "90", 1, 86400, "s", NULL, 0 },
	{ "minutes", 0, OPT_REAL, offsetof(struct o, minutes), "M", "how long", NULL, 0.001, 1440, "min", NULL, 0 },
	{ "port", 0, OPT_PORT, offsetof(struct o, port), "PORT", "where to listen", NULL, 0, 0, NULL, NULL, 0 },
	{ "include", 'I', OPT_LIST, offsetof(struct o, include), "ID", "only these (repeat)", NULL, 0, 0, NULL, NULL, 0 },
	{ "quick", 0, OPT_FLAG, offsetof(struct o, quick), NULL, "small and fast", NULL, 0, 0, NULL, NULL, OPTF_HIDDEN },
	OPTION_END
};

static struct o o;
static struct opt_parser p;
static char err[1024];

/* Parse a blank-separated command line (words hold no blanks) with stderr
 * captured into err. */
static enum opt_status run(int maxpos, const char *line)
{
	static char buf[1024];
	static char *argv[64];
	int argc = 0;
	snprintf(buf, sizeof buf, "%s", line);
	argv[argc++] = "test";
	for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
		argv[argc++] = strcmp(t, "''") ? t : (char *)"";
	argv[argc] = NULL;
	opt_parser_release(&p);
	memset(&o, 0, sizeof o);
	memset(&p, 0, sizeof p);
	p.cmd = "test";
	p.defs = defs;
	p.dst = &o;
	p.max_positional = maxpos;
	fflush(stderr);
	FILE *tmp = tmpfile();
	int saved = dup(2);
	dup2(fileno(tmp), 2);
	enum opt_status rc = opt_parse(&p, argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t n = fread(err, 1, sizeof err - 1, tmp);
	err[n] = 0;
	fclose(tmp);
	return rc;
}

static int one_line(void)
{
	char *nl = strchr(err, '\n');
	return !strncmp(err, "cmax test: ", 11) && nl && !nl[1] && strstr(err, " (see cmax test --help)\n");
}

static void refused(int maxpos, const char *line, const char *want)
{
	enum opt_status rc = run(maxpos, line);
	T_OK(rc == OPT_USAGE && one_line() && strstr(err, want), "'%s' refused: %.*s", line, (int)strcspn(err, "\n"), err);
}

static void test_grammar(void)
{
	T_OK(run(-1, "") == OPT_OK && !o.verbose && !p.npositional && !*err, "nothing given");
	T_OK(run(-1, "--timeout=5") == OPT_OK && o.timeout == 5, "--name=value");
	T_OK(run(-1, "--timeout 5m") == OPT_OK && o.timeout == 300, "--name value");
	T_OK(run(-1, "-t 2h") == OPT_OK && o.timeout == 7200, "-x value");
	T_OK(run(-1, "-t90") == OPT_OK && o.timeout == 90, "-xvalue");
	T_OK(run(-1, "-vvv") == OPT_OK && o.verbose == 3, "-vvv counts 3");
	T_OK(run(-1, "-v --verbose -v") == OPT_OK && o.verbose == 3, "-v --verbose -v counts 3");
	T_OK(run(-1, "-yv") == OPT_OK && o.yes == 1 && o.verbose == 1, "bundled -yv");
	T_OK(run(-1, "-vyt10") == OPT_OK && o.yes && o.verbose == 1 && o.timeout == 10, "bundle ending in a valued option");
	T_OK(run(-1, "-vp /x") == OPT_OK && o.verbose == 1 && !strcmp(o.path, "/x"), "bundle whose last takes the next word");
	T_OK(run(-1, "a --json b") == OPT_OK && o.json && p.npositional == 2 && !strcmp(p.positional[0], "a") &&
	     !strcmp(p.positional[1], "b"), "positionals around options, in order");
	T_OK(run(-1, "--json -- --yes -v") == OPT_OK && o.json && !o.yes && !o.verbose && p.npositional == 2 &&
	     !strcmp(p.positional[0], "--yes"), "-- ends the options");
	T_OK(run(-1, "-") == OPT_OK && p.npositional == 1 && !strcmp(p.positional[0], "-"), "a bare - is a positional");
	T_OK(run(-1, "--path --json") == OPT_OK && !strcmp(o.path, "--json") && !o.json,
	     "the word after a valued option is its value, whatever it looks like");
	T_OK(run(-1, "--output-file=") == OPT_USAGE && strstr(err, "--output-file needs a value, not an empty string"),
	     "an empty string value refused: %.*s", (int)strcspn(err, "\n"), err);
	T_OK(run(-1, "--mode=write") == OPT_OK && !strcmp(o.mode, "write") && o.mode == modes[1], "a choice points at the table's word");
	T_OK(run(-1, "-o json") == OPT_OK && !strcmp(o.output, "json"), "-o is --output");
	T_OK(run(-1, "--quick") == OPT_OK && o.quick, "a hidden option is still accepted");
	T_OK(run(-1, "--output-file=a=b") == OPT_OK && !strcmp(o.output_file, "a=b"), "only the first = splits");
}

static void test_help(void)
{
	T_OK(run(-1, "--help") == OPT_HELP && !*err, "--help");
	T_OK(run(-1, "-h") == OPT_HELP, "-h");
	T_OK(run(-1, "-vh") == OPT_HELP, "-h inside a bundle");
	T_OK(run(-1, "--timeout bad --help") == OPT_USAGE, "options are judged in order: an error before --help wins");
	T_OK(run(-1, "-- --help") == OPT_OK && p.npositional == 1, "--help after -- is a positional");
	refused(-1, "--help=yes", "unknown option '--help'");
}

static void test_refusals(void)
{
	refused(-1, "--verb", "unknown option '--verb' (did you mean '--verbose'?)");
	refused(-1, "--time=5", "unknown option '--time' (did you mean '--timeout'?)");
	refused(-1, "--i", "unknown option '--i' (did you mean '--include'?)");
	refused(-1, "--p", "unknown option '--p' (see"); /* --path or --port: no guess */
	refused(-1, "--dry", "unknown option '--dry' (did you mean '--dry-run'?)");
	refused(-1, "--q", "unknown option '--q' (see"); /* --quick is hidden: never offered */
	refused(-1, "--jsno", "unknown option '--jsno' (did you mean '--json'?)");
	refused(-1, "--hepl", "(did you mean '--help'?)");
	refused(-1, "--frobnicate", "unknown option '--frobnicate' (see");
	refused(-1, "--quik", "unknown option '--quik' (see"); /* hidden: never suggested */
	refused(-1, "-x", "unknown option '-x'");
	refused(-1, "-vx", "unknown option '-x'");
	refused(-1, "--json=1", "--json takes no value (got '1')");
	refused(-1, "--timeout", "--timeout needs a value (SECONDS)");
	refused(-1, "-t", "-t needs a value (SECONDS)");
	refused(-1, "--path /a --path /b", "--path given more than once");
	refused(-1, "--mode=rwite", "--mode wants read, write or mixed, not 'rwite' (did you mean 'write'?)");
	refused(-1, "--mode=x", "--mode wants read, write or mixed, not 'x' (see");
	refused(0, "extra", "unexpected argument 'extra'");
	refused(1, "one two", "unexpected argument 'two'");
	T_OK(run(1, "one") == OPT_OK && p.npositional == 1, "one positional allowed of one");
	/* a hostile argument never reaches the terminal raw */
	refused(-1, "--\x1b[2Jx", "unknown option '--\\e[2Jx'");
}

static void test_values(void)
{
	refused(-1, "--timeout 0", "--timeout '0' is out of range (1 to 86400 seconds)");
	refused(-1, "--timeout=2d", "--timeout wants");
	refused(-1, "--timeout=-5", "--timeout wants");
	refused(-1, "-t 25h", "--timeout '25h' is out of range");
	T_OK(run(-1, "--nodes 4") == OPT_OK && o.nodes == 4, "--nodes 4");
	T_OK(run(-1, "--nodes=4") == OPT_OK && o.nodes == 4, "--nodes=4 (bench net used to refuse it)");
	T_OK(run(-1, "-N 123456789012") == OPT_OK && o.nodes == 123456789012LL, "a count {1, 0} has no upper bound but long's");
	refused(-1, "--nodes 0", "--nodes '0' is out of range (1 to");
	refused(-1, "--nodes 4x", "--nodes wants a whole number, not '4x'");
	refused(-1, "--nodes 99999999999999999999999", "--nodes '99999999999999999999999' is out of range");
	T_OK(run(-1, "--level 0") == OPT_OK && o.level == 0, "--level 0 (bottom of 0..9)");
	T_OK(run(-1, "--level 9") == OPT_OK && o.level == 9, "--level 9 (top of 0..9)");
	refused(-1, "--level 10", "--level '10' is out of range (0 to 9)");
	T_OK(run(-1, "-s 64K") == OPT_OK && o.size == 65536, "-s 64K");
	T_OK(run(-1, "--size=1T") == OPT_OK && o.size == 1099511627776ULL, "--size at its top");
	refused(-1, "--size=1k", "--size '1k' is out of range (4 KiB to 1 TiB)");
	refused(-1, "--size=1.5", "--size '1.5' is not a whole number of bytes");
	T_OK(run(-1, "--minutes 0.5") == OPT_OK && o.minutes == 0.5, "--minutes 0.5");
	refused(-1, "--minutes 2000", "--minutes '2000' is out of range (0.001 to 1440)");
	T_OK(run(-1, "--port 9400") == OPT_OK && o.port == 9400, "--port 9400");
	refused(-1, "--port 0", "--port: '0' is not a TCP/UDP port (1 to 65535)");
	refused(-1, "--port 65536", "is not a TCP/UDP port");
}

static void test_lists(void)
{
	T_OK(run(-1, "-I a --include b --include=c -Id") == OPT_OK && o.include.n == 4 &&
	     !strcmp(o.include.v[0], "a") && !strcmp(o.include.v[1], "b") && !strcmp(o.include.v[2], "c") &&
	     !strcmp(o.include.v[3], "d"), "every occurrence of a list appended, in order");
	opt_parser_release(&p);
	T_OK(o.include.v == NULL && o.include.n == 0 && p.positional == NULL, "release frees the lists and positionals");
	T_OK(run(-1, "") == OPT_OK && o.include.n == 0, "an empty list");
	struct opt_list l = { NULL, 0 };
	opt_list_free(&l);
	T_OK(l.v == NULL, "opt_list_free of an empty list");
}

static void test_suggest(void)
{
	static const char *const cmds[] = { "audit", "bench", "health", "inject", "reboot-test", "rate", "sla",
					    "accept", "version", "help", NULL };
	static const char *const benches[] = { "storage", "metadata", "s3", "net", "gpu", "lifecycle", NULL };
	T_STREQ(suggest("audti", cmds), "audit", "audti -> audit (a swap is one edit)");
	T_STREQ(suggest("stroage", benches), "storage", "stroage -> storage");
	T_STREQ(suggest("benhc", cmds), "bench", "benhc -> bench");
	T_OK(suggest("reboot", cmds) == NULL, "reboot: 5 edits from reboot-test, too far");
	T_STREQ(suggest("reboot-tset", cmds), "reboot-test", "reboot-tset -> reboot-test");
	T_OK(suggest("frobnicate", cmds) == NULL, "nothing near");
	T_STREQ(suggest("nte", benches), "net", "nte -> net (len 3: one edit allowed)");
	T_STREQ(suggest("rte", cmds), "rate", "rte -> rate");
	T_OK(suggest("audit", cmds) == NULL, "the word itself is never suggested");
	static const char *const tie[] = { "cat", "car", NULL };
	T_OK(suggest("cab", tie) == NULL, "a tie suggests nothing");
	static const char *const dup[] = { "cat", "cat", NULL };
	T_STREQ(suggest("cas", dup), "cat", "the same word twice is no tie");
	T_OK(suggest("x", NULL) == NULL, "no candidates");
	T_INTEQ(suggest_distance("ca", "abc"), 3, "optimal string alignment: ca -> abc is 3");
	T_INTEQ(suggest_distance("", "abc"), 3, "from the empty word");
	T_INTEQ(suggest_distance("kitten", "sitting"), 3, "kitten -> sitting");
	char longw[80];
	memset(longw, 'a', sizeof longw - 1);
	longw[sizeof longw - 1] = 0;
	T_OK(suggest_distance(longw, "a") == SUGGEST_FAR, "words over %d bytes are never near", SUGGEST_MAX_LEN);
}

static void test_help_text(void)
{
	FILE *f = tmpfile();
	opt_help(f, defs);
	rewind(f);
	char buf[8192];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	T_OK(strstr(buf, "  -v, --verbose ") != NULL, "help: short and long");
	T_OK(strstr(buf, "      --timeout SECONDS") == NULL && strstr(buf, "  -t, --timeout SECONDS") != NULL, "help: metavar");
	T_OK(strstr(buf, "overall budget (default 90; 1 to 86400 s)\n") != NULL, "help: default, range and units");
	T_OK(strstr(buf, "(default 1G; 4 KiB to 1 TiB)") != NULL, "help: a size range in units of 1024");
	T_OK(strstr(buf, "nodes to use (at least 1 nodes)") != NULL, "help: a count with no upper bound");
	T_OK(strstr(buf, "(default read; one of read, write, mixed)") != NULL, "help: choices");
	T_OK(strstr(buf, "--quick") == NULL, "help: a hidden option is not shown");
	T_OK(strstr(buf, "  -h, --help ") != NULL && strstr(buf, "this help\n") != NULL,
	     "help: the -h, --help line closes the list, aligned with the others");
	T_OK(strstr(buf, "      --json  ") != NULL || strstr(buf, "      --json ") != NULL, "help: a long-only option is indented");
	char syn[64], range[64];
	opt_synopsis(&defs[0], syn, sizeof syn);
	T_OK(!strcmp(syn, "-v, --verbose"), "synopsis of a flag: %s", syn);
	opt_range_text(&defs[4], range, sizeof range);
	T_OK(range[0] == 0, "no range for a string: %s", range);
}

/* The help page a command hands the parser: printed on -h by opt_parse
 * itself, and the one ending of a parse (0 / -1 / 64). */
static void test_help_page(void)
{
	FILE *f = tmpfile();
	opt_help_page(f, "usage: cmax t [options]\n\nOptions:\n", defs, "Exit status: 0 ok.\n");
	rewind(f);
	char buf[8192];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	T_OK(!strncmp(buf, "usage: cmax t [options]\n\nOptions:\n  -v, --verbose", 47), "page: head, then the options");
	T_OK(strstr(buf, "this help\n\nExit status: 0 ok.\n") != NULL, "page: a blank line, then the tail");
	static const struct opt_def big[] = {
		{ "count", 0, OPT_COUNT_N, 0, "N", "how many", NULL, 1, 1000000, NULL, NULL, 0 },
		{ "share", 0, OPT_REAL, 0, "F", "a share", NULL, 0, 0.5, NULL, NULL, 0 },
		OPTION_END,
	};
	char buf1[64], buf2[64];
	opt_range_text(&big[0], buf1, sizeof buf1);
	T_OK(!strcmp(buf1, "1 to 1000000"), "a range bound as people write it, not 1e+06: %s", buf1);
	opt_range_text(&big[1], buf2, sizeof buf2);
	T_OK(!strcmp(buf2, "0 to 0.5"), "a fraction stays one: %s", buf2);
	T_INTEQ(opt_parse_result(OPT_OK), 0, "parse result: ok is 0");
	T_INTEQ(opt_parse_result(OPT_HELP), -1, "parse result: help is -1 (the command exits 0)");
	T_INTEQ(opt_parse_result(OPT_USAGE), EXIT_USAGE, "parse result: a usage error is 64");
}

int main(void)
{
	test_grammar();
	test_help();
	test_refusals();
	test_values();
	test_lists();
	test_suggest();
	test_help_text();
	test_help_page();
	opt_parser_release(&p);
	return t_done();
}
