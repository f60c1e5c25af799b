/* Where cmax keeps what outlives one run on this host (audit run
 * directories, the results store): $CMAX_HOME, else $HOME/.cmax, else,
 * for an account without a home, $TMPDIR/cmax-<uid>. One rule for every
 * user of it, so `cmax audit` and `cmax runs` agree on the place. */
#ifndef CMAX_HOME_H
#define CMAX_HOME_H

/* The directory (malloc'd; it may not exist yet). *private_dir (when
 * private_dir is not NULL) gets a copy of it when it is the $TMPDIR
 * fallback, which the caller must create 0700 and check as its own. */
char *cmax_home(char **private_dir);
#endif
