/* The injection methods as a plan of exact steps (file writes, commands,
 * pauses), so that --dry-run prints precisely what a real run does and the
 * run executes nothing else.
 *
 *   log      a synthetic Xid/SXid line, preceded by a marker line saying it
 *            is synthetic: appended to --log-file, written to /dev/kmsg here,
 *            or written to /dev/kmsg on the node through srun / kubectl debug
 *   dcgm     dcgmi test --inject --gpuid N -f 230 -v CODE, repeated every
 *            second until detection (injected samples expire quickly)
 *   sbr      secondary bus reset of the GPU's upstream bridge: set then clear
 *            bit 6 of its Bridge Control register (config space 0x3e) behind
 *            the driver's back, which makes a real Xid 79
 *   amd-ras  an uncorrectable UMC error through amdgpu's debugfs ras_ctrl */
#include "inject/method.h"
#include "inject/replay.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BRIDGE_CONTROL 0x3e
#define BRIDGE_CTL_BUS_RESET 0x40
#define SBR_HOLD_MS 200

const char *inj_method_name(enum inj_method m)
{
	static const char *const n[] = { "log", "dcgm", "sbr", "amd-ras" };
	return (unsigned)m < IM__COUNT ? n[m] : "?";
}

int inj_method_parse(const char *s, enum inj_method *m)
{
	for (int i = 0; i < IM__COUNT; i++)
		if (!strcmp(s, inj_method_name((enum inj_method)i))) {
			*m = (enum inj_method)i;
			return 0;
		}
	return -1;
}

static struct inj_step *add_step(struct inj_plan *p, enum step_kind k, const char *why)
{
	p->steps = xrealloc(p->steps, (p->n + 1) * sizeof *p->steps);
	struct inj_step *s = &p->steps[p->n++];
	memset(s, 0, sizeof *s);
	s->kind = k;
	s->why = xstrdup(why);
	return s;
}

void inj_plan_free(struct inj_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct inj_step *s = &p->steps[i];
		free(s->path);
		free(s->host_path);
		free(s->data);
		argv_free(&s->argv);
		free(s->why);
	}
	free(p->steps);
	free(p->line);
	free(p->target);
	free(p->unavailable);
	json_decref(p->notes);
	memset(p, 0, sizeof *p);
}

static const char *user_name(void)
{
	const char *u = getenv("SLURM_JOB_USER");
	if (u && *u)
		return u;
	struct passwd *pw = getpwuid(getuid());
	return pw ? pw->pw_name : "?";
}

/* "2026-11-30T06:22:37+0000", as journalctl -k -o short-iso prints it. */
static void iso_now(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%S+0000", &tm);
}

static void plan_log(const struct inj_opts *o, const struct sched *s, int local, struct inj_plan *p)
{
	char *marker = xasprintf("cmax-inject: synthetic %s %d on PCI:%s follows (injected by %s; not a hardware "
				 "fault)", o->sxid ? "SXid" : "Xid", o->code, o->pci, user_name());
	if (o->log_file) {
		char ts[40];
		iso_now(ts, sizeof ts);
		struct inj_step *st = add_step(p, STEP_APPEND, "append the marker and the line to the log file");
		st->path = xstrdup(o->log_file);
		st->host_path = xstrdup(o->log_file);
		st->data = xasprintf("%s %s kernel: %s\n%s %s kernel: %s\n", ts, s->node, marker, ts, s->node, p->line);
		st->len = strlen(st->data);
		p->target = xstrdup(o->log_file);
	} else if (local) {
		struct inj_step *st = add_step(p, STEP_WRITE, "kernel log record: the marker");
		st->path = xstrdup("/dev/kmsg");
		st->host_path = xstrdup("/dev/kmsg");
		st->data = xasprintf("<5>%s\n", marker);
		st->len = strlen(st->data);
		st = add_step(p, STEP_WRITE, "kernel log record: the synthetic line (level err)");
		st->path = xstrdup("/dev/kmsg");
		st->host_path = xstrdup("/dev/kmsg");
		st->data = xasprintf("<3>%s\n", p->line);
		st->len = strlen(st->data);
		p->target = xstrdup("/dev/kmsg on this machine");
	} else {
		char *m5 = xasprintf("<5>%s", marker), *l3 = xasprintf("<3>%s", p->line);
		const char *cmd[] = { "sh", "-c", "printf '%s\\n' \"$1\" >/dev/kmsg && printf '%s\\n' \"$2\" >/dev/kmsg",
				      "cmax-inject", m5, l3, NULL };
		struct inj_step *st = add_step(p, STEP_CMD, "write the marker and the line to /dev/kmsg on the node");
		sched_on_node(s, 0, cmd, &st->argv);
		free(m5);
		free(l3);
		p->target = xasprintf("/dev/kmsg on %s", s->node);
	}
	free(marker);
}

static void plan_dcgm(const struct inj_opts *o, const struct sched *s, int local, struct inj_plan *p)
{
	char id[16], code[16];
	snprintf(id, sizeof id, "%d", o->gpu_id);
	snprintf(code, sizeof code, "%d", o->code);
	const char *cmd[] = { "dcgmi", "test", "--inject", "--gpuid", id, "-f", "230", "-v", code, NULL };
	struct inj_step *st = add_step(p, STEP_CMD, "DCGM: inject the Xid into field 230 (DCGM_FI_DEV_XID_ERRORS)");
	sched_on_node(s, local, cmd, &st->argv);
	p->repeat_ms = 1000;
	p->target = xasprintf("DCGM on %s, GPU %d (field 230)", local ? "this machine" : s->node, o->gpu_id);
}

static int is_pci_addr(const char *s)
{
	/* DDDD:BB:DD.F */
	if (strlen(s) != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.')
		return 0;
	for (int i = 0; i < 12; i++)
		if (i != 4 && i != 7 && i != 10 && !strchr("0123456789abcdefABCDEF", s[i]))
			return 0;
	return 1;
}

/* "5a:00" / "0000:5a:00.0" / "PCI:0000:5A:00" -> "0000:5a:00.0" */
static void full_pci(const char *pci, char *out, size_t n)
{
	char key[32];
	kmsg_gpu_key(pci, key, sizeof key);
	const char *dot = strrchr(pci, '.');
	snprintf(out, n, "%s.%c", key, dot && dot[1] ? dot[1] : '0');
}

/* everything below the bridge goes through the reset: name it */
static void sbr_devices_below(const char *real, struct inj_plan *p)
{
	char **names = NULL;
	size_t nn = 0;
	json_t *below = json_array();
	if (sr_list(real, &names, &nn) == 0) {
		for (size_t i = 0; i < nn; i++)
			if (is_pci_addr(names[i]))
				json_array_append_new(below, json_string(names[i]));
		sr_list_free(names, nn);
	}
	json_object_set_new(p->notes, "devices_reset", below);
}

/* One write of the Bridge Control register. */
static void sbr_write_step(struct inj_plan *p, const char *what, const char *cfg, const char *hp,
			   const unsigned char val[2])
{
	struct inj_step *st = add_step(p, STEP_PWRITE, what);
	st->path = xstrdup(cfg);
	st->host_path = xstrdup(hp ? hp : cfg);
	st->data = xmalloc(2);
	memcpy(st->data, val, 2);
	st->len = 2;
	st->offset = BRIDGE_CONTROL;
}

/* The bridge's control register, and the steps: assert the reset, hold
 * it, restore the register as it was. */
static void sbr_bridge_control(const char *cfg, struct inj_plan *p)
{
	char *buf = NULL;
	size_t len = 0;
	int trunc = 0;
	int rc = sr_read(cfg, 0x40, &buf, &len, &trunc);
	if (rc < 0 || len < BRIDGE_CONTROL + 2) {
		if (!p->unavailable)
			p->unavailable = xasprintf("%s: cannot read the bridge control register (%s)", cfg,
						   rc < 0 ? strerror(-rc) : "short config space");
		free(buf);
		return;
	}
	unsigned v = (unsigned char)buf[BRIDGE_CONTROL] | (unsigned)(unsigned char)buf[BRIDGE_CONTROL + 1] << 8;
	json_object_set_new(p->notes, "bridge_control", json_integer(v));
	unsigned char set[2] = { (unsigned char)((v | BRIDGE_CTL_BUS_RESET) & 0xff), (unsigned char)(v >> 8) };
	unsigned char clr[2] = { (unsigned char)(v & ~BRIDGE_CTL_BUS_RESET & 0xff), (unsigned char)(v >> 8) };
	char *hp = sr_hostpath(cfg);
	sbr_write_step(p, "assert Secondary Bus Reset (Bridge Control bit 6)", cfg, hp, set);
	struct inj_step *st = add_step(p, STEP_SLEEP, "hold the reset");
	st->sleep_ms = SBR_HOLD_MS;
	sbr_write_step(p, "release Secondary Bus Reset (restore Bridge Control)", cfg, hp, clr);
	free(hp);
	free(buf);
}

static void plan_sbr(const struct inj_opts *o, int local, struct inj_plan *p)
{
	char dev[40];
	full_pci(o->pci, dev, sizeof dev);
	char *devpath = xasprintf("/sys/bus/pci/devices/%s", dev);
	char *real = sr_realpath(devpath);
	p->notes = json_object();
	json_object_set_new(p->notes, "gpu", json_string(dev));
	if (!local) {
		p->unavailable = xasprintf("sbr acts on this machine's PCI tree: run cmax inject on %s itself "
					   "(e.g. srun -w %s cmax inject ...)", o->node, o->node);
	}
	if (!real) {
		if (!p->unavailable)
			p->unavailable = xasprintf("%s: %s", devpath, strerror(errno));
		free(devpath);
		return;
	}
	char *slash = strrchr(real, '/');
	*slash = 0;
	const char *bridge = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	if (!is_pci_addr(bridge)) {
		if (!p->unavailable)
			p->unavailable = xasprintf("%s sits directly on the root complex (%s): no upstream bridge to "
						   "reset", dev, bridge);
		free(real);
		free(devpath);
		return;
	}
	json_object_set_new(p->notes, "bridge", json_string(bridge));
	char *cls_path = xasprintf("%s/class", real);
	char *cls = sr_read_str(cls_path);
	if (cls)
		json_object_set_new(p->notes, "bridge_class", json_string(cls));
	if (!cls || !str_starts(cls, "0x0604")) {
		if (!p->unavailable)
			p->unavailable = xasprintf("%s is not a PCI-to-PCI bridge (class %s)", bridge, cls ? cls : "unreadable");
	}
	sbr_devices_below(real, p);
	char *cfg = xasprintf("%s/config", real);
	sbr_bridge_control(cfg, p);
	p->target = xasprintf("bridge %s above GPU %s", bridge, dev);
	free(cfg);
	free(cls);
	free(cls_path);
	free(real);
	free(devpath);
}

static void plan_amd_ras(const struct inj_opts *o, int local, struct inj_plan *p)
{
	char *ctl = xasprintf("/sys/kernel/debug/dri/%d/ras/ras_ctrl", o->gpu_id);
	if (!local)
		p->unavailable = xasprintf("amd-ras acts on this machine's debugfs: run cmax inject on %s itself", o->node);
	else if (!sr_exists(ctl))
		p->unavailable = xasprintf("not available here: %s does not exist (needs amdgpu with RAS, debugfs "
					   "mounted, root)", ctl);
	struct inj_step *st = add_step(p, STEP_WRITE, "amdgpu RAS: inject an uncorrectable UMC (HBM) error");
	st->path = xstrdup(ctl);
	char *hp = sr_hostpath(ctl);
	st->host_path = xstrdup(hp ? hp : ctl);
	free(hp);
	st->data = xasprintf("inject %s ue 0x0 0x0 0x0\n", o->ras_block ? o->ras_block : "umc");
	st->len = strlen(st->data);
	p->target = xasprintf("amdgpu card %d RAS (%s)", o->gpu_id, o->ras_block ? o->ras_block : "umc");
	free(ctl);
}

void inj_plan_build(const struct inj_opts *o, const struct sched *s, int local, struct inj_plan *p)
{
	memset(p, 0, sizeof *p);
	if (o->method == IM_LOG || o->method == IM_DCGM || o->method == IM_SBR)
		p->line = xidline_format(o->code, o->sxid, o->pci, o->desc);
	switch (o->method) {
	case IM_LOG: plan_log(o, s, local, p); break;
	case IM_DCGM: plan_dcgm(o, s, local, p); break;
	case IM_SBR: plan_sbr(o, local, p); break;
	case IM_AMD_RAS: plan_amd_ras(o, local, p); break;
	default: break;
	}
}

static char *hex(const char *d, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		sb_addf(&sb, "%s%02x", i ? " " : "", (unsigned char)d[i]);
	return sb_detach(&sb);
}

static char *step_text(const struct inj_step *s)
{
	switch (s->kind) {
	case STEP_APPEND:
	case STEP_WRITE: {
		char *d = str_sanitize(s->data, s->len);
		char *t = str_trim(d);
		/* one line per record for people; the data is written as is */
		for (char *q = t; *q; q++)
			if (*q == '\n')
				*q = '|';
		char *r = xasprintf("%s %s: %s", s->kind == STEP_APPEND ? "append to" : "write to", s->path, t);
		free(d);
		return r;
	}
	case STEP_PWRITE: {
		char *h = hex(s->data, s->len);
		char *r = xasprintf("write bytes [%s] at offset 0x%lx of %s", h, s->offset, s->path);
		free(h);
		return r;
	}
	case STEP_SLEEP:
		return xasprintf("wait %ld ms", s->sleep_ms);
	case STEP_CMD:
		return argv_display(&s->argv);
	}
	return xstrdup("?");
}

void inj_plan_print(const struct inj_plan *p, FILE *f)
{
	for (size_t i = 0; i < p->n; i++) {
		char *t = step_text(&p->steps[i]);
		fprintf(f, "  %zu. %s\n     (%s)\n", i + 1, t, p->steps[i].why);
		free(t);
	}
	if (p->repeat_ms)
		fprintf(f, "  repeated every %d ms until detected (DCGM's injected samples expire)\n", p->repeat_ms);
}

json_t *inj_plan_json(const struct inj_plan *p)
{
	json_t *a = json_array();
	static const char *const kinds[] = { "append", "write", "pwrite", "sleep", "command" };
	for (size_t i = 0; i < p->n; i++) {
		const struct inj_step *s = &p->steps[i];
		json_t *o = json_object();
		json_object_set_new(o, "kind", json_string(kinds[s->kind]));
		char *t = step_text(s);
		json_object_set_new(o, "text", json_string(t));
		free(t);
		if (s->path)
			json_object_set_new(o, "path", json_string(s->path));
		if (s->kind == STEP_PWRITE) {
			json_object_set_new(o, "offset", json_integer(s->offset));
			char *h = hex(s->data, s->len);
			json_object_set_new(o, "bytes", json_string(h));
			free(h);
		}
		if (s->kind == STEP_CMD) {
			json_t *av = json_array();
			for (size_t k = 0; k < s->argv.n; k++)
				json_array_append_new(av, json_string(s->argv.v[k]));
			json_object_set_new(o, "argv", av);
		}
		if (s->kind == STEP_SLEEP)
			json_object_set_new(o, "ms", json_integer(s->sleep_ms));
		json_object_set_new(o, "why", json_string(s->why));
		json_array_append_new(a, o);
	}
	return a;
}

static int write_step(const struct inj_step *s, char **err)
{
	int flags = s->kind == STEP_APPEND ? O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC : O_WRONLY | O_CLOEXEC;
	int fd = open(s->host_path, flags, 0644);
	if (fd < 0) {
		*err = xasprintf("%s: %s", s->path, strerror(errno));
		return -errno;
	}
	ssize_t w = s->kind == STEP_PWRITE ? pwrite(fd, s->data, s->len, s->offset) : write(fd, s->data, s->len);
	int e = errno;
	close(fd);
	if (w != (ssize_t)s->len) {
		*err = xasprintf("%s: %s", s->path, w < 0 ? strerror(e) : "short write");
		return w < 0 ? -e : -EIO;
	}
	return 0;
}

int inj_plan_run(const struct inj_plan *p, json_t *evidence, char **err)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct inj_step *s = &p->steps[i];
		int rc = 0;
		switch (s->kind) {
		case STEP_APPEND:
		case STEP_WRITE:
		case STEP_PWRITE:
			rc = write_step(s, err);
			if (evidence) {
				char *t = step_text(s);
				json_t *o = json_object();
				json_object_set_new(o, "kind", json_string("write"));
				json_object_set_new(o, "text", json_string(t));
				json_object_set_new(o, "ok", json_boolean(rc == 0));
				json_array_append_new(evidence, o);
				free(t);
			}
			break;
		case STEP_SLEEP:
			inj_sleep_ms(s->sleep_ms);
			break;
		case STEP_CMD: {
			struct run_opts ro = { .timeout_ms = 30000 };
			struct cmd_result r;
			inj_run((const char *const *)s->argv.v, &ro, &r);
			if (evidence)
				json_array_append_new(evidence, cmd_evidence(&r, 512));
			if (!cmd_ok(&r)) {
				*err = cmd_failure(&r);
				rc = -1;
			}
			cmd_result_free(&r);
			break;
		}
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}
