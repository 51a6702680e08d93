// SPDX-License-Identifier: GPL-2.0
/*
 * A userspace workload: two processes pass bytes through a named pipe in
 * lockstep, opening and closing it for every byte.  Each open, write,
 * read and close takes the pipe's mutex in fs/pipe.c.  The pipe is a
 * kmalloc'd object, so lockmeter reports those acquisitions as mutex rows
 * of its kmalloc cache ("kmalloc-192+0x0") at the pipe functions, and
 * their counts grow with the number of round trips.
 *
 * A round trip: the writer opens the FIFO for writing, waits in select()
 * until it is writable, writes one byte and closes it; the reader opens it
 * for reading, waits in select() until it is readable, reads the byte and
 * closes it.  The reader then acknowledges with SIGUSR1, which the writer
 * waits for before it opens the FIFO again: were the reader still holding
 * it open, the next open would not wait, and the next byte could be lost
 * with the pipe when the reader closed it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <time.h>

#include "lockmeter_lib.h"

#define SHORT_ROUNDS	200
#define LONG_ROUNDS	1000

/*
 * A round trip takes the pipe mutex about six times (open, the write or
 * read, and close, on each side); require two.  The long run makes 5x the
 * round trips of the short one; pipes the rest of the guest uses meanwhile
 * add a little, so accept 3x to 8x.
 */
#define MIN_PER_ROUND	2
#define RATIO_MIN	3
#define RATIO_MAX	8

/* How long the writer waits for the reader's acknowledgment. */
#define ACK_TIMEOUT_S	10
/* Spurious ends of file the reader retries, in one run. */
#define MAX_EOFS	50
/* SIGALRM (no SA_RESTART) ends a call blocked this long in one round. */
#define ROUND_TIMEOUT_S	20

/* Functions of fs/pipe.c that take pipe->mutex, in 6.12 and later. */
static const char * const pipe_funcs[] = {
	"pipe_read", "pipe_write", "fifo_open", "pipe_release", "pipe_poll",
	"pipe_fasync", "pipe_ioctl", "pipe_lock", "pipe_unlock", "__pipe_lock",
	"pipe_double_lock", "pipe_wait_readable", "pipe_wait_writable",
	"anon_pipe_write", "anon_pipe_read",
};

FIXTURE(pipe)
{
	char path[64];
	pid_t reader;		/* still to reap */
	struct lm_report rep;
};

FIXTURE_SETUP(pipe)
{
	if (access(LM_PROC, F_OK))
		SKIP(return, "%s missing: kernel without CONFIG_LOCKMETER", LM_PROC);
	ASSERT_EQ(0, lm_ctl("off"));
	snprintf(self->path, sizeof(self->path), "/tmp/lockmeter_pipe_test.%d", getpid());
	unlink(self->path);
	ASSERT_EQ(0, mkfifo(self->path, 0600)) TH_LOG("mkfifo %s: %s", self->path,
						      strerror(errno));
}

FIXTURE_TEARDOWN(pipe)
{
	if (self->reader > 0) {
		kill(self->reader, SIGKILL);
		lm_wait_child(self->reader);
	}
	EXPECT_EQ(0, lm_ctl("off"));
	unlink(self->path);
	lm_report_free(&self->rep);
}

/*
 * Whether @site, "func+0xoff/0xsize" in the kernel image, is in one of
 * pipe_funcs, ignoring a compiler suffix as in "func.isra.0+0x1c/0x90".
 */
static bool site_in_pipe_c(const char *site)
{
	size_t n = strcspn(site, ".+"), i;

	if (!strchr(site + n, '+') || strchr(site, '['))
		return false;
	for (i = 0; i < ARRAY_SIZE(pipe_funcs); i++)
		if (strlen(pipe_funcs[i]) == n && !strncmp(site, pipe_funcs[i], n))
			return true;
	return false;
}

/* select() until @fd is writable (@out) or readable: 1, or -1. */
static int wait_ready(int fd, bool out)
{
	fd_set set;

	FD_ZERO(&set);
	FD_SET(fd, &set);
	return select(fd + 1, out ? NULL : &set, out ? &set : NULL, NULL, NULL);
}

static int reader_fail(unsigned int round, int code, const char *what)
{
	ksft_print_msg("reader, round %u: %s: %s\n", round, what, strerror(errno));
	return code;
}

/*
 * In the child: @rounds times, read one byte through the FIFO at @path,
 * which must be the round number, and acknowledge it to @writer.
 */
static int reader(const char *path, unsigned int rounds, pid_t writer)
{
	unsigned int i, eofs = 0;
	ssize_t n;
	char c, eof;
	int fd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != writer)
		return 2;
	for (i = 0; i < rounds; i++) {
		alarm(ROUND_TIMEOUT_S);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return reader_fail(i, 3, "open");
		n = wait_ready(fd, false) == 1 ? read(fd, &c, 1) : -1;
		/*
		 * Then read to the end of file: the writer has closed its
		 * end before the acknowledgment, so the next round's opens
		 * meet each other.  A reader's open that met this round's
		 * writer sees end of file; a writer's open that met it
		 * writes into a pipe that both then close, byte and all.
		 */
		if (n == 1 && read(fd, &eof, 1) != 0) {
			close(fd);
			return reader_fail(i, 4, "read: no end of file after the byte");
		}
		close(fd);
		if (n == 0 && eofs++ < MAX_EOFS) {
			/*
			 * Now and then the open completes against the end of
			 * the previous round and the read sees end of file;
			 * the byte is there on the next open (seen with
			 * metering off too).  Retry the round.
			 */
			i--;
			continue;
		}
		if (n != 1)
			return reader_fail(i, 4, n ? "select or read" : "read: end of file");
		if (c != (char)i)
			return reader_fail(i, 5, "out of step");
		if (kill(writer, SIGUSR1))
			return reader_fail(i, 6, "kill");
	}
	alarm(0);
	return 0;
}

/* Wait for the reader's SIGUSR1 (blocked, so it stays pending until now). */
static int wait_ack(void)
{
	struct timespec ts = { .tv_sec = ACK_TIMEOUT_S };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	return sigtimedwait(&set, NULL, &ts);
}

/*
 * The writer's side of round @i.  Should the reader die, SIGCHLD (caught
 * without SA_RESTART) ends a blocked open() or select() with EINTR.
 *
 * The reader's end-of-file retry has a twin here: the writer's open can
 * complete against the reader's stale open of that retry, which the
 * reader then closes, and the write finds no reader (EPIPE; SIGPIPE is
 * ignored).  The byte was not written: the round is written again, and
 * the reader, retrying too, reads it.
 */
static void write_round(struct __test_metadata *_metadata, const char *path,
			unsigned int i)
{
	unsigned int epipes = 0;
	char c = (char)i;
	ssize_t n;
	int fd;

	/* a round that blocks for good fails at the call that blocked */
	alarm(ROUND_TIMEOUT_S);
	do {
		fd = open(path, O_WRONLY);
		ASSERT_LE(0, fd) TH_LOG("round %u: open: %s", i, strerror(errno));
		ASSERT_EQ(1, wait_ready(fd, true))
			TH_LOG("round %u: select: %s", i, strerror(errno));
		n = write(fd, &c, 1);
		ASSERT_EQ(0, close(fd));
	} while (n < 0 && errno == EPIPE && epipes++ < MAX_EOFS);
	ASSERT_EQ(1, n) TH_LOG("round %u: write: %s", i, strerror(errno));
	ASSERT_EQ(SIGUSR1, wait_ack())
		TH_LOG("round %u: no acknowledgment: %s", i, strerror(errno));
	alarm(0);
}

/*
 * The pipe's mutex is in its struct pipe_inode_info, from kmalloc: named
 * by its cache ("kmalloc-192+0x0", "kmalloc-cg-192+0x0"), or "[heap]" on
 * a kernel that does not tell slab objects apart.
 */
static bool is_pipe_row(const struct lm_row *row)
{
	return !strcmp(row->type, "mutex") &&
	       (!strcmp(row->lock, "[heap]") || !strncmp(row->lock, "kmalloc-", 8)) &&
	       site_in_pipe_c(row->site);
}

/* Sum of acquired over the pipe mutex rows, each printed and checked. */
static uint64_t pipe_rows(struct __test_metadata *_metadata,
			  const struct lm_report *rep, unsigned int rounds)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < rep->nr_rows; i++) {
		const struct lm_row *row = &rep->rows[i];

		if (!is_pipe_row(row))
			continue;
		ksft_print_msg("%u rounds: %s %s %s: acquired %" PRIu64 ", contended %" PRIu64
			       ", hold max %" PRIu64 " ns, blocked max %" PRIu64 " ns\n",
			       rounds, row->type, row->lock, row->site, row->acquired,
			       row->spin, row->hold_max, row->blocked_max);
		lm_row_check(_metadata, row);
		sum += row->acquired;
	}
	return sum;
}

/* Meter @rounds round trips; returns the pipe mutex acquisitions. */
static uint64_t metered_rounds(struct __test_metadata *_metadata,
			       FIXTURE_DATA(pipe) *self, unsigned int rounds)
{
	pid_t writer = getpid();
	unsigned int i;
	uint64_t sum;
	int status;

	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	self->reader = fork();
	ASSERT_LE(0, self->reader);
	if (!self->reader)
		_exit(reader(self->path, rounds, writer));
	for (i = 0; i < rounds; i++)
		write_round(_metadata, self->path, i);
	status = lm_wait_child(self->reader);
	self->reader = 0;
	ASSERT_EQ(0, lm_ctl("off"));
	ASSERT_EQ(0, status)
		TH_LOG("reader: 2 orphaned, 3 open, 4 select or read, 5 out of step, 6 kill");

	lm_report_read(_metadata, &self->rep);
	sum = pipe_rows(_metadata, &self->rep, rounds);
	lm_report_free(&self->rep);
	ksft_print_msg("%u rounds: %" PRIu64 " pipe mutex acquisitions\n", rounds, sum);
	return sum;
}

static void on_signal(int sig)
{
	(void)sig;
}

TEST_F_TIMEOUT(pipe, fifo_round_trips, 240)
{
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t small, big;
	sigset_t usr1;

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGCHLD, &sa, NULL));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_NE(SIG_ERR, signal(SIGPIPE, SIG_IGN));
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &usr1, NULL));

	small = metered_rounds(_metadata, self, SHORT_ROUNDS);
	EXPECT_LE((uint64_t)MIN_PER_ROUND * SHORT_ROUNDS, small);
	big = metered_rounds(_metadata, self, LONG_ROUNDS);
	EXPECT_LE((uint64_t)MIN_PER_ROUND * LONG_ROUNDS, big);

	EXPECT_LE(RATIO_MIN * small, big)
		TH_LOG("%u rounds: %" PRIu64 ", %u rounds: %" PRIu64, SHORT_ROUNDS, small,
		       LONG_ROUNDS, big);
	EXPECT_GE(RATIO_MAX * small, big)
		TH_LOG("%u rounds: %" PRIu64 ", %u rounds: %" PRIu64, SHORT_ROUNDS, small,
		       LONG_ROUNDS, big);
}

TEST_HARNESS_MAIN
