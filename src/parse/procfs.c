#include "parse/procfs.h"
#include "core/strbuf.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *parse_next_line(const char **pos, const char *end)
{
	const char *p = *pos, *nl;
	size_t n;

	if (!p || p >= end)
		return NULL;
	nl = memchr(p, '\n', (size_t)(end - p));
	n = nl ? (size_t)(nl - p) : (size_t)(end - p);
	*pos = nl ? nl + 1 : end;
	if (n && p[n - 1] == '\r')
		n--;
	return str_sanitize(p, n);
}

/* Iterate lines of text; `line` is owned by the loop body only. */
#define for_each_line(line, text, len, pos, end)				\
	for (const char *pos = (text), *end = (text) ? (text) + (len) : NULL;	\
	     ((line) = parse_next_line(&pos, end)) != NULL;			\
	     free(line))

/* Next whitespace-separated word of *p, NUL-terminated in place, or NULL. */
static char *next_word(char **p)
{
	char *s = *p, *w;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	w = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = 0;
	*p = s;
	return w;
}

/* Like next_word, but a double-quoted span may contain blanks (kernel
 * command line, modprobe options). Quotes are kept. */
static char *next_qword(char **p)
{
	char *s = *p, *w;
	int q = 0;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	w = s;
	while (*s && (q || (*s != ' ' && *s != '\t'))) {
		if (*s == '"')
			q = !q;
		s++;
	}
	if (*s)
		*s++ = 0;
	*p = s;
	return w;
}

/* Copy of s without any double quote characters. */
static char *strip_dquotes(const char *s)
{
	char *r = xmalloc(strlen(s) + 1), *d = r;
	for (; *s; s++)
		if (*s != '"')
			*d++ = *s;
	*d = 0;
	return r;
}

/* Remove one level of matching surrounding quotes, in place. */
static char *unquote(char *v)
{
	size_t n = strlen(v);
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = 0;
		return v + 1;
	}
	return v;
}

/* Strict decimal: optional '-', digits only, no overflow. */
static int parse_ll(const char *s, long long *out)
{
	const char *p = s;
	char *e;
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	long long v = strtoll(s, &e, 10);
	if (errno || *e)
		return -1;
	*out = v;
	return 0;
}

static json_t *ll_or_null(const char *s)
{
	long long v;
	return s && parse_ll(s, &v) == 0 ? json_integer(v) : json_null();
}

/* Split "key<sep>value" at the first sep; both trimmed. 0 when no sep or empty key. */
static int split_kv(char *line, int sep, char **k, char **v)
{
	char *c = strchr(line, sep);
	if (!c)
		return 0;
	*c = 0;
	*k = str_trim(line);
	*v = str_trim(c + 1);
	return **k != 0;
}

/* ---- /etc/os-release ---------------------------------------------------- */

/*
 * The value is a shell word: unquoted text with backslash escapes, "..."
 * where only \\ \" \$ \` are escapes, and '...' taken literally; pieces may be
 * concatenated. Unquoted blanks end it (anything after is ignored).
 */
static char *shell_word(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	sb_add(&sb, "", 0);
	while (*s && *s != ' ' && *s != '\t') {
		if (*s == '\'') {
			const char *e = strchr(s + 1, '\'');
			if (!e)
				e = s + strlen(s);
			sb_add(&sb, s + 1, (size_t)(e - s - 1));
			s = *e ? e + 1 : e;
		} else if (*s == '"') {
			s++;
			while (*s && *s != '"') {
				if (*s == '\\' && s[1] && strchr("\\\"$`", s[1]))
					s++;
				sb_add(&sb, s, 1);
				s++;
			}
			if (*s)
				s++;
		} else {
			if (*s == '\\' && s[1])
				s++;
			sb_add(&sb, s, 1);
			s++;
		}
	}
	return sb_detach(&sb);
}

json_t *parse_os_release(const char *text, size_t len)
{
	json_t *o = json_object();
	char *line, *k, *v;

	for_each_line(line, text, len, pos, end) {
		char *s = str_trim(line);
		if (*s == '#' || !split_kv(s, '=', &k, &v))
			continue;
		int ok = 1;
		for (char *c = k; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '_')
				ok = 0;
		if (!ok)
			continue;
		char *val = shell_word(v);
		json_object_set_new(o, k, json_string(val));
		free(val);
	}
	return o;
}

/* ---- /proc/meminfo ------------------------------------------------------ */

/* An object from "key: value" lines; put stores one value (or drops it). */
static json_t *colon_lines(const char *text, size_t len, void (*put)(json_t *o, const char *k, char *v))
{
	json_t *o = json_object();
	char *line, *k, *v;

	for_each_line(line, text, len, pos, end)
		if (split_kv(line, ':', &k, &v))
			put(o, k, v);
	return o;
}

/* "MemTotal:  1234 kB": the number, unit dropped; no number, no key. */
static void put_meminfo(json_t *o, const char *k, char *v)
{
	long long n;
	char *num = next_word(&v);
	if (num && parse_ll(num, &n) == 0)
		json_object_set_new(o, k, json_integer(n));
}

json_t *parse_meminfo(const char *text, size_t len)
{
	return colon_lines(text, len, put_meminfo);
}

/* ---- /proc/cpuinfo ------------------------------------------------------ */

static const char *arm_implementer(long v)
{
	switch (v) {
	case 0x41: return "ARM";
	case 0x42: return "Broadcom";
	case 0x43: return "Cavium";
	case 0x46: return "Fujitsu";
	case 0x48: return "HiSilicon";
	case 0x4e: return "NVIDIA";
	case 0x50: return "APM";
	case 0x51: return "Qualcomm";
	case 0x61: return "Apple";
	case 0xc0: return "Ampere";
	}
	return NULL;
}

/* Only the server cores a GPU node is likely to carry (Grace is V2). */
static const char *arm_part(long impl, long part)
{
	if (impl != 0x41)
		return NULL;
	switch (part) {
	case 0xd0c: return "Neoverse-N1";
	case 0xd40: return "Neoverse-V1";
	case 0xd49: return "Neoverse-N2";
	case 0xd4f: return "Neoverse-V2";
	case 0xd84: return "Neoverse-V3";
	case 0xd8e: return "Neoverse-N3";
	}
	return NULL;
}

static json_t *word_array(char *s)
{
	json_t *a = json_array();
	char *w;
	while ((w = next_word(&s)))
		json_array_append_new(a, json_string(w));
	return a;
}

/* Every processor block repeats the same keys: the first one stands. */
static void keep_first(char **dst, const char *v)
{
	if (!*dst)
		*dst = xstrdup(v);
}

json_t *parse_cpuinfo(const char *text, size_t len)
{
	json_t *o = json_object(), *sockets = json_object(), *flags = NULL;
	char *line, *k, *v;
	char *model = NULL, *vendor = NULL, *impl = NULL, *part = NULL;
	const char *arch = NULL;
	long long nproc = 0;

	for_each_line(line, text, len, pos, end) {
		if (!split_kv(line, ':', &k, &v))
			continue;
		if (strcmp(k, "processor") == 0) {
			nproc++;
		} else if (strcmp(k, "model name") == 0) {
			keep_first(&model, v);
		} else if (strcmp(k, "vendor_id") == 0) {
			arch = "x86_64";
			keep_first(&vendor, v);
		} else if (strcmp(k, "flags") == 0 || strcmp(k, "Features") == 0) {
			/* x86 names the CPU's feature list "flags", arm64 "Features" */
			arch = strcmp(k, "flags") == 0 ? "x86_64" : "aarch64";
			if (!flags)
				flags = word_array(v);
		} else if (strcmp(k, "CPU implementer") == 0) {
			arch = "aarch64";
			keep_first(&impl, v);
		} else if (strcmp(k, "CPU part") == 0) {
			keep_first(&part, v);
		} else if (strcmp(k, "physical id") == 0) {
			json_object_set_new(sockets, v, json_true());
		}
	}

	const char *pname = NULL;
	if (impl && part) {
		long i = strtol(impl, NULL, 0), p = strtol(part, NULL, 0);
		pname = arm_part(i, p);
		if (!vendor && arm_implementer(i))
			vendor = xstrdup(arm_implementer(i));
	}
	if (!model && pname)
		model = xstrdup(pname);

	/* Only x86 advertises a guest in cpuinfo; on arm64 "unknown" is false. */
	int hyper = 0;
	size_t i;
	json_t *f;
	if (!flags)
		flags = json_array();
	if (arch && strcmp(arch, "x86_64") == 0) {
		json_array_foreach(flags, i, f) {
			if (strcmp(json_string_value(f), "hypervisor") == 0)
				hyper = 1;
		}
	}

	json_object_set_new(o, "processors", json_integer(nproc));
	json_object_set_new(o, "sockets", json_object_size(sockets) ?
			    json_integer((json_int_t)json_object_size(sockets)) : json_null());
	json_object_set_new(o, "arch", arch ? json_string(arch) : json_null());
	json_object_set_new(o, "model_name", model ? json_string(model) : json_null());
	json_object_set_new(o, "vendor", vendor ? json_string(vendor) : json_null());
	json_object_set_new(o, "flags", flags);
	json_object_set_new(o, "hypervisor", json_boolean(hyper));
	json_object_set_new(o, "implementer", impl ? json_string(impl) : json_null());
	json_object_set_new(o, "part", part ? json_string(part) : json_null());
	json_object_set_new(o, "part_name", pname ? json_string(pname) : json_null());
	json_decref(sockets);
	free(model);
	free(vendor);
	free(impl);
	free(part);
	return o;
}

/* ---- /proc/mounts ------------------------------------------------------- */

/* The kernel escapes blank, tab, newline and backslash as \ooo. Decoding
 * can produce arbitrary bytes, hence the second sanitize. */
static json_t *octal_string(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	sb_add(&sb, "", 0);
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			char c = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			sb_add(&sb, &c, 1);
			s += 3;
		} else {
			sb_add(&sb, s, 1);
		}
	}
	char *clean = str_sanitize(sb.buf, sb.len);
	json_t *j = json_string(clean);
	free(clean);
	sb_free(&sb);
	return j;
}

json_t *parse_mounts(const char *text, size_t len)
{
	static const char *const keys[] = { "source", "target", "fstype", "options" };
	json_t *a = json_array();
	char *line;

	for_each_line(line, text, len, pos, end) {
		char *p = line, *w[4];
		int n;
		for (n = 0; n < 4 && (w[n] = next_word(&p)); n++)
			;
		if (n < 4)
			continue;
		json_t *m = json_object();
		for (n = 0; n < 4; n++)
			json_object_set_new(m, keys[n], octal_string(w[n]));
		json_array_append_new(a, m);
	}
	return a;
}

/* ---- /proc/modules ------------------------------------------------------ */

/* "nvidia 11149312 1473 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)" */
/* A /proc/modules state field (kernel/module/procfs.c: module_flags). */
static int module_state_word(const char *s)
{
	return s && (!strcmp(s, "Live") || !strcmp(s, "Loading") || !strcmp(s, "Unloading"));
}

json_t *parse_modules_counted(const char *text, size_t len, struct parse_count *count)
{
	json_t *o = json_object();
	char *line;
	long long size;
	struct parse_count n = { 0, 0 };

	for_each_line(line, text, len, pos, end) {
		char *p = line;
		char *name = next_word(&p);
		if (!name)
			continue; /* a blank line is not data */
		n.lines++;
		char *sz = next_word(&p), *ref = next_word(&p);
		char *used = next_word(&p), *state = next_word(&p);
		char *addr = next_word(&p), *taint = next_word(&p);
		/* "name size refcount used_by state address [taint]": a line that
		 * is not shaped like that is not a module, whatever its first
		 * two words look like */
		long long rc;
		if (!sz || parse_ll(sz, &size) != 0 || size < 0 || !ref ||
		    (strcmp(ref, "-") && parse_ll(ref, &rc) != 0) || !used || !module_state_word(state) ||
		    !addr || strncmp(addr, "0x", 2) != 0)
			continue;
		n.recognised++;
		json_t *m = json_object(), *by = json_array();
		json_object_set_new(m, "size", json_integer(size));
		json_object_set_new(m, "refcount", ll_or_null(ref));
		if (strcmp(used, "-") != 0) {
			char *save = NULL;
			for (char *t = strtok_r(used, ",", &save); t; t = strtok_r(NULL, ",", &save))
				json_array_append_new(by, json_string(t));
		}
		json_object_set_new(m, "used_by", by);
		json_object_set_new(m, "state", json_string(state));
		size_t tl = taint ? strlen(taint) : 0;
		if (tl >= 2 && taint[0] == '(' && taint[tl - 1] == ')') {
			taint[tl - 1] = 0;
			json_object_set_new(m, "taint", json_string(taint + 1));
		}
		json_object_set_new(o, name, m);
	}
	if (count)
		*count = n;
	return o;
}

json_t *parse_modules(const char *text, size_t len)
{
	return parse_modules_counted(text, len, NULL);
}

/* ---- KEY=VALUE ---------------------------------------------------------- */

json_t *parse_kv_conf(const char *text, size_t len)
{
	json_t *o = json_object();
	char *line, *k, *v;

	for_each_line(line, text, len, pos, end) {
		char *s = str_trim(line);
		if (*s == '#')
			continue;
		if (str_starts(s, "export ") || str_starts(s, "export\t"))
			s += 7;
		if (!split_kv(s, '=', &k, &v))
			continue;
		json_object_set_new(o, k, json_string(unquote(v)));
	}
	return o;
}

/* ---- modprobe.d --------------------------------------------------------- */

static void modname_norm(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* `seen` mirrors the blacklist as a set: a scan of the array per line
 * would make a long generated file quadratic. */
static void modprobe_line(json_t *o, json_t *seen, char *s)
{
	json_t *options = json_object_get(o, "options");
	json_t *blacklist = json_object_get(o, "blacklist");
	json_t *install = json_object_get(o, "install");
	char *cmd = next_word(&s), *mod;

	if (!cmd || *cmd == '#' || !(mod = next_word(&s)))
		return;
	modname_norm(mod);
	if (strcmp(cmd, "options") == 0) {
		json_t *m = json_object_get(options, mod);
		char *w;
		if (!m) {
			m = json_object();
			json_object_set_new(options, mod, m);
		}
		while ((w = next_qword(&s))) {
			char *eq = strchr(w, '=');
			if (eq)
				*eq = 0;
			char *key = strip_dquotes(w);
			char *val = strip_dquotes(eq ? eq + 1 : "");
			if (*key)
				json_object_set_new(m, key, json_string(val));
			free(key);
			free(val);
		}
	} else if (strcmp(cmd, "blacklist") == 0) {
		if (json_object_get(seen, mod))
			return;
		json_object_set_new(seen, mod, json_true());
		json_array_append_new(blacklist, json_string(mod));
	} else if (strcmp(cmd, "install") == 0) {
		json_object_set_new(install, mod, json_string(str_trim(s)));
	}
}

json_t *parse_modprobe_conf(const char *text, size_t len)
{
	json_t *o = json_object(), *seen = json_object();
	struct strbuf logical = STRBUF_INIT;
	char *line;

	json_object_set_new(o, "options", json_object());
	json_object_set_new(o, "blacklist", json_array());
	json_object_set_new(o, "install", json_object());
	for_each_line(line, text, len, pos, end) {
		size_t n = strlen(line);
		if (n && line[n - 1] == '\\') {
			sb_add(&logical, line, n - 1);
			sb_add(&logical, " ", 1);
			continue;
		}
		sb_add(&logical, line, n);
		modprobe_line(o, seen, logical.buf);
		sb_reset(&logical);
	}
	if (logical.len)
		modprobe_line(o, seen, logical.buf);
	sb_free(&logical);
	json_decref(seen);
	return o;
}

/* ---- "Key: value" ------------------------------------------------------- */

static int plain_uint(const char *s)
{
	if (!isdigit((unsigned char)*s) || (s[0] == '0' && s[1]))
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* Quotes around a value dropped; a plain unsigned number as an integer. */
static void put_colon_kv(json_t *o, const char *k, char *v)
{
	long long n;
	size_t vl = strlen(v);
	if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
		v[vl - 1] = 0;
		v++;
	}
	if (plain_uint(v) && parse_ll(v, &n) == 0)
		json_object_set_new(o, k, json_integer(n));
	else
		json_object_set_new(o, k, json_string(v));
}

json_t *parse_colon_kv(const char *text, size_t len)
{
	return colon_lines(text, len, put_colon_kv);
}

/* ---- /proc/driver/nvidia/version ---------------------------------------- */

static int is_version_word(const char *w)
{
	int dots = 0;
	if (!isdigit((unsigned char)*w))
		return 0;
	for (const char *c = w; *c; c++) {
		if (*c == '.') {
			if (!isdigit((unsigned char)c[1]))
				return 0;
			dots++;
		} else if (!isdigit((unsigned char)*c)) {
			return 0;
		}
	}
	return dots > 0;
}

json_t *parse_nvidia_version(const char *text, size_t len)
{
	static const char *const arches[] = {
		"x86_64", "aarch64", "ppc64le", "arm64", "sbsa", NULL
	};
	json_t *o = json_object();
	char *line;
	char *ver = NULL, *gcc = NULL, *raw = NULL;
	const char *arch = NULL;
	int open = 0;

	for_each_line(line, text, len, pos, end) {
		char *s = str_trim(line);
		if (str_starts(s, "NVRM version:") && !raw) {
			raw = xstrdup(s);
			open = strstr(s, "Open Kernel Module") != NULL;
			char *p = s + strlen("NVRM version:"), *w;
			while ((w = next_word(&p))) {
				if (!ver && is_version_word(w))
					ver = xstrdup(w);
				for (int i = 0; !arch && arches[i]; i++)
					if (strcmp(w, arches[i]) == 0)
						arch = arches[i];
			}
		} else if (str_starts(s, "GCC version:") && !gcc) {
			s += strlen("GCC version:");
			gcc = parse_first_version(s, strlen(s));
		}
	}
	json_object_set_new(o, "version", ver ? json_string(ver) : json_null());
	/* without the NVRM line nothing says which module this is */
	json_object_set_new(o, "open_module", raw ? json_boolean(open) : json_null());
	json_object_set_new(o, "arch", arch ? json_string(arch) : json_null());
	json_object_set_new(o, "gcc", gcc ? json_string(gcc) : json_null());
	json_object_set_new(o, "raw", raw ? json_string(raw) : json_null());
	free(ver);
	free(gcc);
	free(raw);
	return o;
}

/* ---- df -P -k ----------------------------------------------------------- */

json_t *parse_df_posix(const char *text, size_t len)
{
	json_t *a = json_array();
	char *line;

	for_each_line(line, text, len, pos, end) {
		char *p = line, *w[5];
		int n;
		if (str_starts(line, "Filesystem"))
			continue;
		for (n = 0; n < 5 && (w[n] = next_word(&p)); n++)
			;
		char *mnt = str_trim(p);
		if (n < 5 || !*mnt)
			continue;
		size_t pl = strlen(w[4]);
		if (pl && w[4][pl - 1] == '%')
			w[4][pl - 1] = 0;
		json_t *d = json_object();
		json_object_set_new(d, "filesystem", json_string(w[0]));
		json_object_set_new(d, "size_kb", ll_or_null(w[1]));
		json_object_set_new(d, "used_kb", ll_or_null(w[2]));
		json_object_set_new(d, "avail_kb", ll_or_null(w[3]));
		json_object_set_new(d, "use_pct", ll_or_null(w[4]));
		json_object_set_new(d, "mountpoint", json_string(mnt));
		json_array_append_new(a, d);
	}
	return a;
}

/* ---- /proc/cmdline ------------------------------------------------------ */

json_t *parse_cmdline(const char *text, size_t len)
{
	json_t *o = json_object(), *args = json_array(), *params = json_object();
	char *line, *w;
	int init_args = 0;

	/* Normally one line; a stray newline is just more blanks. */
	for_each_line(line, text, len, pos, end) {
		char *p = line;
		while ((w = next_qword(&p))) {
			json_array_append_new(args, json_string(w));
			if (strcmp(w, "--") == 0)
				init_args = 1;
			if (init_args)
				continue;
			char *eq = strchr(w, '=');
			if (eq)
				*eq = 0;
			char *key = strip_dquotes(w);
			if (*key) {
				char *val = eq ? strip_dquotes(eq + 1) : NULL;
				json_object_set_new(params, key, val ? json_string(val) : json_true());
				free(val);
			}
			free(key);
		}
	}
	json_object_set_new(o, "args", args);
	json_object_set_new(o, "params", params);
	return o;
}

/* ---- CUDA versions ------------------------------------------------------ */

/* Version word at s ("12.8" out of "12.8, V12.8.93"), malloc'd or NULL. */
static char *version_at(const char *s)
{
	size_t n = 0;
	while (isdigit((unsigned char)s[n]) || (s[n] == '.' && isdigit((unsigned char)s[n + 1])))
		n++;
	if (!n)
		return NULL;
	char *v = xstrndup(s, n);
	if (!is_version_word(v)) {
		free(v);
		return NULL;
	}
	return v;
}

json_t *parse_nvcc_version(const char *text, size_t len)
{
	json_t *o = json_object();
	char *line;

	for_each_line(line, text, len, pos, end) {
		char *r = strstr(line, "release ");
		if (r && !json_object_get(o, "release")) {
			char *rel = version_at(r + strlen("release "));
			char *v = strstr(r, ", V");
			char *ver = v ? version_at(v + 3) : NULL;
			if (rel)
				json_object_set_new(o, "release", json_string(rel));
			if (ver)
				json_object_set_new(o, "version", json_string(ver));
			free(rel);
			free(ver);
		}
		char *s = str_trim(line);
		if (str_starts(s, "Build ") && !json_object_get(o, "build")) {
			char *p = s + 6, *w = next_word(&p);
			if (w)
				json_object_set_new(o, "build", json_string(w));
		}
	}
	return o;
}

char *parse_cuda_version_json(const char *text, size_t len)
{
	json_error_t jerr;
	json_t *root, *v;
	char *out = NULL;

	if (!text)
		return NULL;
	root = json_loadb(text, len, 0, &jerr);
	v = json_object_get(json_object_get(root, "cuda"), "version");
	if (json_is_string(v))
		out = str_sanitize(json_string_value(v), json_string_length(v));
	json_decref(root);
	if (out && !*out) {
		free(out);
		out = NULL;
	}
	return out;
}

char *parse_cuda_version_txt(const char *text, size_t len)
{
	char *line, *v = NULL;

	for_each_line(line, text, len, pos, end) {
		char *p = strstr(line, "CUDA Version");
		if (p && !v) {
			p += strlen("CUDA Version");
			while (*p == ' ' || *p == ':')
				p++;
			v = version_at(p);
		}
	}
	return v;
}

char *parse_first_version(const char *text, size_t len)
{
	const unsigned char *t = (const unsigned char *)text;

	if (!text)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit(t[i]))
			continue;
		/* Reject digits glued to a word ("x86_64", "go1.22", "abc1.2"),
		 * but allow "v1.2" when the v itself starts a word. */
		if (i > 0 && (isalnum(t[i - 1]) || t[i - 1] == '.' || t[i - 1] == '_')) {
			if (!((t[i - 1] == 'v' || t[i - 1] == 'V') &&
			      (i < 2 || !(isalnum(t[i - 2]) || t[i - 2] == '.' || t[i - 2] == '_'))))
				continue;
		}
		size_t j = i, dots = 0;
		while (j < len) {
			if (isdigit(t[j])) {
				j++;
			} else if (t[j] == '.' && j + 1 < len && isdigit(t[j + 1])) {
				dots++;
				j++;
			} else {
				break;
			}
		}
		if (dots && j - i <= 64)
			return xstrndup(text + i, j - i);
		/* Skip the rest of this number so "1a.2" does not restart at "2". */
		i = j;
	}
	return NULL;
}

int parse_tokens(const char *s, const char *e, char *buf, size_t cap, char **tok, int maxtok)
{
	int n = 0;
	size_t at = 0;
	while (s < e && n < maxtok) {
		while (s < e && isspace((unsigned char)*s))
			s++;
		if (s >= e)
			break;
		const char *t = s;
		while (s < e && !isspace((unsigned char)*s))
			s++;
		size_t l = (size_t)(s - t);
		if (at + l + 1 > cap)
			break;
		memcpy(buf + at, t, l);
		buf[at + l] = 0;
		tok[n++] = buf + at;
		at += l + 1;
	}
	return n;
}
