/*
 * bk_inputs.c
 *	  What one run of training saw of its inputs, and what they suggest
 *	  went wrong before any learning did (bk_inputs.h):
 *
 *	  - a regressor's target of a few integral values (0 and 1, or a
 *	    handful of codes): likely classes given as float8.  The distinct
 *	    values are tracked while they are integral and at most
 *	    BK_INPUTS_FEW_VALUES, then no more: O(1) memory and time a row.
 *	  - columns far from standardised: Welford's running mean and sum of
 *	    squared deviations per column (Welford 1962; the update of Knuth,
 *	    TAOCP vol. 2, 4.2.2), O(dim) a row, for models of at most
 *	    BK_INPUTS_MAX_DIM columns.
 *	  - a leak, one column that alone gives the label, judged at the end on
 *	    the recent rows the run keeps anyway (bk_run.c: at most 1000, at
 *	    most 2 MB), so at no cost a row; see leak_segments and leak_shape.
 *	  - a text input of one level in every row: its one column constant.
 *
 *	  Nothing here reaches a model's bytes.
 */
#include "bk_internal.h"
#include "bk_inputs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* below these, a verdict would be noise (as bk_run.c's) */
#define MIN_WINDOW			100
#define MIN_OTHER_ROWS		20
/* a leak: the one-column rule errs on at most this share of the rows */
#define LEAK_ERROR			0.005
/* a regressor's leak: |correlation| at least this */
#define LEAK_CORRELATION	0.999
/* far from standardised (a standardised column has sd 1 and rms 1) */
#define WIDE_SD				10.0
#define LARGE_RMS			100.0
#define SPREAD_RATIO		1000.0
/* near the majority: at least this share of the majority rule's errors */
#define NEAR_MAJORITY		0.9

struct BkInputStats
{
	/* a regressor's target: its distinct values, while few and integral */
	bool		many_targets;
	int			n_targets;
	double		targets[BK_INPUTS_FEW_VALUES];
	/* the columns: rows, Welford's means and sums of squared deviations */
	uint64_t	rows;
	double	   *mean;			/* NULL: not kept (too many columns) */
	double	   *m2;
};

static struct BkInputStats *
stats_of(BkModel *m)
{
	if (m->run.inputs == NULL)
	{
		struct BkInputStats *s = BkAllocArray(&m->env, 1, sizeof(struct BkInputStats));

		memset(s, 0, sizeof(*s));
		if (m->dim <= BK_INPUTS_MAX_DIM)
		{
			s->mean = BkAllocArray(&m->env, (size_t) m->dim, sizeof(double));
			s->m2 = BkAllocArray(&m->env, (size_t) m->dim, sizeof(double));
			memset(s->mean, 0, sizeof(double) * (size_t) m->dim);
			memset(s->m2, 0, sizeof(double) * (size_t) m->dim);
		}
		m->run.inputs = s;
	}
	return m->run.inputs;
}

void
BkInputsNote(BkModel *m, const double *x, bool has_target, double t)
{
	struct BkInputStats *s = stats_of(m);

	if (has_target && !s->many_targets)
	{
		bool		seen = false;

		for (int i = 0; i < s->n_targets && !seen; i++)
			seen = s->targets[i] == t;
		if (!seen)
		{
			if (t != floor(t) || s->n_targets == BK_INPUTS_FEW_VALUES)
				s->many_targets = true;
			else
				s->targets[s->n_targets++] = t;
		}
	}
	s->rows++;
	if (s->mean != NULL)
	{
		double		inv = 1.0 / (double) s->rows;

		for (int j = 0; j < m->dim; j++)
		{
			double		d = x[j] - s->mean[j];

			s->mean[j] += d * inv;
			s->m2[j] += d * (x[j] - s->mean[j]);
		}
	}
}

void
BkInputsFree(BkModel *m)
{
	struct BkInputStats *s = m->run.inputs;

	if (s == NULL)
		return;
	BkFree(&m->env, s->mean);
	BkFree(&m->env, s->m2);
	BkFree(&m->env, s);
	m->run.inputs = NULL;
}

int
BkModelColumnInput(const BkModel *m, int col, int *level)
{
	const BkPrep *p = m->prep;

	*level = -1;
	if (p == NULL)
		return -1;
	for (int i = 0; i < p->n_inputs; i++)
	{
		const BkPrepInput *in = &p->inputs[i];
		int			width = in->kind == BK_INPUT_NUMERIC ? 1 : in->n_levels;

		if (col >= in->offset && col < in->offset + width)
		{
			if (in->kind != BK_INPUT_NUMERIC)
				*level = col - in->offset;
			return i;
		}
	}
	return -1;
}

bool
BkInputsNearMajority(const BkRunReport *r)
{
	return r->window >= MIN_WINDOW && !r->sorted &&
		(double) r->window * r->majority_error >= MIN_OTHER_ROWS - 0.5 &&
		r->window_error >= NEAR_MAJORITY * r->majority_error;
}

static int
double_cmp(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* the columns' spreads, from the running sums */
static void
report_columns(const BkModel *m, const struct BkInputStats *s, BkInputsReport *r)
{
	r->widest = r->narrowest = r->largest = -1;
	if (s->mean == NULL || s->rows < MIN_WINDOW)
		return;
	r->columns = true;
	for (int j = 0; j < m->dim; j++)
	{
		double		var = s->m2[j] / (double) s->rows,
					sd = var > 0.0 ? sqrt(var) : 0.0,
					rms = sqrt(var + s->mean[j] * s->mean[j]);

		if (r->widest < 0 || sd > r->widest_sd)
		{
			r->widest = j;
			r->widest_sd = sd;
		}
		/* a column constant up to rounding is no spread */
		if (sd > 1e-12 * (fabs(s->mean[j]) + 1.0) &&
			(r->narrowest < 0 || sd < r->narrowest_sd))
		{
			r->narrowest = j;
			r->narrowest_sd = sd;
		}
		if (r->largest < 0 || rms > r->largest_rms)
		{
			r->largest = j;
			r->largest_rms = rms;
		}
	}
	r->unscaled = r->widest_sd >= WIDE_SD || r->largest_rms >= LARGE_RMS ||
		(r->narrowest >= 0 && r->widest_sd >= SPREAD_RATIO * r->narrowest_sd);
}

/* the preparation's text inputs of one level whose column is 1 in every row */
static void
report_constant(const BkModel *m, const struct BkInputStats *s, BkInputsReport *r)
{
	const BkPrep *p = m->prep;

	if (p == NULL || s->mean == NULL || s->rows == 0)
		return;
	for (int i = 0; i < p->n_inputs; i++)
	{
		const BkPrepInput *in = &p->inputs[i];

		if (in->kind == BK_INPUT_NUMERIC || in->n_levels != 1 ||
			s->m2[in->offset] != 0.0 || s->mean[in->offset] != 1.0)
			continue;
		if (r->n_constant == BK_INPUTS_MAX_CONSTANT)
		{
			r->more_constant = true;
			break;
		}
		r->constant[r->n_constant++] = i;
	}
}

typedef struct LeakPair
{
	double		x;
	int			c;
} LeakPair;

static int
pair_cmp(const void *a, const void *b)
{
	const LeakPair *p = a,
			   *q = b;

	if (p->x != q->x)
		return (p->x > q->x) - (p->x < q->x);
	return (p->c > q->c) - (p->c < q->c);
}

/*
 * The errors of the best rule that reads one column, on n rows sorted by
 * (x, class): each group of rows of one value of x predicts its most
 * frequent class, and the rows of other classes in the group are errors;
 * walking the groups in order of x, the class changes between one
 * group's prediction and the next beyond the K - 1 that any order of K
 * classes needs are errors too.  It is 0 exactly when the column's value
 * decides the class through K intervals, as a copy of the label, or an id
 * of a table sorted by label, does; for a binary label it is at most the
 * errors of the best single threshold plus its ties.  A column that
 * merely informs leaves, between two classes' intervals, rows of both,
 * each change a count.  It costs a sort of the window per column.
 */
static int
leak_segments(const LeakPair *p, int n, int n_classes)
{
	int			impure = 0,
				changes = 0,
				prev_major = -1;

	for (int g = 0; g < n;)
	{
		int			end = g,
					best = 0,
					major = -1;

		while (end < n && p[end].x == p[g].x)
			end++;
		/* runs of one class within the group (sorted by class) */
		for (int i = g; i < end;)
		{
			int			k = i;

			while (k < end && p[k].c == p[i].c)
				k++;
			if (k - i > best)
			{
				best = k - i;
				major = p[i].c;
			}
			i = k;
		}
		impure += (end - g) - best;
		if (prev_major >= 0 && major != prev_major)
			changes++;
		prev_major = major;
		g = end;
	}
	return impure + (changes > n_classes - 1 ? changes - (n_classes - 1) : 0);
}

/*
 * Column col's value as the user gave it: the preparation's
 * standardisation undone (a text level's column is 0 or 1 as it is)
 */
static double
unprepared(const BkModel *m, int col, double x)
{
	int			level;
	int			i = BkModelColumnInput(m, col, &level);

	if (i < 0 || level >= 0)
		return x;
	return x * m->prep->inputs[i].scale + m->prep->inputs[i].center;
}

/*
 * Whether a column of the window, sorted, has the shape of a leak: as
 * few values as the classes (a copy of the label, or one of its text
 * levels), or values all distinct and integral (an id, a rank).  A
 * continuous feature that a threshold happens to separate, as a made-up
 * data set's often is, has neither, and is left alone.
 */
static bool
leak_shape(const BkModel *m, int col, const LeakPair *p, int n, int n_classes)
{
	int			values = 1;
	bool		distinct = true,
				integral = true;

	for (int i = 0; i < n; i++)
	{
		double		v = unprepared(m, col, p[i].x);

		if (i > 0 && p[i].x != p[i - 1].x)
			values++;
		else if (i > 0)
			distinct = false;
		integral &= fabs(v - floor(v + 0.5)) <= 1e-9 * (fabs(v) > 1.0 ? fabs(v) : 1.0);
	}
	return values <= n_classes || (distinct && integral);
}

/* a classifier's leak, on the rows kept */
static void
report_class_leak(BkModel *m, BkInputsReport *r)
{
	const BkRunStats *run = &m->run;
	int			n = run->keep_n,
				present = 0,
				most = 0,
				best_err = -1;
	int		   *count;
	LeakPair   *p;

	count = BkAllocArray(&m->env, (size_t) (m->n_classes > 0 ? m->n_classes : 1), sizeof(int));
	memset(count, 0, sizeof(int) * (size_t) (m->n_classes > 0 ? m->n_classes : 1));
	for (int i = 0; i < n; i++)
		if (run->keep_true[i] >= 0 && run->keep_true[i] < m->n_classes)
			count[run->keep_true[i]]++;
	for (int c = 0; c < m->n_classes; c++)
	{
		present += count[c] > 0;
		if (count[c] > most)
			most = count[c];
	}
	BkFree(&m->env, count);
	if (present < 2 || n - most < MIN_OTHER_ROWS)
		return;

	p = BkAllocArray(&m->env, (size_t) n, sizeof(LeakPair));
	for (int j = 0; j < m->dim; j++)
	{
		int			equal = 0,
					err;

		for (int i = 0; i < n; i++)
		{
			p[i].x = run->keep_x[(size_t) i * (size_t) m->dim + j];
			p[i].c = run->keep_true[i];
			/* an integer label copied: the column holds the class's label */
			if (!m->text_labels && (double) m->classes[p[i].c] == p[i].x)
				equal++;
		}
		if (equal >= n - (int) (LEAK_ERROR * n))
		{
			r->leak = BK_LEAK_EQUAL;
			r->leak_column = j;
			r->leak_accuracy = (double) equal / n;
			break;
		}
		qsort(p, (size_t) n, sizeof(LeakPair), pair_cmp);
		err = leak_segments(p, n, present);
		if (err <= (int) (LEAK_ERROR * n) && (best_err < 0 || err < best_err) &&
			leak_shape(m, j, p, n, present))
		{
			best_err = err;
			r->leak = BK_LEAK_SEGMENTS;
			r->leak_column = j;
			r->leak_accuracy = 1.0 - (double) err / n;
		}
	}
	BkFree(&m->env, p);
}

/* a regressor's leak: a column that is an affine function of the target */
static void
report_value_leak(BkModel *m, BkInputsReport *r)
{
	const BkRunStats *run = &m->run;
	int			n = run->keep_n;
	double		tm = 0.0,
				tss = 0.0;

	for (int i = 0; i < n; i++)
		tm += run->keep_t[i];
	tm /= n;
	for (int i = 0; i < n; i++)
		tss += (run->keep_t[i] - tm) * (run->keep_t[i] - tm);
	if (!(tss > 0.0))
		return;
	for (int j = 0; j < m->dim; j++)
	{
		double		xm = 0.0,
					xss = 0.0,
					xt = 0.0,
					corr;
		int			equal = 0;

		for (int i = 0; i < n; i++)
			xm += run->keep_x[(size_t) i * (size_t) m->dim + j];
		xm /= n;
		for (int i = 0; i < n; i++)
		{
			double		x = run->keep_x[(size_t) i * (size_t) m->dim + j];

			xss += (x - xm) * (x - xm);
			xt += (x - xm) * (run->keep_t[i] - tm);
			equal += x == run->keep_t[i];
		}
		if (!(xss > 0.0))
			continue;
		corr = fabs(xt) / sqrt(xss * tss);
		if (equal >= n - (int) (LEAK_ERROR * n))
		{
			r->leak = BK_LEAK_EQUAL;
			r->leak_column = j;
			r->leak_accuracy = (double) equal / n;
			return;
		}
		if (corr >= LEAK_CORRELATION && (r->leak == BK_LEAK_NONE || corr > r->leak_accuracy))
		{
			r->leak = BK_LEAK_LINEAR;
			r->leak_column = j;
			r->leak_accuracy = corr;
		}
	}
}

void
BkModelInputsReport(BkModel *m, BkInputsReport *r)
{
	const struct BkInputStats *s = m->run.inputs;

	memset(r, 0, sizeof(*r));
	r->leak_column = -1;
	if (s == NULL)
		return;
	/* two values or more: a constant target is no classes */
	if (m->target != NULL && !s->many_targets && s->n_targets >= 2 &&
		s->rows >= MIN_WINDOW)
	{
		r->few_targets = true;
		r->n_targets = s->n_targets;
		memcpy(r->targets, s->targets, sizeof(double) * (size_t) s->n_targets);
		qsort(r->targets, (size_t) r->n_targets, sizeof(double), double_cmp);
	}
	report_columns(m, s, r);
	report_constant(m, s, r);
	/* one column among several, judged on enough recent rows */
	if (m->dim < 2 || m->run.keep_n < MIN_WINDOW || m->novelty != NULL)
		return;
	r->leak_window = m->run.keep_n;
	if (m->target != NULL)
		report_value_leak(m, r);
	else if (m->run.keep_true != NULL)
		report_class_leak(m, r);
}
