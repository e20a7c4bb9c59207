/*
 * test_registry.c
 *	  Unit tests that iterate the learner registry, so that a new learner
 *	  is covered by adding it: unique ids and names, doc/format.md's table
 *	  of algorithm ids, and for every learner, binary and with three
 *	  classes, determinism, the format's round trip, the warm start
 *	  (training on in two parts, through the bytes, is training in one go),
 *	  the class order, and merging (two halves merged are a valid model of
 *	  the learner that trains on, close to the model of both halves).
 */
#include "bk_test.h"
#include "bk_learner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STREAM_ROWS 600
#define SPLIT_ROW	250
#define SMALL_BUDGET 20

/* The default parameters of learner l, with a small budget if it has one. */
static void
learner_params(const BkLearner *l, BkParams *p)
{
	const char *pp[][2] = {{"algorithm", l->name}};

	make_params(p, pp, 1, 2);
	if (BkParamsBudgeted(p))
		p->budget = SMALL_BUDGET;
}

static BkModel *
learn_rows(BkModel *m, const double *x, const int64_t *y, int from, int to)
{
	for (int i = from; i < to; i++)
		BkModelLearn(m, x + 2 * i, y[i]);
	return m;
}

static bool
same_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

void
test_registry_ids(void)
{
	int			n = 0;

	for (int i = 0; BkLearnerAt(i) != NULL; i++)
	{
		const BkLearner *l = BkLearnerAt(i);
		BkParams	p;

		n++;
		CHECK((int) l->id == i + 1, "learner %s has id %d, at slot %d", l->name,
			  (int) l->id, i + 1);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(BkLearnerAt(j)->name, l->name) != 0,
				  "learner names are unique: %s twice", l->name);
		CHECK(l->source != NULL && l->source[0] != '\0',
			  "learner %s names its paper and equations", l->name);
		CHECK(l->multiclass ? (l->step_class && l->class_scores) : l->step != NULL,
			  "learner %s has the step of its kind", l->name);
		learner_params(l, &p);
		CHECK(BkLearnerOf(&p) == l && strcmp(BkAlgorithmName(&p), l->name) == 0,
			  "\"algorithm\": \"%s\" selects its learner", l->name);
	}
	/* the seventeen learners of the papers and their baselines, at least */
	CHECK(n >= 17, "%d learners registered", n);
}

/*
 * doc/format.md lists the algorithm ids stored in models as
 * "1 = `perceptron`, 2 = `pa`, ..." in the row of parameter 1: the list
 * must be the registry's, id for id.
 */
void
test_registry_format_doc(void)
{
	FILE	   *f = fopen("doc/format.md", "r");
	char		line[8192];
	int			found = 0;

	CHECK(f != NULL, "doc/format.md is readable (run from the repository root)");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		const char *row = "| 1 | `algorithm` |";
		int			n = 0;

		if (strncmp(line, row, strlen(row)) != 0)
			continue;
		found = 1;
		for (int i = 0; BkLearnerAt(i) != NULL; i++)
		{
			char		entry[128];

			snprintf(entry, sizeof(entry), "%d = `%s`", i + 1, BkLearnerAt(i)->name);
			CHECK(strstr(line, entry) != NULL, "doc/format.md lists %s", entry);
			n++;
		}
		{
			char		next[32];

			snprintf(next, sizeof(next), "%d = `", n + 1);
			CHECK(strstr(line, next) == NULL,
				  "doc/format.md lists no algorithm id beyond %d", n);
		}
	}
	fclose(f);
	CHECK(found, "doc/format.md has the row of parameter 1 (algorithm)");
}

/* Determinism, round trip and warm start of learner l on one stream. */
static void
check_learner(const BkLearner *l, const double *x, const int64_t *y,
			  const char *stream)
{
	BkParams	p;
	BkModel    *a,
			   *b,
			   *c;
	uint8_t    *ba,
			   *bb,
			   *bc,
			   *half;
	size_t		la,
				lb,
				lc,
				lh;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;

	learner_params(l, &p);
	a = learn_rows(BkModelCreate(&bk_std_env, &p, 2), x, y, 0, STREAM_ROWS);
	b = learn_rows(BkModelCreate(&bk_std_env, &p, 2), x, y, 0, STREAM_ROWS);
	ba = encode(a, &la);
	bb = encode(b, &lb);
	CHECK(same_bytes(ba, la, bb, lb), "%s, %s: two runs give the same bytes",
		  l->name, stream);
	CHECK(BkFormatValidate(ba, la, err, sizeof(err), &code),
		  "%s, %s: the model passes the validator: %s", l->name, stream, err);
	/* the learning curve: a point at 1, 2, 4, ..., 512 rows, non-decreasing */
	{
		bool		ok = a->curve_n == 10;

		for (int i = 1; ok && i < a->curve_n; i++)
			ok = a->curve[i] >= a->curve[i - 1] && a->curve[i] <= (UINT64_C(1) << i);
		CHECK(ok, "%s, %s: the learning curve has a point per power of two (%d)",
			  l->name, stream, a->curve_n);
	}
	BkModelFree(b);

	/* round trip: decoded for training, encoded again */
	b = BkModelDecode(&bk_std_env, ba, la, true);
	bb = (free(bb), encode(b, &lb));
	CHECK(same_bytes(ba, la, bb, lb), "%s, %s: decode and encode is the identity",
		  l->name, stream);
	BkModelFree(b);

	/* warm start: the first part, through the bytes, then the rest */
	c = learn_rows(BkModelCreate(&bk_std_env, &p, 2), x, y, 0, SPLIT_ROW);
	half = encode(c, &lh);
	BkModelFree(c);
	c = learn_rows(BkModelDecode(&bk_std_env, half, lh, true), x, y, SPLIT_ROW,
				   STREAM_ROWS);
	bc = encode(c, &lc);
	CHECK(same_bytes(ba, la, bc, lc),
		  "%s, %s: continuing from the bytes of row %d is training in one go",
		  l->name, stream, SPLIT_ROW);
	BkModelFree(c);

	/*
	 * Class order: the same stream with its labels reversed in order
	 * (label -> 100 - label) gives the same model with its classes in
	 * the other order, whichever label came first: every prediction maps
	 * through the relabelling, and a binary decision changes sign exactly.
	 * (One-vs-rest machines of a learner that draws random numbers draw
	 * them in class order, so from three classes on those differ.)
	 */
	{
		int64_t    *yr = malloc(sizeof(int64_t) * STREAM_ROWS);
		bool		same = true,
					sorted = true;
		BkRng		fresh;
		bool		draws;

		BkRngSeed(&fresh, p.seed);
		draws = memcmp(&fresh, &a->rng, sizeof(fresh)) != 0;

		for (int i = 0; i < STREAM_ROWS; i++)
			yr[i] = 100 - y[i];
		c = learn_rows(BkModelCreate(&bk_std_env, &p, 2), x, yr, 0, STREAM_ROWS);
		for (int i = 1; i < a->n_classes; i++)
			sorted &= a->classes[i - 1] < a->classes[i] && c->classes[i - 1] < c->classes[i];
		CHECK(sorted && a->n_classes == c->n_classes,
			  "%s, %s: the classes are in ascending order", l->name, stream);
		for (int i = 0; i < STREAM_ROWS && same; i++)
		{
			int64_t		pa,
						pc;

			BkModelPredict(a, x + 2 * i, &pa);
			BkModelPredict(c, x + 2 * i, &pc);
			same &= pc == 100 - pa;
			if (a->n_classes == 2)
				same &= BkModelDecision(c, x + 2 * i) == -BkModelDecision(a, x + 2 * i);
		}
		CHECK(same || (draws && a->n_machines > 1),
			  "%s, %s: labels in the other order give the mirrored model",
			  l->name, stream);
		BkModelFree(c);
		free(yr);
	}
	BkModelFree(a);
	free(ba);
	free(bb);
	free(bc);
	free(half);
}

/* Accuracy on the stream's rows (multi-class labels). */
static double
stream_accuracy(BkModel *m, const double *x, const int64_t *y)
{
	int			hits = 0;

	for (int i = 0; i < STREAM_ROWS; i++)
	{
		int64_t		pred;

		hits += BkModelPredict(m, x + 2 * i, &pred) && pred == y[i];
	}
	return (double) hits / STREAM_ROWS;
}

/*
 * Merging: the two halves of the stream trained apart and merged (through
 * their bytes, as bk_merge and parallel workers get them), then trained on
 * over the stream once more.  Every step gives a model the validator
 * accepts, decode and encode are the identity on it, and the merged model
 * is as accurate as one half within a margin.
 */
static void
check_merge(const BkLearner *l, const double *x, const int64_t *y,
			const char *stream)
{
	BkParams	p;
	BkModel    *a,
			   *b,
			   *whole;
	uint8_t    *ba,
			   *bb,
			   *bm,
			   *bm2;
	size_t		la,
				lb,
				lm,
				lm2;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	BkModelInfo info;
	double		acc_half,
				acc_merged,
				acc_whole;

	learner_params(l, &p);
	a = learn_rows(BkModelCreate(&bk_std_env, &p, 2), x, y, 0, STREAM_ROWS / 2);
	b = learn_rows(BkModelCreate(&bk_std_env, &p, 2), x, y, STREAM_ROWS / 2,
				   STREAM_ROWS);
	whole = learn_rows(BkModelCreate(&bk_std_env, &p, 2), x, y, 0, STREAM_ROWS);
	acc_half = stream_accuracy(a, x, y);
	acc_whole = stream_accuracy(whole, x, y);
	ba = encode(a, &la);
	bb = encode(b, &lb);
	BkModelFree(a);
	BkModelFree(b);
	a = BkModelDecode(&bk_std_env, ba, la, true);
	b = BkModelDecode(&bk_std_env, bb, lb, true);
	BkModelMerge(a, b);
	BkModelFree(b);
	bm = encode(a, &lm);
	CHECK(BkFormatValidate(bm, lm, err, sizeof(err), &code),
		  "%s, %s: the merged model passes the validator: %s", l->name, stream, err);
	BkModelGetInfo(a, &info);
	CHECK(info.parts == 2 && info.rows_seen == STREAM_ROWS,
		  "%s, %s: the merged model counts 2 parts and every row (%llu, %llu)",
		  l->name, stream, (unsigned long long) info.parts,
		  (unsigned long long) info.rows_seen);
	if (BkParamsBudgeted(&p))
		for (int k = 0; k < a->n_machines; k++)
			CHECK(BkModelSvCount(a, k) <= (int) p.budget,
				  "%s, %s: machine %d holds %d SVs, within the budget",
				  l->name, stream, k, BkModelSvCount(a, k));
	acc_merged = stream_accuracy(a, x, y);
	printf("# merge %s, %s: accuracy half %.3f, merged %.3f, whole %.3f\n",
		   l->name, stream, acc_half, acc_merged, acc_whole);
	b = BkModelDecode(&bk_std_env, bm, lm, true);
	bm2 = encode(b, &lm2);
	CHECK(same_bytes(bm, lm, bm2, lm2),
		  "%s, %s: decode and encode of the merged model is the identity",
		  l->name, stream);
	BkModelFree(b);
	free(bm2);

	/* it trains on: the stream once more, then valid again */
	learn_rows(a, x, y, 0, STREAM_ROWS);
	bm2 = encode(a, &lm2);
	CHECK(BkFormatValidate(bm2, lm2, err, sizeof(err), &code),
		  "%s, %s: the merged model trained on passes the validator: %s",
		  l->name, stream, err);
	BkModelFree(a);
	BkModelFree(whole);
	free(ba);
	free(bb);
	free(bm);
	free(bm2);
}

void
test_registry_learners(void)
{
	BkRng		rng;
	double	   *x = malloc(sizeof(double) * 2 * STREAM_ROWS);
	int64_t    *y = malloc(sizeof(int64_t) * STREAM_ROWS);
	double	   *x3 = malloc(sizeof(double) * 2 * STREAM_ROWS);
	int64_t    *y3 = malloc(sizeof(int64_t) * STREAM_ROWS);

	BkRngSeed(&rng, 11);
	checkerboard(&rng, STREAM_ROWS, x, y, 0.05);
	three_class(&rng, STREAM_ROWS, x3, y3);
	for (int i = 0; BkLearnerAt(i) != NULL; i++)
	{
		check_learner(BkLearnerAt(i), x, y, "two classes");
		check_learner(BkLearnerAt(i), x3, y3, "three classes");
		check_merge(BkLearnerAt(i), x, y, "two classes");
		check_merge(BkLearnerAt(i), x3, y3, "three classes");
	}
	free(x);
	free(y);
	free(x3);
	free(y3);
}
