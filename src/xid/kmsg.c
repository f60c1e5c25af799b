/* Kernel-log parser for NVIDIA Xid/SXid lines; see kmsg.h for the formats.
 *
 * Everything works on (pointer, end) ranges, never on NUL termination:
 * lines come from files and pipes and may hold NUL bytes or be cut
 * anywhere.  Each scan moves forward only, so a line costs O(length). */
#include "xid/kmsg.h"
#include "core/termsafe.h"
#include "core/timefmt.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int at(const char *p, const char *e, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(e - p) >= n && memcmp(p, lit, n) == 0;
}

static int at_ci(const char *p, const char *e, const char *lit)
{
	size_t n = strlen(lit);
	if ((size_t)(e - p) < n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)p[i]) != tolower((unsigned char)lit[i]))
			return 0;
	return 1;
}

static const char *find(const char *p, const char *e, const char *lit)
{
	if (p >= e)
		return NULL;
	return memmem(p, (size_t)(e - p), lit, strlen(lit));
}

/* Case-insensitive find; only used on the short message tail. */
static const char *find_ci(const char *p, const char *e, const char *lit)
{
	for (; p < e; p++)
		if (at_ci(p, e, lit))
			return p;
	return NULL;
}

static const char *skip_sp(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* Copy as terminal-safe text (core/termsafe.h: controls and invalid UTF-8
 * escaped), cut to fit, trailing blanks dropped, so callers may hand the
 * text to JSON or a terminal unchecked. */
static void copy_clean(char *dst, size_t n, const char *s, const char *e)
{
	ts_copy(dst, n, s, (size_t)(e - s), 0);
	size_t k = strlen(dst);
	while (k > 0 && dst[k - 1] == ' ')
		k--;
	dst[k] = 0;
}

/* Up to 18 decimal digits, so the value cannot overflow. */
static int parse_dec(const char **pp, const char *e, long long *out)
{
	const char *p = *pp;
	long long v = 0;
	int n = 0;
	while (p < e && isdigit((unsigned char)*p) && n < 18) {
		v = v * 10 + (*p - '0');
		p++;
		n++;
	}
	if (!n)
		return -1;
	*pp = p;
	*out = v;
	return 0;
}

/* Optional 0x, then up to 16 hex digits. */
static int parse_hex(const char **pp, const char *e, unsigned long long *out)
{
	const char *p = *pp;
	unsigned long long v = 0;
	int n = 0;
	if (e - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	while (p < e && isxdigit((unsigned char)*p) && n < 16) {
		int c = tolower((unsigned char)*p);
		v = v * 16 + (unsigned)(isdigit(c) ? c - '0' : c - 'a' + 10);
		p++;
		n++;
	}
	if (!n)
		return -1;
	*pp = p;
	*out = v;
	return 0;
}

/* A PCI address as the driver prints it: hex digits, ':' and '.'. */
static const char *parse_pci(const char *p, const char *e, char *out, size_t n)
{
	const char *s = p;
	size_t k = 0;
	while (p < e && (isxdigit((unsigned char)*p) || *p == ':' || *p == '.') && p - s < 40) {
		if (k + 1 < n)
			out[k++] = (char)tolower((unsigned char)*p);
		p++;
	}
	out[k] = 0;
	return p;
}

/* Hex words "(0x1 0x2, 0x3)" or "{0x1, 0x2}" starting after the opener. */
static void parse_words(const char *p, const char *e, char close, struct kmsg_event *ev)
{
	while (p < e && *p != close) {
		unsigned long long w;
		if (*p == ' ' || *p == ',' || *p == '\t') {
			p++;
			continue;
		}
		if (parse_hex(&p, e, &w) < 0)
			return;
		if (ev->nwords < KMSG_MAX_WORDS)
			ev->words[ev->nwords++] = w;
		/* more than 16 digits in one word: skip the rest of it */
		while (p < e && isxdigit((unsigned char)*p))
			p++;
	}
}

/* ---- timestamps ---- */

static int fixed_dec(const char *p, const char *e, int width, int *out)
{
	int v = 0;
	if (e - p < width)
		return -1;
	for (int i = 0; i < width; i++) {
		if (!isdigit((unsigned char)p[i]))
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	*out = v;
	return 0;
}

/* YYYY-MM-DD[T ]HH:MM:SS[.,frac][Z|+HH:MM|+HHMM] -> epoch seconds (core/timefmt.h). */
static const char *parse_iso(const char *p, const char *e, long long *wall)
{
	int64_t ms;
	long n = time_parse(p, (size_t)(e - p), TIME_NOZONE | TIME_PREFIX, 0, &ms);
	if (n < 0)
		return NULL;
	*wall = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
	return p + n;
}

/* "[ 1234.567890]" -> microseconds since boot. */
static const char *parse_bracket(const char *p, const char *e, long long *us)
{
	long long sec, frac = 0;
	int nd = 0;
	if (p >= e || *p != '[')
		return NULL;
	p = skip_sp(p + 1, e);
	if (parse_dec(&p, e, &sec) < 0)
		return NULL;
	if (p < e && *p == '.') {
		p++;
		while (p < e && isdigit((unsigned char)*p)) {
			if (nd < 6) {
				frac = frac * 10 + (*p - '0');
				nd++;
			}
			p++;
		}
	}
	for (; nd < 6; nd++)
		frac *= 10;
	if (p >= e || *p != ']')
		return NULL;
	*us = sec * 1000000 + frac;
	return p + 1;
}

/* "6,1234,5678901234,-;" -> microseconds since boot. */
static const char *parse_devkmsg(const char *p, const char *e, long long *us)
{
	long long prio, seq, t;
	const char *q = p;
	if (parse_dec(&q, e, &prio) < 0 || q >= e || *q++ != ',')
		return NULL;
	if (parse_dec(&q, e, &seq) < 0 || q >= e || *q++ != ',')
		return NULL;
	if (parse_dec(&q, e, &t) < 0 || q >= e || (*q != ',' && *q != ';'))
		return NULL;
	for (int i = 0; q < e && i < 64; q++, i++)
		if (*q == ';') {
			*us = t;
			return q + 1;
		}
	return NULL;
}

/* "Nov 29 10:00:00 " (syslog files): no year, so no wall time. */
static const char *parse_syslog_date(const char *p, const char *e)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int d, h;
	if (e - p < 16)
		return NULL;
	for (int i = 0; i < 12; i++)
		if (!memcmp(p, months + 3 * i, 3))
			goto month;
	return NULL;
month:
	p += 3;
	if (*p++ != ' ')
		return NULL;
	if (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (p < e && isdigit((unsigned char)*p))
		p++;
	p = skip_sp(p, e);
	if (fixed_dec(p, e, 2, &h) || e - p < 8 || p[2] != ':' || p[5] != ':' ||
	    fixed_dec(p + 6, e, 2, &d))
		return NULL;
	return p + 8;
}

/* "host kernel: " / "host kernel[1]: " after a journal or syslog stamp. */
static const char *skip_host_kernel(const char *p, const char *e)
{
	const char *q = p;
	while (q < e && *q != ' ' && q - p < 256)
		q++;
	if (q >= e || q == p)
		return p;
	q++;
	if (!at(q, e, "kernel"))
		return p;
	q += 6;
	if (q < e && *q == '[') {
		while (q < e && *q != ']')
			q++;
		if (q < e)
			q++;
	}
	if (q >= e || *q != ':')
		return p;
	return skip_sp(q + 1, e);
}

static const char *parse_stamp(const char *p, const char *e, struct kmsg_event *ev)
{
	const char *q;
	long long v;

	if ((q = parse_devkmsg(p, e, &v))) {
		ev->has_mono = 1;
		ev->mono_us = v;
		return q;
	}
	if ((q = parse_iso(p, e, &v))) {
		ev->has_wall = 1;
		ev->wall = v;
		p = skip_host_kernel(skip_sp(q, e), e);
	} else if ((q = parse_syslog_date(p, e))) {
		p = skip_host_kernel(skip_sp(q, e), e);
	}
	/* dmesg, or the printk time a syslog daemon kept after "kernel:" */
	if ((q = parse_bracket(p, e, &v))) {
		ev->has_mono = 1;
		ev->mono_us = v;
		p = q;
	}
	return skip_sp(p, e);
}

/* ---- events ---- */

static int yes_no(const char *p, const char *e)
{
	p = skip_sp(p, e);
	if (at_ci(p, e, "yes"))
		return 1;
	if (at_ci(p, e, "no"))
		return 0;
	return -1;
}

/* 94/95: "... RST: Yes, D-RST: No".  "D-RST:" contains "RST:", so a plain
 * RST only counts when it does not follow '-'. */
static void parse_rst(const char *s, const char *e, struct kmsg_event *ev)
{
	const char *p = s;
	while ((p = find(p, e, "RST:"))) {
		if (p > s && p[-1] == '-') {
			if (p - s >= 2 && p[-2] == 'D')
				ev->drst = yes_no(p + 4, e);
		} else {
			ev->rst = yes_no(p + 4, e);
		}
		p += 4;
	}
}

/* 154: "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" */
static void parse_recovery(const char *p, const char *e, struct kmsg_event *ev)
{
	unsigned long long a, b;
	p = find(p, e, "changed from ");
	if (!p)
		return;
	p += 13;
	if (parse_hex(&p, e, &a) < 0)
		return;
	p = find(p, e, " to ");
	if (!p)
		return;
	p = skip_sp(p + 4, e);
	if (parse_hex(&p, e, &b) < 0)
		return;
	ev->rec_from = a > 0xffff ? 0xffff : (int)a;
	ev->rec_to = b > 0xffff ? 0xffff : (int)b;
}

static const char *parse_link(const char *p, const char *e, struct kmsg_event *ev)
{
	long long n;
	p = skip_sp(p, e);
	if (parse_dec(&p, e, &n) == 0) {
		ev->link = n > 1000000 ? 1000000 : (int)n;
		return p;
	}
	return NULL;
}

/* 144-150: "<subcomp> <Fatal|Nonfatal> <XC0|XC1> <iN> Link <n> (0x... ...)" */
static void parse_nvlink5(const char *p, const char *e, struct kmsg_event *ev)
{
	const char *t = p;
	while (t < e && *t != ' ')
		t++;
	copy_clean(ev->subcomp, sizeof(ev->subcomp), p, t);
	t = skip_sp(t, e);
	if (at_ci(t, e, "nonfatal") || at_ci(t, e, "non-fatal"))
		ev->fatal = 0;
	else if (at_ci(t, e, "fatal"))
		ev->fatal = 1;
	const char *l = find(t, e, "Link ");
	if (l && (l = parse_link(l + 5, e, ev))) {
		l = skip_sp(l, e);
		if (l < e && *l == '(')
			parse_words(l + 1, e, ')', ev);
	}
}

/* 74: "NVLink: fatal error detected on link 4(0x0, 0x0, 0x10000, ...)" and
 * similar; only the words we rely on are matched. */
static void parse_nvlink(const char *p, const char *e, struct kmsg_event *ev)
{
	if (find_ci(p, e, "non-fatal") || find_ci(p, e, "nonfatal"))
		ev->fatal = 0;
	else if (find_ci(p, e, "fatal"))
		ev->fatal = 1;
	const char *l = find_ci(p, e, "link ");
	while (l && !(l + 5 < e && isdigit((unsigned char)l[5])))
		l = find_ci(l + 5, e, "link ");
	if (l && (l = parse_link(l + 5, e, ev))) {
		l = skip_sp(l, e);
		if (l < e && *l == '(')
			parse_words(l + 1, e, ')', ev);
	}
}

/* "(PCI:0000:5a:00 GPU-I:01 GPU-CI:02): " up to the code. */
static const char *parse_paren_addr(const char *p, const char *e, struct kmsg_event *ev)
{
	long long v;
	if (p >= e || *p != '(')
		return NULL;
	p = skip_sp(p + 1, e);
	if (at(p, e, "PCI:"))
		p += 4;
	p = parse_pci(p, e, ev->pci, sizeof(ev->pci));
	for (int guard = 0; p < e && *p != ')' && guard < 64; guard++) {
		if (at(p, e, "GPU-I:")) {
			p += 6;
			if (parse_dec(&p, e, &v) == 0)
				ev->gpu_i = v > 100000 ? 100000 : (int)v;
		} else if (at(p, e, "GPU-CI:")) {
			p += 7;
			if (parse_dec(&p, e, &v) == 0)
				ev->gpu_ci = v > 100000 ? 100000 : (int)v;
		} else {
			p++;
		}
	}
	if (p >= e || *p != ')')
		return NULL;
	p++;
	if (p >= e || *p != ':')
		return NULL;
	return skip_sp(p + 1, e);
}

static int parse_code(const char **pp, const char *e, int *code)
{
	long long v;
	const char *p = *pp;
	if (parse_dec(&p, e, &v) < 0 || v > 1000000)
		return -1;
	p = skip_sp(p, e);
	if (p < e && *p != ',')
		return -1;
	if (p < e)
		p++;
	*pp = skip_sp(p, e);
	*code = (int)v;
	return 0;
}

/* Body after "Xid ". */
static enum kmsg_kind parse_xid(const char *p, const char *e, struct kmsg_event *ev)
{
	p = parse_paren_addr(p, e, ev);
	if (!p || parse_code(&p, e, &ev->code) < 0)
		return KMSG_NONE;
	if (at(p, e, "pid=")) {
		long long v;
		p += 4;
		if (parse_dec(&p, e, &v) == 0)
			ev->pid = v;
		/* '<unknown>' or anything else: leave -1, skip to the comma */
		while (p < e && *p != ',')
			p++;
		if (p < e)
			p = skip_sp(p + 1, e);
		if (at(p, e, "name=")) {
			const char *n = p + 5, *c = find(n, e, ", ");
			copy_clean(ev->name, sizeof(ev->name), n, c ? c : e);
			p = c ? c + 2 : e;
		}
	}
	copy_clean(ev->msg, sizeof(ev->msg), p, e);

	if (ev->code == 94 || ev->code == 95)
		parse_rst(p, e, ev);
	else if (ev->code == 154)
		parse_recovery(p, e, ev);
	else if (ev->code >= 144 && ev->code <= 150)
		parse_nvlink5(p, e, ev);
	else if (ev->code == 74)
		parse_nvlink(p, e, ev);
	return KMSG_XID;
}

/* Body after "SXid ". */
static enum kmsg_kind parse_sxid(const char *p, const char *e, struct kmsg_event *ev)
{
	p = parse_paren_addr(p, e, ev);
	if (!p || parse_code(&p, e, &ev->code) < 0)
		return KMSG_NONE;
	if (at(p, e, "Severity") || at(p, e, "Data")) {
		const char *t = p;
		while (t < e && isalpha((unsigned char)*t))
			t++;
		copy_clean(ev->subcomp, sizeof(ev->subcomp), p, t);
		copy_clean(ev->msg, sizeof(ev->msg), p, e);
		if (*p == 'D') {
			const char *b = find(t, e, "{");
			if (b)
				parse_words(b + 1, e, '}', ev);
		}
		return KMSG_SXID_COMPANION;
	}
	if (at_ci(p, e, "non-fatal") || at_ci(p, e, "nonfatal") || at_ci(p, e, "non fatal"))
		ev->fatal = 0;
	else if (at_ci(p, e, "fatal"))
		ev->fatal = 1;
	if (ev->fatal >= 0) {
		while (p < e && *p != ',')
			p++;
		p = p < e ? skip_sp(p + 1, e) : e;
	}
	if (at(p, e, "Link ")) {
		const char *l = parse_link(p + 5, e, ev);
		if (l)
			p = skip_sp(l, e);
	}
	copy_clean(ev->msg, sizeof(ev->msg), p, e);
	return KMSG_SXID;
}

/* Body after "NVRM: ".  *pending gets the address of a multi-line
 * fallen-off-the-bus head. */
static enum kmsg_kind parse_nvrm(const char *p, const char *e, struct kmsg_event *ev,
				 char *pending, size_t pn)
{
	if (at(p, e, "Xid "))
		return parse_xid(p + 4, e, ev);
	if (at(p, e, "GPU at PCI:")) {
		const char *q = skip_sp(parse_pci(p + 11, e, ev->pci, sizeof(ev->pci)), e);
		/* parse_pci ate the ':' that separates the address from the UUID */
		size_t n = strlen(ev->pci);
		if (n && ev->pci[n - 1] == ':')
			ev->pci[n - 1] = 0;
		if (!at(q, e, "GPU-"))
			return KMSG_NONE;
		const char *u = q;
		while (q < e && (isxdigit((unsigned char)*q) || *q == '-' || *q == 'G' ||
				 *q == 'P' || *q == 'U'))
			q++;
		copy_clean(ev->uuid, sizeof(ev->uuid), u, q);
		return KMSG_GPU_UUID;
	}
	if (!find(p, e, "fallen off the bus")) {
		if (at(p, e, "The NVIDIA GPU ")) {
			parse_pci(skip_sp(p + 15, e), e, pending, pn);
		}
		return KMSG_NONE;
	}
	ev->code = 79;
	copy_clean(ev->msg, sizeof(ev->msg), p, e);
	if (at(p, e, "GPU "))
		parse_pci(p + 4, e, ev->pci, sizeof(ev->pci));
	else if (at(p, e, "The NVIDIA GPU "))
		parse_pci(skip_sp(p + 15, e), e, ev->pci, sizeof(ev->pci));
	/* "GPU 0000:91:00.0: GPU has..." leaves the separator ':' behind */
	size_t n = strlen(ev->pci);
	if (n && ev->pci[n - 1] == ':')
		ev->pci[n - 1] = 0;
	return KMSG_FALLEN_OFF_BUS;
}

static void event_init(struct kmsg_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = KMSG_NONE;
	ev->code = -1;
	ev->gpu_i = ev->gpu_ci = -1;
	ev->pid = -1;
	ev->rst = ev->drst = -1;
	ev->rec_from = ev->rec_to = -1;
	ev->fatal = -1;
	ev->link = -1;
}

static enum kmsg_kind parse_line(const char *line, size_t len, struct kmsg_event *ev,
				 char *pending, size_t pn)
{
	event_init(ev);
	if (pending)
		pending[0] = 0;
	if (!line)
		return KMSG_NONE;
	if (len > KMSG_MAX_LINE)
		len = KMSG_MAX_LINE;
	const char *p = line, *e = line + len, *m;
	while (e > p && (e[-1] == '\n' || e[-1] == '\r'))
		e--;
	p = parse_stamp(p, e, ev);

	enum kmsg_kind k = KMSG_NONE;
	const char *nv = find(p, e, "NVRM: ");
	const char *sx = find(p, e, "SXid (");
	if (sx && (!nv || sx < nv)) {
		k = parse_sxid(sx + 5, e, ev);
		if (k != KMSG_NONE) {
			/* the device name is the token before ": SXid" */
			const char *end = sx;
			while (end > p && (end[-1] == ' ' || end[-1] == ':'))
				end--;
			const char *s = end;
			while (s > p && s[-1] != ' ' && s[-1] != ';' && s[-1] != ']')
				s--;
			copy_clean(ev->name, sizeof(ev->name), s, end);
		}
	} else if (nv) {
		char dummy[32];
		m = nv + 6;
		k = parse_nvrm(skip_sp(m, e), e, ev, pending ? pending : dummy,
			       pending ? pn : sizeof(dummy));
	}
	if (k == KMSG_NONE) {
		/* keep the timestamps, drop half-parsed fields */
		struct kmsg_event t = *ev;
		event_init(ev);
		ev->has_wall = t.has_wall;
		ev->wall = t.wall;
		ev->has_mono = t.has_mono;
		ev->mono_us = t.mono_us;
	}
	ev->kind = k;
	return k;
}

enum kmsg_kind kmsg_parse_line(const char *line, size_t len, struct kmsg_event *ev)
{
	return parse_line(line, len, ev, NULL, 0);
}

enum kmsg_kind kmsg_parse_line_ctx(struct kmsg_ctx *ctx, const char *line, size_t len,
				   struct kmsg_event *ev)
{
	char pending[sizeof(ctx->pending_pci)];
	enum kmsg_kind k = parse_line(line, len, ev, pending, sizeof(pending));

	if (k == KMSG_FALLEN_OFF_BUS && !ev->pci[0] && ctx->pending_lines > 0)
		memcpy(ev->pci, ctx->pending_pci, sizeof(ev->pci));
	if (pending[0]) {
		memcpy(ctx->pending_pci, pending, sizeof(ctx->pending_pci));
		/* the driver's notice spans three lines */
		ctx->pending_lines = 3;
	} else if (ctx->pending_lines > 0 && --ctx->pending_lines == 0) {
		ctx->pending_pci[0] = 0;
	}
	if (k == KMSG_FALLEN_OFF_BUS) {
		ctx->pending_lines = 0;
		ctx->pending_pci[0] = 0;
	}
	return k;
}

size_t kmsg_parse_buffer(const char *buf, size_t len, kmsg_cb cb, void *arg)
{
	struct kmsg_ctx ctx = KMSG_CTX_INIT;
	struct kmsg_event ev;
	size_t n = 0, off = 0;

	while (buf && off < len) {
		const char *s = buf + off;
		const char *nl = memchr(s, '\n', len - off);
		size_t l = nl ? (size_t)(nl - s) : len - off;
		off += l + (nl ? 1 : 0);
		if (kmsg_parse_line_ctx(&ctx, s, l, &ev) == KMSG_NONE)
			continue;
		n++;
		if (cb && cb(&ev, arg))
			break;
	}
	return n;
}

void kmsg_gpu_key(const char *pci, char *out, size_t n)
{
	char tmp[64];
	size_t k = 0;

	if (!n)
		return;
	out[0] = 0;
	if (!pci)
		return;
	if (!strncasecmp(pci, "PCI:", 4))
		pci += 4;
	for (; *pci && k + 1 < sizeof(tmp); pci++)
		tmp[k++] = (char)tolower((unsigned char)*pci);
	tmp[k] = 0;
	char *dot = strrchr(tmp, '.');
	if (dot)
		*dot = 0;
	/* nvidia-smi prints an 8-digit domain, the driver a 4-digit one */
	char *c1 = strchr(tmp, ':');
	const char *dom = "0000", *rest = tmp;
	if (c1 && strchr(c1 + 1, ':')) {
		*c1 = 0;
		dom = tmp;
		rest = c1 + 1;
		while (strlen(dom) > 4 && dom[0] == '0')
			dom++;
	}
	if (!tmp[0])
		return;
	snprintf(out, n, "%s:%s", dom, rest);
}

const char *kmsg_kind_name(enum kmsg_kind k)
{
	switch (k) {
	case KMSG_XID:
		return "xid";
	case KMSG_FALLEN_OFF_BUS:
		return "fallen_off_bus";
	case KMSG_GPU_UUID:
		return "gpu_uuid";
	case KMSG_SXID:
		return "sxid";
	case KMSG_SXID_COMPANION:
		return "sxid_companion";
	case KMSG_NONE:
		break;
	}
	return "none";
}
