/* Lookups in data/gpu-models.json (ctx->gpu_models): which model a vendor
 * tool's product name is, and what that model's architecture needs. The
 * NVIDIA and AMD collectors normalise names with it; checks read the model
 * and architecture records. Every function accepts a NULL document (the
 * file could not be read) and then finds nothing. */
#ifndef CMAX_GPU_MODELS_H
#define CMAX_GPU_MODELS_H
#include <jansson.h>

/* The model record a product name ("NVIDIA B300 SXM6 AC", "AMD Instinct
 * MI300X") or, for AMD, a PCI device id ("0x74a1") stands for; vendor is
 * "nvidia" or "amd". Borrowed; NULL when nothing matches. */
const json_t *gpu_model_match(const json_t *doc, const char *vendor, const char *name,
			      const char *device_id);
/* The record whose "key" is key; borrowed or NULL. */
const json_t *gpu_model_by_key(const json_t *doc, const char *key);
/* {"compute_cap", "name", "min_cuda", "removed_in"?} for "sm_103"; borrowed or NULL. */
const json_t *gpu_arch_info(const json_t *doc, const char *sm);
/* "10.3" -> "sm_103", "9.0" -> "sm_90"; malloc'd, NULL when cap is not N.N. */
char *gpu_sm_from_cap(const char *cap);
#endif
