// SPDX-License-Identifier: GPL-2.0
/*
 * workload: the lock-heavy user-space half of "make bench", run in the
 * guest on each kernel.  Every figure is a median of REPS runs, in ns per
 * operation by CLOCK_MONOTONIC:
 *
 *   pipe N    a byte back and forth between two processes over two pipes,
 *             N round trips (pipe locks, wakeups, the runqueue locks)
 *   fork N    N x fork(), _exit(0) in the child, waitpid() (mm, tasklist
 *             and pid locks, page tables)
 *
 * Output, one line per test: "LM-BENCH: test=pipe value=12345 unit=ns".
 * Built static: the guest has no libc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPS	5

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int xread(int fd, char *c)
{
	ssize_t n;

	do {
		n = read(fd, c, 1);
	} while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

static int xwrite(int fd, char c)
{
	ssize_t n;

	do {
		n = write(fd, &c, 1);
	} while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

/* ns per round trip, or 0 on error */
static uint64_t bench_pipe(unsigned long n)
{
	int ping[2], pong[2], status;
	unsigned long i;
	uint64_t t0, t1;
	pid_t pid;
	char c = 'x';

	if (pipe(ping) || pipe(pong))
		return 0;
	pid = fork();
	if (pid < 0)
		return 0;
	if (!pid) {
		for (i = 0; i < n; i++)
			if (xread(ping[0], &c) || xwrite(pong[1], c))
				_exit(1);
		_exit(0);
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (xwrite(ping[1], c) || xread(pong[0], &c))
			break;
	t1 = now_ns();
	close(ping[0]);
	close(ping[1]);
	close(pong[0]);
	close(pong[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    i != n)
		return 0;
	return (t1 - t0) / n;
}

static uint64_t bench_fork(unsigned long n)
{
	unsigned long i;
	uint64_t t0, t1;
	int status;
	pid_t pid;

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return 0;
		if (!pid)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid)
			return 0;
	}
	t1 = now_ns();
	return (t1 - t0) / n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	uint64_t v[REPS];
	unsigned long n;
	char *end;
	int r;

	if (argc != 3 || (strcmp(argv[1], "pipe") && strcmp(argv[1], "fork"))) {
		fprintf(stderr, "usage: workload pipe|fork N\n");
		return 2;
	}
	errno = 0;
	n = strtoul(argv[2], &end, 10);
	if (errno || *end || !n) {
		fprintf(stderr, "workload: N must be a positive number\n");
		return 2;
	}
	for (r = 0; r < REPS; r++) {
		v[r] = argv[1][0] == 'p' ? bench_pipe(n) : bench_fork(n);
		if (!v[r]) {
			fprintf(stderr, "workload: %s failed: %s\n", argv[1], strerror(errno));
			return 1;
		}
	}
	qsort(v, REPS, sizeof(v[0]), cmp_u64);
	printf("LM-BENCH: test=%s value=%llu unit=ns\n", argv[1],
	       (unsigned long long)v[REPS / 2]);
	return 0;
}
