/*
 * bk_model.c
 *	  The model (learner state): its layout for each algorithm, creation,
 *	  the per-row learning loop shared by every algorithm (kernel rows,
 *	  per-class scores, online mistakes, counters, one-vs-rest), and
 *	  scoring.  The class table lives in bk_classes.c; the machines follow
 *	  its order (BkModelPermuteClasses); the room checks before a class
 *	  or a row is added, in bk_model_room.c.  The layout each algorithm needs
 *	  and its sizes are in bk_layout.c, the optional parts in bk_part_*.c.
 */
#include "bk_learner.h"
#include "bk_target.h"
#include "bk_distil.h"
#include "bk_part.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * Scratch: the kernel row and dot products of each machine (its capacity
 * + 1 values each), then the work area: two rows of the largest capacity.
 * Each machine's part is sized by its own capacity, so a model of many
 * small machines (one-vs-rest with few SVs in most classes) needs little,
 * and nothing in it is sized by the dimension: a decoded model with few
 * support vectors of a large dimension stays small (the point a merge
 * builds has its own buffer, BkModelMergePoint).
 */
static void
ensure_scratch(BkModel *m)
{
	size_t		rows = 0,
				maxcap = 0,
				need;

	for (int i = 0; i < m->n_machines; i++)
	{
		size_t		cap = (size_t) m->machines[i].capacity + 1;

		rows += 2 * cap;
		if (cap > maxcap)
			maxcap = cap;
	}
	need = rows + 2 * maxcap;
	m->work_offset = rows;
	if (m->scratch_len < need)
	{
		m->scratch = BkReallocArray(&m->env, m->scratch, need, sizeof(double));
		m->scratch_len = need;
	}
}

static void
init_machine(BkModel *m, BkMachine *mach, int n_coef, int capacity)
{
	BkMachineInit(&m->env, mach, m->dim, n_coef, capacity);
	if (m->params.sv_precision == BK_SV_FLOAT4)
		BkMachineKeepFloat4(&m->env, mach);
	/* scoring the average needs each SV's row, too */
	if (BkModelNeedsBorn(&m->params))
		mach->born = BkAllocArray(&m->env, (size_t) capacity, sizeof(uint64_t));
	/* scoring needs neither the neighbour cache nor K^-1 */
	if (!m->training)
		return;
	if (BkModelNeedsNearest(&m->params))
		BkNearestInit(&m->env, mach, capacity);
	if (BkModelNeedsGram(&m->params))
	{
		mach->has_ginv = true;
		BkGramInit(&m->env, &mach->ginv, capacity + 1);
		mach->ginv.ridge = BkModelGramRidge(&m->params);
	}
	if (BkModelNeedsScores(&m->params))
		mach->sv_scores = BkAllocArray(&m->env, (size_t) capacity, sizeof(double));
	if (BkModelEvalCap(&m->params) > 0)
		BkEvalInit(&m->env, mach, BkModelEvalCap(&m->params), m->dim);
}

/*
 * Allocate the machines of the model's classes with room for caps[k] SVs
 * in machine k (capacity each when caps is NULL), and, for a model that
 * will go on learning, the bookkeeping its algorithm needs.
 */
void
BkModelAllocMachines(BkModel *m, const int *caps, int capacity)
{
	int			n_coef = BkModelCoefs(&m->params, m->n_classes);

	m->n_machines = BkModelMachines(&m->params, m->n_classes);
	m->machines = BkAllocArray(&m->env, (size_t) m->n_machines, sizeof(BkMachine));
	for (int i = 0; i < m->n_machines; i++)
		init_machine(m, &m->machines[i], n_coef, caps ? caps[i] : capacity);
	ensure_scratch(m);
}

/*
 * The model gained its class number n_classes - 1: give it room.  A binary
 * learner goes one-vs-rest at the third class: its machine f (positive =
 * the second class) is exactly "class 1 versus the rest", -f is "class 0
 * versus the rest", and the new class gets an empty machine, as every
 * later class does.  Pegasos gets a coefficient column.
 */
void
BkModelOnNewClass(BkModel *m)
{
	int			k = m->n_classes;
	int			want = BkModelMachines(&m->params, k);

	if (BkLearnerOf(&m->params)->multiclass)
	{
		if (BkModelCoefs(&m->params, k) > m->machines[0].n_coef)
			BkMachineAddColumn(&m->env, &m->machines[0]);
		return;
	}
	if (want == m->n_machines)
		return;

	m->machines = BkReallocArray(&m->env, m->machines, (size_t) want,
								 sizeof(BkMachine));
	if (m->n_machines == 1)
	{
		BkMachine	f = m->machines[0];

		BkMachineCopy(&m->env, &m->machines[0], &f, m->dim, -1.0);
		m->machines[1] = f;
		m->n_machines = 2;
	}
	while (m->n_machines < want)
		init_machine(m, &m->machines[m->n_machines++], 1,
					 BkModelInitialCapacity(&m->params, 0));
	ensure_scratch(m);
}

void
BkModelPermuteClasses(BkModel *m, const int *perm)
{
	int			n = m->n_classes;
	int		   *inv;
	int64_t    *labels;
	char	  **names;
	bool		identity = true;

	for (int i = 0; i < n; i++)
		identity &= perm[i] == i;
	if (identity)
		return;
	inv = BkAllocArray(&m->env, (size_t) n, sizeof(int));
	labels = BkAllocArray(&m->env, (size_t) n, sizeof(int64_t));
	names = BkAllocArray(&m->env, (size_t) n, sizeof(char *));
	for (int i = 0; i < n; i++)
	{
		inv[perm[i]] = i;
		labels[i] = m->classes[perm[i]];
		names[i] = m->class_names[perm[i]];
	}
	memcpy(m->classes, labels, sizeof(int64_t) * (size_t) n);
	memcpy(m->class_names, names, sizeof(char *) * (size_t) n);
	if (BkLearnerOf(&m->params)->multiclass)
	{
		/* a machine of one class has one column, whatever the order */
		if (m->machines[0].n_coef == n)
		{
			double	   *tmp = BkAllocArray(&m->env, (size_t) n, sizeof(double));

			BkMachinePermuteColumns(&m->machines[0], perm, tmp);
			BkFree(&m->env, tmp);
		}
	}
	else if (m->n_machines == 1)
	{
		/* f is positive for class 1: exchanging two classes negates it */
		if (n == 2)
			BkMachineNegate(&m->machines[0]);
	}
	else
	{
		BkMachine  *old = BkAllocArray(&m->env, (size_t) n, sizeof(BkMachine));

		memcpy(old, m->machines, sizeof(BkMachine) * (size_t) n);
		for (int i = 0; i < n; i++)
			m->machines[i] = old[perm[i]];
		BkFree(&m->env, old);
	}
	BkRunPermute(m, inv, n);
	/* the parts kept per class (the calibration, the class weights' counts) */
	for (int i = 0; i < bk_n_parts; i++)
		if (bk_parts[i]->permute)
			bk_parts[i]->permute(m, perm);
	BkFree(&m->env, names);
	BkFree(&m->env, labels);
	BkFree(&m->env, inv);
}

BkModel *
BkModelCreate(const BkEnv *env, const BkParams *p, int dim)
{
	BkModel    *m = env->alloc(env->ctx, sizeof(BkModel));

	memset(m, 0, sizeof(*m));
	m->env = *env;
	m->params = *p;
	m->grow_limit = BkModelGrowLimit(p);
	m->dim = dim;
	m->format_version = BK_FORMAT_VERSION;
	m->training = true;
	m->hooks = &bk_model_hooks;
	m->parts = 1;
	BkRngSeed(&m->rng, p->seed);
	BkModelAllocMachines(m, NULL, BkModelInitialCapacity(p, 0));
	if (p->regression)
		m->target = BkTargetNew(env);
	if (p->novelty)
		m->novelty = BkNoveltyNew(env);
	return m;
}

void
BkModelFree(BkModel *m)
{
	BkEnv		env = m->env;

	for (int i = 0; i < m->n_machines; i++)
		BkMachineFree(&env, &m->machines[i]);
	BkFree(&env, m->machines);
	BkModelFreeClasses(m);
	BkRunFree(m);
	for (int i = 0; i < bk_n_parts; i++)
		if (bk_parts[i]->free)
			bk_parts[i]->free(m);
	BkFree(&env, m->scratch);
	BkFree(&env, m->merge_point);
	BkFree(&env, m->merge_scratch);
	BkFree(&env, m->float4_row);
	BkFree(&env, m->rows);
	BkFree(&env, m);
}

/* ---- kernel rows and scores ---- */

/*
 * The kernel row of x against machine mach, into the scratch at offset
 * (the machine's part); k(x, x) = ktt; and f = sum_i alpha_i k(sv_i, x)
 * of its first coefficients when with_f (a multi-class learner's scores
 * take every class's column instead: f would be a sum it never reads).
 */
static void
fill_row(BkModel *m, BkMachine *mach, size_t offset, const double *x,
		 double sqx, double ktt, bool sparse, bool with_f, BkRow *row)
{
	row->x = x;
	row->sqx = sqx;
	row->ktt = ktt;
	row->dots = m->scratch + offset;
	row->krow = row->dots + mach->capacity + 1;
	row->work = m->scratch + m->work_offset;
	row->margin = 1.0;			/* a classifier's; BkModelLearnValue sets a regressor's */
	row->dense_dots = !sparse;
	if (sparse)
		BkKernelRowSparse(&m->params, mach, m->dim, m->sparse.idx, m->sparse.val,
						  m->sparse.nnz, sqx, row->dots, row->krow);
	else
		BkKernelRow(&m->params, mach, m->dim, x, sqx, row->dots, row->krow);
	row->f = with_f ? BkMachineScore(mach, row->krow) : 0.0;
}

void
BkModelSparseRow(BkModel *m, const double *dense, const int32_t *idx,
				 const double *val, int nnz)
{
	m->sparse.x = dense;
	m->sparse.idx = idx;
	m->sparse.val = val;
	m->sparse.nnz = nnz;
}

const double *
BkModelSparseScoringRow(BkModel *m, const int32_t *idx, const double *val,
						int nnz)
{
	BkModelSparseRow(m, &m->sparse_token, idx, val, nnz);
	return &m->sparse_token;
}

/* x must be a row of m->dim values, not the token of a sparse row */
static void
check_dense(const BkModel *m, const double *x)
{
	if (x == &m->sparse_token)
		BkRaise(&m->env, BK_ERR_INTERNAL, NULL,
				"a sparse row declared for scoring was used as a row of values");
}

/*
 * The row's own numbers must stay within what the kernels can compute.
 * Beyond BK_MAX_SQNORM, ||x - x'||^2 = ||x||^2 + ||x'||^2 - 2 x.x' reaches
 * infinity (and infinity minus infinity is NaN), and a polynomial kernel
 * can overflow on its own.  With ||x||^2 bounded and k(x, x) finite, every
 * kernel value is finite: |x.x'| <= max(||x||^2, ||x'||^2), so the
 * polynomial kernel of two rows is at most the larger of their own.
 */
static double
checked_self_kernel(const BkModel *m, double sqx)
{
	double		ktt;

	if (!(sqx <= BK_MAX_SQNORM))
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW,
					"The kernels are computed from ||x||^2, which may be at most 1e300.",
					"Scale the features, for example to zero mean and unit variance.",
					"feature values are too large: the squared norm of the features is %g",
					sqx);
	ktt = BkKernelSelf(&m->params, sqx);
	if (!isfinite(ktt))
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL,
					"Lower gamma, degree or coef0, or scale the features.",
					"the polynomial kernel overflows: k(x, x) = (%g ||x||^2 + %g)^%lld is not finite for ||x||^2 = %g",
					m->params.gamma, m->params.coef0,
					(long long) m->params.degree, sqx);
	return ktt;
}

/*
 * Kernel rows of x against every machine (into rows, n_machines of them)
 * and the score of every class (into m->scores).
 */
static void class_scores(BkModel *m, BkRow *rows, bool predicting);

/*
 * A biased classifier's machine k's bias (bk_part_bias.c): of one-vs-rest
 * machines their class's; of one binary machine that of its second class
 * (the first's negated, of a model of one class)
 */
static double
machine_bias(const BkModel *m, int k)
{
	if (m->n_machines > 1)
		return m->bias[k];
	return m->n_classes >= 2 ? m->bias[1] : -m->bias[0];
}

static void
score_all(BkModel *m, const double *x, BkRow *rows, bool predicting)
{
	const BkLearner *L = BkLearnerOf(&m->params);
	/*
	 * the sparse form of x, if its caller declared one for x: once for a
	 * dense row, for every call for a row declared for scoring only
	 */
	bool		sparse = m->sparse.x == x && x != NULL;
	double		sqx;
	double		ktt;
	size_t		offset = 0;
	/* class_scores reads a multi-class classifier's scores, not f */
	bool		with_f = !L->multiclass || m->target != NULL || m->novelty != NULL;

	if (!sparse)
		check_dense(m, x);
	else if (x != &m->sparse_token)
		m->sparse.x = NULL;
	if (sparse)
	{
		/* the same sum as BkDot's over the dense row, whose other terms are 0 */
		sqx = 0.0;
		for (int k = 0; k < m->sparse.nnz; k++)
			sqx += m->sparse.val[k] * m->sparse.val[k];
	}
	else
		sqx = BkDot(x, x, m->dim);

	/* a model of no class (no row learned yet) has nothing to score */
	if (m->n_classes == 0 && m->target == NULL && m->novelty == NULL)
		BkRaise(&m->env, BK_ERR_DATA, "The model was trained on no labelled row.",
				"model has no class to score");
	ktt = checked_self_kernel(m, sqx);

	ensure_scratch(m);
	for (int k = 0; k < m->n_machines; k++)
	{
		fill_row(m, &m->machines[k], offset, x, sqx, ktt, sparse, with_f, &rows[k]);
		offset += 2 * ((size_t) m->machines[k].capacity + 1);
		/* some learners predict with another classifier than they learn */
		if (predicting && L->predict_score)
			rows[k].f = L->predict_score(m, &m->machines[k], &rows[k]);
		if (m->bias != NULL)
			rows[k].f += machine_bias(m, k);
	}

	if (m->target != NULL || m->novelty != NULL)
	{
		/*
		 * a regressor or a novelty detector: its one machine's f (a
		 * regressor's standardised prediction), times the scale Pegasos
		 * keeps its coefficients under (1 for the others)
		 */
		rows[0].f *= m->machines[0].scale;
		if (!isfinite(rows[0].f))
			BkRaiseHint(&m->env, BK_ERR_OVERFLOW,
						"The model's coefficients or kernel values are too large for a double.",
						"Scale the features, or use smaller steps (a smaller C or eta).",
						"the model's prediction of the row is not finite (%g)", rows[0].f);
		return;
	}
	class_scores(m, rows, predicting);
}

/*
 * A classifier's scores of a row (m->scores) from its machines' rows,
 * their kernel rows and f set
 */
static void
class_scores(BkModel *m, BkRow *rows, bool predicting)
{
	const BkLearner *L = BkLearnerOf(&m->params);

	if (L->multiclass)
		L->class_scores(m, &m->machines[0], &rows[0], m->scores);
	else if (m->n_machines == 1)
	{
		/* one binary machine: f for the second class, -f for the first */
		m->scores[0] = -rows[0].f;
		if (m->n_classes > 1)
			m->scores[1] = rows[0].f;
	}
	else
		for (int k = 0; k < m->n_machines; k++)
			m->scores[k] = rows[k].f;

	/* never a class (or a learning step) from a score that overflowed */
	for (int c = 0; c < m->n_classes; c++)
		if (!isfinite(m->scores[c]))
			BkRaiseHint(&m->env, BK_ERR_OVERFLOW,
						"The model's coefficients or kernel values are too large for a double.",
						predicting ?
						"Scale the features like the training rows, or retrain with scaled features or smaller steps (a larger lambda, a smaller C or eta)." :
						"Scale the features, or use smaller steps (a larger lambda, a smaller C or eta).",
						"the model's score of the row is not finite (%g)", m->scores[c]);
}

/*
 * After a learning step: the machine's running sums must still be what
 * its learner allows (finite, a sum of squares non-negative; the
 * validator's rule), ||w||^2, the coefficients and the cached scores
 * finite (O(n), as the step that computed them).  K^-1 is checked as it is
 * updated (bk_gram.c), the SVs' norms as rows arrive; the final validation
 * of what is encoded checks everything once more.
 */
/* whether the n values are all finite */
static bool
all_finite(const double *x, int n)
{
	double		nonfinite = 0.0;

	for (int i = 0; i < n; i++)
		nonfinite += x[i] - x[i];
	return nonfinite == 0.0;
}

/* classes whose coefficient sums BkModelCheckSums takes in one pass */
#define SUMS_CHUNK 16

void
BkModelCheckSums(BkModel *m, const BkMachine *mach, bool merging)
{
	const char *what = NULL;
	double		v = 0.0;

	switch (BkLearnerCheckSums(&m->params, mach->updates, mach->scale,
							   mach->degradation))
	{
		case BK_SUMS_BAD_SCALE:
			what = "coefficient scale";
			v = mach->scale;
			break;
		case BK_SUMS_BAD_DEGRADATION:
			what = BkLearnerDegradationName(&m->params);
			v = mach->degradation;
			break;
	}
	if (what == NULL && !isfinite(mach->wnorm2))
	{
		what = "norm ||w||^2";
		v = mach->wnorm2;
	}
	/*
	 * The coefficients (times a scale of at most 1), and for the rbf
	 * kernel, whose values are at most 1, the sum of their magnitudes per
	 * class, which bounds every score (the validator's rule); the cached
	 * scores of the SVs and of the evaluation set.  O(n), as the step that
	 * computed them: x - x is 0 for a finite x and NaN otherwise, so one
	 * sum per array says whether all are finite.
	 */
	for (int c0 = BkMachineCoefSumsModest(mach) ? mach->n_coef : 0;
		 c0 < mach->n_coef && what == NULL; c0 += SUMS_CHUNK)
	{
		int			nc = mach->n_coef - c0 < SUMS_CHUNK ? mach->n_coef - c0 : SUMS_CHUNK;
		double		sum[SUMS_CHUNK] = {0.0},
					nonfinite[SUMS_CHUNK] = {0.0};

		/* row by row (the coefficients' order in memory), each class's sum in j order */
		for (int j = 0; j < mach->n_sv; j++)
		{
			const double *a = mach->coef + (size_t) j * mach->n_coef + c0;

			for (int c = 0; c < nc; c++)
			{
				nonfinite[c] += a[c] - a[c];
				sum[c] += fabs(a[c]);
			}
		}
		for (int c = 0; c < nc && what == NULL; c++)
		{
			if (nonfinite[c] != 0.0)
				what = "coefficient of a support vector";
			else if (m->params.kernel == BK_KERNEL_RBF && !isfinite(sum[c] * mach->scale))
				what = "sum of the coefficients' magnitudes";
			v = sum[c];
		}
	}
	/*
	 * A merge moves the SVs to pooled statistics (a preparation's): each
	 * must stay within what the validator allows a stored SV, its squared
	 * norm summed as the validator sums it at most BK_MAX_SQNORM and its
	 * kernel with itself finite (a learning step stores only rows that
	 * checked_self_kernel passed)
	 */
	for (int j = 0; merging && what == NULL && j < mach->n_sv; j++)
	{
		const double *x = BkSvRow(mach, j);
		double		sq = 0.0;

		for (int d = 0; d < m->dim; d++)
			sq += x[d] * x[d];
		if (!(sq <= BK_MAX_SQNORM) || !isfinite(BkKernelSelf(&m->params, sq)))
		{
			what = "squared norm of a support vector";
			v = sq;
		}
	}
	if (what == NULL && mach->sv_scores && !all_finite(mach->sv_scores, mach->n_sv))
		what = "cached score of a support vector";
	if (what == NULL && mach->eval && !all_finite(mach->eval->f, mach->eval->n))
		what = "cached score of an evaluation point";
	if (what != NULL && merging)
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL,
					"The models' coefficients are too large to combine: retrain them with scaled features or smaller steps.",
					"merging overflowed: the merged model's %s left its range (%g)",
					what, v);
	if (what != NULL)
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL,
					"Scale the features, or use smaller steps (a larger lambda, a smaller C or eta).",
					"training overflowed: the model's %s left its range (%g)",
					what, v);
}

/* the first class with the largest score */
static int
argmax_class(const BkModel *m)
{
	int			best = 0;

	for (int i = 1; i < m->n_classes; i++)
		if (m->scores[i] > m->scores[best])
			best = i;
	return best;
}

/* One BkRow per machine, kept with the model's scratch. */
static BkRow *
rows_for(BkModel *m)
{
	if (m->rows_cap < m->n_machines)
	{
		m->rows = BkReallocArray(&m->env, m->rows, (size_t) m->n_machines,
								 sizeof(BkRow));
		m->rows_cap = m->n_machines;
	}
	return (BkRow *) m->rows;
}

/*
 * The row a model learns: x itself, or for "sv_precision": "float4" x
 * rounded to float4 (in the model's float4_row), so that the SV the step
 * may make of it holds the values the step computed with (bk_svstore.c).
 * A sparse row is then learned through its dense form.
 */
static const double *
learned_row(BkModel *m, const double *x)
{
	if (m->params.sv_precision != BK_SV_FLOAT4)
		return x;
	if (m->float4_row == NULL)
		m->float4_row = BkAllocArray(&m->env, (size_t) m->dim, sizeof(double));
	memcpy(m->float4_row, x, sizeof(double) * (size_t) m->dim);
	if (!BkSvRound(m->float4_row, m->dim))
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL, FLOAT4_HINT,
					"a feature value is beyond float4's range");
	return m->float4_row;
}

/*
 * What every learned row does first: it is checked and, for a float4
 * model, rounded (learned_row), before anything changes; its parts follow
 * (a calibration no longer holds), and a full machine of a budgeted
 * learner below its budget doubles.  Returns the row to learn.
 */
static const double *
begin_row(BkModel *m, const double *x)
{
	if (!m->training)
		BkRaise(&m->env, BK_ERR_INTERNAL, NULL, "model was not decoded for training");
	BkModelCheckRowRoom(m, 1);
	check_dense(m, x);
	x = learned_row(m, x);
	/* trained further, its scores change: the calibration no longer holds */
	for (int i = 0; i < bk_n_parts; i++)
		if (bk_parts[i]->on_learn)
			bk_parts[i]->on_learn(m);

	/*
	 * A step adds at most one SV to a machine: a full machine of a budgeted
	 * learner below its budget doubles first (before the kernel rows, which
	 * the scratch lays out by capacity).
	 */
	if (m->grow_limit > 0)
	{
		int			full = m->grow_limit;

		for (int k = 0; k < m->n_machines; k++)
		{
			BkMachine  *mach = &m->machines[k];

			if (mach->n_sv >= mach->capacity && mach->capacity < full)
				BkMachineGrow(&m->env, mach, m->dim,
							  mach->capacity <= full / 2 ? 2 * mach->capacity : full);
		}
	}
	return x;
}

/* the parts that follow the counts (a point of the learning curve) */
static void
counted(BkModel *m)
{
	for (int i = 0; i < bk_n_parts; i++)
		if (bk_parts[i]->on_counted)
			bk_parts[i]->on_counted(m);
}

/* Learn one row of class cls (is_new: the row brought the class). */
void
BkModelLearnClass(BkModel *m, const double *x, int cls, bool is_new)
{
	const BkLearner *L = BkLearnerOf(&m->params);
	BkRow	   *rows = rows_for(m);
	bool		changed = false;
	int			pred;

	if (m->target != NULL)
		BkRaiseHint(&m->env, BK_ERR_PARAM, NULL,
					"Its rows take a float8 target: cast the label, for example label::float8.",
					"the model is a regressor, not a classifier");
	if (m->novelty != NULL)
		BkRaiseHint(&m->env, BK_ERR_PARAM, NULL,
					"Its rows have a NULL label: bk_continue(features, NULL, model).",
					"the model is a novelty detector, not a classifier");
	x = begin_row(m, x);

	/* prequential: predict with the current model, then learn */
	score_all(m, x, rows, false);
	pred = is_new ? -1 : argmax_class(m);
	if (pred != cls)
		m->mistakes++;
	m->rows_seen++;
	counted(m);
	BkRunNote(m, x, cls, pred);
	BkWeightsForRow(m, cls, rows);

	if (L->multiclass)
	{
		changed = L->step_class(m, &m->machines[0], &rows[0], cls);
		if (changed)
			m->machines[0].updates++;
		BkModelCheckSums(m, &m->machines[0], false);
	}
	else
		for (int k = 0; k < m->n_machines; k++)
		{
			BkMachine  *mach = &m->machines[k];
			BkRow	   *row = &rows[k];
			bool		ch;

			/* one machine: positive = the second class; else k versus rest */
			if (m->n_machines == 1)
				row->y = cls == 1 ? 1.0 : -1.0;
			else
				row->y = cls == k ? 1.0 : -1.0;
			ch = L->step(m, mach, row);
			if (ch)
			{
				mach->updates++;
				BkModelCheckSums(m, mach, false);
			}
			changed |= ch;
		}
	if (changed)
		m->rows_updated++;
}

/*
 * The learner's step on the one machine of a regressor or a novelty
 * detector, row's y and margin set (no class weights: every row weighs 1)
 */
static void
value_step(BkModel *m, BkRow *row)
{
	BkMachine  *mach = &m->machines[0];

	row->weight = row->w_pos = row->w_neg = 1.0;
	if (BkLearnerOf(&m->params)->step(m, mach, row))
	{
		mach->updates++;
		BkModelCheckSums(m, mach, false);
		m->rows_updated++;
	}
}

/*
 * Learn one row of a regressor, of target t (bk_alg_pa.c, bk_alg_ogd.c):
 * predicted first, as a classifier's row is, with its error counted in
 * the target's units, and a "mistake" when the standardised residual lies
 * outside the tube of half-width epsilon; then its learner's step with
 * y = sign(t' - f) and margin y t' - epsilon for the standardised
 * t' = (t - mean) / sd, so that the step's hinge margin - y f is the
 * epsilon-insensitive loss |t' - f| - epsilon.
 */
void
BkModelLearnValue(BkModel *m, const double *x, double t)
{
	BkRow	   *row = rows_for(m);
	BkTarget   *tg = m->target;
	double		ts,
				err,
				residual,
				sign;

	if (tg == NULL)
		BkRaiseHint(&m->env, BK_ERR_PARAM, NULL,
					m->novelty ? "Its rows have a NULL label: bk_continue(features, NULL, model)." :
					"Its rows take a class label: an integer (int8) or text.",
					"the model is a %s, not a regressor",
					m->novelty ? "novelty detector" : "classifier");
	if (!isfinite(t))
		BkRaiseHint(&m->env, BK_ERR_DATA, NULL,
					"Leave the row out, or give it a finite target.",
					"the target is not finite (%g)", t);
	x = begin_row(m, x);

	score_all(m, x, row, false);
	ts = (t - tg->mean) / tg->sd;
	err = t - (tg->mean + tg->sd * row->f);
	/* the error squared overflows: the target's own size, else the prediction's */
	if (!isfinite(ts) || (!isfinite(err * err) && !(fabs(t - tg->mean) < 1e150)))
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL,
					"Scale the target, or standardise it (\"target_scale\": \"standard\").",
					"the target %g is too large: its error squared is not finite", t);
	if (!isfinite(err * err))
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL,
					"Take a smaller step size (\"eta\", \"C\" or \"lambda\"), or standardise the features.",
					"the model's prediction for the target %g is too large: the learner's steps diverged", t);
	residual = ts - row->f;
	if (fabs(residual) > m->params.epsilon)
		m->mistakes++;
	BkTargetNote(tg, m->rows_seen, t, err);
	if (!isfinite(tg->sq_error) || !isfinite(tg->seen_m2))
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL,
					"Scale the target.",
					"the sum of the target's squared errors is no longer finite");
	m->rows_seen++;
	counted(m);
	BkRunNoteValue(m, x, t);

	sign = residual >= 0.0 ? 1.0 : -1.0;
	row->y = sign;
	row->margin = sign * ts - m->params.epsilon;
	value_step(m, row);
}

/*
 * Learn one row of a novelty detector (bk_alg_ogd.c, bk_alg_pegasos.c):
 * scored first, a row scoring above 0 (f(x) < rho) counted as flagged;
 * then its learner's step with y = +1 and margin rho, so that the step's
 * hinge margin - y f is the one-class SVM's max(0, rho - f(x)), and the
 * threshold's own gradient step: rho <- decay rho - rate (1{flagged} -
 * nu), with the rate of the learner's step and the shrink of its
 * regulariser (row->rate, row->rho_decay; 1 for NORMA's unregularised
 * threshold).
 */
void
BkModelLearnNovel(BkModel *m, const double *x)
{
	BkRow	   *row = rows_for(m);
	BkNovelty  *nv = m->novelty;
	bool		flagged;

	if (nv == NULL)
		BkRaise(&m->env, BK_ERR_INTERNAL, NULL, "the model is not a novelty detector");
	x = begin_row(m, x);
	score_all(m, x, row, false);
	flagged = nv->rho - row->f > 0.0;
	if (flagged)
		m->mistakes++;
	m->rows_seen++;
	counted(m);
	BkRunNoteValue(m, x, 0.0);

	row->y = 1.0;
	row->margin = nv->rho;
	row->rate = 0.0;
	row->rho_decay = 1.0;
	value_step(m, row);
	nv->rho = row->rho_decay * nv->rho - row->rate * ((flagged ? 1.0 : 0.0) - m->params.nu);
	if (!isfinite(nv->rho))
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL,
					"Use smaller steps (a larger lambda, a smaller eta).",
					"the novelty threshold is no longer finite");
}

double
BkModelNoveltyScore(BkModel *m, const double *x)
{
	BkRow	   *rows = rows_for(m);
	double		v;

	if (m->novelty == NULL)
		BkRaiseHint(&m->env, BK_ERR_PARAM, NULL,
					"bk_novelty scores a novelty detector, trained by bk_train(features, NULL, params) with \"task\": \"novelty\".",
					"the model is not a novelty detector");
	score_all(m, x, rows, true);
	v = m->novelty->rho - rows[0].f;
	if (!isfinite(v))
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL,
					"Scale the features like the training rows.",
					"the model's novelty score of the row is not finite (%g)", v);
	return v;
}

double
BkModelPredictValue(BkModel *m, const double *x)
{
	BkRow	   *rows = rows_for(m);
	double		v;

	if (m->target == NULL)
		BkRaiseHint(&m->env, BK_ERR_PARAM, NULL,
					m->novelty ? "bk_novelty(model, features) gives a novelty detector's score." :
					"bk_predict gives a classifier's label, bk_decision its score.",
					"the model is a %s, not a regressor",
					m->novelty ? "novelty detector" : "classifier");
	score_all(m, x, rows, true);
	v = m->target->mean + m->target->sd * rows[0].f;
	if (!isfinite(v))
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL,
					"Scale the features like the training rows.",
					"the model's prediction of the row is not finite (%g)", v);
	return v;
}

/* the functions of a classifier refuse a regressor */
static void
require_classifier(const BkModel *m)
{
	if (m->target != NULL)
		BkRaiseHint(&m->env, BK_ERR_PARAM, NULL,
					"bk_predict_value(model, features) gives a regressor's prediction.",
					"the model is a regressor, not a classifier");
	if (m->novelty != NULL)
		BkRaiseHint(&m->env, BK_ERR_PARAM, NULL,
					"bk_novelty(model, features) gives a novelty detector's score.",
					"the model is a novelty detector, not a classifier");
}

void
BkModelScores(BkModel *m, const double *x, double *scores)
{
	require_classifier(m);
	score_all(m, x, rows_for(m), true);
	memcpy(scores, m->scores, sizeof(double) * m->n_classes);
}

int
BkModelClassOfKernelRows(BkModel *m, double *const *krows)
{
	BkRow	   *rows = rows_for(m);

	require_classifier(m);
	if (BkLearnerOf(&m->params)->predict_score)
		BkRaise(&m->env, BK_ERR_INTERNAL, NULL,
				"the learner does not predict with its kernel rows");
	for (int k = 0; k < m->n_machines; k++)
	{
		rows[k].krow = krows[k];
		rows[k].f = BkMachineScore(&m->machines[k], krows[k]);
		if (m->bias != NULL)
			rows[k].f += machine_bias(m, k);
	}
	class_scores(m, rows, true);
	return argmax_class(m);
}

int
BkModelPredictClass(BkModel *m, const double *x)
{
	require_classifier(m);
	if (m->n_classes == 0)
		return -1;
	score_all(m, x, rows_for(m), true);
	return argmax_class(m);
}

double
BkModelDecision(BkModel *m, const double *x)
{
	require_classifier(m);
	if (m->n_classes > 2)
		BkRaise(&m->env, BK_ERR_DATA,
				"A signed score is defined for at most two classes; bk_scores gives one score per class.",
				"the model has %d classes", m->n_classes);
	score_all(m, x, rows_for(m), true);
	if (!BkLearnerOf(&m->params)->multiclass)
		return -m->scores[0];	/* f of the binary machine */
	return m->n_classes == 2 ? m->scores[1] - m->scores[0] : -m->scores[0];
}

/*
 * One probability per class, in class order, summing to 1: each class's
 * sigmoid of its score, normalised (bk_calibrate.c).  The model must be
 * calibrated.
 */
void
BkModelProbabilities(BkModel *m, const double *x, double *prob)
{
	require_classifier(m);
	if (m->platt == NULL)
		BkRaiseHint(&m->env, BK_ERR_PARAM, NULL,
					"Calibrate it on held-out rows: SELECT bk_calibrate(model, features, label) FROM held_out.",
					"the model is not calibrated");
	BkModelScores(m, x, prob);
	BkPlattProbabilities(m->platt, m->n_classes, prob);
}

/* what this run of training saw (bk_run.c), with the model's predictions */
void
BkModelRunReport(BkModel *m, BkRunReport *out)
{
	/* a regressor's run is judged by its predictions' errors, a detector's by its flags */
	if (m->target != NULL)
		BkRunMakeValueReport(m, out, BkModelPredictValue);
	else if (m->novelty != NULL)
		BkRunMakeValueReport(m, out, BkModelNoveltyScore);
	else
		BkRunMakeReport(m, out, BkModelPredictClass);
}

bool
BkModelPredict(BkModel *m, const double *x, int64_t *label)
{
	int			c = BkModelPredictClass(m, x);

	if (c < 0)
		return false;
	*label = m->classes[c];
	return true;
}

double
BkModelSvCoef(const BkModel *m, int k, int j, int c)
{
	const BkMachine *mach = &m->machines[k];
	const BkLearner *L = BkLearnerOf(&m->params);
	double		a = mach->coef[(size_t) j * mach->n_coef + c] * mach->scale;

	if (L->sv_weight)
		a *= L->sv_weight(m, mach, j);
	return a;
}

const char *
BkModelDegradationKey(const BkModel *m, double *sum)
{
	const char *key = BkLearnerOf(&m->params)->degradation_key;

	*sum = 0.0;
	for (int i = 0; i < m->n_machines; i++)
		*sum += m->machines[i].degradation;
	return key;
}
