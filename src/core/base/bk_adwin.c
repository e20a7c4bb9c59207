/*
 * bk_adwin.c
 *	  ADWIN2, the adaptive window of Bifet and Gavaldà (2007), "Learning
 *	  from Time-Changing Data with Adaptive Windowing", SIAM International
 *	  Conference on Data Mining (SDM 2007), pp. 443-448.
 *
 * ADWIN keeps a window W of the most recent values and drops its older
 * part whenever two sub-windows W0 (older) and W1 (newer) have means
 * further apart than epsilon_cut (§3, Theorem 3.1).  ADWIN2 (§4) keeps W
 * as an exponential histogram (Datar, Gionis, Indyk and Motwani 2002):
 * buckets of 2^i values, at most M of each size (M + 1 before they are
 * merged), each with its values' sum and sum of squared deviations from
 * their mean; so W of n values takes O(M log n) memory, and the cut is
 * tested at the O(M log n) bucket boundaries only.  Memory here is fixed
 * at creation: 64 sizes of M + 1 buckets (a window of at most 2^63
 * values).
 *
 * The variant is the reference implementation's, MOA's ADWIN class (Bifet
 * et al., moa.classifiers.core.driftdetection.ADWIN, the code behind the
 * paper's experiments), step for step, so that a stream gives MOA's
 * detections:
 *
 *   - epsilon_cut is the paper's form with the window's variance (§3, after
 *     Theorem 3.1: the bound it uses in practice):
 *         eps = sqrt(2 m' sigma_W^2 dd) + (2/3) dd m',
 *         dd = ln(2 / delta'), delta' = delta / ln n,
 *     n = |W|; m' is 1/n0 + 1/n1 (1/m of the paper's harmonic mean m) with
 *     each length less the minimum sub-window length minus one,
 *     1/(n0 - min_window + 1) + 1/(n1 - min_window + 1), as MOA has it;
 *     delta' = delta / ln n rather than the delta / n of ADWIN0, as §4
 *     allows where only O(log n) cuts are tested;
 *   - the test runs every `clock` values (32 by default, as MOA), once W
 *     holds more than 10 values, at every boundary between buckets from
 *     the oldest, W0 growing from the oldest bucket and W1 the rest; a cut
 *     needs both sub-windows longer than min_window + 1 values (MOA's
 *     mintMinWinLength = 5);
 *   - on a cut, the oldest bucket is dropped and the test restarts on the
 *     shorter window, until no boundary cuts.
 *
 * All the arithmetic is IEEE double in a fixed order, sqrt (correctly
 * rounded) and BkLog (bk_fmath.c): the same detections on every CPU.
 */
#include "bk_detect.h"

#include <math.h>

/* bucket sizes 2^0 .. 2^63: a window of up to 2^63 - 1 values */
#define ADWIN_SIZES 64
/* MOA: no test until the window holds more than this many values */
#define ADWIN_MIN_WIDTH 10

struct BkAdwin
{
	double		delta;
	int			M;				/* buckets of each size */
	int			clock;
	int			min_window;
	int64_t		time;			/* values added */
	int64_t		width;			/* |W| */
	double		total;			/* sum of W */
	double		variance;		/* sum of squared deviations of W from its mean */
	int			n_sizes;		/* sizes in use: 0 .. n_sizes - 1 */
	int			count[ADWIN_SIZES];	/* buckets of size 2^i */
	/* bucket k of size 2^i at [i * (M + 1) + k], k = 0 the oldest */
	double	   *sum;
	double	   *var;
};

const char *const bk_adwin_change_stats[BK_ADWIN_CHANGE_STATS] =
{"width", "mean", "dropped", "mean_dropped"};

BkAdwin *
BkAdwinNew(const BkEnv *env, double delta, int max_buckets, int clock, int min_window)
{
	BkAdwin    *a = BkAllocArray(env, 1, sizeof(BkAdwin));

	a->delta = delta;
	a->M = max_buckets;
	a->clock = clock;
	a->min_window = min_window;
	a->sum = BkAllocArray(env, (size_t) ADWIN_SIZES * (max_buckets + 1), sizeof(double));
	a->var = BkAllocArray(env, (size_t) ADWIN_SIZES * (max_buckets + 1), sizeof(double));
	return a;
}

void
BkAdwinFree(const BkEnv *env, BkAdwin *a)
{
	if (a == NULL)
		return;
	BkFree(env, a->sum);
	BkFree(env, a->var);
	BkFree(env, a);
}

static int64_t
bucket_size(int i)
{
	return (int64_t) 1 << i;
}

/* the slot of bucket k of size 2^i */
static size_t
slot(const BkAdwin *a, int i, int k)
{
	return (size_t) i * (a->M + 1) + k;
}

/* append a bucket to size i (the newest of its size) */
static void
append_bucket(BkAdwin *a, int i, double sum, double var)
{
	size_t		s = slot(a, i, a->count[i]);

	a->sum[s] = sum;
	a->var[s] = var;
	a->count[i]++;
}

/* remove the n oldest buckets of size i */
static void
shift_out(BkAdwin *a, int i, int n)
{
	size_t		s = slot(a, i, 0);

	for (int k = 0; k + n < a->count[i]; k++)
	{
		a->sum[s + k] = a->sum[s + k + n];
		a->var[s + k] = a->var[s + k + n];
	}
	a->count[i] -= n;
}

/*
 * §4: a size with M + 1 buckets merges its two oldest into one of the
 * next size, which may overflow in turn.  The merged variance is that of
 * the union of two sets of n1 values each (Chan et al.'s pairwise
 * formula), as MOA's compressBuckets.
 */
static void
compress(BkAdwin *a)
{
	for (int i = 0; i < ADWIN_SIZES && a->count[i] == a->M + 1; i++)
	{
		double		n1 = (double) bucket_size(i);
		size_t		s = slot(a, i, 0);
		double		u0 = a->sum[s],
					u1 = a->sum[s + 1];
		double		d = u0 / n1 - u1 / n1;

		if (i + 1 == ADWIN_SIZES)
			return;				/* 2^63 values: unreachable with int64 rows */
		append_bucket(a, i + 1, u0 + u1,
					  a->var[s] + a->var[s + 1] + n1 * n1 * d * d / (n1 + n1));
		shift_out(a, i, 2);
		if (i + 1 == a->n_sizes)
			a->n_sizes++;
	}
}

/* W gains x: a bucket of size 1, and W's sum and variance (MOA's insertElement) */
static void
insert(BkAdwin *a, double x)
{
	a->width++;
	if (a->n_sizes == 0)
		a->n_sizes = 1;
	append_bucket(a, 0, x, 0.0);
	if (a->width > 1)
	{
		double		w1 = (double) (a->width - 1);
		double		d = x - a->total / w1;

		a->variance += w1 * d * d / (double) a->width;
	}
	a->total += x;
	compress(a);
}

/* W loses its oldest bucket; its size (MOA's deleteElement) */
static int64_t
drop_oldest(BkAdwin *a, double *dropped_sum)
{
	int			i = a->n_sizes - 1;
	size_t		s = slot(a, i, 0);
	int64_t		n1 = bucket_size(i);
	double		u1;
	double		d;

	a->width -= n1;
	a->total -= a->sum[s];
	*dropped_sum += a->sum[s];
	u1 = a->sum[s] / (double) n1;
	d = u1 - a->total / (double) a->width;
	a->variance -= a->var[s] + (double) n1 * (double) a->width * d * d /
		((double) n1 + (double) a->width);
	shift_out(a, i, 1);
	while (a->n_sizes > 0 && a->count[a->n_sizes - 1] == 0)
		a->n_sizes--;
	return n1;
}

/*
 * §3: W0 and W1 differ when |mean0 - mean1| > eps_cut, with the window's
 * variance sigma_W^2 = variance / n, and the lengths as MOA corrects them
 * (the header comment)
 */
static bool
cuts(const BkAdwin *a, int64_t n0, int64_t n1, double absvalue)
{
	double		n = (double) a->width;
	double		dd = BkLog(2.0 * BkLog(n) / a->delta);
	double		v = a->variance / n;
	double		m = 1.0 / (double) (n0 - a->min_window + 1) +
		1.0 / (double) (n1 - a->min_window + 1);
	double		eps = sqrt(2.0 * m * v * dd) + 2.0 / 3.0 * dd * m;

	return fabs(absvalue) > eps;
}

/*
 * One pass over the boundaries, oldest first; true if one cut (the
 * oldest bucket is then dropped)
 */
static bool
cut_once(BkAdwin *a, int64_t *dropped, double *dropped_sum)
{
	int64_t		n0 = 0,
				n1 = a->width;
	double		u0 = 0.0,
				u1 = a->total;

	for (int i = a->n_sizes - 1; i >= 0; i--)
		for (int k = 0; k < a->count[i]; k++)
		{
			size_t		s = slot(a, i, k);

			n0 += bucket_size(i);
			n1 -= bucket_size(i);
			u0 += a->sum[s];
			u1 -= a->sum[s];
			if (i == 0 && k == a->count[i] - 1)
				return false;	/* W1 would be empty */
			if (n1 > a->min_window + 1 && n0 > a->min_window + 1 &&
				cuts(a, n0, n1, u0 / (double) n0 - u1 / (double) n1))
			{
				*dropped += drop_oldest(a, dropped_sum);
				return true;
			}
		}
	return false;
}

bool
BkAdwinAdd(BkAdwin *a, double x, double *stat)
{
	int64_t		dropped = 0;
	double		dropped_sum = 0.0;

	a->time++;
	insert(a, x);
	if (a->time % a->clock != 0 || a->width <= ADWIN_MIN_WIDTH)
		return false;
	while (cut_once(a, &dropped, &dropped_sum))
		;
	if (dropped == 0)
		return false;
	stat[0] = (double) a->width;
	stat[1] = BkAdwinMean(a);
	stat[2] = (double) dropped;
	stat[3] = dropped_sum / (double) dropped;
	return true;
}

int64_t
BkAdwinWidth(const BkAdwin *a)
{
	return a->width;
}

double
BkAdwinMean(const BkAdwin *a)
{
	return a->width > 0 ? a->total / (double) a->width : 0.0;
}

int
BkAdwinBuckets(const BkAdwin *a)
{
	int			n = 0;

	for (int i = 0; i < a->n_sizes; i++)
		n += a->count[i];
	return n;
}

/*
 * The histogram's invariants: at most M buckets of each size between
 * values (M + 1 only inside compress), sizes above the largest unused,
 * the bucket sizes adding up to |W| and their sums to W's sum (up to
 * rounding: relative 1e-9)
 */
bool
BkAdwinCheck(const BkAdwin *a)
{
	int64_t		w = 0;
	double		t = 0.0;

	for (int i = 0; i < ADWIN_SIZES; i++)
	{
		if (a->count[i] < 0 || a->count[i] > a->M)
			return false;
		if (i >= a->n_sizes && a->count[i] != 0)
			return false;
		for (int k = 0; k < a->count[i]; k++)
			t += a->sum[slot(a, i, k)];
		w += a->count[i] * bucket_size(i);
	}
	if (a->n_sizes > 0 && a->count[a->n_sizes - 1] == 0)
		return false;
	return w == a->width && fabs(t - a->total) <= 1e-9 * (fabs(a->total) + 1.0) &&
		a->variance >= -1e-9 * (a->width + 1.0);
}
