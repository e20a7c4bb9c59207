/*
 * bk_alg_duol.c
 *	  Double Updating Online Learning (DUOL; Zhao, Hoi and Jin, NIPS 2009)
 *	  as paper 001 (Zhao, Wang, Wu, Jin and Hoi, "Budget Double Updating
 *	  Online Learning") states it in §2 and Algorithm 1, and its budgeted
 *	  form BDUOL, whose maintenance is in bk_alg_bduol.c.
 *
 *	  f(x) = sum_i gamma_i y_i k(x_i, x) with every gamma_i in (0, C]; the
 *	  stored coefficient is gamma_i y_i, so y_i is its sign.  On a row with
 *	  hinge loss l_t = 1 - y_t f(x_t) > 0:
 *
 *	  - (BDUOL, B SVs stored) budget maintenance f <- f - Delta f, then
 *	    l_t is computed again (Algorithm 1 lines 8-11);
 *	  - the auxiliary SV b is the one with y_b f(x_b) <= 1 whose
 *	    w_b = y_t y_b k(x_t, x_b) is smallest (lines 13-21: the one that
 *	    "conflicts most"; ties go to the later SV as the "<=" of line 16);
 *	  - if w_b <= -rho: double update f += gamma_t y_t k(x_t, .)
 *	    + d gamma_b y_b k(x_b, .) with (gamma_t, d gamma_b) of eq. 1, the
 *	    maximiser of the dual ascent
 *	        D(g, d) = g l_t + d l_b - (k_t g^2 + k_b d^2 + 2 w_ab g d) / 2
 *	    over g in [0, C], d in [-gamma_b, C - gamma_b];
 *	  - else the single PA-I update gamma_t = min(C, l_t / k(x_t, x_t))
 *	    (line 31; eq. 2 prints k_t^2, a typo for a Gaussian kernel's 1).
 *
 *	  y_i f(x_i) of every SV is kept up to date (lines 26-28 and 32-34):
 *	  sv_scores holds f(x_i).  A double update needs the kernel row of x_b,
 *	  so a row costs O(B d) like its own kernel row.
 */
#include "bk_learner.h"

#include <math.h>
#include <stdio.h>

/* D(g, d) above: the dual ascent of a double update */
static double
dual_ascent(double g, double d, double lt, double lb, double kt, double kb,
			double w)
{
	return g * lt + d * lb - 0.5 * (kt * g * g + kb * d * d + 2.0 * w * g * d);
}

/*
 * (gamma_t, d gamma_b) of paper 001 eq. 1.  The four cases are the
 * maximiser of D when it lies at the corner (C, Cb - gamma_b), on the edge
 * g = C, on the edge d = Cb - gamma_b, or inside the box (g in [0, C],
 * d in [-gamma_b, Cb - gamma_b]; Cb = C but under class weights).  With w_ab <= 0
 * and l_t, l_b >= 0 the gradient of D is positive at the lower bounds, so
 * these are the only places the maximum can be and exactly one case holds
 * — up to rounding at the borders between cases, or a singular system
 * (k_t k_b = w_ab^2, x_b and x_t the same point).  Then the best of the
 * four candidates, each clipped into the box, is taken: the same maximiser
 * without the division by zero.
 */
void
BkDuolDoubleUpdate(double C, double Cb, double lt, double lb, double kt,
				   double kb, double w, double gb, double *g_out, double *d_out)
{
	double		dmax = Cb - gb;
	double		det = kt * kb - w * w;
	double		cand[4][2];
	int			best = 0;
	double		bestv = 0.0;

	/* case 1: the corner */
	if (kt * C + w * dmax - lt < 0.0 && kb * dmax + w * C - lb < 0.0)
	{
		*g_out = C;
		*d_out = dmax;
		return;
	}
	/* case 2: g = C, d inside */
	if (kb > 0.0)
	{
		double		d = (lb - w * C) / kb;

		if ((w * w * C - w * lb - kt * kb * C + kb * lt) / kb > 0.0 &&
			d >= -gb && d <= dmax)
		{
			*g_out = C;
			*d_out = d;
			return;
		}
	}
	/* case 3: d = C - gamma_b, g inside */
	if (kt > 0.0)
	{
		double		g = (lt - w * dmax) / kt;

		if (g >= 0.0 && g <= C && lb - kb * dmax - w * g > 0.0)
		{
			*g_out = g;
			*d_out = dmax;
			return;
		}
	}
	/* case 4: the unconstrained maximiser */
	if (det > 1e-12 * kt * kb)
	{
		double		g = (kb * lt - w * lb) / det;
		double		d = (kt * lb - w * lt) / det;

		if (g >= 0.0 && g <= C && d >= -gb && d <= dmax)
		{
			*g_out = g;
			*d_out = d;
			return;
		}
	}

	/* on a border between cases: the best of the candidates, clipped */
	cand[0][0] = C;
	cand[0][1] = dmax;
	cand[1][0] = C;
	cand[1][1] = kb > 0.0 ? BkClamp((lb - w * C) / kb, -gb, dmax) : dmax;
	cand[2][0] = kt > 0.0 ? BkClamp((lt - w * dmax) / kt, 0.0, C) : C;
	cand[2][1] = dmax;
	if (det > 1e-12 * kt * kb)
	{
		cand[3][0] = BkClamp((kb * lt - w * lb) / det, 0.0, C);
		cand[3][1] = BkClamp((kt * lb - w * lt) / det, -gb, dmax);
	}
	else
	{
		cand[3][0] = cand[0][0];
		cand[3][1] = cand[0][1];
	}
	for (int i = 0; i < 4; i++)
	{
		double		v = dual_ascent(cand[i][0], cand[i][1], lt, lb, kt, kb, w);

		if (i == 0 || v > bestv)
		{
			best = i;
			bestv = v;
		}
	}
	*g_out = cand[best][0];
	*d_out = cand[best][1];
}

static bool
BkDuolStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	const BkParams *p = &m->params;
	double	   *svf;
	double		y = row->y;
	double		f = row->f;
	double		lt = 1.0 - y * f;
	bool		changed = false;
	int			b = -1;
	double		wmin = 0.0;
	double		gt;
	int			slot;

	/* Phi(x) = 0 (a zero vector under the linear kernel) adds nothing */
	if (lt <= 0.0 || row->ktt <= 0.0)
		return false;

	if (p->algorithm == BK_ALG_BDUOL)
	{
		if (mach->n_sv >= p->budget)
		{
			/* lines 8-11: maintenance, then the loss again */
			f -= BkBduolMaintain(m, mach, row);
			changed = true;
			lt = 1.0 - y * f;
			if (lt <= 0.0)
				return changed;
		}
	}
	else
		BkBudgetReserveUnbudgeted(m, mach);
	svf = mach->sv_scores;		/* after the reservation: it may move */

	/* lines 13-21: the SV that conflicts most */
	for (int i = 0; i < mach->n_sv; i++)
	{
		double		yi = BkCoefLabel(mach->coef[i]);
		double		w;

		if (yi * svf[i] > 1.0)
			continue;
		w = yi * y * row->krow[i];
		if (b < 0 || w <= wmin)
		{
			b = i;
			wmin = w;
		}
	}

	if (b >= 0 && wmin <= -p->rho)
	{
		/* lines 24-29: the double update of eq. 1 */
		double		yb = BkCoefLabel(mach->coef[b]);
		double		kb = BkKernelSelf(p, mach->sqnorm[b]);
		double		lb = 1.0 - yb * svf[b];
		double		gb = fabs(mach->coef[b]);
		double		ktb = row->krow[b];
		double	   *kb_row = row->work;
		double		db;

		/* class weights: each dual variable's box is C times its class weight */
		BkDuolDoubleUpdate(p->C * row->weight,
						   p->C * BkRowSideWeight(row, mach->coef[b]),
						   lt, lb, row->ktt, kb, wmin, gb, &gt, &db);
		/* f(x_i) += gamma_t y_t k(x_i, x_t) + d gamma_b y_b k(x_i, x_b) */
		BkKernelRow(p, mach, m->dim, BkSvRow(mach, b),
					mach->sqnorm[b], kb_row, kb_row);
		for (int i = 0; i < mach->n_sv; i++)
			svf[i] += gt * y * row->krow[i] + db * yb * kb_row[i];
		mach->coef[b] += db * yb;
		slot = BkMachineAppend(mach, m->dim, row->x, row->sqx, gt * y);
		svf[slot] = f + gt * y * row->ktt + db * yb * ktb;
	}
	else
	{
		/* lines 30-35: the single update */
		gt = lt / row->ktt;
		if (gt > p->C * row->weight)
			gt = p->C * row->weight;
		for (int i = 0; i < mach->n_sv; i++)
			svf[i] += gt * y * row->krow[i];
		slot = BkMachineAppend(mach, m->dim, row->x, row->sqx, gt * y);
		svf[slot] = f + gt * y * row->ktt;
	}
	if (mach->has_nearest)
		BkNearestOnAppend(mach, row->dots);
	return true;
}

/*
 * BDUOL: the neighbour cache for "nearest", and the projections' K, K^-1
 * and two more B x B matrices built per step
 */
static unsigned
bduol_keeps(const BkParams *p)
{
	return (p->maintenance == BK_MAINT_NEAREST ? BK_KEEP_NEAREST : 0) |
		(p->maintenance == BK_MAINT_PROJECTION ||
		 p->maintenance == BK_MAINT_APPROX_PROJECTION ? BK_KEEP_GRAM_SCRATCH : 0);
}

/* paper 001 §2: rho in [0, 1) (the table's range has rho <= 1) */
static bool
duol_check_params(const BkParams *p, bool stored, char *err, size_t errlen)
{
	if (p->rho >= 1.0)
	{
		snprintf(err, errlen,
				 "parameter \"rho\" must be in [0, 1) (paper 001: rho < 1), got %.15g",
				 p->rho);
		return false;
	}
	return true;
}

/*
 * BDUOL's maintenance: the nearest-neighbour projection by default, which
 * paper 001 §4 finds as accurate as the projection at a fraction of its
 * cost.
 */
static void
bduol_param_defaults(BkParams *p)
{
	if (!BkParamGiven(p, BK_P_MAINTENANCE))
		p->maintenance = BK_MAINT_NEAREST;
}

/* BDUOL's strategies (paper 001 §3), and DUOL's rule on rho */
static bool
bduol_check_params(const BkParams *p, bool stored, char *err, size_t errlen)
{
	if (p->maintenance != BK_MAINT_REMOVAL &&
		p->maintenance != BK_MAINT_PROJECTION &&
		p->maintenance != BK_MAINT_APPROX_PROJECTION &&
		p->maintenance != BK_MAINT_NEAREST)
	{
		snprintf(err, errlen,
				 "maintenance \"%s\" does not apply to algorithm \"bduol\" (its strategies: \"removal\", \"projection\", \"approx_projection\", \"nearest\")",
				 BkParamChoiceName(BK_P_MAINTENANCE, p->maintenance));
		return false;
	}
	return duol_check_params(p, stored, err, errlen);
}

const BkLearner bk_learner_duol = {
	.id = BK_ALG_DUOL, .name = "duol",
	.source = "paper 001 eq. 1-2 and Algorithm 1 (double updating)",
	.params = BK_TAKES(MAX_SV) | BK_TAKES(C) | BK_TAKES(RHO),
	/* not C: every stored dual variable is within [0, C] */
	.params_mutable = BK_TAKES(RHO),
	.check_params = duol_check_params,
	.keeps = BK_KEEP_SCORES,
	.dual_box = true,
	.step = BkDuolStep,
};

const BkLearner bk_learner_bduol = {
	.id = BK_ALG_BDUOL, .name = "bduol",
	.source = "paper 001 §3: budget maintenance by eq. 7, eq. 8, eq. 9-12, eq. 13-14",
	.params = BK_TAKES(BUDGET) | BK_TAKES(C) | BK_TAKES(RHO) |
	BK_TAKES(MAINTENANCE),
	.params_mutable = BK_TAKES(RHO),
	.param_defaults = bduol_param_defaults,
	.check_params = bduol_check_params,
	.keeps = BK_KEEP_SCORES,
	.dual_box = true,
	.keeps_for = bduol_keeps,
	.step = BkDuolStep,
};
