// SPDX-License-Identifier: GPL-2.0
/*
 * lmscenario: the workloads of "make demo SCENARIO=NAME" and of the
 * scenario tests of "make check": real kernel code in the kind of trouble
 * that sends people to a lock meter.  Run under "lockstat record"; each
 * prints what it measured itself, for the report to be held against:
 *
 *   fifo PATH N
 *	qmail's trigger: a listener select()s on the FIFO PATH and reads
 *	what arrives (reopening it when every writer has gone, or select()
 *	would report it readable for ever); a writer opens the FIFO, writes
 *	one byte and closes it, N times.  Prints the slowest write().
 *   munmap MIB ROUNDS
 *	one thread maps MIB MiB of anonymous memory, touches every page and
 *	unmaps it, ROUNDS times, while two other threads of the process
 *	fault pages in a loop (each pass a fresh MiB mapped over the last
 *	one and touched; they never call munmap()).  Prints the number of
 *	munmap() calls, all the mapper's big ones, and the slowest.
 *   journal DIR WRITERS N KIB
 *	WRITERS processes each append KIB KiB to a file of their own in DIR
 *	and fsync() it, N times, while another process calls sync() in a
 *	loop.  Prints the slowest write() and fsync().
 *
 * Output lines start "LM-SCENARIO: NAME key=value ...", times in ns by
 * CLOCK_MONOTONIC.  Built static: the guest has no libc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* No scenario may run longer than this, whatever the machine's speed. */
#define DEADLINE_NS	(60ULL * 1000000000ULL)
#define PAGE		4096UL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static long arg_num(const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min) {
		fprintf(stderr, "lmscenario: '%s': want a number >= %ld\n", s, min);
		exit(2);
	}
	return v;
}

/* Wait for child @pid; 0 if it exited with status 0. */
static int reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* ---- fifo ------------------------------------------------------------ */

/* The listener: read @want bytes from the FIFO, within the deadline. */
static int fifo_listen(const char *path, long want, uint64_t deadline)
{
	long got = 0, reopens = 0;
	char buf[64];
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		perror("lmscenario: fifo: listener open");
		return 1;
	}
	while (got < want && now_ns() < deadline) {
		struct timeval tv = { .tv_sec = 1 };
		fd_set rfds;
		ssize_t n;

		FD_ZERO(&rfds);
		FD_SET(fd, &rfds);
		n = select(fd + 1, &rfds, NULL, NULL, &tv);
		if (n <= 0) {
			if (n < 0 && errno != EINTR) {
				perror("lmscenario: fifo: select");
				return 1;
			}
			continue;
		}
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			got += n;
		} else if (n == 0) {
			/* every writer has closed it: end of file until reopened */
			close(fd);
			fd = open(path, O_RDONLY | O_NONBLOCK);
			if (fd < 0) {
				perror("lmscenario: fifo: listener reopen");
				return 1;
			}
			reopens++;
		} else if (errno != EAGAIN && errno != EINTR) {
			perror("lmscenario: fifo: read");
			return 1;
		}
	}
	close(fd);
	printf("LM-SCENARIO: fifo-listener bytes=%ld reopens=%ld\n", got, reopens);
	fflush(stdout);
	return got == want ? 0 : 1;
}

static int fifo_main(int argc, char **argv)
{
	uint64_t deadline = now_ns() + DEADLINE_NS;
	uint64_t t, slowest = 0, total = 0;
	long n, i, retries = 0;
	pid_t listener;
	int fd, rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: lmscenario fifo PATH N\n");
		return 2;
	}
	n = arg_num(argv[1], 1);
	if (mkfifo(argv[0], 0600) && errno != EEXIST) {
		perror("lmscenario: mkfifo");
		return 1;
	}
	fflush(stdout);
	listener = fork();
	if (listener < 0) {
		perror("lmscenario: fork");
		return 1;
	}
	if (listener == 0)
		_exit(fifo_listen(argv[0], n, deadline));

	for (i = 0; i < n && !rc; i++) {
		ssize_t w;

		/* no reader at this instant (the listener reopens): again */
		while ((fd = open(argv[0], O_WRONLY | O_NONBLOCK)) < 0) {
			if (errno != ENXIO || now_ns() > deadline) {
				perror("lmscenario: fifo: writer open");
				rc = 1;
				break;
			}
			retries++;
			usleep(100);
		}
		if (fd < 0)
			break;
		t = now_ns();
		w = write(fd, "x", 1);
		t = now_ns() - t;
		close(fd);
		if (w != 1) {
			perror("lmscenario: fifo: write");
			rc = 1;
		}
		total += t;
		if (t > slowest)
			slowest = t;
	}
	if (reap(listener))
		rc = 1;
	printf("LM-SCENARIO: fifo writes=%ld slowest_write_ns=%llu mean_write_ns=%llu open_retries=%ld\n",
	       i, (unsigned long long)slowest,
	       (unsigned long long)(i ? total / i : 0), retries);
	return rc;
}

/* ---- munmap ---------------------------------------------------------- */

#define FAULTERS	2
#define FAULT_BYTES	(1UL << 20)

static volatile int munmap_stop;

struct faulter {
	pthread_t th;
	long passes;
};

/*
 * A faulter maps a fresh MiB over its last one (MAP_FIXED, which drops
 * the old pages with mmap_lock held for writing) and faults every page
 * of it in, until told to stop.  The first fault of each mapping
 * prepares its anon_vma under mmap_lock (a trylock, then the fault
 * path's read lock); the others need only the VMA's own lock.  (The
 * guest kernel has no madvise(), so fresh mappings are the way to fault
 * again.)  No munmap(): the only ones of the process are the mapper's,
 * as many as its rounds whatever the machine's speed.
 */
static void *faulter(void *arg)
{
	struct faulter *f = arg;
	char *p = NULL;
	size_t off;

	while (!munmap_stop) {
		p = mmap(p, FAULT_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | (p ? MAP_FIXED : 0), -1, 0);
		if (p == MAP_FAILED)
			return (void *)1;
		for (off = 0; off < FAULT_BYTES; off += PAGE)
			p[off] = 1;
		f->passes++;
	}
	return NULL;
}

static int munmap_main(int argc, char **argv)
{
	uint64_t deadline = now_ns() + DEADLINE_NS;
	struct faulter fl[FAULTERS] = { 0 };
	long rounds, r, f, unmapped = 0;
	uint64_t t, slowest = 0;
	size_t len, off;
	void *ret;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: lmscenario munmap MIB ROUNDS\n");
		return 2;
	}
	len = (size_t)arg_num(argv[0], 1) << 20;
	rounds = arg_num(argv[1], 1);
	for (f = 0; f < FAULTERS; f++)
		if (pthread_create(&fl[f].th, NULL, faulter, &fl[f])) {
			fprintf(stderr, "lmscenario: munmap: pthread_create failed\n");
			return 1;
		}
	for (r = 0; r < rounds && now_ns() < deadline; r++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("lmscenario: munmap: mmap");
			rc = 1;
			break;
		}
		for (off = 0; off < len; off += PAGE)
			p[off] = 1;
		t = now_ns();
		if (munmap(p, len)) {
			perror("lmscenario: munmap");
			rc = 1;
		} else {
			unmapped++;
		}
		t = now_ns() - t;
		if (t > slowest)
			slowest = t;
	}
	munmap_stop = 1;
	for (f = 0; f < FAULTERS; f++) {
		pthread_join(fl[f].th, &ret);
		if (ret)
			rc = 1;
	}
	/*
	 * big_munmaps= counts the munmap() calls that unmapped a big
	 * region, the only munmap() calls of the process; slowest_munmap_ns
	 * is the slowest of them.
	 */
	printf("LM-SCENARIO: munmap rounds=%ld mib=%zu big_munmaps=%ld slowest_munmap_ns=%llu fault_passes=%ld,%ld\n",
	       r, len >> 20, unmapped, (unsigned long long)slowest, fl[0].passes,
	       fl[1].passes);
	return rc || r < rounds;
}

/* ---- journal --------------------------------------------------------- */

static volatile sig_atomic_t sync_stop;

static void on_term(int sig)
{
	(void)sig;
	sync_stop = 1;
}

static int journal_sync(void)
{
	struct sigaction sa = { .sa_handler = on_term };
	long syncs = 0;

	sigaction(SIGTERM, &sa, NULL);
	while (!sync_stop) {
		sync();
		syncs++;
	}
	printf("LM-SCENARIO: journal-sync syncs=%ld\n", syncs);
	return 0;
}

static int journal_write(const char *dir, long w, long n, size_t len, uint64_t deadline)
{
	uint64_t t, slow_write = 0, slow_fsync = 0;
	char path[4096], *buf;
	long i;
	int fd;

	snprintf(path, sizeof(path), "%s/writer%ld", dir, w);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	buf = malloc(len);
	if (fd < 0 || !buf) {
		perror("lmscenario: journal: open");
		return 1;
	}
	memset(buf, 'a' + (int)w, len);
	for (i = 0; i < n && now_ns() < deadline; i++) {
		t = now_ns();
		if (write(fd, buf, len) != (ssize_t)len) {
			perror("lmscenario: journal: write");
			return 1;
		}
		t = now_ns() - t;
		if (t > slow_write)
			slow_write = t;
		t = now_ns();
		if (fsync(fd)) {
			perror("lmscenario: journal: fsync");
			return 1;
		}
		t = now_ns() - t;
		if (t > slow_fsync)
			slow_fsync = t;
	}
	close(fd);
	printf("LM-SCENARIO: journal-writer writer=%ld writes=%ld slowest_write_ns=%llu slowest_fsync_ns=%llu\n",
	       w, i, (unsigned long long)slow_write, (unsigned long long)slow_fsync);
	return i == n ? 0 : 1;
}

static int journal_main(int argc, char **argv)
{
	uint64_t deadline = now_ns() + DEADLINE_NS;
	long writers, n, w;
	pid_t syncer, pid[64];
	size_t len;
	int rc = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: lmscenario journal DIR WRITERS N KIB\n");
		return 2;
	}
	writers = arg_num(argv[1], 1);
	n = arg_num(argv[2], 1);
	len = (size_t)arg_num(argv[3], 1) << 10;
	if (writers > 64) {
		fprintf(stderr, "lmscenario: journal: at most 64 writers\n");
		return 2;
	}
	fflush(stdout);
	syncer = fork();
	if (syncer == 0)
		_exit(journal_sync());
	for (w = 0; w < writers; w++) {
		pid[w] = fork();
		if (pid[w] == 0)
			_exit(journal_write(argv[0], w, n, len, deadline));
		if (pid[w] < 0)
			rc = 1;
	}
	for (w = 0; w < writers; w++)
		if (pid[w] > 0 && reap(pid[w]))
			rc = 1;
	if (syncer > 0) {
		kill(syncer, SIGTERM);
		if (reap(syncer))
			rc = 1;
	} else {
		rc = 1;
	}
	printf("LM-SCENARIO: journal writers=%ld writes=%ld kib=%zu\n", writers, writers * n,
	       len >> 10);
	return rc;
}

int main(int argc, char **argv)
{
	/* each line whole, whichever process prints it */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "fifo"))
		return fifo_main(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "munmap"))
		return munmap_main(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "journal"))
		return journal_main(argc - 2, argv + 2);
	fprintf(stderr, "usage: lmscenario fifo PATH N | munmap MIB ROUNDS |\n"
		"       journal DIR WRITERS N KIB\n");
	return 2;
}
