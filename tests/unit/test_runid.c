/* The run id that labels what a run creates on a cluster: its shape, and
 * CMAX_RUN_ID taken only when it has that shape. */
#include "core/runid.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

int main(void)
{
	T_OK(run_id_ok("t1") && run_id_ok("19bd4c2e7a01ff") && run_id_ok("a-b"), "lower-case letters, digits, inner dashes");
	T_OK(!run_id_ok("") && !run_id_ok(NULL), "empty or NULL: no");
	T_OK(!run_id_ok("-a") && !run_id_ok("a-"), "a dash at either end: no (not a label value)");
	T_OK(!run_id_ok("A1") && !run_id_ok("a_b") && !run_id_ok("a.b") && !run_id_ok("a b"), "only [a-z0-9-]");
	T_OK(run_id_ok("abcdefghij0123456789") && !run_id_ok("abcdefghij0123456789x"), "at most RUN_ID_MAX characters");
	setenv("CMAX_RUN_ID", "Bad_Id", 1);
	const char *id = run_id();
	T_OK(run_id_ok(id) && strcmp(id, "Bad_Id") != 0, "a CMAX_RUN_ID of the wrong shape is not taken (got %s)", id);
	setenv("CMAX_RUN_ID", "t2", 1);
	T_STREQ(run_id(), id, "one id per process: made once, then the same");
	return t_done();
}
