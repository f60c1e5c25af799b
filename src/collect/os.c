/* Host identity and environment: the facts target detection and almost
 * every check lean on. All reads go through the sysroot; privilege comes
 * from `id -u` so fixtures can record it like any other tool. */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/procfs.h"
#include <stdlib.h>
#include <string.h>

static const char *const vm_markers[] = {
	"kvm", "qemu", "vmware", "virtualbox", "xen", "amazon ec2", "google compute engine",
	"microsoft", "openstack", "bochs", "cloud hypervisor", NULL,
};

static int contains_ci(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle) != NULL;
}

/* Machine names uname(2) (and /proc/sys/kernel/arch) report on Linux. */
static int known_arch(const char *s)
{
	static const char *const names[] = { "x86_64", "aarch64", "aarch64_be", "ppc64le", "ppc64", "s390x",
					     "riscv64", "loongarch64", "armv7l", "armv8l", "i686", "i586", "i386",
					     "mips64", "sparc64", NULL };
	for (int i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0)
			return 1;
	return 0;
}

/* arch, and the cpu facts it may come from. Returns cpu (now held by f). */
static json_t *os_arch_cpu(struct col_run *c, json_t *f)
{
	/* /proc/sys/kernel/arch exists on 6.1+; older kernels leave it to cpuinfo */
	char *s = col_read_quiet("/proc/sys/kernel/arch");
	if (s && !known_arch(s)) {
		/* read but not a machine name uname(2) reports: unknown, ask cpuinfo */
		col_evidence_note(c, "/proc/sys/kernel/arch is not a machine name: not used");
		free(s);
		s = NULL;
	}
	char *cpuinfo = col_read_quiet("/proc/cpuinfo");
	json_t *cpu = cpuinfo ? parse_cpuinfo(cpuinfo, strlen(cpuinfo)) : json_object();
	if (!s && cpuinfo) {
		if (json_string_value(json_object_get(cpu, "implementer")))
			s = xstrdup("aarch64");
		else if (json_string_value(json_object_get(cpu, "vendor")))
			s = xstrdup("x86_64");
	}
	fact_set_str(f, "arch", s);
	free(s);
	if (cpuinfo)
		col_evidence_file(c, "/proc/cpuinfo", NULL);
	free(cpuinfo);
	json_object_set_new(f, "cpu", cpu);
	return cpu;
}

static void os_release(struct col_run *c, json_t *f)
{
	char *osr = col_read(c, "/etc/os-release");
	if (!osr)
		osr = col_read(c, "/usr/lib/os-release");
	json_t *os = osr ? parse_os_release(osr, strlen(osr)) : json_object();
	free(osr);
	fact_set_str(f, "os_id", json_string_value(json_object_get(os, "ID")));
	fact_set_str(f, "os_version_id", json_string_value(json_object_get(os, "VERSION_ID")));
	fact_set_str(f, "os_pretty", json_string_value(json_object_get(os, "PRETTY_NAME")));
	fact_set_str(f, "os_codename", json_string_value(json_object_get(os, "VERSION_CODENAME")));
	json_decref(os);
}

/* Virtualization: DMI strings and the cpuinfo hypervisor flag. */
static void os_virt(json_t *f, const json_t *cpu)
{
	json_t *dmi = json_object();
	static const char *const dmi_keys[] = { "sys_vendor", "product_name", "board_vendor", "bios_vendor", NULL };
	const char *virt = NULL;
	for (int i = 0; dmi_keys[i]; i++) {
		char *p = xasprintf("/sys/class/dmi/id/%s", dmi_keys[i]);
		char *v = col_read_quiet(p);
		fact_set_str(dmi, dmi_keys[i], v);
		for (int k = 0; v && !virt && vm_markers[k]; k++)
			if (contains_ci(v, vm_markers[k]))
				virt = vm_markers[k];
		free(v);
		free(p);
	}
	json_object_set_new(f, "dmi", dmi);
	int hyper_flag = json_is_true(json_object_get(cpu, "hypervisor"));
	fact_set_bool(f, "hypervisor_flag", hyper_flag);
	fact_set_str(f, "virtualization", virt ? virt : (hyper_flag ? "unknown-hypervisor" : NULL));
	fact_set_bool(f, "is_vm", virt != NULL || hyper_flag);
}

/* Container markers, as container runtimes leave them. */
static void os_container(json_t *f)
{
	json_t *markers = json_array();
	if (sr_exists("/.dockerenv"))
		json_array_append_new(markers, json_string("/.dockerenv"));
	if (sr_exists("/run/.containerenv"))
		json_array_append_new(markers, json_string("/run/.containerenv"));
	char *cg = col_read_quiet("/proc/1/cgroup");
	static const char *const cg_markers[] = { "docker", "containerd", "kubepods", "libpod", "lxc", "crio", NULL };
	for (int i = 0; cg && cg_markers[i]; i++)
		if (strstr(cg, cg_markers[i])) {
			char *m = xasprintf("/proc/1/cgroup mentions %s", cg_markers[i]);
			json_array_append_new(markers, json_string(m));
			free(m);
			break;
		}
	free(cg);
	char *env1 = NULL;
	size_t elen = 0;
	if (sr_read("/proc/1/environ", 1 << 16, &env1, &elen, NULL) == 0) {
		for (size_t i = 0; i < elen;) {
			const char *kv = env1 + i;
			if (str_starts(kv, "container=")) {
				char *m = xasprintf("PID 1 environment has %s", kv);
				json_array_append_new(markers, json_string(m));
				free(m);
			}
			i += strlen(kv) + 1;
		}
		free(env1);
	}
	fact_set_bool(f, "is_container", json_array_size(markers) > 0);
	json_object_set_new(f, "container_markers", markers);
}

/* Privileges: uid from `id -u`; unknown stays null. */
static void os_uid(struct col_run *c, json_t *f)
{
	const char *argv[] = { "id", "-u", NULL };
	struct cmd_result r;
	col_run_cmd(c, argv, 3000, &r);
	if (cmd_ok(&r)) {
		char *t = str_trim(r.out);
		char *end;
		long uid = strtol(t, &end, 10);
		if (end != t && *end == 0) {
			fact_set_int(f, "uid", uid);
			fact_set_bool(f, "is_root", uid == 0);
		} else {
			fact_set_null(f, "uid");
			fact_set_null(f, "is_root");
		}
	} else {
		fact_set_null(f, "uid");
		fact_set_null(f, "is_root");
	}
	cmd_result_free(&r);
}

void collect_os(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	json_t *f = c->facts;
	char *s;

	s = col_read(c, "/proc/sys/kernel/hostname");
	if (!s)
		s = col_read(c, "/etc/hostname");
	fact_set_str(f, "hostname", s);
	free(s);

	s = col_read(c, "/proc/sys/kernel/osrelease");
	fact_set_str(f, "kernel_release", s);
	free(s);

	const json_t *cpu = os_arch_cpu(c, f);
	os_release(c, f);

	char *mi = col_read_quiet("/proc/meminfo");
	if (mi) {
		json_t *m = parse_meminfo(mi, strlen(mi));
		json_t *tot = json_object_get(m, "MemTotal");
		json_object_set(f, "mem_total_kb", tot ? tot : json_null());
		json_decref(m);
	} else {
		fact_set_null(f, "mem_total_kb");
	}
	free(mi);

	os_virt(f, cpu);
	os_container(f);
	os_uid(c, f);
}
