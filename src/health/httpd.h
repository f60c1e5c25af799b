/* The /metrics endpoint of `cmax health watch --listen` (docs/health.md,
 * "State and freshness").
 *
 * It runs off the watch loop, in libmicrohttpd's own polling thread, so
 * that no client (slow, idle, many) can delay a pass or an action: the
 * loop only hands over the latest metrics text (health_httpd_publish,
 * a copy under a mutex) and never waits on a socket.  Every connection is
 * bounded in number (in all and per address), in idle time and in total
 * time from accept to the last byte (the limits and their basis are in
 * httpd.c). */
#ifndef CMAX_HEALTH_HTTPD_H
#define CMAX_HEALTH_HTTPD_H
#include "core/error.h"

struct health_httpd;

/* Parse ADDR:PORT (IPv4 "127.0.0.1:9464" or IPv6 "[::1]:9464", numeric
 * only, port 1..65535), bind it and start serving.  CE_OK with *out, or an
 * error with a one-line *err (malloc'd): CE_USAGE when the text is not
 * ADDR:PORT or the port is out of range, CE_UNAVAILABLE when the address
 * cannot be bound (in use, not an address of this host, a privileged port)
 * or the server cannot start. */
enum cmax_err health_httpd_start(const char *addr_port, struct health_httpd **out, char **err);

/* Serve text (copied) from now on.  Until the first call /metrics answers
 * 503: no pass has run, nothing is known yet. */
void health_httpd_publish(struct health_httpd *s, const char *text);

/* Stop serving, close every connection, free s (NULL is fine). */
void health_httpd_stop(struct health_httpd *s);
#endif
