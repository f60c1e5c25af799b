/* src/core/jsonget.c: each getter on the right type, the wrong type, a
 * missing key and a NULL object. */
#include <math.h>
#include "tap.h"
#include "core/jsonget.h"

int main(void)
{
	json_t *o = json_pack("{s:s, s:I, s:f, s:b, s:n}", "s", "text", "i", (json_int_t)42, "r", 2.5, "b", 1, "z");
	T_STREQ(jget_str(o, "s"), "text", "jget_str of a string");
	T_OK(jget_str(o, "i") == NULL, "jget_str of a number is NULL");
	T_OK(jget_str(o, "none") == NULL, "jget_str of a missing key is NULL");
	T_OK(jget_str(NULL, "s") == NULL, "jget_str of no object is NULL");
	T_STREQ(jget_str_or(o, "z", ""), "", "jget_str_or of null gives the default");
	T_STREQ(jget_str_or(o, "s", ""), "text", "jget_str_or of a string");
	T_INTEQ(jget_int(o, "i", -1), 42, "jget_int of an integer");
	T_INTEQ(jget_int(o, "r", -1), -1, "jget_int of a real is the default");
	T_INTEQ(jget_int(o, "s", -1), -1, "jget_int of a string is the default");
	T_INTEQ(jget_int(NULL, "i", 7), 7, "jget_int of no object");
	T_OK(jget_num(o, "r", 0) == 2.5, "jget_num of a real");
	T_OK(jget_num(o, "i", 0) == 42, "jget_num of an integer");
	T_OK(isnan(jget_num(o, "b", NAN)), "jget_num of a boolean is the default");
	json_decref(o);
	return t_done();
}
