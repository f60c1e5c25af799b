/* S3 XML readers and the AWS credentials INI reader: the shapes Swift's
 * s3api and AWS answer with (fuzz/corpus/s3xml holds them as files),
 * entities, namespaces, pagination, and malformed or hostile input. */
#include "parse/s3xml.h"
#include "core/strbuf.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

#define S(x) x, strlen(x)

static const char *list_page =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>bench</Name>"
	"<Prefix>p/</Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys><IsTruncated>true</IsTruncated>"
	"<NextContinuationToken>1ueG+cx/LP=</NextContinuationToken>"
	"<Contents><Key>p/small/000000</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified>"
	"<ETag>&quot;d41d8cd98f00b204e9800998ecf8427e&quot;</ETag><Size>4096</Size>"
	"<StorageClass>STANDARD</StorageClass></Contents>"
	"<Contents><Key>a &amp; b &lt;c&gt; &#x263A;&#65;</Key><Size>0</Size></Contents>"
	"<Contents><Key><![CDATA[x<y]]></Key></Contents>"
	"</ListBucketResult>";

static int count_cb(void *u, const char *path, const char *text, size_t tlen)
{
	(void)path;
	(void)text;
	(void)tlen;
	(*(int *)u)++;
	return 0;
}

static void bad(const char *xml, const char *why_has, const char *name)
{
	int n = 0;
	char *err = NULL;
	int rc = s3xml_walk(S(xml), count_cb, &n, &err);
	T_OK(rc == -1 && err && strstr(err, why_has), "%s: rejected (%s)", name, err ? err : "no reason");
	free(err);
}

int main(void)
{
	struct s3xml_list l;
	char *err = NULL;
	T_OK(s3xml_list(S(list_page), &l, &err) == 0, "ListObjectsV2 page parses");
	T_INTEQ(l.nkeys, 3, "three keys");
	T_STREQ(l.keys[0], "p/small/000000", "first key");
	T_INTEQ(l.sizes[0], 4096, "its size");
	T_STREQ(l.keys[1], "a & b <c> \xE2\x98\xBA" "A", "entities and character references decoded");
	T_INTEQ(l.sizes[1], 0, "zero size");
	T_STREQ(l.keys[2], "x<y", "CDATA key");
	T_INTEQ(l.sizes[2], -1, "no Size: -1");
	T_OK(l.truncated, "IsTruncated true");
	T_STREQ(l.next_token, "1ueG+cx/LP=", "NextContinuationToken");
	T_INTEQ(l.key_count, 3, "KeyCount");
	s3xml_list_free(&l);

	const char *last = "<ListBucketResult><IsTruncated>false</IsTruncated><KeyCount>0</KeyCount></ListBucketResult>";
	T_OK(s3xml_list(S(last), &l, &err) == 0 && l.nkeys == 0 && !l.truncated && !l.next_token, "empty last page");
	s3xml_list_free(&l);
	const char *ns = "<s3:ListBucketResult xmlns:s3=\"u\"><s3:Contents><s3:Key>k</s3:Key></s3:Contents></s3:ListBucketResult>";
	T_OK(s3xml_list(S(ns), &l, &err) == 0 && l.nkeys == 1 && !strcmp(l.keys[0], "k"), "namespace prefixes dropped");
	s3xml_list_free(&l);
	const char *other = "<Error><Code>NoSuchBucket</Code></Error>";
	T_OK(s3xml_list(S(other), &l, &err) == -1 && err && strstr(err, "not a ListBucketResult"), "an Error is not a listing: %s", err);
	free(err);
	err = NULL;
	const char *nokey = "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>";
	T_OK(s3xml_list(S(nokey), &l, &err) == -1 && err, "Contents without Key rejected");
	free(err);
	err = NULL;

	char *code, *msg;
	const char *e = "<?xml version='1.0' encoding='UTF-8'?>\n<Error><Code>SignatureDoesNotMatch</Code>"
			"<Message>The request signature we calculated does not match</Message><RequestId>tx1</RequestId></Error>";
	T_OK(s3xml_error(S(e), &code, &msg) == 0, "Error document recognised");
	T_STREQ(code, "SignatureDoesNotMatch", "Error code");
	T_STREQ(msg, "The request signature we calculated does not match", "Error message");
	free(code);
	free(msg);
	T_OK(s3xml_error(S(list_page), &code, &msg) == -1 && !code && !msg, "a listing is not an Error");
	T_OK(s3xml_error(S("not xml at all"), &code, &msg) == -1, "plain text is not an Error");
	T_OK(s3xml_error("", 0, &code, &msg) == -1, "empty body is not an Error");
	/* control bytes XML 1.0 forbids (a hostile server's ESC/BEL) come back as sent */
	const char *ctl = "<Error><Code>AccessDenied</Code><Message>x\x1b]0;owned\x07y\x01</Message></Error>";
	T_OK(s3xml_error(S(ctl), &code, &msg) == 0, "Error with control bytes in the message recognised");
	T_STREQ(msg, "x\x1b]0;owned\x07y\x01", "control bytes carried through the parser unchanged");
	free(code);
	free(msg);
	const char *pua = "<Error><Code>C</Code><Message>\xef\x9c\x9b</Message></Error>";
	T_OK(s3xml_error(S(pua), &code, &msg) == 0, "Error with a private-use character recognised");
	T_STREQ(msg, "\xef\x9c\x9b", "a private-use character that was not carried stays itself");
	free(code);
	free(msg);

	const char *init = "<?xml version='1.0' encoding='UTF-8'?>\n<InitiateMultipartUploadResult "
			   "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Bucket>b</Bucket><Key>k</Key>"
			   "<UploadId>ZWJiOTAx-Mm_Mt.NDk1Ni00</UploadId></InitiateMultipartUploadResult>";
	char *id = s3xml_upload_id(S(init));
	T_STREQ(id, "ZWJiOTAx-Mm_Mt.NDk1Ni00", "UploadId");
	free(id);
	T_OK(s3xml_upload_id(S(e)) == NULL, "no UploadId in an Error");

	bad("<a><b>x</a></b>", "unexpected end tag", "mismatched tags");
	bad("<!DOCTYPE x [<!ENTITY e \"boom\">]><a>&e;</a>", "DTD", "DTD refused");
	bad("<a>&e;</a>", "entity", "unknown entity");
	bad("<a>&#0;</a>", "entity", "NUL character reference");
	bad("<a>&#xD800;</a>", "entity", "surrogate character reference");
	bad("<a>&amp</a>", "not well-formed", "unterminated entity");
	bad("<a><b>", "ends inside", "truncated document");
	bad("", "no root", "empty input");
	bad("<a/><b/>", "more than one root", "two roots");
	bad("junk<a/>", "outside the root", "text before the root");
	bad("<a x=\"1>", "unterminated tag", "unterminated attribute");
	bad("<!DOCTYPE a [<!ENTITY a \"aaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]><a>&b;</a>", "DTD",
	    "billion laughs: the DTD refused before any entity is declared");
	bad("<!DOCTYPE a SYSTEM \"file:///etc/passwd\"><a/>", "DTD", "an external DTD refused");
	bad("<a>\xff</a>", "invalid token", "invalid UTF-8");
	struct strbuf deep = STRBUF_INIT;
	for (int i = 0; i < S3XML_MAX_DEPTH + 1; i++)
		sb_adds(&deep, "<d>");
	bad(sb_str(&deep), "nesting deeper", "nesting bound");
	sb_free(&deep);
	int n = 0;
	T_OK(s3xml_walk(S("<a x='>' y=\"/>\"><b/></a>"), count_cb, &n, &err) == 0 && n == 2, "quoted '>' in attributes, self-closing child");
	free(err);

	const char *ini = "# comment\n[default]\naws_access_key_id = AKIDEXAMPLE\r\n aws_secret_access_key=wJalr/XUt+nFEMI \n"
			  "[profile work]\naws_access_key_id=WORKKEY\naws_secret_access_key = s=e=c\naws_session_token = TOK\n"
			  "region = eu-west-1\n[broken\nAWS_ACCESS_KEY_ID=x\n";
	char *k, *s, *t, *r;
	T_OK(aws_ini_profile(S(ini), "default", &k, &s, &t, &r) == 0, "[default] found");
	T_OK(k && s && !strcmp(k, "AKIDEXAMPLE") && !strcmp(s, "wJalr/XUt+nFEMI") && !t && !r, "default: key and secret trimmed, no token");
	free(k), free(s), free(t), free(r);
	T_OK(aws_ini_profile(S(ini), "work", &k, &s, &t, &r) == 0, "[profile work] found");
	T_OK(!strcmp(k, "WORKKEY") && !strcmp(s, "s=e=c") && t && !strcmp(t, "TOK") && r && !strcmp(r, "eu-west-1"),
	     "work: '=' inside the value kept, token and region");
	free(k), free(s), free(t), free(r);
	T_OK(aws_ini_profile(S(ini), "nope", &k, &s, &t, &r) == -1 && !k && !s, "missing profile");
	return t_done();
}
