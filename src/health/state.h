/* State file of cmax health (see state.c for the format and locking). */
#ifndef CMAX_HEALTH_STATE_H
#define CMAX_HEALTH_STATE_H
#include <jansson.h>

#include "health/health.h"

int hstate_lock(const char *path);	/* fd holding the lock, or -1 */
void hstate_unlock(int fd);
/* The whole file; a fresh document when missing or broken (*err says which). */
json_t *hstate_load(const char *path, char **err);
/* The same from bytes (name for the message). */
json_t *hstate_parse(const char *buf, size_t len, const char *name, char **err);
int hstate_save(const char *path, json_t *s, char **err);
/* sources[key], created empty when missing (borrowed). */
json_t *hstate_entry(json_t *s, const char *key);
void hstate_get_pos(json_t *e, struct hsrc_pos *p);
void hstate_set_pos(json_t *e, const struct hsrc_pos *p);
#endif
