#ifndef CMAX_COLLECTORS_H
#define CMAX_COLLECTORS_H
#include "collect/collector.h"
#include "engine/context.h"

#define COLLECTOR(name, desc, fn) void fn(struct audit_ctx *ctx, struct col_run *c);
#include "collectors.def"
#undef COLLECTOR
#endif
