/* Injection methods as a plan of exact steps (method.c). */
#ifndef CMAX_INJECT_METHOD_H
#define CMAX_INJECT_METHOD_H
#include <stdio.h>
#include <jansson.h>

#include "inject/sched.h"
#include "xid/kmsg.h"

enum inj_method { IM_LOG, IM_DCGM, IM_SBR, IM_AMD_RAS, IM__COUNT };
const char *inj_method_name(enum inj_method m);
int inj_method_parse(const char *s, enum inj_method *m);

struct inj_opts {
	enum inj_method method;
	int code, sxid;
	const char *pci;	/* GPU (or switch) address for the line and for sbr */
	int gpu_id;		/* dcgm GPU id, amdgpu debugfs card index */
	const char *desc;	/* catalog description, for codes without a fixed driver text */
	const char *log_file;
	const char *node;
	const char *ras_block;	/* amd-ras: "umc" */
};

enum step_kind { STEP_APPEND, STEP_WRITE, STEP_PWRITE, STEP_SLEEP, STEP_CMD };

struct inj_step {
	enum step_kind kind;
	char *path;		/* as shown (virtual path under --sysroot) */
	char *host_path;	/* what is opened */
	char *data;
	size_t len;
	long offset;
	long sleep_ms;
	struct argv_list argv;
	char *why;
};

struct inj_plan {
	struct inj_step *steps;
	size_t n;
	char *line;		/* the synthetic log line, NULL for amd-ras */
	char *target;		/* for people: where the fault goes */
	char *unavailable;	/* why this method cannot run here; NULL when it can */
	int repeat_ms;		/* re-run the plan this often until detection (dcgm) */
	json_t *notes;		/* sbr: gpu, bridge, devices_reset, bridge_control */
};

void inj_plan_build(const struct inj_opts *o, const struct sched *s, int local, struct inj_plan *p);
void inj_plan_free(struct inj_plan *p);
void inj_plan_print(const struct inj_plan *p, FILE *f);
json_t *inj_plan_json(const struct inj_plan *p);
/* Execute every step; 0, or a negative value with *err (malloc'd). What ran
 * is appended to evidence (may be NULL). */
int inj_plan_run(const struct inj_plan *p, json_t *evidence, char **err);
#endif
