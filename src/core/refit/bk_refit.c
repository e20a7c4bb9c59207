/*
 * bk_refit.c
 *	  A refit of the coefficients over the kept basis (doc/refit.md).
 *
 *	  The online pass chose each machine's B support vectors z_1..z_B; the
 *	  refit keeps them and the kernel, and solves the batch problem over
 *	  their span exactly: the "subset of regressors" of Williams & Seeger
 *	  (2001, "Using the Nystrom method to speed up kernel machines"), a
 *	  kernel machine over a fixed basis as in Keerthi, Chapelle & DeCoste
 *	  (2006, "Building support vector machines with reduced classifier
 *	  complexity", JMLR 7, eq. 3 with the squared loss).  With
 *	  phi(x) = (k(z_1, x), ..., k(z_B, x), 1) (the 1 for an intercept
 *	  where the model can keep one) and y the row's target, the refit
 *	  minimises over alpha (and the intercept a_0)
 *
 *	      sum_n (y_n - alpha' phi(x_n))^2 + lambda n alpha' K_BB alpha,
 *
 *	  lambda n the ridge of the whole sum (lambda per row, the scale of
 *	  Pegasos' lambda), whose minimum solves
 *
 *	      (A + lambda n K_BB + j I) alpha = b,
 *	      A = sum_n phi(x_n) phi(x_n)',  b = sum_n y_n phi(x_n),
 *
 *	  K_BB bordered by zeros for the intercept (not penalised), and j a
 *	  jitter of REFIT_JITTER times the mean of the diagonal.  A regressor's
 *	  y is its standardised target, (t - mean) / sd, and its intercept
 *	  moves the target's mean; a classifier's heads are ridge regressions
 *	  on +1 / -1 targets (Suykens' least-squares SVM without the equality
 *	  constraint; the squared hinge of Keerthi et al. needs passes that an
 *	  aggregate's one scan does not give, doc/refit.md): one machine of two
 *	  classes, +1 for the second class, its intercept the bias part;
 *	  one-vs-rest machine k, +1 for class k, its intercept class k's bias;
 *	  multi-class Pegasos' one machine, a head per class over the shared
 *	  basis (one A, one b per class), no intercept (its format keeps none).
 *
 *	  One scan: each row adds its kernel rows to b at once and to A through
 *	  a block of REFIT_BLOCK rows (A's upper triangle gains the block's
 *	  products, summed in row order, then added): the same rows in the same
 *	  order give the same bits on any CPU, the sums being fixed-order loops
 *	  built with -ffp-contract=off.  The solve is BkLinCholesky and
 *	  BkLinCholSolve (bk_linalg.c).  Memory: (B + 1)^2 doubles per
 *	  machine, a block, and a copy of the largest system for its factor
 *	  (BkRefitBytes, checked by the caller before anything is allocated).
 */
#include "bk_learner.h"
#include "bk_distil.h"
#include "bk_target.h"
#include "bk_refit.h"

#include <math.h>
#include <string.h>

/* rows whose products A gains at once (a block of phi rows stays in cache) */
#define REFIT_BLOCK 16
/* the jitter on the diagonal, relative to its mean */
#define REFIT_JITTER 1e-10

typedef struct RefitHead
{
	int			nb;				/* basis: the machine's SVs */
	int			np;				/* parameters: nb, + 1 with an intercept */
	int			nt;				/* targets solved over this basis */
	size_t		a_off;			/* np x np, upper triangle */
	size_t		b_off;			/* nt x np */
} RefitHead;

struct BkRefit
{
	const BkEnv *env;
	double		lambda;
	bool		intercept;
	bool		regression;
	bool		multiclass;
	double		mean;			/* a regressor's target standardisation */
	double		sd;
	int			n_heads;		/* machines */
	RefitHead  *heads;
	double	   *sums;			/* every head's A and b */
	size_t		n_sums;
	uint64_t	rows;
	/* the block: its rows' phi for each head, heads' np apart */
	double	   *block;
	size_t		block_ld;		/* sum of the heads' np */
	int			pending;		/* rows in the block */
	double	   *work;			/* dots and kernel row: the largest nb */
	size_t		max_np;
};

const char *
BkRefitRefusal(const BkModel *m)
{
	const BkLearner *L = BkLearnerOf(&m->params);

	if (m->novelty != NULL || m->params.novelty)
		return "a novelty detector has no labels to fit";
	if (L->dual_box)
		return "its coefficients are dual variables in a box";
	if (L->predict_score != NULL || L->sv_weight != NULL)
		return "it predicts with another expansion than its coefficients";
	for (int k = 0; k < m->n_machines; k++)
		if (m->machines[k].eval != NULL || m->machines[k].born != NULL)
			return "it keeps an evaluation set or SV ages, which the coefficients are bound to";
	if (m->target == NULL && m->n_classes == 0)
		return "it has no class";
	return NULL;
}

/* whether m's refit has an intercept: where the format keeps one */
static bool
has_intercept(const BkModel *m)
{
	if (m->target != NULL)
		return m->target->mode == BK_TARGET_STANDARD;
	return !BkLearnerOf(&m->params)->multiclass;
}

static int
heads_of(const BkModel *m, int k)
{
	if (m->target == NULL && BkLearnerOf(&m->params)->multiclass)
		return m->machines[k].n_coef;
	return 1;
}

bool
BkRefitBytes(const BkModel *m, size_t *bytes)
{
	size_t		total = 0,
				ld = 0,
				max_sq = 0;
	int			icpt = has_intercept(m) ? 1 : 0;

	for (int k = 0; k < m->n_machines; k++)
	{
		size_t		np = (size_t) m->machines[k].n_sv + (size_t) icpt;
		size_t		sq,
					b;

		if (!BkMulSize(np, np, &sq) || !BkMulSize(np, (size_t) heads_of(m, k), &b) ||
			!BkAddSize(total, sq, &total) || !BkAddSize(total, b, &total) ||
			!BkAddSize(ld, np, &ld))
			return false;
		if (sq > max_sq)
			max_sq = sq;
	}
	/* the block, the work rows, the solve's copy and its right-hand sides */
	if (!BkAddSize(total, REFIT_BLOCK * ld + 2 * ld, &total) ||
		!BkAddSize(total, 2 * max_sq, &total))
		return false;
	return BkMulSize(total, sizeof(double), bytes);
}

BkRefit *
BkRefitNew(const BkEnv *env, const BkModel *m, double lambda)
{
	BkRefit    *r = BkAllocArray(env, 1, sizeof(BkRefit));
	size_t		off = 0;

	memset(r, 0, sizeof(*r));
	r->env = env;
	r->lambda = lambda;
	r->intercept = has_intercept(m);
	r->regression = m->target != NULL;
	r->multiclass = !r->regression && BkLearnerOf(&m->params)->multiclass;
	r->mean = r->regression ? m->target->mean : 0.0;
	r->sd = r->regression ? m->target->sd : 1.0;
	r->n_heads = m->n_machines;
	r->heads = BkAllocArray(env, (size_t) (m->n_machines > 0 ? m->n_machines : 1),
							sizeof(RefitHead));
	for (int k = 0; k < m->n_machines; k++)
	{
		RefitHead  *h = &r->heads[k];

		h->nb = m->machines[k].n_sv;
		h->np = h->nb + (r->intercept ? 1 : 0);
		h->nt = heads_of(m, k);
		h->a_off = off;
		off += (size_t) h->np * (size_t) h->np;
		h->b_off = off;
		off += (size_t) h->nt * (size_t) h->np;
		r->block_ld += (size_t) h->np;
		if ((size_t) h->np > r->max_np)
			r->max_np = (size_t) h->np;
	}
	r->n_sums = off;
	r->sums = BkAllocArray(env, off > 0 ? off : 1, sizeof(double));
	memset(r->sums, 0, sizeof(double) * off);
	r->block = BkAllocArray(env, REFIT_BLOCK * (r->block_ld > 0 ? r->block_ld : 1),
							sizeof(double));
	r->work = BkAllocArray(env, 2 * (r->max_np > 0 ? r->max_np : 1), sizeof(double));
	return r;
}

void
BkRefitFree(BkRefit *r)
{
	const BkEnv *env = r->env;

	BkFree(env, r->heads);
	BkFree(env, r->sums);
	BkFree(env, r->block);
	BkFree(env, r->work);
	BkFree(env, r);
}

/*
 * A's upper triangles in sums gain the pending block's products: for each
 * (i, j), j >= i, the block's rows' phi_i phi_j summed in row order, then
 * added to A_ij
 */
static void
fold_block(const BkRefit *r, double *sums, double *acc)
{
	size_t		col = 0;

	for (int k = 0; k < r->n_heads; k++)
	{
		const RefitHead *h = &r->heads[k];
		double	   *a = sums + h->a_off;
		int			np = h->np;

		for (int i = 0; i < np; i++)
		{
			for (int j = i; j < np; j++)
				acc[j] = 0.0;
			for (int t = 0; t < r->pending; t++)
			{
				const double *p = r->block + (size_t) t * r->block_ld + col;
				double		pi = p[i];

				for (int j = i; j < np; j++)
					acc[j] += pi * p[j];
			}
			for (int j = i; j < np; j++)
				a[(size_t) i * np + j] += acc[j];
		}
		col += (size_t) np;
	}
}

void
BkRefitAddRow(BkRefit *r, BkModel *m, const double *x, double target, int cls)
{
	double		sqx = BkDot(x, x, m->dim);
	double	   *row = r->block + (size_t) r->pending * r->block_ld;
	size_t		col = 0;

	if (!(sqx <= BK_MAX_SQNORM))
		BkRaiseHint(r->env, BK_ERR_OVERFLOW,
					"The kernels are computed from ||x||^2, which may be at most 1e300.",
					"Scale the features, for example to zero mean and unit variance.",
					"feature values are too large: the squared norm of the features is %g",
					sqx);
	for (int k = 0; k < r->n_heads; k++)
	{
		const RefitHead *h = &r->heads[k];
		const BkMachine *mach = &m->machines[k];
		double	   *phi = row + col;
		double	   *b = r->sums + h->b_off;

		if (mach->n_sv != h->nb)
			BkRaise(r->env, BK_ERR_INTERNAL, NULL, "the refit's model changed");
		if (h->nb > 0)
			BkKernelRow(&m->params, mach, m->dim, x, sqx, r->work, phi);
		if (r->intercept)
			phi[h->nb] = 1.0;
		for (int t = 0; t < h->nt; t++)
		{
			double		y;

			if (r->regression)
				y = (target - r->mean) / r->sd;
			else if (r->multiclass)
				y = cls == t ? 1.0 : -1.0;
			else if (r->n_heads == 1)
				y = cls == 1 ? 1.0 : -1.0;
			else
				y = cls == k ? 1.0 : -1.0;
			for (int i = 0; i < h->np; i++)
				b[(size_t) t * h->np + i] += y * phi[i];
		}
		col += (size_t) h->np;
	}
	r->rows++;
	if (++r->pending == REFIT_BLOCK)
	{
		fold_block(r, r->sums, r->work);
		r->pending = 0;
	}
}

uint64_t
BkRefitRows(const BkRefit *r)
{
	return r->rows;
}

const double *
BkRefitState(BkRefit *r, size_t *n)
{
	if (r->pending > 0)
	{
		fold_block(r, r->sums, r->work);
		r->pending = 0;
	}
	*n = r->n_sums;
	return r->sums;
}

void
BkRefitSetState(BkRefit *r, const double *v, size_t n, uint64_t rows)
{
	if (n != r->n_sums)
		BkRaise(r->env, BK_ERR_INTERNAL, NULL,
				"a refit's state of %zu values, expected %zu", n, r->n_sums);
	memcpy(r->sums, v, sizeof(double) * n);
	r->pending = 0;
	r->rows = rows;
}

void
BkRefitCombine(BkRefit *a, BkRefit *b)
{
	size_t		n;
	const double *bs = BkRefitState(b, &n);

	if (n != a->n_sums || a->n_heads != b->n_heads)
		BkRaise(a->env, BK_ERR_INTERNAL, NULL, "refits of two models combined");
	(void) BkRefitState(a, &n);
	for (size_t i = 0; i < n; i++)
		a->sums[i] += bs[i];
	a->rows += b->rows;
}

bool
BkRefitSolve(const BkEnv *env, int n, const double *a, const double *reg,
			 int nrhs, double *alpha)
{
	double	   *c = BkAllocArray(env, (size_t) n * (size_t) n + 1, sizeof(double));
	double		trace = 0.0;
	double		jitter;
	bool		ok;

	for (int i = 0; i < n; i++)
		for (int j = i; j < n; j++)
		{
			size_t		ij = (size_t) i * n + j;

			c[ij] = a[ij] + reg[ij];
		}
	for (int i = 0; i < n; i++)
		trace += c[(size_t) i * n + i];
	jitter = n > 0 ? REFIT_JITTER * trace / n : 0.0;
	for (int i = 0; i < n; i++)
		c[(size_t) i * n + i] += jitter;
	ok = isfinite(trace) && BkLinCholesky(c, n, c, n, n);
	for (int t = 0; ok && t < nrhs; t++)
		BkLinCholSolve(c, n, n, alpha + (size_t) t * n);
	BkFree(env, c);
	return ok;
}

/*
 * The ridge of head h: lambda n K_BB over the basis (upper triangle),
 * zero for the intercept
 */
static void
ridge_matrix(const BkRefit *r, const RefitHead *h, BkModel *m,
			 const BkMachine *mach, double *reg, double *dots)
{
	double		scale = r->lambda * (double) r->rows;

	memset(reg, 0, sizeof(double) * (size_t) h->np * (size_t) h->np);
	for (int i = 0; i < h->nb; i++)
	{
		double	   *ri = reg + (size_t) i * h->np;

		BkKernelRow(&m->params, mach, m->dim, BkSvRow(mach, i), mach->sqnorm[i],
					dots, dots);
		for (int j = i; j < h->nb; j++)
			ri[j] = scale * dots[j];
	}
}

void
BkRefitFinish(const BkRefit *r, BkModel *m)
{
	const BkEnv *env = r->env;
	double	   *sums = BkAllocArray(env, r->n_sums > 0 ? r->n_sums : 1, sizeof(double));
	double	   *acc = BkAllocArray(env, r->max_np > 0 ? r->max_np : 1, sizeof(double));

	if (m->n_machines != r->n_heads)
		BkRaise(env, BK_ERR_INTERNAL, NULL, "the refit's model changed");
	memcpy(sums, r->sums, sizeof(double) * r->n_sums);
	fold_block(r, sums, acc);

	for (int k = 0; k < r->n_heads; k++)
	{
		const RefitHead *h = &r->heads[k];
		BkMachine  *mach = &m->machines[k];
		double	   *reg;
		double	   *alpha;
		BkMachine	u;

		if (mach->n_sv != h->nb)
			BkRaise(env, BK_ERR_INTERNAL, NULL, "the refit's model changed");
		if (h->np == 0)
			continue;
		reg = BkAllocArray(env, (size_t) h->np * (size_t) h->np, sizeof(double));
		alpha = BkAllocArray(env, (size_t) h->nt * (size_t) h->np, sizeof(double));
		ridge_matrix(r, h, m, mach, reg, acc);
		memcpy(alpha, sums + h->b_off, sizeof(double) * (size_t) h->nt * h->np);
		if (!BkRefitSolve(env, h->np, sums + h->a_off, reg, h->nt, alpha))
				BkRaiseHint(env, BK_ERR_NUMERIC,
							"The refit's system over the kept support vectors is not numerically positive definite.",
							"Raise \"lambda\" (the default is 1e-5), or refit over more rows.",
							"cannot refit machine %d of the model: its system is not positive definite",
							k + 1);

		/* the same SVs, the new coefficients, installed as a merge installs */
		u = *mach;
		u.sv = BkAllocArray(env, (size_t) (mach->n_sv > 0 ? mach->n_sv : 1) * mach->sv_ld,
							sizeof(double));
		memcpy(u.sv, mach->sv, sizeof(double) * (size_t) mach->n_sv * mach->sv_ld);
		u.sqnorm = BkAllocArray(env, (size_t) (mach->n_sv > 0 ? mach->n_sv : 1), sizeof(double));
		memcpy(u.sqnorm, mach->sqnorm, sizeof(double) * (size_t) mach->n_sv);
		u.coef = BkAllocArray(env, (size_t) (mach->n_sv > 0 ? mach->n_sv : 1) * mach->n_coef,
							  sizeof(double));
		for (int i = 0; i < h->nb; i++)
			for (int c = 0; c < mach->n_coef; c++)
				u.coef[(size_t) i * mach->n_coef + c] =
					c < h->nt ? alpha[(size_t) c * h->np + i] : 0.0;
		u.scale = 1.0;
		u.born = NULL;
		BkMergeInstall(m, k, &u);
		BkFree(env, u.sv);
		BkFree(env, u.sqnorm);
		BkFree(env, u.coef);

		if (r->intercept)
		{
			double		b0 = alpha[h->nb];

			if (r->regression)
				m->target->mean += m->target->sd * b0;
			else
			{
				if (m->bias == NULL)
				{
					m->bias = BkAllocArray(env, (size_t) m->n_classes, sizeof(double));
					memset(m->bias, 0, sizeof(double) * (size_t) m->n_classes);
				}
				if (r->n_heads > 1)
					m->bias[k] = b0;
				else if (m->n_classes >= 2)
				{
					m->bias[1] = b0;
					m->bias[0] = -b0;
				}
				else
					m->bias[0] = -b0;
			}
		}
		BkFree(env, reg);
		BkFree(env, alpha);
	}
	BkFree(env, sums);
	BkFree(env, acc);
}
