/* cmax inject / reboot-test pure parts: the ownership rule, synthetic lines (round
 * trip through the kernel-log parser), node-state parsing of real scontrol,
 * sinfo and kubectl output, the timeline verdicts, boot-id comparison. */
#include "tap.h"
#include "inject/inject.h"
#include "xid/kmsg.h"

#include <stdlib.h>
#include <string.h>

/* Who may inject where: the allocation (SLURM_JOB_NODELIST) or the flag. */
static void test_ownership(void)
{
	char *why = NULL;
	unsetenv("SLURM_JOB_NODELIST");
	T_INTEQ(inject_owns_node("node1", 0, 0, &why), 0, "outside an allocation: refused");
	T_OK(strstr(why, "not inside a Slurm allocation") != NULL, "says why: %s", why);
	free(why);
	T_INTEQ(inject_owns_node("node1", 1, 0, &why), 1, "--i-own-this-node allows");
	free(why);
	T_INTEQ(inject_owns_node("node1", 0, 1, &why), 0, "k8s without the flag: refused");
	free(why);
	setenv("SLURM_JOB_NODELIST", "gpu[001-004,010],login", 1);
	T_INTEQ(inject_owns_node("gpu010", 0, 0, &why), 1, "in the allocation (hostlist expanded)");
	free(why);
	T_INTEQ(inject_owns_node("gpu005", 0, 0, &why), 0, "not in the allocation");
	T_OK(strstr(why, "gpu005 is not in your allocation") != NULL, "names the node: %s", why);
	free(why);
	setenv("SLURM_JOB_NODELIST", "gpu[001-", 1);
	T_INTEQ(inject_owns_node("gpu001", 0, 0, &why), 0, "a garbled list proves nothing: refused");
	free(why);
	unsetenv("SLURM_JOB_NODELIST");
}

static void test_xidline(void)
{
	struct kmsg_event ev;
	char *l = xidline_format(79, 0, "0000:5A:00.0", NULL);
	T_STREQ(l, "NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
		"Xid 79 in the driver's exact form");
	T_INTEQ(kmsg_parse_line(l, strlen(l), &ev), KMSG_XID, "79 parses back");
	T_INTEQ(ev.code, 79, "79 code back");
	T_STREQ(ev.pci, "0000:5a:00", "79 pci back");
	free(l);
	l = xidline_format(95, 0, "5a:00.0", NULL);
	kmsg_parse_line(l, strlen(l), &ev);
	T_INTEQ(ev.rst, 1, "95 says RST: Yes");
	T_INTEQ(ev.drst, 0, "95 says D-RST: No");
	free(l);
	l = xidline_format(154, 0, "0000:3b:00", NULL);
	kmsg_parse_line(l, strlen(l), &ev);
	T_INTEQ(ev.rec_to, 2, "154 transition to node reboot");
	free(l);
	l = xidline_format(13, 0, "0000:3b:00", "Graphics Engine Exception");
	kmsg_parse_line(l, strlen(l), &ev);
	T_INTEQ(ev.code, 13, "13 parses back");
	free(l);
	l = xidline_format(140, 0, "0000:3b:00", "Unrecovered ECC Error");
	T_OK(strstr(l, "): 140, pid='<unknown>', name=<unknown>, Unrecovered ECC Error") != NULL,
	     "other codes carry the catalog description");
	free(l);
	l = xidline_format(20034, 1, "0000:05:00.0", "LTSSM Fault Up");
	T_STREQ(l, "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 0 LTSSM Fault Up", "SXid form");
	T_INTEQ(kmsg_parse_line(l, strlen(l), &ev), KMSG_SXID, "SXid parses back");
	T_INTEQ(ev.fatal, 1, "SXid fatal");
	free(l);
}

static const char *SC_IDLE =
	"NodeName=node1 Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=0.81 "
	"AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1 NodeHostName=vm Port=17401 "
	"Version=22.05.8 OS=Linux 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0  RealMemory=1000 AllocMem=0 FreeMem=22906 "
	"Sockets=2 Boards=1 State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=gpu  "
	"BootTime=2026-11-30T05:39:47 SlurmdStartTime=2026-11-30T06:22:37 LastBusyTime=2026-11-30T06:22:37 "
	"CfgTRES=cpu=2,mem=1000M,billing=2 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s "
	"ExtSensorsWatts=0 ExtSensorsTemp=n/s\n";

static void test_nodestate(void)
{
	struct node_view v, base;
	T_INTEQ(nv_parse_scontrol(SC_IDLE, strlen(SC_IDLE), "node1", &v), 0, "scontrol idle parses");
	T_STREQ(v.state, "IDLE", "state");
	T_INTEQ(v.base, NVB_IDLE, "base idle");
	T_STREQ(v.boot_time, "2026-11-30T05:39:47", "BootTime");
	T_OK(nv_schedulable(&v, NULL), "idle is schedulable");
	T_OK(!nv_detected(&v, &v) && !nv_isolated(&v, &v), "idle: nothing detected");
	base = v;
	T_INTEQ(nv_parse_scontrol(SC_IDLE, strlen(SC_IDLE), "node2", &v), -1, "other node: not found");

	const char *dr = "NodeName=node1 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=1 "
			 "Reason=x y [z] [root@2026-11-30T06:22:37]\n";
	nv_parse_scontrol(dr, strlen(dr), "node1", &v);
	T_OK(v.flags & NVF_DRAIN, "IDLE+DRAIN has the drain flag");
	T_STREQ(v.reason, "x y [z]", "reason keeps its own brackets");
	T_STREQ(v.reason_user, "root", "reason user");
	T_STREQ(v.reason_time, "2026-11-30T06:22:37", "reason time");
	T_OK(!nv_schedulable(&v, NULL) && nv_isolated(&v, &base) && nv_detected(&v, &base), "drained: isolated");

	const char *nr = "NodeName=node1 State=IDLE+NOT_RESPONDING NextState=RESUME\n";
	nv_parse_scontrol(nr, strlen(nr), NULL, &v);
	T_OK((v.flags & NVF_NOT_RESPONDING) && !nv_schedulable(&v, NULL) && !nv_isolated(&v, &base),
	     "not responding: out of the set, not isolated");
	const char *rb = "NodeName=node1 CPUs=2 State=DOWN+REBOOT_ISSUED NextState=RESUME "
			 "Reason=test2 : reboot issued [root@2026-11-30T06:22:57]\n";
	nv_parse_scontrol(rb, strlen(rb), "node1", &v);
	T_INTEQ(v.base, NVB_DOWN, "NextState= does not shadow State=");
	T_OK(v.flags & NVF_REBOOT_ISSUED, "reboot issued flag");
	T_STREQ(v.reason, "test2 : reboot issued", "reason of the reboot");
	const char *two = "NodeName=a State=DOWN\nNodeName=node1 State=MIXED+DRAIN Reason=x\n";
	nv_parse_scontrol(two, strlen(two), "node1", &v);
	T_STREQ(v.state, "MIXED+DRAIN", "the named node's line of several");
	T_STREQ(v.reason, "x", "reason without stamp");

	const char *si[][2] = {
		{ "node1|idle|none|Unknown", "1" }, { "node1|drained|cmax: Xid 79|2026-11-30T06:22:37", "0" },
		{ "node1|draining|x|2026-11-30T06:22:37", "0" }, { "idle*|none|Unknown", "0" },
		{ "node1|mixed|none|Unknown", "1" }, { "node1|allocated+|none|Unknown", "1" },
		{ "node1|reboot^|r|2026-11-30T06:22:57", "0" }, { "node1|down*|Not responding|2026-11-30T06:22:57", "0" },
		{ "node1|idle~|none|Unknown", "0" }, { "node1|mixed-|none|Unknown", "1" },
	};
	for (size_t i = 0; i < sizeof si / sizeof *si; i++) {
		T_INTEQ(nv_parse_sinfo(si[i][0], strlen(si[i][0]), &v), 0, "sinfo '%s' parses", si[i][0]);
		T_INTEQ(nv_schedulable(&v, NULL), atoi(si[i][1]), "sinfo '%s' schedulable=%s", si[i][0], si[i][1]);
	}
	nv_parse_sinfo(si[1][0], strlen(si[1][0]), &v);
	T_STREQ(v.reason, "cmax: Xid 79", "sinfo reason");
	T_OK(nv_isolated(&v, NULL), "drained is isolated");
	nv_parse_sinfo(si[0][0], strlen(si[0][0]), &v);
	T_STREQ(v.reason, "", "'none' is no reason");
	T_INTEQ(nv_parse_sinfo("garbage", 7, &v), -1, "one field is not a sinfo line");
}

static const char *K8S_NODE =
	"{\"kind\":\"Node\",\"metadata\":{\"name\":\"gpu-1\"},\"spec\":{%s\"taints\":[{\"key\":\"nvidia.com/gpu\","
	"\"value\":\"present\",\"effect\":\"NoSchedule\"}%s]},\"status\":{\"conditions\":[{\"type\":\"Ready\","
	"\"status\":\"%s\"}%s],\"nodeInfo\":{\"bootID\":\"%s\"}}}";

static void k8s(struct node_view *v, const char *unsched, const char *taint, const char *ready, const char *cond,
		const char *boot)
{
	char buf[2048];
	snprintf(buf, sizeof buf, K8S_NODE, unsched, taint, ready, cond, boot);
	nv_parse_k8s(buf, strlen(buf), v);
}

static void test_k8s(void)
{
	struct node_view base, v;
	k8s(&base, "", "", "True", "", "b0");
	T_OK(base.found && base.ready == 1, "k8s node ready");
	T_STREQ(base.boot_id, "b0", "bootID");
	T_OK(nv_schedulable(&base, &base), "the GPU pool taint it always had does not count");
	k8s(&v, "\"unschedulable\":true,", "", "True", "", "b0");
	T_OK(nv_isolated(&v, &base) && nv_detected(&v, &base), "cordon: isolated and detected");
	T_STREQ(v.state, "Ready,SchedulingDisabled", "kubectl-style state");
	k8s(&v, "", ",{\"key\":\"nvidia.com/gpu-xid\",\"value\":\"79\",\"effect\":\"NoSchedule\"}", "True", "", "b0");
	T_OK(nv_isolated(&v, &base), "new NoSchedule taint isolates");
	k8s(&v, "", ",{\"key\":\"x\",\"value\":\"\",\"effect\":\"PreferNoSchedule\"}", "True", "", "b0");
	T_OK(nv_detected(&v, &base) && !nv_isolated(&v, &base), "PreferNoSchedule: detected, not isolated");
	k8s(&v, "", "", "True", ",{\"type\":\"GpuXidError\",\"status\":\"True\"}", "b0");
	T_OK(nv_detected(&v, &base) && nv_schedulable(&v, &base), "a new condition is a detection");
	k8s(&v, "", "", "False", "", "b1");
	T_OK(!nv_schedulable(&v, &base), "NotReady is not schedulable");
	T_INTEQ(nv_parse_k8s("{\"kind\":\"Pod\"}", 14, &v), -1, "not a Node");
	T_INTEQ(nv_parse_k8s("{", 1, &v), -1, "broken JSON");
}

static struct node_view sc(const char *state)
{
	struct node_view v;
	char buf[256];
	snprintf(buf, sizeof buf, "NodeName=node1 State=%s Reason=cmax: Xid 79 on 0000:5a:00 [root@2026-11-30T06:22:37]\n",
		 state);
	nv_parse_scontrol(buf, strlen(buf), "node1", &v);
	return v;
}

static enum status grade(struct timeline *t, struct tl_expect *x, char **verdict, enum status *rows3)
{
	struct result **rows = NULL;
	size_t n = 0;
	enum status st = tl_grade(t, x, "node1", &rows, &n, verdict);
	for (size_t i = 0; i < n; i++) {
		if (i < 3)
			rows3[i] = rows[i]->status;
		result_free(rows[i]);
	}
	free(rows);
	return st;
}

static void test_timeline(void)
{
	struct node_view idle = sc("IDLE"), drain = sc("IDLE+DRAIN"), nr = sc("IDLE+NOT_RESPONDING");
	struct tl_expect x = { .isolation = 1, .action = "reboot", .code = 79, .detect_s = 120, .return_s = 3600,
			       .platform = "hgx", .timeout_s = 30, .wait_return_s = 30 };
	struct timeline t;
	enum status rs[3];
	char *verdict;
	tl_init(&t, &idle);
	tl_mark(&t, TL_INJECTED, 0, 1000.0, "line");
	tl_observe(&t, 100, 1000.1, &idle, -1);
	tl_observe(&t, 2100, 1002.1, &drain, -1);
	tl_observe(&t, 2200, 1002.2, &drain, -1);
	tl_observe(&t, 5000, 1005.0, &nr, -1);
	tl_observe(&t, 5800, 1005.8, &idle, -1);
	tl_mark(&t, TL_USABLE, 6000, 1006.0, "srun ok");
	T_INTEQ(t.t_ms[TL_DETECTED], 2100, "detected at the first drained poll");
	T_INTEQ(t.t_ms[TL_DRAINED], 2100, "drained then too");
	T_INTEQ(t.t_ms[TL_RETURNED], 5800, "returned at plain idle, not at idle*");
	T_INTEQ(grade(&t, &x, &verdict, rs), ST_PASS, "full cycle passes");
	T_OK(strstr(verdict, "detected in 2.1 s") && strstr(verdict, "drained for 3.7 s"), "verdict: %s", verdict);
	free(verdict);
	json_t *j = tl_json(&t);
	T_OK(json_real_value(json_object_get(json_object_get(j, "times"), "usable_s")) == 6.0, "usable_s in JSON");
	T_INTEQ(json_array_size(json_object_get(j, "events")), 5, "five events");
	json_decref(j);
	x.detect_s = 1;
	T_INTEQ(grade(&t, &x, &verdict, rs), ST_FAIL, "detection later than expected fails");
	free(verdict);
	x.detect_s = 120;
	tl_free(&t);

	/* nothing happens */
	tl_init(&t, &idle);
	tl_mark(&t, TL_INJECTED, 0, 1000.0, "line");
	tl_observe(&t, 30000, 1030.0, &idle, -1);
	T_INTEQ(grade(&t, &x, &verdict, rs), ST_FAIL, "not detected: FAIL");
	T_STREQ(verdict, "not detected within 30 s", "verdict names the timeout");
	T_INTEQ(rs[2], ST_SKIP, "return row skipped when the node never left");
	free(verdict);
	/* the same for an app-level Xid is the right outcome */
	struct tl_expect x13 = x;
	x13.isolation = 0;
	x13.code = 13;
	x13.action = "restart_app";
	T_INTEQ(grade(&t, &x13, &verdict, rs), ST_PASS, "Xid 13 not detected: PASS");
	T_OK(strstr(verdict, "not detected within 30 s (correct") != NULL, "verdict says correct: %s", verdict);
	free(verdict);
	tl_free(&t);
	/* an app-level Xid that drains is a false action */
	tl_init(&t, &idle);
	tl_observe(&t, 1000, 1001.0, &drain, -1);
	T_INTEQ(grade(&t, &x13, &verdict, rs), ST_FAIL, "drain on Xid 13: FAIL");
	free(verdict);
	/* drained, observation stopped before the return: unjudged, not failed */
	T_INTEQ(grade(&t, &x, &verdict, rs), ST_PASS, "drained, return unobserved: PASS overall");
	T_INTEQ(rs[2], ST_SKIP, "return row SKIP (not judged)");
	free(verdict);
	struct tl_expect xn = x;
	xn.return_s = 0;
	xn.platform = "nvl72";
	T_INTEQ(grade(&t, &xn, &verdict, rs), ST_PASS, "nvl72: detection plus isolation is enough");
	free(verdict);
	tl_free(&t);
	/* --detect-cmd signals, node stays in the set */
	tl_init(&t, &idle);
	tl_observe(&t, 500, 1000.5, &idle, 1);
	T_INTEQ(t.t_ms[TL_DETECTED], 500, "detect-cmd counts as detection");
	T_INTEQ(grade(&t, &x, &verdict, rs), ST_WARN, "detected but not isolated: WARN");
	free(verdict);
	tl_free(&t);
}

static void test_bootid(void)
{
	const char *a = "8f0e2b1c-1d2e-4f3a-9b8c-7d6e5f4a3b2c\n", *b = "8F0E2B1C-1D2E-4F3A-9B8C-7D6E5F4A3B2C";
	const char *c = "11111111-2222-3333-4444-555555555555";
	T_INTEQ(bootid_changed(a, b), 0, "same id, case and newline ignored");
	T_INTEQ(bootid_changed(a, c), 1, "different id: rebooted");
	T_INTEQ(bootid_changed(a, "srun: error: Unable to allocate resources"), -1, "an error message is unknown");
	T_INTEQ(bootid_changed(NULL, c), -1, "unread is unknown");
	T_INTEQ(bootid_changed("", ""), -1, "empty is unknown, not 'same'");
	T_INTEQ(bootid_changed(a, "8f0e2b1c-1d2e-4f3a-9b8c-7d6e5f4a3b2c extra"), -1, "trailing words refused");
}

int main(void)
{
	test_ownership();
	test_xidline();
	test_nodestate();
	test_k8s();
	test_timeline();
	test_bootid();
	return t_done();
}
