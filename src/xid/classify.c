/* Xid/SXid classification; the rules are listed in classify.h. */
#include "xid/classify.h"
#include "core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UUIDS 256

struct uuid_map {
	char key[32], uuid[64];
};

struct xid_classifier {
	const struct xid_catalog *cat;
	const struct xid_classify_opts *opts;
	struct xid_assessment *a;
	size_t cap;
	struct uuid_map *uuids;
	size_t nuuids;
};

static enum xid_action amax(enum xid_action a, enum xid_action b)
{
	return a > b ? a : b;
}

struct xid_classifier *xid_classifier_new(const struct xid_catalog *cat,
					  const struct xid_classify_opts *opts)
{
	struct xid_classifier *c = xcalloc(1, sizeof(*c));
	c->cat = cat;
	c->opts = opts;
	c->a = xcalloc(1, sizeof(*c->a));
	c->a->catalog_date = xstrdup(cat && xid_catalog_date(cat) ? xid_catalog_date(cat) : "");
	c->a->reason = "";
	return c;
}

static struct xid_hit *hit_get(struct xid_classifier *c, int code, int sxid, const char *dev)
{
	struct xid_assessment *a = c->a;
	for (size_t i = 0; i < a->nhits; i++) {
		struct xid_hit *h = &a->hits[i];
		if (h->code == code && h->sxid == sxid && !strcmp(h->dev, dev))
			return h;
	}
	if (a->nhits >= XID_MAX_HITS)
		return NULL;
	if (a->nhits == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		a->hits = xrealloc(a->hits, c->cap * sizeof(*a->hits));
	}
	struct xid_hit *h = &a->hits[a->nhits++];
	memset(h, 0, sizeof(*h));
	h->code = code;
	h->sxid = sxid;
	snprintf(h->dev, sizeof(h->dev), "%s", dev);
	h->rec_worst = h->rec_last = -1;
	h->first_wall = h->last_wall = -1;
	return h;
}

void xid_classifier_add(struct xid_classifier *c, const struct kmsg_event *ev)
{
	char key[32];
	struct xid_hit *h;

	if (!c || !ev)
		return;
	switch (ev->kind) {
	case KMSG_GPU_UUID:
		kmsg_gpu_key(ev->pci, key, sizeof(key));
		for (size_t i = 0; i < c->nuuids; i++)
			if (!strcmp(c->uuids[i].key, key)) {
				snprintf(c->uuids[i].uuid, sizeof(c->uuids[i].uuid), "%s", ev->uuid);
				return;
			}
		if (c->nuuids < MAX_UUIDS) {
			if (!c->uuids)
				c->uuids = xcalloc(MAX_UUIDS, sizeof(*c->uuids));
			snprintf(c->uuids[c->nuuids].key, sizeof(key), "%s", key);
			snprintf(c->uuids[c->nuuids].uuid, sizeof(c->uuids[0].uuid), "%s", ev->uuid);
			c->nuuids++;
		}
		return;
	case KMSG_SXID_COMPANION:
		/* repeats the SXid line's code; counting it would double it */
		c->a->companions++;
		return;
	case KMSG_XID:
	case KMSG_FALLEN_OFF_BUS:
		kmsg_gpu_key(ev->pci, key, sizeof(key));
		h = hit_get(c, ev->kind == KMSG_XID ? ev->code : 79, 0, key);
		break;
	case KMSG_SXID:
		h = hit_get(c, ev->code, 1, ev->pci);
		break;
	case KMSG_NONE:
	default:
		return;
	}
	c->a->events++;
	if (!h) {
		c->a->dropped++;
		return;
	}
	if (ev->kind == KMSG_FALLEN_OFF_BUS)
		h->implied++;
	else
		h->count++;
	if (ev->rst == 1)
		h->rst = 1;
	if (ev->drst == 1)
		h->drst = 1;
	if (ev->fatal == 1)
		h->fatal++;
	else if (ev->fatal == 0)
		h->nonfatal++;
	if (ev->rec_to >= 0) {
		if (h->rec_worst < 0 || ev->rec_to > h->rec_worst)
			h->rec_worst = ev->rec_to;
		h->rec_last = ev->rec_to;
	}
	if (ev->has_wall) {
		if (h->first_wall < 0 || ev->wall < h->first_wall)
			h->first_wall = ev->wall;
		if (ev->wall > h->last_wall)
			h->last_wall = ev->wall;
	}
}

/* ---- rules ---- */

static const char *const recovery_names[] = {
	"None", "GPU Reset Required", "Node Reboot Required", "Drain P2P", "Drain and Reset",
};

static int recovery_action(int v, enum xid_action *out)
{
	static const enum xid_action map[] = {
		XA_NONE, XA_RESET_GPU, XA_REBOOT, XA_DRAIN_AND_RESET, XA_DRAIN_AND_RESET,
	};
	if (v < 0 || v > 4)
		return -1;
	*out = map[v];
	return 0;
}

static struct xid_hit *gpu_hit(struct xid_assessment *a, int code, const char *dev)
{
	for (size_t i = 0; i < a->nhits; i++)
		if (!a->hits[i].sxid && a->hits[i].code == code && !strcmp(a->hits[i].dev, dev))
			return &a->hits[i];
	return NULL;
}

/* What Xid 154 on this GPU asked for, worst over the period; -1 if none. */
static int gpu_recovery(struct xid_assessment *a, const char *dev, enum xid_action *out)
{
	struct xid_hit *h = gpu_hit(a, 154, dev);
	if (!h || h->rec_worst < 0)
		return -1;
	if (recovery_action(h->rec_worst, out) < 0)
		*out = XA_CONTACT_SUPPORT;
	return 0;
}

/* Some Xid other than `code` and 154 anywhere in the set; its code. */
static int other_xid(struct xid_assessment *a, int code)
{
	for (size_t i = 0; i < a->nhits; i++)
		if (!a->hits[i].sxid && a->hits[i].code != code && a->hits[i].code != 154)
			return a->hits[i].code;
	return 0;
}

/* Xid 48, 171, 172: uncorrectable ECC, worse with row remapping beside it. */
static void xid_ecc(struct xid_assessment *a, struct xid_hit *h)
{
	if (gpu_hit(a, 63, h->dev) || gpu_hit(a, 64, h->dev)) {
		h->action = amax(h->action, XA_DRAIN_AND_RESET);
		h->reason = xasprintf("uncorrectable ECC error with row remapping (Xid 63/64) "
				      "on the same GPU: drain, then reset (WORKFLOW_XID_48)");
	} else {
		h->action = amax(h->action, XA_RESET_GPU);
		h->reason = xasprintf("uncorrectable ECC error without Xid 63/64: reset the GPU "
				      "(WORKFLOW_XID_48, solo)");
	}
}

/* Xid 94: contained memory error; the driver's RST/D-RST say what it needs. */
static void xid_contained(struct xid_hit *h, const struct xid_info *x)
{
	if (h->drst) {
		h->action = XA_DRAIN_AND_RESET;
		h->reason = xasprintf("contained memory error, driver asks for drain and reset "
				      "(D-RST: Yes)");
	} else if (h->rst) {
		h->action = XA_RESET_GPU;
		h->reason = xasprintf("contained memory error, driver asks for a GPU reset (RST: Yes)");
	} else {
		h->reason = xasprintf("contained memory error: only the affected application "
				      "restarts (%s)", x->immediate);
	}
}

/* Xid 95: uncontained memory error. */
static void xid_uncontained(struct xid_hit *h)
{
	if (h->drst) {
		h->action = amax(h->action, XA_DRAIN_AND_RESET);
		h->reason = xasprintf("uncontained memory error, driver asks for drain and reset "
				      "(D-RST: Yes)");
	} else {
		h->action = amax(h->action, XA_RESET_GPU);
		h->reason = xasprintf("uncontained memory error: reset the GPU before new work");
	}
}

/* Xid 79 (or the driver's fallen-off-the-bus notice). */
static void xid_off_bus(struct xid_hit *h, const struct xid_info *x)
{
	h->action = amax(h->action, XA_REBOOT);
	if (h->implied && !h->count)
		h->reason = xasprintf("GPU has fallen off the bus (driver notice, no Xid line): "
				      "reboot the node");
	else
		h->reason = xasprintf("GPU has fallen off the bus: reboot the node (%s)",
				      x->immediate);
}

/* Xid 119, 120: GSP; Xid 154 on the same GPU may ask for more. */
static void xid_gsp(struct xid_assessment *a, struct xid_hit *h)
{
	enum xid_action r;
	if (gpu_recovery(a, h->dev, &r) == 0 && r > h->action) {
		h->action = r;
		h->reason = xasprintf("%s, and Xid 154 on this GPU asks for %s",
				      h->code == 119 ? "GSP RPC timeout" : "GSP error",
				      xid_action_name(r));
	} else {
		h->reason = xasprintf("%s: reset the GPU (power-cycle if it persists)",
				      h->code == 119 ? "GSP RPC timeout" : "GSP error");
	}
}

/* Xid 154: the driver's recovery action, worst over the period. */
static void xid_recovery(struct xid_hit *h)
{
	enum xid_action r;
	if (h->rec_worst < 0) {
		h->reason = xasprintf("recovery action change without a readable target value");
	} else if (recovery_action(h->rec_worst, &r) < 0) {
		h->action = XA_CONTACT_SUPPORT;
		h->reason = xasprintf("recovery action changed to unknown value 0x%x",
				      (unsigned)h->rec_worst);
	} else {
		h->action = r;
		if (h->rec_last >= 0 && h->rec_last != h->rec_worst)
			h->reason = xasprintf("driver recovery action went to 0x%x (%s); latest 0x%x",
					      (unsigned)h->rec_worst, recovery_names[h->rec_worst],
					      (unsigned)h->rec_last);
		else
			h->reason = xasprintf("driver recovery action went to 0x%x (%s)",
					      (unsigned)h->rec_worst, recovery_names[h->rec_worst]);
	}
}

/* Xid 45: preemptive cleanup, which follows another Xid when there is one. */
static void xid_cleanup(struct xid_assessment *a, struct xid_hit *h)
{
	int o;
	if ((o = other_xid(a, 45))) {
		h->action = XA_NONE;
		h->reason = xasprintf("preemptive cleanup alongside Xid %d: follow that Xid "
				      "(WORKFLOW_XID_45, not solo)", o);
	} else {
		h->reason = xasprintf("preemptive channel teardown seen alone: restart the "
				      "application (WORKFLOW_XID_45, solo)");
	}
}

/* Xid 13, 31, 43: application faults; the GPU stays in service. */
static void xid_app_fault(struct xid_hit *h, const struct xid_info *x)
{
	if (h->action > XA_RESTART_APP)
		h->action = XA_RESTART_APP;
	if (h->count > 1)
		h->reason = xasprintf("%s, %d times on this GPU: if one app repeats it, check the "
				      "app; if it repeats across apps, run DCGM diagnostics (%s)",
				      x->description, h->count,
				      x->investigatory[0] ? x->investigatory : "investigate");
	else
		h->reason = xasprintf("%s: application fault, the GPU stays in service",
				      x->description);
}

/* Xid 74, 144-150: NVLink, by whether the driver called it fatal. */
static void xid_nvlink(struct xid_hit *h, const struct xid_info *x)
{
	if (h->fatal) {
		h->reason = xasprintf("fatal NVLink error (%s): reset the GPU", x->immediate);
	} else if (h->nonfatal) {
		h->action = XA_NONE;
		h->reason = xasprintf("non-fatal NVLink error: no action; decode the registers "
				      "if it repeats (%s)", x->immediate);
	} else {
		h->reason = xasprintf("NVLink error, fatality not stated: reset the GPU to clear "
				      "(%s)", x->immediate);
	}
}

/* Xid 159: matters only with UVM/vGPU in use. */
static void xid_uvm(const struct xid_classifier *c, struct xid_hit *h, const struct xid_info *x)
{
	if (c->opts && c->opts->uvm_in_use) {
		h->action = amax(h->action, XA_RESET_GPU);
		h->reason = xasprintf("%s with UVM/vGPU in use: reset the GPU (CHECK_UVM)",
				      x->description);
	} else {
		h->reason = xasprintf("%s, no UVM/vGPU in use: ignore (CHECK_UVM)", x->description);
	}
}

static void rule_xid(struct xid_classifier *c, struct xid_hit *h)
{
	struct xid_assessment *a = c->a;
	const struct xid_info *x = xid_catalog_lookup(c->cat, h->code);

	if (!x) {
		h->action = XA_CONTACT_SUPPORT;
		h->reason = xasprintf("Xid %d is not in the catalog (revision %s)", h->code,
				      a->catalog_date[0] ? a->catalog_date : "none loaded");
		return;
	}
	h->action = x->action;
	switch (h->code) {
	case 48:
	case 171:
	case 172: xid_ecc(a, h); return;
	case 94: xid_contained(h, x); return;
	case 95: xid_uncontained(h); return;
	case 79: xid_off_bus(h, x); return;
	case 119:
	case 120: xid_gsp(a, h); return;
	case 154: xid_recovery(h); return;
	case 45: xid_cleanup(a, h); return;
	case 13:
	case 31:
	case 43: xid_app_fault(h, x); return;
	case 74:
	case 144: case 145: case 146: case 147: case 148: case 149: case 150: xid_nvlink(h, x); return;
	case 159: xid_uvm(c, h, x); return;
	default:
		break;
	}
	if (x->immediate[0])
		h->reason = xasprintf("%s: catalog bucket %s", x->description, x->immediate);
	else
		h->reason = xasprintf("%s: %s", x->description, x->action_note ? x->action_note : "");
}

static void rule_sxid(struct xid_classifier *c, struct xid_hit *h)
{
	struct sxid_info si;
	int known = xid_catalog_sxid(c->cat, h->code, &si) == 0;
	const char *what = si.notable ? si.name : si.unit ? si.unit : "unknown unit";
	int fatal = h->fatal ? 1 : h->nonfatal ? 0 : (si.notable && si.fatal) ? 1 : -1;

	(void)known;
	if (fatal == 1 && si.always_fatal) {
		h->action = XA_REBOOT;
		h->reason = xasprintf("always-fatal SXid (%s): the fabric must be reset, reboot the host",
				      what);
	} else if (fatal == 1 && si.notable) {
		h->action = si.action;
		h->reason = xasprintf("fatal SXid (%s, %s)", what, si.bucket);
	} else if (fatal == 1) {
		h->action = XA_RESET_GPU;
		h->reason = xasprintf("fatal SXid (%s): reset the GPUs behind the link", what);
	} else if (fatal == 0) {
		h->action = XA_NONE;
		h->reason = xasprintf("non-fatal SXid (%s)", what);
	} else {
		h->action = XA_NONE;
		h->reason = xasprintf("SXid (%s) without a fatality word: no action", what);
	}
}

static void apply_override(struct xid_classifier *c, struct xid_hit *h)
{
	char key[16];
	enum xid_action a;
	json_t *v;

	if (!c->opts || !json_is_object(c->opts->overrides))
		return;
	snprintf(key, sizeof(key), "%d", h->code);
	v = json_object_get(c->opts->overrides, key);
	if (!json_is_string(v) || xid_action_parse(json_string_value(v), &a) < 0)
		return;
	if (a == h->action)
		return;
	char *r = xasprintf("%s; policy override: %s instead of %s", h->reason,
			    xid_action_name(a), xid_action_name(h->action));
	free(h->reason);
	h->reason = r;
	h->action = a;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_sum(const void *a, const void *b)
{
	const struct xid_code_sum *x = a, *y = b;
	return (x->code > y->code) - (x->code < y->code);
}

static void summarize(struct xid_classifier *c, int sxid, struct xid_code_sum **out, size_t *nout)
{
	struct xid_assessment *a = c->a;
	struct xid_code_sum *s = NULL;
	size_t n = 0;

	for (size_t i = 0; i < a->nhits; i++) {
		struct xid_hit *h = &a->hits[i];
		struct xid_code_sum *e = NULL;
		if (h->sxid != sxid)
			continue;
		for (size_t j = 0; j < n; j++)
			if (s[j].code == h->code)
				e = &s[j];
		if (!e) {
			s = xrealloc(s, (n + 1) * sizeof(*s));
			e = &s[n++];
			memset(e, 0, sizeof(*e));
			e->code = h->code;
			e->sxid = sxid;
			e->name = "";
			e->reason = h->reason;
			e->action = h->action;
			e->devs = xcalloc(a->nhits, sizeof(*e->devs));
			if (!sxid) {
				const struct xid_info *x = xid_catalog_lookup(c->cat, h->code);
				if (x)
					e->name = x->mnemonic;
			} else {
				struct sxid_info si;
				if (xid_catalog_sxid(c->cat, h->code, &si) == 0)
					e->name = si.notable ? si.name : si.unit;
			}
		}
		e->count += h->count;
		e->implied += h->implied;
		if (h->action > e->action) {
			e->action = h->action;
			e->reason = h->reason;
		}
		if (h->dev[0])
			e->devs[e->ndevs++] = h->dev;
	}
	for (size_t j = 0; j < n; j++)
		qsort(s[j].devs, s[j].ndevs, sizeof(*s[j].devs), cmp_str);
	if (n)
		qsort(s, n, sizeof(*s), cmp_sum);
	*out = s;
	*nout = n;
}

struct xid_assessment *xid_classifier_finish(struct xid_classifier *c)
{
	struct xid_assessment *a;

	if (!c)
		return NULL;
	a = c->a;
	for (size_t i = 0; i < a->nhits; i++) {
		struct xid_hit *h = &a->hits[i];
		if (h->sxid) {
			rule_sxid(c, h);
		} else {
			rule_xid(c, h);
			for (size_t j = 0; j < c->nuuids; j++)
				if (!strcmp(c->uuids[j].key, h->dev))
					snprintf(h->uuid, sizeof(h->uuid), "%s", c->uuids[j].uuid);
		}
		apply_override(c, h);
	}
	summarize(c, 0, &a->xids, &a->nxids);
	summarize(c, 1, &a->sxids, &a->nsxids);
	/* Xids before SXids and lower codes first on ties: a GPU's own report
	 * explains a switch's better than the reverse. */
	for (size_t i = 0; i < a->nxids + a->nsxids; i++) {
		struct xid_code_sum *s = i < a->nxids ? &a->xids[i] : &a->sxids[i - a->nxids];
		if (!a->worst_code || s->action > a->action) {
			a->action = s->action;
			a->worst_code = s->code;
			a->worst_sxid = s->sxid;
			a->reason = s->reason;
		}
	}
	free(c->uuids);
	free(c);
	return a;
}

struct xid_assessment *xid_classify(const struct xid_catalog *cat, const struct kmsg_event *ev,
				    size_t n, const struct xid_classify_opts *opts)
{
	struct xid_classifier *c = xid_classifier_new(cat, opts);
	for (size_t i = 0; ev && i < n; i++)
		xid_classifier_add(c, &ev[i]);
	return xid_classifier_finish(c);
}

/* ---- output ---- */

static json_t *str_array(const char **v, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_string(v[i]));
	return arr;
}

static json_t *sum_json(const struct xid_code_sum *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "code", json_integer(s->code));
	json_object_set_new(o, s->sxid ? "name" : "mnemonic", json_string(s->name));
	json_object_set_new(o, "count", json_integer(s->count));
	if (s->implied)
		json_object_set_new(o, "implied", json_integer(s->implied));
	json_object_set_new(o, s->sxid ? "switches" : "gpus", str_array(s->devs, s->ndevs));
	json_object_set_new(o, "action", json_string(xid_action_name(s->action)));
	json_object_set_new(o, "reason", json_string(s->reason));
	return o;
}

/* One entry per device: its worst action and the codes it logged. */
static json_t *devices_json(const struct xid_assessment *a, int sxid)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < a->nhits; i++) {
		const struct xid_hit *h = &a->hits[i];
		size_t j;
		if (h->sxid != sxid || !h->dev[0])
			continue;
		for (j = 0; j < i; j++)
			if (a->hits[j].sxid == sxid && !strcmp(a->hits[j].dev, h->dev))
				break;
		if (j < i)
			continue;	/* device already emitted */
		const struct xid_hit *worst = h;
		json_t *codes = json_array();
		for (j = i; j < a->nhits; j++) {
			const struct xid_hit *k = &a->hits[j];
			if (k->sxid != sxid || strcmp(k->dev, h->dev))
				continue;
			json_array_append_new(codes, json_integer(k->code));
			if (k->action > worst->action)
				worst = k;
		}
		json_t *o = json_object();
		json_object_set_new(o, "pci", json_string(h->dev));
		if (h->uuid[0])
			json_object_set_new(o, "uuid", json_string(h->uuid));
		json_object_set_new(o, "action", json_string(xid_action_name(worst->action)));
		json_object_set_new(o, "worst_code", json_integer(worst->code));
		json_object_set_new(o, sxid ? "sxids" : "xids", codes);
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *xid_assessment_json(const struct xid_assessment *a)
{
	json_t *o = json_object(), *arr;

	if (!a)
		return o;
	json_object_set_new(o, "events", json_integer((json_int_t)a->events));
	if (a->companions)
		json_object_set_new(o, "companions", json_integer((json_int_t)a->companions));
	if (a->dropped)
		json_object_set_new(o, "dropped", json_integer((json_int_t)a->dropped));
	json_object_set_new(o, "catalog_date", json_string(a->catalog_date));
	json_object_set_new(o, "action", json_string(xid_action_name(a->action)));
	json_object_set_new(o, "worst_code", a->worst_code ? json_integer(a->worst_code) : json_null());
	if (a->worst_code && a->worst_sxid)
		json_object_set_new(o, "worst_is_sxid", json_true());
	json_object_set_new(o, "reason", json_string(a->reason));
	arr = json_array();
	for (size_t i = 0; i < a->nxids; i++)
		json_array_append_new(arr, sum_json(&a->xids[i]));
	json_object_set_new(o, "xids", arr);
	arr = json_array();
	for (size_t i = 0; i < a->nsxids; i++)
		json_array_append_new(arr, sum_json(&a->sxids[i]));
	json_object_set_new(o, "sxids", arr);
	json_object_set_new(o, "gpus", devices_json(a, 0));
	json_object_set_new(o, "switches", devices_json(a, 1));
	return o;
}

void xid_assessment_free(struct xid_assessment *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nhits; i++)
		free(a->hits[i].reason);
	for (size_t i = 0; i < a->nxids; i++)
		free(a->xids[i].devs);
	for (size_t i = 0; i < a->nsxids; i++)
		free(a->sxids[i].devs);
	free(a->hits);
	free(a->xids);
	free(a->sxids);
	free(a->catalog_date);
	free(a);
}

int xid_overrides_check(json_t *overrides, char **err)
{
	const char *k;
	json_t *v;

	if (err)
		*err = NULL;
	if (!overrides || json_is_null(overrides))
		return 0;
	if (!json_is_object(overrides)) {
		if (err)
			*err = xstrdup("xid overrides: must be an object of code -> action");
		return -1;
	}
	json_object_foreach(overrides, k, v) {
		enum xid_action a;
		char *end;
		long code = strtol(k, &end, 10);
		if (!*k || *end || code < 1 || code > 99999) {
			if (err)
				*err = xasprintf("xid overrides: key '%.20s' is not a code", k);
			return -1;
		}
		if (!json_is_string(v) || xid_action_parse(json_string_value(v), &a) < 0) {
			if (err)
				*err = xasprintf("xid overrides.%s: not one of none, restart_app, "
						 "reset_gpu, drain_and_reset, reboot, contact_support", k);
			return -1;
		}
	}
	return 0;
}
