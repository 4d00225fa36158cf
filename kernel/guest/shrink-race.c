// SPDX-License-Identifier: GPL-2.0
/*
 * shrink-race: drive 6.1's shrink_lock_dentry() parent-relock window from
 * user space.
 *
 *   shrink-race <dir> <seconds> [<cpus>] [<delay_us>]
 *
 * The window (fs/dcache.c of 6.1.y): the shrinker holds an unused
 * negative dentry's d_lock, fails spin_trylock() on the parent's d_lock,
 * drops the dentry's d_lock to take the parent's, and on retaking it
 * returns "locked" when the count is 0, without looking at d_inode again.
 * If in between another task looked the negative dentry up, created the
 * file over it (d_instantiate() in ->create/->mknod/->mkdir) and put it,
 * the shrinker kills a positive dentry without its inode's i_lock.
 *
 * What each thread does (all in <dir>/busy, so they share the parent):
 *   create   per thread a ring of names: create name i (open O_CREAT,
 *            mknod or mkdir in turn), remove name i - LAG (unlink or
 *            rmdir): every name is, most of the time, an unused negative
 *            dentry on the LRU that is about to be created over
 *   negative stat of names that never exist, each new: every lookup
 *            allocates a child of busy/ (d_alloc() takes busy's d_lock)
 *   walk     readdir and stat of the NBUSY files of busy/: more children,
 *            more puts and kills under busy's d_lock
 *   drop     "2" into /proc/sys/vm/drop_caches in a loop: the shrinker
 *            that isolates the negative dentries and runs the window
 * Run it only in a guest: the dropper empties the whole machine's caches.
 * With <cpus>, fails at once unless that many CPUs are online.  With
 * <delay_us> (> 0), writes it to the debug-only knob
 * /sys/kernel/debug/dcache_shrink_window/delay_us (kernel/debug/
 * 6.1-shrink-window.patch), which spins that long inside the window.
 * Afterwards prints the knob's counters when they exist ("opened": how
 * often the window was entered, "became_positive": how often a negative
 * dentry became positive in it, "positive_unlocked": positive dentries the
 * shrinker was about to kill without their i_lock) and checks that every
 * name that should exist does, and no other.  The kernel's own report of
 * a hit (lockdep's "bad unlock balance", DEBUG_SPINLOCK's "spinlock
 * already unlocked") is in the kernel log, which kernel/boot-test.sh
 * checks.  Exits 0 and prints "shrink-race: PASS" when the user-visible
 * checks held.
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
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define NBUSY	512	/* files that stay in busy/ */
#define NNAMES	16	/* names in each creator's ring */
#define LAG	4	/* a name stays created for LAG steps */
#define KNOB	"/sys/kernel/debug/dcache_shrink_window"

static char busy[256];
static atomic_bool stop;
static atomic_long creates, lookups, drops, errors;

static void fail(const char *what, const char *path, int err)
{
	if (atomic_fetch_add(&errors, 1) < 20)
		fprintf(stderr, "shrink-race: FAIL %s %s: %s\n", what, path,
			strerror(err));
}

static void name_of(char *buf, size_t len, int t, int i)
{
	snprintf(buf, len, "%s/c%d_%d", busy, t, i);
}

/* The kind of object name i is created as: file, node or directory. */
static int kind_of(int i)
{
	return i % 3;
}

static void create_one(int t, int i)
{
	char path[300];
	int fd;

	name_of(path, sizeof(path), t, i);
	switch (kind_of(i)) {
	case 0:
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			fail("open(O_CREAT)", path, errno);
		else
			close(fd);
		break;
	case 1:
		if (mknod(path, S_IFREG | 0644, 0) < 0)
			fail("mknod", path, errno);
		break;
	default:
		if (mkdir(path, 0755) < 0)
			fail("mkdir", path, errno);
		break;
	}
	atomic_fetch_add(&creates, 1);
}

static void remove_one(int t, int i)
{
	char path[300];

	name_of(path, sizeof(path), t, i);
	if ((kind_of(i) == 2 ? rmdir(path) : unlink(path)) < 0)
		fail("remove", path, errno);
}

static void *creator(void *arg)
{
	int t = (int)(long)arg, i = 0;
	long step = 0;

	while (!atomic_load(&stop)) {
		create_one(t, i);
		/* The first LAG names have nothing LAG steps behind them. */
		if (step++ >= LAG)
			remove_one(t, (i + NNAMES - LAG) % NNAMES);
		i = (i + 1) % NNAMES;
	}
	/* The LAG most recent names remain (fewer if it ran < LAG steps). */
	return (void *)(long)(step >= LAG ? i : -1);
}

static void *negative(void *arg)
{
	char path[300];
	struct stat st;
	long n = (long)arg * 100000000L;

	while (!atomic_load(&stop)) {
		snprintf(path, sizeof(path), "%s/missing%ld", busy, n++);
		if (stat(path, &st) == 0 || errno != ENOENT)
			fail("stat of a missing name", path, errno ? errno : EEXIST);
		atomic_fetch_add(&lookups, 1);
	}
	return NULL;
}

static void *walker(void *arg)
{
	char path[600];
	struct dirent *de;
	struct stat st;
	DIR *d;

	(void)arg;
	while (!atomic_load(&stop)) {
		d = opendir(busy);
		if (!d) {
			fail("opendir", busy, errno);
			return NULL;
		}
		while ((de = readdir(d)) != NULL && !atomic_load(&stop)) {
			if (de->d_name[0] != 'b')
				continue;
			snprintf(path, sizeof(path), "%s/%s", busy, de->d_name);
			if (stat(path, &st) < 0)
				fail("stat", path, errno);
			atomic_fetch_add(&lookups, 1);
		}
		closedir(d);
	}
	return NULL;
}

static void *dropper(void *arg)
{
	int fd;

	(void)arg;
	while (!atomic_load(&stop)) {
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
		if (fd < 0 || write(fd, "2", 1) != 1) {
			fail("drop_caches", "/proc/sys/vm/drop_caches", errno);
			if (fd >= 0)
				close(fd);
			return NULL;
		}
		close(fd);
		atomic_fetch_add(&drops, 1);
	}
	return NULL;
}

static long read_knob(const char *name)
{
	char path[128], buf[32] = "";
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", KNOB, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

static int write_knob(const char *name, long v)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", KNOB, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%ld\n", v);
	return fclose(f);
}

/* Name i of creator t must exist iff it is one of the LAG before next. */
static void check_names(int t, int next)
{
	char path[300];
	struct stat st;
	int i, k;

	if (next < 0)
		return;
	for (i = 0; i < NNAMES; i++) {
		bool want = false;

		for (k = 1; k <= LAG; k++)
			want |= (next + NNAMES - k) % NNAMES == i;
		name_of(path, sizeof(path), t, i);
		if ((stat(path, &st) == 0) != want)
			fail(want ? "missing after create" : "present after remove",
			     path, want ? ENOENT : EEXIST);
		else if (want && (kind_of(i) == 2) != !!S_ISDIR(st.st_mode))
			fail("wrong type", path, EINVAL);
	}
}

int main(int argc, char **argv)
{
	int secs, cpus = 0, ncreate, i, fd;
	long delay = 0, online;
	pthread_t th[16];
	int nth = 0, next[8];
	char path[300];

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: shrink-race <dir> <seconds> [<cpus>] [<delay_us>]\n");
		return 2;
	}
	secs = atoi(argv[2]);
	if (argc > 3)
		cpus = atoi(argv[3]);
	if (argc > 4)
		delay = atol(argv[4]);
	if (secs <= 0 || cpus < 0 || delay < 0) {
		fprintf(stderr, "shrink-race: bad arguments\n");
		return 2;
	}
	online = sysconf(_SC_NPROCESSORS_ONLN);
	printf("shrink-race: %ld CPUs online\n", online);
	if (cpus && online < cpus) {
		fprintf(stderr, "shrink-race: FAIL %ld CPUs online, %d wanted\n", online, cpus);
		return 1;
	}
	if (delay && write_knob("delay_us", delay) < 0) {
		fprintf(stderr, "shrink-race: FAIL delay %ld us asked for, but no %s/delay_us (kernel without kernel/debug/6.1-shrink-window.patch?)\n",
			delay, KNOB);
		return 1;
	}
	snprintf(busy, sizeof(busy), "%s/busy", argv[1]);
	if (mkdir(busy, 0755) < 0 && errno != EEXIST) {
		fail("mkdir", busy, errno);
		return 1;
	}
	for (i = 0; i < NBUSY; i++) {
		snprintf(path, sizeof(path), "%s/b%d", busy, i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0) {
			fail("create", path, errno);
			return 1;
		}
		close(fd);
	}
	ncreate = online >= 4 ? (int)online / 2 : 2;
	if (ncreate > 8)
		ncreate = 8;
	printf("shrink-race: %d creators, 1 negative, 1 walker, 1 dropper, %d s, delay %ld us, opened %ld positive_unlocked %ld before\n",
	       ncreate, secs, delay, read_knob("opened"), read_knob("positive_unlocked"));
	fflush(stdout);
	for (i = 0; i < ncreate; i++)
		pthread_create(&th[nth++], NULL, creator, (void *)(long)i);
	pthread_create(&th[nth++], NULL, negative, (void *)0L);
	pthread_create(&th[nth++], NULL, walker, NULL);
	pthread_create(&th[nth++], NULL, dropper, NULL);
	sleep(secs);
	atomic_store(&stop, true);
	for (i = 0; i < nth; i++) {
		void *ret;

		pthread_join(th[i], &ret);
		if (i < ncreate)
			next[i] = (int)(long)ret;
	}
	if (delay)
		write_knob("delay_us", 0);
	for (i = 0; i < ncreate; i++)
		check_names(i, next[i]);
	printf("shrink-race: creates %ld lookups %ld drops %ld errors %ld\n",
	       atomic_load(&creates), atomic_load(&lookups),
	       atomic_load(&drops), atomic_load(&errors));
	printf("shrink-race: window opened %ld became_positive %ld positive_unlocked %ld\n",
	       read_knob("opened"), read_knob("became_positive"), read_knob("positive_unlocked"));
	if (atomic_load(&errors)) {
		printf("shrink-race: FAIL\n");
		return 1;
	}
	printf("shrink-race: PASS\n");
	return 0;
}
