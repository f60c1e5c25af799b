/* Slurm text formats. Slurm prints free text (node OS strings, drain
 * reasons) inside otherwise regular Key=Value output, so record parsing
 * glues words without '=' to the previous value instead of guessing. */
#include "parse/slurm.h"
#include "parse/procfs.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define for_each_line(line, text, len, pos, end)				\
	for (const char *pos = (text), *end = (text) ? (text) + (len) : NULL;	\
	     ((line) = parse_next_line(&pos, end)) != NULL;			\
	     free(line))

static void set_value(json_t *o, const char *key, const char *val)
{
	if (!val || !strcmp(val, "(null)"))
		json_object_set_new(o, key, json_null());
	else
		json_object_set_new(o, key, json_string(val));
}

json_t *parse_scontrol_config(const char *text, size_t len)
{
	json_t *o = json_object();
	char *line;
	for_each_line(line, text, len, pos, end) {
		char *eq = strstr(line, " = ");
		if (!eq)
			continue;
		*eq = 0;
		char *k = str_trim(line), *v = str_trim(eq + 3);
		if (!*k || strchr(k, ' ') || json_object_get(o, k))
			continue;
		set_value(o, k, v);
	}
	return o;
}

/* A word that starts a field: an identifier followed by '='. */
static int key_word(const char *w, size_t *klen)
{
	size_t i = 0;
	if (!isalpha((unsigned char)w[0]))
		return 0;
	while (isalnum((unsigned char)w[i]) || w[i] == '_' || w[i] == ':' || w[i] == '.' || w[i] == '[' || w[i] == ']')
		i++;
	if (w[i] != '=')
		return 0;
	*klen = i;
	return 1;
}

/* The end of the word at p (the next blank or the end of the line). */
static char *word_end(char *p)
{
	while (*p && *p != ' ' && *p != '\t')
		p++;
	return p;
}

json_t *parse_scontrol_records(const char *text, size_t len)
{
	json_t *arr = json_array();
	char *line;
	for_each_line(line, text, len, pos, end) {
		json_t *rec = json_object();
		struct strbuf val = STRBUF_INIT;
		char *key = NULL, *p = line;
		for (;;) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p)
				break;
			size_t kl;
			char *w = p;
			if (key_word(w, &kl)) {
				if (key)
					set_value(rec, key, sb_str(&val));
				free(key);
				key = xstrndup(w, kl);
				sb_reset(&val);
				if (!strcmp(key, "Reason")) {
					/* free text: the rest of the line, its own
					 * spacing kept, '=' and brackets included */
					sb_adds(&val, str_trim(w + kl + 1));
					break;
				}
				w += kl + 1;
			} else if (!key) {
				/* words before the first field belong to nothing */
				p = word_end(w);
				continue;
			} else if (val.len) {
				sb_adds(&val, " ");
			}
			p = word_end(w);
			sb_add(&val, w, (size_t)(p - w));
		}
		if (key)
			set_value(rec, key, sb_str(&val));
		free(key);
		sb_free(&val);
		if (json_object_size(rec))
			json_array_append_new(arr, rec);
		else
			json_decref(rec);
	}
	return arr;
}

long long slurm_gres_gpus(const char *gres)
{
	if (!gres || !strcmp(gres, "(null)"))
		return 0;
	long long total = 0;
	int depth = 0, bad = 0;
	/* split on commas outside parentheses: "gpu:h100:8(S:0-1)" */
	char *s = xstrdup(gres), *item = s;
	for (char *p = s;; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		if (*p == 0 || (*p == ',' && depth == 0)) {
			int last = *p == 0;
			*p = 0;
			char *t = str_trim(item);
			char *paren = strchr(t, '(');
			if (paren)
				*paren = 0;
			if (!strncmp(t, "gpu", 3) && (t[3] == 0 || t[3] == ':')) {
				/* gpu | gpu:N | gpu:type:N ; the count is the last field when numeric */
				char *colon = strrchr(t, ':');
				char *endp;
				long long n = colon ? strtoll(colon + 1, &endp, 10) : 1;
				/* a type without a count ("gpu:h100") means one; nonsense stays unknown */
				if (colon == t + 3 && endp == colon + 1 && colon[1] && !isdigit((unsigned char)colon[1]))
					n = 1;
				else if (colon && (endp == colon + 1 || *endp || n > 1000000))
					n = -1;
				if (n < 0)
					bad = 1;
				else
					total += n;
			}
			if (last)
				break;
			item = p + 1;
		}
	}
	free(s);
	return bad ? -1 : total;
}

/*
 * Where the " [user@time]" stamp Slurm appends to a reason starts in s, or
 * NULL. The reason's own text may hold brackets ("x [z]", "[weird"), so the
 * stamp is the last " [" that is followed by a user name (no blank, '@' or
 * bracket), '@' and a time closed by ']'; the time is not checked further
 * (SLURM_TIME_FORMAT changes it). A multi-line reason continues after the
 * stamp: that rest is dropped with it.
 */
static char *reason_stamp(char *s, char **user, char **time)
{
	for (char *b = s + strlen(s); b > s + 1; b--) {
		if (b[-1] != '[' || b[-2] != ' ')
			continue;
		char *at = b;
		while (*at && !strchr(" @[]", *at))
			at++;
		if (*at != '@' || at == b)
			continue;
		char *close = strchr(at + 1, ']');
		if (!close || close == at + 1 || memchr(at + 1, '[', (size_t)(close - at - 1)))
			continue;
		*user = b;
		*at = 0;
		*time = at + 1;
		*close = 0;
		return b - 2;
	}
	return NULL;
}

json_t *slurm_reason_split(const char *reason)
{
	json_t *o = json_object();
	if (!reason) {
		json_object_set_new(o, "text", json_null());
		json_object_set_new(o, "user", json_null());
		json_object_set_new(o, "time", json_null());
		return o;
	}
	char *s = xstrdup(reason);
	char *user = NULL, *time = NULL;
	char *stamp = reason_stamp(s, &user, &time);
	if (stamp)
		*stamp = 0;
	json_object_set_new(o, "text", json_string(str_trim(s)));
	json_object_set_new(o, "user", user ? json_string(user) : json_null());
	json_object_set_new(o, "time", time ? json_string(time) : json_null());
	free(s);
	return o;
}

static json_t *split_list(const char *v, const char *seps)
{
	json_t *a = json_array();
	if (!v || !strcmp(v, "(null)"))
		return a;
	char *s = xstrdup(v), *save = NULL;
	for (char *t = strtok_r(s, seps, &save); t; t = strtok_r(NULL, seps, &save))
		json_array_append_new(a, json_string(t));
	free(s);
	return a;
}

static void copy_str(json_t *dst, const char *dk, const json_t *rec, const char *sk)
{
	json_t *v = json_object_get(rec, sk);
	json_object_set_new(dst, dk, json_is_string(v) ? json_incref(v) : json_null());
}

static void copy_int(json_t *dst, const char *dk, const json_t *rec, const char *sk)
{
	const char *v = json_string_value(json_object_get(rec, sk));
	char *end;
	long long n = v ? strtoll(v, &end, 10) : 0;
	json_object_set_new(dst, dk, v && end != v && *end == 0 ? json_integer(n) : json_null());
}

json_t *slurm_node_summary(const json_t *rec)
{
	json_t *o = json_object();
	copy_str(o, "name", rec, "NodeName");
	copy_str(o, "hostname", rec, "NodeHostName");
	copy_str(o, "addr", rec, "NodeAddr");
	const char *st = json_string_value(json_object_get(rec, "State"));
	json_t *flags = json_array();
	int nresp = 0;
	if (st) {
		char *s = xstrdup(st), *save = NULL;
		/* sinfo-style suffixes ('*' not responding, '~' powered off, '#',
		 * '%', '$', '@', '^', '!') may end any part: "DOWN*+DRAIN" */
		int first = 1;
		for (char *part = strtok_r(s, "+", &save); part; part = strtok_r(NULL, "+", &save)) {
			size_t n = strlen(part);
			while (n && strchr("*~#%$@^!-", part[n - 1])) {
				if (part[n - 1] == '*')
					nresp = 1;
				part[--n] = 0;
			}
			if (!strcmp(part, "NOT_RESPONDING"))
				nresp = 1;
			if (first)
				json_object_set_new(o, "state", json_string(part));
			else
				json_array_append_new(flags, json_string(part));
			first = 0;
		}
		if (first)
			json_object_set_new(o, "state", json_null());
		free(s);
	} else {
		json_object_set_new(o, "state", json_null());
	}
	json_object_set_new(o, "flags", flags);
	json_object_set_new(o, "not_responding", json_boolean(nresp));
	const char *gres = json_string_value(json_object_get(rec, "Gres"));
	json_object_set_new(o, "gres", gres ? json_string(gres) : json_null());
	long long g = json_object_get(rec, "Gres") ? slurm_gres_gpus(gres) : 0;
	json_object_set_new(o, "gpus", g >= 0 ? json_integer(g) : json_null());
	const char *feat = json_string_value(json_object_get(rec, "AvailableFeatures"));
	if (!feat)
		feat = json_string_value(json_object_get(rec, "Features"));
	json_object_set_new(o, "features", split_list(feat, ","));
	copy_int(o, "real_memory_mb", rec, "RealMemory");
	copy_int(o, "cpus", rec, "CPUTot");
	json_object_set_new(o, "partitions", split_list(json_string_value(json_object_get(rec, "Partitions")), ","));
	const char *reason = json_string_value(json_object_get(rec, "Reason"));
	json_t *rs = slurm_reason_split(reason);
	json_object_set(o, "reason", json_object_get(rs, "text"));
	json_object_set(o, "reason_user", json_object_get(rs, "user"));
	json_object_set(o, "reason_time", json_object_get(rs, "time"));
	json_decref(rs);
	return o;
}

int slurm_node_line(const char *text, size_t len, const char *node, struct slurm_node_line *n)
{
	json_t *recs = parse_scontrol_records(text, len), *rec, *hit = NULL;
	size_t i;

	memset(n, 0, sizeof(*n));
	json_array_foreach(recs, i, rec) {
		const char *name = json_string_value(json_object_get(rec, "NodeName"));
		if (name && (!node || !*node || !strcmp(name, node))) {
			hit = rec;
			break;
		}
	}
	if (!hit) {
		json_decref(recs);
		return -1;
	}
	ts_copys(n->name, sizeof(n->name), json_string_value(json_object_get(hit, "NodeName")), 0);
	ts_copys(n->state, sizeof(n->state), json_string_value(json_object_get(hit, "State")), 0);
	ts_copys(n->boot_time, sizeof(n->boot_time), json_string_value(json_object_get(hit, "BootTime")), 0);
	json_t *rs = slurm_reason_split(json_string_value(json_object_get(hit, "Reason")));
	const char *why = json_string_value(json_object_get(rs, "text"));
	if (why && strcmp(why, "none"))
		ts_copys(n->reason, sizeof(n->reason), why, 0);
	ts_copys(n->reason_user, sizeof(n->reason_user), json_string_value(json_object_get(rs, "user")), 0);
	ts_copys(n->reason_time, sizeof(n->reason_time), json_string_value(json_object_get(rs, "time")), 0);
	json_decref(rs);
	json_decref(recs);

	char up[sizeof(n->state)];
	for (i = 0; n->state[i]; i++)
		up[i] = (char)toupper((unsigned char)n->state[i]);
	up[i] = 0;
	n->drain = strstr(up, "DRAIN") != NULL;
	n->down = strstr(up, "DOWN") != NULL;
	n->fail = strstr(up, "FAIL") != NULL;
	return 0;
}

/* Cut a '#' comment (Slurm has no escape for it in practice). */
static void strip_comment(char *s)
{
	int q = 0;
	for (char *p = s; *p; p++) {
		if (*p == '"')
			q = !q;
		else if (*p == '#' && !q) {
			*p = 0;
			return;
		}
	}
}

/* Next "Key=Value" of a slurm.conf line; value may be quoted. */
static int next_pair(char **p, char **k, char **v)
{
	char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return 0;
	*k = s;
	while (*s && *s != '=' && *s != ' ' && *s != '\t')
		s++;
	if (*s != '=') {
		/* a bare word: a key without value */
		if (*s)
			*s++ = 0;
		*v = NULL;
		*p = s;
		return 1;
	}
	*s++ = 0;
	if (*s == '"') {
		*v = ++s;
		while (*s && *s != '"')
			s++;
	} else {
		*v = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
	if (*s)
		*s++ = 0;
	*p = s;
	return 1;
}

json_t *parse_slurm_conf(const char *text, size_t len)
{
	json_t *arr = json_array();
	struct strbuf logical = STRBUF_INIT;
	char *line;
	for_each_line(line, text, len, pos, end) {
		strip_comment(line);
		size_t n = strlen(line);
		int cont = n && line[n - 1] == '\\';
		if (cont)
			line[n - 1] = ' ';
		sb_adds(&logical, line);
		if (cont && pos < end)
			continue;
		char *l = logical.len ? str_trim(logical.buf) : NULL;
		if (l && *l) {
			json_t *rec = json_object();
			if (!strncasecmp(l, "include", 7) && (l[7] == ' ' || l[7] == '\t')) {
				json_object_set_new(rec, "Include", json_string(str_trim(l + 8)));
			} else {
				char *p = l, *k, *v;
				while (next_pair(&p, &k, &v))
					if (*k)
						set_value(rec, k, v);
			}
			if (json_object_size(rec))
				json_array_append_new(arr, rec);
			else
				json_decref(rec);
		}
		sb_reset(&logical);
	}
	sb_free(&logical);
	return arr;
}

const char *slurm_conf_get(const json_t *conf, const char *key)
{
	const char *val = NULL;
	size_t i;
	json_t *rec;
	json_array_foreach(conf, i, rec) {
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)rec, k, v)
			if (!strcasecmp(k, key))
				val = json_string_value(v);
	}
	return val;
}

/* "  - nodes: gpu[1-4]  # c" -> value after "key:", quotes removed; NULL if not that key. */
static char *yaml_value(char *line, const char *key)
{
	char *s = line;
	while (*s == ' ' || *s == '\t' || *s == '-')
		s++;
	size_t kl = strlen(key);
	if (strncmp(s, key, kl) || s[kl] != ':')
		return NULL;
	s += kl + 1;
	char *hash = strstr(s, " #");
	if (hash)
		*hash = 0;
	s = str_trim(s);
	size_t n = strlen(s);
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s[n - 1] = 0;
		s++;
	}
	return s;
}

json_t *parse_topology_yaml(const char *text, size_t len)
{
	json_t *o = json_object(), *nodes = json_array(), *sw = json_array(), *bl = json_array(), *kinds = json_array();
	char *line;
	for_each_line(line, text, len, pos, end) {
		char *v;
		if ((v = yaml_value(line, "nodes")) && *v)
			json_array_append_new(nodes, json_string(v));
		else if ((v = yaml_value(line, "switch")) && *v)
			json_array_append_new(sw, json_string(v));
		else if ((v = yaml_value(line, "block")) && *v)
			json_array_append_new(bl, json_string(v));
		else if ((v = yaml_value(line, "tree")))
			json_array_append_new(kinds, json_string("tree"));
		else if ((v = yaml_value(line, "block")))
			json_array_append_new(kinds, json_string("block"));
		else if ((v = yaml_value(line, "flat")))
			json_array_append_new(kinds, json_string("flat"));
	}
	json_object_set_new(o, "nodes", nodes);
	json_object_set_new(o, "switches", sw);
	json_object_set_new(o, "blocks", bl);
	json_object_set_new(o, "kinds", kinds);
	return o;
}

json_t *parse_plugstack(const char *text, size_t len)
{
	json_t *arr = json_array();
	char *line;
	for_each_line(line, text, len, pos, end) {
		strip_comment(line);
		char *save = NULL;
		char *kind = strtok_r(line, " \t", &save);
		if (!kind)
			continue;
		char *path = strtok_r(NULL, " \t", &save);
		char *args = save ? str_trim(save) : NULL;
		json_t *e = json_object();
		json_object_set_new(e, "kind", json_string(kind));
		set_value(e, "path", path);
		set_value(e, "args", args && *args ? args : NULL);
		json_array_append_new(arr, e);
	}
	return arr;
}

json_t *parse_srun_mpi_list(const char *text, size_t len)
{
	json_t *arr = json_array();
	char *line;
	for_each_line(line, text, len, pos, end) {
		char *s = str_trim(line);
		if (str_starts(s, "srun:"))
			s = str_trim(s + 5);
		const char *avail = "versions available:";
		char *va = strstr(s, avail);
		if (va) {
			char *save = NULL;
			for (char *t = strtok_r(va + strlen(avail), " ,\t", &save); t; t = strtok_r(NULL, " ,\t", &save))
				json_array_append_new(arr, json_string(t));
			continue;
		}
		if (!*s || strchr(s, ' ') || strchr(s, ':') || strstr(s, "..."))
			continue;
		json_array_append_new(arr, json_string(s));
	}
	return arr;
}

json_t *parse_pipe_rows(const char *text, size_t len, const char *const fields[], size_t nfields)
{
	json_t *arr = json_array();
	char *line;
	for_each_line(line, text, len, pos, end) {
		if (!*str_trim(line))
			continue;
		json_t *row = json_object();
		char *p = line;
		for (size_t i = 0; i < nfields; i++) {
			if (!p) {
				json_object_set_new(row, fields[i], json_null());
				continue;
			}
			char *bar = strchr(p, '|');
			if (bar)
				*bar = 0;
			json_object_set_new(row, fields[i], json_string(p));
			p = bar ? bar + 1 : NULL;
		}
		json_array_append_new(arr, row);
	}
	return arr;
}
