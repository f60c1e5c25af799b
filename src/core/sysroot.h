/* The one layer through which cmax reads /proc, /sys, /etc, /dev, /var and
 * installed files. With --sysroot DIR (or CMAX_SYSROOT) every absolute path
 * is resolved inside DIR, symlinks included: an absolute link target is
 * re-rooted, and ".." never climbs above DIR. Tests replay dumped trees. */
#ifndef CMAX_SYSROOT_H
#define CMAX_SYSROOT_H
#include <stddef.h>

int sysroot_set(const char *dir);   /* 0, or -errno (not a directory) */
const char *sysroot_get(void);      /* "/" unless set */
int sysroot_is_host(void);          /* 1 when reading the real machine */

/* Virtual canonical path (inside the root, symlinks resolved), or NULL with errno. */
char *sr_realpath(const char *path);
/* Host path to open for a virtual path, or NULL with errno. */
char *sr_hostpath(const char *path);

/* Read up to `cap` bytes. 0 on success (*out NUL-terminated, caller frees,
 * *truncated set when the file had more), or -errno. */
int sr_read(const char *path, size_t cap, char **out, size_t *len, int *truncated);
/* Whole small file (<= 1 MiB), whitespace-trimmed; NULL when unreadable. */
char *sr_read_str(const char *path);
/* First line parsed as a decimal integer; 0 or -errno / -EINVAL. */
int sr_read_ll(const char *path, long long *v);
int sr_exists(const char *path);
int sr_is_dir(const char *path);
/* access(2) with R_OK/W_OK/X_OK on the resolved path: 0 or -errno. */
int sr_access(const char *path, int mode);
/* Sorted directory entries without "." and ".."; 0 or -errno. */
int sr_list(const char *dir, char ***names, size_t *n);
void sr_list_free(char **names, size_t n);
/* Raw target of a symlink (not re-rooted), NULL when not a link. */
char *sr_readlink(const char *path);
/* Last path component of the link target (e.g. a driver name), NULL if none. */
char *sr_link_basename(const char *path);

/* Test instrumentation, unused by cmax itself (tests/unit/test_unread.c
 * replays the fixture corpus with every file it reads turned into garbage).
 * The read hook is told the canonical virtual path of every file sr_read()
 * read successfully; the override makes sr_read() of one canonical virtual
 * path return `content` (len bytes) instead of the file's own bytes.
 * NULL clears either. */
typedef void (*sr_read_hook_fn)(const char *vpath, void *arg);
void sr_set_read_hook(sr_read_hook_fn fn, void *arg);
void sr_set_override(const char *vpath, const char *content, size_t len);
/* Remember every resolved path and every file's bytes (inside a --sysroot)
 * until switched off or the root changes: only for a tree known not to
 * change while it is on. */
void sr_set_resolve_cache(int on);
#endif
