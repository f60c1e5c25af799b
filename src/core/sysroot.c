#include "core/sysroot.h"
#include "core/strbuf.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>

static char *g_root; /* NULL = host */

static void rcache_clear(void);

int sysroot_set(const char *dir)
{
	rcache_clear(); /* another tree */
	if (!dir || !*dir || strcmp(dir, "/") == 0) {
		free(g_root);
		g_root = NULL;
		return 0;
	}
	char *real = realpath(dir, NULL);
	if (!real)
		return -errno;
	struct stat st;
	if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return -ENOTDIR;
	}
	free(g_root);
	if (strcmp(real, "/") == 0) {
		free(real);
		g_root = NULL;
	} else {
		g_root = real;
	}
	return 0;
}

const char *sysroot_get(void)
{
	return g_root ? g_root : "/";
}

int sysroot_is_host(void)
{
	return g_root == NULL;
}

/* Pop the last component of a virtual path kept in sb (never above "/"). */
static void vpop(struct strbuf *sb)
{
	while (sb->len > 1 && sb->buf[sb->len - 1] != '/')
		sb->len--;
	if (sb->len > 1)
		sb->len--; /* drop the slash */
	sb->buf[sb->len] = 0;
}

static void vpush(struct strbuf *sb, const char *comp, size_t n)
{
	if (!(sb->len == 1 && sb->buf[0] == '/'))
		sb_add(sb, "/", 1);
	sb_add(sb, comp, n);
}

/* Walk `path` component by component inside the root. */
static char *resolve(const char *path, int depth)
{
	if (!path || path[0] != '/') {
		errno = EINVAL;
		return NULL;
	}
	struct strbuf v = STRBUF_INIT;
	sb_adds(&v, "/");
	/* remaining work list: start with the path itself */
	char *todo = xstrdup(path);
	char *p = todo;
	int links = depth;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			vpop(&v);
			p += n;
			continue;
		}
		vpush(&v, p, n);
		p += n;
		char host[PATH_MAX];
		if (snprintf(host, sizeof host, "%s%s", g_root, v.buf) >= (int)sizeof host) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		struct stat st;
		if (lstat(host, &st) != 0) {
			if (errno == ENOENT && !*p)
				break; /* the leaf may be absent; callers see ENOENT on open */
			goto fail;
		}
		if (S_ISLNK(st.st_mode)) {
			if (++links > 40) {
				errno = ELOOP;
				goto fail;
			}
			char tgt[PATH_MAX];
			ssize_t r = readlink(host, tgt, sizeof tgt - 1);
			if (r < 0)
				goto fail;
			tgt[r] = 0;
			vpop(&v);
			/* new work = target + rest */
			char *rest = xasprintf("%s/%s", tgt, p);
			if (tgt[0] == '/') {
				sb_reset(&v);
				sb_adds(&v, "/");
			}
			free(todo);
			todo = rest;
			p = todo;
		}
	}
	free(todo);
	return sb_detach(&v);
fail:
	{
		int e = errno;
		free(todo);
		sb_free(&v);
		errno = e;
		return NULL;
	}
}

/* Test instrumentation (see sysroot.h): resolved paths remembered while
 * the tree under the root is known not to change. */
struct rcache_ent {
	char *in, *out;   /* for contents: in = "cap:vpath", out = the bytes read */
	int err;          /* resolve: errno; contents: sr_read's return */
	size_t len;
	int truncated;
};
struct rcache {
	struct rcache_ent *tab;
	size_t cap, n;
};
static struct rcache g_resolved, g_contents;
static int g_rcache_on;

static void rcache_free(struct rcache *c)
{
	for (size_t i = 0; i < c->cap; i++) {
		free(c->tab[i].in);
		free(c->tab[i].out);
	}
	free(c->tab);
	memset(c, 0, sizeof *c);
}

static void rcache_clear(void)
{
	rcache_free(&g_resolved);
	rcache_free(&g_contents);
}

void sr_set_resolve_cache(int on)
{
	rcache_clear();
	g_rcache_on = on;
}

static size_t rcache_hash(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static struct rcache_ent *rcache_slot(struct rcache_ent *tab, size_t cap, const char *in)
{
	size_t i = rcache_hash(in) & (cap - 1);
	while (tab[i].in && strcmp(tab[i].in, in) != 0)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* The entry for key (found, or the empty slot to fill); grows the table. */
static struct rcache_ent *rcache_get(struct rcache *c, const char *key)
{
	if (c->n * 2 >= c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		struct rcache_ent *tab = xcalloc(cap, sizeof *tab);
		for (size_t i = 0; i < c->cap; i++)
			if (c->tab[i].in)
				*rcache_slot(tab, cap, c->tab[i].in) = c->tab[i];
		free(c->tab);
		c->tab = tab;
		c->cap = cap;
	}
	return rcache_slot(c->tab, c->cap, key);
}

static char *resolve_root(const char *path)
{
	if (!g_rcache_on || !path)
		return resolve(path, 0);
	struct rcache_ent *e = rcache_get(&g_resolved, path);
	if (!e->in) {
		char *r = resolve(path, 0);
		e->in = xstrdup(path);
		e->out = r;
		e->err = errno;
		g_resolved.n++;
	}
	if (e->out)
		return xstrdup(e->out);
	errno = e->err;
	return NULL;
}

char *sr_realpath(const char *path)
{
	if (!g_root) {
		char *r = realpath(path, NULL);
		return r;
	}
	return resolve_root(path);
}

char *sr_hostpath(const char *path)
{
	if (!path || path[0] != '/') {
		errno = EINVAL;
		return NULL;
	}
	if (!g_root)
		return xstrdup(path);
	char *v = resolve_root(path);
	if (!v)
		return NULL;
	char *h = xasprintf("%s%s", g_root, v);
	free(v);
	return h;
}

/* Test instrumentation (see sysroot.h): off unless a test sets it. */
static sr_read_hook_fn g_read_hook;
static void *g_read_hook_arg;
static char *g_override_path, *g_override;
static size_t g_override_len;

void sr_set_read_hook(sr_read_hook_fn fn, void *arg)
{
	g_read_hook = fn;
	g_read_hook_arg = arg;
}

void sr_set_override(const char *vpath, const char *content, size_t len)
{
	free(g_override_path);
	free(g_override);
	g_override_path = vpath ? xstrdup(vpath) : NULL;
	g_override = NULL;
	g_override_len = 0;
	if (vpath) {
		g_override = xmalloc(len + 1);
		memcpy(g_override, content, len);
		g_override[len] = 0;
		g_override_len = len;
	}
}

static int sr_read_file(const char *path, const char *host, size_t cap, char **out, size_t *len, int *truncated);

int sr_read(const char *path, size_t cap, char **out, size_t *len, int *truncated)
{
	if (!g_read_hook && !g_override_path)
		return sr_read_file(path, NULL, cap, out, len, truncated);
	char *v = sr_realpath(path);
	int rc;
	if (!v) {
		rc = sr_read_file(path, NULL, cap, out, len, truncated);
	} else if (g_override_path && strcmp(v, g_override_path) == 0) {
		size_t n = g_override_len < cap ? g_override_len : cap;
		*out = xmalloc(n + 1);
		memcpy(*out, g_override, n);
		(*out)[n] = 0;
		if (len)
			*len = n;
		if (truncated)
			*truncated = n < g_override_len;
		rc = 0;
	} else if (g_rcache_on && g_root) {
		/* the tree does not change while the cache is on: read each file once */
		char *key = xasprintf("%zu:%s", cap, v);
		struct rcache_ent *e = rcache_get(&g_contents, key);
		if (!e->in) {
			char *h = xasprintf("%s%s", g_root, v);
			e->err = sr_read_file(path, h, cap, &e->out, &e->len, &e->truncated);
			free(h);
			e->in = key;
			g_contents.n++;
		} else {
			free(key);
		}
		rc = e->err;
		if (rc == 0) {
			*out = xmalloc(e->len + 1);
			memcpy(*out, e->out, e->len + 1);
			if (len)
				*len = e->len;
			if (truncated)
				*truncated = e->truncated;
		}
	} else {
		/* the canonical virtual path is resolved already: open it inside the root */
		char *h = g_root ? xasprintf("%s%s", g_root, v) : xstrdup(v);
		rc = sr_read_file(path, h, cap, out, len, truncated);
		free(h);
	}
	if (rc == 0 && v && g_read_hook)
		g_read_hook(v, g_read_hook_arg);
	free(v);
	return rc;
}

static int sr_read_file(const char *path, const char *host, size_t cap, char **out, size_t *len, int *truncated)
{
	*out = NULL;
	if (len)
		*len = 0;
	if (truncated)
		*truncated = 0;
	char *h = host ? xstrdup(host) : sr_hostpath(path);
	if (!h)
		return -errno;
	/* O_NONBLOCK so a FIFO or device node cannot wedge the audit */
	int fd = open(h, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	free(h);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	size_t sz = 0, alloc = 4096;
	char *buf = xmalloc(alloc + 1);
	for (;;) {
		if (sz == cap)
			break;
		if (sz == alloc) {
			alloc *= 2;
			buf = xrealloc(buf, alloc + 1);
		}
		size_t want = alloc - sz;
		if (want > cap - sz)
			want = cap - sz;
		ssize_t r = read(fd, buf + sz, want);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		sz += (size_t)r;
	}
	if (sz == cap && truncated) {
		char c;
		if (read(fd, &c, 1) == 1)
			*truncated = 1;
	}
	close(fd);
	buf[sz] = 0;
	*out = buf;
	if (len)
		*len = sz;
	return 0;
}

char *sr_read_str(const char *path)
{
	char *buf;
	size_t len;
	if (sr_read(path, 1 << 20, &buf, &len, NULL) != 0)
		return NULL;
	char *t = str_trim(buf);
	char *r = xstrdup(t);
	free(buf);
	return r;
}

int sr_read_ll(const char *path, long long *v)
{
	char *s = sr_read_str(path);
	if (!s)
		return -errno ? -errno : -ENOENT;
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	int bad = (end == s || errno != 0 || (*end && *end != '\n' && *end != ' ' && *end != '\t'));
	free(s);
	if (bad)
		return -EINVAL;
	*v = x;
	return 0;
}

int sr_exists(const char *path)
{
	char *h = sr_hostpath(path);
	if (!h)
		return 0;
	struct stat st;
	int ok = lstat(h, &st) == 0;
	free(h);
	return ok;
}

/* access(2) on the host path: what the running account may do with a
 * device node (/dev/ipmi0), not just whether it exists. 0 or -errno. */
int sr_access(const char *path, int mode)
{
	char *h = sr_hostpath(path);
	if (!h)
		return -errno;
	int rc = access(h, mode) == 0 ? 0 : -errno;
	free(h);
	return rc;
}

int sr_is_dir(const char *path)
{
	char *h = sr_hostpath(path);
	if (!h)
		return 0;
	struct stat st;
	int ok = stat(h, &st) == 0 && S_ISDIR(st.st_mode);
	free(h);
	return ok;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sr_list(const char *dir, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	char *h = sr_hostpath(dir);
	if (!h)
		return -errno;
	DIR *d = opendir(h);
	free(h);
	if (!d)
		return -errno;
	size_t cap = 16, cnt = 0;
	char **v = xmalloc(cap * sizeof *v);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (cnt == cap) {
			cap *= 2;
			v = xrealloc(v, cap * sizeof *v);
		}
		v[cnt++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(v, cnt, sizeof *v, cmpstr);
	*names = v;
	*n = cnt;
	return 0;
}

void sr_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

char *sr_readlink(const char *path)
{
	/* resolve the parent, keep the leaf as a link */
	const char *slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	char *parent = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	char *hp = sr_hostpath(parent);
	free(parent);
	if (!hp)
		return NULL;
	char *h = xasprintf("%s/%s", hp, slash + 1);
	free(hp);
	char tgt[PATH_MAX];
	ssize_t r = readlink(h, tgt, sizeof tgt - 1);
	free(h);
	if (r < 0)
		return NULL;
	tgt[r] = 0;
	return xstrdup(tgt);
}

char *sr_link_basename(const char *path)
{
	char *t = sr_readlink(path);
	if (!t)
		return NULL;
	char *b = strrchr(t, '/');
	char *r = xstrdup(b ? b + 1 : t);
	free(t);
	return r;
}
