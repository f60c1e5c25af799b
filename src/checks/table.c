#include "checks/checks.h"
#include <string.h>

const struct check_def check_table[] = {
#define CHECK(id, profile, title, targets, flags, requires, fn, remediation, reproduce) \
	{ id, profile, title, targets, flags, requires, remediation, reproduce, fn },
#include "checks.def"
#undef CHECK
};

const size_t check_table_len = sizeof check_table / sizeof check_table[0];

const struct probe_def probe_table[] = {
#define PROBE(id, changes, budget_s, cleanup) { id, changes, budget_s, cleanup },
#include "probes.def"
#undef PROBE
};

const size_t probe_table_len = sizeof probe_table / sizeof probe_table[0];

const struct probe_def *probe_table_find(const char *check_id)
{
	for (size_t i = 0; i < probe_table_len; i++)
		if (strcmp(probe_table[i].check_id, check_id) == 0)
			return &probe_table[i];
	return NULL;
}

const char *const profile_names[] = {
	"versions", "isolation", "hardware", "software", "containers",
	"orchestration", "networking", "storage", "health", "access", NULL,
};

const struct check_def *check_find(const char *id)
{
	for (size_t i = 0; i < check_table_len; i++)
		if (strcmp(check_table[i].id, id) == 0)
			return &check_table[i];
	return NULL;
}

int profile_valid(const char *name)
{
	for (int i = 0; profile_names[i]; i++)
		if (strcmp(profile_names[i], name) == 0)
			return 1;
	return 0;
}
