/* Replays a fuzz corpus as an ordinary test under gcc: every file given on
 * the command line (or every file in a directory) is fed to the target.
 * A crash or sanitizer report fails the test; otherwise prints TAP. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path, int n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("not ok %d - cannot open %s\n", n, path);
		return 1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		return 1;
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	printf("ok %d - %s\n", n, path);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int n = 0, failed = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *de;
			char *names[4096];
			int k = 0;
			while (d && (de = readdir(d)) && k < 4096)
				if (de->d_name[0] != '.')
					names[k++] = strdup(de->d_name);
			if (d)
				closedir(d);
			qsort(names, (size_t)k, sizeof *names, cmp);
			for (int j = 0; j < k; j++) {
				char p[4096];
				snprintf(p, sizeof p, "%s/%s", argv[i], names[j]);
				failed += run_file(p, ++n);
				free(names[j]);
			}
		} else {
			failed += run_file(argv[i], ++n);
		}
	}
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
