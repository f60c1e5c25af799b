/* Distribution kernel release strings (parse/kernelrel.h). */
#include "parse/kernelrel.h"
#include "core/strbuf.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REL_MAX 128
#define TOK_MAX 64

static int rel_char(unsigned char c)
{
	return isalnum(c) || c == '.' || c == '_' || c == '+' || c == '~' || c == '-';
}

/* A release or version token: a digit first, then only release characters. */
static int valid_token(const char *s, size_t n, size_t max)
{
	if (!n || n > max || !isdigit((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!rel_char((unsigned char)s[i]))
			return 0;
	return 1;
}

/* "5.15.185" or "6.1.119-1": digits and dots, at least one dot. */
static int version_like(const char *s, size_t n)
{
	int dots = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.')
			dots++;
		else if (!isdigit((unsigned char)s[i]))
			return 0;
	}
	return dots > 0 && n && isdigit((unsigned char)s[n - 1]);
}

/* The word after "marker" in text, when it is a valid token; malloc'd. */
static char *word_after(const char *text, const char *marker)
{
	const char *p = text ? strstr(text, marker) : NULL;
	if (!p)
		return NULL;
	p += strlen(marker);
	size_t n = strcspn(p, " \t\r\n()");
	return valid_token(p, n, TOK_MAX) ? xstrndup(p, n) : NULL;
}

static const char *const debian_flavours[] = {
	"amd64", "arm64", "cloud-amd64", "cloud-arm64", "rt-amd64", "rt-arm64", "686", "686-pae",
	"armmp", "armmp-lpae", "powerpc64le", "s390x", NULL,
};

static int is_debian_flavour(const char *f)
{
	for (int i = 0; debian_flavours[i]; i++)
		if (!strcmp(f, debian_flavours[i]))
			return 1;
	return 0;
}

/* Strip a trailing ".x86_64" / ".aarch64" (and a "+rt"-style variant) off
 * an RPM release; *flavour gets what was cut, without the dot ("x86_64+rt"). */
static char *rpm_base(const char *rel, char **flavour)
{
	static const char *const arches[] = { ".x86_64", ".aarch64", ".ppc64le", ".s390x", ".noarch", NULL };
	size_t n = strlen(rel);
	const char *plus = strchr(rel, '+');
	size_t end = plus ? (size_t)(plus - rel) : n;
	for (int i = 0; arches[i]; i++) {
		size_t al = strlen(arches[i]);
		if (end > al && !strncmp(rel + end - al, arches[i], al)) {
			*flavour = xasprintf("%.*s%s", (int)al - 1, rel + end - al + 1, plus ? plus : "");
			return xstrndup(rel, end - al);
		}
	}
	*flavour = xstrdup(plus ? plus + 1 : "");
	return xstrndup(rel, end);
}

/* "6.8.0-137-generic": the ABI (137) and the flavour after it; -1 and ""
 * when the release has no "-<digits>-" part. */
static long abi_and_flavour(const char *rel, const char **flavour)
{
	const char *d = strchr(rel, '-');
	*flavour = "";
	if (!d || !isdigit((unsigned char)d[1]))
		return -1;
	char *end;
	long abi = strtol(d + 1, &end, 10);
	if (*end == '-' && end[1])
		*flavour = end + 1;
	else if (*end)
		return -1;
	return abi;
}

static void parse_ubuntu(const char *rel, const char *signature, struct kernel_rel *k)
{
	const char *fl;
	k->format = "ubuntu";
	k->abi = abi_and_flavour(rel, &fl);
	k->flavour = xstrdup(fl);
	/* "Ubuntu 5.15.0-143.153-generic 5.15.185": the package build, then upstream */
	char *pkg = word_after(signature, "Ubuntu ");
	if (pkg && *fl && str_ends(pkg, fl) && strlen(pkg) > strlen(fl) + 1 && pkg[strlen(pkg) - strlen(fl) - 1] == '-') {
		pkg[strlen(pkg) - strlen(fl) - 1] = 0;
		k->distro = pkg;
		pkg = NULL;
		const char *up = strchr(signature + strlen("Ubuntu "), ' ');
		if (up) {
			up++;
			size_t n = strcspn(up, " \t\r\n");
			if (n <= TOK_MAX && version_like(up, n))
				k->upstream = xstrndup(up, n);
		}
	}
	free(pkg);
	if (!k->distro) {
		/* "5.15.0-143-generic" -> "5.15.0-143": the ABI is all the release says */
		const char *d = strchr(rel, '-');
		const char *d2 = d && k->abi >= 0 ? strchr(d + 1, '-') : NULL;
		k->distro = xstrndup(rel, d2 ? (size_t)(d2 - rel) : strlen(rel));
	}
}

static void parse_debian(const char *rel, const char *pkgver, struct kernel_rel *k)
{
	const char *fl;
	k->format = "debian";
	k->abi = abi_and_flavour(rel, &fl);
	k->flavour = xstrdup(fl);
	if (pkgver) {
		k->distro = xstrdup(pkgver);
		size_t n = strcspn(pkgver, "-+~");
		if (version_like(pkgver, n))
			k->upstream = xstrndup(pkgver, n);
	} else {
		size_t n = *fl ? strlen(rel) - strlen(fl) - 1 : strlen(rel);
		k->distro = xstrndup(rel, n);
	}
}

/* "5.14.21-150500.55.83-default": SUSE's release numbers start with the
 * service pack code (150500 is 15 SP5, 160000 is 16.0). */
static int suse_like(const char *rel)
{
	const char *d = strchr(rel, '-');
	if (!d)
		return 0;
	size_t n = strspn(d + 1, "0123456789");
	return n == 6 && (!strncmp(d + 1, "150", 3) || !strncmp(d + 1, "160", 3));
}

static void parse_tail_flavour(const char *rel, struct kernel_rel *k)
{
	const char *last = strrchr(rel, '-');
	if (last && last != strchr(rel, '-') && !isdigit((unsigned char)last[1])) {
		k->distro = xstrndup(rel, (size_t)(last - rel));
		k->flavour = xstrdup(last + 1);
	} else {
		k->distro = xstrdup(rel);
		k->flavour = xstrdup("");
	}
}

static void parse_upstream(const char *rel, struct kernel_rel *k)
{
	k->format = "upstream";
	size_t n = strspn(rel, "0123456789.");
	while (n && rel[n - 1] == '.')
		n--;
	k->upstream = version_like(rel, n) ? xstrndup(rel, n) : NULL;
	k->distro = xstrndup(rel, n);
	const char *rest = rel + strspn(rel, "0123456789.");
	k->flavour = xstrdup(*rest == '-' ? rest + 1 : rest);
}

int kernelrel_parse(const char *release, const char *signature, const char *proc_version, struct kernel_rel *out)
{
	memset(out, 0, sizeof *out);
	out->abi = -1;
	if (!release || !valid_token(release, strlen(release), REL_MAX))
		return -1;
	char *end;
	long maj = strtol(release, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]) || maj > 99)
		return -1;
	long min = strtol(end + 1, &end, 10);
	if (min > 999)
		return -1;
	out->major = (int)maj;
	out->minor = (int)min;
	snprintf(out->series, sizeof out->series, "%d.%d", out->major, out->minor);

	const char *el = strstr(release, ".el");
	char *debver = word_after(proc_version, " Debian ");
	const char *fl;
	if (el && isdigit((unsigned char)el[3])) {
		out->format = "rhel";
		out->distro = rpm_base(release, &out->flavour);
	} else if (strstr(release, ".amzn")) {
		out->format = "amazon";
		out->distro = rpm_base(release, &out->flavour);
		size_t n = strcspn(release, "-");
		if (version_like(release, n))
			out->upstream = xstrndup(release, n);
	} else if (debver) {
		parse_debian(release, debver, out);
	} else if (signature && str_starts(signature, "Ubuntu ")) {
		parse_ubuntu(release, signature, out);
	} else if (suse_like(release)) {
		out->format = "suse";
		parse_tail_flavour(release, out);
	} else if (abi_and_flavour(release, &fl) >= 0 && *fl) {
		/* "X.Y.0-N-flavour" without a signature or a Debian /proc/version:
		 * the flavour tells the two apart */
		if (is_debian_flavour(fl))
			parse_debian(release, NULL, out);
		else
			parse_ubuntu(release, NULL, out);
	} else {
		parse_upstream(release, out);
	}
	free(debver);
	return 0;
}

void kernelrel_release(struct kernel_rel *k)
{
	free(k->upstream);
	free(k->distro);
	free(k->flavour);
	memset(k, 0, sizeof *k);
	k->abi = -1;
}
