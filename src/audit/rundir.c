#include "audit/rundir.h"
#include "core/strbuf.h"
#include "core/clock.h"
#include "core/outfile.h"
#include "core/home.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>

/* The base for runs: the cmax home's audit/ (core/home.h); *private_dir
 * (when asked) gets the $TMPDIR/cmax-<uid> directory when the base is that
 * fallback, which must be checked as ours. */
static char *base_path(char **private_dir)
{
	char *home = cmax_home(private_dir);
	char *base = xasprintf("%s/audit", home);
	free(home);
	return base;
}

char *rundir_base(void)
{
	return base_path(NULL);
}

static int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			return -e;
		}
		*s = '/';
	}
	int rc = 0;
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		rc = -errno;
	free(p);
	return rc;
}

/* Where a run would go must be able to hold it: the directory itself, or
 * its nearest existing ancestor, a directory this user can write that not
 * everyone can (core/outfile.h). Read-only, so a dry run could call it. */
int rundir_check(const char *output_dir, char **err)
{
	char *priv = NULL;
	char *path = output_dir ? xstrdup(output_dir) : base_path(&priv);
	if (priv) {
		/* $TMPDIR/cmax-<uid> is judged as a private directory; a $TMPDIR
		 * that does not exist yet (created below) as any other path */
		char *tmpdir = xstrndup(priv, (size_t)(strrchr(priv, '/') - priv));
		struct stat st;
		int there = stat(*tmpdir ? tmpdir : "/", &st) == 0;
		free(tmpdir);
		if (there) {
			int rc = outfile_private_dir(priv, 0, err);
			free(priv);
			free(path);
			return rc;
		}
		free(priv);
	}
	const char *what = output_dir ? "--output-dir " : "";
	char *p = xstrdup(path), *msg = NULL;
	for (;;) {
		struct stat st;
		if (stat(p, &st) == 0) {
			if (!S_ISDIR(st.st_mode))
				msg = xasprintf("%s%s: %s is not a directory, so no run directory can be made there", what,
						 path, p);
			else if (access(p, W_OK | X_OK) != 0)
				msg = xasprintf("%s%s: cannot create a run directory in %s: %s", what, path, p,
						strerror(errno));
			else if (outfile_dir_safe(p, NULL) != 0)
				msg = xasprintf("%s%s: %s is writable by anyone and not sticky (chmod +t or o-w)", what,
						path, p);
			break;
		}
		if (errno != ENOENT || !strcmp(p, ".")) {
			msg = xasprintf("%s%s: %s", what, path, strerror(errno));
			break;
		}
		char *slash = strrchr(p, '/');
		if (!slash) {
			free(p);
			p = xstrdup(".");
		} else if (slash == p) {
			p[1] = 0;
		} else {
			*slash = 0;
		}
	}
	free(p);
	free(path);
	if (!msg)
		return 0;
	*err = msg;
	return -1;
}

/* A run claims its directory with a marker created O_EXCL: a second run
 * aimed at the same directory (concurrently or later) sees it and goes
 * elsewhere, never writing into the other's files. 1 claimed, 0 taken,
 * -errno. */
static const char *const run_files[] = { "audit.results.json", "audit.values.json", "audit.out" };

static int claim(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	int fd = openat(dfd, RUNDIR_MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;
		close(dfd);
		return e == EEXIST || e == ELOOP ? 0 : -e;
	}
	dprintf(fd, "pid %ld\n", (long)getpid());
	close(fd);
	/* a run by an older cmax left no marker: its files say it is taken */
	struct stat st;
	for (size_t i = 0; i < sizeof run_files / sizeof *run_files; i++)
		if (fstatat(dfd, run_files[i], &st, AT_SYMLINK_NOFOLLOW) == 0) {
			unlinkat(dfd, RUNDIR_MARKER, 0);
			close(dfd);
			return 0;
		}
	close(dfd);
	return 1;
}

/* base/<stamp>, base/<stamp>-1, ...: the first that mkdir creates is ours. */
static char *fresh_dir(const char *base, time_t started, char **err)
{
	char stamp[32];
	clock_stamp(started, stamp, sizeof stamp);
	for (int i = 0; i < 1000; i++) {
		char *dir = i ? xasprintf("%s/%s-%d", base, stamp, i) : xasprintf("%s/%s", base, stamp);
		if (mkdir(dir, 0700) == 0) {
			int c = claim(dir);
			if (c == 1)
				return dir;
			*err = xasprintf("cannot create %s: %s", dir, c < 0 ? strerror(-c) : "taken by another run");
			free(dir);
			return NULL;
		}
		int e = errno;
		if (e != EEXIST) {
			*err = xasprintf("cannot create %s: %s", dir, strerror(e));
			free(dir);
			return NULL;
		}
		free(dir);
	}
	*err = xasprintf("cannot create a run directory under %s", base);
	return NULL;
}

char *rundir_create(const char *output_dir, time_t started, char **err)
{
	if (output_dir) {
		int rc = mkdir_p(output_dir);
		struct stat st;
		if (rc != 0) {
			*err = xasprintf("cannot create output directory %s: %s", output_dir, strerror(-rc));
			return NULL;
		}
		if (stat(output_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
			*err = xasprintf("--output-dir %s is not a directory", output_dir);
			return NULL;
		}
		if (outfile_dir_safe(output_dir, err) != 0)
			return NULL;
		int c = claim(output_dir);
		if (c < 0) {
			*err = xasprintf("cannot use output directory %s: %s", output_dir, strerror(-c));
			return NULL;
		}
		/* taken: this run goes in a fresh directory inside it (the caller
		 * says so, the report names it) */
		return c ? xstrdup(output_dir) : fresh_dir(output_dir, started, err);
	}
	char *priv = NULL;
	char *base = base_path(&priv);
	int rc = 0;
	if (priv) {
		/* the fallback lives in a shared /tmp: $TMPDIR/cmax-<uid> must be
		 * ours, never a planted link or someone else's directory */
		char *tmpdir = xstrndup(priv, (size_t)(strrchr(priv, '/') - priv));
		rc = *tmpdir ? mkdir_p(tmpdir) : 0; /* a $TMPDIR that does not exist, as before */
		free(tmpdir);
		if (rc == 0 && outfile_private_dir(priv, 1, err) != 0)
			rc = 1; /* refused: *err says why */
		free(priv);
		if (rc == 0 && mkdir(base, 0700) != 0 && errno != EEXIST)
			rc = -errno;
	} else {
		rc = mkdir_p(base);
	}
	if (rc > 0) {
		free(base);
		return NULL;
	}
	if (rc != 0) {
		*err = xasprintf("cannot create %s: %s", base, strerror(-rc));
		free(base);
		return NULL;
	}
	struct stat st;
	if (lstat(base, &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_uid != getuid() && getuid() != 0)) {
		*err = xasprintf("%s is not a directory of this user: set CMAX_HOME or pass --output-dir", base);
		free(base);
		return NULL;
	}
	char *dir = fresh_dir(base, started, err);
	free(base);
	return dir;
}

char *rundir_newest(void)
{
	char *base = rundir_base();
	DIR *d = opendir(base);
	char *best = NULL;
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char *cand = xasprintf("%s/%s/audit.results.json", base, de->d_name);
			if (access(cand, R_OK) == 0 && (!best || strcmp(de->d_name, best) > 0)) {
				free(best);
				best = xstrdup(de->d_name);
			}
			free(cand);
		}
		closedir(d);
	}
	char *res = best ? xasprintf("%s/%s", base, best) : NULL;
	free(best);
	free(base);
	return res;
}
