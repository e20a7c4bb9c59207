/*
 * bk_boxqp.c
 *	  The projection of one SV onto the others under a box on the
 *	  coefficient changes: the QP of paper 001 eq. 8, which BDUOL's
 *	  "projection" solves exactly and whose unconstrained solution (eq. 9)
 *	  its "approx_projection" clips.  Written for BDUOL; nothing in it is
 *	  BDUOL's own, so any learner that projects under bounds can use it.
 *
 *	  With K the kernel matrix of the n SVs and G = K^-1, the projection of
 *	  k(x_j, .) onto the others is a_P = -c_j G_Pj / G_jj, and the inverse
 *	  of K without row and column j is G_PP - G_Pj G_jP / G_jj: every
 *	  candidate j costs O(n) unconstrained and O(n^2) per active-set step.
 */
#include "bk_internal.h"

#include <string.h>

/*
 * K^-1 by Cholesky.  If K is not numerically positive definite (two SVs at
 * the same point), a ridge of 1e-10 x the largest diagonal, grown by 100
 * up to 4 times, is added (BkSpdInverse); false if even that fails.
 */
bool
BkBoxQpInvert(const BkEnv *env, BkBoxQp *w)
{
	return BkSpdInverse(env, w->K, w->G, w->n, 4);
}

/*
 * Column k of H = (K without j)^-1 into h (h_i for every i, h_j = 0):
 * H_ik = G_ik - G_ij G_jk / G_jj.  G is exactly symmetric (BkLinCholInverse
 * writes both triangles with one value), so G_ik and G_ij are read from
 * rows k and j, contiguous: the same values, the same bits.  A column
 * depends on j and k alone, so a solve computes it once, when k first
 * joins the fixed set.
 */
static void
h_column(const BkBoxQp *w, int j, int k, double *h)
{
	int			n = w->n;
	const double *gk = w->G + (size_t) k * n;
	const double *gj = w->G + (size_t) j * n;
	const double gjk = gj[k];
	const double gjj = gj[j];

	for (int i = 0; i < n; i++)
		h[i] = gk[i] - gj[i] * gjk / gjj;
	h[j] = 0.0;
}

/*
 * The box QP of eq. 8 for candidate j, in coefficient space (a_i = beta_i
 * y_i, the change of SV i's coefficient):
 *
 *     min  a' K_PP a / 2 - a' t,   t = c_j K_Pj,   lo <= a <= hi,
 *
 * P the SVs but j.  Primal active-set method (Nocedal and Wright,
 * Numerical Optimization, Algorithm 16.3) started at the clipped
 * unconstrained solution, which is feasible: with the fixed set S held at
 * its bounds, the minimiser is a* = a_u + H_PS mu with mu = H_SS^-1 (v_S -
 * a_u,S) (a_u = H t, H = K_PP^-1), and mu is the gradient on S, so its
 * sign tells which bound to release.  K_PP is positive definite, so the
 * method ends; an iteration cap guards against cycling under rounding,
 * keeping the best feasible point reached.  Returns false if a step
 * failed (H_SS not positive definite in floating point).
 */
bool
BkBoxQpSolve(const BkEnv *env, BkBoxQp *w, int j)
{
	int			n = w->n;
	double	   *a = w->a;
	double	   *au = w->astar;	/* a* of the current fixed set */
	int			max_iter = 4 * n + 10;
	int			factored = 0;	/* members of the fixed set M's factor holds */

	/* start: the clipped unconstrained solution, clipped ones fixed */
	for (int i = 0; i < n; i++)
	{
		if (i == j)
		{
			w->state[i] = 2;
			continue;
		}
		if (a[i] <= w->lo[i])
		{
			a[i] = w->lo[i];
			w->state[i] = -1;
		}
		else if (a[i] >= w->hi[i])
		{
			a[i] = w->hi[i];
			w->state[i] = 1;
		}
		else
			w->state[i] = 0;
	}

	for (int i = 0; i < n; i++)
		w->have[i] = 0;
	for (int iter = 0; iter < max_iter; iter++)
	{
		int			s = 0;
		int			same = 0;
		double		step = 1.0;
		int			block = -1;

		BkCheckInterrupts(env);
		/*
		 * The fixed set in index order; its first "same" members are those
		 * of the last factorisation, whose rows of the factor of H_SS stay
		 * valid (row q depends on the leading q + 1 members alone)
		 */
		for (int i = 0; i < n; i++)
			if (w->state[i] == -1 || w->state[i] == 1)
			{
				if (s == same && s < factored && w->fixed[s] == i)
					same++;
				w->fixed[s++] = i;
			}

		/*
		 * a* = a_u + H_PS mu, mu = H_SS^-1 (v_S - a_u,S); a_u = -c_j G_Pj / G_jj
		 * is in Ka.  H's column k is HS[k][.] (h_column); H_SS in M, stride n,
		 * its factor in M's lower triangle.
		 */
		for (int i = 0; i < n; i++)
			au[i] = w->Ka[i];	/* Ka holds a_u during the solve */
		if (s > 0)
		{
			for (int q = 0; q < s; q++)
			{
				int			k = w->fixed[q];

				if (!w->have[k])
				{
					h_column(w, j, k, w->HS + (size_t) k * n);
					w->have[k] = 1;
				}
				w->mu[q] = a[k] - w->Ka[k];
			}
			/* H_SS's upper triangle: M[q][r] = H_(fixed q)(fixed r), r >= q */
			for (int q = 0; q < s; q++)
				for (int r = q > same ? q : same; r < s; r++)
					w->M[(size_t) q * n + r] =
						w->HS[(size_t) w->fixed[r] * n + w->fixed[q]];
			/* mu = H_SS^-1 mu by Cholesky (bk_linalg.c), rows < same kept */
			factored = 0;
			if (!BkLinCholeskyFrom(w->M, n, w->M, n, s, same))
				return false;
			factored = s;
			BkLinCholSolve(w->M, n, s, w->mu);
			/*
			 * au_i += H_ik mu_q in order of q, for every i (H_jk = 0), four
			 * i at a time in registers
			 */
			{
				int			i = 0;

				for (; i + 4 <= n; i += 4)
				{
					double		u0 = au[i],
								u1 = au[i + 1],
								u2 = au[i + 2],
								u3 = au[i + 3];

					for (int q = 0; q < s; q++)
					{
						const double *h = w->HS + (size_t) w->fixed[q] * n + i;
						const double m = w->mu[q];

						u0 += h[0] * m;
						u1 += h[1] * m;
						u2 += h[2] * m;
						u3 += h[3] * m;
					}
					au[i] = u0;
					au[i + 1] = u1;
					au[i + 2] = u2;
					au[i + 3] = u3;
				}
				for (; i < n; i++)
					for (int q = 0; q < s; q++)
						au[i] += w->HS[(size_t) w->fixed[q] * n + i] * w->mu[q];
			}
			au[j] = w->Ka[j];
			/* exactly at the bounds */
			for (int q = 0; q < s; q++)
				au[w->fixed[q]] = a[w->fixed[q]];
		}
		else
			factored = 0;

		/* the longest step towards a* that stays in the box */
		for (int i = 0; i < n; i++)
		{
			double		d,
						lim;

			if (w->state[i] != 0)
				continue;
			d = au[i] - a[i];
			if (d < 0.0 && au[i] < w->lo[i])
				lim = (w->lo[i] - a[i]) / d;
			else if (d > 0.0 && au[i] > w->hi[i])
				lim = (w->hi[i] - a[i]) / d;
			else
				continue;
			if (lim < step)
			{
				step = lim;
				block = i;
			}
		}
		if (block >= 0)
		{
			for (int i = 0; i < n; i++)
				if (w->state[i] == 0)
					a[i] += step * (au[i] - a[i]);
			a[block] = au[block] < w->lo[block] ? w->lo[block] : w->hi[block];
			w->state[block] = au[block] < w->lo[block] ? -1 : 1;
			continue;
		}

		/* a* is feasible: optimal unless a multiplier has the wrong sign */
		for (int i = 0; i < n; i++)
			if (w->state[i] == 0)
				a[i] = au[i];
		{
			int			release = -1;
			double		worst = 0.0;

			for (int q = 0; q < s; q++)
			{
				/* gradient mu: >= 0 at a lower bound, <= 0 at an upper one */
				double		viol = w->state[w->fixed[q]] == -1 ? -w->mu[q] : w->mu[q];

				if (viol > worst * (1.0 + 1e-12) + 1e-14)
				{
					worst = viol;
					release = w->fixed[q];
				}
			}
			if (release < 0)
				return true;
			w->state[release] = 0;
		}
	}
	return true;					/* the cap: the feasible point reached */
}

/*
 * eq. 9 for candidate j: a_P = -c_j G_Pj / G_jj into w->a, and a copy in
 * w->Ka (the active-set method's a_u).
 */
void
BkBoxQpStart(double c, BkBoxQp *w, int j)
{
	int			n = w->n;
	double		gjj = w->G[(size_t) j * n + j];

	for (int i = 0; i < n; i++)
		w->Ka[i] = i == j ? 0.0 : -c * w->G[(size_t) i * n + j] / gjj;
	memcpy(w->a, w->Ka, sizeof(double) * n);
}

/* Scratch of one projection step for n SVs: one block of doubles, and ints. */
double *
BkBoxQpAlloc(const BkEnv *env, BkBoxQp *w, int n)
{
	size_t		nn = (size_t) n * n;
	double	   *block = BkAllocArray(env, 4 * nn + 8 * (size_t) n, sizeof(double));

	w->n = n;
	w->K = block;
	w->G = w->K + nn;
	w->HS = w->G + nn;
	w->M = w->HS + nn;
	w->a = w->M + nn;
	w->abest = w->a + n;
	w->astar = w->abest + n;
	w->lo = w->astar + n;
	w->hi = w->lo + n;
	w->mu = w->hi + n;
	w->Ka = w->mu + n;
	w->state = BkAllocArray(env, 3 * (size_t) n, sizeof(int));
	w->fixed = w->state + n;
	w->have = w->fixed + n;
	return block;
}

/*
 * The exact projection of eq. 8 on its own, for the unit tests: K (n x n,
 * row-major) the kernel matrix, j the SV projected with coefficient c,
 * lo / hi the bounds of the others' coefficient changes; a gets the
 * changes (a_j = 0).  False if K is not positive definite or a step fails.
 */
bool
BkBoxQpProject(const BkEnv *env, const double *K, int n, int j, double c,
			 const double *lo, const double *hi, double *a)
{
	BkBoxQp	w;
	double	   *block = BkBoxQpAlloc(env, &w, n);
	bool		ok;

	memcpy(w.K, K, sizeof(double) * (size_t) n * n);
	memcpy(w.lo, lo, sizeof(double) * n);
	memcpy(w.hi, hi, sizeof(double) * n);
	ok = BkBoxQpInvert(env, &w);
	if (ok)
	{
		BkBoxQpStart(c, &w, j);
		ok = BkBoxQpSolve(env, &w, j);
		w.a[j] = 0.0;
		memcpy(a, w.a, sizeof(double) * n);
	}
	BkFree(env, w.state);
	BkFree(env, block);
	return ok;
}
