/* JSON Schema (draft 2020-12) validation over jansson, for the subset of the
 * vocabulary cmax's schemas use (docs/schema/): type, enum, const, the object
 * keywords (properties, required, additionalProperties, patternProperties,
 * propertyNames, dependentRequired, min/maxProperties), the array keywords
 * (items, prefixItems, min/maxItems, uniqueItems), the numeric and string
 * limits (pattern is a POSIX ERE: the schemas keep to patterns that ECMA-262
 * and POSIX read alike), allOf/anyOf/oneOf/not, if/then/else, and $ref to
 * the same document ("#", "#/$defs/..."). Annotations ($schema, title,
 * description, $comment, default, examples, deprecated, readOnly, writeOnly,
 * and $id at the top) are accepted and ignored.
 *
 * Any other keyword is an error when the schema is compiled: a typo in a
 * schema ("requred") must not silently accept everything. Numbers that are
 * not finite never validate. Errors name the instance location as a JSON
 * Pointer (RFC 6901) and say what is wrong in a few words. */
#ifndef CMAX_JSCHEMA_H
#define CMAX_JSCHEMA_H
#include <stddef.h>
#include <jansson.h>

struct jschema;

/* Compile a schema (takes its own reference). NULL with a malloc'd one-line
 * message in *err ("POINTER-IN-SCHEMA: why") when the schema is not valid
 * for this validator. */
struct jschema *jschema_compile(json_t *schema, char **err);
/* The same from JSON text. */
struct jschema *jschema_compile_text(const char *text, size_t len, char **err);
void jschema_free(struct jschema *s);

/* 0 when the instance is valid. 1 when it is not: *pointer (the instance
 * location, "" for the top level) and *message (malloc'd, one line, may be
 * NULL when not wanted) say where and why. */
int jschema_validate(const struct jschema *s, const json_t *instance, char **pointer,
		     char **message);

/* RFC 6901 form of one reference token ("a/b" -> "a~1b"), appended. */
struct strbuf;
void jschema_pointer_append(struct strbuf *sb, const char *token);
#endif
