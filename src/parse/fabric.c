#include "parse/fabric.h"
#include "core/strbuf.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define for_each_line(line, text, len, pos, end)				\
	for (const char *pos = (text), *end = (text) ? (text) + (len) : NULL;	\
	     ((line) = parse_next_line(&pos, end)) != NULL;			\
	     free(line))

/* "0x" followed by 1..maxdigits hex digits and nothing else. */
static int parse_hex_word(const char *s, int maxdigits, unsigned long long *out)
{
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	s += 2;
	int n = 0;
	unsigned long long v = 0;
	for (; isxdigit((unsigned char)*s); s++, n++) {
		if (n >= maxdigits)
			return -1;
		v = v * 16 + (unsigned long long)(isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10));
	}
	if (n == 0 || *s)
		return -1;
	*out = v;
	return 0;
}

long fab_parse_pkey(const char *text, size_t len)
{
	if (!text)
		return -1;
	char *s = str_sanitize(text, len);
	unsigned long long v;
	long r = parse_hex_word(str_trim(s), 4, &v) == 0 ? (long)v : -1;
	free(s);
	return r;
}

/* ---- /proc/net/tcp ------------------------------------------------------ */

/* n hex digits at s (exactly), as a number. */
static int hex_n(const char *s, size_t n, uint32_t *out)
{
	uint32_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return -1;
		v = v * 16 + (uint32_t)(isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower((unsigned char)s[i]) - 'a' + 10);
	}
	*out = v;
	return 0;
}

/* "ADDR:PORT" of the kernel's table: 8 (IPv4) or 32 (IPv6) hex digits of
 * 32-bit words printed in host byte order, then 4 hex digits of port. */
static int decode_endpoint(const char *w, int ipv6, unsigned char addr[16], unsigned *port)
{
	size_t alen = ipv6 ? 32 : 8;
	if (strlen(w) != alen + 5 || w[alen] != ':')
		return -1;
	for (size_t i = 0; i < alen / 8; i++) {
		uint32_t word;
		if (hex_n(w + i * 8, 8, &word) != 0)
			return -1;
		/* little-endian host: the word's low byte is the first address byte */
		for (int b = 0; b < 4; b++)
			addr[i * 4 + (size_t)b] = (unsigned char)(word >> (8 * b));
	}
	uint32_t p;
	if (hex_n(w + alen + 1, 4, &p) != 0)
		return -1;
	*port = p;
	return 0;
}

static const char *endpoint_scope(const unsigned char *a, int ipv6)
{
	static const unsigned char zero[16], v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	if (!ipv6)
		return !memcmp(a, zero, 4) ? "any" : a[0] == 127 ? "loopback" : "address";
	if (!memcmp(a, zero, 16))
		return "any";
	if (!memcmp(a, zero, 15) && a[15] == 1)
		return "loopback";
	if (!memcmp(a, v4mapped, 12))
		return !memcmp(a + 12, zero, 4) ? "any" : a[12] == 127 ? "loopback" : "address";
	return "address";
}

json_t *fab_parse_proc_net_tcp(const char *text, size_t len, int ipv6, struct parse_count *count)
{
	json_t *arr = json_array();
	struct parse_count n = { 0, 0 };
	char *line;
	for_each_line(line, text, len, pos, end) {
		char *tok[8];
		char buf[512];
		int nt = parse_tokens(line, line + strlen(line), buf, sizeof buf, tok, 8);
		if (nt == 0 || !strcmp(tok[0], "sl"))
			continue; /* blank or the header */
		n.lines++;
		/* "N: local remote st tx:rx tr:when retrnsmt uid ..." */
		size_t l0 = strlen(tok[0]);
		unsigned char la[16], ra[16];
		unsigned lport, rport;
		uint32_t st;
		if (nt < 8 || l0 < 2 || tok[0][l0 - 1] != ':' || decode_endpoint(tok[1], ipv6, la, &lport) != 0 ||
		    decode_endpoint(tok[2], ipv6, ra, &rport) != 0 || strlen(tok[3]) != 2 || hex_n(tok[3], 2, &st) != 0)
			continue;
		char *e = NULL;
		errno = 0;
		long long uid = strtoll(tok[7], &e, 10);
		if (errno || e == tok[7] || *e || uid < 0)
			continue;
		n.recognised++;
		if (st != 0x0A) /* TCP_LISTEN */
			continue;
		char astr[INET6_ADDRSTRLEN];
		if (!inet_ntop(ipv6 ? AF_INET6 : AF_INET, la, astr, sizeof astr))
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "addr", json_string(astr));
		json_object_set_new(o, "port", json_integer(lport));
		json_object_set_new(o, "ipv6", json_boolean(ipv6));
		json_object_set_new(o, "scope", json_string(endpoint_scope(la, ipv6)));
		json_object_set_new(o, "uid", json_integer(uid));
		json_array_append_new(arr, o);
	}
	if (count)
		*count = n;
	return arr;
}

/* ---- nvidia-smi fabric query -------------------------------------------- */

static json_t *smi_value(const char *s)
{
	if (!*s || !strcmp(s, "N/A") || (s[0] == '[' && s[strlen(s) - 1] == ']'))
		return json_null();
	return json_string(s);
}

json_t *fab_parse_smi_fabric(const char *text, size_t len)
{
	static const char *const keys[] = { "bus_id", "state", "status", "clique_id", "cluster_uuid" };
	json_t *arr = json_array();
	char *line;
	for_each_line(line, text, len, pos, end) {
		char *f[6];
		int nf = 0;
		char *save = NULL;
		for (char *t = strtok_r(line, ",", &save); t && nf < 6; t = strtok_r(NULL, ",", &save))
			f[nf++] = str_trim(t);
		if (nf != 5 || !*f[0])
			continue;
		json_t *o = json_object();
		for (int i = 0; i < 5; i++)
			json_object_set_new(o, keys[i], smi_value(f[i]));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* ---- sminfo, opensm.conf ------------------------------------------------ */

/* The decimal number after the first occurrence of kw in s, or -1. */
static long long after_kw(const char *s, const char *kw)
{
	const char *p = strstr(s, kw);
	if (!p)
		return -1;
	p += strlen(kw);
	if (!isdigit((unsigned char)*p))
		return -1;
	char *e = NULL;
	errno = 0;
	long long v = strtoll(p, &e, 10);
	return errno || v > 0xffffffffLL ? -1 : v;
}

static void num_or_null(json_t *o, const char *k, long long v)
{
	json_object_set_new(o, k, v < 0 ? json_null() : json_integer(v));
}

json_t *fab_parse_sminfo(const char *text, size_t len)
{
	json_t *o = json_object();
	char *line;
	for_each_line(line, text, len, pos, end) {
		char *s = str_trim(line);
		if (!str_starts(s, "sminfo: sm lid ") || json_object_size(o))
			continue;
		num_or_null(o, "lid", after_kw(s, "sm lid "));
		const char *g = strstr(s, "sm guid ");
		if (g) {
			g += 8;
			size_t gl = strcspn(g, ", ");
			char *gs = xstrndup(g, gl);
			unsigned long long gv;
			json_object_set_new(o, "guid", parse_hex_word(gs, 16, &gv) == 0 ? json_string(gs) : json_null());
			free(gs);
		} else {
			json_object_set_new(o, "guid", json_null());
		}
		num_or_null(o, "activity", after_kw(s, "activity count "));
		num_or_null(o, "priority", after_kw(s, "priority "));
		long long st = after_kw(s, " state ");
		num_or_null(o, "state", st);
		const char *name = NULL;
		if (st >= 0) {
			const char *p = strstr(s, " state ") + 7;
			p += strspn(p, "0123456789");
			p += strspn(p, " ");
			name = *p ? p : NULL;
		}
		json_object_set_new(o, "state_name", name ? json_string(name) : json_null());
	}
	return o;
}

int fab_parse_opensm_smkey(const char *text, size_t len, unsigned long long *key)
{
	int found = 0;
	char *line;
	for_each_line(line, text, len, pos, end) {
		char *tok[3];
		char buf[256];
		int nt = parse_tokens(line, line + strlen(line), buf, sizeof buf, tok, 3);
		unsigned long long v;
		/* opensm keeps the last value of a repeated option */
		if (nt == 2 && !strcmp(tok[0], "sm_key")) {
			found = parse_hex_word(tok[1], 16, &v) == 0;
			if (found)
				*key = v;
		}
	}
	return found;
}

char *fab_parse_mlxconfig_value(const char *text, size_t len, const char *param)
{
	char *val = NULL, *line;
	for_each_line(line, text, len, pos, end) {
		char *tok[3];
		char buf[256];
		/* "        INTERNAL_CPU_RSHIM                          ENABLED(0)" (a
		 * modified value carries a '*' in front of the name) */
		int nt = parse_tokens(line, line + strlen(line), buf, sizeof buf, tok, 3);
		const char *name = nt >= 2 ? (tok[0][0] == '*' ? tok[0] + 1 : tok[0]) : NULL;
		if (nt == 2 && !val && !strcmp(name, param))
			val = xstrdup(tok[1]);
	}
	return val;
}

/* ---- Prometheus query API ------------------------------------------------ */

static void add_label(json_t *arr, json_t *metric, const char *key)
{
	const char *v = json_string_value(json_object_get(metric, key));
	if (!v)
		return;
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
		if (!strcmp(json_string_value(e), v))
			return;
	char *clean = str_sanitize(v, strlen(v));
	json_array_append_new(arr, json_string(clean));
	free(clean);
}

json_t *fab_parse_prom_query(const char *text, size_t len)
{
	json_t *o = json_object(), *inst = json_array(), *jobs = json_array();
	json_t *doc = text ? json_loadb(text, len, 0, NULL) : NULL;
	const char *st = json_string_value(json_object_get(doc, "status"));
	json_t *res = json_object_get(json_object_get(doc, "data"), "result");
	size_t series = 0, i;
	json_t *e;
	json_array_foreach(res, i, e) {
		json_t *m = json_object_get(e, "metric");
		if (!json_is_object(m))
			continue;
		series++;
		add_label(inst, m, "instance");
		add_label(jobs, m, "job");
	}
	char *sst = st ? str_sanitize(st, strlen(st)) : NULL;
	json_object_set_new(o, "status", sst ? json_string(sst) : json_null());
	free(sst);
	json_object_set_new(o, "series", json_integer((json_int_t)series));
	json_object_set_new(o, "instances", inst);
	json_object_set_new(o, "jobs", jobs);
	json_decref(doc);
	return o;
}

/* ---- IMEX ---------------------------------------------------------------- */

json_t *fab_parse_imex_nodes(const char *text, size_t len)
{
	json_t *arr = json_array();
	char *line;
	for_each_line(line, text, len, pos, end) {
		char *s = str_trim(line);
		if (!*s || *s == '#')
			continue;
		size_t n = strcspn(s, " \t#");
		s[n] = 0;
		json_array_append_new(arr, json_string(s));
	}
	return arr;
}
