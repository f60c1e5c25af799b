/* Front-end network server and probe (see netfront.h). One port serves TCP
 * and UDP. A TCP client's first byte picks the mode: 'E' echoes (round-trip
 * time), 'S' sinks and, at the client's half-close, answers the byte count
 * as 8 big-endian bytes (throughput measured to the server's receipt, not to
 * the local socket buffer). UDP datagrams are echoed as they are (loss and
 * UDP round trip). Every loop is bounded in count and in time. */
#include "bench/netfront.h"
#include "core/clock.h"
#include "core/numparse.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NF_MAXCONN 32
#define NF_MAGIC 0x434d5850u /* "CMXP" */
#define NF_MAXUDP 100000

void nf_probe_defaults(struct nf_probe_opts *o)
{
	o->tput_s = 2;
	o->tput_bytes = 8e9;
	o->udp_count = 200;
	o->udp_gap_us = 1000;
	o->echo_count = 20;
	o->connect_ms = 2000;
}

int nf_split(const char *hp, char *host, size_t hn, char *port, size_t pn)
{
	const char *colon;
	if (!hp || !*hp)
		return -1;
	if (hp[0] == '[') {
		const char *rb = strchr(hp, ']');
		if (!rb || (size_t)(rb - hp - 1) >= hn)
			return -1;
		snprintf(host, hn, "%.*s", (int)(rb - hp - 1), hp + 1);
		colon = rb[1] == ':' ? rb + 1 : NULL;
		if (rb[1] && !colon)
			return -1;
	} else {
		colon = strrchr(hp, ':');
		if (colon && strchr(hp, ':') != colon)
			colon = NULL; /* a bare IPv6 address */
		size_t l = colon ? (size_t)(colon - hp) : strlen(hp);
		if (l == 0 || l >= hn)
			return -1;
		snprintf(host, hn, "%.*s", (int)l, hp);
	}
	if (colon) {
		int p;
		if (np_port("port", colon + 1, &p, NULL) != 0) /* core/numparse.h: 1..65535, digits only */
			return -1;
		snprintf(port, pn, "%d", p);
	} else {
		snprintf(port, pn, "%d", NF_DEFAULT_PORT);
	}
	return 0;
}

static struct addrinfo *resolve(const char *hp, int socktype, int passive, char *err, size_t en)
{
	char host[256], port[16];
	if (nf_split(hp, host, sizeof host, port, sizeof port)) {
		snprintf(err, en, "bad address '%s' (want HOST:PORT)", hp);
		return NULL;
	}
	struct addrinfo hints, *ai = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = socktype;
	hints.ai_flags = passive ? AI_PASSIVE : 0;
	int rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		snprintf(err, en, "%s: %s", host, gai_strerror(rc));
		return NULL;
	}
	return ai;
}

static void nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* ---- server ------------------------------------------------------------ */

struct conn {
	int fd;
	char mode;
	uint64_t got;
};

int nf_serve(const char *hostport, double time_s, double bytes_max)
{
	char err[300];
	struct addrinfo *ta = resolve(hostport, SOCK_STREAM, 1, err, sizeof err);
	struct addrinfo *ua = ta ? resolve(hostport, SOCK_DGRAM, 1, err, sizeof err) : NULL;
	if (!ta || !ua) {
		fprintf(stderr, "cmax bench net --serve: %s\n", err);
		if (ta)
			freeaddrinfo(ta);
		return 64;
	}
	signal(SIGPIPE, SIG_IGN);
	int one = 1;
	int lfd = socket(ta->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ufd = socket(ua->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (lfd >= 0)
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (lfd < 0 || ufd < 0 || bind(lfd, ta->ai_addr, ta->ai_addrlen) || listen(lfd, 16) ||
	    bind(ufd, ua->ai_addr, ua->ai_addrlen)) {
		fprintf(stderr, "cmax bench net --serve %s: %s\n", hostport, strerror(errno));
		freeaddrinfo(ta);
		freeaddrinfo(ua);
		if (lfd >= 0)
			close(lfd);
		if (ufd >= 0)
			close(ufd);
		return 71;
	}
	freeaddrinfo(ta);
	freeaddrinfo(ua);
	nonblock(lfd);
	nonblock(ufd);
	fprintf(stderr, "cmax bench net: serving %s (tcp echo/sink, udp echo) for at most %.0f s / %.0f MB\n", hostport,
		time_s, bytes_max / 1e6);
	struct conn c[NF_MAXCONN];
	int nc = 0;
	double total = 0;
	long long deadline = clock_mono_us() + (long long)(time_s * 1e6);
	static char buf[1 << 20];
	while (clock_mono_us() < deadline && total < bytes_max) {
		struct pollfd pf[NF_MAXCONN + 2];
		pf[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = ufd, .events = POLLIN };
		for (int i = 0; i < nc; i++)
			pf[2 + i] = (struct pollfd){ .fd = c[i].fd, .events = POLLIN };
		long long left = (deadline - clock_mono_us()) / 1000;
		int n = poll(pf, (nfds_t)(2 + nc), left > 200 ? 200 : (int)(left < 0 ? 0 : left));
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (pf[1].revents & POLLIN) {
			for (int k = 0; k < 256; k++) { /* bounded drain */
				struct sockaddr_storage from;
				socklen_t fl = sizeof from;
				ssize_t r = recvfrom(ufd, buf, 2048, 0, (struct sockaddr *)&from, &fl);
				if (r <= 0)
					break;
				total += (double)r;
				sendto(ufd, buf, (size_t)r, 0, (struct sockaddr *)&from, fl);
			}
		}
		for (int i = 0; i < nc; i++) {
			if (!(pf[2 + i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t r = read(c[i].fd, buf, sizeof buf);
			int done = r <= 0;
			if (r > 0) {
				total += (double)r;
				size_t off = 0;
				if (!c[i].mode) {
					c[i].mode = buf[0];
					off = 1;
				}
				if (c[i].mode == 'E') {
					/* small messages; a short write ends the session */
					if ((size_t)r > off && write(c[i].fd, buf + off, (size_t)r - off) != r - (ssize_t)off)
						done = 1;
				} else if (c[i].mode == 'S') {
					c[i].got += (uint64_t)r - off;
				} else {
					done = 1;
				}
			} else if (r == 0 && c[i].mode == 'S') {
				unsigned char b[8];
				for (int k = 0; k < 8; k++)
					b[k] = (unsigned char)(c[i].got >> (56 - 8 * k));
				if (write(c[i].fd, b, 8) != 8)
					done = 1;
			}
			if (done) {
				close(c[i].fd);
				c[i] = c[--nc];
				pf[2 + i] = pf[2 + nc];
				i--;
			}
		}
		/* after the loop above: pf[] has no slot for a new connection */
		if ((pf[0].revents & POLLIN) && nc < NF_MAXCONN) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0) {
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
				c[nc++] = (struct conn){ .fd = fd };
			}
		}
	}
	for (int i = 0; i < nc; i++)
		close(c[i].fd);
	close(lfd);
	close(ufd);
	fprintf(stderr, "cmax bench net: server %s done (%.0f bytes)\n", hostport, total);
	return 0;
}

/* ---- client ------------------------------------------------------------ */

static int tcp_connect(const char *target, int ms, long long *took_us, char *err, size_t en)
{
	struct addrinfo *ai = resolve(target, SOCK_STREAM, 0, err, en);
	if (!ai)
		return -1;
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	long long t0 = clock_mono_us();
	if (fd < 0 || (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)) {
		snprintf(err, en, "connect %s: %s", target, strerror(errno));
		freeaddrinfo(ai);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	freeaddrinfo(ai);
	struct pollfd pf = { .fd = fd, .events = POLLOUT };
	int e = 0;
	socklen_t el = sizeof e;
	if (poll(&pf, 1, ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) || e) {
		snprintf(err, en, "connect %s: %s", target, e ? strerror(e) : "timed out");
		close(fd);
		return -1;
	}
	*took_us = clock_mono_us() - t0;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

/* Write or read exactly n bytes before the deadline; 0 or -1. */
static int io_full(int fd, char *p, size_t n, int wr, long long deadline)
{
	size_t done = 0;
	while (done < n) {
		long long left = (deadline - clock_mono_us()) / 1000;
		if (left <= 0)
			return -1;
		struct pollfd pf = { .fd = fd, .events = wr ? POLLOUT : POLLIN };
		if (poll(&pf, 1, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
			return -1;
		ssize_t r = wr ? write(fd, p + done, n - done) : read(fd, p + done, n - done);
		if (r == 0 && !wr)
			return -1;
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)r;
	}
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(round(v * 1000) / 1000);
}

static void probe_echo(const char *target, const struct nf_probe_opts *o, json_t *out, char *err, size_t en)
{
	long long took;
	int fd = tcp_connect(target, o->connect_ms, &took, err, en);
	if (fd < 0)
		return;
	json_object_set_new(out, "connect_us", json_integer(took));
	int n = o->echo_count > 1000 ? 1000 : o->echo_count, got = 0;
	long long *s = xcalloc((size_t)(n > 0 ? n : 1), sizeof *s);
	char msg[64];
	memset(msg, 'x', sizeof msg);
	msg[0] = 'E';
	long long dl = clock_mono_us() + (long long)o->connect_ms * 1000;
	if (io_full(fd, msg, 1, 1, dl) == 0) {
		for (int i = 0; i < n; i++) {
			char back[63];
			long long t0 = clock_mono_us(), d = t0 + (long long)o->connect_ms * 1000;
			if (io_full(fd, msg + 1, 63, 1, d) || io_full(fd, back, 63, 0, d))
				break;
			s[got++] = clock_mono_us() - t0;
		}
	}
	close(fd);
	if (got) {
		qsort(s, (size_t)got, sizeof *s, cmp_ll);
		json_t *r = json_object();
		json_object_set_new(r, "samples", json_integer(got));
		json_object_set_new(r, "min", json_integer(s[0]));
		json_object_set_new(r, "p50", json_integer(s[got / 2]));
		json_object_set_new(r, "max", json_integer(s[got - 1]));
		json_object_set_new(out, "rtt_us", r);
	} else if (!*err) {
		snprintf(err, en, "TCP echo to %s: no reply", target);
	}
	free(s);
}

static void probe_udp(const char *target, const struct nf_probe_opts *o, json_t *out, char *err, size_t en)
{
	struct addrinfo *ai = resolve(target, SOCK_DGRAM, 0, err, en);
	if (!ai)
		return;
	int fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		snprintf(err, en, "udp %s: %s", target, strerror(errno));
		freeaddrinfo(ai);
		if (fd >= 0)
			close(fd);
		return;
	}
	freeaddrinfo(ai);
	int n = o->udp_count < 1 ? 1 : o->udp_count > NF_MAXUDP ? NF_MAXUDP : o->udp_count;
	unsigned char *seen = xcalloc((size_t)n, 1);
	long long *rtt = xcalloc((size_t)n, sizeof *rtt);
	int sent = 0, recv_n = 0;
	uint32_t nonce = (uint32_t)clock_mono_us() ^ (uint32_t)getpid();
	long long next = clock_mono_us(), last_send = 0, hard = clock_mono_us() + (long long)n * (o->udp_gap_us + 1000) + 5000000;
	while (clock_mono_us() < hard) {
		long long t = clock_mono_us();
		if (sent < n && t >= next) {
			unsigned char p[20];
			uint32_t v[3] = { htonl(NF_MAGIC), htonl(nonce), htonl((uint32_t)sent) };
			memcpy(p, v, 12);
			memcpy(p + 12, &t, 8);
			if (send(fd, p, sizeof p, 0) == (ssize_t)sizeof p || errno != EAGAIN) {
				sent++;
				last_send = t;
			}
			next = t + o->udp_gap_us;
		}
		if (sent == n && (recv_n == n || t - last_send > 500000))
			break;
		long long wait = sent < n ? (next - t) / 1000 : 50;
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		poll(&pf, 1, wait < 0 ? 0 : (int)wait);
		for (int k = 0; k < 64; k++) {
			unsigned char p[64];
			ssize_t r = recv(fd, p, sizeof p, 0);
			if (r < 0)
				break;
			uint32_t v[3];
			long long ts;
			if (r != 20)
				continue;
			memcpy(v, p, 12);
			memcpy(&ts, p + 12, 8);
			uint32_t seq = ntohl(v[2]);
			if (ntohl(v[0]) != NF_MAGIC || ntohl(v[1]) != nonce || seq >= (uint32_t)sent || seen[seq])
				continue;
			seen[seq] = 1;
			rtt[recv_n++] = clock_mono_us() - ts;
		}
	}
	close(fd);
	json_t *u = json_object();
	json_object_set_new(u, "sent", json_integer(sent));
	json_object_set_new(u, "received", json_integer(recv_n));
	json_object_set_new(u, "loss_pct", sent ? json_real(round(1e4 * (sent - recv_n) / sent) / 100) : json_null());
	if (recv_n) {
		qsort(rtt, (size_t)recv_n, sizeof *rtt, cmp_ll);
		json_object_set_new(u, "rtt_p50_us", json_integer(rtt[recv_n / 2]));
	} else {
		json_object_set_new(u, "rtt_p50_us", json_null());
	}
	json_object_set_new(out, "udp", u);
	free(seen);
	free(rtt);
}

static void probe_tput(const char *target, const struct nf_probe_opts *o, json_t *out, char *err, size_t en)
{
	long long took;
	int fd = tcp_connect(target, o->connect_ms, &took, err, en);
	if (fd < 0)
		return;
	static char buf[1 << 18];
	memset(buf, 0x5a, sizeof buf);
	buf[0] = 'S';
	double sent = 0;
	long long t0 = clock_mono_us(), stop = t0 + (long long)(o->tput_s * 1e6);
	int first = 1, bad = 0;
	while (clock_mono_us() < stop && sent < o->tput_bytes) {
		struct pollfd pf = { .fd = fd, .events = POLLOUT };
		long long left = (stop - clock_mono_us()) / 1000;
		if (poll(&pf, 1, left > 200 ? 200 : (int)(left < 0 ? 0 : left)) <= 0)
			continue;
		ssize_t r = write(fd, buf, sizeof buf);
		if (r < 0 && errno != EAGAIN && errno != EINTR) {
			bad = 1;
			break;
		}
		if (r > 0) {
			sent += (double)r - (first ? 1 : 0);
			if (first)
				buf[0] = 0x5a;
			first = 0;
		}
	}
	shutdown(fd, SHUT_WR);
	unsigned char b[8];
	long long dl = clock_mono_us() + (long long)o->connect_ms * 1000 + 5000000;
	int acked = !bad && io_full(fd, (char *)b, 8, 0, dl) == 0;
	long long t1 = clock_mono_us();
	close(fd);
	json_t *t = json_object();
	if (acked) {
		uint64_t got = 0;
		for (int k = 0; k < 8; k++)
			got = got << 8 | b[k];
		double sec = (double)(t1 - t0) / 1e6;
		json_object_set_new(t, "bytes", json_integer((json_int_t)got));
		json_object_set_new(t, "seconds", num_or_null(sec));
		json_object_set_new(t, "gbit_s", num_or_null(sec > 0 ? got * 8.0 / sec / 1e9 : NAN));
	} else {
		json_object_set_new(t, "bytes", json_null());
		json_object_set_new(t, "seconds", json_null());
		json_object_set_new(t, "gbit_s", json_null());
		if (!*err)
			snprintf(err, en, "TCP throughput to %s: the server did not confirm the byte count", target);
	}
	json_object_set_new(out, "tcp", t);
}

json_t *nf_probe(const char *target, const struct nf_probe_opts *o)
{
	json_t *out = json_object();
	char err[400] = "";
	signal(SIGPIPE, SIG_IGN);
	json_object_set_new(out, "target", json_string(target));
	probe_echo(target, o, out, err, sizeof err);
	if (!*err)
		probe_udp(target, o, out, err, sizeof err);
	if (!*err)
		probe_tput(target, o, out, err, sizeof err);
	json_object_set_new(out, "ok", json_boolean(!*err));
	if (*err)
		json_object_set_new(out, "error", json_string(err));
	return out;
}
