/* `cmax health watch`: a pass whenever the log changes (inotify on the
 * file's directory, or poll() on /dev/kmsg), and on every heartbeat.
 *
 * SIGTERM, SIGINT and SIGHUP end the watch after the pass in flight: the
 * core handler only records them here (no forwarding), so a drain that is
 * being issued finishes (core/interrupt.h). */
#include "health/agent.h"
#include "core/clock.h"
#include "health/httpd.h"
#include "core/exitcodes.h"
#include "core/interrupt.h"
#include "core/runner.h"
#include "core/strbuf.h"

#include <errno.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

/* After the followed file goes (deleted or renamed), wait this long for
 * its replacement before calling the source down.  Declared: logrotate's
 * rename and create, and a syslog daemon's reopen on SIGHUP, happen within
 * milliseconds; a longer gap is an outage (lines written meanwhile go to
 * the renamed file), and is reported as one. */
#define ROTATE_GRACE_MS 500

#define WATCH_MASK (IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE | \
		    IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)

struct watcher {
	int ifd, wd, kfd;		/* inotify (files) or the kmsg ring */
	char *dir, *base;		/* the file's directory and name */
	long grace_until;		/* the file went: its replacement is awaited until then */
	struct health_httpd *httpd;	/* --listen: its own threads (httpd.h) */
};

/* Before the first pass: a bad or busy --listen stops watch at once. An
 * exit code: this file is the watch command's own loop (health_watch's
 * result is the command's exit status). */
static int watch_open(struct hctx *h, struct watcher *w)
{
	char *err = NULL;
	enum cmax_err e;
	if (h->o.listen && (e = health_httpd_start(h->o.listen, &w->httpd, &err)) != CE_OK) {
		fprintf(stderr, "cmax health: %s\n", err);
		free(err);
		return exit_code_for(e);
	}
	if (h->o.src.kind != HSRC_FILE) {
		w->kfd = hsrc_kmsg_open(h->o.src.path, &err);	/* the pass reports why not */
		free(err);
		if (w->kfd >= 0)
			lseek(w->kfd, 0, SEEK_END);
		return 0;
	}
	char *d = xstrdup(h->o.src.path), *b = xstrdup(h->o.src.path);
	w->dir = xstrdup(dirname(d));
	w->base = xstrdup(basename(b));
	free(d);
	free(b);
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->ifd < 0) {
		fprintf(stderr, "cmax health: inotify: %s\n", strerror(errno));
		return EXIT_OSERR;
	}
	/* the directory, not the file: rotation replaces the file.  A
	 * directory that is not there yet is an outage of the source
	 * (the pass says so) and is watched again on every heartbeat. */
	w->wd = inotify_add_watch(w->ifd, w->dir, WATCH_MASK);
	return 0;
}

static void watch_close(struct watcher *w)
{
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->kfd >= 0)
		close(w->kfd);
	health_httpd_stop(w->httpd);
	free(w->dir);
	free(w->base);
}

/* inotify events on the file's directory: 1 when the file changed. */
static int read_inotify(struct watcher *w)
{
	char buf[16384] __attribute__((aligned(8)));
	ssize_t got;
	int changed = 0;
	while ((got = read(w->ifd, buf, sizeof(buf))) > 0)
		for (char *q = buf; q < buf + got;) {
			struct inotify_event *ev = (struct inotify_event *)q;
			if (ev->wd == w->wd && (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF))) {
				/* the directory went: watch it again later */
				if (!(ev->mask & IN_IGNORED))
					inotify_rm_watch(w->ifd, w->wd);
				w->wd = -1;
				changed = 1;
			}
			if (ev->len && !strcmp(ev->name, w->base))
				changed = 1;
			q += sizeof(*ev) + ev->len;
		}
	return changed;
}

/* Drain the ring reader; the pass re-reads from the remembered seq. */
static void drain_kmsg(struct watcher *w, short revents)
{
	char buf[16384];
	ssize_t got;
	while ((got = read(w->kfd, buf, sizeof(buf))) > 0 || (got < 0 && errno == EPIPE))
		;
	if ((got < 0 && errno != EAGAIN && errno != EINTR) || (revents & (POLLERR | POLLHUP | POLLNVAL))) {
		close(w->kfd);	/* reopened on the next heartbeat */
		w->kfd = -1;
	}
}

/* Wait for the source or the next deadline: 1 when the source changed. */
static int wait_source(const struct hctx *h, struct watcher *w, long next_beat, int *failed)
{
	struct pollfd p[1];
	int n = 0, changed = 0;
	if (w->ifd >= 0 || w->kfd >= 0)
		p[n++] = (struct pollfd){ .fd = w->ifd >= 0 ? w->ifd : w->kfd, .events = POLLIN };
	long deadline = w->grace_until && w->grace_until < next_beat ? w->grace_until : next_beat;
	long wait = deadline - clock_mono_ms();
	if (wait < 0 || (h->src_more && !h->o.src.from_start))	/* read in steps: the next now */
		wait = 0;
	int r = poll(p, (nfds_t)n, (int)wait);
	*failed = r < 0 && errno != EINTR;
	if (h->src_more && h->o.src.kind == HSRC_FILE && !h->o.src.from_start)
		changed = 1;
	if (r > 0 && n && (p[0].revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL))) {
		if (w->ifd >= 0) {
			changed |= read_inotify(w);
		} else {
			drain_kmsg(w, p[0].revents);
			changed = 1;
		}
	}
	return changed;
}

/* On a heartbeat, retry what was not there: 1 when the watch came back. */
static int retry_source(const struct hctx *h, struct watcher *w)
{
	int changed = 0;
	char *err = NULL;
	if (w->ifd >= 0 && w->wd < 0 && (w->wd = inotify_add_watch(w->ifd, w->dir, WATCH_MASK)) >= 0)
		changed = 1;
	if (h->o.src.kind == HSRC_KMSG && w->kfd < 0) {
		w->kfd = hsrc_kmsg_open(h->o.src.path, &err);
		free(err);
	}
	return changed;
}

static int watch_loop(struct hctx *h, struct watcher *w)
{
	long next_beat = clock_mono_ms() + h->o.heartbeat_s * 1000L;
	while (!interrupt_pending()) {
		int failed;
		int changed = wait_source(h, w, next_beat, &failed);
		if (failed)
			break;
		long now = clock_mono_ms();
		int beat = now >= next_beat;
		if (beat)
			changed |= retry_source(h, w);
		if ((changed || w->grace_until) && h->o.src.kind == HSRC_FILE && !h->last_src_err &&
		    access(h->o.src.path, F_OK) < 0 && errno == ENOENT) {
			/* gone: a rotation's new file is on its way, or not */
			if (!w->grace_until)
				w->grace_until = now + ROTATE_GRACE_MS;
			if (now < w->grace_until)
				continue;
		}
		if (changed || beat || (w->grace_until && now >= w->grace_until)) {
			w->grace_until = 0;
			health_pass(h, 1);
			health_httpd_publish(w->httpd, h->metrics);
			next_beat = clock_mono_ms() + h->o.heartbeat_s * 1000L;
		}
	}
	return EXIT_OK;
}

int health_watch(struct hctx *h)
{
	struct watcher w = { .ifd = -1, .wd = -1, .kfd = -1 };
	interrupt_set_forwarding(0);
	interrupt_install();
	signal(SIGPIPE, SIG_IGN);	/* a reader that goes away (stdout, a /metrics client) is an error, not the end */

	int rc = watch_open(h, &w);
	if (rc == 0) {
		rc = health_pass(h, 0);
		health_httpd_publish(w.httpd, h->metrics);
		if (rc == EXIT_OK || rc == EXIT_UNHEALTHY || rc == EXIT_NOINPUT || rc == EXIT_UNAVAILABLE)
			rc = watch_loop(h, &w);
	}
	watch_close(&w);
	return rc;
}
