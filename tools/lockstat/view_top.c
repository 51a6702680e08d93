// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat top: the curses screen.  It draws what the collector (top.c)
 * hands it, a frame and the state of the keys, laid out as top(1) does:
 *
 *   lockstat top - 12:00:01 metering on  2 cpus ...   the summary
 *   sort: HMAX desc  filter: none  type: all ...      what is shown, in what order
 *   LOST: unmatched 8 (+0)                            the losses, when there are any
 *   filter: "rtnl"                                    what the last key did
 *     ACQ/s   UTIL   CON  HMEAN  *HMAX ...  NAME     the sort column has a *
 *      12.3k  0.59% 0.82%   13us   51ms ...  rtnl    a max new in the interval: bold
 *   -- 12 more rows (Down/PgDn) --
 *      15.1k  0.80% 0.70%  9.0us   51ms ... all *TOTAL* of 14 rows   bold: the rows added up
 *    mutex lmt_mutex lmt_mutex_sleeper+0x23            Enter: the selected row's detail
 *   worst hold 50ms by lmt_sleeper/420 on CPU 0, ...   pane, its evidence as --stacks
 *     lmt_mutex_sleeper+0x23/0x70 [test_lockmeter]     prints it, at the bottom
 *     blocked 49ms of it in schedule_timeout <- ...
 *
 * and reads keys and prompted lines.  It never fetches data, never calls
 * netlink or the sources, never sleeps but in getch(), and prints nothing
 * to stdout or stderr while curses is up.  Attributes are bold and
 * reverse only, so it works on a vt100; colour is used when there is some.
 * The only state is the curses screen itself.
 */
#include <curses.h>
#include <locale.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lockstat.h"
#include "top.h"
#include "view.h"

#define LM_MIN_COLS	60
#define LM_MIN_LINES	8
#define LM_HEAD_LINES	5	/* summary, sort, losses (if any), message, columns */
#define LM_PAIR_WARN	1
#define LM_PROMPT_LEN	256	/* the longest line a prompt edits, with its NUL */

#define LM_PROMPT_WAIT_MS 250	/* a prompt looks at the quit flag and the terminal this often */

static SCREEN *lm_scr;		/* NULL: the screen is closed */
static bool lm_color;		/* colors, unless the terminal or NO_COLOR says none */
static const volatile sig_atomic_t *lm_quit;	/* the collector's: set, every wait ends */
static bool lm_gone;		/* the terminal hung up */
static bool lm_lines;		/* the terminal draws lines: the tree's glyphs in them */

/*
 * After getch() gave ERR: is the terminal still there?  A hung-up tty
 * polls as HUP or ERR (a pty whose master closed, a vhangup()) and stops
 * being a tty; getch() on it returns ERR at once, so a loop that does not
 * ask would spin.
 */
static bool lm_term_gone(void)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };

	if (!lm_gone && ((poll(&pfd, 1, 0) == 1 && pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) ||
			 !isatty(STDIN_FILENO)))
		lm_gone = true;
	return lm_gone;
}

bool lm_screen_hungup(void)
{
	return lm_gone;
}

/* the loops of this file end when the collector's flag is set or the terminal is gone */
static bool lm_stop(void)
{
	return (lm_quit && *lm_quit) || lm_gone;
}

/* a terminal that can move the cursor: dumb ones would scroll the screen away */
static bool lm_can_address(void)
{
	const char *cup = tigetstr("cup");

	return cup && cup != (const char *)-1;
}

/* whether the alternate characters of @acsc (pairs: ours, the terminal's) have @c */
static bool lm_acs_has(const char *acsc, char c)
{
	size_t i, n = strlen(acsc);

	for (i = 0; i + 1 < n; i += 2)
		if (acsc[i] == c)
			return true;
	return false;
}

/* line characters for the tree's glyphs: a tee, a corner, a dash (t, m, q) */
static bool lm_can_draw_lines(void)
{
	const char *acsc = tigetstr("acsc");

	if (!acsc || acsc == (const char *)-1)
		return false;
	return lm_acs_has(acsc, 't') && lm_acs_has(acsc, 'm') && lm_acs_has(acsc, 'q');
}

void lm_screen_close(void)
{
	if (!lm_scr)
		return;
	curs_set(1);
	endwin();
	delscreen(lm_scr);
	lm_scr = NULL;
	setlocale(LC_CTYPE, "C");
}

int lm_screen_open(const volatile sig_atomic_t *quit)
{
	const char *term = getenv("TERM");

	if (lm_scr)
		return 0;
	lm_quit = quit;
	lm_gone = false;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		lm_err("top needs a terminal; use -b for batch mode");
		return LM_EXIT_USAGE;
	}
	if (!term || !*term) {
		lm_err("TERM is not set; set it, or use -b for batch mode");
		return LM_EXIT_ERR;
	}
	/*
	 * The locale's character set while the screen is up, as curses wants
	 * it: the tree's lines are then drawn in UTF-8 where the locale has it,
	 * else in the terminal's alternate characters.  Elsewhere lockstat
	 * stays in the C locale.
	 */
	setlocale(LC_CTYPE, "");
	/* not initscr(): it exits when the terminal is unknown */
	lm_scr = newterm(NULL, stdout, stdin);
	if (lm_scr && !lm_can_address()) {
		lm_screen_close();
		lm_err("terminal type '%s' cannot move the cursor; use -b for batch mode", term);
		return LM_EXIT_ERR;
	}
	if (!lm_scr) {
		setlocale(LC_CTYPE, "C");
		lm_err("unknown terminal type '%s' (TERM); use -b for batch mode", term);
		return LM_EXIT_ERR;
	}
	set_term(lm_scr);
	lm_lines = lm_can_draw_lines();
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	/* https://no-color.org: a non-empty NO_COLOR means none */
	lm_color = has_colors() && !(getenv("NO_COLOR") && *getenv("NO_COLOR")) &&
		   start_color() == OK;
	if (lm_color) {
		short bg = use_default_colors() == OK ? -1 : COLOR_BLACK;

		init_pair(LM_PAIR_WARN, COLOR_RED, bg);
	}
	return 0;
}

/* the terminal's size as the tty has it; false: unknown */
static bool lm_tty_size(struct winsize *ws)
{
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, ws) && ioctl(STDIN_FILENO, TIOCGWINSZ, ws))
		return false;
	return ws->ws_row && ws->ws_col;
}

/*
 * resizeterm() queues a KEY_RESIZE, even for the same size: only a new
 * size is passed on, so the LM_TK_RESIZE that follows may come back here
 * without starting a loop.
 */
void lm_screen_resize(void)
{
	struct winsize ws;

	if (!lm_scr)
		return;
	if (lm_tty_size(&ws) && (ws.ws_row != LINES || ws.ws_col != COLS))
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
}

void lm_screen_redraw(void)
{
	if (!lm_scr)
		return;
	/* a SIGSTOP'ed job gets the shell's tty modes back */
	reset_prog_mode();
	clearok(curscr, TRUE);
}

/* @s from column @x of line @y up to the right edge, odd bytes as '?'; the next x */
static int lm_put(int y, int x, const char *s, attr_t a)
{
	int cols = getmaxx(stdscr);

	if (x >= cols)
		return x;
	move(y, x);
	attron(a);
	for (; *s && x < cols; s++, x++)
		addch(*s >= ' ' && *s < 0x7f ? (chtype)*s : '?');
	attroff(a);
	return x;
}

/* @s in a field of @w, right-aligned (or left-aligned when @w < 0) */
static int lm_put_field(int y, int x, int w, const char *s, attr_t a)
{
	int pad = abs(w) - (int)strlen(s);

	for (; w > 0 && pad > 0; pad--)
		x = lm_put(y, x, " ", a);
	x = lm_put(y, x, s, a);
	for (; pad > 0; pad--)
		x = lm_put(y, x, " ", a);
	return x;
}

/* the rest of line @y from @x: blank, in @a */
static void lm_fill(int y, int x, attr_t a)
{
	for (; x < getmaxx(stdscr); x++)
		lm_put(y, x, " ", a);
}

/* the columns of the screen at its width, set by each lm_screen_draw() */
static struct lm_top_layout lm_lo;

/* a column's width for lm_put_field(): negative when left-aligned */
static int lm_col_width(enum lm_key_id k)
{
	int w = lm_top_col_width(k, &lm_lo);

	return lm_top_left(k) ? -w : w;
}

/* the max a cell shows, as a bit of ->fresh; 0: not a max */
static uint32_t lm_col_fresh(enum lm_key_id k)
{
	switch (k) {
	case LM_K_MAXHOLD:
	case LM_K_HOLDER:
		return 1U << LM_F_HOLD_MAX;
	case LM_K_MAXWAIT:
		return 1U << LM_F_WAIT_MAX;
	case LM_K_BLOCKED:
		return 1U << LM_F_BLOCKED_MAX;
	case LM_K_ONCPU:
		return 1U << LM_F_ONCPU_MAX;
	default:
		return 0;
	}
}

/*
 * Every column is a blank and its field; the sort column's * goes in the
 * blank, so the columns stay put when the sort changes.  NAME is the rest.
 */
static void lm_draw_colhdr(int y, const struct lm_top_state *st)
{
	unsigned int i;
	char hdr[64];
	int x = 0;

	for (i = 0; i < lm_top_nr_cols; i++) {
		enum lm_key_id k = lm_top_cols[i];
		bool sorted = st->filter.key == &lm_keys[k];
		attr_t a = A_REVERSE | (sorted ? A_BOLD : 0);
		int w = lm_col_width(k);

		if (!lm_lo.show[i])
			continue;
		snprintf(hdr, sizeof(hdr), "%s%s", sorted ? "*" : " ", lm_top_header(k));
		if (k == LM_K_NAME) {
			/* scrolled: from which of its columns NAME is shown */
			if (st->name_off)
				snprintf(hdr, sizeof(hdr), "%s%s from %u ([ back)", sorted ? "*" : " ",
					 lm_top_header(k), st->name_off + 1);
			x = lm_put(y, x, " ", A_REVERSE);
			x = lm_put(y, x, hdr, a);
			break;
		}
		x = lm_put_field(y, x, w < 0 ? w - 1 : w + 1, hdr, a);
	}
	lm_fill(y, x, A_REVERSE);
}

/* a glyph of a site of the tree in the terminal's line characters, when it has them */
static chtype lm_glyph(char c, bool site)
{
	if (!site || !lm_lines)
		return (chtype)c;
	switch (c) {
	case '|':
		return ACS_LTEE;
	case '`':
		return ACS_LLCORNER;
	case '-':
		return ACS_HLINE;
	default:
		return (chtype)c;
	}
}

/* NAME of row @i (f->nr: the total line) from its column @off: the tree's glyphs, the name */
static int lm_put_name(int y, int x, const struct lm_top_frame *f, size_t i, attr_t a,
		       size_t off)
{
	int line = i < f->nr ? lm_top_line(f, i) : LM_TOP_FLAT;
	const char *g = lm_top_glyphs(line, false);
	size_t k, n = strlen(g), skip = off > n ? off - n : 0;
	char name[512];

	if (i < f->nr)
		lm_top_name(name, sizeof(name), f, i);
	else
		lm_top_cell(name, sizeof(name), LM_K_NAME, &f->total, f);
	for (k = off; k < n && x < getmaxx(stdscr); k++, x++) {
		move(y, x);
		addch(lm_glyph(g[k], lm_tree_site(line)) | a);
	}
	return lm_put(y, x, name + (skip < strlen(name) ? skip : strlen(name)), a);
}

/*
 * Row @i of the table (f->nr: the total line) in @base; the selected one
 * (A_REVERSE) to the right edge
 */
static void lm_draw_row(int y, size_t i, const struct lm_top_frame *f, attr_t base, size_t off)
{
	const struct lm_row *r = i < f->nr ? f->rows[i] : &f->total;
	bool sel = base & A_REVERSE;
	unsigned int c;
	char cell[512];
	int x = 0;

	for (c = 0; c < lm_top_nr_cols; c++) {
		enum lm_key_id k = lm_top_cols[c];
		attr_t a = base | (r->fresh & lm_col_fresh(k) ? A_BOLD : A_NORMAL);

		if (!lm_lo.show[c])
			continue;
		x = lm_put(y, x, " ", base);
		if (k == LM_K_NAME) {
			x = lm_put(y, x, " ", base);
			x = lm_put_name(y, x, f, i, a, off);
			break;
		}
		lm_top_cell(cell, sizeof(cell), k, r, f);
		if (k == LM_K_TYPE)
			lm_top_type_cell(cell, sizeof(cell), r, &lm_lo);
		x = lm_put_field(y, x, lm_col_width(k), cell, a);
	}
	if (sel)
		lm_fill(y, x, base);
}

/* line 2 without losses: what the rows are and how they are sorted */
static void lm_draw_sort(int y, const struct lm_top_state *st)
{
	const struct lm_key *key = st->filter.key;
	const char *name = st->filter.name;
	char types[160] = "", cpu[16] = "all", filt[160] = "none", line[512];
	size_t n = 0;
	int t;

	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES && n < sizeof(types); t++)
		if (st->filter.types & (1U << t))
			n += snprintf(types + n, sizeof(types) - n, "%s%s", n ? "," : "",
				      lm_type_name(t));
	if (st->cpu >= 0)
		snprintf(cpu, sizeof(cpu), "%d", st->cpu);
	if (name && *name)
		snprintf(filt, sizeof(filt), "\"%s\"", name);
	snprintf(line, sizeof(line), "sort: %s %s  filter: %s  type: %s  cpu: %s  group: %s",
		 key ? lm_top_header((enum lm_key_id)(key - lm_keys)) : "?",
		 key && key->desc != st->filter.reverse ? "desc" : "asc", filt,
		 *types ? types : "all", cpu,
		 st->tree ? "tree  (- fold, + open, * all)" : st->by_site ? "site" : "lock");
	lm_put(y, 0, line, A_NORMAL);
}

/* rows *@scroll.. on @avail lines, the last page full; how many rows are shown */
static size_t lm_clamp(size_t nr, size_t avail, size_t *scroll)
{
	if (nr <= avail) {
		*scroll = 0;
		return nr;
	}
	if (*scroll >= nr - avail) {
		*scroll = nr - avail;
		return avail;
	}
	return avail - 1;	/* and the "more" line */
}

/* why a frame has no rows */
static const char *lm_empty_why(const struct lm_top_frame *f)
{
	if (f->nr_active)
		return "no rows match the filter";
	if (lm_has(f->h, LM_H_STATE) && !f->h->on)
		return "no lock activity: metering is off (o switches it on)";
	return f->since_start ? "no lock activity metered" : "no lock activity in this interval";
}

/* the rows shown from *@scroll on, moved so that row @sel is one of them */
static size_t lm_follow(size_t nr, size_t avail, size_t sel, size_t *scroll)
{
	size_t shown = lm_clamp(nr, avail, scroll);

	if (sel < *scroll) {
		*scroll = sel;
		shown = lm_clamp(nr, avail, scroll);
	} else if (sel >= *scroll + shown && avail > 1) {
		/* sel the last row above the "more" line, or the last row of all */
		*scroll = sel + 2 - avail;
		shown = lm_clamp(nr, avail, scroll);
	}
	return shown;
}

/* the row the selection is on: st->sel, or the last row when there are fewer */
static size_t lm_sel(const struct lm_top_frame *f, const struct lm_top_state *st)
{
	return st->sel < f->nr ? st->sel : f->nr - 1;
}

/* rows on lines @y to @lines - 1, the total line last (with room for a row too) */
static void lm_draw_rows(int y, int lines, const struct lm_top_frame *f,
			 const struct lm_top_state *st, size_t *scroll)
{
	int total = lines - y > 1;
	size_t i, shown, sel;
	char more[80];

	if (!f->nr) {
		*scroll = 0;
		lm_put(y, 0, lm_empty_why(f), A_NORMAL);
		return;
	}
	sel = lm_sel(f, st);
	shown = lm_follow(f->nr, (size_t)(lines - y - total), sel, scroll);
	for (i = 0; i < shown; i++)
		lm_draw_row(y + (int)i, *scroll + i, f, *scroll + i == sel ? A_REVERSE : A_NORMAL,
			    st->name_off);
	y += (int)shown;
	if (*scroll + shown < f->nr) {
		snprintf(more, sizeof(more), "-- %zu more rows (Down/PgDn) --",
			 f->nr - *scroll - shown);
		lm_put(y++, 0, more, A_BOLD);
	}
	if (total)
		lm_draw_row(y, f->nr, f, A_BOLD, st->name_off);
}

/* ---- the detail pane: the evidence of the selected row ---- */

#define LM_DETAIL_LINES	80	/* lines a pane may have: 2 chains of 16, one blocked */
#define LM_DETAIL_ROWS	3	/* table lines the pane leaves, at least */

struct lm_detail {
	char line[LM_DETAIL_LINES][512];
	int nr;
};

/* a line, cut at the width of any terminal */
static void lm_detail_add(struct lm_detail *d, const char *indent, const char *s)
{
	char *l = d->line[d->nr];
	size_t n;

	if (d->nr == LM_DETAIL_LINES)
		return;
	d->nr++;
	n = strlen(indent) < sizeof(d->line[0]) ? strlen(indent) : 0;
	memcpy(l, indent, n);
	snprintf(l + n, sizeof(d->line[0]) - n, "%.*s", (int)(sizeof(d->line[0]) - n - 1), s);
}

static void lm_detail_frames(struct lm_detail *d, const char *indent, const char *const *frame,
			     uint32_t n)
{
	char buf[4 * LM_FRAME_MAX];
	uint32_t i;

	for (i = 0; i < n; i++) {
		lm_esc(buf, sizeof(buf), frame[i], "");
		lm_detail_add(d, indent, buf);
	}
}

/*
 * What the pane says of @r: the worst holder (comm/pid, CPU, the context
 * when not its task's own) and its chain, where it blocked and that chain,
 * the worst waiter and the owner it waited for, as --stacks prints them
 */
static void lm_detail_build(struct lm_detail *d, const struct lm_row *r,
			    const struct lm_top_frame *f)
{
	const struct lm_evidence *ev;
	char buf[4 * LM_FRAME_MAX];
	int k;

	d->nr = 0;
	for (k = 0; k < LM_NR_EV; k++) {
		ev = r->ev[k];
		if (!ev) {
			lm_detail_add(d, "", k == LM_EV_HOLD ? "worst hold: no evidence" :
				      r->v[LM_F_SPIN] ? "worst wait: no evidence" : "no waits");
			continue;
		}
		lm_ev_head_line(buf, sizeof(buf), r, k);
		lm_detail_add(d, "", buf);
		lm_detail_frames(d, "  ", ev->frame, ev->nr_frames);
		if (!lm_ev_has(ev, LM_EB_BLOCKED))
			continue;
		lm_ev_blocked_line(buf, sizeof(buf), ev);
		lm_detail_add(d, "  ", buf);
		lm_detail_frames(d, "    ", ev->blocked_frame, ev->nr_blocked);
	}
	if (!r->ev[LM_EV_HOLD] && !r->ev[LM_EV_WAIT] && f->h && !strcmp(f->h->source, "proc"))
		lm_detail_add(d, "", "(/proc/lockmeter has no evidence: the netlink source has)");
}

/* @d, the pane of row @r, on lines @y to @lines - 1, its title first */
static void lm_draw_detail(int y, int lines, const struct lm_detail *d, const struct lm_row *r,
			   const struct lm_top_frame *f)
{
	char title[512], name[512];
	int i, room = lines - y - 1;

	lm_top_cell(name, sizeof(name), LM_K_NAME, r, f);
	snprintf(title, sizeof(title), " %s %.400s  (Enter: close)", lm_type_name(r->type), name);
	lm_fill(y, lm_put(y, 0, title, A_REVERSE), A_REVERSE);
	for (i = 0; i < d->nr && i < room; i++) {
		if (i == room - 1 && d->nr > room) {
			snprintf(title, sizeof(title), "-- %d more lines (a taller terminal shows them) --",
				 d->nr - i);
			lm_put(y + 1 + i, 0, title, A_BOLD);
			break;
		}
		lm_put(y + 1 + i, 0, d->line[i], A_NORMAL);
	}
}

/*
 * Lines the pane of @d takes of the @avail below the column line: what it
 * needs, leaving the table its @nr rows up to half of @avail and at least
 * LM_DETAIL_ROWS; 0 when there is no room for a title and a line
 */
static int lm_detail_height(const struct lm_detail *d, int avail, size_t nr)
{
	int rows = nr < (size_t)(avail / 2) ? (int)nr : avail / 2;
	int h;

	if (rows < LM_DETAIL_ROWS)
		rows = LM_DETAIL_ROWS;
	h = avail - rows;
	if (h < 2)
		return 0;
	return h > d->nr + 1 ? d->nr + 1 : h;
}

/* the collector's lines, and how to leave on the last line */
static void lm_draw_help(int lines, const struct lm_top_state *st)
{
	const char *const *l = st->help_text;
	int y;

	for (y = 0; l && *l && y < lines - 1; l++, y++)
		lm_put(y, 0, *l, A_NORMAL);
	lm_fill(lines - 1, lm_put(lines - 1, 0, "-- press any key to return --", A_REVERSE),
		A_REVERSE);
}

void lm_screen_draw(const struct lm_top_frame *f, const struct lm_top_state *st,
		    size_t *scroll)
{
	attr_t warn = A_BOLD | A_REVERSE | (lm_color ? COLOR_PAIR(LM_PAIR_WARN) : 0);
	static struct lm_detail detail;
	int lines, cols, y = 2, pane;
	char buf[512];

	if (!lm_scr)
		return;
	getmaxyx(stdscr, lines, cols);
	erase();
	if (lines < LM_MIN_LINES || cols < LM_MIN_COLS) {
		snprintf(buf, sizeof(buf), "screen too small: %dx%d, need %dx%d", cols, lines,
			 LM_MIN_COLS, LM_MIN_LINES);
		lm_put(0, 0, buf, A_BOLD);
		refresh();
		return;
	}
	lm_top_layout(&lm_lo, cols, st->filter.key);
	if (st->help) {
		lm_draw_help(lines, st);
		refresh();
		return;
	}
	if (f)
		lm_top_summary(buf, sizeof(buf), f, st);
	else
		snprintf(buf, sizeof(buf), "lockstat top - collecting the first sample...%s",
			 st->paused ? "  PAUSED" : "");
	lm_put(0, 0, buf, st->paused ? A_BOLD : A_NORMAL);
	lm_draw_sort(1, st);
	buf[0] = '\0';
	if (f)
		lm_top_losses(buf, sizeof(buf), f);
	if (*buf) {
		lm_fill(y, lm_put(y, 0, buf, warn), warn);
		y++;
	}
	lm_put(y++, 0, st->msg, A_BOLD);
	lm_draw_colhdr(y++, st);
	pane = 0;
	if (f && f->nr && st->detail) {
		lm_detail_build(&detail, f->rows[lm_sel(f, st)], f);
		pane = lm_detail_height(&detail, lines - y, f->nr);
	}
	if (f)
		lm_draw_rows(y, lines - pane, f, st, scroll);
	if (pane)
		lm_draw_detail(lines - pane, lines, &detail, f->rows[lm_sel(f, st)], f);
	else if (f && f->nr && st->detail)
		lm_put(lines - 1, 0, "(no room for the detail pane: a taller terminal)", A_BOLD);
	refresh();
}

/* rows on a page of the current size, for PgUp/PgDn */
size_t lm_screen_page(void)
{
	int lines = lm_scr ? getmaxy(stdscr) : 0;

	return lines > LM_HEAD_LINES + 2 ? (size_t)(lines - LM_HEAD_LINES - 1) : 1;
}

int lm_screen_key(int timeout_ms)
{
	static const int map[][2] = {
		{ KEY_RESIZE, LM_TK_RESIZE }, { KEY_LEFT, LM_TK_LEFT }, { KEY_RIGHT, LM_TK_RIGHT },
		{ KEY_UP, LM_TK_UP }, { KEY_DOWN, LM_TK_DOWN }, { KEY_PPAGE, LM_TK_PGUP },
		{ KEY_NPAGE, LM_TK_PGDN }, { KEY_HOME, LM_TK_HOME }, { KEY_ENTER, '\r' },
		{ KEY_END, LM_TK_END },
		/* htop's function keys: F1 help, F5 tree, F6 sort by, F10 quit */
		{ KEY_F(1), 'h' }, { KEY_F(5), 'T' }, { KEY_F(6), 's' }, { KEY_F(10), 'q' },
	};
	unsigned int i;
	int c;

	if (!lm_scr)
		return LM_TK_NONE;
	timeout(timeout_ms < 0 ? -1 : timeout_ms);
	c = getch();	/* ERR: the timeout, a signal, or a terminal gone */
	if (c == ERR && lm_term_gone())
		return LM_TK_HUP;
	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (c == map[i][0])
			return map[i][1];
	return c >= 0 && c <= 255 ? c : LM_TK_NONE;
}

/* on the last line: the prompt and the end of the line being edited, the cursor after it */
static void lm_prompt_draw(const char *prompt, const char *line, size_t n, int *py)
{
	int y = getmaxy(stdscr) - 1, cols = getmaxx(stdscr);
	int room = cols - (int)strlen(prompt) - 1;
	int x;

	if (*py >= 0 && *py < y) {
		move(*py, 0);
		clrtoeol();
	}
	*py = y;
	move(y, 0);
	clrtoeol();
	x = lm_put(y, 0, prompt, A_BOLD);
	if (room > 0)
		x = lm_put(y, x, line + (n > (size_t)room ? n - (size_t)room : 0), A_NORMAL);
	move(y, x < cols ? x : cols - 1);
	refresh();
}

#define LM_KEY_QUIT	(-2)	/* lm_prompt_wait(): a signal to quit, or the terminal gone */

/*
 * A key for a prompt or a question, waiting LM_PROMPT_WAIT_MS at most:
 * the key, ERR (none yet, or a resize: redraw and wait again) or
 * LM_KEY_QUIT.  In raw mode: the caller's ^C is a key.
 */
static int lm_prompt_wait(void)
{
	struct winsize ws;
	int c = getch();

	if (c != ERR)
		return c;
	/* the wait, a signal (TERM, INT, HUP: quit) or a terminal gone */
	if (lm_stop() || lm_term_gone())
		return LM_KEY_QUIT;
	/* with the collector's WINCH handler, the only resize notice */
	if (lm_tty_size(&ws) && (ws.ws_row != LINES || ws.ws_col != COLS))
		resizeterm(ws.ws_row, ws.ws_col);
	return ERR;
}

/* raw mode and a visible cursor while a prompt or question waits; false: leave it */
static void lm_prompt_mode(bool on)
{
	if (on) {
		raw();
		curs_set(1);
		timeout(LM_PROMPT_WAIT_MS);
		return;
	}
	curs_set(0);
	noraw();
	cbreak();
}

/* one key of the prompt: 1 entered, 0 cancelled, -1 go on */
static int lm_prompt_key(int c, char *line, size_t *n, size_t cap)
{
	switch (c) {
	case '\n':
	case '\r':
	case KEY_ENTER:
		return 1;
	case 27:	/* Esc */
	case 3:		/* ^C: raw mode, no SIGINT */
		return 0;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (*n)
			line[--*n] = '\0';
		return -1;
	case 21:	/* ^U */
		*n = 0;
		line[0] = '\0';
		return -1;
	}
	if (c >= ' ' && c < 0x7f && *n + 1 < cap) {
		line[(*n)++] = (char)c;
		line[*n] = '\0';
	}
	return -1;
}

/*
 * Raw mode while editing, so ^C cancels the line instead of quitting and
 * ^Z does not suspend: the signals left are WINCH and CONT, after which
 * the line goes on, and an outside TERM, INT or HUP, which end it at
 * once, as a terminal that hangs up does.  The wait is bounded, so a
 * signal that comes just before it is seen too.
 */
int lm_screen_prompt(const char *prompt, char *buf, size_t len)
{
	size_t n, cap = len < LM_PROMPT_LEN ? len : LM_PROMPT_LEN;
	char line[LM_PROMPT_LEN];
	int py = -1, ret = -1;

	if (!lm_scr || !len)
		return 0;
	if (lm_stop())
		return -1;
	n = strlen(buf);
	if (n >= cap)
		n = cap - 1;
	memcpy(line, buf, n);
	line[n] = '\0';
	lm_prompt_mode(true);
	while (ret == -1) {
		int c;

		lm_prompt_draw(prompt, line, n, &py);
		c = lm_prompt_wait();
		if (c == LM_KEY_QUIT)
			ret = LM_KEY_QUIT;
		else if (c != ERR)
			ret = lm_prompt_key(c, line, &n, cap);
	}
	lm_prompt_mode(false);
	move(py, 0);
	clrtoeol();
	refresh();
	if (ret == 1)
		memcpy(buf, line, n + 1);
	return ret == LM_KEY_QUIT ? -1 : ret;
}

/* a question on the last line: y or Y is yes, any other key no */
int lm_screen_confirm(const char *question)
{
	int py = -1, c = ERR;

	if (!lm_scr)
		return 0;
	if (lm_stop())
		return -1;
	lm_prompt_mode(true);
	while (c == ERR) {
		lm_prompt_draw(question, "", 0, &py);
		c = lm_prompt_wait();
	}
	lm_prompt_mode(false);
	move(py, 0);
	clrtoeol();
	refresh();
	if (c == LM_KEY_QUIT)
		return -1;
	return c == 'y' || c == 'Y';
}
