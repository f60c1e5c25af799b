#include "parse/confine.h"
#include "core/strbuf.h"
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

json_t *parse_proc_cgroup(const char *text, size_t len)
{
	json_t *v1 = json_object(), *v2 = json_null();
	int lines = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *c1 = memchr(p, ':', (size_t)(e - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
		int digits = c1 && c1 > p;
		for (const char *q = p; digits && q < c1; q++)
			digits = isdigit((unsigned char)*q);
		if (digits && c2 && c2 + 1 < e && c2[1] == '/') {
			char *path = xstrndup(c2 + 1, (size_t)(e - c2 - 1));
			lines++;
			if (c2 == c1 + 1) {
				json_decref(v2);
				v2 = json_string(path);
			} else {
				/* "cpu,cpuacct" names one hierarchy for each controller */
				char *ctl = xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));
				for (char *sv = NULL, *t = strtok_r(ctl, ",", &sv); t; t = strtok_r(NULL, ",", &sv))
					json_object_set_new(v1, t, json_string(path));
				free(ctl);
			}
			free(path);
		}
		p = nl ? nl + 1 : end;
	}
	if (!lines) {
		json_decref(v1);
		json_decref(v2);
		return NULL;
	}
	json_t *o = json_object();
	json_object_set_new(o, "v2", v2);
	json_object_set_new(o, "v1", v1);
	return o;
}

char *cgroup_slurm_job_path(const char *path, long long *job)
{
	const char *p = path;
	while (p && *p) {
		const char *seg = p[0] == '/' ? p + 1 : p;
		const char *slash = strchr(seg, '/');
		size_t n = slash ? (size_t)(slash - seg) : strlen(seg);
		if (n > 4 && !strncmp(seg, "job_", 4) && strspn(seg + 4, "0123456789") == n - 4 && n - 4 <= 18) {
			if (job)
				*job = strtoll(seg + 4, NULL, 10);
			return xstrndup(path, (size_t)(seg + n - path));
		}
		p = slash;
	}
	return NULL;
}

/* One limit value: "unlimited" or a non-negative integer; NULL otherwise. */
static json_t *limit_value(const char *s, size_t n)
{
	if (n == 9 && !strncmp(s, "unlimited", 9))
		return json_string("unlimited");
	if (!n || n > 20)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return NULL;
	char buf[24];
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	unsigned long long v = strtoull(buf, &end, 10);
	return v > (unsigned long long)INT64_MAX ? json_string("unlimited") : json_integer((json_int_t)v);
}

/* The kernel prints each row as "%-25s %-20s %-20s %-10s": the name is
 * the text before the first run of two spaces, then soft, hard, units. */
json_t *parse_proc_limits(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	const char *nl = memchr(p, '\n', len);
	if (!nl || strncmp(p, "Limit ", 6) != 0 || !memmem(p, (size_t)(nl - p), "Soft Limit", 10))
		return NULL;
	json_t *o = json_object();
	p = nl + 1;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *gap = memmem(p, (size_t)(e - p), "  ", 2);
		if (gap && gap > p) {
			char *name = xstrndup(p, (size_t)(gap - p));
			for (char *c = name; *c; c++)
				*c = *c == ' ' ? '_' : (char)tolower((unsigned char)*c);
			const char *f[3] = { 0 };
			size_t fl[3] = { 0 };
			const char *q = gap;
			for (int k = 0; k < 3; k++) {
				while (q < e && *q == ' ')
					q++;
				f[k] = q;
				while (q < e && *q != ' ')
					q++;
				fl[k] = (size_t)(q - f[k]);
			}
			json_t *soft = limit_value(f[0], fl[0]), *hard = limit_value(f[1], fl[1]);
			if (soft && hard) {
				json_t *l = json_object();
				json_object_set_new(l, "soft", soft);
				json_object_set_new(l, "hard", hard);
				if (fl[2])
					json_object_set_new(l, "units", json_stringn(f[2], fl[2]));
				json_object_set_new(o, name, l);
			} else {
				json_decref(soft);
				json_decref(hard);
			}
			free(name);
		}
		p = nl ? nl + 1 : end;
	}
	return o;
}
