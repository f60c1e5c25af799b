/* Free space against a benchmark's need (see space.h). */
#include "bench/space.h"
#include "core/numparse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

uint64_t bench_space_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

void bench_space_judge(const char *dir, uint64_t need, const char *what, struct bench_space *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->need = need;
	snprintf(sp->what, sizeof sp->what, "%s", what ? what : "");
	char nb[32], fb[32], mb[32];
	np_fmt_size(need, nb, sizeof nb);
	struct statvfs vfs;
	int st = statvfs(dir, &vfs);
	if (st != 0 || vfs.f_blocks == 0) {
		/* unknown is not "full": the run goes ahead, and says so. A file
		 * system of 0 blocks (ramfs, some FUSE) has no size to report. */
		sp->fits = 1;
		if (snprintf(sp->reason, sizeof sp->reason, "needs %s (%s); free space of %s unknown (%s): not checked",
			     nb, sp->what, dir, st != 0 ? strerror(errno) : "the file system reports no size") >=
		    (int)sizeof sp->reason)
			snprintf(sp->reason + sizeof sp->reason - 20, 20, "...: not checked");
		return;
	}
	sp->known = 1;
	sp->free = bench_space_mul((uint64_t)vfs.f_bavail, vfs.f_frsize ? (uint64_t)vfs.f_frsize : (uint64_t)vfs.f_bsize);
	sp->margin = sp->free / 100 * BENCH_SPACE_MARGIN_PCT;
	if (sp->margin < BENCH_SPACE_MARGIN_MIN)
		sp->margin = BENCH_SPACE_MARGIN_MIN;
	sp->fits = need <= sp->free && sp->free - need >= sp->margin;
	np_fmt_size(sp->free, fb, sizeof fb);
	np_fmt_size(sp->margin, mb, sizeof mb);
	int n = snprintf(sp->reason, sizeof sp->reason,
			 "needs %s (%s) under %s, %s free there, margin %s (%d%% of free, at least %llu MiB): %s", nb,
			 sp->what, dir, fb, mb, BENCH_SPACE_MARGIN_PCT, (unsigned long long)(BENCH_SPACE_MARGIN_MIN >> 20),
			 sp->fits ? "fits" : "does not fit");
	if (n >= (int)sizeof sp->reason) /* a very long --path: the verdict stays at the end */
		snprintf(sp->reason + sizeof sp->reason - 20, 20, "...: %s", sp->fits ? "fits" : "no fit");
}

json_t *bench_space_json(const struct bench_space *sp)
{
	json_t *o = json_object();
	json_object_set_new(o, "need_bytes", json_integer(sp->need > INT64_MAX ? INT64_MAX : (json_int_t)sp->need));
	json_object_set_new(o, "need", json_string(sp->what));
	json_object_set_new(o, "free_bytes", sp->known ? json_integer(sp->free > INT64_MAX ? INT64_MAX : (json_int_t)sp->free) : json_null());
	json_object_set_new(o, "margin_bytes", sp->known ? json_integer((json_int_t)sp->margin) : json_null());
	char rule[96];
	snprintf(rule, sizeof rule, "%d%% of free, at least %llu MiB (declared)", BENCH_SPACE_MARGIN_PCT,
		 (unsigned long long)(BENCH_SPACE_MARGIN_MIN >> 20));
	json_object_set_new(o, "margin_rule", json_string(rule));
	json_object_set_new(o, "would_start", json_boolean(sp->fits));
	json_object_set_new(o, "reason", json_string(sp->reason));
	return o;
}
