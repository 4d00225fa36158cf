// SPDX-License-Identifier: GPL-2.0
/*
 * dput-torture: hammer the dput() paths of the guest kernel from user space
 * and check that every result is right.
 *
 *   dput-torture <dir> <seconds> [<cpus>]
 *
 * With <cpus>, fails at once unless at least that many CPUs are online:
 * the torture is only worth something if its threads really run at the
 * same time (a guest that came up with one CPU still "passes" otherwise).
 *
 * <dir> is the root of the ext2 image that kernel/boot-test.sh builds:
 * tree/d<i>/f<j> hold the text "d<i>/f<j>\n" and scratch/ is empty.  A
 * disk file system is needed because tmpfs and ramfs pin their dentries
 * (an extra reference from creation), so their files never see a final
 * dput(); ext2 dentries drop to zero after every lookup.
 *
 * Threads, all until the time is up:
 *   same      stat, open, read, close of one file: contended puts of one
 *             dentry, final when the other threads are between calls
 *   walk      the same over every file, plus stat of names that do not
 *             exist (negative dentries)
 *   churn     create, write, read back, rename, unlink, stat-after-unlink
 *             in a private directory: unhashed and new dentries
 *   proc      /proc/self and /proc/<pid> lookups: dentries with
 *             ->d_delete(), which never take the transactional path
 *   drop      echo 2 > /proc/sys/vm/drop_caches every 100 ms, so that
 *             dentries are freed and looked up again (not yet referenced,
 *             not yet on the LRU)
 * Exits 0 and prints "dput-torture: PASS" only if every check held.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NDIRS	16
#define NFILES	32

static const char *root;
static atomic_bool stop;
static atomic_long ops, errors;

static void fail(const char *what, const char *path, int err)
{
	atomic_fetch_add(&errors, 1);
	if (atomic_load(&errors) <= 20)
		fprintf(stderr, "dput-torture: FAIL %s %s: %s\n", what, path,
			strerror(err));
}

/* stat, open, read and compare a file of the tree. */
static void check_file(int d, int f)
{
	char path[256], want[64], buf[64];
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/tree/d%d/f%d", root, d, f);
	snprintf(want, sizeof(want), "d%d/f%d\n", d, f);
	if (stat(path, &st) < 0) {
		fail("stat", path, errno);
		return;
	}
	if (st.st_size != (off_t)strlen(want))
		fail("size", path, EINVAL);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fail("open", path, errno);
		return;
	}
	n = read(fd, buf, sizeof(buf));
	if (n != (ssize_t)strlen(want) || memcmp(buf, want, n))
		fail("content", path, EIO);
	close(fd);
	atomic_fetch_add(&ops, 1);
}

static void check_missing(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0 || errno != ENOENT)
		fail("missing name exists", path, errno ? errno : EEXIST);
	atomic_fetch_add(&ops, 1);
}

static void *thread_same(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		check_file(0, 0);
	return NULL;
}

static void *thread_walk(void *arg)
{
	long seed = (long)arg;
	char path[256];
	int d, f;

	while (!atomic_load(&stop)) {
		for (d = 0; d < NDIRS && !atomic_load(&stop); d++) {
			for (f = 0; f < NFILES; f++)
				check_file((d + seed) % NDIRS, f);
			snprintf(path, sizeof(path), "%s/tree/d%d/nope%ld",
				 root, d, seed);
			check_missing(path);
		}
	}
	return NULL;
}

static void *thread_churn(void *arg)
{
	long id = (long)arg;
	char dir[256], a[300], b[300], buf[64], want[64];
	unsigned long i;
	ssize_t n;
	int fd;

	snprintf(dir, sizeof(dir), "%s/scratch/t%ld", root, id);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fail("mkdir", dir, errno);
		return NULL;
	}
	for (i = 0; !atomic_load(&stop); i++) {
		snprintf(a, sizeof(a), "%s/c%lu", dir, i % 8);
		snprintf(b, sizeof(b), "%s/r%lu", dir, i % 8);
		snprintf(want, sizeof(want), "%ld:%lu\n", id, i);
		fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0) {
			fail("create", a, errno);
			continue;
		}
		if (write(fd, want, strlen(want)) != (ssize_t)strlen(want))
			fail("write", a, errno);
		close(fd);
		if (rename(a, b) < 0)
			fail("rename", a, errno);
		check_missing(a);
		fd = open(b, O_RDONLY);
		if (fd < 0) {
			fail("open", b, errno);
			continue;
		}
		n = read(fd, buf, sizeof(buf));
		if (n != (ssize_t)strlen(want) || memcmp(buf, want, n))
			fail("content", b, EIO);
		close(fd);
		if (unlink(b) < 0)
			fail("unlink", b, errno);
		check_missing(b);
		atomic_fetch_add(&ops, 1);
	}
	if (rmdir(dir) < 0)
		fail("rmdir", dir, errno);
	return NULL;
}

static void *thread_proc(void *arg)
{
	char path[64], buf[512];
	struct stat st;
	DIR *dir;
	int fd;

	(void)arg;
	snprintf(path, sizeof(path), "/proc/%d/status", getpid());
	while (!atomic_load(&stop)) {
		if (stat("/proc/self/status", &st) < 0)
			fail("stat", "/proc/self/status", errno);
		fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
			fail("read", path, errno);
		if (fd >= 0)
			close(fd);
		dir = opendir("/proc/self/task");
		if (!dir) {
			fail("opendir", "/proc/self/task", errno);
		} else {
			while (readdir(dir))
				;
			closedir(dir);
		}
		check_missing("/proc/self/nope");
		atomic_fetch_add(&ops, 1);
	}
	return NULL;
}

static void *thread_drop(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int fd;

	(void)arg;
	while (!atomic_load(&stop)) {
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
		if (fd < 0 || write(fd, "2\n", 2) != 2)
			fail("drop_caches", "/proc/sys/vm/drop_caches", errno);
		if (fd >= 0)
			close(fd);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*fn[])(void *) = {
		thread_same, thread_same, thread_walk, thread_walk,
		thread_churn, thread_churn, thread_proc, thread_drop,
	};
	enum { NTHREADS = sizeof(fn) / sizeof(fn[0]) };
	pthread_t tid[NTHREADS];
	int i, secs, want = 0;
	long online;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s <dir> <seconds> [<cpus>]\n", argv[0]);
		return 2;
	}
	root = argv[1];
	secs = atoi(argv[2]);
	if (argc == 4)
		want = atoi(argv[3]);
	online = sysconf(_SC_NPROCESSORS_ONLN);
	printf("dput-torture: %ld CPUs online, %d required\n", online, want);
	if (online < want) {
		printf("dput-torture: FAIL: fewer CPUs online than required\n");
		return 1;
	}
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&tid[i], NULL, fn[i], (void *)(long)i)) {
			fprintf(stderr, "dput-torture: pthread_create failed\n");
			return 1;
		}
	sleep(secs);
	atomic_store(&stop, true);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(tid[i], NULL);

	/* After the storm, every file must still read back right. */
	for (i = 0; i < NDIRS * NFILES; i++)
		check_file(i / NFILES, i % NFILES);

	printf("dput-torture: ops %ld errors %ld\n", atomic_load(&ops),
	       atomic_load(&errors));
	if (atomic_load(&errors)) {
		printf("dput-torture: FAIL\n");
		return 1;
	}
	printf("dput-torture: PASS\n");
	return 0;
}
