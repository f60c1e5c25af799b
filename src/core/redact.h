/* Credentials kept out of everything cmax prints or stores. A URL's
 * userinfo (https://key:secret@host/) is a password in plain sight: it is
 * shown as three asterisks before the "@" on stderr, in plans, result
 * rows, evidence and reports, while the request itself still uses it. */
#ifndef CMAX_REDACT_H
#define CMAX_REDACT_H

/* Copy of s with the userinfo of every URL in it (scheme "://" userinfo
 * "@" host) replaced by "***": a whole URL, or one inside an error message
 * or a command line. Text without "://" is returned unchanged (an ssh-style
 * user@host is no URL and no secret). Caller frees; NULL for NULL. */
char *redact_urls(const char *s);

/* Nonzero when s holds a URL with userinfo. */
int redact_has_userinfo(const char *s);
#endif
