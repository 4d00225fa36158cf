/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_COMPILER_H
#define DCSIM_COMPILER_H

/*
 * Compiler helpers shared by every dcsim header.
 *
 * DCSIM_API marks the exported interface: the library is built with
 * hidden visibility by default, so anything without it stays internal.
 */

#define DCSIM_API __attribute__((visibility("default")))

#define dcsim_likely(x)		__builtin_expect(!!(x), 1)
#define dcsim_unlikely(x)	__builtin_expect(!!(x), 0)

#define DCSIM_CACHELINE		64
#define dcsim_cacheline_aligned __attribute__((aligned(DCSIM_CACHELINE)))

/* Compile-time barrier: the compiler may not move memory accesses across it. */
#define dcsim_barrier()		__asm__ __volatile__("" ::: "memory")

#define DCSIM_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define dcsim_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - __builtin_offsetof(type, member)))

#endif /* DCSIM_COMPILER_H */
