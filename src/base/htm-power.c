// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * POWER HTM backend (ISA 2.07, POWER8 and POWER9), with GCC's HTM builtins
 * enabled per function by a target attribute.
 *
 * tbegin. reports failure through CR0 and leaves the reason in TEXASR,
 * which is what we return as the status.  Unlike RTM, POWER resumes after
 * tbegin. on failure in the same way, so the same begin/fallback shape works.
 */

#include <string.h>
#include <sys/auxv.h>

#include "htm-backend.h"

const enum dcsim_htm_backend htm_hw_backend = DCSIM_HTM_BACKEND_POWER;

#ifndef PPC_FEATURE2_HAS_HTM
#define PPC_FEATURE2_HAS_HTM		0x40000000
#endif
#ifndef PPC_FEATURE2_HTM_NOSC
#define PPC_FEATURE2_HTM_NOSC		0x01000000
#endif
#ifndef PPC_FEATURE2_HTM_NO_SUSPEND
#define PPC_FEATURE2_HTM_NO_SUSPEND	0x00080000
#endif

void htm_hw_detect(struct dcsim_htm_info *info)
{
	const char *plat = (const char *)getauxval(AT_PLATFORM);
	unsigned long hwcap2 = getauxval(AT_HWCAP2);

	strncpy(info->cpu, plat ? plat : "unknown powerpc64", sizeof(info->cpu) - 1);
	info->power_hwcap2 = hwcap2;
	info->power_htm = !!(hwcap2 & PPC_FEATURE2_HAS_HTM);
	info->power_htm_nosc = !!(hwcap2 & PPC_FEATURE2_HTM_NOSC);
	info->power_htm_no_suspend = !!(hwcap2 & PPC_FEATURE2_HTM_NO_SUSPEND);
	info->cpu_has_htm = info->power_htm;
}

__attribute__((target("htm")))
dcsim_htm_status_t htm_hw_begin(void)
{
	if (__builtin_tbegin(0))
		return DCSIM_HTM_STARTED;
	return __builtin_get_texasr();
}

/* tcheck/ttest: CR0 transaction state, 0b10 = transactional. */
__attribute__((target("htm")))
bool htm_hw_test(void)
{
	return ((__builtin_ttest() >> 1) & 3) == 2;
}

__attribute__((target("htm")))
void htm_hw_probe_body(void)
{
	if (__builtin_tbegin(0))
		__builtin_tend(0);
}
