/*
 * bk_linalg.c
 *	  The linear algebra whose results reach a model: dot products and
 *	  matrix-vector products (every kernel row is one dot product per SV;
 *	  K^-1 k of BPA-P, Pegasos' projections and the Projectrons), the
 *	  symmetric matrix-vector product (BDUOL's a'Ka), the rank-k update
 *	  that rebuilds K, and the Cholesky factor, inverse and solve (their
 *	  K^-1, BDUOL's box QP, paper 001 eq. 8).
 *
 *	  Determinism rule.  A model's bytes must be a function of its rows,
 *	  their order, its parameters and its seed (doc/maintainers.md,
 *	  "Determinism"), so
 *	  every sum here is taken in an order fixed by the sizes alone: a dot
 *	  product of n terms keeps BK_LIN_LANES = 8 partial sums, term i going
 *	  to sum i mod 8 in increasing i (the last block zero-padded), and
 *	  adds them in one fixed tree, ((s0 + s4) + (s2 + s6)) + ((s1 + s5) +
 *	  (s3 + s7)).  The eight sums are independent, so a compiler may keep
 *	  them in four SSE2 registers, two AVX2 ones or one AVX-512 one: the
 *	  same additions of the same values, so the same bits.  The build
 *	  passes -ffp-contract=off and the AVX2 clones are compiled for "avx2"
 *	  without "fma", so no product is fused with a sum.  Everything else
 *	  is element by element (an axpy) or a sequence of such dot products.
 *	  BLAS and LAPACK pick their kernels, blocking and summation order by
 *	  CPU, so no result that reaches a model may come from them
 *	  (doc/maintainers.md, Determinism); the unit tests check these
 *	  functions against them within rounding.
 *
 *	  The Cholesky factor's entries are each one dot product of two rows
 *	  of L (Cholesky-Banachiewicz), taken column by column (one gemv a
 *	  column); the inverse is (L^-1)^T L^-1 with
 *	  L^-1 by columns, each entry again one dot product of contiguous rows
 *	  (Golub and Van Loan, Matrix Computations, 4th ed., Algorithm 4.2.1
 *	  and section 3.1): n^3 / 3 + n^3 / 6 multiplications, as LAPACK's
 *	  dpotrf + dpotri, with the same backward stability.
 */
#include "bk_internal.h"

#include <math.h>
#include <string.h>

#ifdef BK_VECTOR_AVX2
#include <immintrin.h>
#endif

/* the eight partial sums' tree, the same in every function */
#define LIN_TREE(s) \
	((((s)[0] + (s)[4]) + ((s)[2] + (s)[6])) + (((s)[1] + (s)[5]) + ((s)[3] + (s)[7])))

/*
 * X(l) for each of the eight lanes, written out: the lanes' sums are then
 * scalars the compiler keeps in registers and packs into vectors (SLP),
 * where a loop over l kept them in memory
 */
#define LIN_EACH(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

#if defined(__GNUC__)
#define LIN_INLINE static inline __attribute__((always_inline))
#else
#define LIN_INLINE static inline
#endif

/*
 * The bodies, written once: fixed-trip inner loops over the eight lanes
 * that GCC's SLP vectoriser turns into vector instructions of the
 * target's width, lane for lane.  Each public function below runs them
 * compiled for the baseline ISA, or for AVX2 (without FMA) where the CPU
 * has it and the lane paths are on: the same operations on each lane, so
 * the same bits (the unit tests compare the two).
 */
/*
 * The matrix of a dot product or gemv holds doubles, or float4 values (a
 * float4 model's support vectors, bk_svstore.c): each value is read as
 * the double it equals, which is exact, so the products and sums are the
 * same whatever the storage.  f32 is a constant at every call of these
 * always-inlined bodies: each compiles once for each storage, with no
 * test left in its loops.
 */
LIN_INLINE double
lin_at(const void *a, bool f32, size_t i)
{
	return f32 ? (double) ((const float *) a)[i] : ((const double *) a)[i];
}

/* a advanced by i values of its storage */
LIN_INLINE const void *
lin_skip(const void *a, bool f32, size_t i)
{
	return (const char *) a + i * (f32 ? sizeof(float) : sizeof(double));
}

/*
 * The last n mod 8 terms as a whole block of eight: a and b's rem values
 * into ta and tb, zeros after them (the lanes stay in registers, where a
 * loop over the rem lanes alone would index them in memory).  So a dot
 * product is that of the two vectors zero-padded to a multiple of 8.
 */
LIN_INLINE void
lin_tail_of(const void *a, bool f32, const double *b, int rem, double *ta,
			double *tb)
{
	for (int l = 0; l < BK_LIN_LANES; l++)
	{
		ta[l] = l < rem ? lin_at(a, f32, (size_t) l) : 0.0;
		tb[l] = l < rem ? b[l] : 0.0;
	}
}

LIN_INLINE void
lin_tail(const double *a, const double *b, int rem, double *ta, double *tb)
{
	lin_tail_of(a, false, b, rem, ta, tb);
}

LIN_INLINE double
lin_dot_of(const void *restrict a, bool f32, const double *restrict b, int n)
{
	double		s[BK_LIN_LANES] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
	int			i = 0;

#define DOT_STEP(l) s[l] += lin_at(a, f32, (size_t) (i + l)) * b[i + l];
#define DOT_TAIL(l) s[l] += ta[l] * tb[l];
	for (; i + BK_LIN_LANES <= n; i += BK_LIN_LANES)
	{
		LIN_EACH(DOT_STEP)
	}
	if (i < n)
	{
		double		ta[BK_LIN_LANES],
					tb[BK_LIN_LANES];

		lin_tail_of(lin_skip(a, f32, (size_t) i), f32, b + i, n - i, ta, tb);
		LIN_EACH(DOT_TAIL)
	}
	return LIN_TREE(s);
#undef DOT_STEP
#undef DOT_TAIL
}

LIN_INLINE double
lin_dot(const double *restrict a, const double *restrict b, int n)
{
	return lin_dot_of(a, false, b, n);
}

/*
 * m rows of a against x: y[r] = lin_dot_of(row r, x, n), four rows at a
 * time so that each load of x serves four rows (each row's sums are its
 * own: the same bits as one row at a time)
 */
LIN_INLINE void
lin_gemv_of(int m, int n, const void *a, bool f32, int lda, const double *x,
			double *y)
{
	int			r = 0;

	for (; r + 4 <= m; r += 4)
	{
		const void *a0 = lin_skip(a, f32, (size_t) r * lda);
		const void *a1 = lin_skip(a0, f32, (size_t) lda);
		const void *a2 = lin_skip(a1, f32, (size_t) lda);
		const void *a3 = lin_skip(a2, f32, (size_t) lda);
		double		s0[BK_LIN_LANES] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
		double		s1[BK_LIN_LANES] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
		double		s2[BK_LIN_LANES] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
		double		s3[BK_LIN_LANES] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
		int			i = 0;

#define GEMV_STEP(l) \
		s0[l] += lin_at(a0, f32, (size_t) (i + l)) * x[i + l]; \
		s1[l] += lin_at(a1, f32, (size_t) (i + l)) * x[i + l]; \
		s2[l] += lin_at(a2, f32, (size_t) (i + l)) * x[i + l]; \
		s3[l] += lin_at(a3, f32, (size_t) (i + l)) * x[i + l];
#define GEMV_TAIL(l) \
		s0[l] += t0[l] * tx[l]; \
		s1[l] += t1[l] * tx[l]; \
		s2[l] += t2[l] * tx[l]; \
		s3[l] += t3[l] * tx[l];
		for (; i + BK_LIN_LANES <= n; i += BK_LIN_LANES)
		{
			LIN_EACH(GEMV_STEP)
		}
		if (i < n)
		{
			double		tx[BK_LIN_LANES],
						t0[BK_LIN_LANES],
						t1[BK_LIN_LANES],
						t2[BK_LIN_LANES],
						t3[BK_LIN_LANES];

			lin_tail_of(lin_skip(a0, f32, (size_t) i), f32, x + i, n - i, t0, tx);
			lin_tail_of(lin_skip(a1, f32, (size_t) i), f32, x + i, n - i, t1, tx);
			lin_tail_of(lin_skip(a2, f32, (size_t) i), f32, x + i, n - i, t2, tx);
			lin_tail_of(lin_skip(a3, f32, (size_t) i), f32, x + i, n - i, t3, tx);
			LIN_EACH(GEMV_TAIL)
		}
#undef GEMV_STEP
#undef GEMV_TAIL
		y[r] = LIN_TREE(s0);
		y[r + 1] = LIN_TREE(s1);
		y[r + 2] = LIN_TREE(s2);
		y[r + 3] = LIN_TREE(s3);
	}
	for (; r < m; r++)
		y[r] = lin_dot_of(lin_skip(a, f32, (size_t) r * lda), f32, x, n);
}

LIN_INLINE void
lin_gemv(int m, int n, const double *a, int lda, const double *x, double *y)
{
	lin_gemv_of(m, n, a, false, lda, x, y);
}

/*
 * One pass over the upper triangle, row by row: row i's part from the
 * diagonal on is a dot product with x, and its part right of the
 * diagonal adds a[i][j] x[i] to y[j] for j > i (the lower triangle's term
 * of row j, taken in order of i).  When row i is reached, y[i] holds its
 * lower triangle's terms.
 *
 * The dot product puts term j in partial sum j mod 8, the column's own
 * lane, so that rows processed together share their loads of x; BkDot
 * of the row from i on would put it in (j - i) mod 8.  That is the same
 * number: the lanes are rotated by i, each lane holds the same terms in
 * the same order, and the tree's pairs (l, l + 4) and groups {0, 2} and
 * {1, 3} of pairs are exchanged only within an addition, which is
 * commutative in floating point.  (A lane without terms is +0 either way.)
 */
LIN_INLINE void
lin_symv_upper(int n, const double *a, int lda, const double *x, double *y)
{
	for (int i = 0; i < n; i++)
		y[i] = 0.0;
	for (int i = 0; i < n; i++)
	{
		const double *r = a + (size_t) i * lda;
		const double xi = x[i];
		double		s[BK_LIN_LANES] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};

		for (int j = i; j < n; j++)
			s[j % BK_LIN_LANES] += r[j] * x[j];
		for (int j = i + 1; j < n; j++)
			y[j] += r[j] * xi;
		y[i] = y[i] + LIN_TREE(s);
	}
}

LIN_INLINE void
lin_syrk_upper(int n, int dim, const double *a, int lda, double *c, int ldc)
{
	for (int i = 0; i < n; i++)
		lin_gemv(n - i, dim, a + (size_t) i * lda, lda, a + (size_t) i * lda,
				 c + (size_t) i * ldc + i);
}

/*
 * Cholesky: L_ij = (A_ij - L_i[0:j] . L_j[0:j]) / L_jj for j < i, and
 * L_ii = sqrt(A_ii - L_i[0:i] . L_i[0:i]); A_ij (j < i) read from the
 * upper triangle, a[j][i].  The entries are those of the row-by-row
 * (Cholesky-Banachiewicz) order, each one dot product, but taken column
 * by column (Cholesky-Crout): column j's entries below the diagonal are
 * independent dot products of rows of L with the same L_j[0:j], one
 * gemv (whose rows are BkDot's, bit for bit), where the row order chains
 * every entry to the one before it through its division.  Rows before
 * "first" are taken as already factorised (their entries are left as
 * they are): a factor whose leading rows have not changed is extended.
 */
#define LIN_CHOL_CHUNK 64

LIN_INLINE bool
lin_cholesky_from(const double *a, int lda, double *l, int ldl, int n,
				  int first)
{
	for (int j = 0; j < n; j++)
	{
		double	   *lj = l + (size_t) j * ldl;
		int			i0 = j + 1 > first ? j + 1 : first;

		if (j >= first)
		{
			double		d = a[(size_t) j * lda + j] - lin_dot(lj, lj, j);

			if (!(d > 0.0) || !isfinite(d))
				return false;
			lj[j] = sqrt(d);
		}
		for (int i = i0; i < n; i += LIN_CHOL_CHUNK)
		{
			double		t[LIN_CHOL_CHUNK];
			int			m = n - i < LIN_CHOL_CHUNK ? n - i : LIN_CHOL_CHUNK;

			lin_gemv(m, j, l + (size_t) i * ldl, ldl, lj, t);
			for (int r = 0; r < m; r++)
				l[(size_t) (i + r) * ldl + j] =
					(a[(size_t) j * lda + i + r] - t[r]) / lj[j];
		}
	}
	return true;
}

/*
 * V = L^-T (upper triangular, row-major in out, stride ldo): column j of
 * L^-1 is row j of V, V_jj = 1 / L_jj and V_ji = -(L_i[j:i] . V_j[j:i]) /
 * L_ii for i > j (forward substitution, both operands contiguous).  Then
 * A^-1 = V V^T: (A^-1)_ij = V_i[j:] . V_j[j:] for i <= j, written over V
 * in place: row i's entry j needs V_i from j on and rows of V after i,
 * none of which an earlier write has touched.  Only the upper triangle of
 * out is written.
 */
LIN_INLINE void
lin_chol_inverse_upper(const double *l, int ldl, int n, double *out, int ldo)
{
	for (int j = 0; j < n; j++)
	{
		double	   *vj = out + (size_t) j * ldo;

		vj[j] = 1.0 / l[(size_t) j * ldl + j];
		for (int i = j + 1; i < n; i++)
		{
			const double *li = l + (size_t) i * ldl;

			vj[i] = -lin_dot(li + j, vj + j, i - j) / li[i];
		}
	}
	for (int i = 0; i < n; i++)
	{
		double	   *vi = out + (size_t) i * ldo;

		for (int j = i; j < n; j++)
			vi[j] = lin_dot(vi + j, out + (size_t) j * ldo + j, n - j);
	}
}

#ifdef BK_VECTOR_AVX2
/*
 * The AVX2 clones (without FMA): the bodies above written with GCC's
 * vector types, lanes 0-3 of the eight in one 4-double vector and lanes
 * 4-7 in another, so that they stay in registers and each load serves
 * four lanes (GCC's vectoriser packed the plain bodies across rows
 * instead).  Lane by lane the same products and sums in the same order,
 * and the tree starts with the two vectors' sum (s_l + s_(l+4)): the same
 * bits as the plain bodies, which the unit tests check.
 */
#define LIN_AVX2 __attribute__((target("avx2")))

#define V4_LOAD(v, p) memcpy(&(v), (p), sizeof(bk_v4d))
#define V4_ZERO {0.0, 0.0, 0.0, 0.0}

/*
 * The lanes of a block of eight columns from column c0 on that lie
 * before column end: a mask for each half (AVX2 masked loads and stores
 * read and write only those; the others read as +0).  A term of +0 * +0
 * leaves a partial sum as it was, as the plain code's skipped term does
 * (a sum that starts at +0 is never -0).
 */
#define V4_MASKS(c0, end, mlo, mhi) \
	do { \
		const __m256i i0_ = _mm256_setr_epi64x(0, 1, 2, 3); \
		const __m256i i4_ = _mm256_setr_epi64x(4, 5, 6, 7); \
		const __m256i lim_ = _mm256_set1_epi64x((long long) (end) - (long long) (c0)); \
		(mlo) = _mm256_cmpgt_epi64(lim_, i0_); \
		(mhi) = _mm256_cmpgt_epi64(lim_, i4_); \
	} while (0)
#define V4_MLOAD(p, m) ((bk_v4d) _mm256_maskload_pd((p), (m)))

/* LIN_TREE of the lanes lo (0-3) and hi (4-7) */
#define V4_TREE(lo, hi, out) \
	do { bk_v4d t_ = (lo) + (hi); (out) = (t_[0] + t_[2]) + (t_[1] + t_[3]); } while (0)

/*
 * Four values of a matrix of either storage (lin_at) from value i on, as
 * four doubles: loaded, or loaded as float4 and converted (exact).  The
 * masked form reads only the lanes of the block of eight from column c0
 * that lie before column end, lo the block's first four, the others +0.
 */
LIN_AVX2 LIN_INLINE bk_v4d
lin_load4(const void *a, bool f32, size_t i)
{
	bk_v4d		v;

	if (f32)
		v = (bk_v4d) _mm256_cvtps_pd(_mm_loadu_ps((const float *) a + i));
	else
		V4_LOAD(v, (const double *) a + i);
	return v;
}

LIN_AVX2 LIN_INLINE bk_v4d
lin_mload4(const void *a, bool f32, size_t i, int c0, int end, bool lo)
{
	if (f32)
	{
		const __m128i lim = _mm_set1_epi32(end - c0);
		const __m128i at = lo ? _mm_setr_epi32(0, 1, 2, 3) : _mm_setr_epi32(4, 5, 6, 7);

		return (bk_v4d) _mm256_cvtps_pd(_mm_maskload_ps((const float *) a + i,
														_mm_cmpgt_epi32(lim, at)));
	}
	else
	{
		__m256i		ml,
					mh;

		V4_MASKS(c0, end, ml, mh);
		return V4_MLOAD((const double *) a + i, lo ? ml : mh);
	}
}

LIN_AVX2 LIN_INLINE double
lin_dot_v4_of(const void *a, bool f32, const double *b, int n)
{
	bk_v4d		lo = V4_ZERO,
				hi = V4_ZERO,
				va,
				vb;
	double		out;
	int			i = 0;

	for (; i + BK_LIN_LANES <= n; i += BK_LIN_LANES)
	{
		va = lin_load4(a, f32, (size_t) i);
		V4_LOAD(vb, b + i);
		lo += va * vb;
		va = lin_load4(a, f32, (size_t) i + 4);
		V4_LOAD(vb, b + i + 4);
		hi += va * vb;
	}
	if (i < n)
	{
		double		ta[BK_LIN_LANES],
					tb[BK_LIN_LANES];

		lin_tail_of(lin_skip(a, f32, (size_t) i), f32, b + i, n - i, ta, tb);
		V4_LOAD(va, ta);
		V4_LOAD(vb, tb);
		lo += va * vb;
		V4_LOAD(va, ta + 4);
		V4_LOAD(vb, tb + 4);
		hi += va * vb;
	}
	V4_TREE(lo, hi, out);
	return out;
}

LIN_AVX2 LIN_INLINE double
lin_dot_v4(const double *a, const double *b, int n)
{
	return lin_dot_v4_of(a, false, b, n);
}

LIN_AVX2 static double
lin_dot_avx2(const double *a, const double *b, int n)
{
	return lin_dot_v4(a, b, n);
}

/* lin_gemv_of with AVX2, the last n mod 8 columns through masked loads */
LIN_AVX2 LIN_INLINE void
lin_gemv_v4_of(int m, int n, const void *a, bool f32, int lda, const double *x,
			   double *y)
{
	int			r = 0;

	for (; r + 4 <= m; r += 4)
	{
		const void *a0 = lin_skip(a, f32, (size_t) r * lda);
		const void *a1 = lin_skip(a0, f32, (size_t) lda);
		const void *a2 = lin_skip(a1, f32, (size_t) lda);
		const void *a3 = lin_skip(a2, f32, (size_t) lda);
		bk_v4d		l0 = V4_ZERO,
					h0 = V4_ZERO,
					l1 = V4_ZERO,
					h1 = V4_ZERO,
					l2 = V4_ZERO,
					h2 = V4_ZERO,
					l3 = V4_ZERO,
					h3 = V4_ZERO,
					xl,
					xh;
		int			i = 0;

		for (; i + BK_LIN_LANES <= n; i += BK_LIN_LANES)
		{
			size_t		c = (size_t) i;

			V4_LOAD(xl, x + i);
			V4_LOAD(xh, x + i + 4);
			l0 += lin_load4(a0, f32, c) * xl;
			h0 += lin_load4(a0, f32, c + 4) * xh;
			l1 += lin_load4(a1, f32, c) * xl;
			h1 += lin_load4(a1, f32, c + 4) * xh;
			l2 += lin_load4(a2, f32, c) * xl;
			h2 += lin_load4(a2, f32, c + 4) * xh;
			l3 += lin_load4(a3, f32, c) * xl;
			h3 += lin_load4(a3, f32, c + 4) * xh;
		}
		if (i < n)
		{
			size_t		c = (size_t) i;

			xl = lin_mload4(x, false, c, i, n, true);
			xh = lin_mload4(x, false, c + 4, i, n, false);
			l0 += lin_mload4(a0, f32, c, i, n, true) * xl;
			h0 += lin_mload4(a0, f32, c + 4, i, n, false) * xh;
			l1 += lin_mload4(a1, f32, c, i, n, true) * xl;
			h1 += lin_mload4(a1, f32, c + 4, i, n, false) * xh;
			l2 += lin_mload4(a2, f32, c, i, n, true) * xl;
			h2 += lin_mload4(a2, f32, c + 4, i, n, false) * xh;
			l3 += lin_mload4(a3, f32, c, i, n, true) * xl;
			h3 += lin_mload4(a3, f32, c + 4, i, n, false) * xh;
		}
		V4_TREE(l0, h0, y[r]);
		V4_TREE(l1, h1, y[r + 1]);
		V4_TREE(l2, h2, y[r + 2]);
		V4_TREE(l3, h3, y[r + 3]);
	}
	for (; r < m; r++)
		y[r] = lin_dot_v4_of(lin_skip(a, f32, (size_t) r * lda), f32, x, n);
}

LIN_AVX2 static void
lin_gemv_avx2(int m, int n, const double *a, int lda, const double *x,
			  double *y)
{
	lin_gemv_v4_of(m, n, a, false, lda, x, y);
}

LIN_AVX2 static void
lin_gemv_f_avx2(int m, int n, const float *a, int lda, const double *x,
				double *y)
{
	lin_gemv_v4_of(m, n, a, true, lda, x, y);
}

/*
 * lin_symv_upper four rows at a time, over the columns from the block of
 * eight that holds the first row's diagonal: each load of x and y serves
 * the four rows, y[j] gains the rows' terms in row order, and each row's
 * sums stay in registers.  In the blocks that hold the four diagonals a
 * row's values left of its diagonal are replaced by 0 for its dot
 * product, and on and left of it for its terms of y; the last block is
 * read through masked loads.  A zero term adds +0 * x or x * +0, which
 * leaves a partial sum or y[j] as it was (neither is ever -0: each starts
 * at +0), so each row's sums hold the plain code's terms, in its lanes
 * and order, and y the same values: the same bits.
 */
LIN_AVX2 static void
lin_symv_upper_avx2(int n, const double *a, int lda, const double *x,
					double *y)
{
	const __m256i i0 = _mm256_setr_epi64x(0, 1, 2, 3);
	const __m256i i4 = _mm256_setr_epi64x(4, 5, 6, 7);
	const bk_v4d zero = V4_ZERO;

	for (int k = 0; k < n; k++)
		y[k] = 0.0;
	for (int i = 0; i < n; i += 4)
	{
		int			rows = n - i < 4 ? n - i : 4;
		int			b0 = i & ~(BK_LIN_LANES - 1);
		const double *ar[4];
		bk_v4d		xr[4],
					lo[4] = {V4_ZERO, V4_ZERO, V4_ZERO, V4_ZERO},
					hi[4] = {V4_ZERO, V4_ZERO, V4_ZERO, V4_ZERO},
					l0,
					l1,
					l2,
					l3,
					h0,
					h1,
					h2,
					h3,
					xl,
					xh,
					yl,
					yh,
					v;
		int			j = b0;

		for (int r = 0; r < 4; r++)
		{
			int			rr = r < rows ? r : rows - 1;
			double		xv = r < rows ? x[i + r] : 0.0;

			ar[r] = a + (size_t) (i + rr) * lda;
			xr[r] = (bk_v4d) {xv, xv, xv, xv};
		}

		/* the blocks that hold a diagonal, and any block past n's end */
		for (; j < n && (j < i + rows || j + BK_LIN_LANES > n); j += BK_LIN_LANES)
		{
			__m256i		ml,
						mh;
			const __m256i c_lo = _mm256_add_epi64(_mm256_set1_epi64x(j), i0);
			const __m256i c_hi = _mm256_add_epi64(_mm256_set1_epi64x(j), i4);

			V4_MASKS(j, n, ml, mh);
			xl = V4_MLOAD(x + j, ml);
			xh = V4_MLOAD(x + j + 4, mh);
			yl = V4_MLOAD(y + j, ml);
			yh = V4_MLOAD(y + j + 4, mh);
			for (int r = 0; r < rows; r++)
			{
				const __m256i d = _mm256_set1_epi64x(i + r);
				/* column >= i + r: the dot product; > i + r: y's term */
				const bk_v4d dl = (bk_v4d) _mm256_cmpgt_epi64(c_lo, _mm256_sub_epi64(d, _mm256_set1_epi64x(1)));
				const bk_v4d dh = (bk_v4d) _mm256_cmpgt_epi64(c_hi, _mm256_sub_epi64(d, _mm256_set1_epi64x(1)));
				const bk_v4d tl = (bk_v4d) _mm256_cmpgt_epi64(c_lo, d);
				const bk_v4d th = (bk_v4d) _mm256_cmpgt_epi64(c_hi, d);
				bk_v4d		vl = V4_MLOAD(ar[r] + j, ml),
							vh = V4_MLOAD(ar[r] + j + 4, mh);

				lo[r] += (bk_v4d) _mm256_blendv_pd((__m256d) zero, (__m256d) vl, (__m256d) dl) * xl;
				hi[r] += (bk_v4d) _mm256_blendv_pd((__m256d) zero, (__m256d) vh, (__m256d) dh) * xh;
				yl += (bk_v4d) _mm256_blendv_pd((__m256d) zero, (__m256d) vl, (__m256d) tl) * xr[r];
				yh += (bk_v4d) _mm256_blendv_pd((__m256d) zero, (__m256d) vh, (__m256d) th) * xr[r];
			}
			_mm256_maskstore_pd(y + j, ml, (__m256d) yl);
			_mm256_maskstore_pd(y + j + 4, mh, (__m256d) yh);
		}

		/* the common columns: no diagonal, whole blocks */
		l0 = lo[0];
		l1 = lo[1];
		l2 = lo[2];
		l3 = lo[3];
		h0 = hi[0];
		h1 = hi[1];
		h2 = hi[2];
		h3 = hi[3];
		if (rows == 4)
			for (; j + BK_LIN_LANES <= n; j += BK_LIN_LANES)
			{
				V4_LOAD(xl, x + j);
				V4_LOAD(xh, x + j + 4);
				V4_LOAD(yl, y + j);
				V4_LOAD(yh, y + j + 4);
				V4_LOAD(v, ar[0] + j);
				l0 += v * xl;
				yl += v * xr[0];
				V4_LOAD(v, ar[0] + j + 4);
				h0 += v * xh;
				yh += v * xr[0];
				V4_LOAD(v, ar[1] + j);
				l1 += v * xl;
				yl += v * xr[1];
				V4_LOAD(v, ar[1] + j + 4);
				h1 += v * xh;
				yh += v * xr[1];
				V4_LOAD(v, ar[2] + j);
				l2 += v * xl;
				yl += v * xr[2];
				V4_LOAD(v, ar[2] + j + 4);
				h2 += v * xh;
				yh += v * xr[2];
				V4_LOAD(v, ar[3] + j);
				l3 += v * xl;
				yl += v * xr[3];
				V4_LOAD(v, ar[3] + j + 4);
				h3 += v * xh;
				yh += v * xr[3];
				memcpy(y + j, &yl, sizeof(yl));
				memcpy(y + j + 4, &yh, sizeof(yh));
			}
		/* (fewer than four rows: the last block; whole blocks for them) */
		for (; j + BK_LIN_LANES <= n; j += BK_LIN_LANES)
		{
			bk_v4d	   *lr[4] = {&l0, &l1, &l2, &l3},
					   *hr[4] = {&h0, &h1, &h2, &h3};

			V4_LOAD(xl, x + j);
			V4_LOAD(xh, x + j + 4);
			V4_LOAD(yl, y + j);
			V4_LOAD(yh, y + j + 4);
			for (int r = 0; r < rows; r++)
			{
				V4_LOAD(v, ar[r] + j);
				*lr[r] += v * xl;
				yl += v * xr[r];
				V4_LOAD(v, ar[r] + j + 4);
				*hr[r] += v * xh;
				yh += v * xr[r];
			}
			memcpy(y + j, &yl, sizeof(yl));
			memcpy(y + j + 4, &yh, sizeof(yh));
		}
		/* the last, partial block */
		if (j < n)
		{
			__m256i		ml,
						mh;
			bk_v4d	   *lr[4] = {&l0, &l1, &l2, &l3},
					   *hr[4] = {&h0, &h1, &h2, &h3};

			V4_MASKS(j, n, ml, mh);
			xl = V4_MLOAD(x + j, ml);
			xh = V4_MLOAD(x + j + 4, mh);
			yl = V4_MLOAD(y + j, ml);
			yh = V4_MLOAD(y + j + 4, mh);
			for (int r = 0; r < rows; r++)
			{
				bk_v4d		vl = V4_MLOAD(ar[r] + j, ml),
							vh = V4_MLOAD(ar[r] + j + 4, mh);

				*lr[r] += vl * xl;
				*hr[r] += vh * xh;
				yl += vl * xr[r];
				yh += vh * xr[r];
			}
			_mm256_maskstore_pd(y + j, ml, (__m256d) yl);
			_mm256_maskstore_pd(y + j + 4, mh, (__m256d) yh);
		}
		{
			bk_v4d		lf[4] = {l0, l1, l2, l3},
						hf[4] = {h0, h1, h2, h3};

			for (int r = 0; r < rows; r++)
			{
				double		d;

				V4_TREE(lf[r], hf[r], d);
				y[i + r] = y[i + r] + d;
			}
		}
	}
}

/* the plain bodies with lin_dot_v4 for lin_dot */
LIN_AVX2 static void
lin_syrk_upper_avx2(int n, int dim, const double *a, int lda, double *c,
					int ldc)
{
	for (int i = 0; i < n; i++)
		lin_gemv_avx2(n - i, dim, a + (size_t) i * lda, lda, a + (size_t) i * lda,
					  c + (size_t) i * ldc + i);
}

/* lin_cholesky_from with lin_gemv_v4_of and lin_dot_v4 */
LIN_AVX2 static bool
lin_cholesky_avx2(const double *a, int lda, double *l, int ldl, int n,
				  int first)
{
	for (int j = 0; j < n; j++)
	{
		double	   *lj = l + (size_t) j * ldl;
		int			i0 = j + 1 > first ? j + 1 : first;

		if (j >= first)
		{
			double		d = a[(size_t) j * lda + j] - lin_dot_v4(lj, lj, j);

			if (!(d > 0.0) || !isfinite(d))
				return false;
			lj[j] = sqrt(d);
		}
		for (int i = i0; i < n; i += LIN_CHOL_CHUNK)
		{
			double		t[LIN_CHOL_CHUNK];
			int			m = n - i < LIN_CHOL_CHUNK ? n - i : LIN_CHOL_CHUNK;

			lin_gemv_v4_of(m, j, l + (size_t) i * ldl, false, ldl, lj, t);
			for (int r = 0; r < m; r++)
				l[(size_t) (i + r) * ldl + j] =
					(a[(size_t) j * lda + i + r] - t[r]) / lj[j];
		}
	}
	return true;
}

LIN_AVX2 static void
lin_chol_inverse_upper_avx2(const double *l, int ldl, int n, double *out,
							int ldo)
{
	for (int j = 0; j < n; j++)
	{
		double	   *vj = out + (size_t) j * ldo;

		vj[j] = 1.0 / l[(size_t) j * ldl + j];
		for (int i = j + 1; i < n; i++)
		{
			const double *li = l + (size_t) i * ldl;

			vj[i] = -lin_dot_v4(li + j, vj + j, i - j) / li[i];
		}
	}
	for (int i = 0; i < n; i++)
	{
		double	   *vi = out + (size_t) i * ldo;

		for (int j = i; j < n; j++)
			vi[j] = lin_dot_v4(vi + j, out + (size_t) j * ldo + j, n - j);
	}
}
#define LIN_DISPATCH(cond, call) \
	do { if ((cond) && BkVectorLanes()) return call; } while (0)
#else
#define LIN_DISPATCH(cond, call) ((void) 0)
#endif

double
BkDot(const double *a, const double *b, int n)
{
	LIN_DISPATCH(n >= 16, lin_dot_avx2(a, b, n));
	return lin_dot(a, b, n);
}

void
BkLinGemv(int m, int n, const double *a, int lda, const double *x, double *y)
{
	LIN_DISPATCH(true, lin_gemv_avx2(m, n, a, lda, x, y));
	lin_gemv(m, n, a, lda, x, y);
}

void
BkLinGemvF32(int m, int n, const float *a, int lda, const double *x, double *y)
{
	LIN_DISPATCH(true, lin_gemv_f_avx2(m, n, a, lda, x, y));
	lin_gemv_of(m, n, a, true, lda, x, y);
}

void
BkLinSymvUpper(int n, const double *a, int lda, const double *x, double *y)
{
#ifdef BK_VECTOR_AVX2
	if (BkVectorWide())
	{
		BkLinSymvUpperAvx512(n, a, lda, x, y);
		return;
	}
#endif
	LIN_DISPATCH(true, lin_symv_upper_avx2(n, a, lda, x, y));
	lin_symv_upper(n, a, lda, x, y);
}

/* c[i][j] = a_i . a_j for j >= i: the rows from i on against row i */
void
BkLinSyrkUpper(int n, int dim, const double *a, int lda, double *c, int ldc)
{
	LIN_DISPATCH(true, lin_syrk_upper_avx2(n, dim, a, lda, c, ldc));
	lin_syrk_upper(n, dim, a, lda, c, ldc);
}

bool
BkLinCholesky(const double *a, int lda, double *l, int ldl, int n)
{
	return BkLinCholeskyFrom(a, lda, l, ldl, n, 0);
}

bool
BkLinCholeskyFrom(const double *a, int lda, double *l, int ldl, int n,
				  int first)
{
	LIN_DISPATCH(true, lin_cholesky_avx2(a, lda, l, ldl, n, first));
	return lin_cholesky_from(a, lda, l, ldl, n, first);
}

void
BkLinCholInverseUpper(const double *l, int ldl, int n, double *out, int ldo)
{
	LIN_DISPATCH(true, lin_chol_inverse_upper_avx2(l, ldl, n, out, ldo));
	lin_chol_inverse_upper(l, ldl, n, out, ldo);
}

void
BkLinCholInverse(double *m, int n, double *work)
{
	BkLinCholInverseUpper(m, n, n, work, n);
	for (int i = 0; i < n; i++)
		for (int j = i; j < n; j++)
		{
			double		v = work[(size_t) i * n + j];

			m[(size_t) i * n + j] = v;
			m[(size_t) j * n + i] = v;
		}
}

/*
 * L y = b forward (y_i = (b_i - L_i[0:i] . y[0:i]) / L_ii), then L^T x = y
 * backward, column by column: x_i = y_i / L_ii, then y_k -= L_ik x_i for
 * k < i (in order of decreasing i).  O(n^2), on the small systems of the
 * box QP's active set: no clone.
 */
void
BkLinCholSolve(const double *l, int ldl, int n, double *b)
{
	for (int i = 0; i < n; i++)
	{
		const double *li = l + (size_t) i * ldl;

		b[i] = (b[i] - BkDot(li, b, i)) / li[i];
	}
	for (int i = n - 1; i >= 0; i--)
	{
		const double *li = l + (size_t) i * ldl;
		const double xi = b[i] / li[i];

		b[i] = xi;
		for (int k = 0; k < i; k++)
			b[k] -= li[k] * xi;
	}
}
