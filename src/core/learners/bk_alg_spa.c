/*
 * bk_alg_spa.c
 *	  Sparse Passive-Aggressive learning (paper 002: Lu, Zhao and Hoi,
 *	  "Online Sparse Passive Aggressive Learning with Kernels", SDM 2016),
 *	  Algorithm 1.  (Its comparison's kernel OGD baseline is in
 *	  bk_alg_ogd.c.)
 *
 *	  SPA: with the hinge loss l_t = [1 - y_t f_t(x_t)]_+, draw
 *	      Z_t ~ Bernoulli(rho_t),  rho_t = min(alpha, l_t) / beta     (§2.2)
 *	  from the model's seeded generator, and when Z_t = 1 take the step of
 *	  Proposition 1:
 *	      f_{t+1} = f_t + tau_t y_t k(x_t, .),
 *	      tau_t = min(eta Z_t / rho_t, l_t / k(x_t, x_t)).
 *	  SVs are never removed (the SV set is unbudgeted and capped by max_sv;
 *	  its expected size is at most alpha/beta of the rows).  The output is
 *	  the last classifier or the average f_bar_T = (1/T) sum_{t=1..T} f_t:
 *	  an SV added at row s belongs to f_{s+1}, ..., f_T, so the average is
 *	  the same SVs with coefficients scaled by (T - s) / T.  Each SV keeps
 *	  its row s, which makes the average exact and O(1) a row to maintain.
 *
 */
#include "bk_learner.h"

#include <stdio.h>

static bool
BkSpaStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	const BkParams *p = &m->params;
	double		loss = 1.0 - row->y * row->f;
	double		wloss,
				rho,
				tau;
	int			slot;

	if (loss <= 0.0 || row->ktt <= 0.0)
		return false;
	/*
	 * class weights: a row of weight w has the loss w l_t in the objective,
	 * in its sampling probability and in its step's bound (w eta)
	 */
	wloss = row->weight * loss;
	rho = (wloss < p->alpha ? wloss : p->alpha) / p->beta;
	if (!(BkRngUniform(&m->rng) < rho))
		return false;			/* Z_t = 0: no update */
	tau = p->eta * row->weight / rho;
	if (loss / row->ktt < tau)
		tau = loss / row->ktt;
	BkBudgetReserveUnbudgeted(m, mach);
	slot = BkMachineAppend(mach, m->dim, row->x, row->sqx, tau * row->y);
	mach->born[slot] = m->rows_seen;
	return true;
}

/*
 * f_bar_T(x) = sum_j alpha_j (T - s_j) / T k(x_j, x), T the rows seen, from
 * the kernel row of x.
 */
static double
BkSpaAverageScore(const BkModel *m, const BkMachine *mach, const double *krow)
{
	double		T = (double) m->rows_seen;
	double		f = 0.0;

	if (T <= 0.0)
		return 0.0;
	for (int j = 0; j < mach->n_sv; j++)
		f += mach->coef[j] * ((T - (double) mach->born[j]) / T) * krow[j];
	return f;
}


/* predictions with the averaged classifier, learning with the last */
static double
spa_predict_score(const BkModel *m, const BkMachine *mach, const BkRow *row)
{
	return m->params.output == BK_OUTPUT_AVERAGE ?
		BkSpaAverageScore(m, mach, row->krow) : row->f;
}

/* an SV's weight (T - s_j) / T in the averaged classifier */
static double
spa_sv_weight(const BkModel *m, const BkMachine *mach, int j)
{
	if (m->params.output != BK_OUTPUT_AVERAGE || m->rows_seen == 0)
		return 1.0;
	return ((double) m->rows_seen - (double) mach->born[j]) / (double) m->rows_seen;
}

/* paper 002: beta >= alpha > 0 */
static bool
spa_check_params(const BkParams *p, bool stored, char *err, size_t errlen)
{
	if (p->beta < p->alpha)
	{
		snprintf(err, errlen,
				 "parameter \"beta\" must be at least \"alpha\" (%g), got %g (paper 002: beta >= alpha > 0)",
				 p->alpha, p->beta);
		return false;
	}
	return true;
}

const BkLearner bk_learner_spa = {
	.id = BK_ALG_SPA, .name = "spa",
	.source = "paper 002 Algorithm 1 (sparse PA with Bernoulli sampling, averaged output)",
	.params = BK_TAKES(MAX_SV) | BK_TAKES(ALPHA) | BK_TAKES(BETA) |
	BK_TAKES(ETA) | BK_TAKES(OUTPUT),
	.params_mutable = BK_TAKES(ALPHA) | BK_TAKES(BETA) | BK_TAKES(ETA),
	.check_params = spa_check_params,
	.keeps = BK_KEEP_BORN,
	.step = BkSpaStep,
	.predict_score = spa_predict_score,
	.sv_weight = spa_sv_weight,
};
