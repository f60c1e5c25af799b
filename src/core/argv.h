/* The one argv builder: a NULL-terminated, growable argv that owns its
 * strings, for the runner (which takes it as is) and for people (shown
 * shell-quoted, so that a reproduce line can be pasted). */
#ifndef CMAX_ARGV_H
#define CMAX_ARGV_H
#include <stddef.h>

struct argv_list {
	char **v;	/* NULL until the first argument; then NULL-terminated */
	size_t n, cap;
};

void argv_add(struct argv_list *a, const char *s);	/* a copy of s */
void argv_take(struct argv_list *a, char *s);		/* s itself (malloc'd), owned from now on */
void argv_addf(struct argv_list *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void argv_add_all(struct argv_list *a, const char *const *v);	/* copies of a NULL-terminated list */
/* The blank- or tab-separated words of s, each one argument (no quoting rules). */
void argv_add_words(struct argv_list *a, const char *s);
void argv_free(struct argv_list *a);	/* and empty again, ready for reuse */

/* Joined with blanks; an argument that is empty or holds anything but
 * letters, digits and -_./=:,@%+ is single-quoted (a ' as '\''). The
 * runner never uses a shell: this is for display only. Malloc'd. */
char *argv_join_quoted(const char *const argv[]);
/* "prefix arg..." for the command line a document records: prefix as
 * given ("cmax audit"), then argc arguments quoted as above. Malloc'd. */
char *argv_join_command(const char *prefix, int argc, char *const argv[]);
char *argv_display(const struct argv_list *a);
#endif
