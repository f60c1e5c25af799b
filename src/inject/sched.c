/* The scheduler side of inject and reboot-test: read one node's state
 * (scontrol / sinfo / kubectl), run a basic command there (srun true, a
 * pod running nvidia-smi), and wrap a command so that it runs on the node
 * (srun -w, kubectl debug node/).  Everything goes through the runner. */
#include "inject/sched.h"
#include "inject/replay.h"
#include "core/runner.h"
#include "core/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *err_line(const char *s, size_t len, size_t max)
{
	char *e = str_excerpt(s ? s : "", s ? len : 0, max);
	char *t = str_trim(e);
	struct strbuf sb = STRBUF_INIT;
	for (char *p = t; *p; p++) {
		if (*p == '\n')
			sb_adds(&sb, " | ");
		else if (*p != '\r')
			sb_add(&sb, p, 1);
	}
	free(e);
	return sb_detach(&sb);
}

char *cmd_failure(const struct cmd_result *r)
{
	char *d = cmd_describe(r);
	char *e = err_line(r->err, r->err_len, 240);
	char *line = xasprintf("%s: %s%s%s", r->cmdline, d, *e ? ": " : "", e);
	free(d);
	free(e);
	return line;
}

void sched_kubectl(struct argv_list *a, const char *kubeconfig)
{
	argv_add(a, "kubectl");
	if (kubeconfig) {
		argv_add(a, "--kubeconfig");
		argv_add(a, kubeconfig);
	}
}

void sched_poll_argv(const struct sched *s, struct argv_list *a)
{
	if (s->k8s) {
		sched_kubectl(a, s->kubeconfig);
		argv_add(a, "get");
		argv_add(a, "node");
		argv_add(a, s->node);
		argv_add(a, "-o");
		argv_add(a, "json");
	} else if (s->use_sinfo) {
		argv_add(a, "sinfo");
		argv_add(a, "-h");
		argv_add(a, "-N");
		argv_add(a, "-n");
		argv_add(a, s->node);
		argv_add(a, "-o");
		argv_add(a, "%N|%T|%E|%H");
	} else {
		argv_add(a, "scontrol");
		argv_add(a, "show");
		argv_add(a, "node");
		argv_add(a, "-o");
		argv_add(a, s->node);
	}
}

int sched_poll(const struct sched *s, struct node_view *v, char **err)
{
	struct argv_list a = { 0 };
	sched_poll_argv(s, &a);
	struct run_opts ro = { .timeout_ms = s->timeout_ms > 0 ? s->timeout_ms : 10000 };
	struct cmd_result r;
	inj_run((const char *const *)a.v, &ro, &r);
	int rc = 0;
	if (cmd_ok(&r)) {
		rc = s->k8s ? nv_parse_k8s(r.out, r.out_len, v)
		     : s->use_sinfo ? nv_parse_sinfo(r.out, r.out_len, v)
				    : nv_parse_scontrol(r.out, r.out_len, s->node, v);
		if (rc < 0 && !s->k8s && r.out_len == 0 && s->use_sinfo) {
			/* sinfo prints nothing for a node it does not know */
			memset(v, 0, sizeof *v);
			rc = 0;
		} else if (rc < 0 && err) {
			*err = xasprintf("%s: unreadable output", r.cmdline);
		}
	} else if (r.outcome == RUN_EXITED && (strstr(r.err, "not found") || strstr(r.err, "NotFound"))) {
		/* the node is gone from the scheduler: that is an observation */
		memset(v, 0, sizeof *v);
		v->k8s = s->k8s;
		v->ready = -1;
	} else {
		rc = -1;
		if (err)
			*err = cmd_failure(&r);
	}
	cmd_result_free(&r);
	argv_free(&a);
	return rc;
}

int sched_is_local(const struct sched *s)
{
	const char *sn = getenv("SLURMD_NODENAME");
	if (!s->k8s && sn && !strcmp(sn, s->node))
		return 1;
	char h[256] = "";
	if (gethostname(h, sizeof h - 1) != 0)
		return 0;
	h[sizeof h - 1] = 0;
	if (!strcmp(h, s->node))
		return 1;
	char *dot = strchr(h, '.');
	if (dot)
		*dot = 0;
	return !strcmp(h, s->node);
}

void sched_on_node(const struct sched *s, int local, const char *const *cmd, struct argv_list *out)
{
	if (!local && s->k8s) {
		/* a privileged debug pod with the host's root at /host */
		sched_kubectl(out, s->kubeconfig);
		argv_add(out, "debug");
		argv_addf(out, "node/%s", s->node);
		argv_add(out, "-q");
		argv_add(out, "--profile=sysadmin");
		argv_add(out, "--image");
		argv_add(out, s->debug_image ? s->debug_image : "busybox:1.36");
		argv_add(out, "--");
		argv_add(out, "chroot");
		argv_add(out, "/host");
	} else if (!local) {
		argv_add(out, "srun");
		argv_add(out, "-w");
		argv_add(out, s->node);
		argv_add(out, "-N1");
		argv_add(out, "-n1");
		if (getenv("SLURM_JOB_ID"))
			argv_add(out, "--overlap");
	}
	argv_add_all(out, cmd);
}

static int run_argv(struct argv_list *a, int timeout_ms, struct cmd_result *r)
{
	struct run_opts ro = { .timeout_ms = timeout_ms };
	inj_run((const char *const *)a->v, &ro, r);
	return cmd_ok(r);
}

static int k8s_pod_probe(const struct sched *s, char **detail)
{
	static unsigned seq;
	char name[96];
	snprintf(name, sizeof name, "cmax-probe-%ld-%u", (long)getpid(), seq++);
	char *ov = xasprintf("{\"apiVersion\":\"v1\",\"spec\":{\"nodeSelector\":{\"kubernetes.io/hostname\":\"%s\"},"
			     "\"tolerations\":[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\"}],"
			     "\"containers\":[{\"name\":\"%s\",\"image\":\"%s\",\"command\":[\"nvidia-smi\"],"
			     "\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]}}",
			     s->node, name, s->probe_image ? s->probe_image : SCHED_PROBE_IMAGE);
	struct argv_list a = { 0 };
	sched_kubectl(&a, s->kubeconfig);
	const char *run[] = { "run", name, "--restart=Never", "--image",
			      s->probe_image ? s->probe_image : SCHED_PROBE_IMAGE, "--overrides", ov, NULL };
	argv_add_all(&a, run);
	struct cmd_result r;
	int ok = run_argv(&a, 30000, &r);
	argv_free(&a);
	free(ov);
	if (!ok) {
		char *d = cmd_describe(&r);
		*detail = xasprintf("%s: %s", r.cmdline, d);
		free(d);
		cmd_result_free(&r);
		return 0;
	}
	cmd_result_free(&r);
	/* wait for the pod to finish, bounded */
	int result = 0;
	char phase[32] = "";
	for (int i = 0; i < 120; i++) {
		sched_kubectl(&a, s->kubeconfig);
		const char *get[] = { "get", "pod", name, "-o", "jsonpath={.status.phase}", NULL };
		argv_add_all(&a, get);
		ok = run_argv(&a, 10000, &r);
		argv_free(&a);
		snprintf(phase, sizeof phase, "%s", ok ? str_trim(r.out) : "?");
		cmd_result_free(&r);
		if (!strcmp(phase, "Succeeded")) {
			result = 1;
			break;
		}
		if (!strcmp(phase, "Failed"))
			break;
		inj_sleep_ms(1000);
	}
	*detail = xasprintf("pod %s running nvidia-smi on %s: %s", name, s->node, phase[0] ? phase : "no phase");
	sched_kubectl(&a, s->kubeconfig);
	const char *del[] = { "delete", "pod", name, "--wait=false", "--ignore-not-found", NULL };
	argv_add_all(&a, del);
	run_argv(&a, 30000, &r);
	cmd_result_free(&r);
	argv_free(&a);
	return result;
}

int sched_probe(const struct sched *s, char **detail)
{
	if (s->k8s)
		return k8s_pod_probe(s, detail);
	struct argv_list a = { 0 };
	const char *cmd[] = { "true", NULL };
	sched_on_node(s, 0, cmd, &a);
	struct cmd_result r;
	int ok = run_argv(&a, 30000, &r);
	if (ok) {
		char *d = cmd_describe(&r);
		*detail = xasprintf("%s: %s", r.cmdline, d);
		free(d);
	} else {
		*detail = cmd_failure(&r);
	}
	cmd_result_free(&r);
	argv_free(&a);
	return ok;
}
