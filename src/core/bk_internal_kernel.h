/*
 * bk_internal_kernel.h
 *	  The kernel layer: kernels and kernel rows, the SVs of a machine and
 *	  the caches on them (neighbours, K^-1), merging two SVs.
 */
#ifndef BK_INTERNAL_KERNEL_H
#define BK_INTERNAL_KERNEL_H

#include "bk_internal_base.h"

/* ---- bk_kernel.c ---- */

/* k(a, b) given a.b, ||a||^2 and ||b||^2 */
extern double BkKernelFromDot(const BkParams *p, double dot, double sqa,
							  double sqb);

/*
 * ---- bk_cpu.c: which vector paths run ----
 * The AVX2 paths (x86-64 with GCC and glibc).  BkCpuHasAvx2: whether the
 * CPU runs AVX2 (asked once); the vector exp (BkExpArray) then runs,
 * within 1 ulp of exp().  BkVectorLanes: whether the lane paths run too,
 * which compute four doubles at a time, each lane the scalar code's
 * expressions in its order, so with the same bits as the scalar code;
 * BkVectorLanesEnable(false) turns them off, for the tests that compare.
 * Every clone is target("avx2"), never "fma": on the baseline x86-64
 * ISA the build targets, FMA instructions are then out of the clone's
 * ISA and the compiler cannot fuse an a*b+c, whatever -ffp-contract says
 * (doc/maintainers.md, Determinism, rule 4; -ffp-contract=off is still
 * passed, for the scalar code, other architectures and builds whose
 * -march has FMA).  A fused clone would differ from the scalar code.
 */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__GLIBC__)
#define BK_VECTOR_AVX2 1
typedef double bk_v4d __attribute__((vector_size(32)));
typedef long long bk_v4i __attribute__((vector_size(32)));
typedef unsigned long long bk_v4u __attribute__((vector_size(32)));

/* a where mask is set, else b (mask: a vector comparison's result) */
#define BK_BLEND4(mask, a, b) \
	((bk_v4d) ((((bk_v4i) (a)) & (mask)) | (((bk_v4i) (b)) & ~(mask))))

/*
 * BkDist2 in four lanes: sq + sqx - 2 dot, below 0 or NaN to 0, with
 * BkDist2's operations in its order, so the same bits
 */
__attribute__((target("avx2")))
static inline bk_v4d
BkDist2x4(bk_v4d dot, bk_v4d sq, bk_v4d sqx)
{
	const bk_v4d two = {2.0, 2.0, 2.0, 2.0};
	const bk_v4d zero = {0.0, 0.0, 0.0, 0.0};
	bk_v4d		d = sq + sqx - two * dot;

	return (bk_v4d) ((bk_v4i) d & (d > zero));
}

/*
 * The end of a lane search for a first minimum: lane l holds the least
 * value v[l] of its indices, first one first, at index at[l] (-1: none).
 * Returns the least of them, on a tie the lowest index, which is the
 * first minimum a scalar loop finds, and sets *best to its value; -1 if
 * no lane has one.
 */
extern int	BkLanesFirstMin(bk_v4d v, bk_v4i at, double *best)
			__attribute__((target("avx2")));
#endif
extern bool BkCpuHasAvx2(void);
extern bool BkVectorLanes(void);
extern void BkVectorLanesEnable(bool on);
/*
 * Whether the AVX-512F paths run (the lane paths are on and the CPU has
 * it): eight doubles a register, each lane the scalar code's, never FMA
 * (target "avx512f" does not include it), so the same bits again;
 * BkVectorWideEnable(false) leaves the AVX2 paths, for the tests.
 */
extern bool BkVectorWide(void);
extern void BkVectorWideEnable(bool on);
#ifdef BK_VECTOR_AVX2
/* BkLinSymvUpper's AVX-512F clone (bk_linalg_avx512.c): the same bits */
extern void BkLinSymvUpperAvx512(int n, const double *a, int lda,
								 const double *x, double *y)
			__attribute__((target("avx512f")));
#endif
/*
 * Whether the lane paths are on (BkVectorLanesEnable), whatever the CPU;
 * and whether it has the SHA extensions, which BkSha256 then runs on
 * (bk_sha256.c: the same digest)
 */
extern bool BkVectorLanesOn(void);
extern bool BkCpuHasSha(void);

/*
 * ---- bk_fmath.c: exp, log and log1p of the project's own ----
 * Every exponential or logarithm that reaches a model or a score comes
 * from these, never from the C library (whose exp and log pick FMA
 * variants by CPU): the same bits on every CPU, within 0.52 ulp (exp) and
 * 1 ulp (log) of the true value.
 */
extern double BkExp(double x);
/* BkLog: in bk_core.h (the glue's metrics use it too) */
extern double BkLog1p(double x);
/* v[i] = BkExp(v[i]), four at a time where the CPU has AVX2: same bits */
extern void BkExpArray(double *v, int n);
#ifdef BK_VECTOR_AVX2
/* BkExp of each lane, the same bits */
extern bk_v4d BkExp4(bk_v4d x) __attribute__((target("avx2")));
#endif

#include "bk_linalg.h"

/*
 * dots[i] = sv_i . x for the n_sv SVs of a machine (one BkLinGemv), then
 * krow[i] = k(sv_i, x).  dots and krow may be the same array.
 */
extern void BkKernelRow(const BkParams *p, const BkMachine *mach, int dim,
						const double *x, double sqx, double *dots,
						double *krow);
/* the same for a sparse row: nnz values at 1-based ascending indices */
extern void BkKernelRowSparse(const BkParams *p, const BkMachine *mach, int dim,
							  const int32_t *idx, const double *val, int nnz,
							  double sqx, double *dots, double *krow);

/* squared distance from the parts of ||a-b||^2 = |a|^2 + |b|^2 - 2 a.b */
static inline double
BkDist2(double dot, double sqa, double sqb)
{
	double		d = sqa + sqb - 2.0 * dot;

	return d > 0.0 ? d : 0.0;
}

/* x^n for a small positive integer n, by squaring */
static inline double
BkIpow(double x, int64_t n)
{
	double		r = 1.0;

	while (n > 0)
	{
		if (n & 1)
			r *= x;
		x *= x;
		n >>= 1;
	}
	return r;
}

/*
 * k(a, a) given ||a||^2.  Inline: the budget maintenance loops call it once
 * per SV per row, and out of line the call cost more than the arithmetic
 * (9 % of BPA-S's instructions on two-feature rows).
 */
static inline double
BkKernelSelf(const BkParams *p, double sq)
{
	switch (p->kernel)
	{
		case BK_KERNEL_RBF:
			return 1.0;
		case BK_KERNEL_LINEAR:
			return sq;
		case BK_KERNEL_POLY:
			return BkIpow(p->gamma * sq + p->coef0, p->degree);
	}
	return 0.0;
}

/* v clipped into [lo, hi] */
static inline double
BkClamp(double v, double lo, double hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

/* the label y_i of an SV stored with coefficient alpha_i y_i, alpha_i > 0 */
static inline double
BkCoefLabel(double coef)
{
	return coef >= 0.0 ? 1.0 : -1.0;
}

/* ---- bk_svstore.c: the SVs of one machine ---- */
/* doubles from one SV's row to the next for dimension dim */
extern int	BkSvStride(int dim);
extern void BkSvPaddingEnable(bool on);
/* dots[i] = x . sv_i for the first n SVs: one BkLinGemv over the rows */
extern void BkMachineDots(const BkMachine *mach, int n, int dim,
						  const double *x, double *dots);
/* append x (with ||x||^2) as a new SV with one coefficient; returns index */
extern int	BkMachineAppend(BkMachine *mach, int dim, const double *x,
							double sqx, double coef);
/* overwrite slot r with x */
extern void BkMachineReplace(BkMachine *mach, int dim, int r, const double *x,
							 double sqx, double coef);
/* the float4 copy of rows r0 .. r0 + n - 1 from the SVs (without one: none) */
extern void BkSvSync(BkMachine *mach, int dim, int r0, int n);
/* x's values rounded to float4; false if one is beyond float4's range (left as it is) */
extern bool BkSvRound(double *x, int dim);
/*
 * Every SV value a float4 value, and the float4 copy (if kept) equal to
 * them: what every writer of a float4 model's SVs keeps (checked before
 * each encoding, bk_layout.c)
 */
extern bool BkSvFloat4Holds(const BkMachine *mach, int dim);
/* the hint of an error of that range */
#define FLOAT4_HINT "A model of \"sv_precision\": \"float4\" stores values of at most 3.4e38 in magnitude: scale the features, or train with \"sv_precision\": \"float8\"."
extern double BkMachineScore(const BkMachine *mach, const double *krow);
/* ||alpha_j||^2, SV j's stored coefficients over the classes */
extern double BkMachineCoefNorm2(const BkMachine *mach, int j);
/* every coefficient finite, every class's sum of magnitudes (times the scale) below 2^1000 */
extern bool BkMachineCoefSumsModest(const BkMachine *mach);
/* argmin ||alpha_j||^2 k(x_j, x_j), paper 004 §4.1: the SV that carries the least of f */
extern int	BkMachineSmallestSv(const BkParams *p, const BkMachine *mach);
extern void BkMachineRemove(BkMachine *mach, int dim, int r);
extern void BkMachineAddColumn(const BkEnv *env, BkMachine *mach);
/* f -> -f, every cached score and evaluation label with it */
extern void BkMachineNegate(BkMachine *mach);
/* column c of the coefficients <- column perm[c]; tmp: n_coef doubles */
extern void BkMachinePermuteColumns(BkMachine *mach, const int *perm, double *tmp);

/* ---- bk_machine.c: a machine's allocation, growth and copy, caches with it ---- */
extern void BkMachineInit(const BkEnv *env, BkMachine *mach, int dim,
						  int n_coef, int capacity);
/* from now on keep the float4 copy of the SVs (their values are float4's) */
extern void BkMachineKeepFloat4(const BkEnv *env, BkMachine *mach);
extern void BkMachineFree(const BkEnv *env, BkMachine *mach);
/* room for newcap SVs (> capacity), all bookkeeping with them */
extern void BkMachineGrow(const BkEnv *env, BkMachine *mach, int dim, int newcap);
/* make room for one more SV, growing up to limit; false if full */
extern bool BkMachineReserve(const BkEnv *env, BkMachine *mach, int dim,
							 int limit);
extern void BkMachineCopy(const BkEnv *env, BkMachine *dst, const BkMachine *src,
						  int dim, double sign);
/* its vectors to new_dim columns: column c to map[c], the others fill's */
extern void BkMachineRelayout(const BkEnv *env, BkMachine *mach, int old_dim,
							  int new_dim, const int *map, const double *fill);

/* ---- bk_nearest.c: nearest-neighbour bookkeeping (paper 000 §3.1.3) ---- */
extern void BkNearestInit(const BkEnv *env, BkMachine *mach, int capacity);
extern void BkNearestForget(BkMachine *mach, int from, int to);
/* the SV just appended at slot n_sv-1; dots = its dot with the others */
extern void BkNearestOnAppend(BkMachine *mach, const double *dots);
extern const double *BkNearestRbf(BkMachine *mach, double gamma);
/* slot r was overwritten by a new vector; dots = new vector . old SVs */
extern void BkNearestOnReplace(const BkEnv *env, BkMachine *mach, int dim,
							   int r, const double *dots, double *work);
/* search SV j's neighbour again among all the SVs (one BkLinGemv) */
extern void BkNearestSearch(BkMachine *mach, int dim, int j, double *work);
/* nearest SV to a point given its dots with all SVs; -1 if none */
extern int	BkNearestOf(const BkMachine *mach, const double *dots, double sqx,
						int exclude, double *dist2);

/*
 * ---- bk_gram.c: inverse kernel matrix (paper 000 §3.1.2) ----
 * With a ridge r (BkGramInverse.ridge), the inverse kept is that of
 * K + r diag(K).  On a numerically low-rank K (a wide kernel,
 * low-dimensional data, a few hundred SVs) the exact inverse amplifies
 * rounding into coefficients of 1e9 and more; a relative ridge of 1e-6
 * bounds them and leaves well-conditioned projections as they were to
 * about 1e-6.  Every learner that keeps K^-1 uses it (BkModelGramRidge):
 * the Projectrons, and BPA-P and Pegasos' projections, a deviation from
 * the exact inverse of their eq. 9 / eq. 16-17.  Without it, BPA-P at
 * B = 500 on ncheckerboard1m stalled at 360 SVs and 48.1 % accuracy (with
 * it: 500 SVs, 96.2 %, BPA-NN 96.5 %), and on the checkerboard with
 * gamma = 4 BPA-P and Pegasos stopped at 67 and 59 SVs whatever the budget
 * (with it the budgets fill).
 */
#define BK_GRAM_RIDGE 1e-6
extern void BkGramInit(const BkEnv *env, BkGramInverse *g, int capacity);
/*
 * The storage of order capacity: its stride (capacity rounded up to a
 * multiple of 8) and the doubles allocated (stride^2 and the alignment's
 * 8); false if too large
 */
extern bool BkGramCells(int capacity, int *stride, size_t *cells);
extern void BkGramFree(const BkEnv *env, BkGramInverse *g);
/* room for a larger order, the values kept */
extern void BkGramGrow(const BkEnv *env, BkGramInverse *g, int capacity);
/* a = K^-1 k for the current order n (the upper triangle); returns k . a */
extern double BkGramApply(const BkGramInverse *g, const double *k, double *a);

/* the entry (i, j) of K^-1: the updates keep the upper triangle alone */
static inline double
BkGramAt(const BkGramInverse *g, int i, int j)
{
	return i <= j ? g->m[(size_t) i * g->cap + j] : g->m[(size_t) j * g->cap + i];
}

/*
 * A vector closer than this (relative squared feature-space distance,
 * s <= BK_SPAN_TOL k_tt) to the span of the SVs is inside it: adding it
 * would make K numerically singular, so the learners that keep K^-1
 * project it instead.
 */
#define BK_SPAN_TOL 1e-8

/* Where Phi(x) stands against the span of the SVs (BkGramSpan). */
typedef struct BkSpan
{
	double		q;				/* k . K^-1 k: squared norm of the projection */
	double		s;				/* k(x, x) - q: squared distance to the span */
	bool		outside;		/* s > BK_SPAN_TOL k(x, x): it can be added */
} BkSpan;

/* a = K^-1 k, and where x, with kernel column k and k(x, x) = ktt, stands */
extern BkSpan BkGramSpan(const BkGramInverse *g, const double *k, double ktt,
						 double *a);
/*
 * grow to n+1 with a new SV whose kernel column is k, k(x, x) = ktt,
 * a = G k and s = ktt - k.a (the ridge of the new diagonal entry, if any,
 * is added here)
 */
extern void BkGramBorder(const BkEnv *env, BkGramInverse *g, const double *a,
						 double s, double ktt);
/* remove index r by the Schur complement, moving the last index into r */
extern void BkGramRemove(const BkEnv *env, BkGramInverse *g, int r);
/*
 * BkGramBorder then BkGramRemove(r) in one pass, the same bits; col (n + 1)
 * gets column r of the bordered matrix
 */
extern void BkGramBorderRemove(const BkEnv *env, BkGramInverse *g,
							   const double *a, double s, double ktt, int r,
							   double *col);
/*
 * The SV of mach whose projection onto the others degrades its function
 * least, paper 004 §4.2 eq. 17: argmin ||alpha_p||^2 / G_pp (G = g's
 * inverse), the first on a tie; -1 if no G_pp is positive
 */
extern int	BkGramLeastDegrading(const BkMachine *mach, const BkGramInverse *g);
/* recompute K^-1 from the SVs (bk_linalg.c's Cholesky); false if K is not PD */
extern bool BkGramRefresh(const BkEnv *env, BkGramInverse *g,
						  const BkParams *p, const BkMachine *mach, int dim);
/*
 * inv = the inverse of the symmetric positive definite n x n matrix k
 * (row-major; its upper triangle is read; inv may be k) by BkLinCholesky
 * and BkLinCholInverse, both triangles filled.  If k is not numerically positive definite, up to ridge_tries
 * more attempts add a ridge to its diagonal: 1e-10 of its largest entry,
 * then 100 times more each time (these need inv != k).  False if all
 * attempts fail.
 */
extern bool BkSpdInverse(const BkEnv *env, const double *k, double *inv, int n,
						 int ridge_tries);
/* count a rank-one update; refactorise every n_sv of them */
extern void BkGramNoteUpdate(const BkEnv *env, BkGramInverse *g,
							 const BkParams *p, const BkMachine *mach, int dim);

/* ---- bk_merge.c: merging two SVs (paper 004 §4.3) ---- */
typedef struct BkMergeChoice
{
	int			m;				/* the SV merged away */
	int			n;				/* its partner */
	double		h;				/* z = h x_m + (1 - h) x_n */
	double		degradation;	/* ||Delta w||^2 in stored coefficients */
	int			searched;		/* partners whose h was searched */
} BkMergeChoice;

/* ---- bk_merge_pair.c: where to merge one pair ---- */
/* one pair's best h and degradation at L = gamma d2, kmn = exp(-L) */
extern double BkMergePair(double L, double kmn, double aa, double bb, double ab,
						  double *h);
/* the same for n <= 4 partners of one SV, in lanes where they run: the same bits */
extern void BkMergePairs(int n, const double *L, const double *kmn, double aa,
						 const double *bb, const double *ab, double *d,
						 double *h);
/* a lower bound of that degradation from L and kmn alone (the pruning) */
extern double BkMergeBound(double L, double kmn, double aa, double bb,
						   double ab);
/* the larger of that and, for near pairs of one sign, a tighter one (2 exp()) */
extern double BkMergeBoundTight(double L, double kmn, double aa, double bb,
								double ab);
extern void BkMergeChoose(const BkEnv *env, const BkParams *p,
						  const BkMachine *mach, int dim, int mi, double *work,
						  BkMergeChoice *c);
/*
 * the same, work already holding x_mi's dots with every SV (BkMachineDots),
 * krow NULL or the rbf kernel row of those dots (n < mi), scratch
 * BK_MERGE_SCRATCH(n_sv) doubles (BkModelMergeScratch)
 */
#define BK_MERGE_SCRATCH(n) (10 * (size_t) (n))
extern void BkMergeChooseDots(const BkEnv *env, const BkParams *p,
							  const BkMachine *mach, int dim, int mi,
							  double *work, const double *krow,
							  double *scratch, BkMergeChoice *c);
extern double *BkModelMergeScratch(BkModel *m, size_t n);
/* the same choice by the search of every partner, without pruning (tests) */
extern void BkMergeChooseExhaustive(const BkEnv *env, const BkParams *p,
									const BkMachine *mach, int dim, int mi,
									double *work, BkMergeChoice *c);
extern void BkMergePoint(const BkParams *p, const BkMachine *mach, int dim,
						 const BkMergeChoice *c, const double *work,
						 double *zbuf, double *az);
/* dim values for the point z, allocated at the model's first merge */
extern double *BkModelMergePoint(BkModel *m);
extern void BkMergeApply(BkMachine *mach, int dim, const BkMergeChoice *c,
						 const double *zbuf, const double *az);

#endif							/* BK_INTERNAL_KERNEL_H */
