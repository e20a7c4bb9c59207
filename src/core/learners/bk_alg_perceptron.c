/*
 * bk_alg_perceptron.c
 *	  The kernel perceptron (Rosenblatt 1958), the memory-unbounded
 *	  baseline of papers 000-003: on a mistake, y_t f_t(x_t) <= 0, add x_t
 *	  with coefficient y_t.  Unbudgeted, so capped by max_sv: reaching the
 *	  cap is an error rather than a silently different algorithm.
 *
 *	  And its budgeted baselines of paper 000 Table 1 (also in papers 001
 *	  and 002):
 *	  stoptron  (Orabona, Keshet and Caputo 2008): the perceptron until B
 *	            SVs are stored, then no update at all;
 *	  rbp       random budget perceptron (Cesa-Bianchi and Gentile 2007):
 *	            on a mistake with B SVs stored, remove one chosen uniformly
 *	            at random (the model's seeded generator), then add x_t.
 *
 *	  Class weights: a mistake on a row of weight w adds x_t with
 *	  coefficient w y_t, the subgradient step of the perceptron loss
 *	  w max(0, -y f(x)).
 */
#include "bk_learner.h"

static bool
BkPerceptronStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	if (row->y * row->f > 0.0)
		return false;
	/* Phi(x) = 0 (a zero vector under the linear kernel) adds nothing */
	if (row->ktt <= 0.0)
		return false;
	BkBudgetReserveUnbudgeted(m, mach);
	BkMachineAppend(mach, m->dim, row->x, row->sqx, row->weight * row->y);
	return true;
}

/* A perceptron mistake: y f(x) <= 0, and Phi(x) != 0. */
static bool
mistake(const BkRow *row)
{
	return row->y * row->f <= 0.0 && row->ktt > 0.0;
}

static bool
BkStoptronStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	if (!mistake(row) || mach->n_sv >= m->params.budget)
		return false;
	BkMachineAppend(mach, m->dim, row->x, row->sqx, row->weight * row->y);
	return true;
}

static bool
BkRbpStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	if (!mistake(row))
		return false;
	BkBudgetRemoveRandomIfFull(m, mach);
	BkMachineAppend(mach, m->dim, row->x, row->sqx, row->weight * row->y);
	return true;
}

const BkLearner bk_learner_perceptron = {
	.id = BK_ALG_PERCEPTRON, .name = "perceptron",
	.source = "Rosenblatt 1958: the kernel perceptron (papers 000-003's baseline)",
	.params = BK_TAKES(MAX_SV),
	.step = BkPerceptronStep,
};

const BkLearner bk_learner_stoptron = {
	.id = BK_ALG_STOPTRON, .name = "stoptron",
	.source = "Orabona, Keshet and Caputo 2008 (paper 000 Table 1)",
	.params = BK_TAKES(BUDGET),
	.step = BkStoptronStep,
};

const BkLearner bk_learner_rbp = {
	.id = BK_ALG_RBP, .name = "rbp",
	.source = "Cesa-Bianchi and Gentile 2007: random budget perceptron (paper 000 Table 1)",
	.params = BK_TAKES(BUDGET),
	.step = BkRbpStep,
};
