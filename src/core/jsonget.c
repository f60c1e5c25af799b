/* Field getters for JSON objects (core/jsonget.h). */
#include "core/jsonget.h"

const char *jget_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

const char *jget_str_or(const json_t *o, const char *key, const char *dflt)
{
	const char *s = jget_str(o, key);
	return s ? s : dflt;
}

long long jget_int(const json_t *o, const char *key, long long dflt)
{
	const json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

double jget_num(const json_t *o, const char *key, double dflt)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : dflt;
}
