/*
 * bk_model_merge.c
 *	  Merging two models trained on disjoint rows into one (parallel
 *	  workers, partitions, shards): parameter mixing of online learners.
 *
 *	  With T_a and T_b the rows each has seen and w_a = T_a / (T_a + T_b),
 *	  w_b = T_b / (T_a + T_b), the merged expansion of every machine is
 *	      f = w_a f_a + w_b f_b,
 *	  the union of both SV sets with each side's coefficients (times its
 *	  scale) weighted.  When the union holds more than the budget B, it is
 *	  reduced to B, one SV at a time, by the budget maintenance of paper 004
 *	  that keeps the most of f: the SV of least degradation (eq. 17,
 *	  ||alpha_m||^2 / G_mm) projected onto the others (§4.2): every other
 *	  coefficient gains alpha_m (K_P^-1 k_Pm), computed from G = K^-1 of
 *	  the union as -alpha_m G_Pm / G_mm, and G shrinks by the Schur
 *	  complement (O(n^3) once, O(n^2) a removal, n <= 2B).  G is the
 *	  inverse of K + 1e-6 diag(K) (BK_GRAM_RIDGE), since SVs of two models
 *	  can lie close together.  Projection onto all the others keeps more of f than
 *	  merging pairs of SVs (§4.3), first chosen for the Gaussian kernel: on
 *	  ncheckerboard1m (BPA-NN, B = 100, gamma 4, whose expansions are sums
 *	  of coefficients near +-2000 that nearly cancel) two halves at 67.9 %
 *	  and 69.1 % merged to 49.1 % by pairs and 69.7 % by projection; on the
 *	  checkerboard 95.0 % and 95.7 %.  Merging pairs (bk_merge.c) remains
 *	  the Gaussian kernel's fallback when K is not positive definite even
 *	  with the ridge.
 *	  A union of more than 1,024 SVs (budgets over 512) is reduced in
 *	  blocks of at most 1,024, each projected within itself, which bounds
 *	  the cost of the inverses (MERGE_PROJECT_MAX).
 *	  An unbudgeted learner keeps the union, up to max_sv.
 *
 *	  The learner's bookkeeping is then rebuilt from the merged SVs, so the
 *	  result is a valid model of its algorithm that trains on: K^-1 from
 *	  scratch, the neighbour cache, the cached scores f(x_j), ||w||^2 (and
 *	  Pegasos' ball projection when the merge leaves w outside the ball),
 *	  the evaluation set (points of both sides in proportion to their rows,
 *	  their scores and kernel values recomputed).  Counters add up; the
 *	  row at which an SV was added is stretched by (T_a + T_b) / T_a (or
 *	  T_b), which keeps SPA's averaged output f_bar exactly the weighted
 *	  average of the two (an SV's weight in it is (T - s) / T) and the
 *	  Forgetron's age order within each side; Pegasos' step counter is the
 *	  rows seen, T_a + T_b.  The Forgetron's Q and Pegasos' sum of
 *	  ||Delta w||^2 are weighted like the coefficients.
 *
 *	  Classes are aligned by label first: each model gains the other's
 *	  classes it lacks (in canonical order, as a class that had no row yet),
 *	  so both have the same machines in the same order.
 *
 *	  Models that prepare named features merge when their keys or text
 *	  values differ: both are first re-laid into the union of their
 *	  preparations (bk_model_union.c, bk_prep_union.c), whose dimension
 *	  the merged model takes; their statistics are then pooled as for one
 *	  layout (bk_part_prep.c).
 */
#include "bk_learner.h"
#include "bk_base.h"
#include "bk_distil.h"
#include "bk_part.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* ---- compatibility ---- */

/*
 * Refuse two models that cannot be merged, naming the difference: the
 * dimension, the label type, the declared classes, or a parameter (every
 * stored parameter but the seed must agree, the kernel and the algorithm
 * among them).
 */
/*
 * v as the shortest text that reads back as v (as bk_info writes numbers),
 * so that two values that differ never print alike in a message
 */
static const char *
shortest(double v, char *buf, size_t len)
{
	/* an integer part's digits at least, so that 30 is "30", not "3e+01" */
	int			first = fabs(v) >= 1.0 && fabs(v) < 1e15 ?
		(int) floor(log10(fabs(v))) + 1 : 1;

	for (int prec = first; prec <= 17; prec++)
	{
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

static void
check_compatible(const BkModel *a, const BkModel *b)
{
	const BkEnv *env = &a->env;
	BkParamValue va[BK_MAX_PARAM_VALUES];
	BkParamValue vb[BK_MAX_PARAM_VALUES];
	int			na,
				nb;
	const char *hint = "Merge models trained with the same parameters on rows of the same shape.";
	/* named features of other keys or levels: the union (BkModelUnionLayout) */
	bool		named = a->prep != NULL && b->prep != NULL &&
		BkPrepNamed(a->prep) && BkPrepNamed(b->prep);

	if (a->params.regression != b->params.regression ||
		a->params.novelty != b->params.novelty)
		BkRaiseHint(env, BK_ERR_PARAM, NULL,
					"Merge models of one task: classifiers, regressors or novelty detectors.",
					"cannot merge a %s with a %s",
					a->params.regression ? "regressor" : a->params.novelty ? "novelty detector" : "classifier",
					b->params.regression ? "regressor" : b->params.novelty ? "novelty detector" : "classifier");
	if (a->dim != b->dim && !named)
		BkRaiseHint(env, BK_ERR_PARAM, NULL, hint,
					"cannot merge models of dimension %d and %d", a->dim, b->dim);
	/* the label type: of the classes, or of the class weights' entries */
	if ((a->n_classes > 0 || (a->weights && a->weights->n > 0)) &&
		(b->n_classes > 0 || (b->weights && b->weights->n > 0)) &&
		a->text_labels != b->text_labels)
		BkRaiseHint(env, BK_ERR_PARAM, NULL, hint,
					"cannot merge a model of %s labels with one of %s labels",
					a->text_labels ? "text" : "integer",
					b->text_labels ? "text" : "integer");
	if (strcmp(BkAlgorithmName(&a->params), BkAlgorithmName(&b->params)) != 0)
		BkRaiseHint(env, BK_ERR_PARAM, NULL, hint,
					"cannot merge models of algorithms \"%s\" and \"%s\"",
					BkAlgorithmName(&a->params), BkAlgorithmName(&b->params));
	na = BkParamsList(&a->params, va, BK_MAX_PARAM_VALUES);
	nb = BkParamsList(&b->params, vb, BK_MAX_PARAM_VALUES);
	for (int i = 0; i < na && i < BK_MAX_PARAM_VALUES; i++)
	{
		const BkParamValue *x = &va[i];
		const BkParamValue *y = NULL;
		char		bx[32],
					by[32];

		if (strcmp(x->key, "seed") == 0)
			continue;
		for (int j = 0; j < nb && j < BK_MAX_PARAM_VALUES; j++)
			if (strcmp(vb[j].key, x->key) == 0)
				y = &vb[j];
		if (y == NULL)
			BkRaiseHint(env, BK_ERR_PARAM, NULL, hint,
						"cannot merge models whose parameters differ: \"%s\" is set in one only",
						x->key);
		if (x->is_string ? strcmp(x->string ? x->string : "", y->string ? y->string : "") != 0 :
			x->number != y->number)
		{
			/* gamma's default, 1 / dim, differs with the preparations' columns */
			if (strcmp(x->key, "gamma") == 0 && a->dim != b->dim)
				BkRaiseHint(env, BK_ERR_PARAM, NULL,
							"gamma defaults to 1 / dim: give both models the same \"gamma\" to merge models of other preparations.",
							"cannot merge models whose parameter \"gamma\" differs: %s and %s (their dimensions are %d and %d)",
							shortest(x->number, bx, sizeof(bx)), shortest(y->number, by, sizeof(by)),
							a->dim, b->dim);
			if (x->is_string)
				BkRaiseHint(env, BK_ERR_PARAM, NULL, hint,
							"cannot merge models whose parameter \"%s\" differs: \"%s\" and \"%s\"",
							x->key, x->string, y->string);
			BkRaiseHint(env, BK_ERR_PARAM, NULL, hint,
						"cannot merge models whose parameter \"%s\" differs: %s and %s",
						x->key, shortest(x->number, bx, sizeof(bx)),
						shortest(y->number, by, sizeof(by)));
		}
	}
	if (na != nb)
		BkRaiseHint(env, BK_ERR_PARAM, NULL, hint,
					"cannot merge models whose parameters differ (%d and %d set)", na, nb);
	if (a->classes_declared != b->classes_declared)
		BkRaiseHint(env, BK_ERR_PARAM, NULL, hint,
					"cannot merge a model of declared classes with one of learned classes");
	if (a->classes_declared)
	{
		bool		same = a->n_classes == b->n_classes;

		for (int c = 0; same && c < a->n_classes; c++)
			same = a->text_labels ?
				strcmp(a->class_names[c], b->class_names[c]) == 0 :
				a->classes[c] == b->classes[c];
		if (!same)
			BkRaiseHint(env, BK_ERR_PARAM, NULL, hint,
						"cannot merge models whose declared classes differ");
	}
	/* the parts that must agree (the class weights) */
	for (int i = 0; i < bk_n_parts; i++)
		if (bk_parts[i]->merge_check)
			bk_parts[i]->merge_check(a, b);
}

/* Give m every class of other it lacks (a class no row of m has shown). */
static void
add_missing_classes(BkModel *m, const BkModel *other)
{
	for (int c = 0; c < other->n_classes; c++)
	{
		const char *text = other->text_labels ? other->class_names[c] : NULL;
		size_t		len = text ? strlen(text) : 0;
		int64_t		label = other->classes[c];

		if (BkClassFind(m, label, text, len) < 0)
		{
			if (m->n_classes == 0)
			{
				m->text_labels = other->text_labels;
				m->labels_utf8 = other->labels_utf8;
			}
			BkClassAdd(m, label, text, len);
		}
	}
}

/* ---- the union of two machines ---- */

/* The row s of a side of T_side rows, in the merged stream of T rows. */
static uint64_t
stretch(uint64_t s, uint64_t t_side, uint64_t t)
{
	double		v;

	if (t_side == 0)
		return s;
	v = floor((double) s * ((double) t / (double) t_side) + 0.5);
	if (v < 1.0)
		v = 1.0;
	if (v > (double) t)
		v = (double) t;
	return (uint64_t) v;
}

/*
 * Append the SVs of src to u, their coefficients times w (and src's
 * scale); with positive_only, those of a positive coefficient only.
 */
static void
append_side(BkMachine *u, int dim, const BkMachine *src, double w,
			uint64_t t_side, uint64_t t, bool positive_only)
{
	int			K = src->n_coef;

	for (int j = 0; j < src->n_sv; j++)
	{
		int			slot;

		if (positive_only && !(src->scale * src->coef[(size_t) j * K] > 0.0))
			continue;
		slot = u->n_sv++;

		memcpy(BkSvRow(u, slot), BkSvRow(src, j), sizeof(double) * dim);
		u->sqnorm[slot] = src->sqnorm[j];
		for (int c = 0; c < K; c++)
			u->coef[(size_t) slot * K + c] = w * src->scale * src->coef[(size_t) j * K + c];
		if (u->born)
			u->born[slot] = stretch(src->born[j], t_side, t);
	}
}

/*
 * SVs of the union with the same bytes (the SVs of a common parent, which
 * models continued from it on their own rows both keep): one SV with the
 * sum of their coefficients, alpha k(x, .) + beta k(x, .) = (alpha +
 * beta) k(x, .), so the union is the same function with fewer SVs, and
 * the reduction does not project an SV onto its own copy.  The first of
 * each group keeps its slot (the order of the union is kept) and the
 * earliest row it was added at.  Not for learners whose coefficients live
 * in a box (dual_box): a sum may leave it.
 */
static void
combine_identical(BkModel *m, BkMachine *u)
{
	int			n = u->n_sv,
				K = u->n_coef,
				kept = 0;
	size_t		cap;
	int		   *table;

	if (n < 2 || BkLearnerOf(&m->params)->dual_box)
		return;
	table = BkRowTableNew(&m->env, (size_t) n, &cap);
	for (int j = 0; j < n; j++)
	{
		const double *x = BkSvRow(u, j);
		bool		found;
		size_t		h = BkRowSlot(table, cap, u, x, m->dim, &found);
		int			same = found ? table[h] : -1;

		if (same >= 0)
		{
			for (int c = 0; c < K; c++)
				u->coef[(size_t) same * K + c] += u->coef[(size_t) j * K + c];
			if (u->born && u->born[j] < u->born[same])
				u->born[same] = u->born[j];
			continue;
		}
		/* a new row: to slot kept, in the union's order */
		if (kept != j)
		{
			memcpy(BkSvRow(u, kept), x, sizeof(double) * m->dim);
			u->sqnorm[kept] = u->sqnorm[j];
			memcpy(u->coef + (size_t) kept * K, u->coef + (size_t) j * K,
				   sizeof(double) * K);
			if (u->born)
				u->born[kept] = u->born[j];
		}
		table[h] = kept++;
		BkCheckInterrupts(&m->env);
	}
	u->n_sv = kept;
	BkFree(&m->env, table);
}

/* Paper 004 §4.3: merge the smallest SV with its partner until B are left. */
static void
reduce_by_merging(BkModel *m, BkMachine *u, int limit)
{
	double	   *work = BkAllocArray(&m->env, (size_t) u->n_sv + 1, sizeof(double));
	double	   *zbuf = BkAllocArray(&m->env, (size_t) m->dim, sizeof(double));
	double	   *az = BkAllocArray(&m->env, (size_t) u->n_coef, sizeof(double));

	while (u->n_sv > limit)
	{
		BkMergeChoice c;

		BkMergeChoose(&m->env, &m->params, u, m->dim, BkMachineSmallestSv(&m->params, u),
					  work, &c);
		BkMergePoint(&m->params, u, m->dim, &c, work, zbuf, az);
		BkMergeApply(u, m->dim, &c, zbuf, az);
		BkCheckInterrupts(&m->env);
	}
	BkFree(&m->env, az);
	BkFree(&m->env, zbuf);
	BkFree(&m->env, work);
}

/* The error of a union whose kernel matrix is numerically singular */
static void singular_union(BkModel *m, const BkMachine *u) BK_NORETURN;

static void
singular_union(BkModel *m, const BkMachine *u)
{
	BkRaiseHint(&m->env, BK_ERR_NUMERIC, NULL,
				"Merge models of a kernel whose matrix on their support vectors is positive definite (a Gaussian kernel always is).",
				"cannot merge: the kernel matrix of the %d support vectors is numerically singular",
				u->n_sv);
}

/*
 * Paper 004 §4.2: project the SV of least degradation (eq. 17,
 * BkGramLeastDegrading) onto the others until B are left; false (u
 * unchanged) if K of the union is not positive definite even with the
 * ridge.  The paper projects the smallest SV, to spare inverting K for
 * each candidate; the union's inverse is at hand here, and the exact
 * choice keeps more of a merge, whose smallest SVs are often those the
 * other part's SVs span least (covtype20k, 7 classes, Pegasos merged
 * from 2 parts: 64.18 % with the smallest removed, 68.12 % so; serial
 * 65.96 %).  Training keeps its own choice ("maintenance").
 */
static bool
reduce_by_projection(BkModel *m, BkMachine *u, int limit)
{
	BkGramInverse g;
	int			K = u->n_coef;

	BkGramInit(&m->env, &g, u->n_sv);
	g.ridge = BK_GRAM_RIDGE;
	if (!BkGramRefresh(&m->env, &g, &m->params, u, m->dim))
	{
		BkGramFree(&m->env, &g);
		return false;
	}
	while (u->n_sv > limit)
	{
		int			r = BkGramLeastDegrading(u, &g);
		double		grr;

		/* no positive pivot left: refactorise the inverse once more */
		if (r < 0 && BkGramRefresh(&m->env, &g, &m->params, u, m->dim))
			r = BkGramLeastDegrading(u, &g);
		if (r < 0)
			singular_union(m, u);
		grr = g.m[(size_t) r * g.cap + r];

		for (int j = 0; j < u->n_sv; j++)
		{
			double		a;

			if (j == r)
				continue;
			a = -BkGramAt(&g, j, r) / grr;
			for (int c = 0; c < K; c++)
				u->coef[(size_t) j * K + c] += a * u->coef[(size_t) r * K + c];
		}
		BkGramRemove(&m->env, &g, r);
		BkMachineRemove(u, m->dim, r);
		BkCheckInterrupts(&m->env);
	}
	BkGramFree(&m->env, &g);
	return true;
}

/* Reduce u to limit SVs by projection, or by merging pairs (rbf) when K is singular */
static void
reduce_union(BkModel *m, BkMachine *u, int limit)
{
	if (u->n_sv <= limit || reduce_by_projection(m, u, limit))
		return;
	if (m->params.kernel != BK_KERNEL_RBF)
		singular_union(m, u);
	reduce_by_merging(m, u, limit);
}

/*
 * The projection costs O(n^3) time and 2 n^2 doubles for a union of n SVs
 * (the inverse of its kernel matrix).  A union of more than
 * MERGE_PROJECT_MAX SVs (budgets over half of it) is reduced in
 * consecutive blocks of at most that many, each projected onto its own
 * remaining SVs down to its share of the budget, so that a parallel
 * plan's combine costs at most n / MERGE_PROJECT_MAX such inverses (at
 * 1,024 SVs about 0.3 s and 16 MB each).  The blocks follow the union's
 * order, each side's SVs in turn: each side is reduced within itself.
 */
#define MERGE_PROJECT_MAX 1024

static void
reduce_in_blocks(BkModel *m, BkMachine *u, int limit)
{
	int			n = u->n_sv;
	int			K = u->n_coef;
	int			dim = m->dim;
	int			nb = (n + MERGE_PROJECT_MAX - 1) / MERGE_PROJECT_MAX;
	int			kept = 0;
	BkMachine	blk;

	BkMachineInit(&m->env, &blk, dim, K, MERGE_PROJECT_MAX);
	if (u->born)
		blk.born = BkAllocArray(&m->env, MERGE_PROJECT_MAX, sizeof(uint64_t));
	for (int b = 0; b < nb; b++)
	{
		int			from = (int) ((int64_t) n * b / nb);
		int			to = (int) ((int64_t) n * (b + 1) / nb);
		int			target = (int) ((int64_t) limit * (b + 1) / nb) -
			(int) ((int64_t) limit * b / nb);

		blk.n_sv = to - from;
		/* whole rows, padding included: the same stride on both sides */
		memcpy(blk.sv, BkSvRow(u, from), sizeof(double) * (size_t) blk.n_sv * u->sv_ld);
		memcpy(blk.sqnorm, u->sqnorm + from, sizeof(double) * (size_t) blk.n_sv);
		memcpy(blk.coef, u->coef + (size_t) from * K, sizeof(double) * (size_t) blk.n_sv * K);
		if (u->born)
			memcpy(blk.born, u->born + from, sizeof(uint64_t) * (size_t) blk.n_sv);
		reduce_union(m, &blk, target);
		/* kept <= from: the block's survivors move down into u */
		memmove(BkSvRow(u, kept), blk.sv, sizeof(double) * (size_t) blk.n_sv * u->sv_ld);
		memmove(u->sqnorm + kept, blk.sqnorm, sizeof(double) * (size_t) blk.n_sv);
		memmove(u->coef + (size_t) kept * K, blk.coef, sizeof(double) * (size_t) blk.n_sv * K);
		if (u->born)
			memmove(u->born + kept, blk.born, sizeof(uint64_t) * (size_t) blk.n_sv);
		kept += blk.n_sv;
	}
	u->n_sv = kept;
	BkMachineFree(&m->env, &blk);
}

/* ---- the learner's bookkeeping, from the SVs ---- */

/* kernel row of SV (or point) x against the machine's SVs into krow */
static void
kernel_row(const BkModel *m, const BkMachine *mach, const double *x, double sqx,
		   double *krow)
{
	BkKernelRow(&m->params, mach, m->dim, x, sqx, krow, krow);
}

/* the evaluation points both sides held, to be offered to the merged set */
typedef struct EvalPoints
{
	int			n;
	double	   *x;
	double	   *sqnorm;
	double	   *y;
	uint64_t   *flips;
	uint64_t   *since;
	uint64_t	offered;
} EvalPoints;

static void
take_points(const BkModel *m, EvalPoints *pts, const BkEvalSet *e, int from,
			int count, uint64_t t_side, uint64_t t)
{
	for (int k = from; k < from + count; k++)
	{
		int			i = pts->n++;

		memcpy(pts->x + (size_t) i * m->dim, e->x + (size_t) k * m->dim,
			   sizeof(double) * m->dim);
		pts->sqnorm[i] = e->sqnorm[k];
		pts->y[i] = e->y[k];
		pts->flips[i] = e->flips[k];
		pts->since[i] = stretch(e->since[k], t_side, t);
	}
}

/*
 * The points of the merged evaluation set: of its q places, a share w_a
 * from the first side and the rest from the second (more from one side
 * when the other has too few).
 */
static void
collect_points(const BkModel *m, EvalPoints *pts, const BkEvalSet *ea,
			   const BkEvalSet *eb, double wa, uint64_t ta, uint64_t tb)
{
	int			q = ea->cap;
	int			ka = (int) floor(wa * q + 0.5);
	int			kb;

	if (ka > ea->n)
		ka = ea->n;
	kb = q - ka < eb->n ? q - ka : eb->n;
	if (ka + kb < q)
		ka = q - kb < ea->n ? q - kb : ea->n;
	pts->n = 0;
	pts->x = BkAllocArray(&m->env, (size_t) (ka + kb) * m->dim + 1, sizeof(double));
	pts->sqnorm = BkAllocArray(&m->env, (size_t) (ka + kb) + 1, sizeof(double));
	pts->y = BkAllocArray(&m->env, (size_t) (ka + kb) + 1, sizeof(double));
	pts->flips = BkAllocArray(&m->env, (size_t) (ka + kb) + 1, sizeof(uint64_t));
	pts->since = BkAllocArray(&m->env, (size_t) (ka + kb) + 1, sizeof(uint64_t));
	take_points(m, pts, ea, 0, ka, ta, ta + tb);
	take_points(m, pts, eb, 0, kb, tb, ta + tb);
	pts->offered = ea->offered + eb->offered;
}

/*
 * "svs": the evaluation set is the merged SVs themselves, in their order.
 * An SV both sides' sets held keeps its point's label, flips and row (an
 * exact copy: projection does not move SVs); a point made by merging a
 * pair (the Gaussian fallback) takes its coefficient's sign as label.
 */
static void
svs_points(const BkModel *m, EvalPoints *pts, const BkMachine *u,
		   const BkEvalSet *ea, const BkEvalSet *eb, uint64_t ta, uint64_t tb)
{
	size_t		n = (size_t) u->n_sv + 1;
	size_t		row = sizeof(double) * (size_t) m->dim;

	pts->n = 0;
	pts->x = BkAllocArray(&m->env, n * (size_t) m->dim, sizeof(double));
	pts->sqnorm = BkAllocArray(&m->env, n, sizeof(double));
	pts->y = BkAllocArray(&m->env, n, sizeof(double));
	pts->flips = BkAllocArray(&m->env, n, sizeof(uint64_t));
	pts->since = BkAllocArray(&m->env, n, sizeof(uint64_t));
	for (int j = 0; j < u->n_sv; j++)
	{
		const double *x = BkSvRow(u, j);
		int			i = pts->n++;
		bool		found = false;

		memcpy(pts->x + (size_t) i * m->dim, x, row);
		pts->sqnorm[i] = u->sqnorm[j];
		for (int side = 0; side < 2 && !found; side++)
		{
			const BkEvalSet *e = side == 0 ? ea : eb;

			for (int k = 0; k < e->n && !found; k++)
				if (memcmp(e->x + (size_t) k * m->dim, x, row) == 0)
				{
					pts->y[i] = e->y[k];
					pts->flips[i] = e->flips[k];
					pts->since[i] = stretch(e->since[k], side == 0 ? ta : tb, ta + tb);
					found = true;
				}
		}
		if (!found)
		{
			pts->y[i] = u->coef[(size_t) j * u->n_coef] >= 0.0 ? 1.0 : -1.0;
			pts->flips[i] = 0;
			pts->since[i] = ta + tb;
		}
	}
	pts->offered = ea->offered + eb->offered;
}

static void
free_points(const BkModel *m, EvalPoints *pts)
{
	BkFree(&m->env, pts->x);
	BkFree(&m->env, pts->sqnorm);
	BkFree(&m->env, pts->y);
	BkFree(&m->env, pts->flips);
	BkFree(&m->env, pts->since);
}

/*
 * Rebuild what the learner keeps besides the SVs and coefficients: the
 * neighbour cache, K^-1, f(x_j) of every SV, ||w||^2, the evaluation set.
 * work has room for n_sv + 1 doubles.
 */
static void
rebuild(BkModel *m, BkMachine *mach, const EvalPoints *pts, double *work)
{
	const BkParams *p = &m->params;
	int			n = mach->n_sv;
	int			K = mach->n_coef;

	if (mach->has_nearest)
		for (int j = 0; j < n; j++)
			BkNearestSearch(mach, m->dim, j, work);
	if (mach->has_ginv && !BkGramRefresh(&m->env, &mach->ginv, p, mach, m->dim))
		BkRaiseHint(&m->env, BK_ERR_NUMERIC, NULL,
					"Merge fewer or more distant models, or train on the union of their rows.",
					"cannot merge: the kernel matrix of the merged support vectors is numerically singular");
	if (mach->sv_scores)
		for (int j = 0; j < n; j++)
		{
			kernel_row(m, mach, BkSvRow(mach, j), mach->sqnorm[j], work);
			mach->sv_scores[j] = BkMachineScore(mach, work);
		}
	mach->wnorm2 = 0.0;
	if (p->ball_projection)
	{
		for (int j = 0; j < n; j++)
		{
			kernel_row(m, mach, BkSvRow(mach, j), mach->sqnorm[j], work);
			for (int c = 0; c < K; c++)
			{
				double		f = 0.0;

				for (int i = 0; i < n; i++)
					f += mach->coef[(size_t) i * K + c] * work[i];
				mach->wnorm2 += mach->coef[(size_t) j * K + c] * f;
			}
		}
		if (mach->wnorm2 < 0.0)
			mach->wnorm2 = 0.0;
		/* Pegasos line 8: back into the ball of radius 1 / sqrt(lambda) */
		if (mach->wnorm2 * p->lambda > 1.0)
		{
			mach->scale = 1.0 / sqrt(p->lambda * mach->wnorm2);
			mach->wnorm2 = 1.0 / p->lambda;
		}
	}
	if (mach->eval && pts)
	{
		BkEvalSet  *e = mach->eval;

		e->n = 0;
		for (int k = 0; k < pts->n; k++)
		{
			const double *x = pts->x + (size_t) k * m->dim;

			kernel_row(m, mach, x, pts->sqnorm[k], work);
			BkEvalAddPoint(mach, m->dim, x, pts->sqnorm[k], pts->y[k],
						   mach->scale * BkMachineScore(mach, work), work,
						   pts->since[k]);
			e->flips[k] = pts->flips[k];
		}
		e->offered = pts->offered;
	}
}

/*
 * Machine a of m takes the SVs and coefficients (times its scale) of u,
 * and its learner's bookkeeping is rebuilt from them (with pts, the
 * evaluation points offered to its evaluation set).
 */
static void
install(BkModel *m, BkMachine *a, const BkMachine *u, const EvalPoints *pts)
{
	double	   *work;

	if (u->n_sv > a->capacity)
		BkMachineGrow(&m->env, a, m->dim, u->n_sv);
	a->n_sv = u->n_sv;
	memcpy(a->sv, u->sv, sizeof(double) * (size_t) u->n_sv * u->sv_ld);
	BkSvSync(a, m->dim, 0, u->n_sv);
	memcpy(a->sqnorm, u->sqnorm, sizeof(double) * (size_t) u->n_sv);
	for (size_t i = 0; i < (size_t) u->n_sv * a->n_coef; i++)
		a->coef[i] = u->scale * u->coef[i];
	if (a->born)
		memcpy(a->born, u->born, sizeof(uint64_t) * (size_t) u->n_sv);
	a->scale = 1.0;
	work = BkAllocArray(&m->env, (size_t) a->capacity + 1, sizeof(double));
	rebuild(m, a, pts, work);
	BkFree(&m->env, work);
}

void
BkMergeInstall(BkModel *m, int k, const BkMachine *u)
{
	if (m->machines[k].eval || m->machines[k].born)
		BkRaise(&m->env, BK_ERR_INTERNAL, NULL,
				"a machine with an evaluation set or SV ages is not replaced");
	install(m, &m->machines[k], u, NULL);
	BkModelCheckSums(m, &m->machines[k], true);
}

/*
 * A machine of a union kept whole drops what its learner keeps besides
 * the SVs and coefficients (a neighbour cache, K^-1, cached scores): the
 * union only scores, and these would grow with it (K^-1 as its square).
 */
static void
scoring_only(const BkEnv *env, BkMachine *mach)
{
	if (mach->has_nearest)
	{
		BkFree(env, mach->nearest.idx);
		BkFree(env, mach->nearest.dist2);
		BkFree(env, mach->nearest.rbf_arg);
		BkFree(env, mach->nearest.rbf);
		memset(&mach->nearest, 0, sizeof(mach->nearest));
		mach->has_nearest = false;
	}
	if (mach->has_ginv)
	{
		BkGramFree(env, &mach->ginv);
		memset(&mach->ginv, 0, sizeof(mach->ginv));
		mach->has_ginv = false;
	}
	BkFree(env, mach->sv_scores);
	mach->sv_scores = NULL;
}

/*
 * Machine k of dst becomes the merge of itself and machine k of src; kept
 * whole (keep: no reduction to the budget, no bookkeeping rebuilt) for the
 * union that a distilling merge labels (bk_model_distil.c), of src's SVs
 * of a positive coefficient only with positive_only.
 */
static void
merge_machine(BkModel *dst, const BkModel *src, int k, double wa, double wb,
			  double wmax, bool keep, bool positive_only)
{
	const BkParams *p = &dst->params;
	BkMachine  *a = &dst->machines[k];
	const BkMachine *b = &src->machines[k];
	uint64_t	ta = dst->rows_seen,
				tb = src->rows_seen;
	int			n = a->n_sv + b->n_sv;
	int			limit = BkParamsBudgeted(p) ? (int) p->budget : (int) p->max_sv;
	BkMachine	u;
	EvalPoints	pts;
	double		inmax = 0.0;	/* the largest |coefficient| of either side */

	if (keep)
	{
		/*
		 * the union as it is, for scoring only: a's coefficients weighted
		 * in place and b's SVs appended, O(b) a merge (identical rows are
		 * not combined: the same function, and the distillation finds the
		 * distinct points)
		 */
		scoring_only(&dst->env, a);
		if (n > a->capacity)
			BkMachineGrow(&dst->env, a, dst->dim, n > 2 * a->capacity ? n : 2 * a->capacity);
		for (size_t i = 0; i < (size_t) a->n_sv * a->n_coef; i++)
			a->coef[i] *= wa * a->scale;
		a->scale = 1.0;
		n = a->n_sv;
		append_side(a, dst->dim, b, wb, tb, ta + tb, positive_only);
		BkSvSync(a, dst->dim, n, a->n_sv - n);
		return;
	}
	for (size_t i = 0; i < (size_t) a->n_sv * a->n_coef; i++)
		inmax = fmax(inmax, fabs(a->coef[i] * a->scale));
	for (size_t i = 0; i < (size_t) b->n_sv * b->n_coef; i++)
		inmax = fmax(inmax, fabs(b->coef[i] * b->scale));
	BkMachineInit(&dst->env, &u, dst->dim, a->n_coef, n > 0 ? n : 1);
	if (a->born)
		u.born = BkAllocArray(&dst->env, (size_t) (n > 0 ? n : 1), sizeof(uint64_t));
	append_side(&u, dst->dim, a, wa, ta, ta + tb, false);
	append_side(&u, dst->dim, b, wb, tb, ta + tb, false);
	combine_identical(dst, &u);
	if (!BkParamsBudgeted(p) && u.n_sv > limit)
		BkRaiseHint(&dst->env, BK_ERR_LIMIT, NULL,
					"Raise max_sv, or merge fewer models.",
					"the merged model would hold %d support vectors, more than max_sv (%d)",
					u.n_sv, limit);
	if (u.n_sv > limit && u.n_sv > MERGE_PROJECT_MAX)
		reduce_in_blocks(dst, &u, limit);
	else
		reduce_union(dst, &u, limit);

	if (a->eval && p->eval_set == BK_EVAL_SVS)
		svs_points(dst, &pts, &u, a->eval, b->eval, ta, tb);
	else if (a->eval)
		collect_points(dst, &pts, a->eval, b->eval, wa, ta, tb);

	/*
	 * DUOL's dual variables stay in their box (0, C]; with class weights,
	 * (0, C w_max] for the largest class weight now, a bound of every
	 * class's, or the largest variable of either side if larger (balanced
	 * weights shrink as a rare class becomes common, and a variable set
	 * under an earlier, larger weight keeps its value in training)
	 */
	if (BkLearnerOf(p)->dual_box)
	{
		double		box = dst->weights != NULL ? fmax(p->C * wmax, inmax) : p->C;

		for (size_t i = 0; i < (size_t) u.n_sv * u.n_coef; i++)
			u.coef[i] = BkClamp(u.coef[i], -box, box);
	}
	a->degradation = wa * a->degradation + wb * b->degradation;
	a->updates += b->updates;
	a->maintenance += b->maintenance;
	/* the merged SVs into dst's machine, grown as needed */
	install(dst, a, &u, a->eval ? &pts : NULL);
	BkMachineFree(&dst->env, &u);
	if (a->eval)
		free_points(dst, &pts);
}

/*
 * What merge() does with the machines: reduce the union to the budget
 * (BkModelMerge), keep it whole (BkModelMergeUnion) or of the SVs that
 * label a point only (BkModelMergeUnionOwn), or leave dst's as they are
 * (BkModelMergeCounts)
 */
typedef enum
{
	MERGE_FOLD,
	MERGE_KEEP,
	MERGE_OWN,
	MERGE_COUNTS
} MergeMode;

static void
merge(BkModel *dst, BkModel *src, MergeMode mode)
{
	BkBase		shared = {{0}, 0, 0, 0, 0, 0, 0};
	bool		have_shared = false;
	uint64_t	t;
	double		wa,
				wb,
				wmax;

	if (!dst->training || !src->training)
		BkRaise(&dst->env, BK_ERR_INTERNAL, NULL, "models to merge must be decoded for training");
	check_compatible(dst, src);
	/* the counters add up: refuse what a 64-bit count cannot hold */
	{
		const uint64_t sums[][2] = {
			{dst->rows_seen, src->rows_seen}, {dst->rows_skipped, src->rows_skipped},
			{dst->rows_updated, src->rows_updated}, {dst->mistakes, src->mistakes},
			{dst->maintenance, src->maintenance}, {dst->parts, src->parts},
			{dst->rows_seen + dst->rows_skipped, src->rows_seen + src->rows_skipped}};

		for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++)
			if (sums[i][0] > UINT64_MAX - sums[i][1])
				BkRaise(&dst->env, BK_ERR_LIMIT, NULL,
						"cannot merge: the merged model's counts of rows would overflow");
	}
	/*
	 * named features of other keys or text values: both models in the
	 * union of their preparations, which the preparation part then pools
	 * as it pools two preparations of one layout
	 */
	BkModelUnionLayout(dst, src);
	/*
	 * models continued from one stored model (bk_base.h): its counts once,
	 * each side weighed by the rows it added (before its part is merged)
	 */
	if (BkBaseShared(dst, src) != NULL)
	{
		shared = *BkBaseShared(dst, src);
		have_shared = true;
	}
	/* the parts before the classes (the calibration dropped, the preparations pooled) */
	for (int i = 0; i < bk_n_parts; i++)
		if (bk_parts[i]->merge_early)
			bk_parts[i]->merge_early(dst, src);

	/* the same classes in the same order on both sides */
	add_missing_classes(dst, src);
	add_missing_classes(src, dst);
	if (dst->n_machines != src->n_machines)
		BkRaise(&dst->env, BK_ERR_INTERNAL, NULL, "merged models differ in layout");
	/* the parts, the classes aligned (the class weights' counts, the curve) */
	for (int i = 0; i < bk_n_parts; i++)
		if (bk_parts[i]->merge)
			bk_parts[i]->merge(dst, src);
	wmax = BkWeightsLargest(dst);

	t = dst->rows_seen + src->rows_seen - 2 * shared.rows_seen;
	wa = t > 0 ? (double) (dst->rows_seen - shared.rows_seen) / (double) t : 0.5;
	wb = t > 0 ? (double) (src->rows_seen - shared.rows_seen) / (double) t : 0.5;
	t += shared.rows_seen;
	for (int k = 0; k < dst->n_machines; k++)
	{
		if (mode == MERGE_COUNTS)
		{
			/* the SVs stay; the machine's counts add up as in a fold */
			dst->machines[k].updates += src->machines[k].updates;
			dst->machines[k].maintenance += src->machines[k].maintenance;
			continue;
		}
		merge_machine(dst, src, k, wa, wb, wmax, mode == MERGE_KEEP || mode == MERGE_OWN,
					  mode == MERGE_OWN && dst->n_machines > 1);
		/* what learning checks after a step: the sums a merge rebuilt */
		if (mode == MERGE_FOLD)
			BkModelCheckSums(dst, &dst->machines[k], true);
	}

	dst->rows_seen = t;
	dst->rows_skipped += src->rows_skipped - shared.rows_skipped;
	dst->rows_updated += src->rows_updated - shared.rows_updated;
	dst->mistakes += src->mistakes - shared.mistakes;
	dst->maintenance += src->maintenance - shared.maintenance;
	/*
	 * each machine's counts (which the base does not keep per machine)
	 * hold the base's once for each side: at most the model's
	 */
	if (have_shared)
		for (int k = 0; k < dst->n_machines; k++)
		{
			BkMachine  *mach = &dst->machines[k];

			if (mach->updates > dst->rows_updated)
				mach->updates = dst->rows_updated;
			if (mach->maintenance > dst->maintenance)
				mach->maintenance = dst->maintenance;
		}
	dst->parts += src->parts - shared.parts;
	dst->labels_utf8 = dst->labels_utf8 && src->labels_utf8;
}

void
BkModelMerge(BkModel *dst, BkModel *src)
{
	merge(dst, src, MERGE_FOLD);
}

void
BkModelMergeUnion(BkModel *dst, BkModel *src)
{
	merge(dst, src, MERGE_KEEP);
}

void
BkModelMergeUnionOwn(BkModel *dst, BkModel *src)
{
	merge(dst, src, MERGE_OWN);
}

void
BkModelMergeCounts(BkModel *dst, BkModel *src)
{
	merge(dst, src, MERGE_COUNTS);
}
