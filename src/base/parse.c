// SPDX-License-Identifier: LGPL-2.1-or-later
/* The one number parser of the tools (<dcsim/parse.h>). */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/parse.h>

static int digit(char c, unsigned int base)
{
	unsigned int v;

	if (c >= '0' && c <= '9')
		v = (unsigned int)(c - '0');
	else if (c >= 'a' && c <= 'f')
		v = (unsigned int)(c - 'a' + 10);
	else if (c >= 'A' && c <= 'F')
		v = (unsigned int)(c - 'A' + 10);
	else
		return -1;
	return v < base ? (int)v : -1;
}

/* [s, s + n) as an integer; -ERANGE when it does not fit 64 bits. */
static int parse_u64_n(const char *s, size_t n, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n -= 2;
	} else if (n > 1 && s[0] == '0') {
		return -EINVAL;		/* "010": octal to strtoul(0), so refused */
	}
	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int d = digit(s[i], base);

		if (d < 0)
			return -EINVAL;
		/* Checked before the multiply: a wrapped value is never seen. */
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -ERANGE;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

int dcsim_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int rc;

	if (!s || !out)
		return -EINVAL;
	rc = parse_u64_n(s, strlen(s), &v);
	if (rc)
		return rc;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int dcsim_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double d;

	/* strtod() skips leading space and reads "nan", "inf" and hex floats. */
	if (!s || !out || !*s || strchr(" \t\n\v\f\r", *s))
		return -EINVAL;
	errno = 0;
	d = strtod(s, &end);
	if (end == s || *end || !isfinite(d))
		return -EINVAL;
	if (errno == ERANGE && d != 0)
		return -ERANGE;
	if (!(d >= min && d <= max))
		return -ERANGE;
	*out = d;
	return 0;
}

int dcsim_parse_u64_list(const char *s, uint64_t min, uint64_t max, uint64_t *out, size_t cap)
{
	size_t n = 0;

	if (!s || !out)
		return -EINVAL;
	for (;;) {
		size_t len = strcspn(s, ",");
		uint64_t v;
		int rc;

		/* An empty element ("1,,2", "1,", ",1", "") is an error, never skipped. */
		if (!len)
			return -EINVAL;
		rc = parse_u64_n(s, len, &v);
		if (rc)
			return rc;
		if (v < min || v > max)
			return -ERANGE;
		if (n == cap)
			return -E2BIG;
		out[n++] = v;
		if (!s[len])
			break;
		s += len + 1;
	}
	return (int)n;
}

const char *dcsim_parse_strerror(int err)
{
	switch (err) {
	case -EINVAL:
		return "not a plain number";
	case -ERANGE:
		return "out of range";
	case -E2BIG:
		return "too many elements";
	default:
		return "not a number";
	}
}
