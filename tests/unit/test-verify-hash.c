// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim_cache_verify()'s look at the hash table (src/model/invariants.c):
 * it reads every bucket's lock word and head without the lock and walks
 * only the chains that are not empty.  It must still see every bucket:
 * a stray entry (unreachable, hashed or not) planted in the first, a
 * middle and the last bucket is reported each time, a reachable dentry
 * moved to another bucket is still counted, and a bucket lock held at
 * quiescence is reported (not waited for).
 */

#include <stdio.h>
#include <string.h>

#include "dcache.h"

static struct dcsim_cache *c;
static struct dcsim_dentry *root;

/* Violations, and whether the report names @want. */
static int verify(const char *what, const char *want)
{
	struct dcsim_held_ref held = { root, 1 };
	char rep[2048] = "";
	unsigned int v = dcsim_cache_verify(c, &held, 1, DCSIM_VERIFY_REFS_EXACT, rep, sizeof(rep));
	bool ok = want ? v && strstr(rep, want) : !v;

	if (ok)
		return 0;
	fprintf(stderr, "FAIL: %s: %u violation(s), want %s%s%s:\n%s\n", what, v,
		want ? "one naming \"" : "none", want ? want : "", want ? "\"" : "", rep);
	return 1;
}

/* Put @d at the head of bucket @b (a plain stack: nobody else runs). */
static void push(struct dcsim_dentry *d, size_t b, bool hashed)
{
	d->d_hash.next = c->hash[b].first;
	if (d->d_hash.next)
		d->d_hash.next->d_hash.pprev = &d->d_hash.next;
	d->d_hash.pprev = hashed ? &c->hash[b].first : NULL;
	c->hash[b].first = d;
}

/* Take @d out of the bucket whose chain it is on. */
static void pop(struct dcsim_dentry *d, size_t b)
{
	struct dcsim_dentry **pp = &c->hash[b].first;

	while (*pp != d)
		pp = &(*pp)->d_hash.next;
	*pp = d->d_hash.next;
	if (d->d_hash.next)
		d->d_hash.next->d_hash.pprev = pp;
	d->d_hash.next = NULL;
	d->d_hash.pprev = NULL;
}

/* The bucket @d is on. */
static size_t bucket_of(struct dcsim_dentry *d)
{
	for (size_t b = 0; b <= c->hash_mask; b++)
		for (struct dcsim_dentry *x = c->hash[b].first; x; x = x->d_hash.next)
			if (x == d)
				return b;
	return SIZE_MAX;
}

int main(void)
{
	struct dcsim_dentry ghost, *a;
	int failed = 0;

	c = dcsim_cache_create_named("fast");
	if (!c)
		return 1;
	root = dcsim_d_alloc_root(c, "/");
	a = dcsim_d_alloc(root, "a");
	dcsim_d_add(a, false);
	dcsim_dput(a);		/* unused, hashed, on the LRU */
	failed |= verify("a clean cache", NULL);
	if (bucket_of(a) == SIZE_MAX) {
		fputs("FAIL: 'a' is in no bucket\n", stderr);
		return 1;
	}

	/* A stray entry, unreachable from the tree, in buckets far apart. */
	memset(&ghost, 0, sizeof(ghost));
	ghost.d_id = 999;
	ghost.d_name = "ghost";
	ghost.d_cache = c;
	for (size_t i = 0; i < 3; i++) {
		size_t b = i == 0 ? 0 : i == 1 ? c->hash_mask / 2 : c->hash_mask;
		char what[64];

		push(&ghost, b, true);
		snprintf(what, sizeof(what), "a hashed stray in bucket %zu", b);
		failed |= verify(what, "hash table holds 2 entries");
		pop(&ghost, b);
		push(&ghost, b, false);
		snprintf(what, sizeof(what), "an unhashed stray in bucket %zu", b);
		failed |= verify(what, "#999 in hash bucket");
		pop(&ghost, b);
	}
	failed |= verify("the strays gone", NULL);

	/* A reachable dentry in the last bucket (or the first): still counted. */
	{
		size_t home = bucket_of(a), far = home == c->hash_mask ? 0 : c->hash_mask;

		pop(a, home);
		push(a, far, true);
		failed |= verify("a dentry in a far bucket", NULL);
		pop(a, far);
		push(a, home, true);
	}

	/* A bucket lock left held. */
	dcsim_spin_lock(&c->hash[c->hash_mask / 3].lock);
	failed |= verify("a bucket lock held", "locked at quiescence");
	dcsim_spin_unlock(&c->hash[c->hash_mask / 3].lock);
	failed |= verify("the lock dropped", NULL);

	dcsim_dput(root);
	dcsim_cache_destroy(c);
	if (!failed)
		printf("verify-hash: strays in buckets 0, mid and last, a far entry and a held "
		       "bucket lock all seen\n");
	return failed;
}
