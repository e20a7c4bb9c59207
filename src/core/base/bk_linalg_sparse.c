/*
 * bk_linalg_sparse.c
 *	  BkLinGemv for a row x that is mostly zeros (text inputs one-hot
 *	  encoded, LIBSVM rows that are not standardised): the same bits as
 *	  BkLinGemv in O(m nnz) instead of O(m n).
 *
 *	  BkLinGemv's dot product sends term j to partial sum j mod 8, in
 *	  increasing j, and adds the eight sums in one tree (bk_linalg.c,
 *	  "Determinism rule").  A term of x[j] = 0 is a[j] * (+-0) = +-0 for
 *	  a finite a[j], and adding +-0 leaves a partial sum as it was: a sum
 *	  starts at +0 and never becomes -0 (x + (-x) is +0 when rounding to
 *	  nearest, and -0 + +0 is +0), so a nonzero sum is unchanged and a
 *	  zero one stays +0.  Leaving those terms out, and keeping every other
 *	  term in its sum and in its order, gives each partial sum, and so the
 *	  tree, the same bits.  The SVs' values are finite (the model's
 *	  validation checks them), so no Inf * 0 = NaN is left out.
 */
#include "bk_internal.h"

#include <string.h>
#ifdef BK_VECTOR_AVX2
#include <immintrin.h>
#endif

/* the partial sum of column j: BkLinGemv's */
#define LANES 8

/* BkLinGemv's tree of the eight partial sums */
#define SPARSE_TREE(s) \
	((((s)[0] + (s)[4]) + ((s)[2] + (s)[6])) + (((s)[1] + (s)[5]) + ((s)[3] + (s)[7])))

/*
 * Without a branch on each value (where the nonzeros fall is not
 * predictable): every column is written at the next place, which only a
 * nonzero keeps, so cols holds max_nnz + 1 places
 */
int
BkLinSparseLanes(const double *x, int n, int max_nnz, int *cols, int *lane_end)
{
	int			nnz = 0;

	for (int l = 0; l < LANES; l++)
	{
		for (int j = l; j < n; j += LANES)
		{
			cols[nnz] = j;
			nnz += x[j] != 0.0;
			if (nnz > max_nnz)
				return -1;
		}
		lane_end[l] = nnz;
	}
	return nnz;
}

#ifdef BK_VECTOR_AVX2
/*
 * Four rows at a time in AVX2 lanes, a row a lane: each lane the plain
 * code's products and sums of its row, in its order (element by element,
 * so the same bits), the four values of a column gathered into one
 * vector.  Returns the rows done, a multiple of four.
 */
__attribute__((target("avx2")))
static int
gemv_sparse_avx2(int m, const double *a, int lda, const double *x,
				 const int *cols, const int *lane_end, double *y)
{
	int			r = 0;

	for (; r + 4 <= m; r += 4)
	{
		const double *a0 = a + (size_t) r * (size_t) lda;
		const double *a1 = a0 + lda;
		const double *a2 = a1 + lda;
		const double *a3 = a2 + lda;
		bk_v4d		s[LANES],
					u0,
					u1,
					u2,
					u3,
					out;
		int			k = 0;

		for (int l = 0; l < LANES; l++)
		{
			bk_v4d		t = {0.0, 0.0, 0.0, 0.0};

			for (; k < lane_end[l]; k++)
			{
				int			j = cols[k];
				bk_v4d		v = {a0[j], a1[j], a2[j], a3[j]},
							xv = {x[j], x[j], x[j], x[j]};

				t += v * xv;
			}
			s[l] = t;
		}
		/* SPARSE_TREE, lane by lane */
		u0 = s[0] + s[4];
		u2 = s[2] + s[6];
		u1 = s[1] + s[5];
		u3 = s[3] + s[7];
		out = (u0 + u2) + (u1 + u3);
		memcpy(y + r, &out, sizeof(out));
	}
	return r;
}
#endif

void
BkLinGemvSparse(int m, const double *a, int lda, const double *x,
				const int *cols, const int *lane_end, double *y)
{
	int			r = 0;

#ifdef BK_VECTOR_AVX2
	if (BkVectorLanes())
		r = gemv_sparse_avx2(m, a, lda, x, cols, lane_end, y);
#endif

	/* one row at a time: the rows the lanes left, or all without them */
	for (; r < m; r++)
	{
		const double *ar = a + (size_t) r * (size_t) lda;
		double		s[LANES];
		int			k = 0;

		for (int l = 0; l < LANES; l++)
		{
			double		t = 0.0;

			for (; k < lane_end[l]; k++)
				t += ar[cols[k]] * x[cols[k]];
			s[l] = t;
		}
		y[r] = SPARSE_TREE(s);
	}
}
