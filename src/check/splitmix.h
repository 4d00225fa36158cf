/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Transitional: the explorer (explore.c) still includes this name; the
 * generator is src/rng.h.  Goes when the explorer moves (issue 16).
 */
#include "../rng.h"
