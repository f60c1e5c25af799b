#include "collect/prom_probe.h"
#include "collect/collectors.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "parse/fabric.h"
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

/* An answer to `up` is one short series per scrape target: 4 MiB is tens of
 * thousands of targets, and a server that sends more is not read further. */
#define PROM_BODY_CAP (4u << 20)

struct body {
	struct strbuf sb;
	int over;
};

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
	struct body *b = ud;
	size_t len = size * n;
	if (b->sb.len + len > PROM_BODY_CAP) {
		b->over = 1;
		return 0;
	}
	sb_add(&b->sb, p, len);
	return len;
}

/* The query URL: the base without its userinfo (the probe asks what an
 * anonymous client gets), path + /api/v1/query, query=up. NULL when libcurl
 * cannot parse the base. */
static CURLU *query_url(const char *base)
{
	CURLU *u = curl_url();
	char *path = NULL;
	if (!u || curl_url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK) {
		curl_url_cleanup(u);
		return NULL;
	}
	curl_url_set(u, CURLUPART_USER, NULL, 0);
	curl_url_set(u, CURLUPART_PASSWORD, NULL, 0);
	curl_url_get(u, CURLUPART_PATH, &path, 0);
	size_t n = path ? strlen(path) : 0;
	while (n && path[n - 1] == '/')
		n--;
	char *np = xasprintf("%.*s/api/v1/query", (int)n, path ? path : "");
	curl_url_set(u, CURLUPART_PATH, np, 0);
	curl_url_set(u, CURLUPART_QUERY, "query=up", 0);
	curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0);
	free(np);
	curl_free(path);
	return u;
}

static void outcome(json_t *o, long code, CURLcode rc, struct body *b, const char *err)
{
	if (rc != CURLE_OK && !b->over) {
		fact_set_str(o, "probe", "unreachable");
		fact_set_str(o, "message", *err ? err : curl_easy_strerror(rc));
		return;
	}
	fact_set_int(o, "http_status", code);
	if (code == 401 || code == 403) {
		fact_set_str(o, "probe", "denied");
		return;
	}
	if (code != 200) {
		fact_set_str(o, "probe", "http_error");
		return;
	}
	json_t *q = fab_parse_prom_query(b->sb.buf, b->sb.len);
	const char *st = fact_str(q, "status");
	fact_set_str(o, "probe", st && !strcmp(st, "success") ? "answered" : "not_api");
	if (b->over)
		fact_set_str(o, "message", "answer larger than 4 MiB: not read further");
	json_object_update(o, q);
	json_decref(q);
}

void prom_probe(struct col_run *c, json_t *f)
{
	json_t *o = json_object();
	const char *base = getenv("PROMETHEUS_URL");
	json_object_set_new(f, "prometheus", o);
	if (!base || !*base) {
		fact_set_null(o, "url");
		fact_set_str(o, "probe", "not_configured");
		return;
	}
	char *shown = redact_urls(base);
	fact_set_str(o, "url", shown);
	CURLU *u = (str_starts(base, "http://") || str_starts(base, "https://")) ? query_url(base) : NULL;
	CURL *e = u ? curl_easy_init() : NULL;
	if (!e) {
		fact_set_str(o, "probe", "not_http");
		col_evidence_note(c, "PROMETHEUS_URL=%s is not an http(s) URL: not queried", shown);
		curl_url_cleanup(u);
		free(shown);
		return;
	}
	struct body b = { STRBUF_INIT, 0 };
	char err[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(e, CURLOPT_CURLU, u);
	curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, 3L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, 5L);
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, err);
	CURLcode rc = curl_easy_perform(e);
	long code = 0;
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
	outcome(o, code, rc, &b, err);
	col_evidence_note(c, "GET %s/api/v1/query?query=up without credentials: %s (HTTP %ld)", shown,
			  fact_str(o, "probe"), code);
	sb_free(&b.sb);
	curl_easy_cleanup(e);
	curl_url_cleanup(u);
	free(shown);
}
