// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The lock order validator's class table (src/engine/lockdep-core.c) under
 * real threads, compiled in with the test: one thread gives a few locks a
 * new class again and again (memory the slab hands out to another kind of
 * object: a dentry's d_lock becomes an inode's i_lock) while another
 * registers fresh locks, so that the map is outgrown and copied meanwhile.
 * Every new class must be the one looked up afterwards.  A class written
 * into a map being copied, or one already retired, is lost, and the lock
 * is then validated under its old class: the dcsim-check stress suite
 * reported "possible recursive locking" of d_lock for an inode's i_lock
 * taken under a dentry's d_lock that way.  The reverse is a wrong pass:
 * the orders of a lock under its old class are checked against the wrong
 * edges, and an inversion of its new class goes unseen.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lockdep-core.h"

#define NFLIP		16		/* locks whose class changes */
#define NFRESH		(1u << 19)	/* fresh locks the other thread registers */

static const struct dcsim_lock_class class_x = { "X" }, class_y = { "Y" };
static const struct dcsim_lock_class class_fresh = { "fresh" };

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static struct ld_classes classes = { .mutex = &mutex, .first_cap = 8 };

static char flip_locks[NFLIP][64];
static char *fresh_locks;
static bool fresh_done;

static void *register_fresh(void *unused)
{
	(void)unused;
	for (size_t i = 0; i < NFRESH; i++)
		ld_set_class(&classes, fresh_locks + i, &class_fresh);
	__atomic_store_n(&fresh_done, true, __ATOMIC_RELEASE);
	return NULL;
}

int main(void)
{
	unsigned long rounds = 0, lost = 0;
	pthread_t t;

	fresh_locks = malloc(NFRESH);
	if (!fresh_locks)
		return 99;
	for (int i = 0; i < NFLIP; i++)
		ld_set_class(&classes, flip_locks[i], &class_x);
	if (pthread_create(&t, NULL, register_fresh, NULL))
		return 99;
	while (!__atomic_load_n(&fresh_done, __ATOMIC_ACQUIRE)) {
		const struct dcsim_lock_class *want = rounds++ & 1 ? &class_x : &class_y;

		for (int i = 0; i < NFLIP; i++)
			ld_set_class(&classes, flip_locks[i], want);
		for (int i = 0; i < NFLIP; i++) {
			const struct dcsim_lock_class *got = ld_class_of(&classes, flip_locks[i]);

			if (got != want && lost++ < 5)
				fprintf(stderr, "lock %d: class %s after it was given class %s (round %lu)\n",
					i, got ? got->name : "(none)", want->name, rounds);
		}
	}
	pthread_join(t, NULL);
	for (size_t i = 0; i < NFRESH; i += 4099)
		if (ld_class_of(&classes, fresh_locks + i) != &class_fresh) {
			fprintf(stderr, "fresh lock %zu: class lost\n", i);
			lost++;
		}
	printf("%lu rounds of %d new classes while %u locks were registered "
	       "(map %zu slots, %u outgrown, %lu lost registrations): %lu classes lost\n",
	       rounds, NFLIP, NFRESH, classes.map->cap, classes.nretired, classes.map_lost, lost);
	pthread_mutex_lock(&mutex);
	__ld_classes_clear(&classes);
	pthread_mutex_unlock(&mutex);
	free(classes.map);
	free(fresh_locks);
	return lost || classes.map_lost ? 1 : 0;
}
