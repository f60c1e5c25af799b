/* GID strings from sysfs. */
#include "parse/rdma_gid.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int hexv(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

enum gid_kind gid_classify(const char *text, size_t len, char *ipv4, size_t cap)
{
	if (!text)
		return GID_INVALID;
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	/* exactly "xxxx:" x 7 + "xxxx" */
	if (len != 39)
		return GID_INVALID;
	unsigned char b[16];
	for (size_t g = 0; g < 8; g++) {
		const char *p = text + g * 5;
		for (int k = 0; k < 4; k++)
			if (!isxdigit((unsigned char)p[k]))
				return GID_INVALID;
		if (g < 7 && p[4] != ':')
			return GID_INVALID;
		b[2 * g] = (unsigned char)(hexv((unsigned char)p[0]) * 16 + hexv((unsigned char)p[1]));
		b[2 * g + 1] = (unsigned char)(hexv((unsigned char)p[2]) * 16 + hexv((unsigned char)p[3]));
	}
	static const unsigned char zero[16], mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	if (!memcmp(b, zero, 16))
		return GID_ZERO;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return GID_LINK_LOCAL;
	if (!memcmp(b, mapped, 12)) {
		if (ipv4 && cap >= 16)
			snprintf(ipv4, cap, "%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
		return GID_IPV4;
	}
	return GID_GLOBAL;
}

int gid_type_version(const char *text)
{
	if (!text)
		return 0;
	size_t n = strcspn(text, "\n");
	if (n == 7 && !strncmp(text, "RoCE v2", 7))
		return 2;
	if (n == 10 && !strncmp(text, "IB/RoCE v1", 10))
		return 1;
	return 0;
}

const char *gid_kind_name(enum gid_kind k)
{
	switch (k) {
	case GID_ZERO:
		return "unused";
	case GID_LINK_LOCAL:
		return "link-local";
	case GID_IPV4:
		return "ipv4-mapped";
	case GID_GLOBAL:
		return "global";
	default:
		return "invalid";
	}
}
