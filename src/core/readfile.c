#include "readfile.h"
#include "strbuf.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

char *read_file_capped(const char *path, size_t cap, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	ssize_t n;
	while (sb.len < cap && (n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			sb_free(&sb);
			errno = e;
			return NULL;
		}
		sb_add(&sb, buf, (size_t)n > cap - sb.len ? cap - sb.len : (size_t)n);
	}
	close(fd);
	if (len)
		*len = sb.len;
	return sb_detach(&sb);
}
