/*
 * test_float4.c
 *	  Unit test: support vectors stored as float4 ("sv_precision":
 *	  "float4", bk_svstore.c).  Such a model rounds each row it learns to
 *	  float4 and nothing else: for every learner that stores rows as they
 *	  come (all but Pegasos' merging, which builds new points), it is the
 *	  float8 model of the rows rounded first, score for score and bit for
 *	  bit, though its kernel rows read the float4 copy.  Its format stores
 *	  the SVs as float4 (4 bytes a value fewer), refuses what is not a
 *	  float4 model's, and a float4 model does not merge with a float8 one.
 */
#include "bk_test.h"
#include "bk_learner.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F4_DIM		21			/* padded rows and a tail of 5 */
#define F4_ROWS		400
#define F4_TEST		80

/* rows whose values are not float4 values, labels of three classes */
static void
f4_stream(double *x, int64_t *y, int n)
{
	BkRng		rng;

	BkRngSeed(&rng, 77);
	for (int i = 0; i < n; i++)
	{
		double		s = 0.0;

		for (int j = 0; j < F4_DIM; j++)
		{
			x[(size_t) i * F4_DIM + j] = 2.0 * BkRngUniform(&rng) - 1.0;
			s += x[(size_t) i * F4_DIM + j] * (j % 3 == 0 ? 1.0 : -0.5);
		}
		y[i] = s > 0.4 ? 2 : s > -0.4 ? 1 : 0;
	}
}

static BkModel *
f4_model(const char *alg, bool float4)
{
	const char *pp[3][2] = {{"algorithm", alg}, {"sv_precision", float4 ? "float4" : "float8"},
	{"budget", "25"}};
	BkParams	p;
	int			np = 2;

	make_params(&p, (const char *(*)[2]) pp, 2, F4_DIM);
	if (BkParamsBudgeted(&p))
		np = 3;
	make_params(&p, (const char *(*)[2]) pp, np, F4_DIM);
	return BkModelCreate(&bk_std_env, &p, F4_DIM);
}

static bool
same_scores(BkModel *a, BkModel *b, const double *x)
{
	double		sa[3],
				sb[3];
	bool		same = true;

	for (int i = F4_ROWS; i < F4_ROWS + F4_TEST; i++)
	{
		BkModelScores(a, x + (size_t) i * F4_DIM, sa);
		BkModelScores(b, x + (size_t) i * F4_DIM, sb);
		same &= memcmp(sa, sb, sizeof(double) * (size_t) a->n_classes) == 0;
	}
	return same;
}

/* every learner: the float4 model is the float8 model of the rounded rows */
static void
float4_is_rounded_rows(const double *x, const int64_t *y)
{
	double	   *xr = malloc(sizeof(double) * (size_t) F4_ROWS * F4_DIM);

	memcpy(xr, x, sizeof(double) * (size_t) F4_ROWS * F4_DIM);
	BkSvRound(xr, F4_ROWS * F4_DIM);
	for (int a = 0; BkLearnerAt(a) != NULL; a++)
	{
		const char *alg = BkLearnerAt(a)->name;
		BkModel    *m4 = f4_model(alg, true);
		BkModel    *m8 = f4_model(alg, false);
		BkModel    *d4;
		size_t		len;
		uint8_t    *b;
		bool		holds = true;

		/* Pegasos merges SVs into new points: the projection keeps rows */
		if (strcmp(alg, "pegasos") == 0)
		{
			BkModelFree(m4);
			BkModelFree(m8);
			continue;
		}
		for (int i = 0; i < F4_ROWS; i++)
		{
			BkModelLearn(m4, x + (size_t) i * F4_DIM, y[i]);
			BkModelLearn(m8, xr + (size_t) i * F4_DIM, y[i]);
		}
		for (int k = 0; k < m4->n_machines; k++)
			holds &= m4->machines[k].sv32 != NULL &&
				BkSvFloat4Holds(&m4->machines[k], F4_DIM);
		CHECK(holds, "%s float4: every SV value a float4 value, its float4 copy equal", alg);
		CHECK(same_scores(m4, m8, x),
			  "%s float4: the scores of the float8 model of the rounded rows, bit for bit", alg);
		b = encode(m4, &len);
		d4 = BkModelDecode(&bk_std_env, b, len, false);
		CHECK(same_scores(d4, m8, x),
			  "%s float4: decoded for scoring, the same scores", alg);
		BkModelFree(d4);
		free(b);
		BkModelFree(m4);
		BkModelFree(m8);
	}
	free(xr);
}

/* Pegasos' merged points, merges and distillations stay float4 values */
static void
float4_merging(const double *x, const int64_t *y)
{
	BkModel    *a = f4_model("pegasos", true);
	BkModel    *b = f4_model("pegasos", true);
	BkModel    *c;
	bool		holds = true;

	for (int i = 0; i < F4_ROWS; i++)
		BkModelLearn(i % 2 ? b : a, x + (size_t) i * F4_DIM, y[i]);
	CHECK(a->machines[0].maintenance > 0, "pegasos float4: SVs were merged (%llu)",
		  (unsigned long long) a->machines[0].maintenance);
	BkModelMerge(a, b);
	c = copy_model(a);
	for (int i = 0; i < 50; i++)
		BkModelLearn(c, x + (size_t) i * F4_DIM, y[i]);
	for (int k = 0; k < c->n_machines; k++)
		holds &= BkSvFloat4Holds(&a->machines[k], F4_DIM) &&
			BkSvFloat4Holds(&c->machines[k], F4_DIM);
	CHECK(holds, "pegasos float4: merged points, a merge and a continued copy hold float4 values");
	BkModelFree(a);
	BkModelFree(b);
	BkModelFree(c);
}

/*
 * Merged points of rows at float4's largest value: h X + (1 - h) X can
 * round above X = FLT_MAX in doubles, so BkMergePoint clamps z between
 * the two points before rounding (found by review: without the clamp
 * the invariant broke within 50 rows, and encoding raised an internal
 * error)
 */
static void
float4_merging_at_the_range_end(void)
{
	const char *pp[5][2] = {{"algorithm", "pegasos"}, {"maintenance", "merge"}, {"budget", "2"},
	{"sv_precision", "float4"}, {"gamma", "1e-76"}};
	BkParams	p;
	BkModel    *m;
	BkRng		rng;
	bool		holds = true;

	make_params(&p, (const char *(*)[2]) pp, 5, 3);
	m = BkModelCreate(&bk_std_env, &p, 3);
	BkRngSeed(&rng, 0);
	for (int i = 0; i < 300 && holds; i++)
	{
		double		x[3] = {FLT_MAX, (2 * BkRngUniform(&rng) - 1) * 1e38,
		(2 * BkRngUniform(&rng) - 1) * 1e38};

		BkModelLearn(m, x, BkRngUniform(&rng) < 0.5);
		holds = BkSvFloat4Holds(&m->machines[0], 3);
	}
	CHECK(holds && m->machines[0].maintenance > 100,
		  "pegasos float4: points merged from rows at FLT_MAX stay float4 values (%llu merges)",
		  (unsigned long long) m->machines[0].maintenance);
	BkModelFree(m);
}

/* the bytes: 4 a value, the parameter stored, what the decoder refuses */
static void
float4_format(const double *x, const int64_t *y)
{
	BkModel    *m4 = f4_model("bpa", true);
	BkModel    *m8 = f4_model("bpa", false);
	size_t		len4,
				len8,
				n_sv = 0;
	uint8_t    *b4,
			   *b8;
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;
	double		big[F4_DIM];

	for (int i = 0; i < F4_ROWS; i++)
	{
		BkModelLearn(m4, x + (size_t) i * F4_DIM, y[i]);
		BkModelLearn(m8, x + (size_t) i * F4_DIM, y[i]);
	}
	for (int k = 0; k < m4->n_machines; k++)
		n_sv += (size_t) m4->machines[k].n_sv;
	b4 = encode(m4, &len4);
	b8 = encode(m8, &len8);
	/* the same SV count (BPA-NN at a budget it fills): 4 bytes a value, one more parameter */
	CHECK(len8 - len4 == n_sv * F4_DIM * 4 - 16,
		  "float4 bytes: %zu against %zu for %zu SVs of %d values", len4, len8, n_sv, F4_DIM);
	CHECK(BkFormatValidate(b4, len4, err, sizeof(err), &code), "the float4 model validates: %s", err);

	/* a NaN as an SV value: refused as a double's would be */
	{
		uint8_t    *c = malloc(len4);
		size_t		at = 0;
		const uint32_t nan = 0x7fc00000u;

		memcpy(c, b4, len4);
		/* the first machine's first two SV values, found by their bytes */
		for (size_t i = 0; i + 8 < len4; i++)
			if (memcmp(c + i, &m4->machines[0].sv32[0], 4) == 0 &&
				memcmp(c + i + 4, &m4->machines[0].sv32[1], 4) == 0)
			{
				at = i;
				break;
			}
		CHECK(at > 0, "the first SV value found in the bytes");
		memcpy(c + at, &nan, 4);
		BkModelSeal(c, len4);
		CHECK(!BkFormatValidate(c, len4, err, sizeof(err), &code) && code == BK_ERR_OVERFLOW,
			  "a NaN float4 SV value is refused: %s", err);
		free(c);
	}

	/* a float4 model does not merge with a float8 one */
	CHECK(merge_fails(m4, m8, BK_ERR_PARAM), "float4 and float8 models do not merge");

	/* a value beyond float4's range is refused, not stored as infinity */
	memset(big, 0, sizeof(big));
	big[3] = 1e39;
	CHECK(learn_fails(m4, big, 1, BK_ERR_OVERFLOW), "a feature of 1e39 is refused by a float4 model");
	free(b4);
	free(b8);
	BkModelFree(m4);
	BkModelFree(m8);
}

void
test_float4(void)
{
	double	   *x = malloc(sizeof(double) * (F4_ROWS + F4_TEST) * F4_DIM);
	int64_t    *y = malloc(sizeof(int64_t) * (F4_ROWS + F4_TEST));

	f4_stream(x, y, F4_ROWS + F4_TEST);
	float4_is_rounded_rows(x, y);
	float4_merging(x, y);
	float4_merging_at_the_range_end();
	float4_format(x, y);
	free(x);
	free(y);
}
