/*
 * test_inputs.c
 *	  Unit tests: what a run saw of its inputs (BkModelInputsReport,
 *	  bk_inputs.c): a regressor's target of few integral values, columns
 *	  far from standardised, and a leak, each found where it is and not
 *	  where it is not.
 */
#include "bk_test.h"
#include "bk_inputs.h"

#include <stdlib.h>
#include <string.h>

#define N 2000

/* a classifier of 3 columns: the board's two, and extra(i) */
static BkModel *
classifier(const double *x, const int64_t *y, const double *extra, double scale)
{
	const char *pp[][2] = {{"gamma", "20"}};
	BkParams	p;
	BkModel    *m;

	make_params(&p, pp, 1, 3);
	m = BkModelCreate(&bk_std_env, &p, 3);
	for (int i = 0; i < N; i++)
	{
		double		row[3] = {scale * x[2 * i], scale * x[2 * i + 1], extra[i]};

		BkModelLearn(m, row, y[i]);
	}
	return m;
}

static BkModel *
regressor(const double *x, const double *t)
{
	const char *pp[][2] = {{"gamma", "20"}};
	BkParams	p;
	BkRunningSums fit = {0};
	double		mean,
				sd;
	BkModel    *m;

	make_task_params(&p, pp, 1, 2, true);
	for (int i = 0; i < N; i++)
		BkRunningSumsAdd(&fit, t[i]);
	BkRunningSumsMoments(&fit, &mean, &sd);
	m = BkModelCreate(&bk_std_env, &p, 2);
	BkModelSetTargetScale(m, mean, sd);
	for (int i = 0; i < N; i++)
		BkModelLearnValue(m, x + 2 * i, t[i]);
	return m;
}

void
test_inputs(void)
{
	double	   *x = malloc(sizeof(double) * 2 * N),
			   *extra = malloc(sizeof(double) * N),
			   *t = malloc(sizeof(double) * N);
	int64_t    *y = malloc(sizeof(int64_t) * N);
	int			below = 0;
	BkRng		rng;
	BkInputsReport r;
	BkModel    *m;

	BkRngSeed(&rng, 11);
	checkerboard(&rng, N, x, y, 0.0);

	/* the label copied: equal to it */
	for (int i = 0; i < N; i++)
		extra[i] = (double) y[i];
	m = classifier(x, y, extra, 1.0);
	BkModelInputsReport(m, &r);
	CHECK(r.leak == BK_LEAK_EQUAL && r.leak_column == 2 && r.leak_accuracy == 1.0,
		  "the label among the features: a leak of column 2 (%d, column %d)",
		  (int) r.leak, r.leak_column);
	CHECK(!r.unscaled && !r.few_targets, "columns near standard, no target");
	BkModelFree(m);

	/* a rank of the rows in label order: one class below, the other above */
	for (int i = 0; i < N; i++)
		below += y[i] < 0;
	for (int i = 0, lo = 0, hi = below; i < N; i++)
		extra[i] = y[i] < 0 ? (double) lo++ : (double) hi++;
	m = classifier(x, y, extra, 1.0);
	BkModelInputsReport(m, &r);
	CHECK(r.leak == BK_LEAK_SEGMENTS && r.leak_column == 2,
		  "an id in label order: a leak of column 2 (%d)", (int) r.leak);
	BkModelFree(m);

	/* a continuous column that a threshold separates: not a leak's shape */
	for (int i = 0; i < N; i++)
		extra[i] = (y[i] < 0 ? -1.0 : 1.0) * (0.5 + BkRngUniform(&rng));
	m = classifier(x, y, extra, 1.0);
	BkModelInputsReport(m, &r);
	CHECK(r.leak == BK_LEAK_NONE, "a separating continuous column: no leak (%d)", (int) r.leak);
	BkModelFree(m);

	/* an id in another order: no leak, and raw (sd about 577) */
	for (int i = 0; i < N; i++)
		extra[i] = (double) i;
	m = classifier(x, y, extra, 1.0);
	BkModelInputsReport(m, &r);
	CHECK(r.leak == BK_LEAK_NONE && r.columns && r.unscaled && r.widest == 2 &&
		  r.widest_sd > 500.0 && r.widest_sd < 600.0,
		  "an id in row order: no leak, column 2 the widest (sd %g)", r.widest_sd);
	BkModelFree(m);

	/* a noisy column (1 in 10 flipped): informs, does not decide */
	for (int i = 0; i < N; i++)
		extra[i] = (double) (BkRngBelow(&rng, 10) == 0 ? -y[i] : y[i]) * 2.0;
	m = classifier(x, y, extra, 1.0);
	BkModelInputsReport(m, &r);
	CHECK(r.leak == BK_LEAK_NONE, "a column right on 90%% of rows: no leak (%d)", (int) r.leak);
	BkModelFree(m);

	/* a regressor's target of two integral values; of a continuous one */
	for (int i = 0; i < N; i++)
		t[i] = y[i] > 0 ? 1.0 : 0.0;
	m = regressor(x, t);
	BkModelInputsReport(m, &r);
	CHECK(r.few_targets && r.n_targets == 2 && r.targets[0] == 0.0 && r.targets[1] == 1.0,
		  "a 0/1 target: two integral values (%d)", r.n_targets);
	BkModelFree(m);
	for (int i = 0; i < N; i++)
		t[i] = x[2 * i] + x[2 * i + 1];
	m = regressor(x, t);
	BkModelInputsReport(m, &r);
	CHECK(!r.few_targets && r.leak == BK_LEAK_NONE, "a continuous target: nothing");
	BkModelFree(m);
	/* 21 integral values: no longer few */
	for (int i = 0; i < N; i++)
		t[i] = (double) (i % 21);
	m = regressor(x, t);
	BkModelInputsReport(m, &r);
	CHECK(!r.few_targets, "21 integral values: not few");
	BkModelFree(m);

	free(x);
	free(extra);
	free(t);
	free(y);
}
