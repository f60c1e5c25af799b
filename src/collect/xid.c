/* Seven days of NVIDIA Xid/SXid history from the kernel log, classified
 * into the action each deserves. Sources, in order: the journal (it keeps
 * the whole week across reboots), dmesg (the ring buffer since boot), then
 * /dev/kmsg read directly. A tenant usually may read none of them; that is
 * reported as DENIED, never as "no Xids". */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "core/clock.h"
#include "xid/classify.h"
#include "xid/kmsg.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XID_WINDOW_DAYS 7
#define LOG_CAP (16u << 20)	/* a noisy week of kernel log still fits */
#define MAX_LISTED_EVENTS 100
#define CLOCK_SLACK_S 300	/* log stamps slightly ahead of "now" still count */

struct walk {
	struct xid_classifier *cl;
	time_t since, until;
	long long btime;	/* boot time for monotonic-only records; -1 unknown */
	size_t in_window, outside, undated, uuid_lines, fallen_off;
	json_t *events;		/* listed events, capped */
	json_t *counts;		/* {"79": n} for Xids, in window */
	json_t *sxid_counts;
	int keep_companions;	/* the last SXid was in the window */
};

static int on_event(const struct kmsg_event *ev, void *arg)
{
	struct walk *w = arg;
	if (ev->kind == KMSG_GPU_UUID) {
		/* printed once at driver load, usually long before the window */
		w->uuid_lines++;
		xid_classifier_add(w->cl, ev);
		return 0;
	}
	if (ev->kind == KMSG_SXID_COMPANION) {
		if (w->keep_companions)
			xid_classifier_add(w->cl, ev);
		return 0;
	}
	long long t = -1;
	if (ev->has_wall)
		t = ev->wall;
	else if (ev->has_mono && w->btime >= 0)
		t = w->btime + ev->mono_us / 1000000;
	if (t >= 0 && (t < w->since || t > w->until + CLOCK_SLACK_S)) {
		w->outside++;
		w->keep_companions = 0;
		return 0;
	}
	if (t < 0)
		w->undated++;
	w->in_window++;
	w->keep_companions = ev->kind == KMSG_SXID;
	xid_classifier_add(w->cl, ev);

	/* counts are of Xid/SXid lines; the driver's separate fallen-off-the-bus
	 * notice is folded into Xid 79 by the classifier ("implied") */
	if (ev->kind == KMSG_FALLEN_OFF_BUS) {
		w->fallen_off++;
	} else {
		char key[16];
		snprintf(key, sizeof key, "%d", ev->code);
		json_t *cnt = ev->kind == KMSG_SXID ? w->sxid_counts : w->counts;
		json_t *old = json_object_get(cnt, key);
		json_object_set_new(cnt, key, json_integer(old ? json_integer_value(old) + 1 : 1));
	}

	if (json_array_size(w->events) < MAX_LISTED_EVENTS) {
		json_t *o = json_object();
		char iso[32];
		if (t >= 0) {
			clock_iso((time_t)t, iso, sizeof iso);
			fact_set_str(o, "time", iso);
		} else {
			fact_set_null(o, "time");
		}
		fact_set_str(o, "kind", kmsg_kind_name(ev->kind));
		fact_set_int(o, "code", ev->code);
		char gk[32];
		if (ev->kind == KMSG_SXID)
			snprintf(gk, sizeof gk, "%s", ev->pci);
		else
			kmsg_gpu_key(ev->pci, gk, sizeof gk);
		fact_set_str(o, "device", gk[0] ? gk : NULL);
		fact_set_str(o, "message", ev->msg);
		json_array_append_new(w->events, o);
	}
	return 0;
}

/* Boot time from /proc/stat "btime", for records that only carry a
 * monotonic stamp (/dev/kmsg, plain dmesg). */
static long long boot_time(void)
{
	char *s = col_read_quiet("/proc/stat");
	long long bt = -1;
	const char *p = s ? strstr(s, "\nbtime ") : NULL;
	if (p)
		bt = strtoll(p + 7, NULL, 10);
	free(s);
	return bt > 0 ? bt : -1;
}

static int run_capped(struct col_run *c, const char *const argv[], int timeout_ms, struct cmd_result *r)
{
	struct run_opts o = { .timeout_ms = timeout_ms, .cap_out = LOG_CAP };
	int rc = col_runner(argv, &o, r);
	json_array_append_new(c->evidence, cmd_evidence(r, 1024));
	return rc;
}

/* Does some line start like "2026-11-20T11:48:03" (ISO date and time)? */
static int has_dated_line(const char *buf, size_t len)
{
	for (size_t i = 0; i < len;) {
		const char *l = buf + i;
		size_t n = len - i;
		const char *nl = memchr(l, '\n', n);
		size_t ll = nl ? (size_t)(nl - l) : n;
		if (ll >= 19 && isdigit((unsigned char)l[0]) && isdigit((unsigned char)l[3]) && l[4] == '-' &&
		    l[7] == '-' && l[10] == 'T' && l[13] == ':' && l[16] == ':')
			return 1;
		i += ll + 1;
	}
	return 0;
}

static int denied_text(const char *s)
{
	return s && (strstr(s, "Operation not permitted") || strstr(s, "Permission denied") ||
		     strstr(s, "not seeing messages") || strstr(s, "access"));
}

/* /dev/kmsg without blocking: every read() returns one record, EAGAIN at
 * the end of the ring, EPIPE when the reader fell behind (skip and go on). */
static int read_kmsg(struct col_run *c, char **out, size_t *len)
{
	char *h = sr_hostpath("/dev/kmsg");
	if (!h)
		return -errno;
	int fd = open(h, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	free(h);
	if (fd < 0)
		return -errno;
	struct strbuf sb = STRBUF_INIT;
	char rec[8192];
	for (;;) {
		ssize_t n = read(fd, rec, sizeof rec);
		if (n > 0) {
			sb_add(&sb, rec, (size_t)n);
			if (rec[n - 1] != '\n')
				sb_adds(&sb, "\n");
			if (sb.len >= LOG_CAP)
				break;
			continue;
		}
		if (n < 0 && (errno == EINTR || errno == EPIPE))
			continue;
		break;
	}
	close(fd);
	*len = sb.len;
	*out = sb_detach(&sb);
	col_evidence_note(c, "read %zu bytes from /dev/kmsg", *len);
	return 0;
}

/* The kernel log as found: from which source, and why the others gave none. */
struct klog {
	char *buf;
	size_t len;
	const char *source; /* journalctl, dmesg, kmsg; NULL while none answered */
	int truncated;
	struct strbuf why;
	int denied, is_root;
};

/* Take a command's output as the log. */
static void klog_take(struct klog *k, const char *source, struct cmd_result *r)
{
	k->source = source;
	k->buf = r->out;
	k->len = r->out_len;
	k->truncated = r->out_truncated;
	r->out = NULL;
}

/* A log tool that hung or was killed fails the collector (how, in its
 * reason) and its result is freed: 1; else 0 and r is the caller's. */
static int klog_broke(struct col_run *c, const char *tool, struct cmd_result *r)
{
	if (r->outcome != RUN_TIMEOUT && r->outcome != RUN_SIGNALED)
		return 0;
	char *d = cmd_describe(r);
	col_set_state(c, COL_FAILED, "%s %s", tool, d);
	free(d);
	cmd_result_free(r);
	return 1;
}

/* journalctl -k over the window. Returns -1 when it hung or was killed
 * (the collector has failed). */
static int klog_journal(struct col_run *c, struct klog *k, time_t since)
{
	char at[32];
	snprintf(at, sizeof at, "@%lld", (long long)since);
	const char *jargv[] = { "journalctl", "-k", "--since", at, "-o", "short-iso", "--no-pager", "--quiet", NULL };
	struct cmd_result r;
	run_capped(c, jargv, 10000, &r);
	if (klog_broke(c, "journalctl -k", &r))
		return -1;
	if (r.outcome == RUN_EXITED && r.exit_code == 0 && r.out_len > 0) {
		klog_take(k, "journalctl", &r);
	} else if (r.outcome == RUN_NOT_FOUND) {
		sb_adds(&k->why, "no journalctl");
	} else if (r.outcome == RUN_EXITED && r.exit_code == 0) {
		/* --quiet hides both "No journal files were found" and the "not
		 * seeing messages" hint: an empty answer proves nothing, so the
		 * ring buffer gets a say */
		sb_adds(&k->why, "journalctl printed no kernel lines");
		k->denied = !k->is_root;
	} else {
		sb_addf(&k->why, "journalctl exit %d", r.exit_code);
		k->denied |= denied_text(r.err);
	}
	cmd_result_free(&r);
	return 0;
}

/* dmesg with ISO times. Returns -1 when it hung or was killed. */
static int klog_dmesg(struct col_run *c, struct klog *k)
{
	const char *dargv[] = { "dmesg", "--time-format", "iso", NULL };
	struct cmd_result r;
	run_capped(c, dargv, 5000, &r);
	if (klog_broke(c, "dmesg", &r))
		return -1;
	if (cmd_ok(&r)) {
		klog_take(k, "dmesg", &r);
	} else if (r.outcome == RUN_NOT_FOUND) {
		sb_adds(&k->why, "; no dmesg");
	} else {
		int d = denied_text(r.err);
		k->denied |= d;
		sb_addf(&k->why, "; dmesg %s", d ? "denied (Operation not permitted)" : "failed");
	}
	cmd_result_free(&r);
	return 0;
}

static void klog_kmsg(struct col_run *c, struct klog *k)
{
	int rc = read_kmsg(c, &k->buf, &k->len);
	if (rc == 0) {
		k->source = "kmsg";
	} else {
		if (rc == -EACCES || rc == -EPERM)
			k->denied = 1;
		sb_addf(&k->why, "; /dev/kmsg: %s", strerror(-rc));
	}
}

/* No source answered: denied (as root or not) or absent. */
static void klog_none(struct col_run *c, struct klog *k)
{
	if (k->denied && k->is_root)
		col_set_state(c, COL_DENIED, "no access to the kernel log even as root (%s): a container without "
			      "CAP_SYSLOG and no journal; read it on the host", sb_str(&k->why));
	else if (k->denied)
		col_set_state(c, COL_DENIED, "no access to the kernel log (%s); run as root or join the adm/systemd-journal group",
			      sb_str(&k->why));
	else
		col_set_state(c, COL_ABSENT, "no kernel log source (%s)", sb_str(&k->why));
}

/* Walk the log: the window's events, their counts, and the assessment. */
static void klog_assess(struct audit_ctx *ctx, json_t *f, const struct klog *k, time_t since, time_t now)
{
	struct walk w = {
		.since = since, .until = now, .btime = boot_time(),
		.events = json_array(), .counts = json_object(), .sxid_counts = json_object(),
	};
	w.cl = xid_classifier_new(ctx->xids, NULL);
	size_t nlines = 0;
	for (size_t i = 0; i < k->len; i++)
		if (k->buf[i] == '\n')
			nlines++;
	kmsg_parse_buffer(k->buf, k->len, on_event, &w);
	struct xid_assessment *a = xid_classifier_finish(w.cl);

	fact_set_int(f, "lines", (long long)nlines);
	fact_set_bool(f, "truncated", k->truncated);
	fact_set_int(f, "events_in_window", (long long)w.in_window);
	fact_set_int(f, "events_outside_window", (long long)w.outside);
	fact_set_int(f, "undated_events", (long long)w.undated);
	json_object_set_new(f, "events", w.events);
	json_object_set_new(f, "counts", w.counts);
	json_object_set_new(f, "sxid_counts", w.sxid_counts);
	fact_set_int(f, "fallen_off_bus_lines", (long long)w.fallen_off);
	fact_set_str(f, "worst_action", xid_action_name(a->action));
	if (a->worst_code)
		fact_set_int(f, "worst_code", a->worst_code);
	else
		fact_set_null(f, "worst_code");
	json_object_set_new(f, "assessment", xid_assessment_json(a));
	xid_assessment_free(a);
}

void collect_xid(struct audit_ctx *ctx, struct col_run *c)
{
	json_t *f = c->facts;
	time_t now = ctx->now ? ctx->now : clock_now();
	time_t since = now - XID_WINDOW_DAYS * 86400;
	struct klog k = { .why = STRBUF_INIT, .is_root = ctx->is_root };

	if (klog_journal(c, &k, since) || (!k.source && klog_dmesg(c, &k))) {
		sb_free(&k.why);
		return;
	}
	if (!k.source)
		klog_kmsg(c, &k);

	fact_set_str(f, "source", k.source);
	fact_set_int(f, "window_days", XID_WINDOW_DAYS);
	char iso[32];
	clock_iso(since, iso, sizeof iso);
	fact_set_str(f, "since", iso);
	clock_iso(now, iso, sizeof iso);
	fact_set_str(f, "until", iso);
	fact_set_str(f, "catalog_error", ctx->xids ? NULL : (ctx->xids_error ? ctx->xids_error : "XID catalog not loaded"));
	if (!k.source) {
		klog_none(c, &k);
		sb_free(&k.why);
		return;
	}
	sb_free(&k.why);

	/* journalctl -o short-iso and dmesg --time-format iso start every line
	 * with its date: output none of whose lines does is not a kernel log
	 * (a broken tool), and "no Xid in it" would be a claim about nothing */
	if (strcmp(k.source, "kmsg") != 0 && !has_dated_line(k.buf, k.len)) {
		col_set_state(c, COL_FAILED, "%s printed %zu byte(s), not one line in its ISO-dated format: not a kernel log",
			      k.source, k.len);
		free(k.buf);
		return;
	}
	klog_assess(ctx, f, &k, since, now);
	free(k.buf);
}
