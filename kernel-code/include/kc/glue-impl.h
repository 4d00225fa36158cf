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

/*
 * In the kernel a held spinlock is an RCU read-side critical section:
 * spin_lock() disables preemption, which holds off every grace period since
 * the flavours were consolidated (4.20), and PREEMPT_RT's spin_lock() takes
 * rcu_read_lock() itself.  6.8+'s dput() relies on it: it leaves its RCU
 * section and only then drops the d_lock of a dentry that lock_for_kill()
 * relocked and that somebody may have killed meanwhile.  dcsim's RCU knows
 * only explicit readers, so the k612 tree's locks are readers explicitly
 * (kc/spinlock.h, KC_SPINLOCK_IS_RCU_READER): the section opens before the
 * lock is taken and closes after it is dropped.
 */
KC_GLUE_FN void kc_spin_lock_rcu(dcsim_spinlock_t *l)
{
	dcsim_rcu_read_lock();
	kc_spin_lock(l);
}

KC_GLUE_FN bool kc_spin_trylock_rcu(dcsim_spinlock_t *l)
{
	dcsim_rcu_read_lock();
	if (kc_spin_trylock(l))
		return true;
	dcsim_rcu_read_unlock();
	return false;
}

KC_GLUE_FN void kc_spin_unlock_rcu(dcsim_spinlock_t *l)
{
	kc_spin_unlock(l);
	dcsim_rcu_read_unlock();
}

/*
 * 6.8+'s __dentry_kill() over dcsim's (src/dcache/kernel-code.c), for a
 * tree whose locks are RCU readers: dcsim drops the d_lock and, for a
 * positive dentry, the i_lock that lock_for_kill() took through
 * kc_spin_lock_rcu(), so their sections close here; the parent it returns
 * locked is one more held lock, so one more section opens.  d_inode is
 * stable under d_lock.
 */
KC_GLUE_FN struct dcsim_dentry *kc_dentry_kill_68(struct dcsim_dentry *d)
{
	int held = 1 + (DCSIM_READ_ONCE(d->d_inode) != NULL);
	struct dcsim_dentry *parent;

	kc_tally.kills++;
	parent = dcsim_kc___dentry_kill_68(d);
	if (parent)
		dcsim_rcu_read_lock();
	while (held--)
		dcsim_rcu_read_unlock();
	return parent;
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

/*
 * cpu_relax(): the pause of a busy wait.  Through dcsim_cpu_relax() so that
 * the explorer sees a spin and runs another thread, as it does for the
 * library's own waits.
 */
KC_GLUE_FN void kc_cpu_relax(void)
{
	dcsim_cpu_relax();
}

/* This thread's kills so far: a shrinker's kills are the difference. */
KC_GLUE_FN unsigned long kc_kills(void)
{
	return kc_tally.kills;
}

/* this_cpu_inc()/_dec() of the field at @off of the thread's struct kc_pcpu. */
KC_GLUE_FN void kc_this_cpu_add(size_t off, long n)
{
	*(long *)(void *)((char *)&kc_pcpu + off) += n;
}

/* After htm_end(): outside the transaction, so never rolled back. */
KC_GLUE_FN void kc_htm_committed(void)
{
	kc_tally.commits++;
}

#endif
