/* The shipped Xid catalog (data/xid-catalog.json), its validation, and the
 * classification workflows of classify.h. */
#include "tap.h"
#include "core/strbuf.h"
#include "xid/catalog.h"
#include "xid/classify.h"
#include "xid/kmsg.h"

#include <stdlib.h>
#include <string.h>

static struct xid_catalog *cat;

static void test_load(void)
{
	const char *src = getenv("CMAX_SRCDIR");
	char *path = xasprintf("%s/data/xid-catalog.json", src && *src ? src : ".");
	char *err = NULL;

	cat = xid_catalog_load(path, &err);
	T_OK(cat != NULL, "catalog loads from %s%s%s", path, err ? ": " : "", err ? err : "");
	free(err);
	free(path);
	if (!cat) {
		printf("Bail out! no catalog\n");
		exit(1);
	}
	T_INTEQ(xid_catalog_count(cat), 172, "172 xids");
	int all = 1;
	for (int c = 1; c <= 172; c++)
		if (!xid_catalog_lookup(cat, c))
			all = 0;
	T_OK(all, "codes 1..172 all present");
	T_OK(!xid_catalog_lookup(cat, 0) && !xid_catalog_lookup(cat, 173), "0 and 173 absent");
	T_STREQ(xid_catalog_date(cat), "2025-10-29", "catalog revision date");
	/* regenerating moves this date, so only its shape is pinned */
	T_OK(xid_catalog_generated(cat) && strlen(xid_catalog_generated(cat)) == 10, "generated date");
}

static void check(int code, const char *mnemonic, const char *immediate, const char *action)
{
	const struct xid_info *x = xid_catalog_lookup(cat, code);
	if (!T_OK(x != NULL, "xid %d present", code))
		return;
	T_STREQ(x->mnemonic, mnemonic, "xid %d mnemonic", code);
	T_STREQ(x->immediate, immediate, "xid %d immediate", code);
	T_STREQ(xid_action_name(x->action), action, "xid %d default action", code);
}

static void test_fields(void)
{
	const struct xid_info *x;

	check(13, "ROBUST_CHANNEL_GR_EXCEPTION / ROBUST_CHANNEL_GR_ERROR_SW_NOTIFY", "RESTART_APP",
	      "restart_app");
	check(31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "RESTART_APP", "restart_app");
	check(43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "IGNORE", "none");
	check(45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "WORKFLOW_XID_45", "restart_app");
	check(48, "ROBUST_CHANNEL_GPU_ECC_DBE", "WORKFLOW_XID_48", "reset_gpu");
	check(79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "RESTART_BM", "reboot");
	check(94, "ROBUST_CHANNEL_CONTAINED_ERROR", "RESTART_APP", "restart_app");
	check(95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", "RESET_GPU", "reset_gpu");
	check(119, "GSP_RPC_TIMEOUT", "RESET_GPU", "reset_gpu");
	check(154, "GPU_RECOVERY_ACTION_CHANGED", "XID_154", "none");
	check(172, "UNCORRECTABLE_SRAM_ERROR", "", "reset_gpu");
	check(1, "ROBUST_CHANNEL_FIFO_ERROR_FIFO_METHOD", "CONTACT_SUPPORT", "contact_support");

	x = xid_catalog_lookup(cat, 48);
	T_STREQ(x->xid154, "R565", "48 drives 154 since R565");
	T_STREQ(x->investigatory, "WORKFLOW_XID_48", "48 investigatory");
	T_OK(x->applies[XID_GPU_A100] && x->applies[XID_GPU_GB200], "48 applies to A100..GB200");
	T_OK(x->action_note == NULL, "48 has no action note");
	x = xid_catalog_lookup(cat, 74);
	T_OK(x->applies[XID_GPU_H100] && !x->applies[XID_GPU_B100], "74: H100 yes, B100 no");
	x = xid_catalog_lookup(cat, 79);
	T_STREQ(x->description, "GPU has fallen off the bus", "79 description");
	T_STREQ(x->klass, "PCIe/bus", "79 class");
	x = xid_catalog_lookup(cat, 94);
	T_STREQ(x->investigatory, "IGNORE (sympathetic)", "94 investigatory");
	x = xid_catalog_lookup(cat, 172);
	T_OK(x->action_note && strstr(x->action_note, "48"), "172 note refers to Xid 48");
	T_STREQ(x->investigatory, "", "172 blank investigatory");
	x = xid_catalog_lookup(cat, 167);
	T_STREQ(xid_action_name(x->action), "reboot", "167 PCIe fatal timeout -> reboot");
	for (int c = 162; c <= 172; c++) {
		x = xid_catalog_lookup(cat, c);
		T_OK(x->immediate[0] == 0 && x->action_note && x->action_note[0],
		     "blank bucket %d has an action note", c);
	}

	enum xid_action a;
	T_OK(xid_catalog_bucket_action(cat, "RESTART_VM", &a) == 0 && a == XA_REBOOT, "RESTART_VM -> reboot");
	T_OK(xid_catalog_bucket_action(cat, "NOPE", &a) < 0, "unknown bucket");

	struct sxid_info si;
	T_OK(xid_catalog_sxid(cat, 20034, &si) == 0, "sxid 20034 known");
	T_STREQ(si.unit, "DLPL", "20034 unit");
	T_OK(si.notable && si.fatal && si.action == XA_RESET_GPU, "20034 notable fatal reset_gpu");
	T_STREQ(si.name, "LTSSM Fault Up", "20034 name");
	T_OK(xid_catalog_sxid(cat, 23005, &si) == 0 && si.always_fatal && !si.notable,
	     "NXBAR range always fatal");
	T_OK(xid_catalog_sxid(cat, 12020, &si) == 0 && si.always_fatal, "12020 always fatal");
	T_OK(xid_catalog_sxid(cat, 99999, &si) < 0 && si.unit == NULL, "unknown sxid");
}

static void test_actions(void)
{
	enum xid_action a;
	T_OK(XA_NONE < XA_RESTART_APP && XA_RESTART_APP < XA_RESET_GPU &&
	     XA_RESET_GPU < XA_DRAIN_AND_RESET && XA_DRAIN_AND_RESET < XA_REBOOT &&
	     XA_REBOOT < XA_CONTACT_SUPPORT, "actions ordered by severity");
	for (int i = 0; i < XA_COUNT; i++)
		T_OK(xid_action_parse(xid_action_name((enum xid_action)i), &a) == 0 && (int)a == i,
		     "action %s round-trips", xid_action_name((enum xid_action)i));
	T_OK(xid_action_parse("RESET_GPU", &a) < 0, "bucket names are not actions");
	T_OK(xid_action_parse(NULL, &a) < 0, "NULL action");
	T_STREQ(xid_action_name((enum xid_action)99), "none", "out of range name");
}

#define HEAD "{\"schema\":\"cmax.xid-catalog/1\",\"catalog_date\":\"2025-10-29\"," \
	"\"generated\":\"2026-11-30\",\"sources\":[],\"bucket_actions\":{\"RESET_GPU\":\"reset_gpu\"},"
#define XID1 "{\"code\":1,\"mnemonic\":\"M\",\"description\":\"d\",\"applies\":{\"A100\":true," \
	"\"H100\":true,\"B100\":false,\"GB200\":false},\"immediate\":\"RESET_GPU\",\"investigatory\":\"\"," \
	"\"xid154\":\"\",\"legacy_causes\":null,\"class\":\"c\",\"action\":\"reset_gpu\"}"
#define TAIL ",\"sxid_ranges\":[],\"sxid_notable\":[]}"

static void reject(const char *json, const char *want, const char *what)
{
	char *err = NULL;
	struct xid_catalog *c = xid_catalog_parse(json, strlen(json), &err);
	T_OK(c == NULL, "rejects %s", what);
	T_OK(err && strstr(err, want) && !strchr(err, '\n'), "%s: one-line message '%s' (want '%s')",
	     what, err ? err : "(none)", want);
	xid_catalog_free(c);
	free(err);
}

static void test_reject(void)
{
	char *err = NULL;
	const char *good = HEAD "\"xids\":[" XID1 "]" TAIL;
	struct xid_catalog *c = xid_catalog_parse(good, strlen(good), &err);
	T_OK(c && !err, "minimal catalog accepted%s%s", err ? ": " : "", err ? err : "");
	T_OK(c && xid_catalog_lookup(c, 1) && !xid_catalog_lookup(c, 2), "minimal lookup");
	xid_catalog_free(c);

	reject("{\"schema\":", "invalid JSON", "truncated JSON");
	reject("[]", "top level", "array at top level");
	reject("{\"schema\":\"other/1\"}", "schema", "wrong schema");
	reject(HEAD "\"xids\":[]" TAIL, "xids", "empty xids");
	reject(HEAD "\"xids\":[" XID1 "," XID1 "]" TAIL, "listed twice", "duplicate code");
	reject(HEAD "\"xids\":[{\"code\":1}]" TAIL, "mnemonic", "missing field");
	reject(HEAD "\"xids\":[{\"code\":\"1\"}]" TAIL, "code", "string code");
	reject(HEAD "\"xids\":[{\"code\":-4}]" TAIL, "out of range", "negative code");
	{
		char *j = xasprintf(HEAD "\"xids\":[%s]" TAIL, XID1);
		char *p = strstr(j, "\"action\":\"reset_gpu\"}");
		memcpy(p, "\"action\":\"reboot\"   }", 21);
		reject(j, "disagrees", "action disagreeing with bucket");
		free(j);
		j = xasprintf(HEAD "\"xids\":[%s]" TAIL, XID1);
		p = strstr(j, "\"immediate\":\"RESET_GPU\"");
		memcpy(p, "\"immediate\":\"RESET_XYZ\"", 23);
		reject(j, "not in bucket_actions", "unknown bucket");
		free(j);
		j = xasprintf(HEAD "\"xids\":[%s]" TAIL, XID1);
		p = strstr(j, "\"immediate\":\"RESET_GPU\"");
		memcpy(p, "\"immediate\":\"\"         ", 23);
		reject(j, "action_note", "blank bucket without note");
		free(j);
		j = xasprintf(HEAD "\"xids\":[%s]" TAIL, XID1);
		p = strstr(j, "\"GB200\":false");
		memcpy(p, "\"GB200\":0    ", 13);
		reject(j, "GB200", "non-boolean applies");
		free(j);
	}
	reject("{\"schema\":\"cmax.xid-catalog/1\",\"catalog_date\":\"Oct 2025\",\"generated\":\"2026-11-30\"}",
	       "YYYY-MM-DD", "bad date");
	reject(HEAD "\"xids\":[" XID1 "],\"sxid_ranges\":[{\"first\":5,\"last\":4,\"unit\":\"U\","
	       "\"notes\":\"\"}],\"sxid_notable\":[]}", "before first", "inverted sxid range");
	reject(HEAD "\"xids\":[" XID1 "],\"sxid_ranges\":[],\"sxid_notable\":[{\"code\":7,\"name\":\"n\","
	       "\"bucket\":\"b\",\"fatal\":true,\"action\":\"explode\"}]}", "unknown action",
	       "bad sxid action");
	reject("{\"schema\":\"cmax.xid-catalog/1\",\"schema\":\"x\"}", "invalid JSON", "duplicate key");
	c = xid_catalog_load("/nonexistent/xid.json", &err);
	T_OK(!c && err && strstr(err, "/nonexistent/xid.json"), "missing file names the path");
	free(err);
	c = xid_catalog_parse(NULL, 0, &err);
	T_OK(!c && err, "NULL buffer rejected");
	free(err);
}

/* ---- classification ---- */

static struct xid_assessment *run(const char *log, const struct xid_classify_opts *o);

static int add_cb(const struct kmsg_event *ev, void *arg)
{
	xid_classifier_add(arg, ev);
	return 0;
}

static struct xid_assessment *run(const char *log, const struct xid_classify_opts *o)
{
	struct xid_classifier *c = xid_classifier_new(cat, o);
	kmsg_parse_buffer(log, strlen(log), add_cb, c);
	return xid_classifier_finish(c);
}

static const struct xid_code_sum *sum(const struct xid_assessment *a, int code)
{
	for (size_t i = 0; i < a->nxids; i++)
		if (a->xids[i].code == code)
			return &a->xids[i];
	for (size_t i = 0; i < a->nsxids; i++)
		if (a->sxids[i].code == code)
			return &a->sxids[i];
	return NULL;
}

static const char *act(const struct xid_assessment *a, int code)
{
	const struct xid_code_sum *s = sum(a, code);
	return s ? xid_action_name(s->action) : "(absent)";
}

#define X(pci, code, rest) "NVRM: Xid (PCI:" pci "): " #code ", pid='<unknown>', name=<unknown>, " rest "\n"

static void expect(const char *log, int code, const char *want, const char *overall, const char *what)
{
	struct xid_assessment *a = run(log, NULL);
	T_STREQ(act(a, code), want, "%s: Xid %d -> %s", what, code, want);
	if (overall)
		T_STREQ(xid_action_name(a->action), overall, "%s: overall %s", what, overall);
	xid_assessment_free(a);
}

static void test_classify(void)
{
	const char *dbe = X("0000:5a:00", 48, "An uncorrectable double bit error (DBE)");
	char *log;

	expect(dbe, 48, "reset_gpu", "reset_gpu", "48 alone");
	log = xasprintf("%s%s", dbe, X("0000:5a:00", 63, "Row Remapper: New row marked for remapping"));
	expect(log, 48, "drain_and_reset", "drain_and_reset", "48 with 63 same GPU");
	expect(log, 63, "none", NULL, "63 next to 48");
	free(log);
	log = xasprintf("%s%s", dbe, X("0000:5a:00", 64, "Dynamic Page Retirement: Fatal error"));
	expect(log, 48, "drain_and_reset", NULL, "48 with 64 same GPU");
	expect(log, 64, "reset_gpu", NULL, "64 -> reset_gpu");
	free(log);
	log = xasprintf("%s%s", dbe, X("0000:9b:00", 63, "Row Remapper"));
	expect(log, 48, "reset_gpu", NULL, "48 with 63 on another GPU");
	free(log);
	expect(X("0000:5a:00", 63, "Row Remapper"), 63, "none", "none", "63 alone");
	expect(X("0000:5a:00", 172, "SRAM"), 172, "reset_gpu", NULL, "172 alone follows 48");

	expect("NVRM: Xid (PCI:0000:07:00): 94, pid=7062, Contained: CE User Channel (0x9). RST: No, D-RST: No\n",
	       94, "restart_app", "restart_app", "94 contained");
	expect("NVRM: Xid (PCI:0000:07:00): 94, pid=7062, Contained: x. RST: Yes, D-RST: No\n",
	       94, "reset_gpu", NULL, "94 RST: Yes");
	expect("NVRM: Xid (PCI:0000:07:00): 94, pid=7062, Contained: x. RST: No, D-RST: Yes\n",
	       94, "drain_and_reset", NULL, "94 D-RST: Yes");
	expect("NVRM: Xid (PCI:0000:07:00): 95, pid=7062, Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No\n",
	       95, "reset_gpu", NULL, "95");
	expect("NVRM: Xid (PCI:0000:07:00): 95, pid=7062, Uncontained: x. RST: Yes, D-RST: Yes\n",
	       95, "drain_and_reset", NULL, "95 D-RST: Yes");

	expect(X("0000:5a:00", 79, "GPU has fallen off the bus."), 79, "reboot", "reboot", "79");
	{
		struct xid_assessment *a = run("NVRM: GPU 0000:91:00.0: GPU has fallen off the bus.\n", NULL);
		const struct xid_code_sum *s = sum(a, 79);
		T_OK(s && s->count == 0 && s->implied == 1, "fallen line folds into 79 as implied");
		T_STREQ(xid_action_name(a->action), "reboot", "fallen line -> reboot");
		T_OK(s && s->ndevs == 1 && !strcmp(s->devs[0], "0000:91:00"), "fallen pci keyed like Xid lines");
		T_INTEQ(a->worst_code, 79, "fallen: worst code 79");
		xid_assessment_free(a);
	}

	const char *gsp = X("0000:1b:00", 119, "Timeout after 6s of waiting for RPC response from GPU4 GSP!");
	expect(gsp, 119, "reset_gpu", "reset_gpu", "119 alone");
	log = xasprintf("%s%s", gsp, "NVRM: Xid (PCI:0000:1b:00): 154, GPU recovery action changed "
			"from 0x0 (None) to 0x2 (Node Reboot Required)\n");
	expect(log, 119, "reboot", "reboot", "119 with 154 -> 0x2");
	expect(log, 154, "reboot", NULL, "154 -> 0x2");
	free(log);
	log = xasprintf("%s%s", X("0000:1b:00", 120, "GSP Error"), "NVRM: Xid (PCI:0000:1c:00): 154, GPU "
			"recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)\n");
	expect(log, 120, "reset_gpu", NULL, "120 with 154 on another GPU");
	free(log);
	static const char *const rec[] = { "none", "reset_gpu", "reboot", "drain_and_reset",
					   "drain_and_reset", "contact_support" };
	for (int v = 0; v <= 5; v++) {
		log = xasprintf("NVRM: Xid (PCI:0000:1b:00): 154, GPU recovery action changed from "
				"0x0 (None) to 0x%d (X)\n", v);
		expect(log, 154, rec[v], NULL, "154 target");
		free(log);
	}

	const char *x45 = X("0000:5a:00", 45, "Ch 00000010");
	expect(x45, 45, "restart_app", "restart_app", "45 solo");
	log = xasprintf("%s%s", x45, dbe);
	expect(log, 45, "none", "reset_gpu", "45 with 48");
	free(log);

	expect(X("0000:5a:00", 13, "Graphics SM Warp Exception"), 13, "restart_app", "restart_app", "13");
	log = xasprintf("%s%s%s", X("0000:5a:00", 31, "MMU Fault"), X("0000:5a:00", 31, "MMU Fault"),
			X("0000:5a:00", 31, "MMU Fault"));
	expect(log, 31, "restart_app", "restart_app", "31 repeated never drains");
	free(log);
	expect(X("0000:5a:00", 43, "Ch 00000008"), 43, "none", "none", "43");

	expect("NVRM: Xid (PCI:0000:9b:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 08 (0x004505c6 0x00000000)\n",
	       149, "reset_gpu", NULL, "149 Fatal");
	expect("NVRM: Xid (PCI:0000:9b:00): 145, RLW_REMAP Nonfatal XC0 i0 Link 08 (0x1 0x80000000)\n",
	       145, "none", "none", "145 Nonfatal");
	expect(X("0000:0c:00", 74, "NVLink: fatal error detected on link 4(0x0, 0x0)"), 74, "reset_gpu",
	       NULL, "74 fatal");
	expect(X("0000:0c:00", 74, "NVLink: non-fatal error detected on link 4(0x0)"), 74, "none",
	       NULL, "74 non-fatal");
	expect(X("0000:0c:00", 159, "CHI"), 159, "none", NULL, "159 without UVM");
	{
		struct xid_classify_opts o = { .uvm_in_use = 1 };
		struct xid_assessment *a = run(X("0000:0c:00", 159, "CHI"), &o);
		T_STREQ(act(a, 159), "reset_gpu", "159 with UVM in use");
		xid_assessment_free(a);
	}
	expect(X("0000:0c:00", 200, "future"), 200, "contact_support", "contact_support", "unknown xid");

	/* SXids */
	const char *sx = "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 48 LTSSM Fault Up\n"
			 "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 20034, Severity 1 Engine instance 60 Sub-engine instance 00\n"
			 "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 20034, Data {0x1, 0x2}\n";
	{
		struct xid_assessment *a = run(sx, NULL);
		const struct xid_code_sum *s = sum(a, 20034);
		T_OK(s && s->sxid && s->count == 1, "SXid companions not counted");
		T_INTEQ(a->companions, 2, "two companions");
		T_INTEQ(a->events, 1, "one event");
		T_STREQ(act(a, 20034), "reset_gpu", "20034 fatal -> reset_gpu");
		T_OK(a->worst_sxid && a->worst_code == 20034, "worst is the SXid");
		xid_assessment_free(a);
	}
	expect("nvidia-nvswitch0: SXid (PCI:0000:86:00.0): 12028, Non-fatal, Link 32 egress error\n",
	       12028, "none", "none", "non-fatal SXid");
	expect("nvidia-nvswitch0: SXid (PCI:0000:86:00.0): 23003, Fatal, Link 2 NXBAR\n",
	       23003, "reboot", "reboot", "always-fatal SXid");
	expect("nvidia-nvswitch0: SXid (PCI:0000:86:00.0): 18005, Fatal, Link 2 x\n",
	       18005, "reset_gpu", NULL, "plain fatal SXid");

	/* the real HGX failure: 79 then 20034 on several switches */
	{
		char *l = xasprintf("[100.0] %s[112.0] %s"
				    "[112.1] nvidia-nvswitch5: SXid (PCI:0000:07:00.0): 20034, Fatal, Link 50 LTSSM Fault Up\n"
				    "[100.0] NVRM: GPU at PCI:0000:5a:00: GPU-0f0e0d0c-1111-2222-3333-444455556666\n",
				    X("0000:5a:00", 79, "GPU has fallen off the bus."), sx);
		struct xid_assessment *a = run(l, NULL);
		T_STREQ(xid_action_name(a->action), "reboot", "HGX: reboot");
		T_INTEQ(a->worst_code, 79, "HGX: worst 79");
		T_OK(!a->worst_sxid, "HGX: worst is an Xid");
		const struct xid_code_sum *s = sum(a, 20034);
		T_OK(s && s->count == 2 && s->ndevs == 2, "HGX: 20034 on two switches");
		json_t *j = xid_assessment_json(a);
		T_INTEQ(json_integer_value(json_object_get(j, "events")), 3, "json events");
		T_STREQ(json_string_value(json_object_get(j, "action")), "reboot", "json action");
		T_INTEQ(json_integer_value(json_object_get(j, "worst_code")), 79, "json worst_code");
		json_t *x0 = json_array_get(json_object_get(j, "xids"), 0);
		T_STREQ(json_string_value(json_object_get(x0, "mnemonic")),
			"ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "json mnemonic");
		T_STREQ(json_string_value(json_array_get(json_object_get(x0, "gpus"), 0)), "0000:5a:00",
			"json gpus");
		T_OK(json_string_value(json_object_get(x0, "reason"))[0], "json reason");
		json_t *g0 = json_array_get(json_object_get(j, "gpus"), 0);
		T_STREQ(json_string_value(json_object_get(g0, "uuid")),
			"GPU-0f0e0d0c-1111-2222-3333-444455556666", "json gpu uuid from map line");
		T_INTEQ(json_array_size(json_object_get(j, "switches")), 2, "json two switches");
		char *dump = json_dumps(j, JSON_COMPACT);
		T_OK(dump && strstr(dump, "\"sxids\":[{\"code\":20034"), "json sxids");
		free(dump);
		json_decref(j);
		xid_assessment_free(a);
		free(l);
	}

	/* policy overrides */
	{
		json_t *ov = json_pack("{s:s,s:s}", "79", "drain_and_reset", "13", "bogus");
		struct xid_classify_opts o = { .overrides = ov };
		char *l = xasprintf("%s%s", X("0000:5a:00", 79, "off the bus"), X("0000:5a:00", 13, "x"));
		struct xid_assessment *a = run(l, &o);
		T_STREQ(act(a, 79), "drain_and_reset", "override replaces 79");
		T_OK(strstr(sum(a, 79)->reason, "policy override"), "override in reason");
		T_STREQ(act(a, 13), "restart_app", "bad override ignored");
		char *err = NULL;
		T_OK(xid_overrides_check(ov, &err) < 0 && err && strstr(err, "13"), "override check names key");
		free(err);
		json_t *good = json_pack("{s:s}", "20034", "none");
		T_OK(xid_overrides_check(good, &err) == 0 && !err, "good overrides pass");
		json_t *badkey = json_pack("{s:s}", "x79", "none");
		T_OK(xid_overrides_check(badkey, &err) < 0 && err, "bad key rejected");
		free(err);
		json_decref(good);
		json_decref(badkey);
		json_decref(ov);
		xid_assessment_free(a);
		free(l);
	}

	/* empty input */
	{
		struct xid_assessment *a = run("", NULL);
		T_OK(a->action == XA_NONE && a->worst_code == 0 && a->events == 0, "empty: nothing");
		json_t *j = xid_assessment_json(a);
		T_OK(json_is_null(json_object_get(j, "worst_code")), "empty: worst_code null");
		json_decref(j);
		xid_assessment_free(a);
		a = xid_classify(NULL, NULL, 0, NULL);
		T_OK(a && a->events == 0, "NULL catalog and no events");
		xid_assessment_free(a);
	}
}

int main(void)
{
	test_load();
	test_fields();
	test_actions();
	test_reject();
	test_classify();
	xid_catalog_free(cat);
	return t_done();
}
