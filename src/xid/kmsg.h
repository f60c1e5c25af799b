/* Kernel-log line parser for NVIDIA driver events (Xid, SXid, fallen off
 * the bus, PCI->UUID map).
 *
 * One line of any of these sources is accepted:
 *   /dev/kmsg record       6,1234,5678901234,-;NVRM: Xid ...
 *   dmesg                  [ 1234.567890] NVRM: ...
 *   dmesg --time-format iso  2026-11-29T10:00:00,123456+00:00 NVRM: ...
 *   journalctl -k -o short-iso  2026-11-29T10:00:00+0000 host kernel: NVRM: ...
 *   syslog files           Nov 29 10:00:00 host kernel: [ 12.5] NVRM: ...
 *   a bare message         NVRM: Xid ...
 * The event itself is found by its marker ("NVRM: ", "SXid (") anywhere in
 * the line, so unknown prefixes (container log wrappers) still parse; only
 * the timestamp needs a known prefix.
 *
 * Work per line is linear and capped at KMSG_MAX_LINE bytes.  All strings
 * in an event are NUL-terminated terminal-safe text (core/termsafe.h:
 * controls and invalid UTF-8 shown escaped, as \e or \xff), so they can go
 * straight into JSON and onto a terminal.
 */
#ifndef CMAX_XID_KMSG_H
#define CMAX_XID_KMSG_H
#include <stddef.h>

#define KMSG_MAX_LINE 4096	/* longer lines are parsed from their head only */
#define KMSG_MAX_WORDS 8

enum kmsg_kind {
	KMSG_NONE,		/* not an event cmax knows */
	KMSG_XID,		/* NVRM: Xid (...): <code>, ... */
	KMSG_FALLEN_OFF_BUS,	/* non-Xid "fallen off the bus" line; implies Xid 79 */
	KMSG_GPU_UUID,		/* NVRM: GPU at PCI:...: GPU-<uuid> */
	KMSG_SXID,		/* nvidia-nvswitchN: SXid (...): <sxid>, <Fatal|Non-fatal>, ... */
	KMSG_SXID_COMPANION,	/* the Severity / Data lines that repeat an SXid */
};

struct kmsg_event {
	enum kmsg_kind kind;
	int code;		/* Xid or SXid; 79 for KMSG_FALLEN_OFF_BUS; -1 otherwise */
	/* Address as printed, lowercased, without a "PCI:" prefix: "0000:5a:00"
	 * for Xid lines, "0000:91:00.0" for fallen-off-bus and SXid lines.
	 * kmsg_gpu_key() gives the form to group GPUs by.  May be empty (the
	 * multi-line fallen-off-bus tail; kmsg_parse_buffer fills it in). */
	char pci[32];
	int gpu_i, gpu_ci;	/* MIG instance ids; -1 when absent */
	long long pid;		/* -1 when '<unknown>' or absent */
	char name[64];		/* process name (Xid) or "nvidia-nvswitchN" (SXid) */
	char msg[512];		/* free text after the fixed fields, cut to fit */
	int rst, drst;		/* Xid 94/95 "RST:" / "D-RST:": -1 absent, 0 No, 1 Yes */
	int rec_from, rec_to;	/* Xid 154 recovery action values; -1 absent */
	char subcomp[32];	/* Xid 144-150 sub component, e.g. NETIR_LINK_EVT;
				 * "Severity"/"Data" for SXid companions */
	int fatal;		/* 1 Fatal, 0 Nonfatal/Non-fatal, -1 not stated */
	int link;		/* NVLink / switch port number; -1 absent */
	unsigned long long words[KMSG_MAX_WORDS]; /* hex words: 74 / 144-150 registers, SXid Data {} */
	int nwords;
	char uuid[64];		/* "GPU-..." for KMSG_GPU_UUID */
	int has_wall;		/* wall is valid */
	long long wall;		/* epoch seconds (UTC) */
	int has_mono;		/* mono_us is valid */
	long long mono_us;	/* microseconds since boot */
};

/* Parse one line (no newline needed; a trailing \r\n is ignored).  Always
 * fills *ev (kind KMSG_NONE when nothing matched) and returns ev->kind. */
enum kmsg_kind kmsg_parse_line(const char *line, size_t len, struct kmsg_event *ev);

/* Stream state for multi-line messages.  The driver prints the long
 * fallen-off-the-bus notice over several lines, with the address only on
 * the first ("NVRM: The NVIDIA GPU 0000:3b:00.0", ..., "NVRM: fallen off
 * the bus ..."); the context carries that address to the tail. */
struct kmsg_ctx {
	char pending_pci[32];
	int pending_lines;	/* lines left in which the tail may appear */
};

#define KMSG_CTX_INIT { "", 0 }

/* kmsg_parse_line plus the multi-line context above. */
enum kmsg_kind kmsg_parse_line_ctx(struct kmsg_ctx *ctx, const char *line, size_t len,
				   struct kmsg_event *ev);

/* Parse a whole buffer (any mix of \n / \r\n line ends, NUL bytes allowed)
 * and call cb for every line that produced an event (kind != KMSG_NONE).
 * A non-zero return from cb stops the walk.  Returns the number of events
 * passed to cb. */
typedef int (*kmsg_cb)(const struct kmsg_event *ev, void *arg);
size_t kmsg_parse_buffer(const char *buf, size_t len, kmsg_cb cb, void *arg);

/* "0000:5a:00.0" / "PCI:0000:5A:00" / "5a:00.0" -> "0000:5a:00" into out:
 * the bus/device form the driver uses in Xid lines, so events from
 * different line types about one GPU compare equal. */
void kmsg_gpu_key(const char *pci, char *out, size_t n);

const char *kmsg_kind_name(enum kmsg_kind k);
#endif
