/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bodies of the kc/glue.h calls: static inline in normal builds, compiled
 * once into glue.c (without instrumentation) in check builds.
 */
#ifndef _KC_GLUE_IMPL_H
#define _KC_GLUE_IMPL_H

KC_GLUE_FN void kc_spin_lock(dcsim_spinlock_t *l)
{
	dcsim_spin_lock(l);
	kc_tally.locks++;
}

KC_GLUE_FN bool kc_spin_trylock(dcsim_spinlock_t *l)
{
	if (!dcsim_spin_trylock(l))
		return false;
	kc_tally.locks++;
	return true;
}

KC_GLUE_FN void kc_spin_unlock(dcsim_spinlock_t *l)
{
	dcsim_spin_unlock(l);
}

KC_GLUE_FN bool kc_spin_is_locked(dcsim_spinlock_t *l)
{
	return dcsim_spin_is_locked(l);
}

KC_GLUE_FN void kc_smp_rmb(void)
{
	dcsim_smp_rmb();
}

KC_GLUE_FN void kc_smp_wmb(void)
{
	dcsim_smp_wmb();
}

KC_GLUE_FN void kc_smp_mb(void)
{
	dcsim_smp_mb();
}

/* After htm_end(): outside the transaction, so never rolled back. */
KC_GLUE_FN void kc_htm_committed(void)
{
	kc_tally.commits++;
}

#endif
