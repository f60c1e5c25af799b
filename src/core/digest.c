#include <openssl/evp.h>
#include <stdio.h>

#include "core/digest.h"

int digest_sha256_hex(const void *data, size_t len, char hex[DIGEST_HEX_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n * 2 != DIGEST_HEX_LEN)
		return -1;
	for (unsigned int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[DIGEST_HEX_LEN] = 0;
	return 0;
}
