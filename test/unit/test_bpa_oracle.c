/*
 * test_bpa_oracle.c
 *	  Unit tests: every BPA variant against a brute-force oracle.  For each
 *	  candidate r the oracle solves eq. 9 of paper 000 with a dense solve on
 *	  the candidate's set S, forms w^r (eq. 8), evaluates Q(w^r) (eq. 1)
 *	  directly, and the learner's step must produce the minimiser (eq. 7).
 */
#include "bk_test.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* solve K beta = b for symmetric positive definite K (n x n), in place */
static bool
spd_solve(double *K, double *b, int n)
{
	if (n == 0)
		return true;
	return LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', n, 1, K, n, b, 1) == 0;
}

/*
 * Candidates 0..B-1 are the SVs, B is x_t.  For candidate r, set S of the
 * variant (without r), solve eq. 9 and return Q(w^r) and the coefficients
 * of w^r over all B + 1 candidates.
 */
static double
oracle_candidate(const BkParams *p, int B, double **X, const double *alpha,
				 const int *nn, int nn_t, double y, double f, int r,
				 double *wout)
{
	int			S[1024];
	int			ns = 0;
	int			t = B;
	double		Kss[64 * 64],
				kr[64],
				kt[64],
				Kinv_kr[64],
				Kinv_kt[64];
	double		C = p->C;
	double		ar = r == t ? 0.0 : alpha[r];
	double		krt,
				num,
				den,
				tau,
				margin,
				sq,
				h;
	double		delta[65];

	if (p->variant == BK_VARIANT_S)
	{
		if (r != t)
			S[ns++] = t;
	}
	else if (p->variant == BK_VARIANT_NN)
	{
		if (r != t)
		{
			S[ns++] = t;
			if (nn[r] >= 0)
				S[ns++] = nn[r];
		}
		else if (nn_t >= 0)
			S[ns++] = nn_t;
	}
	else
		for (int i = 0; i <= B; i++)
			if (i != r)
				S[ns++] = i;

#define KER(i, j) BkKernelFromDot(p, BkDot(X[i], X[j], 2), BkDot(X[i], X[i], 2), BkDot(X[j], X[j], 2))
	for (int i = 0; i < ns; i++)
	{
		for (int j = 0; j < ns; j++)
			Kss[i * ns + j] = KER(S[i], S[j]);
		kr[i] = r == t ? 0.0 : KER(r, S[i]);
		kt[i] = KER(t, S[i]);
	}
	for (int i = 0; i < ns; i++)
	{
		Kinv_kr[i] = kr[i];
		Kinv_kt[i] = kt[i];
	}
	{
		double		K2[64 * 64];

		memcpy(K2, Kss, sizeof(double) * ns * ns);
		spd_solve(K2, Kinv_kr, ns);
		memcpy(K2, Kss, sizeof(double) * ns * ns);
		spd_solve(K2, Kinv_kt, ns);
	}
	krt = r == t ? 0.0 : KER(r, t);
	/* eq. 9 */
	num = 1.0 - y * (f - ar * krt);
	den = 0.0;
	for (int i = 0; i < ns; i++)
	{
		num -= y * ar * Kinv_kr[i] * kt[i];
		den += Kinv_kt[i] * kt[i];
	}
	tau = den > 1e-12 ? num / den : 0.0;
	tau = tau < 0 ? 0 : (tau > C ? C : tau);

	/* eq. 8: w^r = w_t - alpha_r Phi_r + sum_S beta_i Phi_i */
	for (int i = 0; i <= B; i++)
		delta[i] = 0.0;
	if (r != t)
		delta[r] -= ar;
	for (int i = 0; i < ns; i++)
		delta[S[i]] += ar * Kinv_kr[i] + tau * y * Kinv_kt[i];
	for (int i = 0; i <= B; i++)
		wout[i] = (i < B ? alpha[i] : 0.0) + delta[i];

	/* eq. 1: Q = 1/2 ||delta||^2 + C H(w^r) */
	sq = 0.0;
	margin = 0.0;
	for (int i = 0; i <= B; i++)
	{
		for (int j = 0; j <= B; j++)
			sq += delta[i] * delta[j] * KER(i, j);
		margin += wout[i] * KER(i, t);
	}
	h = 1.0 - y * margin;
#undef KER
	return 0.5 * sq + C * (h > 0 ? h : 0);
}

/*
 * Fill a budget, then for many rows compare the learner's full-budget step
 * with the oracle's minimiser of eq. 7.
 */
void
test_bpa_oracle(const char *variant, const char *loss)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", variant}, {"loss", loss},
	{"budget", "8"}, {"gamma", "3"}, {"C", "0.8"}};
	BkParams	p;
	BkModel    *m;
	BkMachine  *mach;
	BkRng		rng;
	double		xs[2 * 400];
	int64_t		ys[400];
	int			checked = 0,
				agree = 0,
				removed_t = 0;
	double		worst = 0;

	make_params(&p, pp, 6, 2);
	/* the exact eq. 9: BPA-P without its default ridge of K^-1 */
	if (p.variant == BK_VARIANT_P)
		p.ridge = 0.0;
	m = BkModelCreate(&bk_std_env, &p, 2);
	mach = &m->machines[0];
	BkRngSeed(&rng, 11);
	checkerboard(&rng, 400, xs, ys, 0.1);

	for (int i = 0; i < 400; i++)
	{
		int			B = mach->n_sv;
		double		before_alpha[64];
		double		before_x[64][2];
		int			before_nn[64];
		double	   *X[65];
		double		f = 0,
					y;
		double		bestq = INFINITY;
		double		bestw[65] = {0};
		int			nn_t = -1;
		double		nn_d = 0;

		/* labels -1 / 1: the first row decides which class is positive */
		if (B < p.budget || m->n_classes < 2)
		{
			BkModelLearn(m, xs + 2 * i, ys[i]);
			continue;
		}
		y = ys[i] == m->classes[1] ? 1.0 : -1.0;
		for (int j = 0; j < B; j++)
		{
			before_alpha[j] = mach->coef[j];
			before_x[j][0] = mach->sv[2 * j];
			before_x[j][1] = mach->sv[2 * j + 1];
			before_nn[j] = mach->has_nearest ? mach->nearest.idx[j] : -1;
			X[j] = before_x[j];
		}
		X[B] = xs + 2 * i;
		for (int j = 0; j < B; j++)
		{
			double		d = (X[j][0] - X[B][0]) * (X[j][0] - X[B][0]) +
				(X[j][1] - X[B][1]) * (X[j][1] - X[B][1]);

			f += before_alpha[j] * BkKernelFromDot(&p, BkDot(X[j], X[B], 2),
												   BkDot(X[j], X[j], 2), BkDot(X[B], X[B], 2));
			if (nn_t < 0 || d < nn_d)
			{
				nn_t = j;
				nn_d = d;
			}
		}

		BkModelLearn(m, xs + 2 * i, ys[i]);

		if (1 - y * f <= 0 || (p.loss == BK_LOSS_RAMP && fabs(f) > 1))
			continue;			/* no update: nothing to compare */

		for (int r = 0; r <= B; r++)
		{
			double		w[65];
			double		q = oracle_candidate(&p, B, X, before_alpha, before_nn, nn_t,
											 y, f, r, w);

			if (q < bestq - 1e-12)
			{
				bestq = q;
				memcpy(bestw, w, sizeof(w));
			}
		}
		if (fabs(bestw[B]) < 1e-12)
			removed_t++;

		/* the learner's w over the candidates: match SVs by their vector */
		{
			double		err = 0;

			for (int c = 0; c <= B; c++)
			{
				double		have = 0;

				for (int j = 0; j < mach->n_sv; j++)
					if (mach->sv[2 * j] == X[c][0] && mach->sv[2 * j + 1] == X[c][1])
						have = mach->coef[j];
				if (fabs(have - bestw[c]) > err)
					err = fabs(have - bestw[c]);
			}
			checked++;
			if (err < 1e-6)
				agree++;
			if (err > worst)
				worst = err;
		}
	}
	printf("# BPA-%s %s: %d full-budget updates compared, %d chose r = t, worst coefficient error %.3g\n",
		   variant, loss, checked, removed_t, worst);
	CHECK(checked > 20 && agree == checked,
		  "BPA-%s %s: step = argmin_r Q(w^r) of eq. 7-9 in %d of %d full-budget updates (worst coef error %g, %d times r = t)",
		  variant, loss, agree, checked, worst, removed_t);
	CHECK(mach->n_sv <= p.budget, "BPA-%s n_sv <= budget", variant);
	BkModelFree(m);
}
