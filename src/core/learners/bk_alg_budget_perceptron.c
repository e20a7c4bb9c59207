/*
 * bk_alg_budget_perceptron.c
 *	  The Budget Perceptron of paper 003 (Weston, Bordes and Bottou, "Online
 *	  (and Offline) on an Even Tighter Budget", AISTATS 2005), Fig. 1, after
 *	  Crammer, Kandola and Singer (2004):
 *
 *	      if y_t f(x_t) <= beta (margin):
 *	          if |C| = p (budget): remove
 *	              i = argmax_{j in C} y_j (f(x_j) - alpha_j y_j k(x_j, x_j))  (1a)
 *	              the SV best classified after its own removal       (1b, 1c)
 *	          add x_t with alpha_t y_t                                  (2-4)
 *
 *	  with alpha_t from one of the update rules of Fig. 2:
 *	      perceptron   alpha = 1
 *	      mira         alpha = min(1, max(0, -y f(x) / k(x, x)))
 *	      nobias_svm   alpha = min(C, max(0, (1 - y f(x)) / k(x, x))), beta = 1
 *
 *	  f(x_j) of every SV is kept up to date (sv_scores): adding x_t adds
 *	  alpha_t y_t k(x_t, x_j), which the kernel row of x_t gives; removing
 *	  x_i subtracts alpha_i y_i k(x_i, x_j), one more kernel row.  So a step
 *	  costs O(B d), like the insertion itself.  The scores travel in the
 *	  model, so continued training is bit-identical.
 */
#include "bk_learner.h"

#include <math.h>
#include <stdio.h>

/*
 * alpha_t of paper 003 Fig. 2.  Class weights: a row of weight w takes
 * alpha = w, caps mira's step at w and the SVM rule's at C w (the loss of
 * the row counts w times).  The Tighter Budget Perceptron's removal still
 * counts the evaluation set's errors unweighted.
 */
static double
update_alpha(const BkParams *p, const BkRow *row)
{
	double		yf = row->y * row->f;
	double		a;

	switch (p->update)
	{
		case BK_UPDATE_MIRA:
			a = -yf / row->ktt;
			return BkClamp(a, 0.0, row->weight);
		case BK_UPDATE_NOBIAS_SVM:
			a = (1.0 - yf) / row->ktt;
			return BkClamp(a, 0.0, p->C * row->weight);
		default:
			return row->weight;
	}
}

/*
 * Steps 1a-1c: remove the SV that keeps the largest margin after its own
 * removal, and subtract its contribution from the other SVs' scores.  The
 * SV moved into its slot takes its kernel value with x_t along (krow).
 * Returns alpha_i y_i k(x_i, x_t), to take from f(x_t).
 */
static double
remove_best_classified(BkModel *m, BkMachine *mach, BkRow *row)
{
	double	   *svf = mach->sv_scores;
	double	   *dots = row->work;
	int			n = mach->n_sv;
	int			best = 0;
	double		bestv = 0.0,
				a,
				kit;

	for (int j = 0; j < n; j++)
	{
		double		aj = mach->coef[j];
		double		yj = aj >= 0.0 ? 1.0 : -1.0;
		double		v = yj * (svf[j] - aj * BkKernelSelf(&m->params, mach->sqnorm[j]));

		if (j == 0 || v > bestv)
		{
			best = j;
			bestv = v;
		}
	}

	/* f(x_j) -= alpha_i y_i k(x_i, x_j): the kernel row of x_i */
	a = mach->coef[best];
	BkKernelRow(&m->params, mach, m->dim, BkSvRow(mach, best),
				mach->sqnorm[best], dots, dots);
	for (int j = 0; j < n; j++)
		svf[j] -= a * dots[j];
	kit = a * row->krow[best];

	BkBudgetRemove(m, mach, row, best, row->work);
	BkBudgetCountMaintenance(m, mach);
	return kit;
}

static bool
BkBudgetPerceptronStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	const BkParams *p = &m->params;
	double		f = row->f;
	double		alpha,
				a;
	int			slot;

	if (row->ktt <= 0.0 || row->y * row->f > p->margin)
		return false;
	alpha = update_alpha(p, row);
	if (alpha <= 0.0)
		return false;

	if (mach->n_sv >= p->budget)
		f -= remove_best_classified(m, mach, row);

	/* steps 2-4: x_t joins with alpha_t y_t; every SV's score follows */
	a = alpha * row->y;
	for (int j = 0; j < mach->n_sv; j++)
		mach->sv_scores[j] += a * row->krow[j];
	slot = BkMachineAppend(mach, m->dim, row->x, row->sqx, a);
	mach->sv_scores[slot] = f + a * row->ktt;
	return true;
}

/* ------------------------------------------------------------------------
 * The Tighter Budget Perceptron (paper 003 Fig. 3): the same insertion,
 * but the SV removed is the one whose removal makes the fewest errors on
 * an evaluation set (step 1a), held by bk_evalset.c:
 *   svs     the SVs themselves (eq. 3);
 *   random  a reservoir of q rows drawn uniformly from the stream (eq. 4);
 *   flip    the q rows whose prediction changes most often per row spent
 *           in the set (§3.2, Fig. 5), refreshed on margin errors;
 *   all     every row seen (Fig. 3 as written); memory grows with the
 *           stream, so at most the q most recent.
 * Fig. 5 writes "remove argmax s_i", but §3.2 keeps "the examples that are
 * most likely to change label" and removes those whose rate "is small":
 * we follow the text and remove the smallest rate, among the points held
 * before x_t (Fig. 5's Q_{t-1}).
 * ------------------------------------------------------------------------
 */

/* the point with the lowest flip rate flips / (rows spent in the set) */
static int
least_flipping(const BkEvalSet *e, uint64_t t)
{
	int			best = 0;
	double		bestr = 0.0;

	for (int k = 0; k < e->n; k++)
	{
		double		r = (double) e->flips[k] / (double) (t - e->since[k] + 1);

		if (k == 0 || r < bestr)
		{
			best = k;
			bestr = r;
		}
	}
	return best;
}

/* the oldest point */
static int
oldest(const BkEvalSet *e)
{
	int			best = 0;

	for (int k = 1; k < e->n; k++)
		if (e->since[k] < e->since[best])
			best = k;
	return best;
}

/*
 * Offer row t to the evaluation set before the update, so that its score
 * follows the update like every other point's.
 */
static void
offer_row(BkModel *m, BkMachine *mach, const BkRow *row, bool margin_error)
{
	BkEvalSet  *e = mach->eval;
	uint64_t	t = m->rows_seen;

	switch (m->params.eval_set)
	{
		case BK_EVAL_ALL:
			if (e->n >= e->cap)
				BkEvalRemovePoint(mach, m->dim, oldest(e));
			break;
		case BK_EVAL_RANDOM:
			/* reservoir sampling: each row seen stays with probability q/t */
			e->offered++;
			if (e->n >= e->cap)
			{
				uint64_t	r = BkRngBelow(&m->rng, e->offered);

				if (r >= (uint64_t) e->cap)
					return;
				BkEvalRemovePoint(mach, m->dim, (int) r);
			}
			break;
		case BK_EVAL_FLIP:
			if (!margin_error)
				return;
			if (e->n >= e->cap)
				BkEvalRemovePoint(mach, m->dim, least_flipping(e, t));
			break;
		default:
			return;
	}
	BkEvalAddPoint(mach, m->dim, row->x, row->sqx, row->y, row->f, row->krow, t);
}

static bool
BkTighterBudgetPerceptronStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	const BkParams *p = &m->params;
	bool		svs = p->eval_set == BK_EVAL_SVS;
	bool		update;
	double		alpha = 0.0,
				a,
				f = row->f;
	int			slot;

	update = row->ktt > 0.0 && row->y * row->f <= p->margin &&
		(alpha = update_alpha(p, row)) > 0.0;
	offer_row(m, mach, row, update);
	if (!update)
		return false;

	if (mach->n_sv >= p->budget)
	{
		/* step 1a: the fewest errors on the evaluation set after removal */
		int			i = BkEvalBestRemoval(mach);
		double		ai = mach->coef[i];

		f -= ai * row->krow[i];
		BkEvalOnRemoveSv(mach, i, ai);
		if (svs)
			BkEvalRemovePoint(mach, m->dim, i);	/* its mirror in the set */
		BkBudgetRemove(m, mach, row, i, row->work);
		BkBudgetCountMaintenance(m, mach);
	}

	/* steps 2-4 */
	a = alpha * row->y;
	slot = BkMachineAppend(mach, m->dim, row->x, row->sqx, a);
	BkEvalOnAddSv(p, mach, m->dim, slot, row->x, row->sqx, a);
	if (svs)
	{
		row->krow[slot] = row->ktt;
		BkEvalAddPoint(mach, m->dim, row->x, row->sqx, row->y, f + a * row->ktt,
					   row->krow, m->rows_seen);
	}
	if (p->eval_set == BK_EVAL_FLIP)
		BkEvalCountFlips(mach);
	return true;
}

/* the SVs themselves for "svs" (room for the budget), else q rows */
static int
tighter_eval_cap(const BkParams *p)
{
	return (int) (p->eval_set == BK_EVAL_SVS ? p->budget : p->eval_size);
}

/*
 * C bounds the no-bias SVM rule only (paper 003 Fig. 2); eval_size sizes an
 * evaluation set other than the SVs themselves.
 */
static bool
budget_perceptron_param_applies(const BkParams *p, BkParamId id, char *why,
								size_t whylen)
{
	if (id == BK_P_C && p->update != BK_UPDATE_NOBIAS_SVM)
	{
		if (why != NULL)
			snprintf(why, whylen,
					 "parameter \"C\" applies to algorithm \"%s\" with update \"nobias_svm\" only",
					 p->algorithm == BK_ALG_BUDGET_PERCEPTRON ?
					 "budget_perceptron" : "tighter_budget_perceptron");
		return false;
	}
	if (id == BK_P_EVAL_SIZE && p->eval_set == BK_EVAL_SVS)
	{
		if (why != NULL)
			snprintf(why, whylen,
					 "parameter \"eval_size\" does not apply to eval_set \"svs\" (the support vectors are the evaluation set)");
		return false;
	}
	return true;
}

const BkLearner bk_learner_budget_perceptron = {
	.id = BK_ALG_BUDGET_PERCEPTRON, .name = "budget_perceptron",
	.source = "paper 003 Fig. 1 and Fig. 2 (Crammer, Kandola and Singer 2004)",
	.params = BK_TAKES(BUDGET) | BK_TAKES(C) | BK_TAKES(MARGIN) |
	BK_TAKES(UPDATE),
	.params_mutable = BK_TAKES(C) | BK_TAKES(MARGIN),
	.param_applies = budget_perceptron_param_applies,
	.keeps = BK_KEEP_SCORES,
	.step = BkBudgetPerceptronStep,
};

const BkLearner bk_learner_tighter_budget_perceptron = {
	.id = BK_ALG_TIGHTER_BUDGET_PERCEPTRON, .name = "tighter_budget_perceptron",
	.source = "paper 003 Fig. 3, eq. 3-4 and Fig. 5",
	.params = BK_TAKES(BUDGET) | BK_TAKES(C) | BK_TAKES(MARGIN) |
	BK_TAKES(UPDATE) | BK_TAKES(EVAL_SET) | BK_TAKES(EVAL_SIZE),
	.params_mutable = BK_TAKES(C) | BK_TAKES(MARGIN),
	.param_applies = budget_perceptron_param_applies,
	.keeps = BK_KEEP_EVAL,
	.eval_cap = tighter_eval_cap,
	.step = BkTighterBudgetPerceptronStep,
};
