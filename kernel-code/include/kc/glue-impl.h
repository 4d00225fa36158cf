/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bodies of the kc/glue.h calls: static inline in normal builds, compiled
 * once into glue.c (without instrumentation) in instrumented builds.
 */
#ifndef _KC_GLUE_IMPL_H
#define _KC_GLUE_IMPL_H

/* @func:@line, the kernel code's, and @subclass go to the lock order validator. */
KC_GLUE_FN void kc_spin_lock(dcsim_spinlock_t *l, unsigned int subclass, const char *func, int line)
{
	KC_FRAME_BEGIN();

	dcsim_spin_lock_at(l, subclass, func, line);
	kc_tally.locks++;
	KC_FRAME_END();
}

KC_GLUE_FN bool kc_spin_trylock(dcsim_spinlock_t *l, const char *func, int line)
{
	KC_FRAME_BEGIN();
	bool got = dcsim_spin_trylock_at(l, func, line);

	if (got)
		kc_tally.locks++;
	KC_FRAME_END();
	return got;
}

KC_GLUE_FN void kc_spin_unlock(dcsim_spinlock_t *l)
{
	KC_FRAME_BEGIN();

	dcsim_spin_unlock(l);
	KC_FRAME_END();
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
KC_GLUE_FN void kc_spin_lock_rcu(dcsim_spinlock_t *l, unsigned int subclass, const char *func,
			       int line)
{
	KC_FRAME_BEGIN();

	dcsim_rcu_read_lock();
	kc_spin_lock(l, subclass, func, line);
	KC_FRAME_END();
}

KC_GLUE_FN bool kc_spin_trylock_rcu(dcsim_spinlock_t *l, const char *func, int line)
{
	KC_FRAME_BEGIN();
	bool got;

	dcsim_rcu_read_lock();
	got = kc_spin_trylock(l, func, line);
	if (!got)
		dcsim_rcu_read_unlock();
	KC_FRAME_END();
	return got;
}

KC_GLUE_FN void kc_spin_unlock_rcu(dcsim_spinlock_t *l)
{
	KC_FRAME_BEGIN();

	kc_spin_unlock(l);
	dcsim_rcu_read_unlock();
	KC_FRAME_END();
}

/*
 * fs/dcache.c:dentry_unlink_inode() (6.8+ contract: d_lock and i_lock
 * held, both dropped, d_lock first) for a tree whose locks are RCU
 * readers: dcsim makes the dentry negative, then the locks the kernel
 * code took through kc_spin_lock_rcu() are dropped the same way.  d_inode
 * is stable under d_lock; i_lock is the first field of dcsim's inode.
 */
KC_GLUE_FN void kc_dentry_unlink_inode_rcu(struct dcsim_dentry *d)
{
	dcsim_spinlock_t *i_lock = (dcsim_spinlock_t *)(void *)DCSIM_READ_ONCE(d->d_inode);

	dcsim_kc_dentry_clear_inode(d);
	kc_spin_unlock_rcu(&d->d_lockref.lock);
	kc_spin_unlock_rcu(i_lock);
}

/*
 * The same for a tree whose locks are not RCU readers (6.1): the reader
 * the kernel's held i_lock would be opens here, before the inode's last
 * alias can hand it to call_rcu(), and closes after i_lock is dropped.
 */
KC_GLUE_FN void kc_dentry_unlink_inode(struct dcsim_dentry *d)
{
	dcsim_spinlock_t *i_lock = (dcsim_spinlock_t *)(void *)DCSIM_READ_ONCE(d->d_inode);

	dcsim_rcu_read_lock();
	dcsim_kc_dentry_clear_inode(d);
	kc_spin_unlock(&d->d_lockref.lock);
	kc_spin_unlock(i_lock);
	dcsim_rcu_read_unlock();
}

/* 6.1's __dentry_kill() is dcsim's (src/model/kernel-code.c); one per kill (kc_kills()). */
KC_GLUE_FN void kc_dentry_kill_61(struct dcsim_dentry *d)
{
	kc_tally.kills++;
	dcsim_kc___dentry_kill(d);
}

/* fs/dcache.c:dentry_unlist() over dcsim's; one per kill (kc_kills()). */
KC_GLUE_FN void kc_dentry_unlist(struct dcsim_dentry *d)
{
	kc_tally.kills++;
	dcsim_kc_dentry_unlist(d);
}

KC_GLUE_FN void kc_smp_rmb(void)
{
	KC_FRAME_BEGIN();

	dcsim_smp_rmb();
	KC_FRAME_END();
}

KC_GLUE_FN void kc_smp_wmb(void)
{
	KC_FRAME_BEGIN();

	dcsim_smp_wmb();
	KC_FRAME_END();
}

KC_GLUE_FN void kc_smp_mb(void)
{
	KC_FRAME_BEGIN();

	dcsim_smp_mb();
	KC_FRAME_END();
}

/*
 * cpu_relax(): the pause of a busy wait.  Through dcsim_cpu_relax() so that
 * the explorer sees a spin and runs another thread, as it does for the
 * library's own waits.
 */
KC_GLUE_FN void kc_cpu_relax(void)
{
	KC_FRAME_BEGIN();

	dcsim_cpu_relax();
	KC_FRAME_END();
}

/*
 * cond_resched(): where the kernel's thread offers its CPU to one that
 * waits for it.  Through dcsim_cond_resched(), which the explorer takes as
 * a busy wait's pause (as cpu_relax()) and, with strict priorities, as the
 * point where a preempting thread gives the CPU back (<dcsim/sched.h>):
 * a cpu_relax() there would spin forever under --sched strict, which is
 * not what the kernel's loop does.
 */
KC_GLUE_FN void kc_cond_resched(void)
{
	KC_FRAME_BEGIN();

	dcsim_cond_resched();
	KC_FRAME_END();
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
