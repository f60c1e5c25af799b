/* The machine as its SMBIOS tables describe it: system and baseboard
 * vendor and product, BIOS vendor, version and date, from `dmidecode -t
 * system -t baseboard -t bios`. The tables are root's to read (/dev/mem,
 * /sys/firmware/dmi/tables), so dmidecode runs only as a privileged read
 * (core/privilege.h): as root, or through the tenant's passwordless sudo.
 * Serial numbers and UUIDs are not kept (parse/dmidecode.h).
 *
 * Facts: {smbios, bios: {...}, system: {...}, baseboard: {...}, via:
 * "sudo -n"|"root"}. Not read: COL_DENIED with the policy's reason
 * (--no-sudo, no passwordless sudo), COL_ABSENT when dmidecode is not
 * installed, COL_FAILED when it ran and broke. */
#include "collect/collectors.h"
#include "core/privilege.h"
#include "core/strbuf.h"
#include "parse/dmidecode.h"
#include <stdlib.h>
#include <string.h>

void collect_dmi(struct audit_ctx *ctx, struct col_run *c)
{
	const char *argv[] = { "dmidecode", "-t", "system", "-t", "baseboard", "-t", "bios", NULL };
	struct cmd_result r;
	char *why = NULL;
	if (col_run_priv(ctx, c, argv, 10000, &r, &why) != 0) {
		int absent = strstr(why, "is not installed") != NULL;
		col_set_state(c, absent ? COL_ABSENT : COL_DENIED, "%s%s", absent ? "" : "the SMBIOS tables are root's: ",
			      why);
		free(why);
		return;
	}
	if (!cmd_ok(&r)) {
		char *l = col_cmd_first_line(&r);
		char *d = cmd_describe(&r);
		col_set_state(c, COL_FAILED, "%s: %s%s%s", r.cmdline, d, *l ? ": " : "", l);
		free(l);
		free(d);
		cmd_result_free(&r);
		return;
	}
	json_t *d = dmidecode_parse(r.out, r.out_len, &why);
	if (!d) {
		col_set_state(c, COL_FAILED, "%s", why);
		free(why);
		cmd_result_free(&r);
		return;
	}
	const char *k;
	json_t *v;
	json_object_foreach(d, k, v)
		json_object_set(c->facts, k, v);
	json_decref(d);
	fact_set_str(c->facts, "via", priv_get_mode() == PRIV_DIRECT ? "root" : "sudo -n");
	cmd_result_free(&r);
}
