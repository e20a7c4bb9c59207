/*
 * bk_data_drift.c
 *	  Feature drift: rows compared with the preparation a model stores
 *	  (bk_prep.c), input by input.
 *
 * What a preparation keeps is what can be compared: a numeric input's
 * count, mean and population standard deviation on the training rows
 * (their running sums), a categorical input's levels (the training
 * values, in byte order) but not how often each occurred.  So:
 *
 *   - a numeric input: the rows' mean and standard deviation (the same
 *     running sums of Youngs and Cramer, 1971), the standardised mean
 *     shift d = (mean - mean_train) / sd_train (Cohen's d with the
 *     training deviation as sigma: J. Cohen 1988, "Statistical Power
 *     Analysis for the Behavioral Sciences", 2nd ed.), its z
 *     statistic d sqrt(n) (the mean of n values against a population of
 *     that mean and deviation: how far from noise a shift is), and the
 *     ratio of the deviations sd / sd_train with its z statistic
 *     ln(ratio) sqrt(2 (n - 1)) (the log of a sample deviation of n normal
 *     values has the standard error 1 / sqrt(2 (n - 1)) to first order, the
 *     large-sample standard error of s, sigma / sqrt(2 n), of M. G. Kendall
 *     and A. Stuart, "The Advanced Theory of Statistics", vol. 1).  It moved when a
 *     change is both large and beyond noise: |d| > mean_shift with
 *     |z| > z, or the ratio outside [1 / sd_ratio, sd_ratio] with its
 *     |z| > z (z = 3 by default).  A training input that was constant
 *     (sd_train 0, bk_prep.c's rule) has no d or ratio: it moved when the
 *     rows' values are not that constant (relative 1e-9);
 *   - a categorical input: the count of each training level among the
 *     rows, and the share of values outside the levels ("unseen", which
 *     the model's one-hot encoding maps to no column).  Without the
 *     training frequencies there is no PSI or chi-square against them;
 *     it moved when the unseen share exceeds `unseen`.
 *
 * Missing values (a NULL element, a JSON null or an absent key) are
 * counted per input and take no part in the statistics.  Memory: a few
 * numbers per input and one count per level, fixed at creation; the
 * preparation is read, not copied, and must outlive the drift.
 */
#include "bk_internal.h"

#include <math.h>
#include <string.h>

typedef struct DriftInput
{
	BkRunningSums sums;			/* numeric: the rows' values */
	int64_t		values;
	int64_t		missing;
	int64_t		unseen;			/* categorical: values outside the levels */
	int64_t    *level_counts;	/* categorical: per level */
} DriftInput;

struct BkDataDrift
{
	const BkEnv *env;
	const BkPrep *prep;
	int64_t		rows;
	DriftInput *in;
};

void
BkDataDriftParamsInit(BkDataDriftParams *p)
{
	p->mean_shift = 0.1;
	p->sd_ratio = 1.5;
	p->z = 3.0;
	p->unseen = 0.05;
}

BkDataDrift *
BkDataDriftNew(const BkEnv *env, const BkPrep *p)
{
	BkDataDrift *d = BkAllocArray(env, 1, sizeof(BkDataDrift));

	d->env = env;
	d->prep = p;
	d->in = BkAllocArray(env, (size_t) p->n_inputs, sizeof(DriftInput));
	for (int i = 0; i < p->n_inputs; i++)
		if (p->inputs[i].kind == BK_INPUT_CATEGORICAL && p->inputs[i].n_levels > 0)
			d->in[i].level_counts = BkAllocArray(env, (size_t) p->inputs[i].n_levels,
												 sizeof(int64_t));
	return d;
}

void
BkDataDriftFree(BkDataDrift *d)
{
	if (d == NULL)
		return;
	for (int i = 0; i < d->prep->n_inputs; i++)
		BkFree(d->env, d->in[i].level_counts);
	BkFree(d->env, d->in);
	BkFree(d->env, d);
}

void
BkDataDriftRow(BkDataDrift *d)
{
	d->rows++;
}

int64_t
BkDataDriftRows(const BkDataDrift *d)
{
	return d->rows;
}

void
BkDataDriftMissing(BkDataDrift *d, int input)
{
	d->in[input].missing++;
}

/*
 * A value of the other kind is an error, as when the model prepares it
 * (bk_prep.c): the input's name, or its position in an array
 */
static void
wrong_kind(const BkDataDrift *d, int input, const char *what)
{
	const BkPrepInput *in = &d->prep->inputs[input];

	if (in->name != NULL)
		BkRaise(d->env, BK_ERR_DATA, NULL, "key \"%s\" at row %lld holds %s, and the model's input is %s",
				in->name, (long long) d->rows, what,
				in->kind == BK_INPUT_NUMERIC ? "numeric" : "categorical");
	BkRaise(d->env, BK_ERR_DATA, NULL, "position %d at row %lld holds %s, and the model's input is %s",
			input + 1, (long long) d->rows, what,
			in->kind == BK_INPUT_NUMERIC ? "numeric" : "categorical");
}

void
BkDataDriftNumber(BkDataDrift *d, int input, double v)
{
	if (d->prep->inputs[input].kind != BK_INPUT_NUMERIC)
		wrong_kind(d, input, "a number");
	if (!isfinite(v))
		BkRaise(d->env, BK_ERR_DATA, NULL, "input %d at row %lld is not finite",
				input + 1, (long long) d->rows);
	BkRunningSumsAdd(&d->in[input].sums, v);
	d->in[input].values++;
}

void
BkDataDriftText(BkDataDrift *d, int input, const char *s, size_t len)
{
	const BkPrepInput *in = &d->prep->inputs[input];
	int			lo = 0,
				hi = in->n_levels;

	if (in->kind != BK_INPUT_CATEGORICAL)
		wrong_kind(d, input, "text");
	d->in[input].values++;
	/* the levels are in byte order (bk_prep.c) */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;
		int			c = BkBytesCompare(in->levels[mid], in->level_len[mid], s, len);

		if (c == 0)
		{
			d->in[input].level_counts[mid]++;
			return;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	d->in[input].unseen++;
}

void
BkDataDriftResult(const BkDataDrift *d, const BkDataDriftParams *p, int input,
				  BkDataDriftInput *out)
{
	const BkPrepInput *in = &d->prep->inputs[input];
	const DriftInput *di = &d->in[input];

	memset(out, 0, sizeof(*out));
	out->kind = in->kind;
	out->values = di->values;
	out->missing = di->missing;
	out->train_mean = out->train_sd = out->mean = out->sd = NAN;
	out->mean_shift = out->z = out->sd_ratio = out->sd_z = out->unseen_share = NAN;
	out->train_count = in->n;
	if (in->kind == BK_INPUT_CATEGORICAL)
	{
		out->n_levels = in->n_levels;
		out->level_counts = di->level_counts;
		out->unseen = di->unseen;
		if (di->values > 0)
		{
			out->unseen_share = (double) di->unseen / (double) di->values;
			out->moved = out->unseen_share > p->unseen;
		}
		return;
	}
	{
		BkRunningSums train = {in->n, in->sx, in->sxx};

		if (in->n > 0.0)
			BkRunningSumsMoments(&train, &out->train_mean, &out->train_sd);
	}
	if (di->values == 0 || !(in->n > 0.0))
		return;
	BkRunningSumsMoments(&di->sums, &out->mean, &out->sd);
	if (out->train_sd > 0.0)
	{
		/* Cohen's d against the training deviation, and its z (header comment) */
		out->mean_shift = (out->mean - out->train_mean) / out->train_sd;
		out->z = out->mean_shift * sqrt((double) di->values);
		out->sd_ratio = out->sd / out->train_sd;
		if (di->values >= 2 && out->sd_ratio > 0.0)
			out->sd_z = BkLog(out->sd_ratio) * sqrt(2.0 * (double) (di->values - 1));
		out->moved = (fabs(out->mean_shift) > p->mean_shift && fabs(out->z) > p->z) ||
			((out->sd_ratio > p->sd_ratio || out->sd_ratio < 1.0 / p->sd_ratio) &&
			 isfinite(out->sd_z) && fabs(out->sd_z) > p->z);
	}
	else
		out->moved = out->sd > 0.0 ||
			fabs(out->mean - out->train_mean) > 1e-9 * fmax(1.0, fabs(out->train_mean));
}
