/* core/outfile: the one way cmax writes an output file. Each hostile target
 * (symlink, FIFO, device, directory, an existing file that must not be
 * overwritten, a world-writable non-sticky directory) is refused with -1 and
 * left exactly as it was; a write that succeeds leaves no temporary file; the
 * private-directory helper refuses a planted symlink and another's directory.
 * Device and ownership cases need root and are skipped without it. */
#include "tap.h"
#include "core/outfile.h"
#include "core/strbuf.h"
#include "core/readfile.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static char *P(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static int same(const char *path, const char *want)
{
	char *got = read_file_capped(path, 1 << 20, NULL);
	int r = got && !strcmp(got, want);
	free(got);
	return r;
}

/* entries in dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	if (d)
		closedir(d);
	return n;
}

/* errp, not err: the call that fills it is another argument, and C leaves
 * the order of their evaluation open */
static int refused(int rc, char **errp, const char *what)
{
	char *err = *errp;
	*errp = NULL;
	int ok = rc == -1 && err && !strchr(err, '\n');
	T_OK(ok, "%s: -1 with a one-line message (%s)", what, err ? err : "no message");
	free(err);
	return ok;
}

int main(void)
{
	char tmpl[] = "/tmp/cmax-outfile.XXXXXX";
	char *d = mkdtemp(tmpl);
	if (!d) {
		perror("mkdtemp");
		return 1;
	}
	char *err = NULL;
	int root = geteuid() == 0;
	umask(022);

	/* a new file: written whole, nothing else left in the directory */
	char *a = P(d, "a.json");
	T_INTEQ(outfile_write(a, "{}\n", 3, 0, &err), 0, "new file written");
	T_OK(same(a, "{}\n"), "new file holds the data");
	T_INTEQ(entries(d), 1, "no temporary file left beside it");
	struct stat st;
	T_OK(stat(a, &st) == 0 && (st.st_mode & 0777) == 0644, "mode 0644 (umask 022)");

	/* must-not-exist policy: the existing file is untouched */
	err = NULL;
	refused(outfile_write(a, "x", 1, 0, &err), &err, "existing file without OUTFILE_REPLACE");
	T_OK(same(a, "{}\n"), "existing file unchanged");
	T_INTEQ(entries(d), 1, "no temporary file left after the refusal");
	err = NULL;
	refused(outfile_check(a, 0, &err), &err, "outfile_check says the same");

	/* replace policy: a regular file is replaced */
	err = NULL;
	T_INTEQ(outfile_write(a, "new\n", 4, OUTFILE_REPLACE, &err), 0, "OUTFILE_REPLACE replaces a regular file");
	T_OK(same(a, "new\n"), "replaced content");
	T_INTEQ(outfile_check(a, OUTFILE_REPLACE, NULL), 0, "outfile_check allows the replacement");

	/* a symlink at the target: neither followed nor replaced */
	char *victim = P(d, "victim"), *link = P(d, "link.json");
	put(victim, "precious\n");
	T_OK(symlink(victim, link) == 0, "plant a symlink");
	err = NULL;
	refused(outfile_write(link, "evil", 4, OUTFILE_REPLACE, &err), &err, "symlink target");
	T_OK(same(victim, "precious\n"), "the link's target unchanged");
	T_OK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link is still a link");
	char *dangle = P(d, "dangle.json"), *nowhere = P(d, "nowhere");
	T_OK(symlink(nowhere, dangle) == 0, "plant a dangling symlink");
	err = NULL;
	refused(outfile_write(dangle, "evil", 4, OUTFILE_REPLACE, &err), &err, "dangling symlink target");
	T_OK(access(nowhere, F_OK) != 0, "nothing created where the dangling link points");

	/* a FIFO and a directory at the target */
	char *fifo = P(d, "fifo");
	T_OK(mkfifo(fifo, 0644) == 0, "make a FIFO");
	err = NULL;
	refused(outfile_write(fifo, "x", 1, OUTFILE_REPLACE, &err), &err, "FIFO target");
	T_OK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
	char *sub = P(d, "sub");
	mkdir(sub, 0755);
	err = NULL;
	refused(outfile_write(sub, "x", 1, OUTFILE_REPLACE, &err), &err, "directory target");

	/* a character device (root only: mknod) */
	if (root) {
		char *dev = P(d, "null");
		T_OK(mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0, "mknod a copy of /dev/null");
		err = NULL;
		refused(outfile_write(dev, "x", 1, OUTFILE_REPLACE, &err), &err, "char device target");
		T_OK(lstat(dev, &st) == 0 && S_ISCHR(st.st_mode), "the device is still a char device");
		err = NULL;
		refused(outfile_check(dev, OUTFILE_REPLACE, &err), &err, "outfile_check refuses the device too");
		unlink(dev);
		free(dev);
	} else {
		T_OK(1, "char device target # SKIP needs root for mknod");
	}

	/* the directory: world-writable without sticky is refused, with sticky allowed */
	char *ww = P(d, "ww"), *wwf = P(ww, "out.json");
	mkdir(ww, 0755);
	chmod(ww, 0777);
	err = NULL;
	refused(outfile_write(wwf, "x", 1, OUTFILE_REPLACE, &err), &err, "world-writable directory without sticky");
	T_INTEQ(entries(ww), 0, "nothing written in it");
	T_INTEQ(outfile_dir_safe(ww, NULL), -1, "outfile_dir_safe refuses it");
	chmod(ww, 01777);
	err = NULL;
	T_INTEQ(outfile_write(wwf, "ok", 2, 0, &err), 0, "sticky world-writable directory (like /tmp) is fine");
	T_INTEQ(outfile_dir_safe(ww, NULL), 0, "outfile_dir_safe allows it");

	/* a missing directory */
	char *gone = P(d, "no/such/dir/x.json");
	err = NULL;
	refused(outfile_write(gone, "x", 1, 0, &err), &err, "missing directory");
	err = NULL;
	refused(outfile_write("", "x", 1, 0, &err), &err, "empty path");

	/* temporary names are random, never PID-predictable: a link planted for
	 * the old name P.tmp.<pid> does not receive the write */
	char *pred = xasprintf("%s.tmp.%ld", a, (long)getpid());
	char *victim2 = P(d, "victim2");
	put(victim2, "keep\n");
	symlink(victim2, pred);
	err = NULL;
	T_INTEQ(outfile_write(a, "fresh\n", 6, OUTFILE_REPLACE, &err), 0, "write beside a planted P.tmp.<pid> link");
	T_OK(same(victim2, "keep\n") && same(a, "fresh\n"), "the planted link's target unchanged, the target written");

	/* streaming: commit puts it in place; abort leaves nothing */
	char *s = P(sub, "stream.txt");
	struct outfile *of = outfile_open(s, 0, &err);
	T_OK(of != NULL, "outfile_open");
	if (of) {
		fprintf(outfile_stream(of), "line %d\n", 1);
		T_OK(access(s, F_OK) != 0, "the target does not exist before commit");
		T_INTEQ(outfile_commit(of, &err), 0, "outfile_commit");
	}
	T_OK(same(s, "line 1\n"), "streamed content in place");
	char *s2 = P(sub, "aborted.txt");
	of = outfile_open(s2, 0, &err);
	if (of) {
		fputs("half", outfile_stream(of));
		outfile_abort(of);
	}
	T_OK(access(s2, F_OK) != 0 && entries(sub) == 1, "abort leaves no file and no temporary");
	/* a target created between open and commit is never overwritten */
	char *s3 = P(sub, "race.txt");
	of = outfile_open(s3, 0, &err);
	put(s3, "theirs\n");
	if (of) {
		fputs("ours\n", outfile_stream(of));
		err = NULL;
		refused(outfile_commit(of, &err), &err, "target created meanwhile (must-not-exist)");
	}
	T_OK(same(s3, "theirs\n") && entries(sub) == 2, "their file unchanged, our temporary removed");

	/* the private directory helper */
	char *pd = P(d, "cmax-1");
	T_INTEQ(outfile_private_dir(pd, 0, NULL), 0, "absent private dir, no create: fine");
	T_OK(access(pd, F_OK) != 0, "and not created");
	T_INTEQ(outfile_private_dir(pd, 1, NULL), 0, "private dir created");
	T_OK(lstat(pd, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700, "mode 0700");
	chmod(pd, 0755);
	T_INTEQ(outfile_private_dir(pd, 1, NULL), 0, "an own 0755 directory is reused");
	T_OK(lstat(pd, &st) == 0 && (st.st_mode & 0777) == 0700, "and made private");
	chmod(pd, 0777);
	err = NULL;
	refused(outfile_private_dir(pd, 1, &err), &err, "a private dir writable by others");
	char *elsewhere = P(d, "elsewhere"), *planted = P(d, "cmax-2");
	mkdir(elsewhere, 0700);
	symlink(elsewhere, planted);
	err = NULL;
	refused(outfile_private_dir(planted, 1, &err), &err, "a planted symlink");
	err = NULL;
	refused(outfile_private_dir(planted, 0, &err), &err, "a planted symlink (check only)");
	T_INTEQ(entries(elsewhere), 0, "nothing created where it points");
	char *pdww = P(ww, "cmax-3");
	chmod(ww, 0777);
	err = NULL;
	refused(outfile_private_dir(pdww, 1, &err), &err, "a parent writable by anyone, not sticky");
	T_OK(access(pdww, F_OK) != 0, "not created there");
	chmod(ww, 0755);
	if (root) {
		char *theirs = P(d, "cmax-4");
		mkdir(theirs, 0700);
		T_OK(chown(theirs, 65534, 65534) == 0, "a directory of another user");
		err = NULL;
		refused(outfile_private_dir(theirs, 1, &err), &err, "another user's directory");
		free(theirs);
	} else {
		T_OK(1, "another user's directory # SKIP needs root for chown");
	}

	char *cmd = xasprintf("rm -rf '%s'", d);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", d);
	free(cmd);
	free(a);
	free(victim);
	free(link);
	free(dangle);
	free(nowhere);
	free(fifo);
	free(sub);
	free(ww);
	free(wwf);
	free(gone);
	free(pred);
	free(victim2);
	free(s);
	free(s2);
	free(s3);
	free(pd);
	free(elsewhere);
	free(planted);
	free(pdww);
	return t_done();
}
