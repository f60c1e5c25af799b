/* One way to write an output file (reports, state, textfile, plans, run
 * directories). cmax runs as root on shared nodes, so a path it is told to
 * write may hold a device node, a planted symlink, or sit in a directory
 * anyone can write; the write must neither follow nor replace any of them.
 *
 * How: the target is checked with lstat (a symlink or anything that is not a
 * regular file is refused), so is its directory (world-writable without the
 * sticky bit: refused); the data goes to a temporary file beside the target,
 * created with O_CREAT|O_EXCL|O_NOFOLLOW under a random name, written whole,
 * fsync'd and renamed over the target (then the directory is fsync'd). Any
 * failure removes the temporary file and leaves the target as it was.
 * Every refusal or failure is -1 with a one-line message (a command's
 * exit code for it is EXIT_CANTCREAT, 73). */
#ifndef CMAX_OUTFILE_H
#define CMAX_OUTFILE_H
#include <stddef.h>
#include <stdio.h>

enum outfile_flags {
	/* an existing regular file at the path may be replaced; without it the
	 * path must not exist (checked again, atomically, at the rename) */
	OUTFILE_REPLACE = 1u << 0,
	/* mode 0600 instead of 0644 (both under the umask) */
	OUTFILE_PRIVATE = 1u << 1,
};

/* Would a write to path be refused? 0, or -1 with *err (malloc'd,
 * one line). For commands that should refuse before they do the work. */
int outfile_check(const char *path, unsigned flags, char **err);

/* Write len bytes of data to path as described above: 0, or -1 with *err. */
int outfile_write(const char *path, const void *data, size_t len, unsigned flags, char **err);

/* The same for a writer that streams (report_json, json_dumpf, fprintf):
 * outfile_open checks and creates the temporary file (NULL with *err);
 * write to outfile_stream(); outfile_commit flushes, fsyncs and renames
 * (0 or -1 with *err) and outfile_abort removes the temporary
 * file; either one frees the handle. */
struct outfile;
struct outfile *outfile_open(const char *path, unsigned flags, char **err);
FILE *outfile_stream(struct outfile *of);
int outfile_commit(struct outfile *of, char **err);
void outfile_abort(struct outfile *of);

/* A private directory of this user (e.g. $TMPDIR/cmax-<uid>): created 0700
 * when absent (create != 0), then opened without following a symlink and
 * checked: a directory, owned by the effective uid, writable by no one else,
 * in a parent that is not world-writable without the sticky bit. 0, or -1
 * with *err. With create == 0 an absent directory is fine
 * when its parent is (the check a dry run or an early refusal needs). */
int outfile_private_dir(const char *path, int create, char **err);

/* The parent-directory rule alone, for a directory path cmax will create
 * files in: 0 when dir is not world-writable or has the sticky bit. */
int outfile_dir_safe(const char *dir, char **err);
#endif
