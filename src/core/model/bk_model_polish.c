/*
 * bk_model_polish.c
 *	  The reduced-set refinement of a merge of Gaussian-kernel models: the
 *	  merged machine's support vectors move towards the exact average of
 *	  the parts (doc/distributed.md, "How bk_merge reduces"; measured in
 *	  doc/merge-accuracy.md).
 *
 *	  A merge folds the parts' SVs into the budget by projecting one at a
 *	  time onto the others (paper 004 §4.2, bk_model_merge.c): each kept
 *	  SV stays where a part put it, and only the coefficients absorb what
 *	  was removed.  With f = sum_i c_i k(t_i, .) the average (the union u,
 *	  n_t SVs t_i, coefficient vectors c_i over the classes) and
 *	  g = sum_j b_j k(z_j, .) the merged machine (B SVs z_j), the reduced
 *	  set method of Burges (1996, "Simplified support vector decision
 *	  rules") and Schölkopf et al. (1999, "Input space versus feature space
 *	  in kernel-based methods", §IV) minimises over the positions as well:
 *
 *	      D(Z) = min_b ||f - g||^2
 *	           = ||f||^2 + tr(b' K_zz b) - 2 tr(b' K_zt c),
 *	      b(Z) = (K_zz + r I)^-1 K_zt c          (r = BK_GRAM_RIDGE)
 *
 *	  For the Gaussian kernel k(z, t) = exp(-gamma ||z - t||^2), with b
 *	  at its optimum (so its own derivative drops out), the gradient in
 *	  z_j is
 *
 *	      dD/dz_j = -4 gamma [ sum_l w_jl (z_j - z_l) - sum_i v_ji (z_j - t_i) ],
 *	      w_jl = (b_j . b_l) k(z_j, z_l),   v_ji = (b_j . c_i) k(z_j, t_i),
 *
 *	  and the positions take steps of gradient descent with a backtracking
 *	  (Armijo) line search, each step re-solving b, so D never grows.  The
 *	  first step moves an SV by about a tenth of the kernel's width
 *	  (1 / sqrt(gamma)); each later one first tries twice the step last
 *	  accepted.  At most POLISH_STEPS steps, within POLISH_MAX_WORK
 *	  multiply-adds of kernel rows and Cholesky factors for the whole
 *	  model.  A float4 model's
 *	  positions are rounded to float4 at each trial, so what is judged is
 *	  what is stored.
 *
 *	  Measured on the parts of the merge page (B = 100, 2 parts, 3 orders,
 *	  100 steps, in numpy): usps Pegasos from 1.23 points below serial to
 *	  0.50, covtype20k Pegasos from 0.64 to 0.13 below; BPA-NN within 0.2
 *	  of where it was (doc/merge-accuracy.md).
 *
 *	  Every sum is taken in a fixed order (BkDot, BkLinGemv, the kernel
 *	  rows of bk_kernel.c, BkLinCholesky, and loops in increasing index),
 *	  so the positions are the same bits on every CPU.
 */
#include "bk_learner.h"
#include "bk_distil.h"

#include <math.h>
#include <string.h>

/* the most steps of gradient descent (the gain of 100 is nearly all there at 30) */
#define POLISH_STEPS 30
/*
 * the most multiply-adds of kernel rows and factorisations, over the
 * machines (about a tenth of a second; 2^31 made a parallel plan's
 * combine of two ncb1m halves, B = 100, d = 2, cost more than the
 * parallel plan saved)
 */
#define POLISH_MAX_WORK ((int64_t) 1 << 28)
/*
 * the most kernel values held, B (B + n_t) for a machine of B SVs and a
 * union of n_t (32 MB): a larger union is not polished
 */
#define POLISH_MAX_VALUES ((int64_t) 1 << 22)
/* halvings of a step before the line search gives up */
#define POLISH_HALVINGS 30
/* Armijo's sufficient decrease */
#define POLISH_ARMIJO 1e-4

/* One machine's problem: the target (the union's machine) and the work */
typedef struct Polish
{
	const BkParams *p;
	int			dim;
	int			K;				/* coefficients per SV (classes, or 1) */
	const BkMachine *t;			/* the average: n_t SVs */
	double	   *ct;				/* its coefficients by class: K x n_t */
	int			n;				/* the merged machine's SVs, B */
	double	   *kzz;			/* n x n */
	double	   *kzt;			/* n x n_t */
	double	   *b;				/* the coefficients by class: K x n */
	double	   *r;				/* K_zt c by class: K x n */
	double	   *chol;			/* n x n */
	double	   *dots;			/* max(n, n_t) */
	double	   *tmp;			/* n */
	int64_t		work;			/* multiply-adds spent */
} Polish;

/*
 * The kernel rows of z's positions against themselves and the target,
 * b(Z), and tr(b' K_zz b) - 2 tr(b' K_zt c) = D(Z) - ||f||^2; false if
 * K_zz + r I is not positive definite
 */
static bool
evaluate(Polish *w, const BkMachine *z, double *objective)
{
	int			n = w->n,
				nt = w->t->n_sv;
	double		d = 0.0;

	for (int j = 0; j < n; j++)
	{
		const double *x = BkSvRow(z, j);

		BkKernelRow(w->p, z, w->dim, x, z->sqnorm[j], w->dots, w->kzz + (size_t) j * n);
		BkKernelRow(w->p, w->t, w->dim, x, z->sqnorm[j], w->dots, w->kzt + (size_t) j * nt);
	}
	w->work += (int64_t) n * (n + nt) * w->dim + (int64_t) n * n * n / 3;
	/* the factor of K_zz + r diag(K_zz), in place of a copy */
	memcpy(w->chol, w->kzz, sizeof(double) * (size_t) n * n);
	for (int j = 0; j < n; j++)
		w->chol[(size_t) j * n + j] += BK_GRAM_RIDGE * w->kzz[(size_t) j * n + j];
	if (!BkLinCholesky(w->chol, n, w->chol, n, n))
		return false;
	for (int c = 0; c < w->K; c++)
	{
		double	   *bc = w->b + (size_t) c * n,
				   *rc = w->r + (size_t) c * n;

		BkLinGemv(n, nt, w->kzt, nt, w->ct + (size_t) c * nt, rc);
		memcpy(bc, rc, sizeof(double) * (size_t) n);
		BkLinCholSolve(w->chol, n, n, bc);
		BkLinGemv(n, n, w->kzz, n, bc, w->tmp);
		d += BkDot(bc, w->tmp, n) - 2.0 * BkDot(bc, rc, n);
	}
	*objective = d;
	return isfinite(d);
}

/* dD/dZ at z (after evaluate(z)) into grad (n x dim); returns its ||.||^2 */
static double
gradient(Polish *w, const BkMachine *z, double *grad)
{
	int			n = w->n,
				nt = w->t->n_sv,
				dim = w->dim,
				K = w->K;
	double		norm2 = 0.0;

	for (int j = 0; j < n; j++)
	{
		double	   *g = grad + (size_t) j * dim;
		const double *zj = BkSvRow(z, j);
		double		s = 0.0;

		/* g = sum_i v_ji t_i - sum_l w_jl z_l, s = sum_l w_jl - sum_i v_ji */
		memset(g, 0, sizeof(double) * (size_t) dim);
		for (int l = 0; l < n; l++)
		{
			double		bb = 0.0,
						wjl;
			const double *zl = BkSvRow(z, l);

			for (int c = 0; c < K; c++)
				bb += w->b[(size_t) c * n + j] * w->b[(size_t) c * n + l];
			wjl = bb * w->kzz[(size_t) j * n + l];
			s += wjl;
			for (int e = 0; e < dim; e++)
				g[e] -= wjl * zl[e];
		}
		for (int i = 0; i < nt; i++)
		{
			double		bc = 0.0,
						vji;
			const double *ti = BkSvRow(w->t, i);

			for (int c = 0; c < K; c++)
				bc += w->b[(size_t) c * n + j] * w->ct[(size_t) c * nt + i];
			vji = bc * w->kzt[(size_t) j * nt + i];
			s -= vji;
			for (int e = 0; e < dim; e++)
				g[e] += vji * ti[e];
		}
		/* -4 gamma (s z_j - sum_l w_jl z_l + sum_i v_ji t_i) */
		for (int e = 0; e < dim; e++)
		{
			g[e] = -4.0 * w->p->gamma * (s * zj[e] + g[e]);
			norm2 += g[e] * g[e];
		}
	}
	w->work += (int64_t) n * (n + nt) * dim;
	return norm2;
}

/* to = from - step grad, rounded as the model stores its SVs; false if out of range */
static bool
step_to(const Polish *w, const BkMachine *from, const double *grad, double step,
		BkMachine *to)
{
	bool		ok = true;

	for (int j = 0; j < w->n; j++)
	{
		double	   *x = BkSvRow(to, j);
		const double *x0 = BkSvRow(from, j);
		const double *g = grad + (size_t) j * w->dim;

		for (int e = 0; e < w->dim; e++)
			x[e] = x0[e] - step * g[e];
		if (w->p->sv_precision == BK_SV_FLOAT4)
			ok &= BkSvRound(x, w->dim);
		for (int e = 0; e < w->dim; e++)
			ok &= isfinite(x[e]) != 0;
		to->sqnorm[j] = BkDot(x, x, w->dim);
	}
	to->n_sv = w->n;
	return ok;
}

/* the distinct SVs of mach (their bytes) */
static int
distinct_rows(const BkEnv *env, const BkMachine *mach, int dim)
{
	size_t		cap;
	int		   *table = BkRowTableNew(env, (size_t) mach->n_sv, &cap);
	int			n = 0;

	for (int j = 0; j < mach->n_sv; j++)
	{
		bool		found;
		size_t		h = BkRowSlot(table, cap, mach, BkSvRow(mach, j), dim, &found);

		if (!found)
		{
			table[h] = j;
			n++;
		}
	}
	BkFree(env, table);
	return n;
}

/*
 * Machine k of m moved towards machine k of u; the steps taken (0: m's
 * machine unchanged).  held: ||g||^2 before and after (the squared norm
 * of the projection of f that the machine holds, -D + ||f||^2).
 */
static int
polish_machine(BkModel *m, const BkModel *u, int k, int64_t max_work,
			   double *held_before, double *held_after)
{
	const BkMachine *mk = &m->machines[k];
	const BkMachine *t = &u->machines[k];
	int			n = mk->n_sv,
				nt = t->n_sv,
				dim = m->dim,
				K = mk->n_coef,
				steps = 0;
	Polish		w;
	BkMachine	z,
				trial;
	double	   *grad,
				obj,
				obj_trial,
				norm2,
				step = 0.0;
	const BkEnv *env = &m->env;

	*held_before = *held_after = 0.0;
	memset(&w, 0, sizeof(w));
	w.p = &m->params;
	w.dim = dim;
	w.K = K;
	w.t = t;
	w.n = n;
	w.ct = BkAllocArray(env, (size_t) K * nt, sizeof(double));
	for (int i = 0; i < nt; i++)
		for (int c = 0; c < K; c++)
			w.ct[(size_t) c * nt + i] = t->scale * t->coef[(size_t) i * K + c];
	w.kzz = BkAllocArray(env, (size_t) n * n, sizeof(double));
	w.chol = BkAllocArray(env, (size_t) n * n, sizeof(double));
	w.kzt = BkAllocArray(env, (size_t) n * nt, sizeof(double));
	w.b = BkAllocArray(env, (size_t) K * n, sizeof(double));
	w.r = BkAllocArray(env, (size_t) K * n, sizeof(double));
	w.dots = BkAllocArray(env, (size_t) (n > nt ? n : nt), sizeof(double));
	w.tmp = BkAllocArray(env, (size_t) n, sizeof(double));
	grad = BkAllocArray(env, (size_t) n * dim, sizeof(double));
	BkMachineInit(env, &z, dim, K, n);
	BkMachineInit(env, &trial, dim, K, n);
	for (int j = 0; j < n; j++)
		BkMachineAppend(&z, dim, BkSvRow(mk, j), mk->sqnorm[j], 0.0);

	if (evaluate(&w, &z, &obj))
	{
		/* whether w holds z's kernel rows and b (not a refused trial's) */
		bool		current = true;

		*held_before = *held_after = -obj;
		while (steps < POLISH_STEPS && w.work < max_work)
		{
			bool		taken = false;

			norm2 = gradient(&w, &z, grad);
			if (!(norm2 > 0.0) || !isfinite(norm2))
				break;
			/* the first step moves an SV by about a tenth of the kernel's width */
			step = step > 0.0 ? 2.0 * step : 0.1 / sqrt(m->params.gamma * norm2 / n);
			for (int h = 0; h < POLISH_HALVINGS && w.work < max_work; h++, step /= 2.0)
			{
				if (!step_to(&w, &z, grad, step, &trial))
					continue;
				current = false;
				if (evaluate(&w, &trial, &obj_trial) &&
					obj_trial <= obj - POLISH_ARMIJO * step * norm2)
				{
					taken = true;
					break;
				}
			}
			if (!taken)
				break;
			/* the trial becomes the machine; evaluate() left its b and K's */
			{
				BkMachine	swap = z;

				z = trial;
				trial = swap;
			}
			obj = obj_trial;
			current = true;
			steps++;
			BkCheckInterrupts(env);
		}
		/* the kernel rows and b of z, again if a refused trial's replaced them */
		if (steps > 0 && (current || evaluate(&w, &z, &obj)))
		{
			for (int j = 0; j < n; j++)
				for (int c = 0; c < K; c++)
					z.coef[(size_t) j * K + c] = w.b[(size_t) c * n + j];
			z.scale = 1.0;
			*held_after = -obj;
			BkMergeInstall(m, k, &z);
		}
		else
			steps = 0;
	}
	BkMachineFree(env, &trial);
	BkMachineFree(env, &z);
	BkFree(env, grad);
	BkFree(env, w.tmp);
	BkFree(env, w.dots);
	BkFree(env, w.r);
	BkFree(env, w.b);
	BkFree(env, w.kzt);
	BkFree(env, w.chol);
	BkFree(env, w.kzz);
	BkFree(env, w.ct);
	return steps;
}

bool
BkModelPlainMachines(const BkModel *m)
{
	const BkParams *p = &m->params;

	if (m->target != NULL || m->novelty != NULL || !BkParamsBudgeted(p) ||
		BkLearnerOf(p)->dual_box || BkLearnerOf(p)->predict_score)
		return false;
	for (int k = 0; k < m->n_machines; k++)
		if (m->machines[k].eval != NULL || m->machines[k].born != NULL)
			return false;
	return true;
}

bool
BkModelPolishable(const BkModel *a, const BkModel *b)
{
	bool		over = false;

	if (a->params.kernel != BK_KERNEL_RBF || !BkModelPlainMachines(a) ||
		!BkModelPlainMachines(b) || a->n_machines != b->n_machines)
		return false;
	for (int k = 0; k < a->n_machines; k++)
		over |= a->machines[k].n_sv + b->machines[k].n_sv > (int) a->params.budget;
	return over;
}

bool
BkModelPolish(BkModel *m, const BkModel *u, BkPolishReport *report)
{
	int64_t		per_machine;

	memset(report, 0, sizeof(*report));
	if (m->params.kernel != BK_KERNEL_RBF || !BkModelPlainMachines(m) ||
		u->n_machines != m->n_machines || u->dim != m->dim || m->n_machines == 0)
		return false;
	per_machine = POLISH_MAX_WORK / m->n_machines;
	for (int k = 0; k < m->n_machines; k++)
	{
		double		before,
					after;
		int			steps;

		int64_t		n = m->machines[k].n_sv,
					values = n * (n + u->machines[k].n_sv);

		/*
		 * a machine that holds as many SVs as the union has distinct ones
		 * was never reduced: it is the average (identical SVs combined, as
		 * the merge combines them); one too large for a few steps within
		 * the bounds is left
		 */
		if (u->machines[k].n_sv <= n || n < (int64_t) m->params.budget ||
			values > POLISH_MAX_VALUES ||
			4 * (values * m->dim + n * n * n / 3) > per_machine ||
			distinct_rows(&m->env, &u->machines[k], m->dim) <= n)
			continue;
		steps = polish_machine(m, u, k, per_machine, &before, &after);
		report->machines += steps > 0;
		report->steps += steps;
		report->held_before += before;
		report->held_after += steps > 0 ? after : before;
	}
	return report->machines > 0;
}
