#include "collect/collectors.h"
#include <string.h>

const struct collector_def collector_table[] = {
#define COLLECTOR(name, desc, fn) { name, desc, fn },
#include "collectors.def"
#undef COLLECTOR
};

const size_t collector_table_len = sizeof collector_table / sizeof collector_table[0];

const struct collector_def *collector_find(const char *name)
{
	for (size_t i = 0; i < collector_table_len; i++)
		if (strcmp(collector_table[i].name, name) == 0)
			return &collector_table[i];
	return NULL;
}
