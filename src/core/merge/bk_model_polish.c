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
 *	  The RKHS distance weighs every direction of the feature space
 *	  alike, while a classifier is judged where the data lie; so the
 *	  objective adds the squared differences of the two functions at the
 *	  union's SVs, the parts' own points (P: all n_t of them up to
 *	  POLISH_POINTS_PER_SV per merged SV, else every stride-th):
 *
 *	      J(Z) = min_b ||f - g||^2 + mu sum_{p in P} ||f(p) - g(p)||^2,
 *	      b(Z) = (M + r I)^-1 (K_zt c + mu K_zp f(P)),
 *	      M = K_zz + mu K_zp K_pz,                 (mu = POLISH_POINT_WEIGHT)
 *
 *	  whose gradient in z_j adds mu sum_p u_jp (z_j - p) inside the
 *	  bracket above, u_jp = (b_j . (g(p) - f(p))) k(z_j, p).  K_zp is
 *	  columns of K_zt, so the points cost no kernel rows: only M's n^2 n_p.
 *
 *	  The positions take steps of gradient descent with a backtracking
 *	  (Armijo) line search, each step re-solving b, so J never grows.  The
 *	  first step moves an SV by about a tenth of the kernel's width
 *	  (1 / sqrt(gamma)); each later one first tries twice the step last
 *	  accepted.  At most POLISH_STEPS steps, within POLISH_MAX_WORK
 *	  multiply-adds of kernel rows, Gram products and Cholesky factors for
 *	  the whole model (BkModelPolish: a merge of two, a parallel combine),
 *	  or POLISH_MACHINE_WORK for each machine and POLISH_FINAL_WORK for
 *	  all (BkModelPolishEachMachine: the one-vs-rest model that bk_merge's
 *	  final function keeps).  A float4 model's positions are rounded to
 *	  float4 at each trial, so what is judged is what is stored.
 *
 *	  Measured on the parts of the merge page (B = 100, 2 parts, 10 orders,
 *	  test/bench/merge/orders.sql): usps Pegasos 0.61 points below serial
 *	  with the distance alone, 0.44 with the points; a9a and covtype20k
 *	  Pegasos within 0.02 of where they were; usps BPA-NN, whose ten
 *	  machines had no step under the shared bound, 0.86 below, 0.23 with
 *	  a bound for each machine (doc/merge-accuracy.md).
 *
 *	  Every sum is taken in a fixed order (BkDot, BkLinGemv, BkLinSyrkUpper,
 *	  BkLinSymvUpper, the kernel rows of bk_kernel.c, BkLinCholesky, and
 *	  loops in increasing index),
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
 * BkModelPolishEachMachine's bounds, for the model bk_merge's final
 * function keeps: 2^29 for each machine (about 0.15 s; a one-vs-rest
 * model's ten machines sharing POLISH_MAX_WORK were never polished, as
 * one step is about 2^25 at usps' 256 features and a union of two parts),
 * and 2^33 over the machines (about two seconds) so that many classes
 * do not multiply it.  usps BPA-NN, 2 parts, 10 orders: 0.86 point below
 * serial without, 0.46 at 2^28 a machine, 0.23 at 2^29, 0.22 at 2^30
 * (0.31 at 2^32 over its ten machines, 0.43 x 2^30 each).
 */
#define POLISH_MACHINE_WORK ((int64_t) 1 << 29)
#define POLISH_FINAL_WORK ((int64_t) 1 << 33)
/*
 * the most kernel values held, B (B + n_t) for a machine of B SVs and a
 * union of n_t (32 MB): a larger union is not polished
 */
#define POLISH_MAX_VALUES ((int64_t) 1 << 22)
/*
 * the weight mu of the points' term of the objective (1: a point's
 * squared difference counts as much as the squared distance in the
 * feature space, which bounds it, |h(p)| <= ||h|| where k(p, p) = 1;
 * on usps Pegasos at 2 parts, 3 orders, mu = 0.1, 3 and 10 gained less
 * and 100 lost), and the points per
 * SV of the merged machine (a union of up to twice the budget, the merge
 * of two parts, is matched at each of its SVs; a larger one at every
 * stride-th)
 */
#define POLISH_POINT_WEIGHT 1.0
#define POLISH_POINTS_PER_SV 2
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
	int			np;				/* the points of the union matched: n_p */
	int			stride;			/* point q is the union's SV q * stride */
	double	   *f;				/* the average at the points by class: K x n_p */
	double	   *kzp;			/* n x n_p, columns of kzt */
	double	   *gram;			/* K_zz + mu K_zp K_pz, upper triangle: n x n */
	double	   *res;			/* g - f at the points by class: K x n_p */
	double	   *b;				/* the coefficients by class: K x n */
	double	   *r;				/* K_zt c by class: K x n */
	double	   *chol;			/* n x n */
	double	   *dots;			/* max(n, n_t) */
	double	   *tmp;			/* n */
	int64_t		work;			/* multiply-adds spent */
} Polish;

/*
 * The kernel rows of z's positions against themselves and the target,
 * b(Z), and tr(b' M b) - 2 tr(b' r) = J(Z) - ||f||^2 - mu ||f(P)||^2 with
 * M = K_zz + mu K_zp K_pz and r = K_zt c + mu K_zp f(P); false if
 * M + r diag(K_zz) is not positive definite
 */
static bool
evaluate(Polish *w, const BkMachine *z, double *objective)
{
	int			n = w->n,
				nt = w->t->n_sv,
				np = w->np;
	double		d = 0.0;

	for (int j = 0; j < n; j++)
	{
		const double *x = BkSvRow(z, j);
		double	   *kt = w->kzt + (size_t) j * nt;

		BkKernelRow(w->p, z, w->dim, x, z->sqnorm[j], w->dots, w->kzz + (size_t) j * n);
		BkKernelRow(w->p, w->t, w->dim, x, z->sqnorm[j], w->dots, kt);
		for (int q = 0; q < np; q++)
			w->kzp[(size_t) j * np + q] = kt[(size_t) q * w->stride];
	}
	/* M's upper triangle, and its factor with the ridge in place of a copy */
	BkLinSyrkUpper(n, np, w->kzp, np, w->gram, n);
	for (int j = 0; j < n; j++)
		for (int l = j; l < n; l++)
			w->gram[(size_t) j * n + l] = w->kzz[(size_t) j * n + l] +
				POLISH_POINT_WEIGHT * w->gram[(size_t) j * n + l];
	w->work += (int64_t) n * (n + nt) * w->dim + (int64_t) n * n * np / 2 +
		(int64_t) n * n * n / 3;
	memcpy(w->chol, w->gram, sizeof(double) * (size_t) n * n);
	for (int j = 0; j < n; j++)
		w->chol[(size_t) j * n + j] += BK_GRAM_RIDGE * w->kzz[(size_t) j * n + j];
	if (!BkLinCholesky(w->chol, n, w->chol, n, n))
		return false;
	for (int c = 0; c < w->K; c++)
	{
		double	   *bc = w->b + (size_t) c * n,
				   *rc = w->r + (size_t) c * n;

		BkLinGemv(n, nt, w->kzt, nt, w->ct + (size_t) c * nt, rc);
		BkLinGemv(n, np, w->kzp, np, w->f + (size_t) c * np, w->tmp);
		for (int j = 0; j < n; j++)
			rc[j] += POLISH_POINT_WEIGHT * w->tmp[j];
		memcpy(bc, rc, sizeof(double) * (size_t) n);
		BkLinCholSolve(w->chol, n, n, bc);
		BkLinSymvUpper(n, w->gram, n, bc, w->tmp);
		d += BkDot(bc, w->tmp, n) - 2.0 * BkDot(bc, rc, n);
	}
	w->work += (int64_t) w->K * n * (nt + 2 * np + 2 * n);
	*objective = d;
	return isfinite(d);
}

/*
 * g - f at the points (after evaluate(z)) into res; returns its squared
 * norm, over the classes
 */
static double
residual(Polish *w)
{
	int			n = w->n,
				np = w->np;
	double		sum = 0.0;

	for (int c = 0; c < w->K; c++)
	{
		const double *bc = w->b + (size_t) c * n;

		for (int q = 0; q < np; q++)
		{
			double		g = 0.0,
						e;

			for (int j = 0; j < n; j++)
				g += w->kzp[(size_t) j * np + q] * bc[j];
			e = g - w->f[(size_t) c * np + q];
			w->res[(size_t) c * np + q] = e;
			sum += e * e;
		}
	}
	w->work += (int64_t) w->K * n * np;
	return sum;
}

/* dJ/dZ at z (after evaluate(z)) into grad (n x dim); returns its ||.||^2 */
static double
gradient(Polish *w, const BkMachine *z, double *grad)
{
	int			n = w->n,
				nt = w->t->n_sv,
				np = w->np,
				dim = w->dim,
				K = w->K;
	double		norm2 = 0.0;

	residual(w);
	for (int j = 0; j < n; j++)
	{
		double	   *g = grad + (size_t) j * dim;
		const double *zj = BkSvRow(z, j);
		double		s = 0.0;

		/*
		 * g = sum_i v_ji t_i - sum_l w_jl z_l - mu sum_q u_jq p_q,
		 * s = sum_l w_jl - sum_i v_ji + mu sum_q u_jq
		 */
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
		for (int q = 0; q < np; q++)
		{
			double		br = 0.0,
						ujq;
			const double *pq = BkSvRow(w->t, q * w->stride);

			for (int c = 0; c < K; c++)
				br += w->b[(size_t) c * n + j] * w->res[(size_t) c * np + q];
			ujq = POLISH_POINT_WEIGHT * br * w->kzp[(size_t) j * np + q];
			s += ujq;
			for (int e = 0; e < dim; e++)
				g[e] -= ujq * pq[e];
		}
		/* -4 gamma (s z_j + g) */
		for (int e = 0; e < dim; e++)
		{
			g[e] = -4.0 * w->p->gamma * (s * zj[e] + g[e]);
			norm2 += g[e] * g[e];
		}
	}
	w->work += (int64_t) n * (n + nt + np) * (dim + K);
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
 * machine unchanged).  A machine moved adds its points and its squared
 * differences from u's at them, before and after, to report.
 */
static int
polish_machine(BkModel *m, const BkModel *u, int k, int64_t max_work,
			   BkPolishReport *report)
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

	memset(&w, 0, sizeof(w));
	w.p = &m->params;
	w.dim = dim;
	w.K = K;
	w.t = t;
	w.n = n;
	w.stride = (nt + POLISH_POINTS_PER_SV * n - 1) / (POLISH_POINTS_PER_SV * n);
	w.np = (nt + w.stride - 1) / w.stride;
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
	w.kzp = BkAllocArray(env, (size_t) n * w.np, sizeof(double));
	w.gram = BkAllocArray(env, (size_t) n * n, sizeof(double));
	w.f = BkAllocArray(env, (size_t) K * w.np, sizeof(double));
	w.res = BkAllocArray(env, (size_t) K * w.np, sizeof(double));
	grad = BkAllocArray(env, (size_t) n * dim, sizeof(double));
	/* the average at the points: its kernel row of each, by class */
	{
		double	   *row = BkAllocArray(env, (size_t) nt, sizeof(double));

		for (int q = 0; q < w.np; q++)
		{
			int			i = q * w.stride;

			BkKernelRow(w.p, t, dim, BkSvRow(t, i), t->sqnorm[i], w.dots, row);
			for (int c = 0; c < K; c++)
				w.f[(size_t) c * w.np + q] = BkDot(row, w.ct + (size_t) c * nt, nt);
		}
		BkFree(env, row);
		w.work += (int64_t) w.np * nt * (dim + K);
	}
	BkMachineInit(env, &z, dim, K, n);
	BkMachineInit(env, &trial, dim, K, n);
	for (int j = 0; j < n; j++)
		BkMachineAppend(&z, dim, BkSvRow(mk, j), mk->sqnorm[j], 0.0);

	if (evaluate(&w, &z, &obj))
	{
		/* whether w holds z's kernel rows and b (not a refused trial's) */
		bool		current = true;

		double		before = residual(&w);

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
			report->points += w.np;
			report->before += before;
			report->after += residual(&w);
			BkMergeInstall(m, k, &z);
		}
		else
			steps = 0;
	}
	BkMachineFree(env, &trial);
	BkMachineFree(env, &z);
	BkFree(env, grad);
	BkFree(env, w.res);
	BkFree(env, w.f);
	BkFree(env, w.gram);
	BkFree(env, w.kzp);
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

/*
 * m's machines moved towards u's, each within at most each multiply-adds
 * and all of them within total: a machine gets the smaller of each and
 * its share of total
 */
static bool
polish_within(BkModel *m, const BkModel *u, int64_t each, int64_t total,
			  BkPolishReport *report)
{
	int64_t		per_machine;

	memset(report, 0, sizeof(*report));
	if (m->params.kernel != BK_KERNEL_RBF || !BkModelPlainMachines(m) ||
		u->n_machines != m->n_machines || u->dim != m->dim || m->n_machines == 0)
		return false;
	per_machine = total / m->n_machines < each ? total / m->n_machines : each;
	for (int k = 0; k < m->n_machines; k++)
	{
		int			steps;
		int64_t		n = m->machines[k].n_sv,
					nt = u->machines[k].n_sv,
					np = nt < POLISH_POINTS_PER_SV * n ? nt : POLISH_POINTS_PER_SV * n,
					values = n * (2 * n + nt + np);

		/*
		 * a machine that holds as many SVs as the union has distinct ones
		 * was never reduced: it is the average (identical SVs combined, as
		 * the merge combines them); one too large for a few steps within
		 * the bounds is left
		 */
		if (u->machines[k].n_sv <= n || n < (int64_t) m->params.budget ||
			values > POLISH_MAX_VALUES ||
			4 * (n * (n + nt) * m->dim + n * n * np / 2 + n * n * n / 3) > per_machine ||
			distinct_rows(&m->env, &u->machines[k], m->dim) <= n)
			continue;
		steps = polish_machine(m, u, k, per_machine, report);
		report->machines += steps > 0;
		report->steps += steps;
	}
	return report->machines > 0;
}

bool
BkModelPolish(BkModel *m, const BkModel *u, BkPolishReport *report)
{
	return polish_within(m, u, POLISH_MAX_WORK, POLISH_MAX_WORK, report);
}

bool
BkModelPolishEachMachine(BkModel *m, const BkModel *u, BkPolishReport *report)
{
	return polish_within(m, u, POLISH_MACHINE_WORK, POLISH_FINAL_WORK, report);
}
