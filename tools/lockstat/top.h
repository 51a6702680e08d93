/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat top: what the collector (top.c: sources, replay, deltas, the
 * meaning of keys) hands its two renderers, the curses screen
 * (view_top.c) and the batch text and JSON (view_batch.c).
 *
 * A frame is one interval: the rows of the current snapshot minus those
 * of the previous one (lm_snap_delta()), filtered and sorted flat across
 * lock types (lm_flat_build()).  The first frame has no previous
 * snapshot and shows everything since metering started.  The renderers
 * only read a frame and the state; they never fetch, and top.c never
 * calls curses.
 */
#ifndef LOCKSTAT_TOP_H
#define LOCKSTAT_TOP_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "model.h"

/* the columns of top, left to right, as lm_keys[] ids; NAME is last */
extern const enum lm_key_id lm_top_cols[];
extern const unsigned int lm_top_nr_cols;

/* What the keys change; the screen's header shows it. */
struct lm_top_state {
	struct lm_filter filter;	/* .key, .reverse, .name, .types */
	int cpu;			/* -1: all CPUs merged */
	bool by_site;			/* a row per (lock, site), not per lock */
	bool tree;			/* T, F5: each lock, its sites beneath (by_site aside) */
	bool utf8;			/* batch: the tree's glyphs in UTF-8 (the locale's) */
	bool paused;			/* p: no fetching */
	bool help;			/* h, ?: the help screen is up */
	bool detail;			/* Enter: the selected row's detail pane */
	size_t sel;			/* the selected row (up, down, j, k) */
	unsigned int name_off;		/* [ ]: NAME's columns scrolled off to the left */
	char name[128];			/* storage of filter.name */
	char msg[160];			/* status line: what the last key did */
	const char *const *help_text;	/* the help screen: lines, NULL-ended */
};

struct lm_top_frame {
	const struct lm_header *h;	/* of the current snapshot */
	struct lm_ctx ctx;		/* .elapsed_ns: metered ns of the interval */
	bool since_start;		/* no previous snapshot: totals so far */
	double wall_s;			/* wall time between the samples; 0: none */
	uint64_t metered_ns;		/* since reset (.ctx has the interval's) */
	uint64_t loss_new[LM_NR_LOSSES];	/* losses within the interval */
	const struct lm_row *const *rows;	/* shown rows, sorted */
	const uint8_t *line;		/* the tree: enum lm_tree_line of each row; NULL: none */
	size_t nr;
	/*
	 * the total line, when nr > 0: the rows added up (lm_row_add()), type
	 * LM_TYPE_NONE ("all"), named "*TOTAL* of N rows" in total_name; in
	 * the tree, the locks' lines added up, "*TOTAL* of N locks"
	 */
	struct lm_row total;
	char total_name[48];
	size_t nr_locks;		/* the tree: the lines of its locks */
	size_t nr_active;		/* rows before the name/type filters */
	unsigned long seq;		/* frames so far, from 1 */
	const char *origin;		/* "netlink", "proc", or the replay file */
	bool replay_end;		/* the last replay file is shown */
};

/*
 * A cell of column @k for row @r: the key's printer, but NAME is the lock
 * and, for a per-site row, its site (func+0xoff, without the /0xsize; a
 * module's name once, after the site).
 */
void lm_top_cell(char *buf, size_t len, enum lm_key_id k, const struct lm_row *r,
		 const struct lm_top_frame *f);
/*
 * The tree: what row @i of @f is (enum lm_tree_line), or LM_TOP_FLAT when
 * @f is no tree; its NAME (a site's is the site alone: its lock is the
 * line above); the glyphs before that NAME as text, "- " and "+ " for an
 * open and a folded lock, "  |- " and "  `- " for its sites (in UTF-8,
 * box-drawing characters).  The screen draws them with the terminal's
 * line characters instead.
 */
#define LM_TOP_FLAT	(-1)
int lm_top_line(const struct lm_top_frame *f, size_t i);
void lm_top_name(char *buf, size_t len, const struct lm_top_frame *f, size_t i);
const char *lm_top_glyphs(int line, bool utf8);

/* "MAX" and "MEAN" are ambiguous in one line: HMAX, WMEAN */
const char *lm_top_header(enum lm_key_id k);
/* a column's width: the key's, or its header's if wider (NAME: 0, the rest) */
int lm_top_width(enum lm_key_id k);
/* TYPE and NAME are left-aligned, numbers right-aligned */
bool lm_top_left(enum lm_key_id k);

/*
 * The columns a line of @width shows (0: no limit, all of them): HP99
 * from 128 columns and HOLDER from 148 (NAME keeps the room of a lock and
 * site after them), then the others drop in the order of lm_col_drop[]
 * (model.c) until NAME keeps LM_TOP_NAME_MIN; under LM_TOP_NARROW columns
 * TYPE is abbreviated (lm_top_type_cell()).  NAME gets the rest: name_w
 * columns, blanks before it included (0: no limit).
 */
#define LM_TOP_MAX_COLS		16
#define LM_TOP_NAME_MIN		28
#define LM_TOP_NARROW		100
#define LM_HP99_MIN_COLS	128
#define LM_HOLDER_MIN_COLS	148

struct lm_top_layout {
	bool show[LM_TOP_MAX_COLS];	/* indexed as lm_top_cols[] */
	bool narrow;
	int name_w;
};

void lm_top_layout(struct lm_top_layout *lo, int width, const struct lm_key *sort);
/* a column's width in @lo (TYPE narrows) */
int lm_top_col_width(enum lm_key_id k, const struct lm_top_layout *lo);
/* the TYPE cell of @r in @lo: the type's short name where its name is wider */
void lm_top_type_cell(char *cell, size_t len, const struct lm_row *r,
		      const struct lm_top_layout *lo);
/* the total line's TYPE cell, "all", where other rows have their type */
#define LM_TOP_TOTAL_TYPE	"all"
/* the header line: "12:00:01 on 2 cpus interval 1.00s metered 1.00s ..." */
void lm_top_summary(char *buf, size_t len, const struct lm_top_frame *f,
		    const struct lm_top_state *st);
/* the loss line, "" when nothing was lost */
void lm_top_losses(char *buf, size_t len, const struct lm_top_frame *f);

/* batch mode (-b), view_batch.c; @top: rows per frame, 0 all */
void lm_batch_text(FILE *out, const struct lm_top_frame *f, const struct lm_top_state *st,
		   size_t top);
void lm_batch_json(FILE *out, const struct lm_top_frame *f, const struct lm_top_state *st,
		   size_t top);

/* the screen (view_top.c) */
enum {
	LM_TK_NONE = -1,	/* timeout, or a signal interrupted the wait */
	LM_TK_RESIZE = 0x1000,	/* the terminal changed size */
	LM_TK_LEFT,		/* arrow keys: the sort column */
	LM_TK_RIGHT,
	LM_TK_UP,		/* scroll */
	LM_TK_DOWN,
	LM_TK_PGUP,
	LM_TK_PGDN,
	LM_TK_HOME,
	LM_TK_END,		/* the last row */
	LM_TK_HUP,		/* the terminal hung up: quit */
};

/*
 * 0, or an exit code (not a terminal); every wait of the screen, prompts
 * too, ends soon after *@quit is set (the collector's signal flag)
 */
int lm_screen_open(const volatile sig_atomic_t *quit);
/* the terminal hung up (a wait saw it): the screen must close */
bool lm_screen_hungup(void);
void lm_screen_close(void);
void lm_screen_resize(void);	/* after SIGWINCH: new size, full redraw */
void lm_screen_redraw(void);	/* after SIGCONT: repaint everything */
/*
 * draw a frame (NULL: nothing fetched yet); @scroll: rows skipped at the
 * top, moved so that the selected row is on the screen
 */
void lm_screen_draw(const struct lm_top_frame *f, const struct lm_top_state *st,
		    size_t *scroll);
/* the rows a page holds at the current size */
size_t lm_screen_page(void);
/* wait up to @timeout_ms for a key: a character, LM_TK_*, or LM_TK_NONE */
int lm_screen_key(int timeout_ms);
/*
 * read a line at the bottom: 1 entered (maybe empty), 0 cancelled (Esc),
 * -1 ended by the quit flag or a terminal gone (the caller quits)
 */
int lm_screen_prompt(const char *prompt, char *buf, size_t len);

/* ask on the last line: 1 yes (y), 0 no (any other key), -1 as a prompt's */
int lm_screen_confirm(const char *question);

#endif /* LOCKSTAT_TOP_H */
