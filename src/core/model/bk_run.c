/*
 * bk_run.c
 *	  What one run of training saw, and what it suggests went wrong: a
 *	  stream that comes in runs of one label, and a model that ends
 *	  predicting one class, or no better than the most frequent one.  The
 *	  counts cover this run only (they are not stored with the model), and
 *	  cost O(1) a row besides a window of the last BK_RUN_WINDOW rows; what
 *	  the run saw of its inputs is bk_inputs.c's (O(dim) a row).
 */
#include "bk_internal.h"
#include "bk_inputs.h"

#include <string.h>

/* below these, a verdict would be noise */
#define MIN_EXPECTED_CHANGES 10.0
#define SORTED_FRACTION		0.2
#define MIN_WINDOW			100
/* rows of other classes than the most frequent, in the window */
#define MIN_OTHER_ROWS		20

/* the run's first row: the window, and how many rows to keep */
static void
run_begin(BkModel *m)
{
	BkRunStats *r = &m->run;

	if (r->win_true != NULL)
		return;
	r->win_true = BkAllocArray(&m->env, BK_RUN_WINDOW, sizeof(int32_t));
	r->win_pred = BkAllocArray(&m->env, BK_RUN_WINDOW, sizeof(int32_t));
	r->last_class = -1;
	/* as many recent rows as BK_RUN_KEEP_BYTES holds, if MIN_WINDOW */
	r->keep_cap = BK_RUN_KEEP_BYTES / ((size_t) m->dim * sizeof(double));
	if (r->keep_cap > BK_RUN_WINDOW)
		r->keep_cap = BK_RUN_WINDOW;
	if (r->keep_cap < MIN_WINDOW)
		r->keep_cap = 0;
}

/*
 * Keep x among the recent rows: the slot it went to, or -1 when the rows
 * are too wide to keep.  Room as the rows come, doubling up to keep_cap,
 * so that a short run (one group of many) keeps little; the ring has not
 * wrapped while it grows, so its order stays.  A classifier keeps the
 * rows' classes, a regressor their targets (a novelty detector 0s).
 */
static int
keep_row(BkModel *m, const double *x)
{
	BkRunStats *r = &m->run;
	int			slot;

	if (r->keep_cap == 0)
		return -1;
	if (r->keep_n == r->keep_alloc && r->keep_alloc < r->keep_cap)
	{
		r->keep_alloc = r->keep_alloc == 0 ? 16 : 2 * r->keep_alloc;
		if (r->keep_alloc > r->keep_cap)
			r->keep_alloc = r->keep_cap;
		r->keep_x = BkReallocArray(&m->env, r->keep_x,
								   (size_t) r->keep_alloc * (size_t) m->dim, sizeof(double));
		if (m->target != NULL || m->novelty != NULL)
			r->keep_t = BkReallocArray(&m->env, r->keep_t, (size_t) r->keep_alloc,
									   sizeof(double));
		else
			r->keep_true = BkReallocArray(&m->env, r->keep_true, (size_t) r->keep_alloc,
										  sizeof(int32_t));
	}
	slot = r->keep_next;
	memcpy(r->keep_x + (size_t) slot * (size_t) m->dim, x,
		   sizeof(double) * (size_t) m->dim);
	r->keep_next = (r->keep_next + 1) % r->keep_cap;
	if (r->keep_n < r->keep_cap)
		r->keep_n++;
	return slot;
}

void
BkRunNoteValue(BkModel *m, const double *x, double t)
{
	int			slot;

	run_begin(m);
	BkInputsNote(m, x, m->target != NULL, t);
	slot = keep_row(m, x);
	if (slot >= 0)
		m->run.keep_t[slot] = t;
	/* the order of the targets: Welford's sums, and the steps between them */
	{
		BkRunStats *r = &m->run;
		double		d = t - r->t_mean;

		if (r->rows > 0)
			r->t_steps2 += (t - r->t_prev) * (t - r->t_prev);
		r->t_prev = t;
		r->t_mean += d / (double) (r->rows + 1);
		r->t_m2 += d * (t - r->t_mean);
	}
	m->run.rows++;
}

void
BkRunNote(BkModel *m, const double *x, int cls, int pred)
{
	BkRunStats *r = &m->run;

	run_begin(m);
	BkInputsNote(m, x, false, 0.0);
	if (pred >= 0)
	{
		int			slot = keep_row(m, x);

		if (slot >= 0)
			r->keep_true[slot] = cls;
	}
	if (cls >= r->class_rows_cap)
	{
		int			cap = m->class_cap > cls ? m->class_cap : cls + 1;

		r->class_rows = BkReallocArray(&m->env, r->class_rows, (size_t) cap,
									   sizeof(uint64_t));
		memset(r->class_rows + r->class_rows_cap, 0,
			   sizeof(uint64_t) * (size_t) (cap - r->class_rows_cap));
		r->class_rows_cap = cap;
	}
	r->class_rows[cls]++;
	if (r->last_class >= 0 && cls != r->last_class)
		r->label_changes++;
	r->last_class = cls;
	r->rows++;

	r->win_true[r->win_next] = cls;
	r->win_pred[r->win_next] = pred;
	r->win_next = (r->win_next + 1) % BK_RUN_WINDOW;
	if (r->win_n < BK_RUN_WINDOW)
		r->win_n++;
}

/* the classes changed places: old class c is now inv[c] */
void
BkRunPermute(BkModel *m, const int *inv, int n_classes)
{
	BkRunStats *r = &m->run;

	if (r->class_rows != NULL)
	{
		uint64_t   *old;
		int			n;

		/* room for every class first: a count moved past the end was lost */
		if (r->class_rows_cap < n_classes)
		{
			r->class_rows = BkReallocArray(&m->env, r->class_rows, (size_t) n_classes,
										   sizeof(uint64_t));
			memset(r->class_rows + r->class_rows_cap, 0,
				   sizeof(uint64_t) * (size_t) (n_classes - r->class_rows_cap));
			r->class_rows_cap = n_classes;
		}
		old = BkAllocArray(&m->env, (size_t) r->class_rows_cap, sizeof(uint64_t));
		n = n_classes;

		memcpy(old, r->class_rows, sizeof(uint64_t) * (size_t) r->class_rows_cap);
		memset(r->class_rows, 0, sizeof(uint64_t) * (size_t) r->class_rows_cap);
		for (int c = 0; c < n; c++)
			if (inv[c] < r->class_rows_cap)
				r->class_rows[inv[c]] = old[c];
		BkFree(&m->env, old);
	}
	if (r->last_class >= 0 && r->last_class < n_classes)
		r->last_class = inv[r->last_class];
	for (int i = 0; i < r->win_n; i++)
	{
		if (r->win_true[i] >= 0 && r->win_true[i] < n_classes)
			r->win_true[i] = inv[r->win_true[i]];
		if (r->win_pred[i] >= 0 && r->win_pred[i] < n_classes)
			r->win_pred[i] = inv[r->win_pred[i]];
	}
	for (int i = 0; i < r->keep_n && r->keep_true != NULL; i++)
		if (r->keep_true[i] >= 0 && r->keep_true[i] < n_classes)
			r->keep_true[i] = inv[r->keep_true[i]];
}

void
BkRunFree(BkModel *m)
{
	BkFree(&m->env, m->run.class_rows);
	BkFree(&m->env, m->run.win_true);
	BkFree(&m->env, m->run.win_pred);
	BkFree(&m->env, m->run.keep_x);
	BkFree(&m->env, m->run.keep_true);
	BkFree(&m->env, m->run.keep_t);
	BkInputsFree(m);
	memset(&m->run, 0, sizeof(m->run));
}

/*
 * A regressor's report: the finished model's predictions (predict:
 * BkModelPredictValue, passed in by the model) of the last rows it kept,
 * against their targets' own mean.  Not judged (window 0) below
 * MIN_WINDOW rows kept, or when those targets are constant.
 */
void
BkRunMakeValueReport(BkModel *m, BkRunReport *out, BkRunPredictValue predict)
{
	const BkRunStats *r = &m->run;
	double		mean = 0.0,
				sst = 0.0,
				sse = 0.0;

	memset(out, 0, sizeof(*out));
	out->rows = r->rows;
	out->majority_class = -1;
	out->constant_class = -1;
	/* a regressor's rows in the order of their targets */
	if (m->target != NULL && r->rows >= MIN_WINDOW && r->t_m2 > 0.0)
	{
		out->value_order_ratio = (r->t_steps2 / (double) (r->rows - 1)) /
			(2.0 * r->t_m2 / (double) r->rows);
		out->sorted = out->value_order_ratio < SORTED_FRACTION;
	}
	if (r->keep_n < MIN_WINDOW)
		return;
	if (m->novelty != NULL)
	{
		/* a detector: the share of the rows its score flags (above 0) */
		int			flagged = 0;

		for (int i = 0; i < r->keep_n; i++)
			flagged += predict(m, r->keep_x + (size_t) i * (size_t) m->dim) > 0.0;
		out->finished = true;
		out->window = r->keep_n;
		out->flag_rate = (double) flagged / r->keep_n;
		return;
	}
	for (int i = 0; i < r->keep_n; i++)
		mean += r->keep_t[i];
	mean /= r->keep_n;
	for (int i = 0; i < r->keep_n; i++)
	{
		double		d = r->keep_t[i] - mean,
					e = r->keep_t[i] - predict(m, r->keep_x + (size_t) i * (size_t) m->dim);

		sst += d * d;
		sse += e * e;
	}
	if (!(sst > 0.0))
		return;
	out->finished = true;
	out->window = r->keep_n;
	out->value_r2 = 1.0 - sse / sst;
	out->value_useless = out->value_r2 <= 0.0;
}

/*
 * The report of this run.  predict is the model's prediction of a row
 * (BkModelPredictClass), passed in by the model (BkModelRunReport): this
 * file lies below the model and calls nothing of it.
 */
void
BkRunMakeReport(BkModel *m, BkRunReport *out, BkRunPredict predict)
{
	const BkRunStats *r = &m->run;
	double		sum_p2 = 0.0;
	int			n = 0,
				wrong = 0,
				first_pred = -1,
				most = 0;
	bool		constant = true;
	uint64_t   *counts;

	memset(out, 0, sizeof(*out));
	out->rows = r->rows;
	out->label_changes = r->label_changes;
	out->majority_class = -1;
	out->constant_class = -1;
	if (r->rows < 2)
		return;

	for (int c = 0; c < r->class_rows_cap; c++)
	{
		double		p = (double) r->class_rows[c] / (double) r->rows;

		sum_p2 += p * p;
	}
	out->expected_changes = (double) (r->rows - 1) * (1.0 - sum_p2);
	out->sorted = out->expected_changes >= MIN_EXPECTED_CHANGES &&
		(double) r->label_changes < SORTED_FRACTION * out->expected_changes;

	/*
	 * The window, without the rows that brought a new class (nothing could
	 * predict them): the classes' counts, the errors, one prediction only?
	 */
	counts = BkAllocArray(&m->env, (size_t) (m->n_classes > 0 ? m->n_classes : 1),
						  sizeof(uint64_t));
	/*
	 * The finished model's own predictions of the recent rows it kept,
	 * when it kept enough: a model can vary online while it learns and
	 * still end constant.  Otherwise (rows too wide to keep) the online
	 * predictions, made before each row was learned.
	 */
	out->finished = r->keep_n >= MIN_WINDOW;
	for (int i = 0; i < (out->finished ? r->keep_n : r->win_n); i++)
	{
		int			t = out->finished ? r->keep_true[i] : r->win_true[i],
					p = out->finished ?
			predict(m, r->keep_x + (size_t) i * (size_t) m->dim) :
			r->win_pred[i];

		if (p < 0)
			continue;
		n++;
		counts[t]++;
		wrong += p != t;
		if (first_pred < 0)
			first_pred = p;
		constant &= p == first_pred;
	}
	for (int c = 1; c < m->n_classes; c++)
		if (counts[c] > counts[most])
			most = c;
	out->window = n;
	if (n > 0)
	{
		out->window_error = (double) wrong / n;
		out->majority_class = most;
		out->majority_error = 1.0 - (double) counts[most] / n;
	}
	BkFree(&m->env, counts);

	if (n < MIN_WINDOW || out->sorted ||
		(double) n * out->majority_error < MIN_OTHER_ROWS - 0.5)
		return;
	if (constant)
	{
		out->collapsed = true;
		out->constant_class = first_pred;
	}
	else
		out->no_better = out->window_error >= out->majority_error;
}

/*
 * The model's columns change (a merge re-lays it into a union of
 * preparations, BkModelUnionLayout): the rows kept for the report move
 * with them, column c to map[c] and the others fill's, when as many rows
 * of new_dim values still fit in BK_RUN_KEEP_BYTES; otherwise they are
 * let go (the report then scores none).
 */
void
BkRunRelayout(BkModel *m, int new_dim, const int *map, const double *fill)
{
	BkRunStats *r = &m->run;
	double	   *x;

	/* the columns' statistics are of the old columns */
	BkInputsFree(m);
	if (r->keep_x == NULL)
		return;
	if ((size_t) r->keep_cap > BK_RUN_KEEP_BYTES / ((size_t) new_dim * sizeof(double)))
	{
		BkFree(&m->env, r->keep_x);
		BkFree(&m->env, r->keep_true);
		BkFree(&m->env, r->keep_t);
		r->keep_x = NULL;
		r->keep_true = NULL;
		r->keep_t = NULL;
		r->keep_cap = r->keep_alloc = r->keep_n = r->keep_next = 0;
		return;
	}
	x = BkAllocArray(&m->env, (size_t) r->keep_alloc * (size_t) new_dim, sizeof(double));
	for (int i = 0; i < r->keep_n; i++)
	{
		const double *src = r->keep_x + (size_t) i * (size_t) m->dim;
		double	   *dst = x + (size_t) i * (size_t) new_dim;

		memcpy(dst, fill, sizeof(double) * (size_t) new_dim);
		for (int c = 0; c < m->dim; c++)
			dst[map[c]] = src[c];
	}
	BkFree(&m->env, r->keep_x);
	r->keep_x = x;
}
