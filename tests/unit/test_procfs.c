/* Linux text-format parsers against inputs copied in shape from real nodes. */
#include "parse/procfs.h"
#include "core/strbuf.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static long long jint(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

static void test_os_release(void)
{
	json_t *o = parse_os_release(S(
		"PRETTY_NAME=\"Ubuntu 22.04.5 LTS\"\n"
		"NAME=\"Ubuntu\"\n"
		"VERSION_ID=\"22.04\"\n"
		"VERSION=\"22.04.5 LTS (Jammy Jellyfish)\"\n"
		"VERSION_CODENAME=jammy\n"
		"ID=ubuntu\n"
		"ID_LIKE=debian\n"
		"HOME_URL=\"https://www.ubuntu.com/\"\n"
		"UBUNTU_CODENAME=jammy\n"));
	T_STREQ(jstr(o, "ID"), "ubuntu", "os-release 22.04 ID");
	T_STREQ(jstr(o, "VERSION_ID"), "22.04", "os-release 22.04 VERSION_ID");
	T_STREQ(jstr(o, "PRETTY_NAME"), "Ubuntu 22.04.5 LTS", "quoted value");
	T_STREQ(jstr(o, "VERSION_CODENAME"), "jammy", "unquoted value");
	json_decref(o);

	o = parse_os_release(S(
		"PRETTY_NAME=\"Ubuntu 24.04.2 LTS\"\n"
		"NAME=\"Ubuntu\"\n"
		"VERSION_ID=\"24.04\"\n"
		"VERSION=\"24.04.2 LTS (Noble Numbat)\"\n"
		"VERSION_CODENAME=noble\n"
		"ID=ubuntu\n"
		"ID_LIKE=debian\n"
		"LOGO=ubuntu-logo\n"));
	T_STREQ(jstr(o, "VERSION_ID"), "24.04", "os-release 24.04");
	T_STREQ(jstr(o, "VERSION"), "24.04.2 LTS (Noble Numbat)", "24.04 VERSION");
	json_decref(o);

	o = parse_os_release(S(
		"# Debian\n"
		"PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
		"NAME=\"Debian GNU/Linux\"\n"
		"VERSION_ID=\"12\"\n"
		"VERSION=\"12 (bookworm)\"\n"
		"ID=debian\n"
		"   \n"
		"QUOTED='single $quoted \\n'\n"
		"ESC=\"a \\\"b\\\" \\$c \\\\ \\n\"\n"
		"BARE=one\\ two three\n"
		"lower-case-bad=x\n"
		"=novalue\n"
		"garbage line\n"));
	T_STREQ(jstr(o, "ID"), "debian", "debian ID");
	T_STREQ(jstr(o, "VERSION_ID"), "12", "debian VERSION_ID");
	T_STREQ(jstr(o, "QUOTED"), "single $quoted \\n", "single quotes literal");
	T_STREQ(jstr(o, "ESC"), "a \"b\" $c \\ \\n", "double-quote escapes");
	T_STREQ(jstr(o, "BARE"), "one two", "unquoted escape, blank ends");
	T_OK(!json_object_get(o, "lower-case-bad") && !json_object_get(o, ""), "bad keys skipped");
	T_INTEQ(json_object_size(o), 8, "debian key count");
	json_decref(o);
}

static void test_meminfo(void)
{
	json_t *o = parse_meminfo(S(
		"MemTotal:       2113638880 kB\n"
		"MemFree:        1987234512 kB\n"
		"MemAvailable:   2051190244 kB\n"
		"Buffers:          1234568 kB\n"
		"SwapTotal:              0 kB\n"
		"HugePages_Total:       0\n"
		"HugePages_Free:        0\n"
		"HugePages_Rsvd:        0\n"
		"HugePages_Surp:        0\n"
		"Hugepagesize:       2048 kB\n"
		"Hugetlb:               0 kB\n"
		"DirectMap1G:    2097152000 kB\n"
		"Bogus: lots kB\n"
		"no colon\n"));
	T_INTEQ(jint(o, "MemTotal"), 2113638880LL, "MemTotal");
	T_INTEQ(jint(o, "HugePages_Total"), 0, "HugePages_Total");
	T_INTEQ(jint(o, "Hugepagesize"), 2048, "Hugepagesize");
	T_INTEQ(jint(o, "DirectMap1G"), 2097152000LL, "DirectMap1G");
	T_OK(!json_object_get(o, "Bogus"), "non-numeric skipped");
	T_INTEQ(json_object_size(o), 12, "meminfo count");
	json_decref(o);
}

static const char cpuinfo_x86[] =
"processor\t: 0\n"
"vendor_id\t: GenuineIntel\n"
"cpu family\t: 6\n"
"model\t\t: 143\n"
"model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
"physical id\t: 0\n"
"cpu cores\t: 56\n"
"flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc avx512f amx_tile\n"
"bugs\t\t: spectre_v1 spectre_v2\n"
"\n"
"processor\t: 1\n"
"vendor_id\t: GenuineIntel\n"
"model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
"physical id\t: 1\n"
"flags\t\t: fpu vme hypervisor\n"
"\n"
"processor\t: 2\n"
"physical id\t: 1\n"
"\n";

static const char cpuinfo_vm[] =
"processor\t: 0\n"
"vendor_id\t: AuthenticAMD\n"
"model name\t: AMD EPYC 9454 48-Core Processor\n"
"flags\t\t: fpu vme de pse tsc msr pae hypervisor lahf_lm cmp_legacy\n"
"\n";

static const char cpuinfo_grace[] =
"processor\t: 0\n"
"BogoMIPS\t: 2000.00\n"
"Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs sb paca pacg dcpodp sve2 sveaes svepmull svebitperm svesha3 svesm4 flagm2 frint svei8mm svebf16 i8mm bf16 dgh bti\n"
"CPU implementer\t: 0x41\n"
"CPU architecture: 8\n"
"CPU variant\t: 0x0\n"
"CPU part\t: 0xd4f\n"
"CPU revision\t: 0\n"
"\n"
"processor\t: 1\n"
"BogoMIPS\t: 2000.00\n"
"Features\t: fp asimd\n"
"CPU implementer\t: 0x41\n"
"CPU architecture: 8\n"
"CPU variant\t: 0x0\n"
"CPU part\t: 0xd4f\n"
"CPU revision\t: 0\n"
"\n";

static void test_cpuinfo(void)
{
	json_t *o = parse_cpuinfo(S(cpuinfo_x86)), *f;
	T_INTEQ(jint(o, "processors"), 3, "x86 processors");
	T_INTEQ(jint(o, "sockets"), 2, "x86 sockets");
	T_STREQ(jstr(o, "arch"), "x86_64", "x86 arch");
	T_STREQ(jstr(o, "model_name"), "Intel(R) Xeon(R) Platinum 8480+", "x86 model");
	T_STREQ(jstr(o, "vendor"), "GenuineIntel", "x86 vendor");
	f = json_object_get(o, "flags");
	T_INTEQ(json_array_size(f), 36, "x86 flags from first processor");
	T_STREQ(json_string_value(json_array_get(f, 35)), "amx_tile", "last flag");
	T_OK(json_is_false(json_object_get(o, "hypervisor")), "bare metal: no hypervisor flag");
	T_OK(json_is_null(json_object_get(o, "implementer")), "x86 implementer null");
	json_decref(o);

	o = parse_cpuinfo(S(cpuinfo_vm));
	T_OK(json_is_true(json_object_get(o, "hypervisor")), "VM: hypervisor flag");
	T_STREQ(jstr(o, "vendor"), "AuthenticAMD", "AMD vendor");
	T_OK(json_is_null(json_object_get(o, "sockets")), "sockets unknown -> null");
	json_decref(o);

	o = parse_cpuinfo(S(cpuinfo_grace));
	T_INTEQ(jint(o, "processors"), 2, "grace processors");
	T_STREQ(jstr(o, "arch"), "aarch64", "grace arch");
	T_STREQ(jstr(o, "implementer"), "0x41", "grace implementer");
	T_STREQ(jstr(o, "part"), "0xd4f", "grace part");
	T_STREQ(jstr(o, "part_name"), "Neoverse-V2", "grace part name");
	T_STREQ(jstr(o, "model_name"), "Neoverse-V2", "grace model from part");
	T_STREQ(jstr(o, "vendor"), "ARM", "grace vendor from implementer");
	T_INTEQ(json_array_size(json_object_get(o, "flags")), 47, "grace features");
	T_OK(json_is_false(json_object_get(o, "hypervisor")), "grace hypervisor false");
	json_decref(o);

	o = parse_cpuinfo(S("\x01\x02garbage\xff:\n:\n"));
	T_INTEQ(jint(o, "processors"), 0, "garbage: 0 processors");
	T_OK(json_is_array(json_object_get(o, "flags")), "garbage: flags still an array");
	json_decref(o);
}

static void test_mounts(void)
{
	json_t *a = parse_mounts(S(
		"/dev/nvme0n1p2 / ext4 rw,relatime 0 0\n"
		"proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
		"10.0.0.5:/export/home /home nfs4 rw,relatime,vers=4.2,rsize=1048576,wsize=1048576,hard,proto=tcp,timeo=600 0 0\n"
		"172.16.0.10@o2ib:172.16.0.11@o2ib:/lustre /lustre lustre rw,flock,lazystatfs 0 0\n"
		"overlay /var/lib/docker/overlay2/3f1e/merged overlay rw,relatime,lowerdir=/var/lib/docker/overlay2/l/ABC:/var/lib/docker/overlay2/l/DEF,upperdir=/x/diff,workdir=/x/work 0 0\n"
		"myfs /mnt/shared\\040data virtiofs rw,relatime 0 0\n"
		"tmpfs /mnt/tab\\011and\\134slash tmpfs rw 0 0\n"
		"short line\n"
		"\n"
		"/dev/bad /mnt/\\377\\376 ext4 rw 0 0\n"));
	T_INTEQ(json_array_size(a), 8, "mounts count");
	json_t *m = json_array_get(a, 2);
	T_STREQ(jstr(m, "fstype"), "nfs4", "nfs fstype");
	T_STREQ(jstr(m, "source"), "10.0.0.5:/export/home", "nfs source");
	T_OK(strstr(jstr(m, "options"), "vers=4.2") != NULL, "nfs options");
	T_STREQ(jstr(json_array_get(a, 3), "fstype"), "lustre", "lustre");
	T_STREQ(jstr(json_array_get(a, 4), "fstype"), "overlay", "overlay");
	T_STREQ(jstr(json_array_get(a, 5), "target"), "/mnt/shared data", "\\040 decoded");
	T_STREQ(jstr(json_array_get(a, 5), "fstype"), "virtiofs", "virtiofs");
	T_STREQ(jstr(json_array_get(a, 6), "target"), "/mnt/tab\tand\\slash", "\\011 \\134 decoded");
	T_STREQ(jstr(json_array_get(a, 7), "target"), "/mnt/??", "decoded invalid bytes sanitized");
	json_decref(a);
}

static void test_modules(void)
{
	json_t *o = parse_modules(S(
		"nvidia_peermem 16384 0 - Live 0x0000000000000000 (OE)\n"
		"gdrdrv 24576 0 - Live 0x0000000000000000 (OE)\n"
		"nvidia_uvm 4956160 4 - Live 0x0000000000000000 (POE)\n"
		"nvidia_drm 122880 0 - Live 0x0000000000000000 (POE)\n"
		"nvidia_modeset 1720320 1 nvidia_drm, Live 0x0000000000000000 (POE)\n"
		"nvidia 11149312 1473 nvidia_uvm,nvidia_peermem,gdrdrv,nvidia_modeset, Live 0x0000000000000000 (POE)\n"
		"ib_core 499712 9 rdma_ucm,ib_ipoib,nvidia_peermem,ib_uverbs,mlx5_ib,rdma_cm,iw_cm,ib_cm, Live 0x0000000000000000\n"
		"loading_mod 4096 1 - Loading 0x0000000000000000\n"
		"norefs 4096 - - Live 0x0\n"
		"bad notanumber 0 - Live\n"
		"\n"));
	json_t *m = json_object_get(o, "nvidia");
	T_INTEQ(json_object_size(o), 9, "modules count");
	T_INTEQ(jint(m, "size"), 11149312, "nvidia size");
	T_INTEQ(jint(m, "refcount"), 1473, "nvidia refcount");
	T_INTEQ(json_array_size(json_object_get(m, "used_by")), 4, "nvidia used_by");
	T_STREQ(json_string_value(json_array_get(json_object_get(m, "used_by"), 2)), "gdrdrv", "used_by item");
	T_STREQ(jstr(m, "state"), "Live", "state");
	T_STREQ(jstr(m, "taint"), "POE", "taint");
	m = json_object_get(o, "nvidia_peermem");
	T_OK(m && json_array_size(json_object_get(m, "used_by")) == 0, "nvidia_peermem used_by empty");
	T_OK(json_object_get(o, "gdrdrv") != NULL, "gdrdrv present");
	T_OK(json_object_get(json_object_get(o, "ib_core"), "taint") == NULL, "no taint on in-tree module");
	T_STREQ(jstr(json_object_get(o, "loading_mod"), "state"), "Loading", "Loading state");
	T_OK(json_is_null(json_object_get(json_object_get(o, "norefs"), "refcount")), "refcount - -> null");
	json_decref(o);

	/* garbage is not "no module loaded": the count tells them apart */
	struct parse_count n;
	o = parse_modules_counted(S("\x01\x7f cmax-garbage \xfe\xff\nnvidia 123\nfoo 1 2 3 4 5\n\n"), &n);
	T_INTEQ(json_object_size(o), 0, "garbage: no module");
	T_INTEQ(n.lines, 3, "garbage: 3 non-blank lines seen");
	T_INTEQ(n.recognised, 0, "garbage: none recognised");
	json_decref(o);
	o = parse_modules_counted(S("\n\n"), &n);
	T_OK(n.lines == 0 && n.recognised == 0, "blank text: no line at all");
	json_decref(o);
	o = parse_modules_counted(S("gdrdrv 24576 0 - Live 0x0000000000000000 (OE)\ngarbage\n"), &n);
	T_OK(n.lines == 2 && n.recognised == 1 && json_object_get(o, "gdrdrv"), "one module, one stray line");
	json_decref(o);
}

static void test_kv_conf(void)
{
	json_t *o = parse_kv_conf(S(
		"# /etc/nccl.conf\n"
		"NCCL_IB_HCA=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11\n"
		"NCCL_SOCKET_IFNAME = =bond0\n"
		"NCCL_DEBUG=\"WARN\"\n"
		"export NCCL_NET_GDR_LEVEL='PHB'\n"
		"NCCL_TOPO_FILE=/etc/nccl/topo#1.xml\n"
		"NCCL_DEBUG=INFO\n"
		"NCCL_EMPTY=\n"
		"not a pair\n"
		"=nokey\n"));
	T_STREQ(jstr(o, "NCCL_IB_HCA"), "mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11", "IB HCA");
	T_STREQ(jstr(o, "NCCL_SOCKET_IFNAME"), "=bond0", "spaces around = and '=' prefix kept");
	T_STREQ(jstr(o, "NCCL_DEBUG"), "INFO", "later key wins, quotes");
	T_STREQ(jstr(o, "NCCL_NET_GDR_LEVEL"), "PHB", "export, single quotes");
	T_STREQ(jstr(o, "NCCL_TOPO_FILE"), "/etc/nccl/topo#1.xml", "inline # kept");
	T_STREQ(jstr(o, "NCCL_EMPTY"), "", "empty value");
	T_INTEQ(json_object_size(o), 6, "kv count");
	json_decref(o);
}

static void test_modprobe(void)
{
	json_t *o = parse_modprobe_conf(S(
		"# nvidia.conf\n"
		"options nvidia NVreg_RestrictProfilingToAdminUsers=0 NVreg_EnableStreamMemOPs=1\n"
		"options nvidia NVreg_RegistryDwords=\"RMUseSwI2c=0x01;RMI2cSpeed=100\"\n"
		"options nvidia-drm modeset=1 fbdev=1\n"
		"options nvidia NVreg_EnableStreamMemOPs=0\n"
		"options mlx5_core \\\n"
		"    prof_sel=2 flag\n"
		"blacklist nouveau\n"
		"blacklist nouveau\n"
		"blacklist lbm-nouveau\n"
		"install nvidia-peermem /sbin/modprobe --ignore-install nvidia_peermem; /bin/true\n"
		"alias nouveau off\n"
		"options\n"
		"garbage\n"));
	json_t *opt = json_object_get(o, "options"), *nv = json_object_get(opt, "nvidia");
	T_STREQ(jstr(nv, "NVreg_RestrictProfilingToAdminUsers"), "0", "NVreg option");
	T_STREQ(jstr(nv, "NVreg_EnableStreamMemOPs"), "0", "repeated param: last wins");
	T_STREQ(jstr(nv, "NVreg_RegistryDwords"), "RMUseSwI2c=0x01;RMI2cSpeed=100", "quoted value");
	T_STREQ(jstr(json_object_get(opt, "nvidia_drm"), "modeset"), "1", "nvidia-drm normalised");
	T_STREQ(jstr(json_object_get(opt, "mlx5_core"), "prof_sel"), "2", "continuation line");
	T_STREQ(jstr(json_object_get(opt, "mlx5_core"), "flag"), "", "flag param");
	json_t *bl = json_object_get(o, "blacklist");
	T_INTEQ(json_array_size(bl), 2, "blacklist deduplicated");
	T_STREQ(json_string_value(json_array_get(bl, 1)), "lbm_nouveau", "blacklist normalised");
	T_STREQ(jstr(json_object_get(o, "install"), "nvidia_peermem"),
		"/sbin/modprobe --ignore-install nvidia_peermem; /bin/true", "install command");
	json_decref(o);

	o = parse_modprobe_conf(S(""));
	T_OK(json_is_object(json_object_get(o, "options")) && json_is_array(json_object_get(o, "blacklist")),
	     "empty input keeps the shape");
	json_decref(o);
}

static void test_colon_kv(void)
{
	json_t *o = parse_colon_kv(S(
		"ResmanDebugLevel: 4294967295\n"
		"RmLogonRC: 1\n"
		"ModifyDeviceFiles: 1\n"
		"DeviceFileUID: 0\n"
		"DeviceFileMode: 438\n"
		"RmProfilingAdminOnly: 1\n"
		"RegistryDwords: \"\"\n"
		"RmMsg: \"\"\n"
		"GpuBlacklist: \"\"\n"
		"EnableStreamMemOPs: 0\n"
		"Padded: 007\n"));
	T_INTEQ(jint(o, "RmProfilingAdminOnly"), 1, "RmProfilingAdminOnly integer");
	T_INTEQ(jint(o, "ResmanDebugLevel"), 4294967295LL, "large integer");
	T_INTEQ(jint(o, "DeviceFileUID"), 0, "zero");
	T_STREQ(jstr(o, "RegistryDwords"), "", "quoted empty");
	T_STREQ(jstr(o, "Padded"), "007", "leading zero stays string");
	json_decref(o);

	o = parse_colon_kv(S(
		"Model: \t\t NVIDIA H100 80GB HBM3\n"
		"IRQ:   \t\t 404\n"
		"GPU UUID: \t GPU-3c5a7e2f-8b1d-4e6a-9f0c-2d7b8e4a1c63\n"
		"Video BIOS: \t 96.00.99.00.01\n"
		"Bus Location: \t 0000:18:00.0\n"
		"Device Minor: \t 0\n"));
	T_STREQ(jstr(o, "Model"), "NVIDIA H100 80GB HBM3", "gpu information Model");
	T_STREQ(jstr(o, "Bus Location"), "0000:18:00.0", "value with colons");
	T_INTEQ(jint(o, "Device Minor"), 0, "Device Minor");
	json_decref(o);
}

static void test_nvidia_version(void)
{
	json_t *o = parse_nvidia_version(S(
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  (dvs-builder@U16-I1-N07-12-3)  Tue Mar 11 19:12:20 UTC 2025\n"
		"GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n"));
	T_STREQ(jstr(o, "version"), "570.133.20", "open module version");
	T_OK(json_is_true(json_object_get(o, "open_module")), "open module");
	T_STREQ(jstr(o, "arch"), "x86_64", "arch x86_64");
	T_STREQ(jstr(o, "gcc"), "12.3.0", "gcc version");
	T_OK(str_starts(jstr(o, "raw"), "NVRM version: NVIDIA UNIX Open"), "raw line");
	json_decref(o);

	o = parse_nvidia_version(S(
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024\n"
		"GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n"));
	T_STREQ(jstr(o, "version"), "535.183.01", "proprietary version");
	T_OK(json_is_false(json_object_get(o, "open_module")), "proprietary module");
	T_STREQ(jstr(o, "arch"), "x86_64", "proprietary arch");
	json_decref(o);

	o = parse_nvidia_version(S(
		"NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.82.07  Release Build  (dvs-builder@U22-I3-AE18-23-3)  Wed Aug 27 21:48:10 UTC 2025\n"));
	T_STREQ(jstr(o, "version"), "580.82.07", "aarch64 open version");
	T_STREQ(jstr(o, "arch"), "aarch64", "aarch64 arch");
	T_OK(json_is_null(json_object_get(o, "gcc")), "no gcc line");
	json_decref(o);

	o = parse_nvidia_version(S("NVRM version: NVIDIA UNIX aarch64 Kernel Module  550.127.05  Tue Oct  8 04:16:05 UTC 2024\n"));
	T_STREQ(jstr(o, "version"), "550.127.05", "aarch64 proprietary");
	T_OK(json_is_false(json_object_get(o, "open_module")), "aarch64 proprietary flag");
	json_decref(o);

	o = parse_nvidia_version(S("cat: /proc/driver/nvidia/version: No such file\n"));
	T_OK(json_is_null(json_object_get(o, "version")) && json_is_null(json_object_get(o, "raw")), "garbage -> nulls");
	T_OK(json_is_null(json_object_get(o, "open_module")), "garbage: open or proprietary unknown, not 'proprietary'");
	json_decref(o);
}

static void test_df(void)
{
	json_t *a = parse_df_posix(S(
		"Filesystem                 1024-blocks       Used  Available Capacity Mounted on\n"
		"tmpfs                         211363888      4212  211359676       1% /run\n"
		"/dev/md0                     7500000000 123456789 7376543211       2% /\n"
		"10.0.0.5:/export/home       10737418240 8589934592 2147483648      80% /home\n"
		"172.16.0.10@o2ib:/lustre  1099511627776 549755813888 549755813888      50% /lustre\n"
		"myfs                          104857600          0  104857600       0% /mnt/shared data\n"
		"weird                                 -          -          -       - /proc/x\n"
		"broken line\n"));
	T_INTEQ(json_array_size(a), 6, "df rows");
	json_t *r = json_array_get(a, 1);
	T_STREQ(jstr(r, "filesystem"), "/dev/md0", "df filesystem");
	T_INTEQ(jint(r, "size_kb"), 7500000000LL, "df size");
	T_INTEQ(jint(r, "used_kb"), 123456789, "df used");
	T_INTEQ(jint(r, "avail_kb"), 7376543211LL, "df avail");
	T_INTEQ(jint(r, "use_pct"), 2, "df pct");
	T_STREQ(jstr(r, "mountpoint"), "/", "df mountpoint");
	T_STREQ(jstr(json_array_get(a, 4), "mountpoint"), "/mnt/shared data", "mountpoint with space");
	T_OK(json_is_null(json_object_get(json_array_get(a, 5), "use_pct")), "- -> null");
	json_decref(a);
}

static void test_cmdline(void)
{
	json_t *o = parse_cmdline(S(
		"BOOT_IMAGE=/vmlinuz-6.8.0-60-generic root=UUID=0f6b1a2c-3d4e ro iommu=pt intel_iommu=on "
		"pci=realloc=off quiet splash nvidia-drm.modeset=1 console=tty0 console=ttyS0,115200n8 "
		"dyndbg=\"file drivers/pci/* +p\" -- single\n"));
	json_t *p = json_object_get(o, "params");
	T_INTEQ(json_array_size(json_object_get(o, "args")), 14, "cmdline args");
	T_STREQ(jstr(p, "iommu"), "pt", "iommu=pt");
	T_STREQ(jstr(p, "intel_iommu"), "on", "intel_iommu=on");
	T_STREQ(jstr(p, "root"), "UUID=0f6b1a2c-3d4e", "value with =");
	T_STREQ(jstr(p, "pci"), "realloc=off", "pci=realloc=off");
	T_OK(json_is_true(json_object_get(p, "ro")), "flag -> true");
	T_STREQ(jstr(p, "console"), "ttyS0,115200n8", "repeated key: last wins");
	T_STREQ(jstr(p, "dyndbg"), "file drivers/pci/* +p", "quoted value");
	T_STREQ(json_string_value(json_array_get(json_object_get(o, "args"), 11)),
		"dyndbg=\"file drivers/pci/* +p\"", "arg keeps quotes");
	T_OK(!json_object_get(p, "single"), "init args not params");
	json_decref(o);
}

static void test_cuda(void)
{
	json_t *o = parse_nvcc_version(S(
		"nvcc: NVIDIA (R) Cuda compiler driver\n"
		"Copyright (c) 2005-2022 NVIDIA Corporation\n"
		"Built on Mon_Oct_24_19:12:58_PDT_2022\n"
		"Cuda compilation tools, release 12.0, V12.0.76\n"
		"Build cuda_12.0.r12.0/compiler.31968024_0\n"));
	T_STREQ(jstr(o, "release"), "12.0", "nvcc 12.0 release");
	T_STREQ(jstr(o, "version"), "12.0.76", "nvcc 12.0 version");
	T_STREQ(jstr(o, "build"), "cuda_12.0.r12.0/compiler.31968024_0", "nvcc build");
	json_decref(o);

	o = parse_nvcc_version(S(
		"nvcc: NVIDIA (R) Cuda compiler driver\n"
		"Copyright (c) 2005-2025 NVIDIA Corporation\n"
		"Built on Fri_Feb_21_20:23:50_PST_2025\n"
		"Cuda compilation tools, release 12.8, V12.8.93\n"
		"Build cuda_12.8.r12.8/compiler.35583870_0\n"));
	T_STREQ(jstr(o, "release"), "12.8", "nvcc 12.8 release");
	T_STREQ(jstr(o, "version"), "12.8.93", "nvcc 12.8 version");
	json_decref(o);

	o = parse_nvcc_version(S(
		"nvcc: NVIDIA (R) Cuda compiler driver\r\n"
		"Copyright (c) 2005-2025 NVIDIA Corporation\r\n"
		"Built on Wed_Jul_16_07:30:01_PM_PDT_2025\r\n"
		"Cuda compilation tools, release 13.0, V13.0.48\r\n"
		"Build cuda_13.0.r13.0/compiler.36260728_0\r\n"));
	T_STREQ(jstr(o, "release"), "13.0", "nvcc 13.0 release");
	T_STREQ(jstr(o, "version"), "13.0.48", "nvcc 13.0 version (CRLF)");
	json_decref(o);

	o = parse_nvcc_version(S("bash: nvcc: command not found\n"));
	T_INTEQ(json_object_size(o), 0, "nvcc missing -> {}");
	json_decref(o);

	char *v = parse_cuda_version_json(S(
		"{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"12.8.1\"\n   },\n"
		"   \"cuda_cudart\" : {\n      \"name\" : \"CUDA Runtime (cudart)\",\n      \"version\" : \"12.8.90\"\n   }\n}\n"));
	T_STREQ(v, "12.8.1", "version.json");
	free(v);
	v = parse_cuda_version_json(S("{\"cuda\": {\"version\": 12}}"));
	T_OK(v == NULL, "version.json non-string -> NULL");
	v = parse_cuda_version_json(S("{not json"));
	T_OK(v == NULL, "version.json garbage -> NULL");
	v = parse_cuda_version_txt(S("CUDA Version 11.8.0\n"));
	T_STREQ(v, "11.8.0", "version.txt");
	free(v);
	v = parse_cuda_version_txt(S("nothing here\n"));
	T_OK(v == NULL, "version.txt garbage -> NULL");
}

static void test_first_version(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "runc version 1.1.12\ncommit: v1.1.12-0-g51d5e94\nspec: 1.0.2-dev\ngo: go1.22.5\n", "1.1.12" },
		{ "Docker version 28.2.2, build e6534b4\n", "28.2.2" },
		{ "NVIDIA Container Toolkit CLI version 1.17.4\ncommit: 9b69590c7428470a72f2ae05f826412976af1395\n", "1.17.4" },
		{ "dcgmi  version: 3.3.9\n", "3.3.9" },
		{ "containerd containerd.io 1.7.27 05044ec0a9a75232cad458027ca83437aae3f4da\n", "1.7.27" },
		{ "go1.22.5 then v2.3\n", "2.3" },
		{ "x86_64 abc1.2 1a.3 9.", NULL },
		{ "Enroot v3.5.0\n", "3.5.0" },
		{ "", NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *v = parse_first_version(cases[i].in, strlen(cases[i].in));
		if (cases[i].want)
			T_STREQ(v, cases[i].want, "first version of case %zu", i);
		else
			T_OK(v == NULL, "no version in case %zu (got %s)", i, v ? v : "NULL");
		free(v);
	}
}

/* Every parser on NULL / empty / binary input: no crash, right shape. */
static void test_garbage(void)
{
	static const char bin[] = "\0\xff\xfe=:\n\"\\\n'\\0\\\x80=\"\x01 \t\r\n\\";
	json_t *(*fn[])(const char *, size_t) = {
		parse_os_release, parse_meminfo, parse_cpuinfo, parse_mounts, parse_modules,
		parse_kv_conf, parse_modprobe_conf, parse_colon_kv, parse_nvidia_version,
		parse_df_posix, parse_cmdline, parse_nvcc_version,
	};
	for (size_t i = 0; i < sizeof fn / sizeof *fn; i++) {
		json_t *a = fn[i](NULL, 0), *b = fn[i]("", 0), *c = fn[i](bin, sizeof bin - 1);
		char *d = json_dumps(c, 0);
		T_OK(a && b && c && d, "parser %zu survives NULL, empty and binary input", i);
		free(d);
		json_decref(a);
		json_decref(b);
		json_decref(c);
	}
	T_OK(parse_first_version(NULL, 0) == NULL, "first_version NULL");
	T_OK(parse_cuda_version_json(NULL, 0) == NULL, "version.json NULL");
}

int main(void)
{
	test_os_release();
	test_meminfo();
	test_cpuinfo();
	test_mounts();
	test_modules();
	test_kv_conf();
	test_modprobe();
	test_colon_kv();
	test_nvidia_version();
	test_df();
	test_cmdline();
	test_cuda();
	test_first_version();
	test_garbage();
	return t_done();
}
