/*
 * test_run_report.c
 *	  Unit tests: what one run of training reports (BkModelRunReport): a
 *	  sorted stream, a constant classifier, one no better than the
 *	  majority, none of these on a shuffled learnable stream, and a decoded
 *	  model starting a run of its own.
 */
#include "bk_test.h"

#include <stdlib.h>
#include <string.h>

#define N 2000

static BkModel *
run(const char *pp[][2], int np, const double *x, const int64_t *y,
	const int *order, int n)
{
	BkParams	p;
	BkModel    *m;

	make_params(&p, pp, np, 2);
	m = BkModelCreate(&bk_std_env, &p, 2);
	for (int i = 0; i < n; i++)
		BkModelLearn(m, x + 2 * order[i], y[order[i]]);
	return m;
}

void
test_run_report(void)
{
	const char *rbf[][2] = {{"gamma", "20"}};
	const char *linear[][2] = {{"kernel", "linear"}};
	double	   *x = malloc(sizeof(double) * 2 * N),
			   *zero = calloc(2 * N, sizeof(double));
	int64_t    *y = malloc(sizeof(int64_t) * N),
			   *noise = malloc(sizeof(int64_t) * N);
	int		   *shuffled = malloc(sizeof(int) * N),
			   *sorted = malloc(sizeof(int) * N);
	BkRng		rng;
	BkRunReport r;
	BkModel    *m,
			   *d;
	uint8_t    *buf;
	size_t		len;
	int			k = 0;

	BkRngSeed(&rng, 5);
	checkerboard(&rng, N, x, y, 0.0);
	for (int i = 0; i < N; i++)
	{
		shuffled[i] = i;
		noise[i] = BkRngBelow(&rng, 10) < 4 ? 1 : -1;
	}
	for (int c = -1; c <= 1; c += 2)
		for (int i = 0; i < N; i++)
			if (y[i] == c)
				sorted[k++] = i;

	m = run(rbf, 1, x, y, shuffled, N);
	BkModelRunReport(m, &r);
	CHECK(r.rows == N && !r.sorted && !r.collapsed && !r.no_better,
		  "shuffled checkerboard: nothing to report (%llu changes, %.0f expected)",
		  (unsigned long long) r.label_changes, r.expected_changes);
	buf = encode(m, &len);
	d = BkModelDecode(&bk_std_env, buf, len, true);
	BkModelRunReport(d, &r);
	CHECK(r.rows == 0 && r.window == 0 && !r.sorted,
		  "a decoded model starts a run of its own");
	BkModelFree(d);
	free(buf);
	/*
	 * The finished model is judged, not the online predictions: the same
	 * run, whose online predictions varied (nothing reported above), with
	 * its machine's coefficients set to 0 afterwards, scores every kept
	 * row 0 and predicts one class for all of them.
	 */
	memset(m->machines[0].coef, 0,
		   sizeof(double) * (size_t) m->machines[0].n_sv * (size_t) m->machines[0].n_coef);
	BkModelRunReport(m, &r);
	CHECK(r.finished && r.collapsed && r.window >= 990,
		  "a model that varied online and ends constant: collapsed (%d rows)", r.window);
	BkModelFree(m);

	m = run(rbf, 1, x, y, sorted, N);
	BkModelRunReport(m, &r);
	CHECK(r.sorted && r.label_changes == 1 && r.expected_changes > 900,
		  "sorted by label: reported (%llu change, %.0f expected)",
		  (unsigned long long) r.label_changes, r.expected_changes);
	CHECK(!r.collapsed && !r.no_better, "a sorted stream is not judged further");
	BkModelFree(m);

	m = run(linear, 1, zero, noise, shuffled, N);
	BkModelRunReport(m, &r);
	CHECK(r.collapsed && r.constant_class >= 0 && r.window >= 990 &&
		  r.window_error > 0.3,
		  "zero features: a constant classifier (class %d, %d rows, error %.3f)",
		  r.constant_class, r.window, r.window_error);
	BkModelFree(m);

	m = run(rbf, 1, x, noise, shuffled, N);
	BkModelRunReport(m, &r);
	CHECK(!r.collapsed && r.no_better && r.window_error >= r.majority_error,
		  "labels the features do not predict: no better than the majority (%.3f >= %.3f)",
		  r.window_error, r.majority_error);
	BkModelFree(m);

	m = run(rbf, 1, x, y, sorted, 15);
	BkModelRunReport(m, &r);
	CHECK(!r.sorted && !r.collapsed && !r.no_better, "15 rows: too few to judge");
	BkModelFree(m);

	free(x);
	free(zero);
	free(y);
	free(noise);
	free(shuffled);
	free(sorted);
}
