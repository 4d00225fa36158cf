// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim_cache_verify() catches a wrong nr_negative gauge either way
 * (docs/no-wrong-pass.md): a negative dentry on the LRU counts once, and
 * the gauge moved one down (an under-count, which no other test makes) or
 * one up must each be a violation naming nr_negative.  The gauge is moved
 * through dcsim_kc_nr_negative_add(), the kernel-code glue's own way to
 * move it.
 */

#include <stdio.h>
#include <string.h>

#include <dcsim/cache.h>
#include <dcsim/dentry.h>

/* src/model/kernel-code.h, for the extracted kernel code's LRU helpers. */
void dcsim_kc_nr_negative_add(struct dcsim_dentry *dentry, long n);

static int verify(struct dcsim_cache *c, struct dcsim_dentry *root, const char *what,
		  bool want_bad)
{
	struct dcsim_held_ref held = { root, 1 };
	char rep[1024] = "";
	unsigned int v = dcsim_cache_verify(c, &held, 1, 0, rep, sizeof(rep));
	bool named = strstr(rep, "nr_negative") != NULL;

	if (want_bad ? v && named : !v)
		return 0;
	fprintf(stderr, "FAIL: %s: %u violation(s), want %s: %s\n", what, v,
		want_bad ? "one naming nr_negative" : "none", rep);
	return 1;
}

int main(void)
{
	struct dcsim_cache *c = dcsim_cache_create_named("fast");
	struct dcsim_dentry *root, *neg;
	int failed = 0;

	if (!c)
		return 1;
	root = dcsim_d_alloc_root(c, "/");
	neg = dcsim_d_alloc(root, "neg");
	dcsim_d_add(neg, false);	/* negative, hashed */
	dcsim_dput(neg);		/* unused: on the LRU, counted in nr_negative */
	failed |= verify(c, root, "a negative on the LRU", false);
	dcsim_kc_nr_negative_add(neg, -1);
	failed |= verify(c, root, "nr_negative one under", true);
	dcsim_kc_nr_negative_add(neg, 2);
	failed |= verify(c, root, "nr_negative one over", true);
	dcsim_kc_nr_negative_add(neg, -1);
	failed |= verify(c, root, "nr_negative restored", false);
	dcsim_dput(root);
	dcsim_cache_destroy(c);
	if (!failed)
		printf("verify-gauges: nr_negative under- and over-counts caught\n");
	return failed;
}
