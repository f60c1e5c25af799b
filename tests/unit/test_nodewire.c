/* The fleet wire format: round trips, interleaving as srun produces it,
 * and every way a node's document can arrive broken. */
#include "parse/nodewire.h"
#include "core/strbuf.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

static const char *err_of(json_t *o, const char *node)
{
	return json_string_value(json_object_get(json_object_get(o, node), "error"));
}

static json_t *doc_of(json_t *o, const char *node)
{
	return json_object_get(json_object_get(o, node), "doc");
}

static void test_roundtrip(void)
{
	const char *doc = "{\"schema\":\"cmax.node/1\",\"node\":\"node1\",\"pad\":\"0123456789 abcdef \"}";
	/* line budget: 8 (tag) + 5 (name) + 13 (sequence) + 3 spaces + newline = 30, and 10 bytes of payload */
	char *w = nodewire_encode("node1", doc, 40);
	T_OK(w && !strncmp(w, "CMAXNODE node1 1/", 17), "encode starts with the tag, node and sequence");
	size_t lines = 0, longest = 0, cur = 0;
	for (char *p = w; *p; p++) {
		cur++;
		if (*p == '\n') {
			lines++;
			longest = cur > longest ? cur : longest;
			cur = 0;
		}
	}
	T_INTEQ(lines, (strlen(doc) + 9) / 10, "one line per 10-byte chunk");
	T_OK(longest <= 40, "no line longer than the budget (%zu)", longest);
	json_t *o = nodewire_decode(w, strlen(w));
	T_OK(json_is_object(doc_of(o, "node1")), "decodes back to an object");
	T_STREQ(json_string_value(json_object_get(doc_of(o, "node1"), "pad")), "0123456789 abcdef ",
		"chunk boundaries inside strings and spaces survive");
	T_OK(json_is_null(json_object_get(json_object_get(o, "node1"), "error")), "no error on a complete document");
	json_decref(o);
	free(w);
	T_OK(nodewire_encode("bad name", doc, 40) == NULL, "a name with a space is refused");
	T_OK(nodewire_encode("node1", doc, 30) == NULL, "a budget without room for payload is refused");
	w = nodewire_encode("node1", "", 100);
	o = nodewire_decode(w, strlen(w));
	T_OK(strstr(err_of(o, "node1") ?: "", "does not parse") != NULL, "an empty document is one chunk, refused on decode");
	json_decref(o);
	free(w);
}

/* Two nodes, lines interleaved and reordered, other output around them. */
static void test_interleaved(void)
{
	const char *d1 = "{\"schema\":\"cmax.node/1\",\"n\":1,\"x\":\"aaaaaaaaaaaaaaaa\"}";
	const char *d2 = "{\"schema\":\"cmax.node/1\",\"n\":2,\"x\":\"bbbbbbbbbbbbbbbb\"}";
	char *a = nodewire_encode("node1", d1, 43), *b = nodewire_encode("node2", d2, 43);
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "srun: warning: something\nplain output\n");
	/* reverse node2's lines and alternate with node1's */
	char *la[64], *lb[64];
	size_t na = 0, nb = 0;
	for (char *sv = NULL, *t = strtok_r(a, "\n", &sv); t; t = strtok_r(NULL, "\n", &sv))
		la[na++] = t;
	for (char *sv = NULL, *t = strtok_r(b, "\n", &sv); t; t = strtok_r(NULL, "\n", &sv))
		lb[nb++] = t;
	for (size_t i = 0; i < na || i < nb; i++) {
		if (i < na)
			sb_addf(&sb, "%s\r\n", la[i]);
		if (i < nb)
			sb_addf(&sb, "%s\n", lb[nb - 1 - i]);
	}
	sb_adds(&sb, "CMAXNODE node9 1/1"); /* a line cut off before its chunk */
	json_t *o = nodewire_decode(sb.buf, sb.len);
	T_INTEQ(json_integer_value(json_object_get(doc_of(o, "node1"), "n")), 1, "node1 reassembled (CRLF lines)");
	T_INTEQ(json_integer_value(json_object_get(doc_of(o, "node2"), "n")), 2, "node2 reassembled out of order");
	T_OK(json_is_null(doc_of(o, "node9")) && err_of(o, "node9"), "a cut-off line gives no document");
	T_INTEQ(json_object_size(o), 3, "no other node");
	json_decref(o);
	sb_free(&sb);
	free(a);
	free(b);
}

static void test_broken(void)
{
	json_t *o = nodewire_decode(S("CMAXNODE n1 1/3 {\"a\":\nCMAXNODE n1 3/3 1}\n"));
	T_OK(doc_of(o, "n1") && json_is_null(doc_of(o, "n1")), "missing chunk: no document");
	T_OK(err_of(o, "n1") && strstr(err_of(o, "n1"), "1 of 3 chunks missing (2)"), "missing chunk named: %s",
	     err_of(o, "n1"));
	json_decref(o);

	o = nodewire_decode(S("CMAXNODE n1 1/1 {\"schema\":\"other/1\"}\n"));
	T_OK(strstr(err_of(o, "n1") ?: "", "schema is 'other/1'") != NULL, "wrong schema refused");
	json_decref(o);

	o = nodewire_decode(S("CMAXNODE n1 1/1 {\"schema\":\"cmax.node/1\"\n"));
	T_OK(strstr(err_of(o, "n1") ?: "", "does not parse") != NULL, "truncated JSON refused");
	json_decref(o);

	o = nodewire_decode(S("CMAXNODE n1 1/1 [1]\n"));
	T_OK(strstr(err_of(o, "n1") ?: "", "not a JSON object") != NULL, "non-object refused");
	json_decref(o);

	o = nodewire_decode(S("CMAXNODE n1 1/2 {\"schema\":\nCMAXNODE n1 1/3 \"x\"}\n"));
	T_OK(strstr(err_of(o, "n1") ?: "", "disagree on the number") != NULL, "two totals: interleaved documents");
	json_decref(o);

	o = nodewire_decode(S("CMAXNODE n1 1/2 {\"a\"\nCMAXNODE n1 1/2 {\"b\"\nCMAXNODE n1 2/2 :1}\n"));
	T_OK(strstr(err_of(o, "n1") ?: "", "same sequence number") != NULL, "conflicting duplicate chunk");
	json_decref(o);

	o = nodewire_decode(S("CMAXNODE n1 1/1 {\"schema\":\"cmax.node/1\"}\nCMAXNODE n1 1/1 {\"schema\":\"cmax.node/1\"}\n"));
	T_OK(json_is_object(doc_of(o, "n1")), "an identical repeated chunk is harmless");
	json_decref(o);

	o = nodewire_decode(S("CMAXNODE n1 0/1 {}\nCMAXNODE n2 2/1 {}\nCMAXNODE n3 1/x {}\nCMAXNODE n4 -1/2 {}\n"
			      "CMAXNODE n5 1/100001 {}\n"));
	for (int i = 1; i <= 5; i++) {
		char n[8];
		snprintf(n, sizeof n, "n%d", i);
		T_OK(strstr(err_of(o, n) ?: "", "malformed sequence") != NULL, "bad sequence field rejected (%s)", n);
	}
	json_decref(o);

	o = nodewire_decode(S("CMAXNODE bad/name 1/1 {}\nCMAXNODEX n1 1/1 {}\nCMAXNODE  1/1 {}\n"));
	T_INTEQ(json_object_size(o), 0, "lines with a bad name or tag are not nodes");
	json_decref(o);

	o = nodewire_decode(S("CMAXNODE n1 1/1 {\"schema\":\"cmax.node/1\",\"x\":\"\xc3\xa9\"}\n"));
	T_OK(strstr(err_of(o, "n1") ?: "", "damaged") != NULL, "non-ASCII byte: damaged line");
	json_decref(o);

	o = nodewire_decode(NULL, 0);
	T_INTEQ(json_object_size(o), 0, "no input, no nodes");
	json_decref(o);
}

static void test_hostnames(void)
{
	json_t *a = parse_hostnames(S("node1\nnode2\n\n  node3 \nnode2\nbad name\n"));
	T_INTEQ(json_array_size(a), 3, "three distinct names");
	T_STREQ(json_string_value(json_array_get(a, 2)), "node3", "trimmed, order kept");
	json_decref(a);
	a = parse_hostnames(S(""));
	T_INTEQ(json_array_size(a), 0, "empty output");
	json_decref(a);
}

/* The decoder reads a fleet's repeated text once (nodewire.c, memo_doc):
 * whatever it gives must be what json_loadb gives, value or refusal. Each
 * case sits in a document long enough to be taken apart, twice: at two
 * depths and on three nodes, so that it is also met as seen text. */
static void test_same_as_jansson(void)
{
	static const char *const cases[] = {
		"{\"k\\u0041\\\"\": \"v\\\\\", \"e\": \"\\u00e9\\ud83d\\ude00\\n\\t\\/\", \"n\": [0, -0, 12, -123456789012345678, "
		"1.5, -2e-7, 1E+30, 0.1], \"t\": [true, false, null, {}, [], \"\"], \"q\": \"a\\\\\\\"b\\\\\"}",
		" { \"a\" :\t[ 1 ,  2 ] ,\t \"b\" : { \"c\" : \"x\" } } ", /* the wire has no line breaks in it */
		"{\"a\": 1, \"b\": {\"c\": 2, \"c\": 3}}",
		"{\"a\": tru}",
		"{\"a\": 01}",
		"{\"a\": 123456789012345678901234567890}",
		"{\"a\": 1e400}",
		"{\"a\": \"tab\there\"}",
		"{\"a\": [1, 2}",
		"{\"a\": [1, 2,]}",
		"{\"a\" 1}",
		"{\"a\": \"\\u0000\"}",
		"{\"\\u0000\": 1}",
		"{\"a\": \"\\ud800\"}",
		"{\"a\": 1} x",
	};
	struct strbuf pad = STRBUF_INIT, deep = STRBUF_INIT;
	for (int i = 0; i < 300; i++)
		sb_adds(&pad, "x");
	for (size_t c = 0; c < sizeof cases / sizeof *cases + 2; c++) {
		const char *x = c < sizeof cases / sizeof *cases ? cases[c] : NULL;
		if (!x) { /* jansson's depth: 2048 levels in all, then one more */
			sb_reset(&deep);
			int levels = 2048 - 2 + (int)(c - sizeof cases / sizeof *cases);
			for (int i = 0; i < levels; i++)
				sb_adds(&deep, "[");
			for (int i = 0; i < levels; i++)
				sb_adds(&deep, "]");
			x = deep.buf;
		}
		/* padded inside too, so that the case itself is taken apart */
		const char *brace = strchr(x, '{');
		char *padded = brace ? xasprintf("%.*s\"zz\":\"%s\",%s", (int)(brace - x + 1), x, pad.buf, brace + 1)
				     : xstrdup(x);
		char *text = xasprintf("{\"schema\":\"cmax.node/1\",\"pad\":\"%s\",\"case\":%s,\"more\":{\"pad\":\"%s\",\"again\":%s,"
				       "\"padded\":%s}}",
				       pad.buf, x, pad.buf, x, padded);
		free(padded);
		json_error_t je;
		json_t *want = json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, &je);
		char *want_err = want ? NULL : xasprintf("document does not parse as JSON: %s", je.text);
		struct strbuf wire = STRBUF_INIT;
		const char *names[] = { "n1", "n2", "n3" };
		for (int k = 0; k < 3; k++) {
			char *w = nodewire_encode(names[k], text, NODEWIRE_LINE_MAX);
			sb_adds(&wire, w);
			free(w);
		}
		json_t *o = nodewire_decode(wire.buf, wire.len);
		for (int k = 0; k < 3; k++) {
			json_t *got = doc_of(o, names[k]);
			if (want)
				T_OK(json_equal(got, want), "case %zu, node %d: the value json_loadb gives", c, k + 1);
			else
				T_STREQ(err_of(o, names[k]) ?: "(none)", want_err, "case %zu, node %d: jansson's refusal", c, k + 1);
		}
		json_decref(o);
		json_decref(want);
		free(want_err);
		free(text);
		sb_free(&wire);
	}
	sb_free(&pad);
	sb_free(&deep);
}

/* The stream watcher's question: is this line a node's last chunk? */
static void test_line_last(void)
{
	const char *doc = "{\"schema\":\"cmax.node/1\",\"node\":\"gpu7\",\"pad\":\"0123456789abcdef\"}";
	char *w = nodewire_encode("gpu7", doc, 40), node[256];
	size_t lines = 0, last = 0;
	for (char *p = w; *p;) {
		char *nl = strchr(p, '\n');
		int is = nodewire_line_last(p, (size_t)(nl - p), node);
		lines++;
		if (is) {
			last = lines;
			T_OK(!strcmp(node, "gpu7"), "the last chunk names its node (%s)", node);
		}
		p = nl + 1;
	}
	T_OK(lines > 2 && last == lines, "only the last of %zu lines is the last chunk (got line %zu)", lines, last);
	free(w);
	T_OK(!nodewire_line_last(S("CMAXNODE gpu7 3/3"), node), "a head without its chunk is not a wire line");
	T_OK(!nodewire_line_last(S("CMAXNODE gpu7 4/3 x"), node), "a sequence past its total is not");
	T_OK(!nodewire_line_last(S("CMAXNODE gpu7 0/0 x"), node), "a total of 0 is not");
	T_OK(!nodewire_line_last(S("CMAXNODE bad/name 1/1 x"), node), "a name the wire refuses is not");
	T_OK(!nodewire_line_last(S("srun: error: gpu7: task 0: Exited"), node), "srun's own lines are not");
	T_OK(nodewire_line_last(S("CMAXNODE gpu7 1/1 {}"), node) && !strcmp(node, "gpu7"), "a one-chunk document is");
}

int main(void)
{
	test_roundtrip();
	test_line_last();
	test_interleaved();
	test_hostnames();
	test_broken();
	test_same_as_jansson();
	return t_done();
}
