#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/home.h"
#include "core/strbuf.h"

char *cmax_home(char **private_dir)
{
	if (private_dir)
		*private_dir = NULL;
	const char *ch = getenv("CMAX_HOME");
	if (ch && *ch)
		return xstrdup(ch);
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	/* Never create a home directory: service accounts (slurm, munge,
	 * nobody) have HOME=/nonexistent, and root could make it exist. */
	struct stat st;
	if (!home || stat(home, &st) != 0 || !S_ISDIR(st.st_mode)) {
		const char *tmp = getenv("TMPDIR");
		char *priv = xasprintf("%s/cmax-%ld", tmp && *tmp ? tmp : "/tmp", (long)getuid());
		if (private_dir)
			*private_dir = xstrdup(priv);
		return priv;
	}
	return xasprintf("%s/.cmax", home);
}
