/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat: what every file of the tool shares: exit codes, the messages
 * helper and the subcommand entry points.
 *
 * Helpers never exit(): they print what went wrong (once, where the
 * context is known) and return one of the exit codes below, which the
 * subcommand's main returns to main().
 */
#ifndef LOCKSTAT_H
#define LOCKSTAT_H

#include <stdio.h>

enum lm_exit {
	LM_EXIT_OK		= 0,
	LM_EXIT_ERR		= 1,	/* any other error */
	LM_EXIT_USAGE		= 2,	/* bad command line */
	LM_EXIT_PERM		= 3,	/* not root, EPERM, EACCES */
	LM_EXIT_NOLM		= 4,	/* neither the family nor /proc/lockmeter */
	LM_EXIT_NOFAMILY	= 5,	/* --source=netlink and no family */
	LM_EXIT_FILE		= 6,	/* snapshot file unreadable */
	LM_EXIT_CORRUPT		= 7,	/* snapshot file corrupt */
	LM_EXIT_NOTFOUND	= 8,	/* hist: no such lock or site */
	LM_EXIT_REGRESS		= 9,	/* diff: a gate found a regression (never an error) */
	LM_EXIT_NOEVIDENCE	= 10,	/* report --folded: no hold chain to print */
};

/* what on, off, reset and release ask for, whatever the source */
enum lm_ctl {
	LM_CTL_ON,
	LM_CTL_OFF,
	LM_CTL_RESET,
	LM_CTL_RELEASE,
	LM_NR_CTL
};

/* returned by the *_parse_args() functions for -h/--help */
#define LM_HELP		(-1)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define LOCKSTAT_VERSION	"1.0"

void lm_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* lm_err() appends to @buf (a status line) until called with @len 0 */
void lm_err_capture(char *buf, size_t len);
void lm_print_lines(FILE *f, const char *const *lines);
/* flush @f: 0, or LM_EXIT_ERR with a write error said (once per run) */
int lm_write_check(FILE *f);
/* after a write to @f: keep the errno of its first failure for lm_write_check() */
void lm_write_errno(FILE *f);
int lm_out_width(int opt);
/*
 * @len bytes of lines of text, each fitted into @width columns (0: as they
 * are); a line that starts with LM_PROSE is wrapped however it is indented
 */
#define LM_PROSE	'\x1f'
void lm_fit_text(FILE *f, const char *text, size_t len, int width);

/* "on", "off", "reset", "release": the subcommands and the words of /proc/lockmeter */
extern const char *const lm_ctl_words[LM_NR_CTL];
/* the enum lm_ctl of @word, or -1 */
int lm_ctl_find(const char *word);
/*
 * The kernel refused @op with @err, on @where ("netlink" or the /proc
 * file): LM_EXIT_ERR with what it means said, when @op has words of its
 * own for @err; else 0, and the caller says it as for any request
 */
int lm_ctl_refused(enum lm_ctl op, int err, const char *where);

int ctl_main(int argc, char **argv);	/* on, off, reset, release */
int status_main(int argc, char **argv);
int print_main(int argc, char **argv);
int record_main(int argc, char **argv);
int get_main(int argc, char **argv);
int report_main(int argc, char **argv);
int top_main(int argc, char **argv);
int export_main(int argc, char **argv);
int diff_main(int argc, char **argv);
int held_main(int argc, char **argv);
int hist_main(int argc, char **argv);
int watch_main(int argc, char **argv);

#endif /* LOCKSTAT_H */
