/* Growable argv and its shell-quoted display (see argv.h). */
#include "core/argv.h"
#include "core/strbuf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void argv_take(struct argv_list *a, char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

void argv_add(struct argv_list *a, const char *s)
{
	argv_take(a, xstrdup(s));
}

void argv_addf(struct argv_list *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	argv_take(a, xvasprintf(fmt, ap));
	va_end(ap);
}

void argv_add_all(struct argv_list *a, const char *const *v)
{
	for (; v && *v; v++)
		argv_add(a, *v);
}

void argv_add_words(struct argv_list *a, const char *s)
{
	while (s && *s) {
		while (*s == ' ' || *s == '\t')
			s++;
		const char *e = s;
		while (*e && *e != ' ' && *e != '\t')
			e++;
		if (e > s)
			argv_take(a, xstrndup(s, (size_t)(e - s)));
		s = e;
	}
}

void argv_free(struct argv_list *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

/* A closed list of safe characters rather than a list of specials: what a
 * shell might read differently (^, !, ~, bytes of another locale...) gets
 * quoted without having to name it. */
static int plain(const char *s)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@%+";
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!memchr(ok, *s, sizeof ok - 1))
			return 0;
	return 1;
}

static void add_quoted(struct strbuf *sb, const char *s)
{
	if (plain(s)) {
		sb_adds(sb, s);
		return;
	}
	sb_adds(sb, "'");
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			sb_adds(sb, "'\\''");
		else
			sb_add(sb, p, 1);
	}
	sb_adds(sb, "'");
}

char *argv_join_quoted(const char *const argv[])
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; argv && argv[i]; i++) {
		if (i)
			sb_adds(&sb, " ");
		add_quoted(&sb, argv[i]);
	}
	return sb_detach(&sb);
}

char *argv_join_command(const char *prefix, int argc, char *const argv[])
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, prefix);
	for (int i = 0; i < argc; i++) {
		sb_adds(&sb, " ");
		add_quoted(&sb, argv[i]);
	}
	return sb_detach(&sb);
}

char *argv_display(const struct argv_list *a)
{
	return argv_join_quoted((const char *const *)a->v);
}
