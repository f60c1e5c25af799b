#include "core/outfile.h"
#include "core/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct outfile {
	char *path;   /* as the caller named it, for messages */
	char *base;   /* its last component, relative to dirfd */
	char *tmp;    /* the temporary file's name in dirfd */
	int dirfd;    /* the target's directory, held open so that a renamed parent cannot move the write */
	int fd;
	FILE *f;      /* opened on demand by outfile_stream */
	unsigned flags;
};

static int fail(char **err, const char *path, const char *why)
{
	if (err)
		*err = xasprintf("cannot write %s: %s", path, why);
	return -1;
}

static int fail_errno(char **err, const char *path, int e)
{
	return fail(err, path, strerror(e));
}

/* path -> directory part (malloc'd; "." when none) and last component. */
static int split(const char *path, char **dir, const char **base)
{
	const char *slash = strrchr(path, '/');
	if (!slash) {
		*dir = xstrdup(".");
		*base = path;
	} else {
		*dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
		*base = slash + 1;
	}
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, "..")) {
		free(*dir);
		*dir = NULL;
		return -1;
	}
	return 0;
}

/* Anyone can rename or replace entries in a world-writable directory that
 * lacks the sticky bit, so nothing written there is ours for long. */
static int dir_mode_ok(const struct stat *st)
{
	return !((st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX));
}

static int open_dir(const char *path, const char *dir, char **err, int *out)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail_errno(err, path, errno);
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return fail_errno(err, path, e);
	}
	if (!dir_mode_ok(&st)) {
		close(fd);
		return fail(err, path, "its directory is writable by anyone and not sticky (chmod +t or o-w)");
	}
	*out = fd;
	return 0;
}

/* The target itself: absent, or a regular file the caller may replace. */
static int target_ok(int dirfd, const char *base, const char *path, unsigned flags, char **err)
{
	struct stat st;
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT)
			return 0;
		return fail_errno(err, path, errno);
	}
	if (S_ISLNK(st.st_mode))
		return fail(err, path, "it is a symbolic link (never followed or replaced)");
	if (!S_ISREG(st.st_mode))
		return fail(err, path, S_ISDIR(st.st_mode) ? "it is a directory"
							   : "it exists and is not a regular file (never replaced)");
	if (!(flags & OUTFILE_REPLACE))
		return fail(err, path, "it exists (never overwritten)");
	return 0;
}

int outfile_check(const char *path, unsigned flags, char **err)
{
	char *dir;
	const char *base;
	if (!path || split(path, &dir, &base) != 0)
		return fail(err, path ? path : "(null)", "not a file name");
	int dirfd = -1;
	int rc = open_dir(path, dir, err, &dirfd);
	free(dir);
	if (rc)
		return rc;
	rc = target_ok(dirfd, base, path, flags, err);
	close(dirfd);
	return rc;
}

/* A name no other process can predict (a PID or a counter could be planted
 * ahead as a symlink; O_EXCL|O_NOFOLLOW would refuse it, but the write
 * should not be stopped by it either). */
static void random_suffix(char out[13])
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[12];
	if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		/* never expected on Linux >= 3.17; O_EXCL keeps it safe regardless */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16);
		for (size_t i = 0; i < sizeof r; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			r[i] = (unsigned char)(x >> 56);
		}
	}
	for (size_t i = 0; i < sizeof r; i++)
		out[i] = set[r[i] % (sizeof set - 1)];
	out[12] = 0;
}

struct outfile *outfile_open(const char *path, unsigned flags, char **err)
{
	char *dir;
	const char *base;
	if (!path || split(path, &dir, &base) != 0) {
		fail(err, path ? path : "(null)", "not a file name");
		return NULL;
	}
	int dirfd = -1;
	int rc = open_dir(path, dir, err, &dirfd);
	free(dir);
	if (rc)
		return NULL;
	if (target_ok(dirfd, base, path, flags, err)) {
		close(dirfd);
		return NULL;
	}
	mode_t mode = flags & OUTFILE_PRIVATE ? 0600 : 0644;
	/* hidden and ending in .tmp: a textfile collector reading *.prom, or a
	 * reader of *.json, never sees the half-written file */
	int namelen = (int)strnlen(base, 200);
	for (int tries = 0; tries < 100; tries++) {
		char suf[13];
		random_suffix(suf);
		char *tmp = xasprintf(".%.*s.%s.tmp", namelen, base, suf);
		int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0) {
			struct outfile *of = xcalloc(1, sizeof *of);
			of->path = xstrdup(path);
			of->base = xstrdup(base);
			of->tmp = tmp;
			of->dirfd = dirfd;
			of->fd = fd;
			of->flags = flags;
			return of;
		}
		int e = errno;
		free(tmp);
		if (e != EEXIST && e != ELOOP) {
			close(dirfd);
			fail_errno(err, path, e);
			return NULL;
		}
	}
	close(dirfd);
	fail(err, path, "no free temporary name beside it");
	return NULL;
}

FILE *outfile_stream(struct outfile *of)
{
	if (!of->f) {
		of->f = fdopen(of->fd, "w");
		if (!of->f)
			return NULL;
	}
	return of->f;
}

static void release(struct outfile *of, int remove_tmp)
{
	if (of->f)
		fclose(of->f);
	else if (of->fd >= 0)
		close(of->fd);
	if (remove_tmp)
		unlinkat(of->dirfd, of->tmp, 0);
	close(of->dirfd);
	free(of->path);
	free(of->base);
	free(of->tmp);
	free(of);
}

void outfile_abort(struct outfile *of)
{
	if (of)
		release(of, 1);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Put the finished temporary file in place: over an existing regular file
 * when allowed, else only where nothing exists (atomically: RENAME_NOREPLACE,
 * or link(2) on a file system without it). */
static int place(struct outfile *of)
{
	if (of->flags & OUTFILE_REPLACE)
		return renameat(of->dirfd, of->tmp, of->dirfd, of->base);
	if (renameat2(of->dirfd, of->tmp, of->dirfd, of->base, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (linkat(of->dirfd, of->tmp, of->dirfd, of->base, 0) != 0)
		return -1;
	unlinkat(of->dirfd, of->tmp, 0);
	return 0;
}

int outfile_commit(struct outfile *of, char **err)
{
	int e = 0;
	errno = 0;
	if (of->f) {
		if (ferror(of->f) || fflush(of->f) != 0)
			e = errno ? errno : EIO;
	}
	if (!e && fsync(of->fd) != 0 && errno != EINVAL && errno != EROFS)
		e = errno;
	if (of->f) {
		if (fclose(of->f) != 0 && !e)
			e = errno ? errno : EIO;
		of->f = NULL;
	} else if (close(of->fd) != 0 && !e) {
		e = errno;
	}
	of->fd = -1;
	/* what the target became since the check (a device planted in a
	 * directory the caller can write) is refused again, not replaced */
	int rc = 0;
	if (e)
		rc = fail_errno(err, of->path, e);
	else if ((rc = target_ok(of->dirfd, of->base, of->path, of->flags, err)) == 0 && place(of) != 0)
		rc = errno == EEXIST ? fail(err, of->path, "it exists (never overwritten)") : fail_errno(err, of->path, errno);
	if (rc) {
		release(of, 1);
		return rc;
	}
	/* the rename durable too; a file system that cannot fsync a directory
	 * has already done what it can */
	fsync(of->dirfd);
	release(of, 0);
	return 0;
}

int outfile_write(const char *path, const void *data, size_t len, unsigned flags, char **err)
{
	struct outfile *of = outfile_open(path, flags, err);
	if (!of)
		return -1;
	if (write_all(of->fd, data, len) != 0) {
		int e = errno;
		outfile_abort(of);
		return fail_errno(err, path, e);
	}
	return outfile_commit(of, err);
}

int outfile_dir_safe(const char *dir, char **err)
{
	struct stat st;
	if (stat(dir, &st) != 0) {
		if (err)
			*err = xasprintf("cannot use %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (err)
			*err = xasprintf("cannot use %s: it is not a directory", dir);
		return -1;
	}
	if (!dir_mode_ok(&st)) {
		if (err)
			*err = xasprintf("cannot use %s: it is writable by anyone and not sticky (chmod +t or o-w)", dir);
		return -1;
	}
	return 0;
}

static int pd_fail(char **err, const char *path, const char *why)
{
	if (err)
		*err = xasprintf("cannot use %s: %s", path, why);
	return -1;
}

int outfile_private_dir(const char *path, int create, char **err)
{
	char *dir;
	const char *base;
	if (!path || split(path, &dir, &base) != 0)
		return pd_fail(err, path ? path : "(null)", "not a directory name");
	int pfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (pfd < 0)
		return pd_fail(err, path, strerror(errno));
	struct stat st;
	if (fstat(pfd, &st) != 0 || !dir_mode_ok(&st)) {
		close(pfd);
		return pd_fail(err, path, "its parent is writable by anyone and not sticky");
	}
	if (create && mkdirat(pfd, base, 0700) != 0 && errno != EEXIST) {
		int e = errno;
		close(pfd);
		return pd_fail(err, path, strerror(e));
	}
	/* whatever is there now, a planted symlink included, is judged by what
	 * it is itself: never followed */
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		int e = errno;
		close(pfd);
		if (e == ENOENT && !create)
			return 0;
		return pd_fail(err, path, strerror(e));
	}
	if (S_ISLNK(st.st_mode)) {
		close(pfd);
		return pd_fail(err, path, "it is a symbolic link (possibly planted; never followed)");
	}
	int fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return pd_fail(err, path, errno == ENOTDIR ? "it is not a directory" : strerror(errno));
	int rc = 0;
	if (fstat(fd, &st) != 0) {
		rc = pd_fail(err, path, strerror(errno));
	} else if (st.st_uid != geteuid()) {
		char why[96];
		snprintf(why, sizeof why, "it belongs to uid %ld, not to this user (uid %ld)", (long)st.st_uid,
			 (long)geteuid());
		rc = pd_fail(err, path, why);
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		rc = pd_fail(err, path, "it is writable by other users");
	} else if ((st.st_mode & 077) && fchmod(fd, 0700) != 0) {
		rc = pd_fail(err, path, strerror(errno)); /* ours: made private, as mkdir would have */
	}
	close(fd);
	return rc;
}
