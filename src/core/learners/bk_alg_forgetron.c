/*
 * bk_alg_forgetron.c
 *	  The self-tuned Forgetron: O. Dekel, S. Shalev-Shwartz and Y. Singer,
 *	  "The Forgetron: A Kernel-Based Perceptron on a Budget", SIAM J.
 *	  Computing 37(5):1342-1372, 2008 (NIPS 2005: "... on a Fixed Budget"),
 *	  the "self-tuned" variant of the SIAM paper.  A baseline of paper 000
 *	  Table 1 and papers 001-002.
 *
 *	  On a mistake, y_t f_t(x_t) <= 0 (M_t = M_{t-1} + 1 mistakes so far):
 *	    1. perceptron step: f'_t = f_t + y_t k(x_t, .), sigma_{t,t} = 1;
 *	    2. with more than B SVs, r = the oldest SV, sigma_r = |alpha_r| its
 *	       current weight, mu = y_r f'_t(x_r) its margin after step 1;
 *	       shrink every coefficient (x_t's included) by
 *	         phi_t = max { phi in (0, 1] :
 *	                       Psi(sigma_r phi, phi mu) + Q_t <= (15/32) M_t },
 *	         Psi(lambda, mu) = lambda^2 + 2 lambda - 2 lambda mu,
 *	       i.e. f''_t = phi_t f'_t, and accumulate
 *	         Q_{t+1} = Q_t + Psi(sigma_r phi_t, y_r f''_t(x_r));
 *	    3. remove r.
 *	  Psi's second argument is the margin of x_r AFTER the shrink,
 *	  y_r f''_t(x_r) = phi mu, so the bound is the quadratic in phi
 *	      g(phi) = (sigma_r^2 - 2 sigma_r mu) phi^2 + 2 sigma_r phi
 *	               + Q_t - (15/32) M_t <= 0.
 *
 *	  Sources.  The paper's own text was not available to check against,
 *	  so no figure or equation number of it is quoted here.  The rule is
 *	  as two public implementations citing the SIAM paper agree on it:
 *	  DOGMA (F. Orabona; github.com/denizyuret/dogma, file
 *	  k_forgetron_st_train.m: a = beta_r^2 - 2 beta_r f'(x_r),
 *	  b = 2 |beta_r|, c = Q - 15/32 errTot, then Q += e^2 + 2e -
 *	  2e y_r f''(x_r) with e = |beta_r| phi) and LIBOL's forgetron.m
 *	  (Psi = (delta phi)^2 + 2 delta phi (1 - phi mu)).
 *
 *	  phi_t in closed form.  g(0) = Q_t - (15/32) M_t < 0 always (by
 *	  induction Q_t <= (15/32) M_{t-1}), and g'(0) = 2 sigma_r >= 0.  If
 *	  g(1) <= 0, phi = 1.  Otherwise the largest feasible phi in (0, 1] is
 *	  the smallest positive root of g whatever the sign of the leading
 *	  coefficient a, written without dividing by a (stable for a ~ 0):
 *	      phi = -2c / (b + sqrt(b^2 - 4ac)),  b = 2 sigma_r, c = g(0).
 *
 *	  M_t is the machine's update count plus one: a Forgetron machine
 *	  changes exactly on its mistakes (a row with Phi(x_t) = 0, possible
 *	  only under the linear kernel with x_t = 0, is skipped as by the
 *	  other perceptrons and not counted).  Q_t is kept in the machine's
 *	  degradation field, so continued training is bit-identical.
 *
 *	  The shrink is a pass over the B coefficients, not a multiplication
 *	  of the machine's scale: the step already computes the kernel row of
 *	  x_r, O(B dim), so O(B) more is nothing, and the stored coefficients
 *	  stay the actual ones (scale exactly 1, as the format requires of
 *	  every learner but Pegasos) with no underflow to fold.
 *
 *	  The age order: each SV keeps the row at which it was added (born);
 *	  x_t takes the slot of the removed oldest SV, so the store never
 *	  needs B + 1 slots.
 */
#include "bk_learner.h"

#include <math.h>

double
BkForgetronPhi(double sigma, double mu, double Q, double M)
{
	double		a = sigma * sigma - 2.0 * sigma * mu;
	double		b = 2.0 * sigma;
	double		c = Q - (15.0 / 32.0) * M;
	double		d,
				phi;

	if (a + b + c <= 0.0)
		return 1.0;				/* g(1) <= 0: no shrink needed */

	/*
	 * c >= 0: no phi in (0, 1] meets the bound.  Unreachable for a model
	 * this learner wrote (Q_t <= (15/32) M_{t-1}); a hand-made one gets
	 * the perceptron's step.
	 */
	if (!(c < 0.0))
		return 1.0;
	d = b * b - 4.0 * a * c;
	if (!(d >= 0.0))
		return 1.0;				/* not reached: g(1) > 0 > g(0) gives a root */
	phi = -2.0 * c / (b + sqrt(d));
	return phi < 1.0 ? phi : 1.0;
}

static bool
BkForgetronStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	int			n = mach->n_sv;
	int			r = 0;
	double		sigma,
				yr,
				mu,
				phi,
				lambda;

	if (!(row->y * row->f <= 0.0) || row->ktt <= 0.0)
		return false;

	if (n < m->params.budget)
	{
		int			slot = BkMachineAppend(mach, m->dim, row->x, row->sqx,
										   row->weight * row->y);

		mach->born[slot] = m->rows_seen;
		return true;
	}

	/* r_t: the oldest SV */
	for (int i = 1; i < n; i++)
		if (mach->born[i] < mach->born[r])
			r = i;
	sigma = fabs(mach->coef[r]);
	yr = mach->coef[r] < 0.0 ? -1.0 : 1.0;

	/* mu = y_r f'_t(x_r), f'_t = f_t + w y_t k(x_t, .) (w: class weight) */
	BkKernelRow(&m->params, mach, m->dim, BkSvRow(mach, r),
				mach->sqnorm[r], row->work, row->work);
	mu = yr * (BkMachineScore(mach, row->work) +
			   row->weight * row->y * row->krow[r]);

	phi = BkForgetronPhi(sigma, mu, mach->degradation,
						 (double) mach->updates + 1.0);
	if (phi < 1.0)
		for (int i = 0; i < n; i++)
			mach->coef[i] *= phi;

	/* Q_{t+1} = Q_t + Psi(sigma_{r,t+1}, y_r f''_t(x_r)) */
	lambda = sigma * phi;
	mach->degradation += lambda * lambda + 2.0 * lambda - 2.0 * lambda * (phi * mu);

	/*
	 * phi_t was chosen so that Q_{t+1} <= (15/32) M; the machine's mistakes
	 * M are its updates, this one included.  When Q_t is far below the
	 * bound (a large margin mu makes Psi negative: Q of -7e12 was seen),
	 * the sum cancels terms of that size and rounding can overshoot by
	 * 1e-3; beyond the bound, phi would stop shrinking and Q would run away.
	 * Q is held at the bound.
	 */
	if (mach->degradation > (15.0 / 32.0) * ((double) mach->updates + 1.0))
		mach->degradation = (15.0 / 32.0) * ((double) mach->updates + 1.0);

	/* remove r; x_t, shrunk with the others, takes its slot */
	BkMachineReplace(mach, m->dim, r, row->x, row->sqx,
					 row->weight * row->y * phi);
	mach->born[r] = m->rows_seen;
	BkBudgetCountMaintenance(m, mach);
	return true;
}

/*
 * Q_t, a sum of Psi terms of either sign, is at most (15/32) x the
 * machine's mistakes (= updates) by the choice of phi_t, with slack for
 * rounding; the scale is 1 (the Forgetron shrinks its coefficients).
 */
static int
forgetron_check_sums(const BkParams *p, uint64_t updates, double scale,
					 double degradation)
{
	double		bound = (15.0 / 32.0) * (double) updates;

	if (!isfinite(degradation) || degradation > bound + 1e-6 * (1.0 + bound))
		return BK_SUMS_BAD_DEGRADATION;
	return scale == 1.0 ? BK_SUMS_OK : BK_SUMS_BAD_SCALE;
}

const BkLearner bk_learner_forgetron = {
	.id = BK_ALG_FORGETRON, .name = "forgetron",
	.source = "Dekel, Shalev-Shwartz and Singer 2008: the self-tuned Forgetron",
	.params = BK_TAKES(BUDGET),
	.keeps = BK_KEEP_BORN,
	.step = BkForgetronStep,
	.check_sums = forgetron_check_sums,
	.degradation_name = "Forgetron Q",
};
