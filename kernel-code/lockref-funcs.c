// SPDX-License-Identifier: GPL-2.0
/*
 * lib/lockref.c, whole, from the tarball (extract.py copies it; meson
 * passes it as KC_SOURCE), over the shims <linux/export.h> and
 * <linux/lockref.h>.  Instrumented build: -fsanitize=thread, as dput.c.
 */

#include <kc/funcs.h>
#include <linux/lockref.h>

#include KC_SOURCE

#if DCSIM_INSTRUMENT
static const struct kc_func funcs[] = {
	{ "lockref_get", (const void *)lockref_get, KC_SOURCE },
	{ "lockref_get_not_zero", (const void *)lockref_get_not_zero, KC_SOURCE },
	{ "lockref_put_not_zero", (const void *)lockref_put_not_zero, KC_SOURCE },
	{ "lockref_put_return", (const void *)lockref_put_return, KC_SOURCE },
	{ "lockref_put_or_lock", (const void *)lockref_put_or_lock, KC_SOURCE },
	{ "lockref_mark_dead", (const void *)lockref_mark_dead, KC_SOURCE },
	{ "lockref_get_not_dead", (const void *)lockref_get_not_dead, KC_SOURCE },
};

static __attribute__((constructor)) void kc_register_funcs(void)
{
	kc_funcs_add(funcs, sizeof(funcs) / sizeof(funcs[0]));
}
#endif
