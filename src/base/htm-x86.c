// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * x86 RTM backend.
 *
 * The instructions are compiled with a target attribute, not a global
 * -mrtm, so the rest of the library runs on CPUs without RTM; they execute
 * only once the generic layer made HTM live.
 *
 * Returning from a function inside a transaction is fine: an abort restores
 * the registers (the stack pointer included) to their state at XBEGIN and
 * rolls back every store, the stack's too, so execution resumes at the
 * fallback address in htm_hw_begin() with its frame intact.
 */

#include <cpuid.h>
#include <immintrin.h>
#include <string.h>

#include "htm-backend.h"

const enum dcsim_htm_backend htm_hw_backend = DCSIM_HTM_BACKEND_X86_RTM;

#define CPUID7_EBX_RTM			(1u << 11)
#define CPUID7_EDX_RTM_ALWAYS_ABORT	(1u << 11)

static void x86_brand(char *buf, size_t len)
{
	unsigned int regs[12];
	unsigned int max = __get_cpuid_max(0x80000000u, NULL);
	char *p;

	if (max < 0x80000004u) {
		strncpy(buf, "unknown x86-64", len - 1);
		return;
	}
	for (unsigned int i = 0; i < 3; i++)
		__cpuid(0x80000002u + i, regs[4 * i], regs[4 * i + 1],
			regs[4 * i + 2], regs[4 * i + 3]);
	p = (char *)regs;
	while (*p == ' ')
		p++;
	strncpy(buf, p, len - 1);
	buf[len - 1] = '\0';
	if (strlen(buf) > sizeof(regs))
		buf[sizeof(regs)] = '\0';
}

void htm_hw_detect(struct dcsim_htm_info *info)
{
	unsigned int eax, ebx = 0, ecx, edx = 0;

	x86_brand(info->cpu, sizeof(info->cpu));
	if (__get_cpuid_max(0, NULL) >= 7)
		__cpuid_count(7, 0, eax, ebx, ecx, edx);
	info->x86_cpuid7_ebx = ebx;
	info->x86_cpuid7_edx = edx;
	info->x86_rtm = !!(ebx & CPUID7_EBX_RTM);
	info->x86_rtm_always_abort = !!(edx & CPUID7_EDX_RTM_ALWAYS_ABORT);
	/* RTM_ALWAYS_ABORT: microcode keeps the bit but aborts every XBEGIN. */
	info->cpu_has_htm = info->x86_rtm && !info->x86_rtm_always_abort;
}

__attribute__((target("rtm")))
dcsim_htm_status_t htm_hw_begin(void)
{
	unsigned int st = _xbegin();

	if (st == _XBEGIN_STARTED)
		return DCSIM_HTM_STARTED;
	return st;
}

__attribute__((target("rtm")))
bool htm_hw_test(void)
{
	return _xtest();
}

__attribute__((target("rtm")))
void htm_hw_probe_body(void)
{
	if (_xbegin() == _XBEGIN_STARTED)
		_xend();
}
