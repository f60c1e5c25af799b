/* The /metrics endpoint on libmicrohttpd (see httpd.h for what it is for).
 *
 * Threads.  libmicrohttpd runs its own polling thread (epoll on Linux,
 * poll elsewhere: MHD_USE_AUTO_INTERNAL_THREAD) that accepts, reads,
 * answers and closes every connection; the watch loop never touches a
 * socket.  The answer is a copy of the latest metrics text, taken under
 * body_mu; the loop replaces that text after each pass, under the same
 * mutex, and never waits for anything else.
 *
 * Limits.  libmicrohttpd bounds the number of connections (in all, and per
 * client address) and how long a connection may stay silent.  It has no
 * bound on a connection's total time: a client that sends one byte every
 * 0.5 s is never idle, so its inactivity timeout never fires.  The
 * whole-request deadline is added here:
 *  - MHD_OPTION_NOTIFY_CONNECTION tells us, in MHD's thread, when a
 *    connection starts (we note its socket and the time, in a slot) and
 *    when it ends (we free the slot).  MHD calls the "closed" notification
 *    before it closes the socket (daemon.c, MHD_cleanup_connections and the
 *    failed-start path, 0.9.75), and both notifications take conn_mu;
 *  - a sweeper thread sleeps until the earliest deadline, and for each
 *    connection past it calls shutdown(fd, SHUT_RDWR) under conn_mu.  A
 *    slot is only ever in use while MHD still holds its socket open, so the
 *    descriptor cannot have been closed and reused by then; shutdown()
 *    does not close or free anything of MHD's, it only ends the TCP
 *    stream, which wakes MHD's poll (the socket reads EOF and cannot be
 *    written) and MHD closes the connection itself, through its usual path.
 *    Should that wake-up ever be missed, the idle timeout ends it anyway:
 *    a shut-down socket has no more activity.
 * So no connection lives longer than HTTPD_DEADLINE_MS (plus the moment
 * MHD takes to notice), whatever the client does.  Connections past the
 * total limit are not refused: MHD stops polling the listening socket
 * while it is at the limit, so they wait in the kernel's backlog and are
 * served as soon as a slot frees, at most one deadline later. */
#include "health/httpd.h"
#include "core/clock.h"
#include "core/numparse.h"
#include "core/strbuf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Connections at once, in all.  Declared: a node is scraped by one
 * Prometheus (two in an HA pair), each holding one connection to a target
 * at a time, plus an operator's curl; 32 is ten times that and bounds the
 * memory (32 x HTTPD_MEMORY_LIMIT) and descriptors a flood can take. */
#define HTTPD_CONNECTION_LIMIT 32
/* Connections at once from one client address.  Declared: a scraper needs
 * one (two while a slow scrape overlaps the next); 4 lets one host hold
 * an eighth of the slots at most, so one hostile or broken host cannot
 * keep the others out. */
#define HTTPD_PER_IP_LIMIT 4
/* Silence allowed on a connection (MHD's inactivity timeout, whole
 * seconds).  Declared: a client sends its request at once; 2 s with
 * nothing arriving is a stalled or idle peer, and frees its slot before
 * the deadline does. */
#define HTTPD_IDLE_TIMEOUT_S 2
/* From accept to the last byte of the answer, whatever the client does.
 * Declared: a scrape is a ~200-byte request and a ~3 KiB answer, done in
 * milliseconds on any network that can carry Prometheus; 3 s cuts a
 * trickling client (docs: one byte every 0.5 s) early, and a scrape that
 * waited in the backlog behind a full table of such clients still ends
 * within Prometheus's default scrape_timeout of 10 s. */
#define HTTPD_DEADLINE_MS 3000
/* Memory per connection for its request head and the answer's headers.
 * Declared: Prometheus's request head is ~300 bytes; 16 KiB holds any sane
 * header set, and MHD answers a larger one with 431 and closes. */
#define HTTPD_MEMORY_LIMIT ((size_t)16 << 10)
/* Connections the kernel queues while the table is full.  Declared: twice
 * the table, so scrapes arriving during a flood wait (at most one
 * deadline) instead of being refused; beyond it the kernel drops SYNs and
 * the client retries. */
#define HTTPD_BACKLOG 64

struct conn_slot {
	int used;
	int fd;
	int cut;		/* shut down by the sweeper; waiting for MHD to close it */
	long start_ms;		/* CLOCK_MONOTONIC, at accept */
};

struct health_httpd {
	struct MHD_Daemon *mhd;
	pthread_mutex_t body_mu;	/* body, body_len */
	char *body;			/* NULL until the first pass */
	size_t body_len;
	pthread_mutex_t conn_mu;	/* slots, stopping; with conn_cv */
	pthread_cond_t conn_cv;		/* a connection started, or stop */
	struct conn_slot slots[HTTPD_CONNECTION_LIMIT];
	int stopping;
	pthread_t sweeper;
	int sweeper_started;
};

/* ---- the deadline ---- */

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode what)
{
	struct health_httpd *s = cls;
	struct conn_slot *slot = *socket_context;

	pthread_mutex_lock(&s->conn_mu);
	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		slot = NULL;
		for (size_t i = 0; i < HTTPD_CONNECTION_LIMIT && !slot; i++)
			if (!s->slots[i].used)
				slot = &s->slots[i];
		if (ci && slot) {
			*slot = (struct conn_slot){ .used = 1, .fd = ci->connect_fd, .start_ms = clock_mono_ms() };
			*socket_context = slot;
			pthread_cond_signal(&s->conn_cv);
		} else if (ci) {
			/* more live connections than MHD's own limit lets in:
			 * cannot happen; an untimed connection must not either */
			shutdown(ci->connect_fd, SHUT_RDWR);
		}
	} else if (slot) {
		/* before MHD closes the socket: from here on the fd is not ours to touch */
		slot->used = 0;
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&s->conn_mu);
}

static void *sweep(void *arg)
{
	struct health_httpd *s = arg;

	pthread_mutex_lock(&s->conn_mu);
	while (!s->stopping) {
		long now = clock_mono_ms(), next = -1;
		for (size_t i = 0; i < HTTPD_CONNECTION_LIMIT; i++) {
			struct conn_slot *sl = &s->slots[i];
			if (!sl->used || sl->cut)
				continue;
			long due = sl->start_ms + HTTPD_DEADLINE_MS;
			if (due <= now) {
				shutdown(sl->fd, SHUT_RDWR);	/* see the top of the file */
				sl->cut = 1;
			} else if (next < 0 || due < next) {
				next = due;
			}
		}
		if (next < 0) {
			pthread_cond_wait(&s->conn_cv, &s->conn_mu);
		} else {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			long wait = next - now;
			ts.tv_sec += wait / 1000;
			ts.tv_nsec += (wait % 1000) * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&s->conn_cv, &s->conn_mu, &ts);
		}
	}
	pthread_mutex_unlock(&s->conn_mu);
	return NULL;
}

/* ---- answers ---- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *text,
			     size_t len, int allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)text,
								 MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;	/* out of memory: MHD closes the connection */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	/* one request per connection: the deadline is then the request's */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req)
{
	static int head_seen;
	struct health_httpd *s = cls;
	(void)version;
	(void)upload_data;

	if (!*req) {
		/* the head is in; answer once the body (if any) is read */
		*req = &head_seen;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;	/* a body is read and dropped */
		return MHD_YES;
	}
	if (strcmp(url, "/metrics")) {
		static const char nf[] = "not found; try /metrics\n";
		return reply(c, MHD_HTTP_NOT_FOUND, nf, sizeof(nf) - 1, 0);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		static const char na[] = "GET /metrics only\n";
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, na, sizeof(na) - 1, 1);
	}
	pthread_mutex_lock(&s->body_mu);
	enum MHD_Result ret;
	if (s->body) {
		ret = reply(c, MHD_HTTP_OK, s->body, s->body_len, 0);	/* copied under the mutex */
	} else {
		static const char np[] = "no health pass has run yet\n";
		ret = reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, np, sizeof(np) - 1, 0);
	}
	pthread_mutex_unlock(&s->body_mu);
	return ret;
}

/* ---- setup ---- */

static enum cmax_err parse_listen(const char *ap, struct sockaddr_storage *ss, socklen_t *sslen, char **err)
{
	char npe[NP_ERR_MAX], host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(ap, ':');
	int port, v6 = 0;

	if (!colon || colon == ap) {
		*err = xasprintf("--listen %s: expected ADDR:PORT (127.0.0.1:9464, [::1]:9464)", ap);
		return CE_USAGE;
	}
	if (np_port("--listen", colon + 1, &port, npe) < 0) {
		*err = xstrdup(npe);
		return CE_USAGE;
	}
	size_t hl = (size_t)(colon - ap);
	if (ap[0] == '[' && hl >= 2 && ap[hl - 1] == ']') {
		v6 = 1;
		ap++;
		hl -= 2;
	}
	if (hl >= sizeof(host)) {
		*err = xasprintf("--listen: '%.*s' is not a numeric IPv4 address or a bracketed IPv6 one",
				 (int)(colon - ap), ap);
		return CE_USAGE;
	}
	memcpy(host, ap, hl);
	host[hl] = 0;
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) == 1) {
			*sslen = sizeof(*a);
			return CE_OK;
		}
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) == 1) {
			*sslen = sizeof(*a);
			return CE_OK;
		}
	}
	*err = xasprintf("--listen: '%s' is not a numeric IPv4 address or a bracketed IPv6 one "
			 "([::1]:9464)", host);
	return CE_USAGE;
}

/* Our own socket, so that a failure says why (MHD's own bind only
 * returns NULL); MHD takes it over and closes it on stop. */
static int bind_listen(const char *ap, const struct sockaddr_storage *ss, socklen_t len, char **err)
{
	int one = 1;
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (ss->ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
	    bind(fd, (const struct sockaddr *)ss, len) < 0 || listen(fd, HTTPD_BACKLOG) < 0) {
		*err = xasprintf("--listen %s: cannot listen there: %s", ap, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

enum cmax_err health_httpd_start(const char *addr_port, struct health_httpd **out, char **err)
{
	struct sockaddr_storage ss;
	socklen_t sslen = 0;
	enum cmax_err rc;
	int fd;

	*out = NULL;
	*err = NULL;
	if ((rc = parse_listen(addr_port, &ss, &sslen, err)) != 0)
		return rc;
	if ((fd = bind_listen(addr_port, &ss, sslen, err)) < 0)
		return CE_UNAVAILABLE;

	struct health_httpd *s = xcalloc(1, sizeof(*s));
	pthread_condattr_t ca;
	pthread_mutex_init(&s->body_mu, NULL);
	pthread_mutex_init(&s->conn_mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->conn_cv, &ca);
	pthread_condattr_destroy(&ca);
	/* the server's threads (the sweeper, MHD's) start with every signal
	 * blocked, and so never take one: SIGTERM/SIGINT must land in the
	 * watch loop's thread, whose poll() they interrupt (core/interrupt.h) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int perr = pthread_create(&s->sweeper, NULL, sweep, s);
	if (perr == 0) {
		s->sweeper_started = 1;
		s->mhd = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, answer, s,
					  MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
					  MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTPD_CONNECTION_LIMIT,
					  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)HTTPD_PER_IP_LIMIT,
					  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTPD_IDLE_TIMEOUT_S,
					  MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTPD_MEMORY_LIMIT,
					  MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
					  MHD_OPTION_END);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (perr != 0) {
		*err = xasprintf("--listen %s: cannot start the deadline thread: %s", addr_port,
				 strerror(perr));
		close(fd);
		health_httpd_stop(s);
		return CE_UNAVAILABLE;
	}
	if (!s->mhd) {
		/* MHD closes the socket on some of its failure paths and not on
		 * others; left alone here (the command exits) rather than risk
		 * closing a descriptor twice */
		*err = xasprintf("--listen %s: the HTTP server (libmicrohttpd) did not start", addr_port);
		health_httpd_stop(s);
		return CE_UNAVAILABLE;
	}
	*out = s;
	return CE_OK;
}

void health_httpd_publish(struct health_httpd *s, const char *text)
{
	if (!s)
		return;
	char *copy = xstrdup(text ? text : "");
	pthread_mutex_lock(&s->body_mu);
	char *old = s->body;
	s->body = copy;
	s->body_len = strlen(copy);
	pthread_mutex_unlock(&s->body_mu);
	free(old);
}

void health_httpd_stop(struct health_httpd *s)
{
	if (!s)
		return;
	/* MHD first: it closes every connection (each "closed" notification
	 * frees its slot) and the listening socket, and joins its thread */
	if (s->mhd)
		MHD_stop_daemon(s->mhd);
	if (s->sweeper_started) {
		pthread_mutex_lock(&s->conn_mu);
		s->stopping = 1;
		pthread_cond_signal(&s->conn_cv);
		pthread_mutex_unlock(&s->conn_mu);
		pthread_join(s->sweeper, NULL);
	}
	pthread_cond_destroy(&s->conn_cv);
	pthread_mutex_destroy(&s->conn_mu);
	pthread_mutex_destroy(&s->body_mu);
	free(s->body);
	free(s);
}
