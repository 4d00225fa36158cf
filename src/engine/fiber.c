// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fibers: the logical threads of an exploration as user-level contexts on
 * the controller's pthread, switched at schedule points without a system
 * call (DCSIM_EXPLORE_HANDOFF_FIBER and _UCONTEXT; pool.c runs them).
 *
 * Why: only one logical thread runs at a time, so a kernel thread per
 * logical thread buys nothing but the cost of the hand-off, two futex
 * calls and a kernel context switch per decision.  A fiber switch saves
 * the callee-saved registers on the old stack and loads the new stack
 * pointer: tens of nanoseconds.
 *
 * What moves with a fiber on each switch:
 *  - the stack and registers (fiber_switch_asm(), or swapcontext());
 *  - explore_lt, the engine's "which logical thread am I";
 *  - every task-local variable (<dcsim/task-local.h>): the model's
 *    per-thread slot and statistics, slab magazines, the kernel-code
 *    tally, the RCU reader's nesting count.  A new fiber starts with them
 *    zeroed, as a new pthread would;
 *  - ASan's idea of the current stack (__sanitizer_start_switch_fiber()
 *    and _finish_), and TSan's current thread (__tsan_switch_to_fiber(),
 *    which also orders everything before the switch before everything
 *    after it, as the baton does).
 * What stays the pthread's: the RCU registration with liburcu (rcu.c),
 * errno, the signal mask and alternate signal stack, the CPU mask.
 * The simulated HTM's setjmp()/longjmp() stay within one fiber's stack.
 *
 * Ordering: switches happen with ex->lock dropped (pool.c) and only on the
 * controller's pthread, so the fields below need no lock: one pthread
 * reads and writes them.
 */

#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dcsim/task-local.h>

#include "../base/rcu-internal.h"
#include "../base/thread.h"
#include "internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define FIBER_ASAN	1
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
				     size_t *size_old);
void __asan_unpoison_memory_region(const volatile void *addr, size_t size);
void __lsan_register_root_region(const void *p, size_t size);
void __lsan_unregister_root_region(const void *p, size_t size);
#else
#define FIBER_ASAN	0
#endif

#if defined(__SANITIZE_THREAD__)
#define FIBER_TSAN	1
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned int flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned int flags);
#else
#define FIBER_TSAN	0
#endif

/* Sanitizers make frames several times larger. */
#if FIBER_ASAN || FIBER_TSAN
#define FIBER_STACK	(4u << 20)
#else
#define FIBER_STACK	(512u << 10)
#endif
#define ALT_STACK	(64u << 10)

/* The hand-written switch: x86-64 only; elsewhere "fiber" is ucontext. */
#if defined(__x86_64__)
#define FIBER_HAVE_ASM	1
#else
#define FIBER_HAVE_ASM	0
#endif

/* ---- the registered task-local variables, as addresses on this pthread ---- */

struct tl_slot {
	void *addr;
	size_t size, off;
	void (*exit)(void);
};

#define TL_MAX	32
static struct tl_slot tl[TL_MAX];
static unsigned int ntl;
static size_t tl_bytes;

/* The fiber that switched to the one now starting or resuming (ASan). */
static struct fiber *fiber_from;
/* The logical thread a fiber that starts now runs. */
static struct lthread *fiber_starting;
static bool fiber_asm;			/* this run: the hand-written switch */
static stack_t alt_old;
static void *alt_stack;

static void tl_save(struct fiber *f)
{
	for (unsigned int i = 0; i < ntl; i++)
		memcpy(f->tls + tl[i].off, tl[i].addr, tl[i].size);
}

static void tl_load(const struct fiber *f)
{
	for (unsigned int i = 0; i < ntl; i++)
		memcpy(tl[i].addr, f->tls + tl[i].off, tl[i].size);
}

/* The exits of @f's task-local copies (a thread's key destructors), run here. */
static void tl_exit(struct explorer *ex, struct fiber *f)
{
	tl_save(&ex->ctl_fib);
	tl_load(f);
	for (unsigned int i = 0; i < ntl; i++)
		if (tl[i].exit)
			tl[i].exit();
	tl_load(&ex->ctl_fib);
}

#if FIBER_HAVE_ASM
/*
 * fiber_switch_asm(from_sp, to_sp): push the callee-saved registers and
 * the x87/SSE control words (callee-saved too, by the ABI) on the current
 * stack, store the stack pointer in *from_sp, load to_sp, pop the same
 * from there and return into the other fiber.
 */
void fiber_switch_asm(void **from_sp, void *to_sp);
__asm__(".text\n"
	".p2align 4\n"
	".type fiber_switch_asm, @function\n"
	"fiber_switch_asm:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	subq $8, %rsp\n"
	"	stmxcsr (%rsp)\n"
	"	fnstcw 4(%rsp)\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	ldmxcsr (%rsp)\n"
	"	fldcw 4(%rsp)\n"
	"	addq $8, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size fiber_switch_asm, .-fiber_switch_asm\n");
#endif

/* The first code a fiber runs. */
static __attribute__((noreturn)) void fiber_entry(void)
{
	struct lthread *lt = fiber_starting;

#if FIBER_ASAN
	__sanitizer_finish_switch_fiber(NULL, &fiber_from->asan_bottom, &fiber_from->asan_size);
#endif
	lt->fib.main(lt);
	/* Its main never returns: a fiber ends by being dropped. */
	abort();
}

/*
 * Run start, on the controller, for a fiber hand-off: note where this
 * pthread's task-local variables are, give the controller its save area,
 * and an alternate signal stack so that a fiber's stack overflow still
 * gets its crash report.
 * Return: 0, or -1 (too many task-local variables: use pthreads).
 */
int fiber_run_begin(struct explorer *ex, bool use_asm)
{
	struct dcsim_task_local *t;
	size_t off = 0;

	fiber_asm = use_asm && FIBER_HAVE_ASM;
	/*
	 * The pthread's own state first (a fiber's is then never its key's),
	 * and its RCU registration, which the fibers share: the model's RCU
	 * read side takes its inline path only on a registered pthread, so
	 * registering inside the first fiber's rcu_read_lock() would make the
	 * first execution run other code than the later ones (pool.c does
	 * the same for pthreads).
	 */
	(void)dcsim_thread_self();
	dcsim_rcu_thread_online_slow();
	ntl = 0;
	for (t = dcsim_task_locals(); t; t = t->next) {
		if (ntl == TL_MAX)
			return -1;
		tl[ntl].addr = t->addr();
		tl[ntl].size = t->size;
		tl[ntl].off = off;
		tl[ntl].exit = t->exit;
		off += (t->size + 15) & ~(size_t)15;
		ntl++;
	}
	tl_bytes = off;
	memset(&ex->ctl_fib, 0, sizeof(ex->ctl_fib));
	ex->ctl_fib.tls = xrealloc(NULL, tl_bytes ? tl_bytes : 1);
#if FIBER_TSAN
	ex->ctl_fib.tsan = __tsan_get_current_fiber();
#endif
	if (!fiber_asm)
		ex->ctl_fib.uc = xrealloc(NULL, sizeof(*ex->ctl_fib.uc));
	alt_stack = NULL;
	if (!sigaltstack(NULL, &alt_old) && (alt_old.ss_flags & SS_DISABLE)) {
		stack_t ss = { .ss_size = ALT_STACK };

		ss.ss_sp = alt_stack = malloc(ALT_STACK);
		if (!alt_stack || sigaltstack(&ss, NULL)) {
			free(alt_stack);
			alt_stack = NULL;
		}
	}
	return 0;
}

void fiber_run_end(struct explorer *ex)
{
	free(ex->ctl_fib.tls);
	free(ex->ctl_fib.uc);
	ex->ctl_fib.tls = NULL;
	ex->ctl_fib.uc = NULL;
	if (alt_stack) {
		stack_t off = { .ss_flags = SS_DISABLE };

		sigaltstack(&off, NULL);
		free(alt_stack);
		alt_stack = NULL;
	}
}

/*
 * A fiber for @lt whose first switch-in calls @main(@lt), which never
 * returns (pool.c passes its lthread_fiber_main()).
 */
void fiber_create(struct lthread *lt, fiber_main_fn *main)
{
	struct fiber *f = &lt->fib;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *map;

	memset(f, 0, sizeof(*f));
	f->main = main;
	/* A guard page below the stack: an overflow faults, not corrupts. */
	map = mmap(NULL, FIBER_STACK + page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED || mprotect(map, page, PROT_NONE)) {
		fputs("dcsim-explore: no memory for a fiber stack\n", stderr);
		abort();
	}
	f->map = map;
	f->map_size = FIBER_STACK + page;
	f->stack = map + page;
	f->stack_size = FIBER_STACK;
	f->tls = xrealloc(NULL, tl_bytes ? tl_bytes : 1);
	memset(f->tls, 0, tl_bytes ? tl_bytes : 1);
	f->asan_bottom = f->stack;
	f->asan_size = f->stack_size;
#if FIBER_ASAN
	/* A parked fiber's stack holds pointers LeakSanitizer must see. */
	__lsan_register_root_region(f->stack, f->stack_size);
#endif
#if FIBER_TSAN
	f->tsan = __tsan_create_fiber(0);
#endif
#if FIBER_HAVE_ASM
	if (fiber_asm) {
		uintptr_t top = ((uintptr_t)f->stack + f->stack_size) & ~(uintptr_t)15;
		void **sp = (void **)top;
		uint32_t ctl[2];

		__asm__ volatile("stmxcsr %0" : "=m"(ctl[0]));
		__asm__ volatile("fnstcw %0" : "=m"(ctl[1]));
		*--sp = NULL;				/* fiber_entry()'s return address */
		*--sp = (void *)fiber_entry;		/* fiber_switch_asm()'s */
		for (int i = 0; i < 6; i++)
			*--sp = NULL;			/* rbp rbx r12 r13 r14 r15 */
		--sp;
		memcpy(sp, ctl, sizeof(ctl));
		f->sp = sp;
		return;
	}
#endif
	f->uc = xrealloc(NULL, sizeof(*f->uc));
	if (getcontext(f->uc)) {
		fputs("dcsim-explore: getcontext failed\n", stderr);
		abort();
	}
	f->uc->uc_stack.ss_sp = f->stack;
	f->uc->uc_stack.ss_size = f->stack_size;
	f->uc->uc_link = NULL;
	makecontext(f->uc, fiber_entry, 0);
}

/*
 * A fiber of a pool that is not dead: it waits for a baton that will not
 * come, holding nothing.  Its task-local exits run with its copies
 * installed (a pthread's key destructors would at its exit); then its
 * stack goes.
 */
void fiber_destroy(struct explorer *ex, struct lthread *lt)
{
	struct fiber *f = &lt->fib;

	tl_exit(ex, f);
#if FIBER_ASAN
	__lsan_unregister_root_region(f->stack, f->stack_size);
	/* Its frames' redzones would otherwise outlive the mapping. */
	__asan_unpoison_memory_region(f->stack, f->stack_size);
#endif
#if FIBER_TSAN
	__tsan_destroy_fiber(f->tsan);
#endif
	munmap(f->map, f->map_size);
	free(f->tls);
	free(f->uc);
	memset(f, 0, sizeof(*f));
}

/*
 * A dead pool's fiber is never resumed.  Its task-local state goes as at
 * a thread's exit (its slot, its magazines of free objects: nothing the
 * abandoned execution's state refers to); its stack stays, as a parked
 * pthread's does, and what it points to is kept.
 */
void fiber_abandon(struct explorer *ex, struct lthread *lt)
{
	struct fiber *f = &lt->fib;

	tl_exit(ex, f);
	free(f->tls);
	f->tls = NULL;
	lsan_keep(f->uc);
}

/*
 * Switch from @from to @to, which runs logical thread @to_lt (NULL: the
 * controller).  @dying: @from is never resumed (an abandoned execution).
 * Returns when something switches back to @from.
 */
void fiber_switch(struct fiber *from, struct fiber *to, struct lthread *to_lt, bool dying)
{
#if FIBER_ASAN
	void *fake = NULL;
#endif

	tl_save(from);
	tl_load(to);
	explore_lt = to_lt;
	fiber_from = from;
	fiber_starting = to_lt;
#if FIBER_ASAN
	__sanitizer_start_switch_fiber(dying ? NULL : &fake, to->asan_bottom, to->asan_size);
#endif
#if FIBER_TSAN
	/* With synchronisation: the baton orders the two fibers' accesses. */
	__tsan_switch_to_fiber(to->tsan, 0);
#endif
	(void)dying;
#if FIBER_HAVE_ASM
	if (fiber_asm)
		fiber_switch_asm(&from->sp, to->sp);
	else
#endif
		swapcontext(from->uc, to->uc);
#if FIBER_ASAN
	__sanitizer_finish_switch_fiber(fake, &fiber_from->asan_bottom, &fiber_from->asan_size);
#endif
}
