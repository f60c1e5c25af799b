/* The fabric parsers (parse/fabric.h) against text shaped like the kernel's
 * and the tools' own output: sysfs P_Keys, /proc/net/tcp{,6} (kernel
 * net/ipv4/tcp_ipv4.c get_tcp4_sock / tcp6 format), nvidia-smi's fabric.*
 * query, sminfo (infiniband-diags sminfo.c printf), opensm.conf and the IMEX
 * nodes_config.cfg. */
#include "parse/fabric.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

static const char tcp4[] =
"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
"   0: 00000000:24B8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 41235 1 0000000000000000 100 0 0 10 0\n"
"   1: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000   113        0 39812 1 0000000000000000 100 0 0 10 0\n"
"   2: 0B00000A:238C 00000000:0000 0A 00000000:00000000 00:00000000 00000000    65        0 40117 1 0000000000000000 100 0 0 10 0\n"
"   3: 0B00000A:0016 1400000A:D3A2 01 00000000:00000000 02:0009A2C1 00000000     0        0 52311 4 0000000000000000 20 4 30 10 -1\n";

static const char tcp6[] =
"  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
"   0: 00000000000000000000000000000000:0BB8 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000   472        0 44120 1 0000000000000000 100 0 0 10 0\n"
"   1: 00000000000000000000000001000000:24B8 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 44121 1 0000000000000000 100 0 0 10 0\n"
"   2: 0000000000000000FFFF00000100007F:2382 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 44122 1 0000000000000000 100 0 0 10 0\n";

static json_t *get(json_t *a, size_t i, const char *k)
{
	return json_object_get(json_array_get(a, i), k);
}

static void test_pkey(void)
{
	T_INTEQ(fab_parse_pkey("0xffff\n", 7), 0xffff, "default full");
	T_INTEQ(fab_parse_pkey("0x7fff", 6), 0x7fff, "default limited");
	T_INTEQ(fab_parse_pkey("0x8001\n", 7), 0x8001, "tenant full");
	T_INTEQ(fab_parse_pkey("0x0000\n", 7), 0, "empty slot");
	T_INTEQ(fab_parse_pkey("ffff", 4), -1, "no 0x: not sysfs");
	T_INTEQ(fab_parse_pkey("0x1ffff", 7), -1, "more than 16 bits");
	T_INTEQ(fab_parse_pkey("0xzz", 4), -1, "garbage");
	T_INTEQ(fab_parse_pkey("", 0), -1, "empty");
	T_INTEQ(fab_parse_pkey(NULL, 0), -1, "NULL");
}

static void test_tcp(void)
{
	struct parse_count pc;
	json_t *a = fab_parse_proc_net_tcp(tcp4, strlen(tcp4), 0, &pc);
	T_INTEQ(pc.lines, 4, "tcp4: 4 socket lines");
	T_INTEQ(pc.recognised, 4, "tcp4: all recognised");
	T_INTEQ(json_array_size(a), 3, "tcp4: 3 listening");
	T_STREQ(json_string_value(get(a, 0, "addr")), "0.0.0.0", "wildcard address");
	T_INTEQ(json_integer_value(get(a, 0, "port")), 9400, "port 0x24B8");
	T_STREQ(json_string_value(get(a, 0, "scope")), "any", "0.0.0.0 is any");
	T_STREQ(json_string_value(get(a, 1, "addr")), "127.0.0.1", "little-endian word decoded");
	T_STREQ(json_string_value(get(a, 1, "scope")), "loopback", "loopback");
	T_INTEQ(json_integer_value(get(a, 1, "uid")), 113, "uid");
	T_STREQ(json_string_value(get(a, 2, "addr")), "10.0.0.11", "one address");
	T_STREQ(json_string_value(get(a, 2, "scope")), "address", "scope address");
	T_INTEQ(json_integer_value(get(a, 2, "port")), 9100, "node_exporter port");
	json_decref(a);

	a = fab_parse_proc_net_tcp(tcp6, strlen(tcp6), 1, &pc);
	T_INTEQ(json_array_size(a), 3, "tcp6: 3 listening");
	T_STREQ(json_string_value(get(a, 0, "addr")), "::", "v6 wildcard");
	T_STREQ(json_string_value(get(a, 0, "scope")), "any", "v6 any");
	T_INTEQ(json_integer_value(get(a, 0, "port")), 3000, "grafana");
	T_STREQ(json_string_value(get(a, 1, "addr")), "::1", "v6 loopback");
	T_STREQ(json_string_value(get(a, 1, "scope")), "loopback", "::1 loopback");
	T_STREQ(json_string_value(get(a, 2, "addr")), "::ffff:127.0.0.1", "v4-mapped");
	T_STREQ(json_string_value(get(a, 2, "scope")), "loopback", "v4-mapped loopback");
	T_OK(json_is_true(get(a, 2, "ipv6")), "ipv6 flag");
	json_decref(a);

	/* an IPv4 line handed to the IPv6 parser is not the format */
	a = fab_parse_proc_net_tcp(tcp4, strlen(tcp4), 1, &pc);
	T_INTEQ(json_array_size(a), 0, "v4 text as v6: nothing");
	T_INTEQ(pc.recognised, 0, "v4 text as v6: none recognised");
	T_INTEQ(pc.lines, 4, "v4 text as v6: lines still counted");
	json_decref(a);
	a = fab_parse_proc_net_tcp("garbage\n   0: 0000:24D8\n", 22, 0, &pc);
	T_INTEQ(json_array_size(a), 0, "garbage: empty");
	T_INTEQ(pc.recognised, 0, "garbage: none recognised");
	json_decref(a);
	a = fab_parse_proc_net_tcp(NULL, 0, 0, NULL);
	T_OK(json_is_array(a) && json_array_size(a) == 0, "NULL text: empty array");
	json_decref(a);
}

static void test_smi_fabric(void)
{
	static const char gb[] =
		"00000008:01:00.0, Completed, Success, 32766, 7a3c1f0e-52b9-4d61-8e2a-0c9b5d4f3e17\n"
		"00000009:01:00.0, In Progress, N/A, N/A, N/A\n"
		"00000018:01:00.0, [N/A], [N/A], [N/A], [N/A]\r\n"
		"broken line\n";
	json_t *a = fab_parse_smi_fabric(gb, strlen(gb));
	T_INTEQ(json_array_size(a), 3, "three GPU rows, broken line dropped");
	T_STREQ(json_string_value(get(a, 0, "bus_id")), "00000008:01:00.0", "bus id");
	T_STREQ(json_string_value(get(a, 0, "state")), "Completed", "state");
	T_STREQ(json_string_value(get(a, 0, "status")), "Success", "status");
	T_STREQ(json_string_value(get(a, 0, "clique_id")), "32766", "clique");
	T_STREQ(json_string_value(get(a, 0, "cluster_uuid")), "7a3c1f0e-52b9-4d61-8e2a-0c9b5d4f3e17", "cluster uuid");
	T_STREQ(json_string_value(get(a, 1, "state")), "In Progress", "state with a blank");
	T_OK(json_is_null(get(a, 1, "status")), "N/A is null");
	T_OK(json_is_null(get(a, 2, "state")), "[N/A] is null");
	json_decref(a);
}

static void test_sminfo(void)
{
	static const char out[] = "sminfo: sm lid 1 sm guid 0xb83fd20300a4c6f0, activity count 1822464 priority 15 state 3 SMINFO_MASTER\n";
	json_t *o = fab_parse_sminfo(out, strlen(out));
	T_INTEQ(json_integer_value(json_object_get(o, "lid")), 1, "lid");
	T_STREQ(json_string_value(json_object_get(o, "guid")), "0xb83fd20300a4c6f0", "guid");
	T_INTEQ(json_integer_value(json_object_get(o, "activity")), 1822464, "activity");
	T_INTEQ(json_integer_value(json_object_get(o, "priority")), 15, "priority");
	T_INTEQ(json_integer_value(json_object_get(o, "state")), 3, "state");
	T_STREQ(json_string_value(json_object_get(o, "state_name")), "SMINFO_MASTER", "state name");
	json_decref(o);
	o = fab_parse_sminfo("ibwarn: [3021] mad_rpc_open_port: can't open UMAD port ((null):0)\n", 66);
	T_INTEQ(json_object_size(o), 0, "an error line: {}");
	json_decref(o);
}

static void test_opensm_imex(void)
{
	unsigned long long k = 1;
	static const char c1[] = "# SM_Key value of the SM used for SM authentication\nsm_key 0x0000000000000000\n";
	T_OK(fab_parse_opensm_smkey(c1, strlen(c1), &k) && k == 0, "sm_key zero");
	static const char c2[] = "sm_key 0x0000000000000000\nsm_key 0x5a1c0e7d93b24f16\n";
	T_OK(fab_parse_opensm_smkey(c2, strlen(c2), &k) && k == 0x5a1c0e7d93b24f16ULL, "last sm_key wins");
	T_OK(!fab_parse_opensm_smkey("m_key 0x1\n", 10, &k), "no sm_key line");
	T_OK(!fab_parse_opensm_smkey("sm_key banana\n", 14, &k), "not a number");

	static const char nodes[] = "# IMEX domain of rack 7\n10.114.7.11\n10.114.7.12  # tray 2\n\n  10.114.7.13\n";
	json_t *a = fab_parse_imex_nodes(nodes, strlen(nodes));
	T_INTEQ(json_array_size(a), 3, "three nodes");
	T_STREQ(json_string_value(json_array_get(a, 1)), "10.114.7.12", "trailing comment dropped");
	T_STREQ(json_string_value(json_array_get(a, 2)), "10.114.7.13", "indent trimmed");
	json_decref(a);
}

static void test_mlxconfig(void)
{
	static const char q[] =
		"\nDevice #1:\n----------\n\nDevice type:        BlueField3\n"
		"Name:               900-9D3B6-00CV-AA0_Ax\nDevice:             001a:03:00.0\n\n"
		"Configurations:                                          Next Boot\n"
		"        INTERNAL_CPU_RSHIM                          ENABLED(0)      \n";
	char *v = fab_parse_mlxconfig_value(q, strlen(q), "INTERNAL_CPU_RSHIM");
	T_STREQ(v, "ENABLED(0)", "INTERNAL_CPU_RSHIM value");
	free(v);
	static const char mod[] = "Configurations:      Next Boot       New\n*       INTERNAL_CPU_RSHIM     DISABLED(1)\n";
	v = fab_parse_mlxconfig_value(mod, strlen(mod), "INTERNAL_CPU_RSHIM");
	T_OK(v == NULL, "three columns (a set preview) are not a query answer");
	free(v);
	static const char star[] = "*        INTERNAL_CPU_RSHIM                          DISABLED(1)\n";
	v = fab_parse_mlxconfig_value(star + 9, strlen(star) - 9, "INTERNAL_CPU_RSHIM");
	T_STREQ(v, "DISABLED(1)", "value of an indented line");
	free(v);
	static const char starred[] = "        *INTERNAL_CPU_RSHIM                         DISABLED(1)\n";
	v = fab_parse_mlxconfig_value(starred, strlen(starred), "INTERNAL_CPU_RSHIM");
	T_STREQ(v, "DISABLED(1)", "a modified value's '*' is dropped");
	free(v);
	v = fab_parse_mlxconfig_value("-E- Failed to open device\n", 26, "INTERNAL_CPU_RSHIM");
	T_OK(v == NULL, "an error: no value");
}

static void test_prom(void)
{
	/* the Prometheus HTTP API's instant-vector answer (docs: querying/api) */
	static const char up[] =
		"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		"{\"metric\":{\"__name__\":\"up\",\"instance\":\"gpu-001:9400\",\"job\":\"dcgm\"},\"value\":[1764676800.123,\"1\"]},"
		"{\"metric\":{\"__name__\":\"up\",\"instance\":\"gpu-002:9400\",\"job\":\"dcgm\"},\"value\":[1764676800.123,\"1\"]},"
		"{\"metric\":{\"__name__\":\"up\",\"instance\":\"gpu-001:9100\",\"job\":\"node\"},\"value\":[1764676800.123,\"1\"]}]}}";
	json_t *o = fab_parse_prom_query(up, strlen(up));
	T_STREQ(json_string_value(json_object_get(o, "status")), "success", "status");
	T_INTEQ(json_integer_value(json_object_get(o, "series")), 3, "three series");
	T_INTEQ(json_array_size(json_object_get(o, "instances")), 3, "three distinct instances");
	T_INTEQ(json_array_size(json_object_get(o, "jobs")), 2, "two distinct jobs");
	json_decref(o);
	static const char err[] = "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error\"}";
	o = fab_parse_prom_query(err, strlen(err));
	T_STREQ(json_string_value(json_object_get(o, "status")), "error", "error status");
	T_INTEQ(json_integer_value(json_object_get(o, "series")), 0, "no series");
	json_decref(o);
	o = fab_parse_prom_query("<html>login</html>", 18);
	T_OK(json_is_null(json_object_get(o, "status")), "a login page is not the API");
	json_decref(o);
	o = fab_parse_prom_query(NULL, 0);
	T_OK(json_is_object(o), "NULL body: an object");
	json_decref(o);
}

int main(void)
{
	test_pkey();
	test_tcp();
	test_smi_fabric();
	test_sminfo();
	test_opensm_imex();
	test_mlxconfig();
	test_prom();
	return t_done();
}
