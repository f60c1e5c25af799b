/* Prototypes of every check function, from the one table. */
#ifndef CMAX_CHECKS_H
#define CMAX_CHECKS_H
#include "checks/check.h"
#include "engine/context.h"

#define CHECK(id, profile, title, targets, flags, requires, fn, remediation, reproduce) \
	void fn(struct audit_ctx *ctx, struct result *r);
#include "checks.def"
#undef CHECK
#endif
