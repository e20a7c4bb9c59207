/*
 * bk_gram.c
 *	  The inverse of the kernel matrix of a machine's SVs, kept up to date
 *	  by rank-one (bordering / Schur complement) updates, as BPA-P needs
 *	  (paper 000 §3.1.2, after Cauwenberghs and Poggio 2000):
 *
 *	  adding a vector with kernel column k and k_tt, a = K^-1 k,
 *	  s = k_tt - k.a (its squared feature-space distance to span(K)):
 *
 *	      [K  k ]^-1   [K^-1 + a a^T / s   -a / s]
 *	      [k' ktt]   = [     -a^T / s        1 / s]
 *
 *	  removing index r from G = K^-1:
 *
 *	      K_{-r}^-1 = G_{-r,-r} - G_{-r,r} G_{r,-r} / G_rr
 *
 *	  Both are O(n^2).  Rounding accumulates over many updates, so the
 *	  learner refactorises from scratch now and then (BkGramRefresh, a
 *	  Cholesky factorisation and inverse of bk_linalg.c).
 *
 *	  With a ridge r > 0 (the Projectrons: see bk_internal.h), what is
 *	  kept is G = (K + r diag(K))^-1, and the learner uses it for K^-1.
 *
 *	  Storage: cap x cap row-major, the leading n x n block used, its upper
 *	  triangle (j >= i) kept: the entry (i, j) below the diagonal is the
 *	  one at (j, i) (BkGramAt).  The refresh writes both triangles; the
 *	  updates and every reader use the upper one alone.
 */
#include "bk_internal.h"

#include <math.h>
#include <string.h>

#define M(g, i, j) ((g)->m[(size_t) (i) * (g)->cap + (j)])

/*
 * The matrix's storage: order capacity rounded up to a multiple of 8, so
 * that every row starts on a 64-byte boundary of a 64-byte aligned block
 * (the product's and the updates' loads then never straddle two cache
 * lines: about 15 % of the product's time at order 500).  Values as the
 * allocator leaves them (zero).
 */
bool
BkGramCells(int capacity, int *stride, size_t *cells)
{
	size_t		c;

	if (capacity < 0 || capacity > INT32_MAX - 8)
		return false;
	*stride = (capacity + 7) & ~7;
	if (!BkMulSize((size_t) *stride, (size_t) *stride, &c) || c > SIZE_MAX / 16)
		return false;
	*cells = c + 8;
	return true;
}

static void
gram_alloc(const BkEnv *env, BkGramInverse *g, int capacity)
{
	size_t		cells;
	int			cap;

	if (!BkGramCells(capacity, &cap, &cells))
		BkRaise(env, BK_ERR_LIMIT, NULL, "kernel matrix too large");
	g->block = BkAllocArray(env, cells, sizeof(double));
	g->m = (double *) (((uintptr_t) g->block + 63) & ~(uintptr_t) 63);
	g->cap = cap;
}

void
BkGramInit(const BkEnv *env, BkGramInverse *g, int capacity)
{
	gram_alloc(env, g, capacity);
	g->n = 0;
	g->since_refresh = 0;
}

void
BkGramFree(const BkEnv *env, BkGramInverse *g)
{
	BkFree(env, g->block);
	g->block = NULL;
	g->m = NULL;
}

/* Room for order capacity (more than now); the matrix keeps its values. */
void
BkGramGrow(const BkEnv *env, BkGramInverse *g, int capacity)
{
	BkGramInverse old = *g;

	gram_alloc(env, g, capacity);
	for (int i = 0; i < old.cap; i++)
		memcpy(g->m + (size_t) i * g->cap, old.m + (size_t) i * old.cap,
			   sizeof(double) * (size_t) old.cap);
	BkFree(env, old.block);
}

/*
 * a = K^-1 k: one pass over the upper triangle (BkLinSymvUpper), which is
 * all the updates below keep; the lower triangle's entries are the upper
 * one's (BkGramAt).  K^-1 is symmetric, and keeping one triangle makes it
 * so to the bit, where updating both left them apart in their last bits:
 * the product reads half the memory (2 MB at B = 500, where the whole
 * rows' product ran at the cache's bandwidth) and the updates do half the
 * work.
 */
double
BkGramApply(const BkGramInverse *g, const double *k, double *a)
{
	if (g->n == 0)
		return 0.0;
	BkLinSymvUpper(g->n, g->m, g->cap, k, a);
	return BkDot(k, a, g->n);
}

BkSpan
BkGramSpan(const BkGramInverse *g, const double *k, double ktt, double *a)
{
	BkSpan		span;

	span.q = BkGramApply(g, k, a);
	span.s = ktt - span.q;
	span.outside = span.s > BK_SPAN_TOL * ktt;
	return span;
}

/*
 * A K^-1 whose update would overflow belongs to a numerically singular
 * kernel matrix (duplicate or nearly parallel SVs at a scale where the
 * Schur complement underflows): an error rather than a model holding
 * infinities.
 */
static void
singular(const BkEnv *env)
{
	BkRaiseHint(env, BK_ERR_OVERFLOW,
				"Its inverse would overflow a double.",
				"Scale the features, or lower gamma (rbf) or degree (poly).",
				"the kernel matrix of the support vectors is numerically singular");
}

/*
 * row[j] -= f * v[j] for j < n: the rank-one update of one row, the whole
 * of BkGramBorder and BkGramRemove's O(n^2) work.  GCC at -O2 leaves this
 * loop scalar (its cheapest vectorising model will not add the tail loop
 * an n of any size needs), so the lanes are written out: each element
 * gets the scalar loop's product and difference, in four lanes at a time
 * (no FMA: the clone is compiled for "avx2" alone), so the same bits.  The
 * lanes take the leading multiple of four and return where they stopped;
 * the scalar loop does the rest (all of it without AVX2).
 */
#ifdef BK_VECTOR_AVX2
__attribute__((target("avx2")))
static int
row_minus_multiple_avx2(double *restrict row, const double *restrict v,
						double f, int n)
{
	const bk_v4d vf = {f, f, f, f};
	int			j = 0;

	for (; j + 4 <= n; j += 4)
	{
		bk_v4d		r,
					x;

		memcpy(&r, row + j, sizeof(r));
		memcpy(&x, v + j, sizeof(x));
		r -= vf * x;
		memcpy(row + j, &r, sizeof(r));
	}
	return j;
}
#endif

static void
row_minus_multiple(double *restrict row, const double *restrict v, double f,
				   int n)
{
	int			j = 0;

#ifdef BK_VECTOR_AVX2
	if (BkVectorLanes())
		j = row_minus_multiple_avx2(row, v, f, n);
#endif
	for (; j < n; j++)
		row[j] -= f * v[j];
}

/* the largest |v_i| of n values */
static double
max_abs(const double *v, int n, int stride)
{
	double		mx = 0.0;

	for (int i = 0; i < n; i++)
		if (fabs(v[(size_t) i * stride]) > mx)
			mx = fabs(v[(size_t) i * stride]);
	return mx;
}

void
BkGramBorder(const BkEnv *env, BkGramInverse *g, const double *a, double s,
			 double ktt)
{
	int			n = g->n;
	double		amax = max_abs(a, n, 1);

	/* the Schur complement of the regularised matrix */
	s += g->ridge * ktt;

	/* every new entry is at most amax^2 / s and 1 / s: finite, or an error */
	if (!(s > 0.0) || !isfinite(1.0 / s) || !isfinite(amax / s * amax))
		singular(env);

	/*
	 * K^-1 + a a^T / s on the old block's upper triangle: row i from its
	 * diagonal on.  The matrix and its stride are locals, and a does not
	 * overlap it: the compiler keeps them in registers whatever the
	 * aliasing rules of the build (PostgreSQL compiles with
	 * -fno-strict-aliasing).  row + ai a is row - (-ai) a to the bit:
	 * negation is exact and rounding symmetric.
	 */
	{
		double	   *m = g->m;
		const size_t cap = (size_t) g->cap;

		for (int i = 0; i < n; i++)
		{
			double	   *row = m + (size_t) i * cap;
			double		ai = a[i] / s;

			row_minus_multiple(row + i, a + i, -ai, n - i);
			row[n] = -ai;
		}
		m[(size_t) n * cap + n] = 1.0 / s;
	}
	g->n = n + 1;
}

/* rr[j] = the entry (r, j) for j < n, from the upper triangle */
static void
gram_row(const BkGramInverse *g, int r, int n, double *rr)
{
	const double *m = g->m;
	const size_t cap = (size_t) g->cap;

	for (int j = 0; j < r; j++)
		rr[j] = m[(size_t) j * cap + r];
	memcpy(rr + r, m + (size_t) r * cap + r, sizeof(double) * (size_t) (n - r));
}

/*
 * Index last takes r's place: the entries (r, j) become the values v[j]
 * (j < last, j != r), written where the upper triangle keeps them, and
 * (r, r) becomes vrr
 */
static void
gram_move_into(BkGramInverse *g, int r, int last, const double *v, double vrr)
{
	double	   *m = g->m;
	const size_t cap = (size_t) g->cap;

	for (int j = 0; j < r; j++)
		m[(size_t) j * cap + r] = v[j];
	for (int j = r + 1; j < last; j++)
		m[(size_t) r * cap + j] = v[j];
	m[(size_t) r * cap + r] = vrr;
}

void
BkGramRemove(const BkEnv *env, BkGramInverse *g, int r)
{
	int			n = g->n;
	int			last = n - 1;
	double		grr = M(g, r, r);
	double	   *m = g->m;
	const size_t cap = (size_t) g->cap;
	double	   *rr = BkAllocArray(env, (size_t) n, sizeof(double));
	double		rmax;

	gram_row(g, r, n, rr);
	rmax = max_abs(rr, n, 1);
	/* every change is at most rmax^2 / |G_rr|: finite, or an error */
	if (!(fabs(grr) > 0.0) || !isfinite(rmax / fabs(grr) * rmax))
	{
		BkFree(env, rr);
		singular(env);
	}

	/*
	 * Schur complement on the upper triangle of the rows other than r (its
	 * entries in column r are overwritten by the move below, or lie past
	 * the new order when r is the last index)
	 */
	for (int i = 0; i < n; i++)
	{
		if (i == r)
			continue;
		row_minus_multiple(m + (size_t) i * cap + i, rr + i, rr[i] / grr,
						   n - i);
	}

	/* the last index takes r's place: its entries (j, last) */
	if (r != last)
	{
		for (int j = 0; j < last; j++)
			rr[j] = m[(size_t) j * cap + last];
		gram_move_into(g, r, last, rr, M(g, last, last));
	}
	BkFree(env, rr);
	g->n = last;
}

/*
 * Two rank-one updates of one row in one sweep: row[j] gets BkGramBorder's
 * update, row[j] - f1 a[j], then BkGramRemove's, - f2 v[j], each rounded
 * as there (four lanes at a time under AVX2, no FMA: the same bits).
 */
#ifdef BK_VECTOR_AVX2
__attribute__((target("avx2")))
static int
row_minus_two_avx2(double *restrict row, const double *restrict a, double f1,
				   const double *restrict v, double f2, int n)
{
	const bk_v4d vf1 = {f1, f1, f1, f1};
	const bk_v4d vf2 = {f2, f2, f2, f2};
	int			j = 0;

	for (; j + 4 <= n; j += 4)
	{
		bk_v4d		r,
					x,
					y;

		memcpy(&r, row + j, sizeof(r));
		memcpy(&x, a + j, sizeof(x));
		memcpy(&y, v + j, sizeof(y));
		r -= vf1 * x;
		r -= vf2 * y;
		memcpy(row + j, &r, sizeof(r));
	}
	return j;
}
#endif

static void
row_minus_two(double *restrict row, const double *restrict a, double f1,
			  const double *restrict v, double f2, int n)
{
	int			j = 0;

#ifdef BK_VECTOR_AVX2
	if (BkVectorLanes())
		j = row_minus_two_avx2(row, a, f1, v, f2, n);
#endif
	for (; j < n; j++)
	{
		double		t = row[j] - f1 * a[j];

		row[j] = t - f2 * v[j];
	}
}

/*
 * BkGramBorder(a, s, ktt) and then BkGramRemove(r), in one pass over the
 * matrix instead of two: BPA-P's update at a full budget (x_t joins, SV r
 * leaves).  Row r and column r of the bordered matrix come first, O(n);
 * then each row gets the border's update and the Schur complement's in one
 * sweep, every entry the same operations in the same order as the two
 * calls, so the same bits.  col (n + 1 values) gets column r of the
 * bordered matrix, which BPA-P reads between the two.
 */
void
BkGramBorderRemove(const BkEnv *env, BkGramInverse *g, const double *a,
				   double s, double ktt, int r, double *col)
{
	int			n = g->n;
	double	   *m = g->m;
	const size_t cap = (size_t) g->cap;
	double		amax = max_abs(a, n, 1);
	double	   *rr;
	double		ar,
				grr,
				rmax;

	/* BkGramBorder's checks */
	s += g->ridge * ktt;
	if (!(s > 0.0) || !isfinite(1.0 / s) || !isfinite(amax / s * amax))
		singular(env);

	/*
	 * row r of the bordered matrix (order n + 1), each entry (i, j), i <= j,
	 * as BkGramBorder computes it: G_ij - (-a_i / s) a_j
	 */
	rr = BkAllocArray(env, (size_t) n + 1, sizeof(double));
	ar = a[r] / s;
	for (int j = 0; j < r; j++)
		rr[j] = m[(size_t) j * cap + r] - (-(a[j] / s)) * a[r];
	for (int j = r; j < n; j++)
		rr[j] = m[(size_t) r * cap + j] - (-ar) * a[j];
	rr[n] = -ar;
	/* its column r: the same entries */
	memcpy(col, rr, sizeof(double) * ((size_t) n + 1));

	/* BkGramRemove's checks, on the bordered matrix */
	grr = rr[r];
	rmax = max_abs(rr, n + 1, 1);
	if (!(fabs(grr) > 0.0) || !isfinite(rmax / fabs(grr) * rmax))
	{
		BkFree(env, rr);
		singular(env);
	}

	/*
	 * the upper triangle of the rows other than r: bordered, then the Schur
	 * complement (their entries in column r are overwritten by the move)
	 */
	for (int i = 0; i < n; i++)
	{
		if (i == r)
			continue;
		row_minus_two(m + (size_t) i * cap + i, a + i, -(a[i] / s), rr + i,
					  rr[i] / grr, n - i);
	}

	/*
	 * the new index n: its entries (j, n) bordered (-a_j / s, 1 / s), then
	 * the Schur complement of row j (BkGramRemove's f of that row); they
	 * take r's place
	 */
	{
		double		vnn = 1.0 / s - rr[n] / grr * rr[n];

		for (int j = 0; j < n; j++)
			rr[j] = -(a[j] / s) - rr[j] / grr * rr[n];
		gram_move_into(g, r, n, rr, vnn);
	}
	BkFree(env, rr);
}

/*
 * Recompute K^-1 from the SVs: the upper triangle of K, its dot products
 * (BkLinSyrkUpper) and the kernel function, then the Cholesky factor and
 * inverse (bk_linalg.c), which read that triangle alone.
 * Returns false, leaving g unchanged, if K is not numerically positive
 * definite.
 */
bool
BkGramRefresh(const BkEnv *env, BkGramInverse *g, const BkParams *p,
			  const BkMachine *mach, int dim)
{
	int			n = mach->n_sv;
	double	   *k;

	g->since_refresh = 0;
	if (n == 0)
	{
		g->n = 0;
		return true;
	}
	k = BkAllocArray(env, (size_t) n * n, sizeof(double));
	BkLinSyrkUpper(n, dim, mach->sv, mach->sv_ld, k, n);
	for (int i = 0; i < n; i++)
	{
		k[(size_t) i * n + i] = (1.0 + g->ridge) * BkKernelSelf(p, mach->sqnorm[i]);
		for (int j = i + 1; j < n; j++)
		{
			double		v = BkKernelFromDot(p, k[(size_t) i * n + j],
											mach->sqnorm[i], mach->sqnorm[j]);

			k[(size_t) i * n + j] = v;
		}
	}
	BkCheckInterrupts(env);

	/*
	 * BkSpdInverse's factor and inverse, the inverse's upper triangle
	 * written straight into g (the same bits, without its n x n work
	 * array and copy)
	 */
	if (!BkLinCholesky(k, n, k, n, n))
	{
		BkFree(env, k);
		return false;
	}
	BkLinCholInverseUpper(k, n, n, g->m, g->cap);
	g->n = n;
	BkFree(env, k);
	return true;
}

bool
BkSpdInverse(const BkEnv *env, const double *k, double *inv, int n,
			 int ridge_tries)
{
	double		maxd = 0.0;
	double		ridge = 0.0;
	double	   *work = BkAllocArray(env, (size_t) n * n, sizeof(double));

	for (int i = 0; i < n; i++)
		if (k[(size_t) i * n + i] > maxd)
			maxd = k[(size_t) i * n + i];
	for (int attempt = 0; attempt <= ridge_tries; attempt++)
	{
		if (inv != k)
			memcpy(inv, k, sizeof(double) * (size_t) n * n);
		if (attempt > 0)
			for (int i = 0; i < n; i++)
				inv[(size_t) i * n + i] += ridge;
		if (BkLinCholesky(inv, n, inv, n, n))
		{
			BkLinCholInverse(inv, n, work);
			BkFree(env, work);
			return true;
		}
		ridge = ridge == 0.0 ? 1e-10 * maxd : ridge * 100.0;
	}
	BkFree(env, work);
	return false;
}

/*
 * Count one rank-one update; rounding accumulates, so K^-1 is rebuilt from
 * scratch every n_sv updates (O(B^3) every B steps: O(B^2) amortised).  A
 * failed refactorisation keeps the updated inverse, which is still the
 * best estimate there is.
 */
void
BkGramNoteUpdate(const BkEnv *env, BkGramInverse *g, const BkParams *p,
				 const BkMachine *mach, int dim)
{
	g->since_refresh++;
	if (g->since_refresh >= (uint64_t) mach->n_sv)
		(void) BkGramRefresh(env, g, p, mach, dim);
}

/*
 * 1 / G_pp is k_pp - k_p^T K_p^-1 k_p, the squared distance of Phi(x_p) to
 * the others' span, up to the ridge of G (the exact terms: bk_alg_pegasos.c,
 * project_out): so every candidate costs O(classes), where the paper,
 * inverting K_p for each, projects the smallest SV instead.  A G_pp that
 * is not positive (an inverse gone bad) disqualifies p.
 */
int
BkGramLeastDegrading(const BkMachine *mach, const BkGramInverse *g)
{
	int			best = -1;
	double		bestv = 0.0;

	for (int j = 0; j < mach->n_sv; j++)
	{
		double		gjj = g->m[(size_t) j * g->cap + j],
					v;

		if (!(gjj > 0.0))
			continue;
		v = BkMachineCoefNorm2(mach, j) / gjj;
		if (best < 0 || v < bestv)
		{
			best = j;
			bestv = v;
		}
	}
	return best;
}
