/* Slurm parsers against text copied from Slurm 22.05 (Debian bookworm) and
 * the documented formats of newer releases. */
#include "parse/slurm.h"
#include "core/strbuf.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

static const char *js(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static void test_config(void)
{
	json_t *c = parse_scontrol_config(S(
		"Configuration data as of 2026-11-30T06:20:50\n"
		"AccountingStorageType   = accounting_storage/none\n"
		"Epilog                  = (null)\n"
		"HealthCheckInterval     = 5 sec\n"
		"HealthCheckProgram      = /etc/slurm/hc.sh\n"
		"JobDefaults             = DefCpuPerGPU=1,DefMemPerGPU=1000\n"
		"MessageTimeout          = 10 sec\n"
		"PowerPlugin             = \n"
		"SlurmctldHost[0]        = vm(127.0.0.1)\n"
		"SLURM_CONF              = /etc/slurm/slurm.conf\n"
		"\n"
		"Cgroup Support Configuration:\n"
		"MessageTimeout          = 99 sec\n"
		"Slurmctld(primary) at vm is UP\n"));
	T_STREQ(js(c, "AccountingStorageType"), "accounting_storage/none", "config: plain value");
	T_OK(json_is_null(json_object_get(c, "Epilog")), "config: (null) is null");
	T_STREQ(js(c, "HealthCheckInterval"), "5 sec", "config: value with unit");
	T_STREQ(js(c, "JobDefaults"), "DefCpuPerGPU=1,DefMemPerGPU=1000", "config: value with '='");
	T_STREQ(js(c, "SlurmctldHost[0]"), "vm(127.0.0.1)", "config: indexed key");
	T_STREQ(js(c, "MessageTimeout"), "10 sec", "config: first occurrence wins");
	T_STREQ(js(c, "PowerPlugin"), "", "config: empty value");
	T_OK(!json_object_get(c, "Slurmctld(primary) at vm is UP"), "config: status line ignored");
	json_decref(c);
}

static void test_nodes(void)
{
	json_t *a = parse_scontrol_records(S(
		"NodeName=node1 Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=0.74 "
		"AvailableFeatures=rack0,nvme ActiveFeatures=rack0 Gres=gpu:fake:8 NodeAddr=127.0.0.1 NodeHostName=vm "
		"Port=17291 Version=22.05.8 OS=Linux 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0  RealMemory=20000 "
		"AllocMem=0 FreeMem=23624 Sockets=2 Boards=1 State=IDLE ThreadsPerCore=1 Partitions=gpu  "
		"CfgTRES=cpu=2,mem=20000M,billing=2 AllocTRES= CapWatts=n/a\n"
		"NodeName=node2 CPUTot=2 Gres=(null) NodeHostName=vm RealMemory=1 State=IDLE+DRAIN Partitions=gpu,debug "
		"Reason=gpu 3 xid 79 fell off bus, see a=b [root@2026-11-30T06:20:55]\n"
		"NodeName=node3 State=DOWN*+DRAIN Gres=gpu:h100:4(S:0-1),gpu:a100:2,shard:8 Reason=Not responding "
		"[slurm@2026-11-29T01:00:00]\n"
		"\n"));
	T_INTEQ(json_array_size(a), 3, "nodes: three records");
	json_t *r1 = json_array_get(a, 0);
	T_STREQ(js(r1, "OS"), "Linux 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0", "nodes: value with spaces kept");
	T_STREQ(js(r1, "CfgTRES"), "cpu=2,mem=20000M,billing=2", "nodes: value with '='");
	T_STREQ(js(r1, "AllocTRES"), "", "nodes: empty value");
	json_t *n1 = slurm_node_summary(r1);
	T_STREQ(js(n1, "name"), "node1", "summary: name");
	T_STREQ(js(n1, "hostname"), "vm", "summary: hostname");
	T_STREQ(js(n1, "state"), "IDLE", "summary: state");
	T_INTEQ(json_integer_value(json_object_get(n1, "gpus")), 8, "summary: gpus from gpu:fake:8");
	T_INTEQ(json_integer_value(json_object_get(n1, "real_memory_mb")), 20000, "summary: RealMemory");
	T_INTEQ(json_integer_value(json_object_get(n1, "cpus")), 2, "summary: CPUTot");
	T_STREQ(json_string_value(json_array_get(json_object_get(n1, "features"), 1)), "nvme", "summary: features");
	T_OK(json_is_null(json_object_get(n1, "reason")), "summary: no reason");
	json_decref(n1);

	json_t *n2 = slurm_node_summary(json_array_get(a, 1));
	T_STREQ(js(n2, "state"), "IDLE", "summary: base state of IDLE+DRAIN");
	T_STREQ(json_string_value(json_array_get(json_object_get(n2, "flags"), 0)), "DRAIN", "summary: DRAIN flag");
	T_STREQ(js(n2, "reason"), "gpu 3 xid 79 fell off bus, see a=b", "summary: reason text with '='");
	T_STREQ(js(n2, "reason_user"), "root", "summary: reason user");
	T_STREQ(js(n2, "reason_time"), "2026-11-30T06:20:55", "summary: reason time");
	T_INTEQ(json_integer_value(json_object_get(n2, "gpus")), 0, "summary: Gres=(null) is 0 GPUs");
	T_INTEQ(json_array_size(json_object_get(n2, "partitions")), 2, "summary: partitions");
	json_decref(n2);

	json_t *n3 = slurm_node_summary(json_array_get(a, 2));
	T_STREQ(js(n3, "state"), "DOWN", "summary: DOWN* base");
	T_OK(json_is_true(json_object_get(n3, "not_responding")), "summary: '*' is not responding");
	T_INTEQ(json_integer_value(json_object_get(n3, "gpus")), 6, "summary: gpu counts summed, shard ignored");
	T_OK(json_is_null(json_object_get(n3, "real_memory_mb")), "summary: RealMemory unknown");
	json_decref(n3);
	json_decref(a);

	T_INTEQ(slurm_gres_gpus("gpu"), 1, "gres: bare gpu is one");
	T_INTEQ(slurm_gres_gpus("gpu:2"), 2, "gres: gpu:N");
	T_INTEQ(slurm_gres_gpus("gpus:2"), 0, "gres: other name");
	T_INTEQ(slurm_gres_gpus("gpu:h100:x"), -1, "gres: unreadable count");
	T_INTEQ(slurm_gres_gpus(NULL), 0, "gres: none");

	json_t *rs = slurm_reason_split("[brackets] but no user");
	T_STREQ(js(rs, "text"), "[brackets] but no user", "reason: no suffix");
	T_OK(json_is_null(json_object_get(rs, "user")), "reason: no user");
	json_decref(rs);
}

/* The one reader of a node's line for the health agent and the injector. */
static void test_node_line(void)
{
	struct slurm_node_line n;
	const char *drained =
		"NodeName=node1 Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUTot=2 State=IDLE+DRAIN "
		"ThreadsPerCore=1 Partitions=gpu BootTime=2026-11-30T03:00:00 "
		"Reason=cmax: Xid 79 on 0000:5a:00 at 2026-11-30T03:35:00Z (reboot) [root@2026-11-30T03:35:00]\n";
	T_INTEQ(slurm_node_line(drained, strlen(drained), "node1", &n), 0, "drained node parses");
	T_STREQ(n.state, "IDLE+DRAIN", "state");
	T_OK(n.drain && !n.down, "drain flag");
	T_STREQ(n.reason, "cmax: Xid 79 on 0000:5a:00 at 2026-11-30T03:35:00Z (reboot)",
		"reason without the [user@time] stamp");

	const char *idle = "NodeName=node2 Arch=x86_64 State=IDLE ThreadsPerCore=1 Reason=none\n";
	T_INTEQ(slurm_node_line(idle, strlen(idle), "node2", &n), 0, "idle node parses");
	T_OK(!n.drain && !n.down && !n.fail, "idle: no flags");
	T_STREQ(n.reason, "", "no reason");

	const char *two = "NodeName=node1 State=IDLE\nNodeName=node2 State=DOWN+NOT_RESPONDING "
			  "Reason=Not responding [slurm@2026-11-30T03:35:00]\n";
	T_INTEQ(slurm_node_line(two, strlen(two), "node2", &n), 0, "second of two lines");
	T_OK(n.down, "down flag");
	T_STREQ(n.reason, "Not responding", "foreign reason");

	T_INTEQ(slurm_node_line(two, strlen(two), "node9", &n), -1, "unknown node");
	T_INTEQ(slurm_node_line("Node node1 not found\n", 20, "node1", &n), -1, "error text");
	T_INTEQ(slurm_node_line("", 0, NULL, &n), -1, "empty");
	const char *odd = "NodeName=n State=MIXED+DRAIN Reason=[weird [x@y]\n";
	T_INTEQ(slurm_node_line(odd, strlen(odd), "n", &n), 0, "odd reason parses");
	T_STREQ(n.reason, "[weird", "bracket inside the reason is kept");

	/* what the injector relies on */
	const char *dr = "NodeName=node1 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=1 BootTime=2026-11-30T05:39:47 "
			 "Reason=x  y [z] [root@2026-11-30T06:22:37]\n";
	T_INTEQ(slurm_node_line(dr, strlen(dr), NULL, &n), 0, "first node line when none is named");
	T_STREQ(n.name, "node1", "node name");
	T_STREQ(n.reason, "x  y [z]", "reason keeps its own brackets and spacing");
	T_STREQ(n.reason_user, "root", "reason user");
	T_STREQ(n.reason_time, "2026-11-30T06:22:37", "reason time");
	T_STREQ(n.boot_time, "2026-11-30T05:39:47", "BootTime");
	const char *rb = "  NodeName=node1 CPUs=2 State=DOWN+REBOOT_ISSUED NextState=RESUME "
			 "Reason=test2 : reboot issued [root@2026-11-30T06:22:57]\n";
	T_INTEQ(slurm_node_line(rb, strlen(rb), "node1", &n), 0, "leading blanks");
	T_STREQ(n.state, "DOWN+REBOOT_ISSUED", "NextState= does not shadow State=");
	T_STREQ(n.reason, "test2 : reboot issued", "reason with a lone ':'");
	const char *ml = "NodeName=n State=IDLE+DRAIN Reason=first line [root@2026-11-30T06:22:57]        second [x]\n";
	T_INTEQ(slurm_node_line(ml, strlen(ml), "n", &n), 0, "multi-line reason parses");
	T_STREQ(n.reason, "first line", "multi-line reason: text before the stamp");
	T_STREQ(n.reason_user, "root", "multi-line reason: user of the stamp");
	const char *lone = "NodeName=n State=DOWN Reason=[x@y]\n";
	slurm_node_line(lone, strlen(lone), "n", &n);
	T_STREQ(n.reason, "[x@y]", "a stamp without text before it is the text");
	T_STREQ(n.reason_user, "", "no user without a stamp");
	const char *bad = "NodeName=n\x01\xff State=ID\x7fLE Reason=a\xc3\xa9 [u@t]\n";
	T_INTEQ(slurm_node_line(bad, strlen(bad), NULL, &n), 0, "garbage bytes parse");
	T_STREQ(n.name, "n??", "control and invalid bytes: '?' from the record reader (str_sanitize)");
	T_STREQ(n.state, "ID?LE", "DEL too");
	T_STREQ(n.reason, "a\xc3\xa9", "printable UTF-8 passes");
	T_INTEQ(slurm_node_line(S("PartitionName=gpu Nodes=node1 State=UP\n"), NULL, &n), -1, "a partition is no node");
	T_INTEQ(slurm_node_line(S("NodeName=n\n"), "n", &n), 0, "a name alone is a node");
	T_STREQ(n.state, "", "missing State= is empty");
	T_INTEQ(slurm_node_line(NULL, 0, NULL, &n), -1, "no text");
}

static void test_conf(void)
{
	json_t *c = parse_slurm_conf(S(
		"# slurm.conf\n"
		"ClusterName=prod  # trailing comment\n"
		"SlurmctldHost=ctl1(10.0.0.1)\n"
		"healthcheckprogram=/usr/sbin/nhc\n"
		"HealthCheckProgram=/usr/sbin/nhc-wrapper\n"
		"NodeName=gpu[001-016,020] CPUs=128 RealMemory=2000000 \\\n"
		"   Gres=gpu:h100:8 Features=\"rack1,ib\"\n"
		"include /etc/slurm/nodes.conf\n"
		"PartitionName=batch Nodes=ALL Default=YES\n"));
	T_INTEQ(json_array_size(c), 7, "conf: seven logical lines");
	json_t *node = json_array_get(c, 4);
	T_STREQ(js(node, "NodeName"), "gpu[001-016,020]", "conf: NodeName hostlist");
	T_STREQ(js(node, "Gres"), "gpu:h100:8", "conf: continuation line joined");
	T_STREQ(js(node, "Features"), "rack1,ib", "conf: quotes removed");
	T_STREQ(js(json_array_get(c, 5), "Include"), "/etc/slurm/nodes.conf", "conf: include");
	T_STREQ(slurm_conf_get(c, "HealthCheckProgram"), "/usr/sbin/nhc-wrapper", "conf: last wins, case-insensitive");
	T_STREQ(slurm_conf_get(c, "ClusterName"), "prod", "conf: comment stripped");
	T_OK(slurm_conf_get(c, "Epilog") == NULL, "conf: unset key");
	json_decref(c);

	json_t *g = parse_slurm_conf(S(
		"AutoDetect=nvml\n"
		"NodeName=gpu[01-04] Name=gpu Type=h100 File=/dev/nvidia[0-7]\n"));
	T_STREQ(js(json_array_get(g, 1), "File"), "/dev/nvidia[0-7]", "gres.conf: File");
	json_decref(g);

	json_t *t = parse_slurm_conf(S(
		"SwitchName=s0 Nodes=gpu[001-008]\n"
		"SwitchName=s1 Nodes=gpu[009-016] LinkSpeed=400\n"
		"SwitchName=root Switches=s[0-1]\n"
		"BlockName=b1 Nodes=gb[01-18]\n"
		"BlockSizes=18,36\n"));
	T_INTEQ(json_array_size(t), 5, "topology.conf: lines");
	T_STREQ(js(json_array_get(t, 2), "Switches"), "s[0-1]", "topology.conf: Switches");
	T_STREQ(js(json_array_get(t, 3), "BlockName"), "b1", "topology.conf: BlockName");
	json_decref(t);

	json_t *e = parse_slurm_conf(S("\\\n  \n#\n"));
	T_INTEQ(json_array_size(e), 0, "conf: only blanks and comments");
	json_decref(e);
}

static void test_yaml(void)
{
	json_t *y = parse_topology_yaml(S(
		"- topology: topo1\n"
		"  cluster_default: true\n"
		"  tree:\n"
		"    switches:\n"
		"      - switch: sw_root\n"
		"        children: s[1-2]\n"
		"      - switch: s1\n"
		"        nodes: gpu[01-02]\n"
		"      - switch: s2\n"
		"        nodes: \"gpu[03-04]\"  # second leaf\n"
		"- topology: topo2\n"
		"  block:\n"
		"    blocks:\n"
		"      - block: b1\n"
		"        nodes: gb[01-18]\n"));
	json_t *nodes = json_object_get(y, "nodes");
	T_INTEQ(json_array_size(nodes), 3, "yaml: nodes entries");
	T_STREQ(json_string_value(json_array_get(nodes, 1)), "gpu[03-04]", "yaml: quotes and comment removed");
	T_INTEQ(json_array_size(json_object_get(y, "switches")), 3, "yaml: switches");
	T_STREQ(json_string_value(json_array_get(json_object_get(y, "blocks"), 0)), "b1", "yaml: block name");
	T_INTEQ(json_array_size(json_object_get(y, "kinds")), 2, "yaml: tree and block sections");
	json_decref(y);
}

static void test_misc(void)
{
	json_t *p = parse_plugstack(S(
		"# spank\n"
		"required /usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so runtime_path=/run/pyxis\n"
		"include /etc/slurm/plugstack.conf.d/*.conf\n"
		"optional\n"));
	T_INTEQ(json_array_size(p), 3, "plugstack: entries");
	T_STREQ(js(json_array_get(p, 0), "path"), "/usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so", "plugstack: path");
	T_STREQ(js(json_array_get(p, 0), "args"), "runtime_path=/run/pyxis", "plugstack: args");
	T_STREQ(js(json_array_get(p, 1), "kind"), "include", "plugstack: include");
	T_OK(json_is_null(json_object_get(json_array_get(p, 2), "path")), "plugstack: kind without path");
	json_decref(p);

	json_t *m = parse_srun_mpi_list(S(
		"MPI plugin types are...\n\tpmix\n\tnone\n\tcray_shasta\n\tpmi2\n"
		"specific pmix plugin versions available: pmix_v4\n"));
	T_INTEQ(json_array_size(m), 5, "mpi list 22.05: plugins and versions");
	T_STREQ(json_string_value(json_array_get(m, 0)), "pmix", "mpi list: pmix");
	T_STREQ(json_string_value(json_array_get(m, 4)), "pmix_v4", "mpi list: pmix_v4");
	json_decref(m);
	m = parse_srun_mpi_list(S("srun: MPI types are...\nsrun: none\nsrun: pmi2\nsrun: pmix_v3\n"));
	T_INTEQ(json_array_size(m), 3, "mpi list, old layout");
	T_STREQ(json_string_value(json_array_get(m, 2)), "pmix_v3", "mpi list old: pmix_v3");
	json_decref(m);

	static const char *const f[] = { "JobID", "State", "Elapsed" };
	json_t *r = parse_pipe_rows(S("12|COMPLETED|00:00:01\n\n13|FAILED\n"), f, 3);
	T_INTEQ(json_array_size(r), 2, "pipe rows: blank line skipped");
	T_STREQ(js(json_array_get(r, 1), "State"), "FAILED", "pipe rows: field");
	T_OK(json_is_null(json_object_get(json_array_get(r, 1), "Elapsed")), "pipe rows: missing column null");
	json_decref(r);
}

int main(void)
{
	test_config();
	test_nodes();
	test_node_line();
	test_conf();
	test_yaml();
	test_misc();
	return t_done();
}
