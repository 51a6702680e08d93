// SPDX-License-Identifier: GPL-2.0
/*
 * tracee: the guest side of scripts/bench/trace.sh, run as the guest's
 * /init on one CPU.  It warms a workload up, then brackets a few
 * operations with getpgid(0x4c4d) calls, the markers the host's gdb
 * stops at and steps between, and powers the guest off.
 *
 *   tracee pipe N   N round trips of a byte between two processes
 *   tracee fork N   N x fork(), _exit(0) in the child, waitpid()
 *
 * The kernel command line passes the arguments after "--" (rdinit= with
 * "-- pipe 2").  Built static: the initramfs holds this file alone.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define WARMUP	1000
#define MARK	0x4c4d

static int pfd[2][2];

static void round_trip(void)
{
	char c = 'x';

	if (write(pfd[0][1], &c, 1) != 1 || read(pfd[1][0], &c, 1) != 1)
		exit(1);
}

static void one_fork(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		exit(1);
	if (!pid)
		_exit(0);
	if (waitpid(pid, &status, 0) != pid)
		exit(1);
}

int main(int argc, char **argv)
{
	void (*op)(void);
	unsigned long i, n;
	pid_t pid;
	char c;

	if (argc != 3 || (strcmp(argv[1], "pipe") && strcmp(argv[1], "fork"))) {
		fprintf(stderr, "usage: tracee pipe|fork N\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 10);
	op = argv[1][0] == 'p' ? round_trip : one_fork;
	if (op == round_trip) {
		if (pipe(pfd[0]) || pipe(pfd[1]))
			return 1;
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			while (read(pfd[0][0], &c, 1) == 1)
				if (write(pfd[1][1], &c, 1) != 1)
					_exit(1);
			_exit(0);
		}
	}
	/* what the boot left to do (RCU callbacks, workqueues) is done by then */
	sleep(2);
	for (i = 0; i < WARMUP; i++)
		op();
	syscall(SYS_getpgid, MARK);
	for (i = 0; i < n; i++)
		op();
	syscall(SYS_getpgid, MARK);
	printf("tracee: %s %lu done\n", argv[1], n);
	fflush(stdout);
	reboot(RB_POWER_OFF);
	return 0;
}
