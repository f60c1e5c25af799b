/* The clock and command runner of inject / reboot-test, and the test hook
 * that replays recorded scheduler observations on a simulated clock
 * (replay.h says why and what stays real). */
#include "inject/replay.h"
#include "core/clock.h"
#include "core/argv.h"
#include "core/timefmt.h"
#include "core/error.h"
#include "core/readfile.h"
#include "core/strbuf.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPLAY_SCHEMA "cmax.test.sched-replay/1"
#define EXIT_NO_RECORDING 97	/* what tests/fakecmd answers, so the logs read alike */

struct entry {
	long at_ms;
	int exit_code;
	long took_ms;
	char *out, *err;
	size_t out_len, err_len;
};

struct recording {
	char **argv;
	size_t argc;
	struct entry *e;
	size_t n;
};

static struct {
	int active;
	char *file;
	char *log;
	double epoch;
	long now_ms;
	struct recording *rec;
	size_t nrec;
} R;

int replay_active(void)
{
	return R.active;
}

long inj_clock_ms(void)
{
	return R.active ? R.now_ms : clock_mono_ms();
}

double inj_clock_s(void)
{
	return (double)inj_clock_ms() / 1000.0;
}

double inj_wall(void)
{
	if (R.active)
		return R.epoch + (double)R.now_ms / 1000.0;
	return clock_wall_s();
}

void inj_sleep_ms(long ms)
{
	if (ms <= 0)
		return;
	if (R.active) {
		R.now_ms += ms;
		return;
	}
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL); /* a signal ends the wait early: the loops check inject_stopped() */
}


static void free_all(void)
{
	for (size_t i = 0; i < R.nrec; i++) {
		for (size_t k = 0; k < R.rec[i].argc; k++)
			free(R.rec[i].argv[k]);
		free(R.rec[i].argv);
		for (size_t k = 0; k < R.rec[i].n; k++) {
			free(R.rec[i].e[k].out);
			free(R.rec[i].e[k].err);
		}
		free(R.rec[i].e);
	}
	free(R.rec);
	free(R.file);
	free(R.log);
	memset(&R, 0, sizeof R);
}

void replay_done(void)
{
	free_all();
}

/* A string field or the contents of FIELD_file (relative to the replay
 * file's directory).  0 ok (NULL/0 when neither), -1 with *why. */
static int text_field(json_t *e, const char *key, const char *dir, char **out, size_t *len, char **why)
{
	char fk[32];
	snprintf(fk, sizeof fk, "%s_file", key);
	json_t *s = json_object_get(e, key), *f = json_object_get(e, fk);
	*out = NULL;
	*len = 0;
	if (s && f) {
		*why = xasprintf("%s and %s are exclusive", key, fk);
		return -1;
	}
	if (s) {
		if (!json_is_string(s)) {
			*why = xasprintf("%s: expected a string", key);
			return -1;
		}
		*len = json_string_length(s);
		*out = xstrndup(json_string_value(s), *len);
	} else if (f) {
		if (!json_is_string(f)) {
			*why = xasprintf("%s: expected a file name", fk);
			return -1;
		}
		const char *fn = json_string_value(f);
		char *p = fn[0] == '/' ? xstrdup(fn) : xasprintf("%s/%s", dir, fn);
		char *rerr = NULL;
		/* the one input reader: recorded outputs get the recordings' cap */
		if (read_input(p, INPUT_RECORDING, out, len, &rerr)) {
			*why = xasprintf("%s: %s", fk, rerr);
			free(rerr);
			free(p);
			return -1;
		}
		free(p);
	}
	return 0;
}

static int load_recording(json_t *c, const char *dir, struct recording *r, char **why)
{
	json_t *av = json_object_get(c, "argv"), *at = json_object_get(c, "at"), *v;
	size_t i;
	if (!json_is_array(av) || json_array_size(av) == 0) {
		*why = xstrdup("argv: expected a non-empty array of strings");
		return -1;
	}
	if (!json_is_array(at) || json_array_size(at) == 0) {
		*why = xstrdup("at: expected a non-empty array of {s, stdout|stdout_file, stderr, exit, took_s}");
		return -1;
	}
	r->argc = json_array_size(av);
	r->argv = xcalloc(r->argc, sizeof *r->argv);
	json_array_foreach(av, i, v) {
		if (!json_is_string(v)) {
			*why = xasprintf("argv[%zu]: expected a string", i);
			return -1;
		}
		r->argv[i] = xstrdup(json_string_value(v));
	}
	r->e = xcalloc(json_array_size(at), sizeof *r->e);
	json_array_foreach(at, i, v) {
		struct entry *e = &r->e[r->n++];
		json_t *s = json_object_get(v, "s"), *x = json_object_get(v, "exit"), *t = json_object_get(v, "took_s");
		if (!json_is_object(v) || !json_is_number(s) || !isfinite(json_number_value(s)) ||
		    json_number_value(s) < 0) {
			*why = xasprintf("at[%zu].s: expected seconds >= 0 since the start", i);
			return -1;
		}
		e->at_ms = lround(json_number_value(s) * 1000.0);
		if (i > 0 && e->at_ms < r->e[i - 1].at_ms) {
			*why = xasprintf("at[%zu].s: entries must be in time order", i);
			return -1;
		}
		if (x && (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > 255)) {
			*why = xasprintf("at[%zu].exit: expected an exit status 0..255", i);
			return -1;
		}
		e->exit_code = x ? (int)json_integer_value(x) : 0;
		if (t && (!json_is_number(t) || !isfinite(json_number_value(t)) || json_number_value(t) < 0)) {
			*why = xasprintf("at[%zu].took_s: expected seconds >= 0", i);
			return -1;
		}
		e->took_ms = t ? lround(json_number_value(t) * 1000.0) : 0;
		char *w = NULL;
		if (text_field(v, "stdout", dir, &e->out, &e->out_len, &w) < 0 ||
		    text_field(v, "stderr", dir, &e->err, &e->err_len, &w) < 0) {
			*why = xasprintf("at[%zu]: %s", i, w);
			free(w);
			return -1;
		}
	}
	return 0;
}

enum cmax_err replay_init(const char *prog)
{
	const char *f = getenv("CMAX_TEST_SCHED_REPLAY");
	if (!f || !*f)
		return CE_OK;
	json_error_t je;
	char *text = NULL, *rerr = NULL;
	size_t tlen = 0;
	/* the one input reader (core/readfile.h): capped, no device or FIFO hang */
	enum cmax_err rrc = read_input(f, INPUT_RECORDING, &text, &tlen, &rerr);
	if (rrc) {
		fprintf(stderr, "%s: CMAX_TEST_SCHED_REPLAY=%s\n", prog, rerr);
		free(rerr);
		return rrc;
	}
	json_t *doc = json_loadb(text, tlen, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!doc) {
		fprintf(stderr, "%s: CMAX_TEST_SCHED_REPLAY=%s: %s\n", prog, f, je.text);
		return CE_DATA;
	}
	char *why = NULL;
	char *dir = xstrdup(f);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		strcpy(dir, ".");
	json_t *sc = json_object_get(doc, "schema"), *cmds = json_object_get(doc, "commands"), *c;
	const char *ep = json_string_value(json_object_get(doc, "epoch"));
	size_t i;
	memset(&R, 0, sizeof R);
	if (!json_is_string(sc) || strcmp(json_string_value(sc), REPLAY_SCHEMA)) {
		why = xstrdup("schema: expected \"" REPLAY_SCHEMA "\"");
	} else if (!ep || time_parse_iso(ep) == (time_t)-1) {
		why = xstrdup("epoch: expected the wall-clock time of the start, YYYY-MM-DDTHH:MM:SSZ");
	} else if (!json_is_array(cmds) || json_array_size(cmds) == 0) {
		why = xstrdup("commands: expected a non-empty array of {argv, at}");
	} else {
		R.epoch = (double)time_parse_iso(ep);
		R.rec = xcalloc(json_array_size(cmds), sizeof *R.rec);
		json_array_foreach(cmds, i, c) {
			char *w = NULL;
			if (load_recording(c, dir, &R.rec[R.nrec++], &w) < 0) {
				why = xasprintf("commands[%zu].%s", i, w);
				free(w);
				break;
			}
		}
	}
	free(dir);
	json_decref(doc);
	if (why) {
		fprintf(stderr, "%s: CMAX_TEST_SCHED_REPLAY=%s: %s\n", prog, f, why);
		free(why);
		free_all();
		return CE_DATA;
	}
	R.active = 1;
	R.file = xstrdup(f);
	const char *lg = getenv("CMAX_TEST_SCHED_REPLAY_LOG");
	R.log = lg && *lg ? xstrdup(lg) : NULL;
	return CE_OK;
}

json_t *replay_json(void)
{
	if (!R.active)
		return NULL;
	json_t *o = json_object();
	json_object_set_new(o, "file", json_string(R.file));
	json_object_set_new(o, "note", json_string("test hook CMAX_TEST_SCHED_REPLAY: scheduler observations replayed "
						   "on a simulated clock; not a measurement"));
	return o;
}

static int matches(const struct recording *r, const char *const argv[])
{
	size_t n = 0;
	while (argv[n])
		n++;
	if (n != r->argc)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (fnmatch(r->argv[i], argv[i], 0) != 0)
			return 0;
	return 1;
}

static void log_call(const char *cmdline, const char *what)
{
	if (!R.log)
		return;
	FILE *f = fopen(R.log, "a");
	if (!f)
		return;
	fprintf(f, "%.3f\t%s\t%s\n", (double)R.now_ms / 1000.0, cmdline, what);
	fclose(f);
}

void inj_run(const char *const argv[], const struct run_opts *ro, struct cmd_result *res)
{
	if (!R.active) {
		runner_run(argv, ro, res);
		return;
	}
	memset(res, 0, sizeof *res);
	res->cmdline = argv_join_quoted(argv);
	res->path = xstrdup(argv[0]);
	res->outcome = RUN_EXITED;
	res->timeout_ms = ro && ro->timeout_ms > 0 ? ro->timeout_ms : 10000;
	const struct entry *hit = NULL;
	int known = 0;
	for (size_t i = 0; i < R.nrec && !hit; i++) {
		if (!matches(&R.rec[i], argv))
			continue;
		known = 1;
		for (size_t k = 0; k < R.rec[i].n && R.rec[i].e[k].at_ms <= R.now_ms; k++)
			hit = &R.rec[i].e[k];
	}
	if (!hit) {
		res->exit_code = EXIT_NO_RECORDING;
		res->err = xasprintf("replay: no recording %sfor: %s\n", known ? "yet (before its first entry) " : "",
				     res->cmdline);
		res->err_len = strlen(res->err);
		res->out = xstrdup("");
		log_call(res->cmdline, "NO RECORDING");
		return;
	}
	if (hit->took_ms > res->timeout_ms) {
		/* the command outlived its timeout: what the runner would report */
		R.now_ms += res->timeout_ms;
		res->outcome = RUN_TIMEOUT;
		res->duration_ms = res->timeout_ms;
		res->out = xstrdup("");
		res->err = xstrdup("");
		log_call(res->cmdline, "timed out");
		return;
	}
	R.now_ms += hit->took_ms;
	res->duration_ms = hit->took_ms;
	res->exit_code = hit->exit_code;
	res->out = hit->out ? xstrndup(hit->out, hit->out_len) : xstrdup("");
	res->out_len = hit->out ? hit->out_len : 0;
	res->err = hit->err ? xstrndup(hit->err, hit->err_len) : xstrdup("");
	res->err_len = hit->err ? hit->err_len : 0;
	char what[32];
	snprintf(what, sizeof what, "exit %d", hit->exit_code);
	log_call(res->cmdline, what);
}
