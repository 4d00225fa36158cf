// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The object caches' own contract (src/model/slab.c), through their
 * internal API (linked statically): an object is handed out once, a freed
 * one comes back to the thread that freed it, and in the instrumented build a
 * write after free is reported (a warning) when the object is handed out
 * again.  Sanitizer builds bypass the caches (ASan reports the write
 * itself), so the test skips there.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dcsim/config.h>
#include <dcsim/warn.h>

#include "slab.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BYPASS	1
#else
#define BYPASS	0
#endif

/* More than a magazine and a depot hold, so both spill paths run. */
#define N	1000

/* DCSIM_SLAB=off: the caches hand everything to malloc, as with a sanitizer. */
static bool slab_off(void)
{
	const char *env = getenv("DCSIM_SLAB");

	return env && !strcmp(env, "off");
}

static void test_reuse(void **state)
{
	static void *obj[N];

	(void)state;
	dcache_slab_cache_get();
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++) {
			obj[i] = dcache_slab_alloc(DCACHE_SLAB_INODE);
			assert_non_null(obj[i]);
			assert_int_equal((uintptr_t)obj[i] % 64, 0);	/* a line each */
			memset(obj[i], i & 0xff, 64);
		}
		for (int i = 0; i < N; i++)
			for (int j = 0; j < 64; j++)	/* nobody else was given it */
				assert_int_equal(((unsigned char *)obj[i])[j], i & 0xff);
		for (int i = 0; i < N; i++)
			dcache_slab_free(DCACHE_SLAB_INODE, obj[i]);
	}
	/* The last object freed is the first handed out again (a magazine is LIFO). */
	if (!BYPASS && !slab_off()) {
		void *p = dcache_slab_alloc(DCACHE_SLAB_INODE);

		assert_ptr_equal(p, obj[N - 1]);
		dcache_slab_free(DCACHE_SLAB_INODE, p);
	}
	dcache_slab_cache_put();
}

static void test_write_after_free(void **state)
{
	unsigned long w = dcsim_warn_count();
	unsigned char *p, *q;

	(void)state;
	if (BYPASS || !DCSIM_INSTRUMENT || slab_off())
		skip();		/* only the instrumented build poisons */
	dcache_slab_cache_get();
	p = dcache_slab_alloc(DCACHE_SLAB_DENTRY);
	dcache_slab_free(DCACHE_SLAB_DENTRY, p);
	q = dcache_slab_alloc(DCACHE_SLAB_DENTRY);	/* poisoned, intact: no warning */
	assert_ptr_equal(p, q);
	assert_int_equal(dcsim_warn_count(), w);
	dcache_slab_free(DCACHE_SLAB_DENTRY, q);
	dcsim_warn_set_quiet(true);
	p[100] = 0;					/* the planted write after free */
	q = dcache_slab_alloc(DCACHE_SLAB_DENTRY);
	dcsim_warn_set_quiet(false);
	assert_ptr_equal(p, q);
	assert_int_equal(dcsim_warn_count(), w + 1);
	dcache_slab_free(DCACHE_SLAB_DENTRY, q);
	dcache_slab_cache_put();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_write_after_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
