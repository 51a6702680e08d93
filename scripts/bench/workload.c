// SPDX-License-Identifier: GPL-2.0
/*
 * workload: the lock-heavy user-space half of "make bench", run in the
 * guest on each kernel.  Every figure is a median of REPS runs after one
 * warm-up run, in ns per operation by CLOCK_MONOTONIC:
 *
 *   pipe N    a byte back and forth between two processes over two pipes,
 *             N round trips (pipe locks, wakeups, the runqueue locks)
 *   fork N    N x fork(), _exit(0) in the child, waitpid() (mm, tasklist
 *             and pid locks, page tables)
 *   threads N CMD ARG...
 *             N threads of this process asleep (each blocked on a pipe),
 *             then CMD run to its end REPS times, each run timed: what
 *             lockstat held's walk of every thread costs with N of them
 *             (test=heldN, CMD's median)
 *
 * Under -icount the figures are instruction counts, and they must repeat
 * from boot to boot to 1%.  What moved them between boots was placement,
 * not the code under test: with two vCPUs the partner process or the child
 * ran on either CPU, so a round trip was a same-CPU switch one time and a
 * cross-CPU wakeup (IPI, the other vCPU idling or spinning) the next; and
 * the randomised stack, heap and mmap bases put the few pages a fork
 * copies under a varying number of page tables.  So the workload runs
 * pinned to one CPU (children inherit the mask) and re-executes itself
 * once with ADDR_NO_RANDOMIZE.
 *
 * Output, one line per test: "LM-BENCH: test=pipe value=12345 unit=ns",
 * and "LM-BENCH-RUNS: test=pipe min=... max=..." for the spread of the
 * REPS runs.  Built static: the guest has no libc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPS	7
/* a sleeper's stack: it only blocks in read() */
#define SLEEPER_STACK	(64 * 1024)

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

	if (pipe(ping))
		return 0;
	if (pipe(pong)) {
		close(ping[0]);
		close(ping[1]);
		return 0;
	}
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

/*
 * ns of one run of @cmd to a zero exit, its output discarded; 0 on error.
 * posix_spawn, not fork: a fork would copy the N threads' stacks' VMAs,
 * which cost more than the walk under test (fork of 20000 threads' process:
 * about 24k instructions a thread).
 */
static uint64_t run_cmd(char **cmd)
{
	posix_spawn_file_actions_t fa;
	extern char **environ;
	uint64_t t0 = now_ns();
	int status, err;
	pid_t pid;

	if (posix_spawn_file_actions_init(&fa) ||
	    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0))
		return 0;
	err = posix_spawnp(&pid, cmd[0], &fa, NULL, cmd, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		return 0;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 0;
	return now_ns() - t0;
}

static void *sleeper(void *arg)
{
	char c;

	/* returns when the write end closes, at exit */
	xread(*(int *)arg, &c);
	return NULL;
}

/*
 * N sleeping threads, then @cmd REPS times after a warm-up run: the
 * median and spread of its runs in @v, sorted.  The threads are never
 * joined: the process's exit ends them.
 */
static int bench_threads(unsigned long n, char **cmd, uint64_t *v)
{
	static int fds[2];
	pthread_attr_t attr;
	unsigned long i;
	pthread_t th;
	int r, err;

	if (pipe(fds) || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, SLEEPER_STACK))
		return -1;
	for (i = 0; i < n; i++) {
		err = pthread_create(&th, &attr, sleeper, &fds[0]);
		if (err) {
			fprintf(stderr, "workload: thread %lu of %lu: %s\n", i, n, strerror(err));
			return -1;
		}
	}
	pthread_attr_destroy(&attr);
	for (r = -1; r < REPS; r++) {
		uint64_t x = run_cmd(cmd);

		if (!x) {
			fprintf(stderr, "workload: %s failed with %lu threads\n", cmd[0], n);
			return -1;
		}
		if (r >= 0)
			v[r] = x;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Run on one CPU, the first this process may use: both ends of the pipe
 * and every child then share its runqueue, and a wakeup is a local one.
 */
static int pin_one_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			break;
	if (cpu == CPU_SETSIZE)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The same address-space layout on every boot: re-exec without ASLR. */
static void fix_layout(char **argv)
{
	int pers = personality(0xffffffff);

	if (pers < 0 || (pers & ADDR_NO_RANDOMIZE))
		return;
	if (personality(pers | ADDR_NO_RANDOMIZE) < 0)
		return;
	execv("/proc/self/exe", argv);
	/* not fatal: the figures just repeat less well */
	fprintf(stderr, "workload: re-exec without ASLR failed: %s\n", strerror(errno));
}

int main(int argc, char **argv)
{
	bool threads = argc >= 4 && !strcmp(argv[1], "threads");
	char test[32];
	uint64_t v[REPS];
	unsigned long n;
	char *end;
	int r;

	if (!threads && (argc != 3 || (strcmp(argv[1], "pipe") && strcmp(argv[1], "fork")))) {
		fprintf(stderr, "usage: workload pipe|fork N | threads N CMD [ARG...]\n");
		return 2;
	}
	errno = 0;
	n = strtoul(argv[2], &end, 10);
	if (errno || *end || (!n && !threads)) {
		fprintf(stderr, "workload: N must be a %s number\n",
			threads ? "non-negative" : "positive");
		return 2;
	}
	if (threads) {
		/* not pinned: the command's walk runs wherever it is put */
		if (bench_threads(n, argv + 3, v))
			return 1;
		snprintf(test, sizeof(test), "held%lu", n);
		goto out;
	}
	snprintf(test, sizeof(test), "%s", argv[1]);
	fix_layout(argv);
	if (pin_one_cpu()) {
		fprintf(stderr, "workload: cannot pin to one CPU: %s\n", strerror(errno));
		return 1;
	}
	/* run -1 warms the caches, the page allocator and the pid space up */
	for (r = -1; r < REPS; r++) {
		uint64_t x = argv[1][0] == 'p' ? bench_pipe(n) : bench_fork(n);

		if (!x) {
			fprintf(stderr, "workload: %s failed: %s\n", argv[1], strerror(errno));
			return 1;
		}
		if (r >= 0)
			v[r] = x;
	}
out:
	qsort(v, REPS, sizeof(v[0]), cmp_u64);
	printf("LM-BENCH: test=%s value=%llu unit=ns\n", test,
	       (unsigned long long)v[REPS / 2]);
	printf("LM-BENCH-RUNS: test=%s min=%llu max=%llu\n", test,
	       (unsigned long long)v[0], (unsigned long long)v[REPS - 1]);
	return 0;
}
