/* URL userinfo redaction (RFC 3986 3.2.1): the password never shows, the
 * rest of the URL and of the message around it stays readable. */
#include "tap.h"
#include "core/redact.h"

#include <stdlib.h>

static void expect(const char *in, const char *want, const char *name)
{
	char *got = redact_urls(in);
	T_STREQ(got, want, "%s", name);
	free(got);
}

int main(void)
{
	expect("http://user:pass@127.0.0.1:9000/b", "http://***@127.0.0.1:9000/b", "user and password");
	expect("https://AKIA@s3.example", "https://***@s3.example", "user only");
	expect("https://s3.example:8443/bucket", "https://s3.example:8443/bucket", "no userinfo: unchanged");
	expect("http://u:p%40ss@host/x?y=a@b", "http://***@host/x?y=a@b", "an @ in the query is not userinfo");
	expect("http://u:p@ss@host/", "http://***@host/", "the last @ of the authority ends the userinfo");
	expect("cannot reach http://k:s@h:1 (refused); retry http://k2:s2@h2/",
	       "cannot reach http://***@h:1 (refused); retry http://***@h2/", "every URL inside a message");
	expect("cmax bench s3 --endpoint=https://k:s@h --bucket b", "cmax bench s3 --endpoint=https://***@h --bucket b",
	       "inside a command line");
	expect("'http://k:s@h'", "'http://***@h'", "quoted");
	expect("ssh admin@login1", "ssh admin@login1", "user@host without a scheme is no URL");
	expect("://u:p@h", "://u:p@h", "no scheme: left alone");
	expect("", "", "empty");
	T_OK(redact_urls(NULL) == NULL, "NULL gives NULL");
	T_OK(redact_has_userinfo("x http://a:b@h"), "has userinfo");
	T_OK(!redact_has_userinfo("http://h/a@b"), "an @ in the path is not userinfo");
	T_OK(!redact_has_userinfo(NULL), "NULL has none");
	return t_done();
}
