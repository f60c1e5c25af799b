/* Parsers for the Linux text formats cmax reads: /proc, /etc and the
 * --version output of tools. All are pure: bytes in (not NUL-terminated,
 * possibly binary garbage), JSON out. Object/array parsers never return NULL
 * for non-NULL text: unusable input yields an empty object or array. Every
 * string they emit is valid UTF-8 (bad bytes become '?'). */
#ifndef CMAX_PARSE_PROCFS_H
#define CMAX_PARSE_PROCFS_H
#include <stddef.h>
#include <jansson.h>

/*
 * Next line of [*pos, end) as a malloc'd, NUL-free, valid UTF-8 string
 * without its "\n" or "\r\n"; advances *pos. NULL at the end. Shared by all
 * parsers so that nothing downstream ever sees raw bytes.
 */
char *parse_next_line(const char **pos, const char *end);
/* Split [s, e) on blanks into at most maxtok NUL-terminated tokens copied
 * into buf (cap bytes); tokens that do not fit are dropped. Returns the count. */
int parse_tokens(const char *s, const char *e, char *buf, size_t cap, char **tok, int maxtok);

/* /etc/os-release: {"ID": "ubuntu", "VERSION_ID": "24.04", ...} */
json_t *parse_os_release(const char *text, size_t len);

/* /proc/meminfo: {"MemTotal": 2113638880, "HugePages_Total": 0, ...};
 * values in kB as printed, HugePages_* counts as plain integers. */
json_t *parse_meminfo(const char *text, size_t len);

/*
 * /proc/cpuinfo, x86 and aarch64:
 * {processors, sockets, arch ("x86_64"|"aarch64"|null), model_name, vendor,
 *  flags: [...], hypervisor: bool, implementer, part, part_name}
 * Flags come from the first processor. On aarch64 vendor is derived from
 * "CPU implementer" and model_name, absent from the kernel's output, from
 * the part number when it is a known core (part_name).
 */
json_t *parse_cpuinfo(const char *text, size_t len);

/* /proc/mounts: [{source, target, fstype, options}], \ooo escapes decoded. */
json_t *parse_mounts(const char *text, size_t len);

/* What a line parser made of its input: non-blank lines seen, and how many
 * of them it recognised. Text with lines but none recognised is not the
 * format (garbage), which callers must tell from "lists nothing". */
struct parse_count {
	size_t lines, recognised;
};

/* /proc/modules: {name: {size, refcount, used_by: [...], state, taint?}}.
 * Only lines of the kernel's shape count ("name size refcount used_by
 * Live|Loading|Unloading 0x... [(taint)]"). */
json_t *parse_modules(const char *text, size_t len);
json_t *parse_modules_counted(const char *text, size_t len, struct parse_count *count);

/*
 * KEY=VALUE files (/etc/nccl.conf, ~/.nccl.conf, /etc/environment-like):
 * {KEY: "value"}. '#' starts a comment only at the start of a line (NCCL
 * keeps a '#' inside a value), an "export " prefix is dropped, one level of
 * matching quotes is removed. Values stay strings. Later keys win.
 */
json_t *parse_kv_conf(const char *text, size_t len);

/*
 * modprobe.d files: {options: {module: {param: "value"}}, blacklist: [...],
 * install: {module: "command"}}. Module names are normalised to '_' (modprobe
 * treats '-' and '_' alike); a parameter without '=' maps to "". Backslash
 * line continuations are joined. Concatenate all files in the order modprobe
 * reads them to get the effective result (later options lines add to earlier
 * ones; a repeated parameter keeps the last value).
 */
json_t *parse_modprobe_conf(const char *text, size_t len);

/*
 * "Key: value" lines (/proc/driver/nvidia/params, .../gpus/<bus>/information):
 * {Key: value}. Values that are plain decimal integers (no sign, no leading
 * zero) become JSON integers so that "RmProfilingAdminOnly: 1" compares as 1;
 * everything else stays a string, with one level of double quotes removed.
 */
json_t *parse_colon_kv(const char *text, size_t len);

/*
 * /proc/driver/nvidia/version:
 * {version: "570.133.20"|null, open_module: bool|null, arch: "x86_64"|
 *  "aarch64"|...|null, gcc: "12.3.0"|null, raw: "NVRM version: ..."|null};
 * open_module is null without an "NVRM version:" line (not the format). 
 */
json_t *parse_nvidia_version(const char *text, size_t len);

/* `df -P -k`: [{filesystem, size_kb, used_kb, avail_kb, use_pct, mountpoint}],
 * numbers null where df prints "-". Mount points may contain spaces. */
json_t *parse_df_posix(const char *text, size_t len);

/*
 * /proc/cmdline: {args: ["BOOT_IMAGE=...", "ro", ...], params: {k: "v", flag: true}}.
 * Double quotes group words as the kernel does; args keep them, params
 * values lose them. A repeated key keeps the last value; nothing after "--"
 * (init's arguments) goes into params.
 */
json_t *parse_cmdline(const char *text, size_t len);

/* `nvcc --version`: {release: "12.8", version: "12.8.93", build: "cuda_12.8.r12.8/compiler..."},
 * keys absent when not found. */
json_t *parse_nvcc_version(const char *text, size_t len);

/* /usr/local/cuda/version.json {"cuda": {"version": "12.8.1"}} -> "12.8.1",
 * malloc'd, or NULL. */
char *parse_cuda_version_json(const char *text, size_t len);

/* /usr/local/cuda/version.txt "CUDA Version 11.8.0" -> "11.8.0", or NULL. */
char *parse_cuda_version_txt(const char *text, size_t len);

/*
 * First dotted number (at least "N.N") in a tool's --version output, not
 * glued to a preceding letter other than 'v': "Docker version 28.2.2, build
 * e6534b4" -> "28.2.2". malloc'd, or NULL.
 */
char *parse_first_version(const char *text, size_t len);
#endif
