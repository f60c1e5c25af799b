/* /etc/passwd, /etc/nsswitch.conf and sssd.conf (parse/identity.h). */
#include "parse/identity.h"
#include "parse/procfs.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

json_t *parse_passwd(const char *text, size_t len, long uid)
{
	json_t *o = json_object(), *entry = NULL;
	long long users = 0;
	const char *pos = text, *end = text + len;
	char *line;
	while ((line = parse_next_line(&pos, end))) {
		/* name:passwd:uid:gid:gecos:home:shell */
		char *f[7] = { 0 };
		int n = 0;
		char *p = line;
		while (n < 7) {
			f[n++] = p;
			char *c = strchr(p, ':');
			if (!c)
				break;
			*c = 0;
			p = c + 1;
		}
		char *endp;
		long u = n == 7 && *f[2] ? strtol(f[2], &endp, 10) : -1;
		if (u >= 0 && *endp == 0 && *f[0]) {
			if (u >= 1000 && u < 60000)
				users++;
			if (u == uid && !entry) {
				entry = json_object();
				json_object_set_new(entry, "name", json_string(f[0]));
				json_object_set_new(entry, "uid", json_integer(u));
				json_object_set_new(entry, "home", json_string(f[5]));
				json_object_set_new(entry, "shell", json_string(f[6]));
			}
		}
		free(line);
	}
	json_object_set_new(o, "entry", entry ? entry : json_null());
	json_object_set_new(o, "local_users", json_integer(users));
	return o;
}

json_t *parse_nsswitch(const char *text, size_t len)
{
	json_t *o = json_object();
	const char *pos = text, *end = text + len;
	char *line;
	while ((line = parse_next_line(&pos, end))) {
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *colon = strchr(line, ':');
		if (colon) {
			*colon = 0;
			char *db = str_trim(line);
			json_t *srcs = json_array();
			int in_action = 0;
			for (char *save = NULL, *t = strtok_r(colon + 1, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
				/* "[NOTFOUND=return]" and "[!UNAVAIL=return]" are actions, maybe split by blanks */
				if (*t == '[')
					in_action = 1;
				if (!in_action && *t)
					json_array_append_new(srcs, json_string(t));
				if (strchr(t, ']'))
					in_action = 0;
			}
			if (*db && !strpbrk(db, " \t") && !json_object_get(o, db))
				json_object_set_new(o, db, srcs);
			else
				json_decref(srcs);
		}
		free(line);
	}
	return o;
}

json_t *parse_sssd_conf(const char *text, size_t len)
{
	json_t *o = json_object(), *domains = json_array(), *cur = NULL;
	int in_sssd = 0;
	const char *pos = text, *end = text + len;
	char *line;
	while ((line = parse_next_line(&pos, end))) {
		char *s = str_trim(line);
		if (*s == '#' || *s == ';' || !*s) {
			free(line);
			continue;
		}
		size_t n = strlen(s);
		if (*s == '[' && s[n - 1] == ']') {
			s[n - 1] = 0;
			char *sec = str_trim(s + 1);
			in_sssd = !strcmp(sec, "sssd");
			cur = NULL;
			if (str_starts(sec, "domain/") && sec[7]) {
				cur = json_object();
				json_object_set_new(cur, "name", json_string(sec + 7));
				json_object_set_new(cur, "id_provider", json_null());
				json_object_set_new(cur, "auth_provider", json_null());
				json_array_append_new(domains, cur);
			}
		} else {
			char *eq = strchr(s, '=');
			if (eq) {
				*eq = 0;
				char *k = str_trim(s), *v = str_trim(eq + 1);
				if (cur && (!strcmp(k, "id_provider") || !strcmp(k, "auth_provider")))
					json_object_set_new(cur, k, json_string(v));
				else if (in_sssd && !strcmp(k, "services"))
					json_object_set_new(o, "services", json_string(v));
			}
		}
		free(line);
	}
	json_object_set_new(o, "domains", domains);
	if (!json_object_get(o, "services"))
		json_object_set_new(o, "services", json_null());
	return o;
}
