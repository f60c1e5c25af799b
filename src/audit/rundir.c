#include "rundir.h"
#include "../core/strbuf.h"
#include "../core/clock.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>

char *rundir_base(void)
{
	const char *ch = getenv("CMAX_HOME");
	if (ch && *ch)
		return xasprintf("%s/audit", ch);
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	/* Never create a home directory: service accounts (slurm, munge,
	 * nobody) have HOME=/nonexistent, and root could make it exist. */
	struct stat st;
	if (!home || stat(home, &st) != 0 || !S_ISDIR(st.st_mode)) {
		const char *tmp = getenv("TMPDIR");
		return xasprintf("%s/cmax-%ld/audit", tmp && *tmp ? tmp : "/tmp", (long)getuid());
	}
	return xasprintf("%s/.cmax/audit", home);
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

char *rundir_create(const char *output_dir, time_t started, char **err)
{
	char *dir;
	if (output_dir) {
		dir = xstrdup(output_dir);
		int rc = mkdir_p(dir);
		if (rc != 0) {
			*err = xasprintf("cannot create output directory %s: %s", dir, strerror(-rc));
			free(dir);
			return NULL;
		}
		return dir;
	}
	char *base = rundir_base();
	int rc = mkdir_p(base);
	if (rc != 0) {
		*err = xasprintf("cannot create %s: %s", base, strerror(-rc));
		free(base);
		return NULL;
	}
	/* The fallback lives in a shared /tmp: someone else's directory (or a
	 * link planted there) must not receive our results. */
	struct stat st;
	if (lstat(base, &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_uid != getuid() && getuid() != 0)) {
		*err = xasprintf("%s is not a directory of this user: set CMAX_HOME or pass --output-dir", base);
		free(base);
		return NULL;
	}
	char stamp[32];
	clock_stamp(started, stamp, sizeof stamp);
	for (int i = 0; i < 1000; i++) {
		dir = i ? xasprintf("%s/%s-%d", base, stamp, i) : xasprintf("%s/%s", base, stamp);
		if (mkdir(dir, 0700) == 0) {
			free(base);
			return dir;
		}
		int e = errno;
		if (e != EEXIST) {
			*err = xasprintf("cannot create %s: %s", dir, strerror(e));
			free(dir);
			free(base);
			return NULL;
		}
		free(dir);
	}
	*err = xasprintf("cannot create a run directory under %s", base);
	free(base);
	return NULL;
}

int rundir_write(const char *dir, const char *name, const char *data, size_t len)
{
	char *tmp = xasprintf("%s/.%s.tmp", dir, name);
	char *dst = xasprintf("%s/%s", dir, name);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc = 0;
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			close(fd);
			unlink(tmp);
			goto out;
		}
		off += (size_t)w;
	}
	if (close(fd) != 0 || rename(tmp, dst) != 0) {
		rc = -errno;
		unlink(tmp);
	}
out:
	free(tmp);
	free(dst);
	return rc;
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
