/* Freshness made visible: the state of the last pass as Prometheus text,
 * written for node_exporter's textfile collector (atomic rename, so a
 * scrape never reads half a file) and served by a tiny HTTP responder.
 *
 * The responder is deliberately minimal: one connection at a time, a
 * request read of at most 4 KiB with a 1 s deadline, GET /metrics only,
 * Connection: close.  It is bound only where --listen says. */
#include "health/health.h"
#include "core/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static void esc(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			sb_adds(sb, "\\\\");
		else if (*s == '"')
			sb_adds(sb, "\\\"");
		else if (*s == '\n')
			sb_adds(sb, "\\n");
		else
			sb_add(sb, s, 1);
	}
}

static void head(struct strbuf *sb, const char *name, const char *type, const char *help)
{
	sb_addf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void counts(struct strbuf *sb, json_t *obj, const char *name, const char *help)
{
	const char *k;
	json_t *v;
	head(sb, name, "counter", help);
	json_object_foreach(obj, k, v) {
		sb_addf(sb, "%s{code=\"", name);
		esc(sb, k);
		sb_addf(sb, "\"} %lld\n", (long long)json_integer_value(v));
	}
}

char *health_metrics_text(json_t *entry, const char *node, const char *source)
{
	struct strbuf sb = STRBUF_INIT;
	/* the newest event's action, not the last pass's: a pass that saw
	 * nothing new must not hide what the node still needs */
	const char *last = json_string_value(json_object_get(json_object_get(entry, "last_event"),
							     "action"));
	json_t *drained = json_object_get(entry, "drained");

	head(&sb, "cmax_health_info", "gauge", "Node and log source this agent watches.");
	sb_adds(&sb, "cmax_health_info{node=\"");
	esc(&sb, node);
	sb_adds(&sb, "\",source=\"");
	esc(&sb, source);
	sb_adds(&sb, "\"} 1\n");
	head(&sb, "cmax_health_last_check_timestamp_seconds", "gauge",
	     "When the last health pass finished (Unix time); a stale value means the agent stopped.");
	sb_addf(&sb, "cmax_health_last_check_timestamp_seconds %lld\n",
		(long long)json_integer_value(json_object_get(entry, "last_check_ts")));
	head(&sb, "cmax_health_checks_total", "counter", "Health passes run.");
	sb_addf(&sb, "cmax_health_checks_total %lld\n",
		(long long)json_integer_value(json_object_get(entry, "passes")));
	counts(&sb, json_object_get(entry, "events_total"), "cmax_health_xid_events_total",
	       "Xid lines seen, by code.");
	counts(&sb, json_object_get(entry, "sxid_events_total"), "cmax_health_sxid_events_total",
	       "SXid lines seen, by code.");
	head(&sb, "cmax_health_action", "gauge",
	     "Action the newest Xid/SXid events called for (1 for that action, 0 for the others).");
	for (int a = 0; a < XA_COUNT; a++)
		sb_addf(&sb, "cmax_health_action{action=\"%s\"} %d\n", xid_action_name(a),
			last && !strcmp(last, xid_action_name(a)));
	head(&sb, "cmax_health_node_drained", "gauge",
	     "1 while the node is out of scheduling by cmax's own drain or cordon.");
	sb_addf(&sb, "cmax_health_node_drained %d\n", json_is_object(drained));
	head(&sb, "cmax_health_last_event_timestamp_seconds", "gauge",
	     "Time of the newest Xid/SXid event seen (Unix time; 0 when none yet).");
	sb_addf(&sb, "cmax_health_last_event_timestamp_seconds %lld\n",
		(long long)json_integer_value(json_object_get(entry, "last_event_ts")));
	head(&sb, "cmax_health_source_up", "gauge",
	     "1 when the last pass could read its log source; 0 when it could not (missing, vanished, "
	     "not a regular file, unreadable): nothing new can be seen.");
	sb_addf(&sb, "cmax_health_source_up %d\n",
		!json_is_string(json_object_get(entry, "last_error")));
	head(&sb, "cmax_health_unhealthy", "gauge",
	     "1 while the node needs an action cmax has not seen undone: a new or outstanding event "
	     "needing reset_gpu or stronger, cmax's own drain in place, or a pending node action.");
	sb_addf(&sb, "cmax_health_unhealthy %d\n", json_is_true(json_object_get(entry, "unhealthy")));
	head(&sb, "cmax_health_report_only", "gauge",
	     "1 when the last pass ran in --report-only mode (no scheduler command run).");
	sb_addf(&sb, "cmax_health_report_only %d\n",
		json_is_true(json_object_get(entry, "report_only")));
	/* every label value is written, 0 included, so that a missing series
	 * never stands for zero */
	const char *pend = json_string_value(json_object_get(json_object_get(entry, "pending"), "action"));
	json_t *fails = json_object_get(entry, "action_failures");
	static const char *const node_actions[] = { "drain", "resume" };
	head(&sb, "cmax_health_actions_pending", "gauge",
	     "Node actions that failed and are retried on every pass (kept in the state file).");
	for (size_t i = 0; i < 2; i++)
		sb_addf(&sb, "cmax_health_actions_pending{action=\"%s\"} %d\n", node_actions[i],
			pend && !strcmp(pend, node_actions[i]));
	head(&sb, "cmax_health_action_failures_total", "counter",
	     "Node actions (Slurm drain/resume, Kubernetes cordon+taint+condition or their undoing) "
	     "that failed, timed out or were refused, retries included.");
	for (size_t i = 0; i < 2; i++)
		sb_addf(&sb, "cmax_health_action_failures_total{action=\"%s\"} %lld\n", node_actions[i],
			(long long)json_integer_value(json_object_get(fails, node_actions[i])));
	return sb_detach(&sb);
}

int health_textfile_write(const char *dir, const char *text, char **err)
{
	char *tmp = xasprintf("%s/.cmax_health.prom.%ld", dir, (long)getpid());
	char *dst = xasprintf("%s/cmax_health.prom", dir);
	size_t len = strlen(text), off = 0;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), rc = -1;

	if (fd < 0) {
		*err = xasprintf("%s: %s", tmp, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*err = xasprintf("%s: %s", tmp, strerror(errno));
			close(fd);
			unlink(tmp);
			goto out;
		}
		off += (size_t)n;
	}
	if (close(fd) < 0 || rename(tmp, dst) < 0) {
		*err = xasprintf("%s: %s", dst, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(tmp);
	free(dst);
	return rc;
}

int http_listen(const char *addr_port, char **err)
{
	char host[256];
	const char *colon = strrchr(addr_port, ':');
	struct addrinfo hints = { 0 }, *ai = NULL;
	int fd = -1, one = 1, e;

	if (!colon || colon == addr_port || !colon[1] || (size_t)(colon - addr_port) >= sizeof(host)) {
		*err = xasprintf("--listen %s: expected ADDR:PORT (e.g. 127.0.0.1:9464)", addr_port);
		return -1;
	}
	snprintf(host, sizeof(host), "%.*s", (int)(colon - addr_port), addr_port);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = 0;
	}
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	if ((e = getaddrinfo(host, colon + 1, &hints, &ai)) != 0) {
		*err = xasprintf("--listen %s: %s", addr_port, gai_strerror(e));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 16) < 0) {
		*err = xasprintf("--listen %s: %s", addr_port, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static void send_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void http_serve_one(int lfd, const char *body)
{
	char req[4096];
	size_t have = 0;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	/* read the request head, 1 s at most */
	while (have < sizeof(req) - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 1000) <= 0)
			break;
		ssize_t n = recv(fd, req + have, sizeof(req) - 1 - have, 0);
		if (n <= 0)
			break;
		have += (size_t)n;
		req[have] = 0;
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	req[have] = 0;
	const char *status = "404 Not Found", *text = "not found; try /metrics\n";
	int head_only = !strncmp(req, "HEAD ", 5);
	if (!strncmp(req, "GET /metrics ", 13) || !strncmp(req, "HEAD /metrics ", 14) ||
	    !strncmp(req, "GET /metrics?", 13)) {
		status = "200 OK";
		text = body;
	} else if (strncmp(req, "GET ", 4) && !head_only) {
		status = "405 Method Not Allowed";
		text = "GET /metrics only\n";
	}
	char *hdr = xasprintf("HTTP/1.1 %s\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
			      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
			      status, strlen(text));
	send_all(fd, hdr, strlen(hdr));
	if (!head_only)
		send_all(fd, text, strlen(text));
	free(hdr);
	close(fd);
}
