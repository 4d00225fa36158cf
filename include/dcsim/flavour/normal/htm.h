/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_FLAVOUR_HTM_H
#define DCSIM_FLAVOUR_HTM_H

/*
 * <dcsim/htm.h> in the normal build: dcsim_htm_begin() is the exported
 * function and only hardware transactions exist.  Included by
 * <dcsim/htm.h>; do not include it directly.
 */

#ifndef DCSIM_HTM_H
#error "include <dcsim/htm.h>, not <dcsim/flavour/htm.h>"
#endif

/* No simulated transaction to abort or to commit: both fold away. */
#define dcsim_htm_sim_abort_if_active(code)	do { } while (0)
#define dcsim_htm_sim_end_if_active()		false

#endif /* DCSIM_FLAVOUR_HTM_H */
