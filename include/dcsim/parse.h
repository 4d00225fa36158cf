/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_PARSE_H
#define DCSIM_PARSE_H

/*
 * The one number parser of the tools (dcsim-check, dcsim-bench, the trace
 * and .bug readers): a number is accepted only when all of it is read and
 * it lies in the caller's range, so that "-1", "4294967297" for a 32-bit
 * count, "010", " 5", "5x" or "" are errors instead of a wrapped, octal or
 * truncated value.
 *
 * Integers: decimal digits, or "0x" and hex digits; no sign, no space, no
 * leading zero on a decimal (so "010" is refused, never read as octal).
 * Reals: what strtod() reads, finite, with no leading space.
 */

#include <stddef.h>
#include <stdint.h>

#include <dcsim/compiler.h>

/**
 * dcsim_parse_u64() - read the whole of @s as an integer in [@min, @max].
 * @s:   the text (NULL is refused)
 * @min: smallest value accepted
 * @max: largest value accepted
 * @out: the value; untouched on an error
 *
 * Return: 0, -EINVAL (not a plain integer) or -ERANGE (outside the range).
 */
DCSIM_API int dcsim_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/**
 * dcsim_parse_double() - read the whole of @s as a finite real in [@min, @max].
 *
 * Return: 0, -EINVAL (not a number, or not finite) or -ERANGE (outside the range).
 */
DCSIM_API int dcsim_parse_double(const char *s, double min, double max, double *out);

/**
 * dcsim_parse_u64_list() - a comma list of integers, each in [@min, @max].
 * @s:   "A,B,C": no empty element, no space
 * @out: the values, at most @cap of them
 *
 * Return: the count (>= 1), -EINVAL (an empty or bad element), -ERANGE (an
 * element outside the range) or -E2BIG (more than @cap elements).
 */
DCSIM_API int dcsim_parse_u64_list(const char *s, uint64_t min, uint64_t max, uint64_t *out,
				   size_t cap);

/**
 * dcsim_parse_strerror() - what a dcsim_parse_*() error means, for a message.
 * Return: a static string ("not a whole number", "out of range", ...).
 */
DCSIM_API const char *dcsim_parse_strerror(int err);

#endif /* DCSIM_PARSE_H */
