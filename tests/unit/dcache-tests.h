/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_TESTS_DCACHE_TESTS_H
#define DCSIM_TESTS_DCACHE_TESTS_H

/*
 * What the files of test-dcache share: the checks every test ends with,
 * the loop over the strategies and policies, and the tests main() runs.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <dcsim/cache.h>
#include <dcsim/htm.h>
#include <dcsim/namei.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "harness.h"

#define F_REF	DCSIM_DCACHE_REFERENCED
#define F_LRU	DCSIM_DCACHE_LRU_LIST

typedef void (*case_fn)(const struct dcsim_dput_strategy *s);

void check_cache(struct dcsim_cache *c, const struct dcsim_held_ref *held, size_t n);
int64_t stat_of(struct dcsim_cache *c, enum dcsim_cache_stat s);
void for_each_strategy(case_fn fn);
struct dcsim_cache *mk(const struct dcsim_dput_strategy *s);
void destroy(struct dcsim_cache *c);
void test_registry(void **state);
void test_lifecycle(void **state);
void test_kill_chain(void **state);
void test_kill_reasons(void **state);
void test_prune_release(void **state);
void test_prune(void **state);
void test_invalidate(void **state);
void test_refs(void **state);
void test_link(void **state);
void test_walk(void **state);
void test_create_in_place(void **state);
void test_snapshot(void **state);

#endif /* DCSIM_TESTS_DCACHE_TESTS_H */
