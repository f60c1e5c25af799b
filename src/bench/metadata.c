/* `cmax bench metadata`: small-file rates, an import-like probe that
 * predicts `import torch` time, and the correctness checks the method's
 * testers tripped over (concurrent mkdir -p, unenforced locks, names with
 * ':', slow 4 KiB allocating writes). Native C, no fio.
 *
 * Locks are also tried from two nodes at once when the run is inside a
 * Slurm allocation of 2+ nodes (or --slurm / --nodes 2): one srun step
 * starts this program on two nodes as a hidden worker (`cmax bench metadata
 * --lock-worker DIR ...`, not in --help) that runs meta_node_lock_worker on
 * a file in the shared work directory and prints one CMAXLOCK line. */
#include "bench/bench.h"
#include "core/clock.h"
#include "bench/metadata.h"
#include "bench/meta.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/numparse.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include "bench/slurmstep.h"
#include "bench/space.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"usage: cmax bench metadata --path DIR [--workers N] [--files N] [options]\n\n"
	"Small-file create/stat/open-read-close/unlink rates with N worker processes in one\n"
	"directory, an import-like probe over 10 000 small files predicting `import torch`\n"
	"time, concurrent mkdir -p, exclusive flock()/fcntl() locks from two processes (and from\n"
	"two nodes inside a Slurm allocation),\n"
	"file names with ':' and other legal characters, 4 KiB allocating writes.\n"
	"The two-node locks run inside an allocation of 2+ nodes (--slurm; DIR must be shared),\n"
	"or with --nodes 2 outside one: srun takes a 2-node allocation (--immediate).\n";

#define MOPT(f) offsetof(struct mopts, f)
static const struct opt_def options[] = {
	{ .name = "workers", .type = OPT_INT, .offset = MOPT(workers), .metavar = "N", .min = 1, .max = 1024,
	  .dflt = "4", .help = "worker processes" },
	{ .name = "files", .type = OPT_INT, .offset = MOPT(files), .metavar = "N", .min = 1, .max = 10000000,
	  .help = "files per worker for the rates (default 2000 quick, 20000 full)" },
	{ .name = "file-size", .type = OPT_INT, .offset = MOPT(file_size), .metavar = "BYTES", .min = 0, .max = 1 << 20,
	  .dflt = "4096", .units = "bytes", .help = "bytes written into each file at create (0 = empty, like fio's filecreate)" },
	{ .name = "import-files", .type = OPT_INT, .offset = MOPT(import_files), .metavar = "N", .min = 100,
	  .max = 1000000, .dflt = "10000", .help = "files in the import-like tree" },
	{ .name = "alloc-mib", .type = OPT_INT, .offset = MOPT(alloc_mib), .metavar = "N", .min = 1, .max = 1 << 20,
	  .units = "MiB", .help = "MiB for the 4 KiB allocating write (default 64 quick, 1024 full)" },
	{ .name = "lock-iterations", .type = OPT_INT, .offset = MOPT(lock_iterations), .metavar = "N", .min = 1,
	  .max = 100000, .dflt = "100", .help = "lock attempts per process" },
	{ .name = "slurm", .type = OPT_FLAG, .offset = MOPT(slurm),
	  .help = "also try the locks from two nodes of this Slurm allocation at once" },
	{ .name = "nodes", .type = OPT_INT, .offset = MOPT(nodes), .metavar = "N", .min = 1, .max = 4096,
	  .help = "the same outside an allocation: srun takes a 2-node one" },
	{ .name = "partition", .type = OPT_STRING, .offset = MOPT(partition), .metavar = "P",
	  .help = "the partition for that allocation" },
	OPTION_END
};

static void defaults(struct bench_opts *bo)
{
	struct mopts *o = (struct mopts *)(void *)bo;
	o->workers = 4;
	o->files = -1;
	o->file_size = 4096;
	o->import_files = 10000;
	o->alloc_mib = -1;
	o->lock_iterations = 100;
}

static int check(struct bench_run *b)
{
	struct mopts *o = BENCH_OPTS(b, struct mopts);
	if (o->partition && !o->slurm && !o->nodes) {
		fprintf(stderr, "cmax bench metadata: --partition only applies with --nodes N (or --slurm)\n");
		return EXIT_USAGE;
	}
	if (o->files < 0)
		o->files = o->b.full ? 20000 : 2000;
	if (o->alloc_mib < 0)
		o->alloc_mib = o->b.full ? 1024 : 64;
	return 0;
}

/* ---- rates ------------------------------------------------------------ */

enum phase { PH_CREATE, PH_STAT, PH_ORC, PH_UNLINK };
static const char *const phase_key[] = { "create", "stat", "open-read-close", "unlink" };
static const char *const phase_th[] = { "create_per_s", "stat_per_s", "open_read_close_per_s", "unlink_per_s" };

struct rate_arg {
	const char *dir;
	int files, file_size;
	enum phase ph;
};

static void rate_worker(int w, int n, void *arg, struct work_out *o)
{
	(void)n;
	struct rate_arg *a = arg;
	char path[4096], buf[65536];
	memset(buf, 'x', sizeof buf);
	for (int i = 0; i < a->files; i++) {
		snprintf(path, sizeof path, "%s/f%d.%d", a->dir, w, i);
		int rc = 0, fd;
		struct stat st;
		switch (a->ph) {
		case PH_CREATE:
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd < 0) {
				rc = -1;
				break;
			}
			if (a->file_size > 0 && write(fd, buf, (size_t)a->file_size) != a->file_size)
				rc = -1;
			if (close(fd) != 0)
				rc = -1;
			break;
		case PH_STAT:
			rc = stat(path, &st);
			break;
		case PH_ORC:
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				rc = -1;
				break;
			}
			while (read(fd, buf, sizeof buf) > 0)
				;
			close(fd);
			break;
		case PH_UNLINK:
			rc = unlink(path);
			break;
		}
		if (rc != 0) {
			o->errors++;
			if (!o->first_errno) {
				o->first_errno = errno;
				work_note_path(o, path);
			}
		} else {
			o->ops++;
		}
	}
}

static void run_rates(struct bench_run *b, const struct mopts *o)
{
	char *dir = xasprintf("%s/rates", b->workdir);
	if (mkdir(dir, 0755) != 0) {
		struct result *r = bench_row(b, "bench.metadata-create", "small-file create rate");
		r_error(r, "cannot create %s: %s", dir, strerror(errno));
		free(dir);
		return;
	}
	for (int ph = PH_CREATE; ph <= PH_UNLINK && !bench_interrupted(); ph++) {
		char *id = xasprintf("bench.metadata-%s", phase_key[ph]);
		char *title = xasprintf("small-file %s rate, %lld workers in one directory", phase_key[ph], o->workers);
		struct result *r = bench_row(b, id, title);
		free(id);
		free(title);
		struct rate_arg a = { dir, o->files, o->file_size, (enum phase)ph };
		struct work_out t;
		double wall;
		int rc = meta_run_workers(o->workers, rate_worker, &a, &t, &wall);
		double rate = wall > 0 ? t.ops / wall : NAN;
		json_t *ob = json_object();
		json_object_set_new(ob, "workers", json_integer(o->workers));
		json_object_set_new(ob, "files", json_integer((json_int_t)o->workers * o->files));
		json_object_set_new(ob, "file_size", json_integer(o->file_size));
		json_object_set_new(ob, "ops", json_integer(t.ops));
		json_object_set_new(ob, "errors", json_integer(t.errors));
		json_object_set_new(ob, "wall_s", json_real(round(wall * 1e4) / 1e4));
		json_object_set_new(ob, "per_s", isnan(rate) ? json_null() : json_real(round(rate)));
		r_observed(r, ob);
		r_expected(r, json_deep_copy(bench_th(b, phase_th[ph])));
		r_reproduce(r, b->command);
		if (rc != 0) {
			r_error(r, bench_interrupted() ? "interrupted" : "a worker died without reporting");
		} else if (t.errors) {
			r_fail(r, "%ld of %ld %s calls failed (first: %s on %s)", t.errors, t.errors + t.ops, phase_key[ph],
			       strerror(t.first_errno), t.first_path);
		} else {
			const char *w;
			enum status st = bench_grade(bench_th(b, phase_th[ph]), rate, &w);
			if (st == ST_SKIP)
				st = ST_PASS;
			r_status(r, st, "%.0f %s/s (%ld files, %lld workers, %.2f s)%s%s", rate, phase_key[ph], t.ops, o->workers,
				 wall, st == ST_PASS ? "" : "; ", st == ST_PASS ? "" : w);
		}
	}
	rmdir(dir);
	free(dir);
}

/* ---- import-like probe -------------------------------------------------- */

static int gen_tree(const char *root, int files, long *bytes)
{
	char path[4096];
	static char buf[16384];
	memset(buf, '#', sizeof buf);
	unsigned seed = 12345;
	int per = 100;
	*bytes = 0;
	if (mkdir(root, 0755) != 0)
		return -1;
	for (int i = 0; i < files && !bench_interrupted(); i++) {
		if (i % per == 0) {
			snprintf(path, sizeof path, "%s/pkg%04d", root, i / per);
			if (mkdir(path, 0755) != 0)
				return -1;
		}
		snprintf(path, sizeof path, "%s/pkg%04d/mod%03d.py", root, i / per, i % per);
		seed = seed * 1103515245u + 12345u;
		size_t sz = 256 + (seed >> 8) % (sizeof buf - 256); /* 256 B .. 16 KiB, like .py/.pyc */
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		ssize_t w = write(fd, buf, sz);
		close(fd);
		if (w != (ssize_t)sz)
			return -1;
		*bytes += (long)sz;
	}
	return bench_interrupted() ? -1 : 0;
}

/* Flush, then drop the data pages we can: a first import on a node reads
 * from the servers, not from the page cache the generator just filled. */
static void drop_tree_cache(const char *root)
{
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		syncfs(dfd);
		close(dfd);
	}
	DIR *d = opendir(root);
	struct dirent *e;
	char path[4096];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", root, e->d_name);
		DIR *s = opendir(path);
		struct dirent *f;
		while (s && (f = readdir(s))) {
			if (f->d_name[0] == '.')
				continue;
			char p2[4096 + 256];
			snprintf(p2, sizeof p2, "%s/%s", path, f->d_name);
			int fd = open(p2, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
				close(fd);
			}
		}
		if (s)
			closedir(s);
	}
	if (d)
		closedir(d);
}

/* What a Python import does per module: list the directory, stat the
 * candidate, open, read it whole, close. Single-threaded, like import. */
static long walk_tree(const char *root, long *errors, double *stat_s, double *read_s)
{
	long n = 0;
	char path[4096], buf[65536];
	*stat_s = *read_s = 0;
	DIR *d = opendir(root);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", root, e->d_name);
		double t0 = clock_mono_s();
		DIR *s = opendir(path);
		struct dirent *f;
		*stat_s += clock_mono_s() - t0;
		while (s) {
			t0 = clock_mono_s();
			f = readdir(s);
			if (!f) {
				*stat_s += clock_mono_s() - t0;
				break;
			}
			if (f->d_name[0] == '.')
				continue;
			char p2[4096 + 256];
			snprintf(p2, sizeof p2, "%s/%s", path, f->d_name);
			struct stat st;
			if (stat(p2, &st) != 0)
				(*errors)++;
			double t1 = clock_mono_s();
			*stat_s += t1 - t0;
			int fd = open(p2, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				(*errors)++;
				continue;
			}
			while (read(fd, buf, sizeof buf) > 0)
				;
			close(fd);
			*read_s += clock_mono_s() - t1;
			n++;
		}
		if (s)
			closedir(s);
	}
	if (d)
		closedir(d);
	return n;
}

static void run_import(struct bench_run *b, const struct mopts *o)
{
	struct result *r = bench_row(b, "bench.metadata-import-probe",
				     "import-like probe (walk, stat, open, read small files) and predicted import torch time");
	char *root = xasprintf("%s/import", b->workdir);
	long bytes = 0;
	double g0 = clock_mono_s();
	if (gen_tree(root, o->import_files, &bytes) != 0) {
		r_error(r, "could not generate the %lld-file tree under %s: %s", o->import_files, root, strerror(errno));
		free(root);
		return;
	}
	double gen_s = clock_mono_s() - g0;
	drop_tree_cache(root);
	long errors = 0;
	double stat_s, read_s, t0 = clock_mono_s();
	long n = walk_tree(root, &errors, &stat_s, &read_s);
	double walk_s = clock_mono_s() - t0;
	const json_t *th = bench_th(b, "import");
	double files = json_number_value(json_object_get(th, "torch_files"));
	double cpu = json_number_value(json_object_get(th, "torch_cpu_s"));
	double per_file = n > 0 ? walk_s / n : NAN;
	double predicted = cpu + files * per_file;
	json_t *ob = json_object();
	json_object_set_new(ob, "files", json_integer(n));
	json_object_set_new(ob, "bytes", json_integer(bytes));
	json_object_set_new(ob, "generate_s", json_real(round(gen_s * 1000) / 1000));
	json_object_set_new(ob, "walk_s", json_real(round(walk_s * 1e4) / 1e4));
	json_object_set_new(ob, "list_stat_s", json_real(round(stat_s * 1e4) / 1e4));
	json_object_set_new(ob, "open_read_close_s", json_real(round(read_s * 1e4) / 1e4));
	json_object_set_new(ob, "per_file_us", isnan(per_file) ? json_null() : json_real(round(per_file * 1e7) / 10));
	json_object_set_new(ob, "errors", json_integer(errors));
	json_object_set_new(ob, "predicted_import_torch_s", isnan(predicted) ? json_null() : json_real(round(predicted * 100) / 100));
	json_object_set_new(ob, "model", json_string("torch_cpu_s + torch_files x per_file (data/bench-thresholds.json)"));
	r_observed(r, ob);
	r_expected(r, json_deep_copy(th));
	r_reproduce(r, b->command);
	r_evidence_note(r, "data pages dropped with posix_fadvise(DONTNEED) after syncfs; directory and inode caches stay warm");
	if (bench_interrupted()) {
		r_skip(r, "interrupted");
	} else if (errors || n != o->import_files) {
		r_fail(r, "%ld errors, %ld of %lld files read back", errors, n, o->import_files);
	} else {
		const char *w;
		enum status st = bench_grade(json_object_get(th, "predicted_s"), predicted, &w);
		if (st == ST_SKIP)
			st = ST_PASS;
		r_status(r, st, "%ld files in %.2f s (%.0f us per file): import torch predicted %.1f s%s%s", n, walk_s,
			 per_file * 1e6, predicted, st == ST_PASS ? "" : "; ", st == ST_PASS ? "" : w);
	}
	free(root);
}

/* ---- correctness ------------------------------------------------------ */

struct mkdir_arg {
	const char *root;
};

static void mkdir_worker(int w, int n, void *arg, struct work_out *o)
{
	(void)w;
	(void)n;
	struct mkdir_arg *a = arg;
	char path[4096];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			for (int k = 0; k < 4; k++) {
				snprintf(path, sizeof path, "%s/a%d/b%d/c%d/d", a->root, i, j, k);
				meta_mkdir_p(path, &meta_real_fsops, o);
			}
}

static void run_mkdir(struct bench_run *b, const struct mopts *o)
{
	struct result *r = bench_row(b, "bench.metadata-mkdir-race", "concurrent mkdir -p of the same tree");
	int workers = o->workers < 2 ? 2 : o->workers, rounds = 4;
	struct work_out tot;
	memset(&tot, 0, sizeof tot);
	int rc = 0;
	for (int i = 0; i < rounds && !bench_interrupted() && rc == 0; i++) {
		char *root = xasprintf("%s/mkdir/r%d", b->workdir, i);
		struct mkdir_arg a = { root };
		struct work_out t;
		double wall;
		rc = meta_run_workers(workers, mkdir_worker, &a, &t, &wall);
		tot.ops += t.ops;
		tot.errors += t.errors;
		tot.extra[0] += t.extra[0];
		tot.extra[1] += t.extra[1];
		if (!tot.first_errno && t.first_errno) {
			tot.first_errno = t.first_errno;
			memcpy(tot.first_path, t.first_path, sizeof t.first_path);
		}
		free(root);
	}
	json_t *ob = json_object();
	json_object_set_new(ob, "workers", json_integer(workers));
	json_object_set_new(ob, "rounds", json_integer(rounds));
	json_object_set_new(ob, "mkdir_calls", json_integer(tot.ops));
	json_object_set_new(ob, "created", json_integer(tot.extra[0]));
	json_object_set_new(ob, "benign_eexist", json_integer(tot.extra[1]));
	json_object_set_new(ob, "spurious_errors", json_integer(tot.errors));
	r_observed(r, ob);
	r_expectedf(r, "0 spurious errors (EEXIST on a path that then is not a directory, or any other error)");
	r_reproduce(r, b->command);
	if (rc != 0)
		r_error(r, bench_interrupted() ? "interrupted" : "a worker died without reporting");
	else if (tot.errors)
		r_fail(r, "%ld spurious mkdir -p errors from %d concurrent workers (first: %s on %s)", tot.errors, workers,
		       strerror(tot.first_errno), tot.first_path);
	else
		r_pass(r, "%d workers x %d rounds: %ld mkdir calls, %ld created, %ld EEXIST all benign", workers, rounds,
		       tot.ops, tot.extra[0], tot.extra[1]);
}

static void run_lock(struct bench_run *b, const struct mopts *o, const struct lock_ops *ops)
{
	char *id = xasprintf("bench.metadata-%s-lock", ops->name);
	char *title = xasprintf("exclusive %s() lock holds between two processes", ops->name);
	struct result *r = bench_row(b, id, title);
	free(id);
	free(title);
	char *dir = xasprintf("%s/locks", b->workdir);
	mkdir(dir, 0755);
	struct lock_report rep;
	int rc = meta_lock_check(dir, ops, 2, o->lock_iterations, 500, &rep);
	json_t *ob = json_object();
	json_object_set_new(ob, "processes", json_integer(rep.processes));
	json_object_set_new(ob, "iterations", json_integer(rep.iterations));
	json_object_set_new(ob, "overlaps", json_integer(rep.overlaps));
	json_object_set_new(ob, "lost_updates", json_integer(rep.lost_updates));
	json_object_set_new(ob, "violations", json_integer(lock_violations(&rep)));
	json_object_set_new(ob, "errors", json_integer(rep.errors));
	json_object_set_new(ob, "scope", json_string("two processes on this host"));
	r_observed(r, ob);
	r_expectedf(r, "0 violations of %d exclusive locks", rep.iterations * rep.processes);
	r_reproduce(r, b->command);
	if (rc != 0 && !bench_interrupted() && rep.first_errno && !rep.errors)
		r_error(r, "could not set up the lock test in %s: %s", dir, strerror(rep.first_errno));
	else if (bench_interrupted())
		r_skip(r, "interrupted");
	else
		meta_grade_lock(r, ops->name, &rep);
	free(dir);
}

static const char *const odd_names[] = {
	"a:b", "ckpt-epoch=1:step=200.pt", "2026-11-30T05:40:36Z.log", "name with spaces", "semi;colon",
	"comma,list", "brackets[1]", "braces{x}", "paren(1)", "percent%20", "plus+minus-", "at@host",
	"hash#1", "tilde~", "quote'single", "quote\"double", "back\\slash", "star*", "question?", "pipe|",
	"less<greater>", "dollar$HOME", "amp&", "bang!", "caret^", "equals=", "unicode-\xc3\xbc-\xe6\x97\xa5\xe6\x9c\xac",
	".hidden", "..dots", "trailing.", "-leading-dash",
	NULL, /* a 255-byte name, built below */
};

static void run_names(struct bench_run *b)
{
	struct result *r = bench_row(b, "bench.metadata-names", "file names with ':' and other legal characters");
	char *dir = xasprintf("%s/names", b->workdir);
	size_t n = sizeof odd_names / sizeof *odd_names;
	json_t *bad = json_array();
	if (mkdir(dir, 0755) != 0) {
		r_error(r, "cannot create %s: %s", dir, strerror(errno));
		json_decref(bad);
		free(dir);
		return;
	}
	char longname[256];
	memset(longname, 'L', 255);
	longname[255] = 0;
	for (size_t i = 0; i < n; i++) {
		char p[8192], q[8192];
		const char *step = NULL, *name = odd_names[i] ? odd_names[i] : longname;
		snprintf(p, sizeof p, "%s/%s", dir, name);
		snprintf(q, sizeof q, "%s/r%s", dir, name);
		if (strlen(name) >= 255)
			snprintf(q, sizeof q, "%s/renamed-long", dir);
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		struct stat st;
		int e = 0;
		if (fd < 0)
			step = "create", e = errno;
		else {
			if (write(fd, "x", 1) != 1)
				step = "write", e = errno;
			close(fd);
		}
		if (!step && stat(p, &st) != 0)
			step = "stat", e = errno;
		if (!step) {
			int found = 0;
			DIR *d = opendir(dir);
			struct dirent *de;
			while (d && (de = readdir(d)))
				if (strcmp(de->d_name, name) == 0)
					found = 1;
			if (d)
				closedir(d);
			if (!found)
				step = "readdir (name came back different)";
		}
		if (!step && rename(p, q) != 0)
			step = "rename", e = errno;
		if (!step && unlink(q) != 0)
			step = "unlink", e = errno;
		if (step) {
			unlink(p);
			unlink(q);
			char *s = xasprintf("%s: %s%s%s", name, step, e ? " " : "", e ? strerror(e) : "");
			json_array_append_new(bad, json_string(s));
			free(s);
		}
	}
	rmdir(dir);
	json_t *ob = json_object();
	json_object_set_new(ob, "names_tried", json_integer((json_int_t)n));
	json_object_set_new(ob, "failed", bad);
	r_observed(r, ob);
	r_expectedf(r, "every name that POSIX allows (any byte but '/' and NUL, up to 255 bytes) works");
	r_reproduce(r, b->command);
	if (json_array_size(bad))
		r_fail(r, "%zu of %zu legal names failed, first: %s", json_array_size(bad), n,
		       json_string_value(json_array_get(bad, 0)));
	else
		r_pass(r, "all %zu names created, listed, renamed and removed (':' included)", n);
	free(dir);
}

static void run_alloc(struct bench_run *b, const struct mopts *o)
{
	struct result *r = bench_row(b, "bench.metadata-alloc-write-4k", "4 KiB allocating sequential writes");
	char *path = xasprintf("%s/alloc-4k.dat", b->workdir);
	static char buf[4096];
	memset(buf, 'a', sizeof buf);
	long writes = o->alloc_mib * 256, done = 0;
	double t0 = clock_mono_s();
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int e = fd < 0 ? errno : 0;
	for (; fd >= 0 && done < writes && !bench_interrupted(); done++)
		if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) {
			e = errno;
			break;
		}
	if (fd >= 0 && !e && fsync(fd) != 0)
		e = errno;
	double s = clock_mono_s() - t0;
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(path);
	double mbs = s > 0 ? done * 4096.0 / s / 1e6 : NAN;
	json_t *ob = json_object();
	json_object_set_new(ob, "writes", json_integer(done));
	json_object_set_new(ob, "bytes", json_integer(done * 4096));
	json_object_set_new(ob, "seconds_incl_fsync", json_real(round(s * 1e4) / 1e4));
	json_object_set_new(ob, "mb_s", isnan(mbs) ? json_null() : json_real(round(mbs * 10) / 10));
	json_object_set_new(ob, "writes_per_s", s > 0 ? json_real(round(done / s)) : json_null());
	r_observed(r, ob);
	r_expected(r, json_deep_copy(bench_th(b, "alloc_write_4k_mb_s")));
	r_reproduce(r, b->command);
	if (bench_interrupted())
		r_skip(r, "interrupted");
	else if (e)
		r_fail(r, "allocating 4 KiB writes failed after %ld writes: %s", done, strerror(e));
	else {
		const char *w;
		enum status st = bench_grade(bench_th(b, "alloc_write_4k_mb_s"), mbs, &w);
		if (st == ST_SKIP)
			st = ST_PASS;
		r_status(r, st, "%.1f MB/s (%ld x 4 KiB extending writes + fsync in %.2f s)%s%s", mbs, done, s,
			 st == ST_PASS ? "" : "; ", st == ST_PASS ? "" : w);
	}
}

static void table_head(FILE *out, const struct bench_run *b)
{
	fprintf(out, "cmax bench metadata on %s (%s, host %s)\n", ts_str(b->o->path), ts_str(b->fstype), ts_str(b->host));
}

static void table_row(FILE *out, const struct bench_run *b, const struct result *r)
{
	(void)b; /* one row needs no more than itself */
	fprintf(out, "%-5s %-34s %s\n", status_name(r->status), r->id + strlen("bench.metadata-"),
		ts_str(r->summary ? r->summary : ""));
}

static void table(FILE *out, const struct bench_run *b)
{
	table_head(out, b);
	for (size_t i = 0; i < b->nrows; i++)
		table_row(out, b, b->rows[i]);
}

/* ---- the hooks (bench.h) ------------------------------------------------ */

/* What prepare works out for plan and run. */
struct metadata_run {
	struct bench_slurm S;
	char *why;               /* why the two-node locks are skipped, or NULL */
	char *what;              /* what gets written (plan, confirmation) */
	struct bench_space sp;
};

static int metadata_worker(int argc, char **argv)
{
	return argc > 1 && !strcmp(argv[1], "--lock-worker") ? metadata_lock_worker_main(argc, argv) : -1;
}

static int metadata_prepare(struct bench_run *b)
{
	const struct mopts *o = BENCH_OPTS(b, const struct mopts);
	struct metadata_run *m = b->priv = xcalloc(1, sizeof *m);
	char *serr = NULL;
	if (bench_slurm_init(&m->S, "metadata", o->slurm, o->nodes, o->partition, 2, 0, &m->why, &serr) != 0) {
		fprintf(stderr, "cmax bench metadata: %s\n", serr);
		free(serr);
		return EXIT_USAGE;
	}
	if (m->S.active) {
		b->harness = "slurm";
		b->hosts = json_array();
		json_array_append_new(b->hosts, json_string(b->host));
	}
	json_object_set_new(b->params, "two_node_locks", m->S.active ? json_string(m->S.in_alloc ? "in the allocation" :
				"srun takes a 2-node allocation") : json_string(m->why ? m->why : "skipped"));
	json_object_set_new(b->params, "mode", json_string(o->b.full ? "full" : "quick"));
	json_object_set_new(b->params, "workers", json_integer(o->workers));
	json_object_set_new(b->params, "files_per_worker", json_integer(o->files));
	json_object_set_new(b->params, "file_size", json_integer(o->file_size));
	json_object_set_new(b->params, "import_files", json_integer(o->import_files));
	json_object_set_new(b->params, "alloc_mib", json_integer(o->alloc_mib));
	json_object_set_new(b->params, "lock_iterations", json_integer(o->lock_iterations));
	double peak = (double)o->workers * o->files * (o->file_size + 512) + o->import_files * 8704.0 + o->alloc_mib * 1048576.0;
	m->what = xasprintf("about %.0f MiB: %lld files of %lld B in rates/, a %lld-file tree in import/, mkdir/ trees, "
			    "lock files, odd names, one %lld MiB file",
			    peak / 1048576, o->workers * o->files, o->file_size, o->import_files, o->alloc_mib);
	/* the estimate above is what must fit (core of space.h): refused before anything is written */
	bench_space_judge(o->b.path, peak >= 1.8e19 ? UINT64_MAX : (uint64_t)peak, "rates, import tree, allocating write", &m->sp);
	json_object_set_new(b->params, "space", bench_space_json(&m->sp));
	return 0;
}

/* Counts of files and lock rounds, not durations: each takes what the file system takes. */
#define META_ESTIMATE_BASIS "not known beforehand: the steps do a fixed number of file operations (--files, " \
	"--lock-iterations) at the file system's speed"

static json_t *plan_json(const struct bench_run *b, const struct mopts *o, const struct metadata_run *m)
{
	json_t *p = json_object();
	json_object_set_new(p, "schema", json_string("cmax.bench.plan/1"));
	json_object_set_new(p, "benchmark", json_string("metadata"));
	char *wd = xasprintf("%s/cmax-bench-metadata-XXXXXX", o->b.path);
	json_object_set_new(p, "workdir", json_string(wd));
	free(wd);
	json_object_set_new(p, "fstype", json_string(b->fstype));
	json_object_set_new(p, "writes", json_string(m->what));
	json_object_set_new(p, "bytes_max", json_integer((json_int_t)m->sp.need));
	json_object_set_new(p, "space", bench_space_json(&m->sp));
	json_object_set_new(p, "parameters", json_incref(b->params));
	json_t *cmds = json_array();
	for (int k = 0; m->S.active && k < 2; k++) {
		char *c = metadata_lock_nodes_cmd(o, &m->S, k ? "fcntl" : "flock");
		json_array_append_new(cmds, json_string(c));
		free(c);
	}
	json_object_set_new(p, "commands", cmds);
	bench_plan_estimate(p, NAN, META_ESTIMATE_BASIS);
	return p;
}

static void plan_text(const struct bench_run *b, const struct mopts *o, const struct metadata_run *m)
{
	printf("cmax bench metadata --dry-run: nothing is written.\nWould create %s/cmax-bench-metadata-XXXXXX (%s)\n"
	       "and write %s;\nthen remove the directory (also on Ctrl-C).\n", o->b.path, b->fstype, m->what);
	if (m->S.active) {
		printf("Two-node locks: would run, one after the other:\n");
		for (int k = 0; k < 2; k++) {
			char *c = metadata_lock_nodes_cmd(o, &m->S, k ? "fcntl" : "flock");
			printf("  %s\n", c);
			free(c);
		}
	} else {
		printf("Two-node locks: skipped (%s).\n", m->why ? m->why : "not in a Slurm allocation with 2+ nodes");
	}
	printf("N%s: %s\n", m->sp.reason + 1, !m->sp.fits ? "would NOT start (exit 73)" : "would start");
	bench_plan_estimate_text(stdout, NAN, META_ESTIMATE_BASIS);
}

static int metadata_plan(struct bench_run *b)
{
	const struct mopts *o = BENCH_OPTS(b, const struct mopts);
	const struct metadata_run *m = b->priv;
	if (o->b.json) {
		json_t *p = plan_json(b, o, m);
		bench_print_json(p);
		json_decref(p);
	} else {
		plan_text(b, o, m);
	}
	if (!m->sp.fits)
		fprintf(stderr, "cmax bench metadata: %s; a run would be refused\n", m->sp.reason);
	return m->sp.fits ? EXIT_OK : EXIT_CANTCREAT;
}

static int metadata_run(struct bench_run *b)
{
	const struct mopts *o = BENCH_OPTS(b, const struct mopts);
	struct metadata_run *m = b->priv;
	if (!m->sp.fits) {
		fprintf(stderr, "cmax bench metadata: %s; nothing was written (fewer --files or a smaller --alloc-mib)\n",
			m->sp.reason);
		return EXIT_CANTCREAT;
	}
	int rc = bench_start(b, m->what);
	if (rc)
		return rc;
	json_object_set_new(b->params, "workdir", json_string(b->workdir));
	/* the steps are the cases of the progress; their lengths are the file
	 * system's, not known beforehand */
	static const char *const steps[] = { "rates", "import-probe", "mkdir-race", "flock", "fcntl", "flock-nodes",
					     "fcntl-nodes", "names", "alloc-write" };
	size_t n = sizeof steps / sizeof *steps;
	bench_cases_begin(b, n, NULL);
	for (size_t i = 0; i < n && (i == 0 || !bench_interrupted()); i++) {
		bench_case_start(b, steps[i]);
		switch (i) {
		case 0: run_rates(b, o); break;
		case 1: run_import(b, o); break;
		case 2: run_mkdir(b, o); break;
		case 3: run_lock(b, o, &meta_flock_ops); break;
		case 4: run_lock(b, o, &meta_fcntl_ops); break;
		case 5: metadata_run_lock_nodes(b, o, &m->S, m->why, &meta_flock_ops); break;
		case 6: metadata_run_lock_nodes(b, o, &m->S, m->why, &meta_fcntl_ops); break;
		case 7: run_names(b); break;
		default: run_alloc(b, o); break;
		}
		bench_case_done(b);
	}
	return 0;
}

static void metadata_release(struct bench_run *b)
{
	struct metadata_run *m = b->priv;
	if (!m)
		return;
	free(m->why);
	free(m->what);
	bench_slurm_free(&m->S);
	free(m);
}

const struct bench_ops bench_metadata_ops = {
	.name = "metadata",
	.version = "1",
	.summary = "small-file rates, import-time probe, mkdir/lock/name correctness, 4 KiB allocating writes",
	.profile = "storage",
	.flags = BENCH_NEEDS_PATH | BENCH_WRITES | BENCH_SLURM_AWARE,
	.usage = usage,
	.options = options,
	.opts_size = sizeof(struct mopts),
	.defaults = defaults,
	.check = check,
	.worker = metadata_worker,
	.prepare = metadata_prepare,
	.plan = metadata_plan,
	.run = metadata_run,
	.table = table,
	.table_head = table_head,
	.table_row = table_row,
	.release = metadata_release,
};
