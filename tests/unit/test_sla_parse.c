/* cmax sla parsers on recorded shapes of every input format: sacctmgr -P
 * (with and without header, -p trailing bars, host lists, a '|' in a
 * reason), slurmctld.log transitions, kubectl events and nodes, cmax
 * inject / reboot-test timelines, the neutral CSV and JSON; and format
 * detection. Malformed records are listed, never dropped. */
#include "tap.h"
#include "parse/sla_formats.h"
#include "core/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define T(s) sla_time_parse(s, 0)
#define H (3600 * 1000LL)

struct run {
	struct sla_events ev;
	struct sla_parse p;
	char *err;
	int rc;
};

static void run(struct run *r, enum sla_format f, const char *text)
{
	memset(r, 0, sizeof *r);
	sla_parse_init(&r->p, "f", &r->ev, 0);
	r->rc = sla_parse_buffer(f, text, strlen(text), &r->p, &r->err);
}

static void done(struct run *r)
{
	sla_parse_release(&r->p);
	sla_events_free(&r->ev);
	free(r->err);
}

static const char *why(const struct run *r, size_t i)
{
	return json_string_value(json_object_get(json_array_get(r->p.malformed, i), "why"));
}

static const char *msrc(const struct run *r, size_t i)
{
	return json_string_value(json_object_get(json_array_get(r->p.malformed, i), "source"));
}

static void test_sacctmgr(void)
{
	struct run r;
	run(&r, SF_SACCTMGR,
	    "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User\n"
	    "gb|gpu017|2026-11-03T04:12:55|2026-11-03T06:12:55|DOWN*|Not responding|slurm(64030)\n"
	    "gb|gpu[018-019]|2026-11-04T00:00:00|Unknown|IDLE+DRAIN|Xid 79|root(0)\n"
	    "gb||2026-11-01T00:00:00|Unknown||Cluster Registered TRES|\n"
	    "gb|gpu020|2026-11-05T00:00:00|2026-11-05T01:00:00|DRAIN|a|b reason|root(0)\n"
	    "gb|gpu021|yesterday|Unknown|DOWN|x|root(0)\n"
	    "gb|gpu022|2026-11-05T00:00:00\n");
	T_INTEQ(r.rc, 0, "sacctmgr -P with header: read");
	T_INTEQ(r.ev.n, 5, "5 events (a host list of 2, a cluster event)");
	T_STREQ(r.ev.v[0].node, "gpu017", "node");
	T_INTEQ(r.ev.v[0].start, T("2026-11-03T04:12:55Z"), "start");
	T_INTEQ(r.ev.v[0].end - r.ev.v[0].start, 2 * H, "2 h");
	T_STREQ(r.ev.v[0].state, "DOWN*", "state as written");
	T_STREQ(r.ev.v[0].user, "slurm", "user without the uid");
	T_STREQ(r.ev.v[0].cluster, "gb", "cluster");
	T_STREQ(r.ev.v[0].source, "f:2", "source file:line");
	T_STREQ(r.ev.v[2].node, "gpu019", "host list expanded");
	T_INTEQ(r.ev.v[2].end, SLA_OPEN, "Unknown end: open");
	T_STREQ(r.ev.v[3].node, "", "cluster event: no node");
	T_STREQ(r.ev.v[3].reason, "Cluster Registered TRES", "cluster event reason");
	T_STREQ(r.ev.v[4].reason, "a|b reason", "a '|' in the reason joined back");
	T_STREQ(r.ev.v[4].user, "root", "user after a split reason");
	T_INTEQ(json_array_size(r.p.malformed), 2, "two malformed lines listed");
	T_STREQ(msrc(&r, 0), "f:6", "the bad time's line");
	T_OK(strstr(why(&r, 0), "TimeStart 'yesterday'") != NULL, "says why: %s", why(&r, 0));
	T_OK(strstr(why(&r, 1), "3 fields, the header has 7") != NULL, "short line: %s", why(&r, 1));
	done(&r);

	run(&r, SF_SACCTMGR, "gb|gpu017|2026-11-03T04:12:55|2026-11-03T06:12:55|DOWN|Not responding|slurm(64030)\n");
	T_INTEQ(r.rc == 0 && r.ev.n == 1, 1, "-P -n: no header, default columns");
	done(&r);
	run(&r, SF_SACCTMGR,
	    "NodeName|TimeStart|TimeEnd|State|\ngpu1|2026-11-03T00:00:00|2026-11-03T01:00:00|DOWN|\n"
	    "gpu2|2026-11-03T00:00:00|Unknown|DRAIN|\n");
	T_INTEQ(r.rc == 0 && r.ev.n == 2 && json_array_size(r.p.malformed) == 0, 1, "-p: trailing bars, a custom format");
	done(&r);
}

static void test_slurmctld(void)
{
	struct run r;
	run(&r, SF_SLURMCTLD,
	    "[2026-11-12T00:00:00.000] error: Nodes h[001-002] not responding, setting DOWN\n"
	    "[2026-11-12T00:00:00.512] Killing JobId=4242 on failed node h001\n"
	    "[2026-11-12T09:59:59.800] Node h002 now responding\n"
	    "[2026-11-12T10:00:00.000] node h002 returned to service\n"
	    "[2026-11-13T08:00:00.000] update_node: node h003 reason set to: Xid 79\n"
	    "[2026-11-13T08:00:00.000] update_node: node h003 state set to DRAINING\n"
	    "[2026-11-13T09:00:00.000] update_node: node h003 state set to IDLE\n"
	    "[2026-11-14T00:00:00.000] error: Nodes h004 not responding\n"
	    "[2026-11-14T00:01:00.000] Node h004 now responding\n"
	    "2026-11-15T00:00:00+0000 ctl1 slurmctld[812]: error: Setting node h005 state to DRAIN with reason:Low RealMemory\n"
	    "[2026-11-16T00:00:00.000] validate_node_specs: Node h006 unexpectedly rebooted boot_time=1794700000 last response=1794699000\n"
	    "[2026-11-16T00:10:00.000] node h006 returned to service\n"
	    "[2026-11-17T00:00:00.000] node h007 returned to service\n"
	    "Nov 18 00:00:00 ctl1 slurmctld[812]: node h008 returned to service\n"
	    "[2026-11-19T00:00:00.000] sched: Allocate JobId=9 NodeList=h001 #CPUs=224\n");
	T_INTEQ(r.rc, 0, "slurmctld log read");
	/* events are written when they end: h002 DOWN, h003 DRAIN, h004 NR, h006 DOWN, h007 (before the log), then the open ones */
	T_INTEQ(r.ev.n, 7, "7 intervals");
	T_OK(r.ev.n == 7 && !strcmp(r.ev.v[0].node, "h002") && r.ev.v[0].end - r.ev.v[0].start == 10 * H,
	     "h002 DOWN 10 h");
	T_OK(r.ev.n == 7 && !strcmp(r.ev.v[1].node, "h003") && !strcmp(r.ev.v[1].state, "DRAIN") &&
		     !strcmp(r.ev.v[1].reason, "Xid 79") && r.ev.v[1].end - r.ev.v[1].start == H,
	     "h003 DRAIN 1 h with its reason");
	T_OK(r.ev.n == 7 && !strcmp(r.ev.v[2].state, "NOT_RESPONDING") && r.ev.v[2].end - r.ev.v[2].start == 60000,
	     "h004 not responding 1 min");
	T_OK(r.ev.n == 7 && !strcmp(r.ev.v[3].node, "h006") && !strcmp(r.ev.v[3].reason, "Node unexpectedly rebooted"),
	     "h006 unexpectedly rebooted");
	T_OK(r.ev.n == 7 && !strcmp(r.ev.v[4].node, "h007") && r.ev.v[4].start_before_log &&
		     r.ev.v[4].start == T("2026-11-12T00:00:00Z"),
	     "h007 returned without a recorded start: counted from the log's first line");
	T_OK(r.ev.n == 7 && !strcmp(r.ev.v[5].node, "h001") && r.ev.v[5].end == SLA_OPEN, "h001 still down at the end: open");
	T_OK(r.ev.n == 7 && !strcmp(r.ev.v[6].node, "h005") && !strcmp(r.ev.v[6].reason, "Low RealMemory") &&
		     r.ev.v[6].start == T("2026-11-15T00:00:00Z"),
	     "journald line: h005 DRAIN, open");
	T_INTEQ(json_array_size(r.p.malformed), 1, "the syslog line without a year is malformed");
	T_OK(strstr(why(&r, 0), "without a year") != NULL, "says why: %s", why(&r, 0));
	T_INTEQ(r.p.irrelevant, 2, "log noise counted");
	done(&r);
	run(&r, SF_SLURMCTLD,
	    "[2026-11-12T10:00:00.000] error: Nodes h1 not responding, setting DOWN\n"
	    "[2026-11-12T09:00:00.000] node h1 returned to service\n");
	T_INTEQ(r.rc == 0 && r.ev.n == 0, 1, "time going backwards: no interval");
	T_OK(json_array_size(r.p.malformed) == 1 && strstr(why(&r, 0), "time goes backwards"), "listed: %s",
	     json_array_size(r.p.malformed) ? why(&r, 0) : "");
	done(&r);
}

static void test_k8s(void)
{
	struct run r;
	run(&r, SF_K8S_EVENTS,
	    "{\"kind\": \"List\", \"items\": ["
	    "{\"involvedObject\": {\"kind\": \"Node\", \"name\": \"n1\"}, \"reason\": \"NodeReady\", "
	    "\"firstTimestamp\": \"2026-11-05T10:45:00Z\", \"lastTimestamp\": \"2026-11-05T10:45:00Z\"},"
	    "{\"involvedObject\": {\"kind\": \"Node\", \"name\": \"n1\"}, \"reason\": \"NodeNotReady\", "
	    "\"firstTimestamp\": \"2026-11-05T10:00:00Z\", \"lastTimestamp\": \"2026-11-05T10:00:00Z\", \"message\": \"m\"},"
	    "{\"regarding\": {\"kind\": \"Node\", \"name\": \"n2\"}, \"reason\": \"NodeNotSchedulable\", "
	    "\"eventTime\": \"2026-11-06T08:00:00.000000Z\", \"note\": \"cordon\"},"
	    "{\"involvedObject\": {\"kind\": \"Pod\", \"name\": \"p\"}, \"reason\": \"Scheduled\", "
	    "\"firstTimestamp\": \"2026-11-05T10:00:00Z\"},"
	    "{\"involvedObject\": {\"kind\": \"Node\", \"name\": \"n3\"}, \"reason\": \"NodeReady\", "
	    "\"firstTimestamp\": \"2026-11-05T11:00:00Z\"},"
	    "7]}");
	T_INTEQ(r.rc, 0, "events read");
	T_INTEQ(r.ev.n, 2, "sorted by time: n1 NotReady 10:00 .. 10:45, n2 cordoned (open)");
	T_OK(r.ev.n == 2 && !strcmp(r.ev.v[0].state, "NotReady") && r.ev.v[0].end - r.ev.v[0].start == 45 * 60000,
	     "n1 NotReady 45 min");
	T_STREQ(r.ev.n ? r.ev.v[0].source : NULL, "f#/items/1", "source is the NotReady item");
	T_STREQ(r.ev.n ? r.ev.v[0].end_source : NULL, "f#/items/0", "ended by the NodeReady item");
	T_OK(r.ev.n == 2 && !strcmp(r.ev.v[1].state, "Cordoned") && r.ev.v[1].end == SLA_OPEN, "n2 cordoned, open (events.k8s.io shape)");
	T_INTEQ(json_array_size(r.p.malformed), 1, "a non-object item is malformed");
	T_INTEQ(json_array_size(r.p.notes), 1, "n3 ready without a NotReady: a note, not counted");
	done(&r);

	run(&r, SF_K8S_NODES,
	    "{\"kind\": \"Node\", \"metadata\": {\"name\": \"n9\"}, \"spec\": {\"unschedulable\": true}, \"status\": "
	    "{\"conditions\": [{\"type\": \"Ready\", \"status\": \"False\", \"lastTransitionTime\": \"2026-11-30T22:00:00Z\"}]}}");
	T_INTEQ(r.rc == 0 && r.ev.n == 1, 1, "one Node object: NotReady");
	T_INTEQ(r.ev.n ? r.ev.v[0].start : 0, T("2026-11-30T22:00:00Z"), "since lastTransitionTime");
	T_INTEQ(json_array_size(r.p.notes), 1, "cordoned without a time: a note");
	done(&r);
}

static void test_timeline(void)
{
	struct run r;
	run(&r, SF_TIMELINE,
	    "{\"schema\": \"cmax.inject/1\", \"node\": \"n1\", \"scheduler\": \"k8s\", \"fault\": {\"kind\": \"xid\", \"code\": 79},"
	    "\"timeline\": {\"events\": [{\"event\": \"injected\", \"at\": \"2026-11-07T12:00:00.000Z\"},"
	    "{\"event\": \"drained\", \"at\": \"2026-11-07T12:00:06.500Z\"}], \"times\": {\"observed_s\": 300.0}}}");
	T_INTEQ(r.rc == 0 && r.ev.n == 1, 1, "inject without a return: one interval");
	T_STREQ(r.ev.n ? r.ev.v[0].state : NULL, "Cordoned", "k8s isolation is a cordon");
	T_INTEQ(r.ev.n ? r.ev.v[0].end : 0, T("2026-11-07T12:05:00Z"), "counted to the end of observation");
	T_OK(r.ev.n && r.ev.v[0].note && strstr(r.ev.v[0].note, "lower bound"), "said so");
	done(&r);
	run(&r, SF_TIMELINE,
	    "{\"schema\": \"cmax.reboot-test/1\", \"node\": \"n2\", \"scheduler\": \"k8s\", \"events\": ["
	    "{\"event\": \"boot_id_before\", \"epoch_s\": 1794117598.5}, {\"event\": \"cordoned\", \"epoch_s\": 1794117600},"
	    "{\"event\": \"back\", \"epoch_s\": 1794117900}, {\"event\": \"uncordoned\", \"epoch_s\": 1794117960.25}]}");
	T_INTEQ(r.rc == 0 && r.ev.n == 1, 1, "reboot-test on k8s");
	T_INTEQ(r.ev.n ? r.ev.v[0].end - r.ev.v[0].start : 0, 360250, "cordoned .. uncordoned: 360.25 s");
	done(&r);
}

static void test_neutral(void)
{
	struct run r;
	run(&r, SF_CSV,
	    "Node, Start, End, State, Reason, User\n"
	    "n1,2026-11-09T00:00:00Z,2026-11-09T01:00:00Z,DOWN,\"PSU, replaced\",root\n"
	    "\"n2\",2026-11-09T02:00:00+01:00,,,\"two\nlines \"\"q\"\"\",\n"
	    "n3,2026-11-09T02:00:00Z,2026-11-09T01:00:00Z,DOWN,backwards,\n"
	    "n4,\"unterminated\n");
	T_INTEQ(r.rc, 0, "CSV read");
	T_INTEQ(r.ev.n, 2, "two good rows");
	T_STREQ(r.ev.n ? r.ev.v[0].reason : NULL, "PSU, replaced", "a quoted comma");
	T_STREQ(r.ev.n > 1 ? r.ev.v[1].reason : NULL, "two\nlines \"q\"", "a quoted newline and doubled quotes");
	T_STREQ(r.ev.n > 1 ? r.ev.v[1].state : NULL, "DOWN", "an empty state is DOWN");
	T_INTEQ(r.ev.n > 1 ? r.ev.v[1].end : 0, SLA_OPEN, "an empty end is open");
	T_INTEQ(r.ev.n > 1 ? r.ev.v[1].start : 0, T("2026-11-09T01:00:00Z"), "offset applied");
	T_STREQ(r.ev.n > 1 ? r.ev.v[1].source : NULL, "f:3", "the record's first line");
	T_INTEQ(json_array_size(r.p.malformed), 2, "backwards and unterminated listed");
	T_STREQ(msrc(&r, 0), "f:5", "line numbers count the quoted newline");
	done(&r);
	run(&r, SF_JSON, "[{\"node\": \"n1\", \"start\": \"2026-11-01T00:00:00Z\", \"end\": \"2026-11-01T00:30:00Z\"}, "
			 "{\"node\": \"n2\", \"start\": \"2026-11-01T00:00:00Z\", \"state\": 5}, {\"start\": \"2026-11-01\"}]");
	T_INTEQ(r.rc == 0 && r.ev.n == 1, 1, "JSON: a bare array");
	T_INTEQ(json_array_size(r.p.malformed), 2, "a number for a state and a missing node listed");
	T_STREQ(msrc(&r, 1), "f#/2", "JSON pointer source");
	done(&r);
}

/* Whole inputs refused, each with a one-line reason that says what to fix. */
static void test_refused(void)
{
	static const struct {
		enum sla_format f;
		const char *text, *says, *what;
	} cases[] = {
		{ SF_SACCTMGR,
		  "   Cluster        NodeName           TimeStart             TimeEnd\n"
		  "---------- --------------- ------------------- -------------------\n",
		  "-P", "table output refused with the fix" },
		{ SF_SACCTMGR, "Cluster|TimeStart|State\n", "NodeName, TimeStart and TimeEnd", "header without NodeName" },
		{ SF_SACCTMGR, "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User\na|b|c|d|e|f|g\n", "no line could be read",
		  "nothing readable: refused" },
		{ SF_SLURMCTLD, "hello\nworld\n", "no line has a slurmctld time stamp", "not a log" },
		{ SF_K8S_NODES, "{\"kind\": \"Pod\"}", "", "not nodes: refused" },
		{ SF_TIMELINE, "{\"schema\": \"cmax.inject/1\", \"dry_run\": true, \"node\": \"n1\"}", "dry run",
		  "a dry run has no timeline" },
		{ SF_CSV, "host,when\nx,y\n", "node, start and end", "a header without node/start/end" },
		{ SF_JSON, "{\"schema\": \"cmax.sla-events/2\", \"events\": []}", "cmax.sla-events/1",
		  "another schema version refused" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct run r;
		run(&r, cases[i].f, cases[i].text);
		T_OK(r.rc < 0 && r.err && strstr(r.err, cases[i].says), "%s: %s", cases[i].what, r.err ? r.err : "");
		done(&r);
	}
}

static void test_detect(void)
{
	struct { const char *text; enum sla_format f; } cases[] = {
		{ "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User\n", SF_SACCTMGR },
		{ "gb|gpu1|2026-11-03T04:12:55|Unknown|DOWN|x|root(0)\n", SF_SACCTMGR },
		{ "[2026-11-12T00:00:00.000] error: Nodes h1 not responding, setting DOWN\n", SF_SLURMCTLD },
		{ "slurmctld: restarted\n2026-11-12T00:00:00+0000 ctl slurmctld[1]: Node h1 now responding\n", SF_SLURMCTLD },
		{ "{\"kind\": \"List\", \"items\": [{\"kind\": \"Event\", \"involvedObject\": {}}]}", SF_K8S_EVENTS },
		{ "{\"kind\": \"NodeList\", \"items\": []}", SF_K8S_NODES },
		{ "{\"kind\": \"List\", \"items\": [{\"status\": {\"conditions\": []}}]}", SF_K8S_NODES },
		{ "{\"schema\": \"cmax.inject/1\"}", SF_TIMELINE },
		{ "{\"schema\": \"cmax.reboot-test/1\"}", SF_TIMELINE },
		{ "node,start,end\n", SF_CSV },
		{ "{\"schema\": \"cmax.sla-events/1\", \"events\": []}", SF_JSON },
		{ "[{\"node\": \"a\", \"start\": \"2026-11-01\"}]", SF_JSON },
		{ "hello world\n", SF_UNKNOWN },
		{ "", SF_UNKNOWN },
		{ "{\"a\": 1}", SF_UNKNOWN },
		{ "{broken", SF_UNKNOWN },
		/* the table's order decides what both could claim */
		{ "{\"kind\": \"NodeList\", \"items\": [{\"involvedObject\": {}}]}", SF_K8S_NODES },
		{ "{\"schema\": \"cmax.inject/1\", \"kind\": \"EventList\", \"events\": []}", SF_TIMELINE },
		{ "{\"events\": [], \"kind\": \"EventList\"}", SF_JSON },
		{ "nodename,timestart,timeend\n", SF_SACCTMGR },
		{ "node|start|end,x\n", SF_UNKNOWN },
		{ "node,start,end\n[2026-11-12T00:00:00.000] error: Nodes h1 not responding\n", SF_CSV },
		{ "[2026-11-12T00:00:00.000] x\n{\"schema\": \"cmax.inject/1\"}", SF_SLURMCTLD },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *w = NULL;
		enum sla_format f = sla_detect(cases[i].text, strlen(cases[i].text), &w);
		T_OK(f == cases[i].f, "detect %zu: %s (got %s%s%s)", i, sla_format_name(cases[i].f), sla_format_name(f),
		     w ? ": " : "", w ? w : "");
	}
}

/* Every format but auto has its entry in the parser table, under its name. */
static void test_table(void)
{
	for (int i = 0; i < SF__COUNT; i++) {
		enum sla_format f = SF__COUNT;
		T_OK(sla_format_parse(sla_format_names[i], &f) == 0 && f == (enum sla_format)i &&
			     !strcmp(sla_format_name(f), sla_format_names[i]),
		     "format %s: its name and back", sla_format_names[i]);
		if (i == SF_UNKNOWN)
			continue;
		struct run r;
		run(&r, (enum sla_format)i, "");
		T_OK(!r.err || !strstr(r.err, "no format"), "format %s: a parser in the table", sla_format_names[i]);
		done(&r);
	}
	T_OK(sla_format_names[SF__COUNT] == NULL, "the names end with NULL (--format's choices)");
	struct run r;
	run(&r, SF_UNKNOWN, "x");
	T_OK(r.rc < 0 && r.err && !strcmp(r.err, "no format"), "auto is not a parser");
	done(&r);
}

/* Times no real cluster's record holds: listed as malformed by every format, never counted. */
static void test_insane(void)
{
	T_OK(!sla_time_insane(SLA_SANE_FROM) && sla_time_insane(SLA_SANE_FROM - 1) && sla_time_insane(SLA_SANE_TO) &&
		     !sla_time_insane(SLA_SANE_TO - 1) && !sla_time_insane(SLA_OPEN) && !sla_time_insane(SLA_NOTIME),
	     "the range is [2000-01-01, 2100-01-01); open and unknown are not times");
	T_OK(sla_secs_insane(1.0 / 0.0, 0, 10) && sla_secs_insane(-1, 0, 10) && sla_secs_insane(11, 0, 10) &&
		     !sla_secs_insane(10, 0, 10) && !sla_secs_insane(0, 0, 10),
	     "seconds: finite and within the bounds");
	struct run r;
	run(&r, SF_CSV,
	    "node,start,end\n"
	    "a,2026-11-03T00:00:00Z,2026-11-03T01:00:00Z\n"
	    "b,1970-01-01T00:00:00Z,1970-01-01T01:00:00Z\n"
	    "c[1-2],2026-11-03T00:00:00Z,2150-01-01T00:00:00Z\n"
	    "d,2012-01-01T00:00:00Z,2026-11-03T00:00:00Z\n"
	    "e,2099-12-31T23:00:00Z,\n");
	T_INTEQ(r.rc, 0, "read");
	T_OK(r.ev.n == 2 && !strcmp(r.ev.v[0].node, "a") && !strcmp(r.ev.v[1].node, "e"), "only the sane records are events");
	T_INTEQ((long)json_array_size(r.p.malformed), 3, "three malformed, a host list of two nodes listed once");
	T_STREQ(msrc(&r, 1), "f:4", "listed with the record's line");
	T_STREQ(why(&r, 0), "b: start 1970-01-01T00:00:00Z is before 2000-01-01 (a clock that was never set, or a corrupted time): "
			    "malformed, not counted",
		"an unset clock");
	T_STREQ(why(&r, 2), "d: 2012-01-01T00:00:00Z to 2026-11-03T00:00:00Z is longer than ten years: not a record of one outage: "
			    "malformed, not counted",
		"an absurd duration");
	T_INTEQ(r.p.used, 2, "used counts the records that gave events");
	char a[40], b[40];
	sla_time_fmt(r.p.first, a, sizeof a);
	sla_time_fmt(r.p.last, b, sizeof b);
	T_OK(!strcmp(a, "2012-01-01T00:00:00Z") && !strcmp(b, "2099-12-31T23:00:00Z"), "covers: the times in range only (%s %s)", a, b);
	done(&r);
	run(&r, SF_TIMELINE,
	    "{\"schema\":\"cmax.reboot-test/1\",\"node\":\"n\",\"events\":[{\"event\":\"requested\",\"epoch_s\":1e308},"
	    "{\"event\":\"back\",\"epoch_s\":1794100000}]}");
	T_OK(r.rc == 0 && r.ev.n == 0 && json_array_size(r.p.malformed) == 1, "an epoch of 1e308 is malformed, no interval");
	done(&r);
}

int main(void)
{
	test_sacctmgr();
	test_slurmctld();
	test_k8s();
	test_timeline();
	test_neutral();
	test_refused();
	test_detect();
	test_table();
	test_insane();
	return t_done();
}
