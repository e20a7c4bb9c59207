/*
 * bk_svstore.c
 *	  The support vectors of one kernel expansion: a contiguous row-major
 *	  capacity x dim matrix (rows BkSvStride(dim) doubles apart), the cached
 *	  squared norms and the coefficients: storing, replacing and removing
 *	  SVs and their dot products with a row.  It knows no cache built on
 *	  it (bk_machine.c grows and copies those with it).
 */
#include "bk_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/*
 * Each SV's row starts on a 32-byte boundary (the matrix on a 64-byte
 * one, bk_machine.c), for dim >= 16: the
 * stride is dim rounded up to a multiple of 4 doubles (the padding stays
 * zero and no computation reads it).  A layout choice only: a row's dot
 * product with x is BkDot over its dim values, in the same order whatever
 * the stride (bk_linalg.c), so the bits are the same padded or not (the
 * unit tests train with and without).  Below 16 the padding would be a
 * large share of the memory.
 */
static bool sv_padding = true;

int
BkSvStride(int dim)
{
	return !sv_padding || dim < 16 || dim % 4 == 0 ? dim : dim + (4 - dim % 4);
}

/* machines initialised from now on pad their rows or not (for the tests) */
void
BkSvPaddingEnable(bool on)
{
	sv_padding = on;
}

int
BkMachineAppend(BkMachine *mach, int dim, const double *x, double sqx,
				double coef)
{
	int			i = mach->n_sv++;

	BkMachineReplace(mach, dim, i, x, sqx, coef);
	return i;
}

void
BkMachineReplace(BkMachine *mach, int dim, int r, const double *x,
				 double sqx, double coef)
{
	memcpy(BkSvRow(mach, r), x, sizeof(double) * dim);
	BkSvSync(mach, dim, r, 1);
	mach->sqnorm[r] = sqx;
	mach->coef[(size_t) r * mach->n_coef] = coef;
	for (int c = 1; c < mach->n_coef; c++)
		mach->coef[(size_t) r * mach->n_coef + c] = 0.0;
}

/*
 * A model of "sv_precision": "float4" rounds every value it stores in an
 * SV to float4 (the rows it learns, bk_model.c; the points merges build,
 * bk_merge.c; the values a preparation re-lays or remaps), so that its
 * SVs hold float4 values in doubles.  Its machines then keep the same
 * matrix as float4 too, and a kernel row's dot products read that copy:
 * half the bytes, and the same bits, since BkLinGemvF32 converts each
 * value back exactly and sums as BkLinGemv does.  Everything else reads
 * the doubles, and the format stores the values as float4.
 */
/*
 * A row of few nonzeros (one-hot text inputs, LIBSVM rows that are not
 * standardised) takes its dot products over its nonzeros alone
 * (BkLinGemvSparse: the same bits as BkLinGemv) when they are at most
 * dim / 4 - 8: with both in AVX2 lanes a sparse dot product costs about
 * 3.5 ns and 0.3 ns a nonzero, a dense one 1.1 ns a block of eight
 * columns (400 SVs of random values, on the development server), so that
 * bound keeps the sparse one at or below about 0.65 of the dense one
 * (12 nonzeros of 123 columns: 0.37).
 * The float4 copy takes the dense product.
 */
#define SPARSE_MAX_NNZ 512

void
BkMachineDots(const BkMachine *mach, int n, int dim, const double *x,
			  double *dots)
{
	int			cols[SPARSE_MAX_NNZ + 1],
				lane_end[8],
				max_nnz = dim / 4 - 8;

	if (max_nnz > SPARSE_MAX_NNZ)
		max_nnz = SPARSE_MAX_NNZ;
	if (mach->sv32 != NULL)
		BkLinGemvF32(n, dim, mach->sv32, mach->sv_ld, x, dots);
	else if (n >= 4 && max_nnz > 0 &&
			 BkLinSparseLanes(x, dim, max_nnz, cols, lane_end) >= 0)
		BkLinGemvSparse(n, mach->sv, mach->sv_ld, x, cols, lane_end, dots);
	else
		BkLinGemv(n, dim, mach->sv, mach->sv_ld, x, dots);
}

void
BkSvSync(BkMachine *mach, int dim, int r0, int n)
{
	if (mach->sv32 == NULL)
		return;
	for (int r = r0; r < r0 + n; r++)
	{
		const double *src = BkSvRow(mach, r);
		float	   *dst = mach->sv32 + (size_t) r * (size_t) mach->sv_ld;

		for (int j = 0; j < dim; j++)
			dst[j] = (float) src[j];
	}
}

bool
BkSvFloat4Holds(const BkMachine *mach, int dim)
{
	for (int r = 0; r < mach->n_sv; r++)
	{
		const double *x = BkSvRow(mach, r);

		for (int j = 0; j < dim; j++)
		{
			if (!(fabs(x[j]) <= FLT_MAX) || (double) (float) x[j] != x[j])
				return false;
			if (mach->sv32 != NULL &&
				(double) mach->sv32[(size_t) r * mach->sv_ld + j] != x[j])
				return false;
		}
	}
	return true;
}

bool
BkSvRound(double *x, int dim)
{
	bool		in_range = true;

	for (int j = 0; j < dim; j++)
	{
		/* a double beyond float4's range has no float4 value (C11 6.3.1.5) */
		if (!(fabs(x[j]) <= FLT_MAX))
			in_range = false;
		else
			x[j] = (double) (float) x[j];
	}
	return in_range;
}

/*
 * Remove SV r: the last SV takes its slot (the same move as BkGramRemove,
 * so K^-1 stays aligned with the store).
 */
void
BkMachineRemove(BkMachine *mach, int dim, int r)
{
	int			last = mach->n_sv - 1;

	if (r != last)
	{
		memcpy(BkSvRow(mach, r), BkSvRow(mach, last), sizeof(double) * dim);
		mach->sqnorm[r] = mach->sqnorm[last];
		memcpy(mach->coef + (size_t) r * mach->n_coef,
			   mach->coef + (size_t) last * mach->n_coef,
			   sizeof(double) * mach->n_coef);
		if (mach->sv_scores)
			mach->sv_scores[r] = mach->sv_scores[last];
		if (mach->born)
			mach->born[r] = mach->born[last];
		BkSvSync(mach, dim, r, 1);
	}
	mach->n_sv = last;
}


/*
 * f -> -f in place: the coefficients, the cached scores of the SVs and the
 * evaluation set's labels, scores and predictions (a binary machine whose
 * two classes exchange their places).  Negation is exact, so the machine
 * learns on as it would have with the labels exchanged from the start.
 */
void
BkMachineNegate(BkMachine *mach)
{
	size_t		n = (size_t) mach->n_sv;

	for (size_t i = 0; i < n * mach->n_coef; i++)
		mach->coef[i] = -mach->coef[i];
	if (mach->sv_scores)
		for (size_t i = 0; i < n; i++)
			mach->sv_scores[i] = -mach->sv_scores[i];
	if (mach->eval)
		for (int k = 0; k < mach->eval->n; k++)
		{
			mach->eval->y[k] = -mach->eval->y[k];
			mach->eval->f[k] = -mach->eval->f[k];
			mach->eval->pred[k] = -mach->eval->pred[k];
		}
}

/*
 * Coefficient column c of every SV becomes column perm[c]'s (a multi-class
 * machine whose classes change places); tmp has n_coef doubles.
 */
void
BkMachinePermuteColumns(BkMachine *mach, const int *perm, double *tmp)
{
	int			K = mach->n_coef;

	for (int j = 0; j < mach->n_sv; j++)
	{
		double	   *a = mach->coef + (size_t) j * K;

		for (int c = 0; c < K; c++)
			tmp[c] = a[perm[c]];
		memcpy(a, tmp, sizeof(double) * K);
	}
}

/* One more coefficient per SV (a new class of a multi-class machine), 0. */
void
BkMachineAddColumn(const BkEnv *env, BkMachine *mach)
{
	int			old = mach->n_coef;
	double	   *coef = BkAllocArray(env, (size_t) mach->capacity * (old + 1),
									sizeof(double));

	for (int i = 0; i < mach->n_sv; i++)
		for (int c = 0; c < old; c++)
			coef[(size_t) i * (old + 1) + c] = mach->coef[(size_t) i * old + c];
	BkFree(env, mach->coef);
	mach->coef = coef;
	mach->n_coef = old + 1;
}

/* ||alpha_j||^2 of SV j (stored coefficients: a scale is common to all) */
double
BkMachineCoefNorm2(const BkMachine *mach, int j)
{
	const double *a = mach->coef + (size_t) j * mach->n_coef;
	double		s = 0.0;

	for (int c = 0; c < mach->n_coef; c++)
		s += a[c] * a[c];
	return s;
}

/*
 * The smallest SV, argmin ||alpha_j||^2 k(x_j, x_j) (paper 004 §4.1), the
 * first on a tie: what Pegasos' maintenance removes, projects or merges,
 * and the merge's partner search starts from
 */
int
BkMachineSmallestSv(const BkParams *p, const BkMachine *mach)
{
	int			best = 0;
	double		bestv = 0.0;
	bool		rbf = p->kernel == BK_KERNEL_RBF;	/* k(x, x) = 1: v is the norm */

	for (int j = 0; j < mach->n_sv; j++)
	{
		double		v = BkMachineCoefNorm2(mach, j);

		if (!rbf)
			v *= BkKernelSelf(p, mach->sqnorm[j]);

		if (j == 0 || v < bestv)
		{
			best = j;
			bestv = v;
		}
	}
	return best;
}

/*
 * Whether every coefficient is finite and every class's sum of their
 * magnitudes, times the scale, far from overflowing: eight partial sums
 * over the coefficients in memory order (n_coef of 1, 2, 4 or 8: each
 * sum holds one class; other n_coef: the sum of every class's, which
 * bounds each), where the exact check (BkModelCheckSums) keeps one chain
 * of additions per class, about four cycles a coefficient, on every row.
 * A NaN or an infinity makes its class's sum NaN or infinite; the sums
 * of nonnegative terms in any order agree to a relative 2 n eps, so below
 * 2^1000 the check in j order finds them finite too.  False sends the
 * machine to that check, which names what is wrong: the same outcome.
 */
bool
BkMachineCoefSumsModest(const BkMachine *mach)
{
	int			K = mach->n_coef;
	size_t		n = (size_t) mach->n_sv * (size_t) K,
				i = 0;
	const double *a = mach->coef;
	double		s[8],
				s0 = 0.0,
				s1 = 0.0,
				s2 = 0.0,
				s3 = 0.0,
				s4 = 0.0,
				s5 = 0.0,
				s6 = 0.0,
				s7 = 0.0;

	/* eight named sums: in registers, where an array's stayed in memory */
	for (; i + 8 <= n; i += 8)
	{
		s0 += fabs(a[i]);
		s1 += fabs(a[i + 1]);
		s2 += fabs(a[i + 2]);
		s3 += fabs(a[i + 3]);
		s4 += fabs(a[i + 4]);
		s5 += fabs(a[i + 5]);
		s6 += fabs(a[i + 6]);
		s7 += fabs(a[i + 7]);
	}
	s[0] = s0;
	s[1] = s1;
	s[2] = s2;
	s[3] = s3;
	s[4] = s4;
	s[5] = s5;
	s[6] = s6;
	s[7] = s7;
	for (; i < n; i++)
		s[i % 8] += fabs(a[i]);
	if (K != 1 && K != 2 && K != 4 && K != 8)
	{
		/* every class's sum is at most the sum of all (terms >= 0) */
		double		t = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));

		return t <= 0x1p1000 && t * fabs(mach->scale) <= 0x1p1000;
	}
	for (int c = 0; c < K; c++)
	{
		double		t = 0.0;

		for (int l = c; l < 8; l += K)
			t += s[l];
		if (!(t <= 0x1p1000) || !(t * fabs(mach->scale) <= 0x1p1000))
			return false;
	}
	return true;
}

/* f(x) = sum_i alpha_i k(sv_i, x) of a binary machine (eq. 5) */
double
BkMachineScore(const BkMachine *mach, const double *krow)
{
	double		f = 0.0;

	for (int i = 0; i < mach->n_sv; i++)
		f += mach->coef[(size_t) i * mach->n_coef] * krow[i];
	return f;
}
