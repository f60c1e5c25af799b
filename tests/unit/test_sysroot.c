/* The sysroot layer: paths, symlinks (absolute ones re-rooted), "..",
 * reads of procfs-like files, listing. */
#include "tap.h"
#include "core/sysroot.h"
#include "core/strbuf.h"
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void put(const char *root, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel);
	char *d = xstrdup(p);
	for (char *s = d + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(d, 0755);
			*s = '/';
		}
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	free(d);
	free(p);
}

int main(void)
{
	char tmpl[] = "/tmp/cmax-sysroot-XXXXXX";
	char *root = mkdtemp(tmpl);
	put(root, "etc/os-release", "ID=ubuntu\n");
	put(root, "sys/devices/pci0000:00/0000:00:01.0/0000:1b:00.0/vendor", "0x10de\n");
	put(root, "proc/sys/kernel/perf_event_paranoid", "2\n");
	put(root, "big", "");
	static const char *const dirs[] = { "sys/bus", "sys/bus/pci", "sys/bus/pci/devices" };
	for (int i = 0; i < 3; i++) {
		char *d = xasprintf("%s/%s", root, dirs[i]);
		mkdir(d, 0755);
		free(d);
	}
	char *l1 = xasprintf("%s/sys/bus/pci/devices/0000:1b:00.0", root);
	T_OK(symlink("../../../devices/pci0000:00/0000:00:01.0/0000:1b:00.0", l1) == 0, "relative link created");
	char *l2 = xasprintf("%s/etc/abs-link", root);
	T_OK(symlink("/etc/os-release", l2) == 0, "absolute link created");
	char *l3 = xasprintf("%s/etc/escape", root);
	T_OK(symlink("../../../../../../etc/os-release", l3) == 0, "escaping link created");
	char *l4 = xasprintf("%s/etc/loop", root);
	T_OK(symlink("/etc/loop", l4) == 0, "loop link created");

	T_OK(sysroot_set("/nonexistent-dir-xyz") != 0, "missing sysroot is refused");
	T_OK(sysroot_set(root) == 0, "sysroot set");
	T_OK(!sysroot_is_host(), "not the host");

	char *s = sr_read_str("/etc/os-release");
	T_STREQ(s, "ID=ubuntu", "plain read");
	free(s);
	s = sr_read_str("/etc/abs-link");
	T_STREQ(s, "ID=ubuntu", "absolute symlink resolves inside the root");
	free(s);
	s = sr_read_str("/etc/escape");
	T_STREQ(s, "ID=ubuntu", "'..' never climbs above the root");
	free(s);
	s = sr_read_str("/sys/bus/pci/devices/0000:1b:00.0/vendor");
	T_STREQ(s, "0x10de", "relative sysfs-style link");
	free(s);
	s = sr_realpath("/sys/bus/pci/devices/0000:1b:00.0");
	T_STREQ(s, "/sys/devices/pci0000:00/0000:00:01.0/0000:1b:00.0", "virtual realpath");
	free(s);
	s = sr_read_str("/etc/loop");
	T_OK(s == NULL && errno == ELOOP, "symlink loop is an error, not a hang");
	s = sr_read_str("/etc/../etc/./os-release");
	T_STREQ(s, "ID=ubuntu", "dot components");
	free(s);
	T_OK(sr_read_str("/etc/missing") == NULL, "missing file is NULL");
	long long v = 0;
	T_OK(sr_read_ll("/proc/sys/kernel/perf_event_paranoid", &v) == 0 && v == 2, "integer read");
	T_OK(sr_read_ll("/etc/os-release", &v) == -EINVAL, "non-integer refused");
	char **names;
	size_t n;
	int lrc = sr_list("/etc", &names, &n);
	T_OK(lrc == 0 && n == 4, "listing (%zu entries)", n);
	T_STREQ(n ? names[0] : NULL, "abs-link", "listing is sorted");
	sr_list_free(names, n);
	char *buf;
	size_t len;
	int trunc;
	T_OK(sr_read("/etc/os-release", 3, &buf, &len, &trunc) == 0 && len == 3 && trunc, "capped read says truncated");
	free(buf);
	T_OK(sr_read("/etc", 100, &buf, &len, NULL) == -EISDIR, "a directory is not read");
	T_OK(sr_exists("/etc/abs-link") && !sr_exists("/nope"), "exists");
	s = sr_link_basename("/sys/bus/pci/devices/0000:1b:00.0");
	T_STREQ(s, "0000:1b:00.0", "link basename");
	free(s);
	T_OK(sysroot_set("/") == 0 && sysroot_is_host(), "back to the host");
	free(l1);
	free(l2);
	free(l3);
	free(l4);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	T_OK(system(cmd) == 0, "cleanup");
	return t_done();
}
