// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Weak memory (DCSIM_EXPLORE_MEM_RELAXED_RMW): loads passing a relaxed RMW.
 */

#include <string.h>

#include <dcsim/explore.h>

#include "internal.h"

/* ---- weak memory: loads passing a relaxed RMW ---- */

bool wm_on(const struct dcsim_explore_opts *o)
{
	return o->memory == DCSIM_EXPLORE_MEM_RELAXED_RMW;
}

void wm_clear(struct lthread *lt)
{
	lt->wm_n = 0;
	lt->wm_open = false;
}

/* Coherence: once @lt wrote or freshly read a location, no older value. */
static void wm_drop(struct lthread *lt, uintptr_t addr, unsigned int size)
{
	unsigned int j = 0;

	for (unsigned int i = 0; i < lt->wm_n; i++)
		if (!overlaps(lt->wm[i].addr, lt->wm[i].size, addr, size))
			lt->wm[j++] = lt->wm[i];
	lt->wm_n = j;
}

/*
 * ex->lock held: @lt is about to write [addr, addr+size).  Every other live
 * thread keeps the value it overwrites (the first one since that thread's
 * last ordering point), which its loads may still return.  A full log
 * drops the value: fewer behaviours, never a false one.
 */
void wm_note_write(struct lthread *lt, uintptr_t addr, unsigned int size)
{
	if (size > SIM_UNDO_BYTES)
		return;
	for (unsigned int i = 0; i < lt->pool->n; i++) {
		struct lthread *o = &lt->pool->lt[i];
		bool have = false;

		if (o == lt || o->state == LT_DONE)
			continue;
		for (unsigned int k = 0; k < o->wm_n && !have; k++)
			have = o->wm[k].addr == addr && o->wm[k].size == size;
		if (have || o->wm_n == WM_LOG_MAX)
			continue;
		o->wm[o->wm_n].addr = addr;
		o->wm[o->wm_n].size = size;
		memcpy(o->wm[o->wm_n].old, (const void *)addr, size);
		o->wm_n++;
	}
	wm_drop(lt, addr, size);
}

/*
 * ex->lock held: @lt is about to load [addr, addr+size) with a relaxed RMW
 * since its last ordering point.  Only loads near the RMW's address (the
 * same object: we cannot see address dependencies, which order loads from
 * other objects reached through pointers) may pass it.  If older values
 * exist, half the time the load returns them: memory is patched until the
 * thread's next schedule point, when nobody else has run yet.
 */
void wm_load(struct ex_wm *wm, struct ex_slog *sl, struct lthread *lt, unsigned int acc,
	     uintptr_t addr, unsigned int size, const char *func, int line)
{
	unsigned char img[SIM_UNDO_BYTES];
	bool any = false;

	if (acc != DCSIM_ACC_LOAD || !lt->wm_open || lt->txn.active || size > SIM_UNDO_BYTES ||
	    addr + 256 < lt->wm_rmw_addr || addr > lt->wm_rmw_addr + 256)
		goto fresh;
	memcpy(img, (const void *)addr, size);
	/* Newest first, so that where entries overlap the oldest value wins. */
	for (unsigned int i = lt->wm_n; i-- > 0;) {
		const struct wm_ent *e = &lt->wm[i];
		uintptr_t lo, hi;

		if (!overlaps(e->addr, e->size, addr, size))
			continue;
		lo = e->addr > addr ? e->addr : addr;
		hi = e->addr + e->size < addr + size ? e->addr + e->size : addr + size;
		memcpy(img + (lo - addr), e->old + (lo - e->addr), hi - lo);
		any = true;
	}
	if (!any || !memcmp(img, (const void *)addr, size) || splitmix64_below(&wm->rng, 2))
		goto fresh;
	memcpy(lt->wm_cur, (const void *)addr, size);
	memcpy((void *)addr, img, size);
	lt->wm_patched = true;
	lt->wm_paddr = (void *)addr;
	lt->wm_psize = size;
	wm->stale_loads++;
	slog_add(sl, lt->id, SL_STALE, (const void *)addr, size, func, line, false);
	return;
fresh:
	wm_drop(lt, addr, size);
}

void explore_wm_restore(struct lthread *lt)
{
	if (!lt->wm_patched)
		return;
	memcpy(lt->wm_paddr, lt->wm_cur, lt->wm_psize);
	lt->wm_patched = false;
}
