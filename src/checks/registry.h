/* The built-in collectors and checks, as the engine runs them. */
#ifndef CMAX_CHECKS_REGISTRY_H
#define CMAX_CHECKS_REGISTRY_H
#include "engine/context.h"

const struct engine_registry *builtin_registry(void);
#endif
