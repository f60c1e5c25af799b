/* One declarative option table per command, parsed by one parser (the
 * model is fio's struct fio_option: every option declared once with its
 * type, range, default, units and help; the help text, the man pages and
 * the bash completion are generated from the same tables).
 *
 * Grammar, the same for every command:
 *   --name=value and --name value; -x value and -xvalue; bundled short
 *   flags (-vvv, -yv); "--" ends the options; a bare "-" is a positional.
 *   Long names must be given in full: a prefix is refused (getopt_long
 *   would accept --verb for --verbose; a later option could make that
 *   ambiguous, so cmax never starts).
 *   An unknown option gets "did you mean --X?" when one is close
 *   (core/suggest.h).
 *
 * Values land in the command's own options struct at opt_def.offset, typed
 * by opt_def.type (see the table below), so a command reads plain fields. */
#ifndef CMAX_OPTIONS_H
#define CMAX_OPTIONS_H
#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPT_FLAG,     /* int: set to 1 (no value) */
	OPT_COUNT,    /* int: +1 per occurrence (-vvv = 3) */
	OPT_STRING,   /* const char *: borrowed from argv; "" refused unless OPTF_EMPTY_OK */
	OPT_CHOICE,   /* const char *: one of choices[] (did-you-mean on a miss) */
	OPT_INT,      /* long long in [min, max] (core/numparse.h np_int) */
	OPT_COUNT_N,  /* long long: a count >= min (np_count), e.g. --nodes 4 */
	OPT_SIZE,     /* unsigned long long bytes: 4k, 1G, 2GiB (np_size) */
	OPT_SECONDS,  /* long seconds: 90, 90s, 5m, 2h (np_seconds) in [min, max] */
	OPT_REAL,     /* double in [min, max] (np_real) */
	OPT_PORT,     /* int 1..65535 (np_port) */
	OPT_LIST,     /* struct opt_list: every occurrence appended, in order */
};

enum {
	OPTF_HIDDEN = 1 << 0,    /* accepted, not in --help / man / completion */
	OPTF_EMPTY_OK = 1 << 1,  /* OPT_STRING: an empty value is allowed */
	OPTF_PATH = 1 << 2,      /* completion: complete file names */
	OPTF_DIR = 1 << 3,       /* completion: complete directories */
	OPTF_ONCE = 1 << 4,      /* a second occurrence is a usage error */
};

struct opt_list {
	const char **v;          /* borrowed from argv; the array is owned (opt_list_free) */
	size_t n;
};

struct opt_def {
	const char *name;        /* long name without "--"; NULL ends a table */
	char short_name;         /* 0: none */
	enum opt_type type;
	size_t offset;           /* offsetof(struct cmd_opts, field) */
	const char *metavar;     /* "SECONDS", "PATH"; NULL for flags */
	const char *help;        /* one line */
	const char *dflt;        /* the default as help shows it; NULL: none. Only
	                          * shown: the command sets its struct's defaults
	                          * before opt_parse */
	double min, max;         /* numeric range (inclusive); both 0: type's own;
	                          * max < min: no upper bound but the type's ({1, 0}: ">= 1") */
	const char *units;       /* "s", "bytes", "nodes": shown in help; NULL none */
	const char *const *choices; /* OPT_CHOICE: NULL-terminated */
	unsigned flags;          /* OPTF_* */
};

/* Options several commands share, one meaning each everywhere. A command
 * lists the ones it takes in its own table with these macros (S is the
 * command's options struct, F the field). */
#define OPTION_VERBOSE(S, F) \
	{ "verbose", 'v', OPT_COUNT, offsetof(S, F), NULL, "more detail; repeat for more (-vv, -vvv)", NULL, 0, 0, NULL, NULL, 0 }
#define OPTION_JSON(S, F) \
	{ "json", 0, OPT_FLAG, offsetof(S, F), NULL, "write the JSON document to stdout instead of the table", NULL, 0, 0, NULL, NULL, 0 }
#define OPTION_OUTPUT_FILE(S, F) \
	{ "output-file", 0, OPT_STRING, offsetof(S, F), "FILE", "also write the JSON document to FILE (atomically)", NULL, 0, 0, NULL, NULL, OPTF_PATH }
/* -o is --output FORMAT everywhere (text | json | yaml); --json = -o json. */
extern const char *const opt_output_formats[];
#define OPTION_OUTPUT(S, F) \
	{ "output", 'o', OPT_CHOICE, offsetof(S, F), "FORMAT", "render as FORMAT: text, json or yaml", "text", 0, 0, NULL, opt_output_formats, 0 }
#define OPTION_NO_COLOR(S, F) \
	{ "no-color", 0, OPT_FLAG, offsetof(S, F), NULL, "no ANSI colour (also when NO_COLOR is set or stdout is not a terminal)", NULL, 0, 0, NULL, NULL, 0 }
#define OPTION_DRY_RUN(S, F) \
	{ "dry-run", 0, OPT_FLAG, offsetof(S, F), NULL, "show what would run and change, run nothing", NULL, 0, 0, NULL, NULL, 0 }
#define OPTION_YES(S, F) \
	{ "yes", 'y', OPT_FLAG, offsetof(S, F), NULL, "do not ask for confirmation", NULL, 0, 0, NULL, NULL, 0 }
#define OPTION_SYSROOT(S, F) \
	{ "sysroot", 0, OPT_STRING, offsetof(S, F), "DIR", "read the host's files and tools under DIR (fixture hosts, offline images)", NULL, 0, 0, NULL, NULL, OPTF_DIR }
#define OPTION_END { NULL, 0, OPT_FLAG, 0, NULL, NULL, NULL, 0, 0, NULL, NULL, 0 }

/* Result of a parse. */
enum opt_status {
	OPT_OK = 0,
	OPT_HELP = 1,            /* -h / --help was given: caller prints help, exits 0 */
	OPT_USAGE = 2,           /* a usage error was printed on stderr (one line) */
};

struct opt_parser {
	const char *cmd;         /* "audit", "bench net": for messages */
	const struct opt_def *defs;
	void *dst;               /* the options struct */
	int max_positional;      /* -1: any number */
	const char **positional; /* filled, borrowed from argv (owned array) */
	size_t npositional;
	/* The command's help page (opt_help_page): printed on stdout by
	 * opt_parse itself on -h / --help when help_head is set. */
	const char *help_head;   /* synopsis and prose, ending "Options:\n" */
	const char *help_tail;   /* after the options (exit status, notes); NULL none */
};

/* Parse argv[1..argc-1] (argv[0] is the command's name). Options and
 * positionals may come in any order (as with GNU getopt). On a usage error,
 * prints "cmax CMD: WHAT (see cmax CMD --help)" and returns OPT_USAGE.
 * Whatever it returns, call opt_parser_release afterwards. */
enum opt_status opt_parse(struct opt_parser *p, int argc, char **argv);
/* Frees the positional array and every OPT_LIST array in dst. */
void opt_parser_release(struct opt_parser *p);
void opt_list_free(struct opt_list *l);

/* Help for a table: one line per visible option, aligned, with metavar,
 * default, range and units. */
void opt_help(FILE *out, const struct opt_def *defs);
/* A command's whole help page: head, the options (opt_help, with the
 * -h, --help line), then a blank line and tail when there is one. */
void opt_help_page(FILE *out, const char *head, const struct opt_def *defs, const char *tail);
/* The usual ending of a command's parse: OPT_OK -> 0, OPT_HELP -> -1
 * (the help was printed: the command exits 0), OPT_USAGE -> EXIT_USAGE. */
int opt_parse_result(enum opt_status st);
/* The pieces of a help line, also for `cmax __cli-spec`: "-v, --verbose",
 * "    --timeout SECONDS"; the range as text ("1 to 86400 s", "" for none). */
void opt_synopsis(const struct opt_def *d, char *buf, size_t n);
void opt_range_text(const struct opt_def *d, char *buf, size_t n);
#endif
