// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-check --merge FILE...: one verdict from the --json files of the
 * shards of one run (--shard I/N), as the unsharded run would give it.
 * The shards must be those of one strategy, seed and N, each index once.
 * Per suite: the runs and simulated commits add up, a failure in any
 * shard fails it (its failure and replay are the lowest shard's), and for
 * a strategy that uses HTM, diff and explore fail when no shard committed
 * a simulated transaction (the check a shard leaves to the merge).  The
 * units (each shard's own) are put in index order per suite and cut after
 * the lowest failing one, where an unsharded run stops: the unsharded
 * run's list; that unit's failure and replay are the suite's, as in an
 * unsharded run.  The coverage of the change is not merged (null): a
 * shard's counts are its own.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"

#define MERGE_SUITES	4

struct merged {
	const char *name;
	json_t *units;			/* the shards' units of this suite */
	unsigned long runs, commits;
	unsigned int processes;
	bool failed, error, seen;
	const char *failure, *replay;	/* the lowest failing shard's */
};

static int merge_error(const char *file, const char *what)
{
	fprintf(stderr, "dcsim-check: --merge %s: %s\n", file, what);
	return CHECK_USAGE;
}

static const char *const suite_names[MERGE_SUITES] = { "diff", "explore", "stress", "misuse" };

/* The slot of the suite named @name, or MERGE_SUITES for none (or NULL). */
static int suite_slot(const char *name)
{
	int k = 0;

	while (k < MERGE_SUITES && (!name || strcmp(suite_names[k], name)))
		k++;
	return k;
}

/* Add @doc's suites to @m. */
static int merge_suites(const char *file, json_t *doc, struct merged *m)
{
	json_t *suites = json_object_get(doc, "suites"), *s;
	size_t i;

	if (!json_is_array(suites))
		return merge_error(file, "no \"suites\" array");
	json_array_foreach(suites, i, s) {
		const char *name = json_string_value(json_object_get(s, "name"));
		const char *verdict = json_string_value(json_object_get(s, "verdict"));
		int k = suite_slot(name);

		if (k == MERGE_SUITES || !verdict)
			return merge_error(file, "a suite without a known name or a verdict");
		m[k].name = suite_names[k];
		m[k].seen = true;
		m[k].runs += (unsigned long)json_integer_value(json_object_get(s, "runs"));
		m[k].commits += (unsigned long)json_integer_value(json_object_get(s,
										  "simulated_commits"));
		m[k].processes += (unsigned int)json_integer_value(json_object_get(s, "processes"));
		if (!strcmp(verdict, "ERROR"))
			m[k].error = true;
		if (!strcmp(verdict, "FAILED") && !m[k].failed) {
			m[k].failed = true;
			m[k].failure = json_string_value(json_object_get(s, "failure"));
			m[k].replay = json_string_value(json_object_get(s, "replay"));
		}
	}
	return 0;
}

/* Add @doc's units to their suites in @m. */
static int merge_units(const char *file, json_t *doc, struct merged *m)
{
	json_t *units = json_object_get(doc, "units"), *u;
	size_t i;

	if (!json_is_array(units))
		return merge_error(file, "no \"units\" array");
	json_array_foreach(units, i, u) {
		int k = suite_slot(json_string_value(json_object_get(u, "suite")));

		if (k == MERGE_SUITES || !m[k].name || !json_is_integer(json_object_get(u, "index")))
			return merge_error(file, "a unit without a suite of the file or an index");
		if (!m[k].units)
			m[k].units = json_array();
		json_array_append(m[k].units, u);
	}
	return 0;
}

static int unit_index_cmp(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "index"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "index"));

	return x < y ? -1 : x > y;
}

/*
 * Suite @m's units into @out: in index order, up to the lowest failing
 * one, whose failure and replay become the suite's.  Return: 0, or 2 when
 * a unit came from two shards.
 */
static int merge_suite_units(struct merged *m, json_t *out)
{
	size_t n = json_array_size(m->units), keep = n;
	json_t **v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return CHECK_USAGE;
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(m->units, i);
	qsort(v, n, sizeof(*v), unit_index_cmp);
	for (size_t i = 0; i < n; i++) {
		const char *verdict = json_string_value(json_object_get(v[i], "verdict"));

		if (i && !unit_index_cmp(&v[i - 1], &v[i])) {
			free(v);
			return merge_error(m->name, "a unit is in two shards");
		}
		if (keep == n && verdict && strcmp(verdict, "ok")) {
			keep = i + 1;
			m->failure = json_string_value(json_object_get(v[i], "failure"));
			m->replay = json_string_value(json_object_get(v[i], "replay"));
		}
	}
	for (size_t i = 0; i < keep; i++)
		json_array_append(out, v[i]);
	free(v);
	return 0;
}

/* The shards, in index order, checked to be one run's.  Return: 0 or 2. */
static int merge_load(char *const *files, unsigned int n, json_t **docs)
{
	for (unsigned int i = 0; i < n; i++) {
		json_error_t err;
		json_t *doc = json_load_file(files[i], 0, &err), *shard;
		unsigned int idx, count;

		if (!doc)
			return merge_error(files[i], err.text);
		shard = json_object_get(doc, "shard");
		idx = (unsigned int)json_integer_value(json_object_get(shard, "index"));
		count = (unsigned int)json_integer_value(json_object_get(shard, "count"));
		if (count != n || idx >= n || docs[idx]) {
			char why[160];

			snprintf(why, sizeof(why), "shard %u/%u: want the %u shards of one run, each "
				 "once", idx, count, n);
			json_decref(doc);
			return merge_error(files[i], why);
		}
		docs[idx] = doc;
	}
	for (unsigned int i = 1; i < n; i++) {
		if (!json_equal(json_object_get(docs[i], "strategy"),
				json_object_get(docs[0], "strategy")) ||
		    !json_equal(json_object_get(docs[i], "seed"), json_object_get(docs[0], "seed")) ||
		    !json_equal(json_object_get(docs[i], "uses_htm"),
				json_object_get(docs[0], "uses_htm")))
			return merge_error(files[i], "another strategy or seed than shard 0's");
	}
	return 0;
}

int check_merge(char *const *files, unsigned int n, const char *json)
{
	struct merged m[MERGE_SUITES] = { { 0 } };
	json_t **docs = calloc(n, sizeof(*docs)), *out, *suites, *units = NULL;
	const char *strategy;
	bool htm, failed = false, error = false;
	int rc;

	if (!docs)
		return CHECK_USAGE;
	rc = merge_load(files, n, docs);
	for (unsigned int i = 0; !rc && i < n; i++)
		rc = merge_suites(files[i], docs[i], m);
	for (unsigned int i = 0; !rc && i < n; i++)
		rc = merge_units(files[i], docs[i], m);
	units = json_array();
	for (int k = 0; !rc && k < MERGE_SUITES; k++)
		if (m[k].units)
			rc = merge_suite_units(&m[k], units);
	if (rc)
		goto out;
	strategy = json_string_value(json_object_get(docs[0], "strategy"));
	htm = json_is_true(json_object_get(docs[0], "uses_htm"));
	suites = json_array();
	for (int k = 0; k < MERGE_SUITES; k++) {
		const char *verdict;

		if (!m[k].seen)
			continue;
		if (htm && k < 2 && !m[k].failed && !m[k].error && !m[k].commits) {
			m[k].failed = true;
			m[k].failure = "no simulated transaction committed in any shard: its HTM "
				       "path was not checked";
		}
		verdict = m[k].failed ? "FAILED" : m[k].error ? "ERROR" : "ok";
		failed |= m[k].failed;
		error |= m[k].error;
		fprintf(stderr, "dcsim-check: merge of %u shards: %s: %s: %lu runs, %s, %lu simulated "
			"commits\n", n, m[k].name, strategy ? strategy : "?", m[k].runs, verdict,
			m[k].commits);
		if (m[k].failed && m[k].failure)
			fprintf(stderr, "check: %s\n", m[k].failure);
		if (m[k].failed && m[k].replay)
			fprintf(stderr, "replay: %s\n", m[k].replay);
		json_array_append_new(suites, json_pack("{s:s, s:s, s:I, s:I, s:I, s:s?, s:s?}",
			"name", m[k].name, "verdict", verdict, "runs", (json_int_t)m[k].runs,
			"simulated_commits", (json_int_t)m[k].commits,
			"processes", (json_int_t)(m[k].processes ? m[k].processes : 1),
			"failure", m[k].failed ? m[k].failure : NULL,
			"replay", m[k].failed ? m[k].replay : NULL));
	}
	rc = failed ? CHECK_FAILED : error ? CHECK_USAGE : CHECK_PASS;
	fprintf(stderr, "dcsim-check: %s: %s (%u shards merged)\n", strategy ? strategy : "?",
		failed ? "FAILED" : error ? "ERROR" : "all checks passed", n);
	out = json_pack("{s:s, s:O, s:O, s:O, s:{s:i, s:i}, s:o, s:O, s:n, s:s, s:i}",
		"tool", "dcsim-check", "strategy", json_object_get(docs[0], "strategy"),
		"seed", json_object_get(docs[0], "seed"), "uses_htm",
		json_object_get(docs[0], "uses_htm"), "shard", "index", 0, "count", 1,
		"suites", suites, "units", units, "coverage",
		"verdict", failed ? "fail" : error ? "error" : "pass", "exit", rc);
	if (json && (!out || json_dump_file(out, json, JSON_INDENT(1)))) {
		fprintf(stderr, "dcsim-check: --json %s: cannot write it\n", json);
		rc = rc ? rc : CHECK_USAGE;
	}
	json_decref(out);
out:
	json_decref(units);
	for (int k = 0; k < MERGE_SUITES; k++)
		json_decref(m[k].units);
	for (unsigned int i = 0; i < n; i++)
		json_decref(docs[i]);
	free(docs);
	return rc;
}
