/* cmax health internals: the marker-skipping scanner (it must find exactly what kmsg_parse_buffer
 * finds, and leave an unterminated last line for the next pass); what may be a log source (only
 * a regular file); the cap on a stream that has no end (/dev/zero). */
#include "tap.h"
#include "health/health.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct counter {
	size_t n;
};

static int count_cb(const struct kmsg_event *ev, void *arg)
{
	(void)ev;
	((struct counter *)arg)->n++;
	return 0;
}

static void test_scan(void)
{
	const char *log =
		"[    1.000000] Linux version 6.1\n"
		"[   12.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n"
		"[   13.000000] NVRM: GPU at PCI:0000:5a:00: GPU-11111111-2222-3333-4444-555555555555\n"
		"[   14.000000] eth0: link up\n"
		"[   15.000000] NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
		"[   16.000000] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 48 LTSSM Fault Up\n"
		"[   16.000001] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Severity 5 Engine instance 48\n"
		"[   17.000000] NVRM: The NVIDIA GPU 0000:3b:00.0\n"
		"[   17.000001] NVRM: (PCI ID: 10de:2330) installed in this system has\n"
		"[   17.000002] NVRM: fallen off the bus and is not responding to commands.\n"
		"[   18.000000] NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=a, Graphics";	/* no newline */
	size_t len = strlen(log), ev = 0;
	struct counter ref = { 0 };
	struct kmsg_ctx ctx = KMSG_CTX_INIT;

	kmsg_parse_buffer(log, len, count_cb, &ref);
	struct xid_classifier *c = xid_classifier_new(NULL, NULL);
	size_t used = health_scan(c, &ctx, log, len, 1, 0, &ev);
	struct xid_assessment *a = xid_classifier_finish(c);
	T_INTEQ(used, len, "final scan consumes everything");
	T_INTEQ(ev, ref.n, "scan finds what kmsg_parse_buffer finds (%zu)", ref.n);
	T_INTEQ(a->events, 4, "79, SXid, fallen-off-bus, 13");
	T_INTEQ(a->companions, 1, "one SXid companion");
	xid_assessment_free(a);

	/* not final: the unterminated Xid 13 line stays for the next pass */
	ev = 0;
	struct kmsg_ctx ctx2 = KMSG_CTX_INIT;
	c = xid_classifier_new(NULL, NULL);
	used = health_scan(c, &ctx2, log, len, 0, 0, &ev);
	a = xid_classifier_finish(c);
	T_INTEQ(len - used, strlen("[   18.000000] NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=a, Graphics"),
		"partial last line left unconsumed");
	T_INTEQ(a->events, 3, "three complete events");
	xid_assessment_free(a);

	/* noise only: consumed up to the last newline */
	const char *noise = "a\nb\nc";
	ev = 0;
	struct kmsg_ctx ctx3 = KMSG_CTX_INIT;
	c = xid_classifier_new(NULL, NULL);
	used = health_scan(c, &ctx3, noise, 5, 0, 0, &ev);
	xid_assessment_free(xid_classifier_finish(c));
	T_INTEQ(used, 4, "noise: up to the last newline");
	T_INTEQ(ev, 0, "noise: no events");
}

static void test_not_a_log(void)
{
	struct stat sb;
	char *why;

	memset(&sb, 0, sizeof(sb));
	sb.st_mode = S_IFREG | 0644;
	T_OK(hsrc_not_a_log("/var/log/kern.log", &sb) == NULL, "a regular file can be a log");
	sb.st_mode = S_IFDIR | 0755;
	why = hsrc_not_a_log("/var/log", &sb);
	T_STREQ(why, "/var/log is a directory, not a log file", "directory");
	free(why);
	sb.st_mode = S_IFIFO | 0600;
	why = hsrc_not_a_log("/run/k", &sb);
	T_OK(why && strstr(why, "FIFO") && strstr(why, "blocks"), "FIFO: refused, says it would block");
	free(why);
	sb.st_mode = S_IFSOCK | 0600;
	why = hsrc_not_a_log("/run/s", &sb);
	T_OK(why && strstr(why, "socket"), "socket");
	free(why);
	sb.st_mode = S_IFCHR | 0666;
	sb.st_rdev = makedev(1, 5);
	why = hsrc_not_a_log("/dev/zero", &sb);
	T_OK(why && strstr(why, "character device (1:5)"), "/dev/zero: a device with no end");
	free(why);
	sb.st_rdev = makedev(1, 11);
	why = hsrc_not_a_log("/dev/kmsg", &sb);
	T_OK(why && strstr(why, "use --kmsg"), "/dev/kmsg as a file: pointed to --kmsg");
	free(why);
	sb.st_mode = S_IFBLK | 0660;
	sb.st_rdev = makedev(259, 0);
	why = hsrc_not_a_log("/dev/nvme0n1", &sb);
	T_OK(why && strstr(why, "block device"), "block device");
	free(why);
}

static void test_stream_cap(void)
{
	struct hsrc_read st;
	unsigned long long off = 0;
	char *err = NULL;
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	T_OK(fd >= 0, "open /dev/zero");
	if (fd < 0)
		return;
	memset(&st, 0, sizeof(st));
	struct xid_classifier *c = xid_classifier_new(NULL, NULL);
	int rc = hsrc_scan_fd(fd, "/dev/zero", 32ull << 20, c, &st, &off, &err);
	xid_assessment_free(xid_classifier_finish(c));
	close(fd);
	T_INTEQ(rc, -1, "an endless stream stops at the cap with an error");
	T_OK(err && strstr(err, "more than 32 MiB"), "and says so: %s", err ? err : "(none)");
	T_OK(st.bytes >= 32u << 20 && st.bytes < (32u << 20) + (8u << 20), "read about the cap (%zu bytes)",
	     st.bytes);
	free(err);

	/* a bounded stream: every line seen, no error */
	int p[2];
	const char *lines = "[ 1.0] NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
			    "[ 2.0] eth0: up\n";
	T_OK(pipe(p) == 0, "pipe");
	T_INTEQ(write(p[1], lines, strlen(lines)), (long long)strlen(lines), "write the lines");
	close(p[1]);
	memset(&st, 0, sizeof(st));
	off = 0;
	err = NULL;
	c = xid_classifier_new(NULL, NULL);
	rc = hsrc_scan_fd(p[0], "pipe", HSRC_STREAM_CAP, c, &st, &off, &err);
	struct xid_assessment *a = xid_classifier_finish(c);
	close(p[0]);
	T_INTEQ(rc, 0, "a stream with an end: no error");
	T_INTEQ(a->events, 1, "its Xid line counted");
	T_INTEQ(off, strlen(lines), "every complete line consumed");
	xid_assessment_free(a);
	free(err);
}

int main(void)
{
	test_scan();
	test_not_a_log();
	test_stream_cap();
	return t_done();
}
