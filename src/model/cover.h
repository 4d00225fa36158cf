/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_SRC_DCACHE_COVER_H
#define DCSIM_SRC_DCACHE_COVER_H

/*
 * Labelled slow paths of src/model/, counted so that a test can show (and
 * gate on) which of them a suite really reached.  Instrumented builds count each
 * label in a process-wide relaxed counter (dcsim_dcache_cover_read() in
 * <dcsim/dcache-cover.h>); other builds compile dcache_cover() to nothing.
 * Hardware-style abort codes are labelled by dcsim_cache_htm_account(), the
 * one place every HTM strategy reports its aborts.
 *
 * The order and names are the table of docs/testing.md; add at the end.
 */

#include <dcsim/config.h>
#include <dcsim/dcache-cover.h>

#if DCSIM_INSTRUMENT
void dcache_cover_hit(enum dcsim_dcache_cover label);
#define dcache_cover(label)	dcache_cover_hit(label)
/* Is @fault planted (dcsim_dcache_set_fault())? */
bool dcache_faulty(enum dcsim_dcache_fault fault);
#else
#define dcache_cover(label)	do { } while (0)
#define dcache_faulty(fault)	((void)(fault), false)
#endif

#endif /* DCSIM_SRC_DCACHE_COVER_H */
