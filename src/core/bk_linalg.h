/*
 * bk_linalg.h
 *	  The fixed-order linear algebra of the core (bk_linalg.c): included
 *	  by bk_internal.h.  Not included by the PostgreSQL layer.
 */
#ifndef BK_LINALG_H
#define BK_LINALG_H

#include <stdbool.h>

/*
 * ---- bk_linalg.c: the fixed-order linear algebra ----
 *
 * Determinism rule: every floating-point reduction that reaches a model
 * (kernel rows' dot products, K^-1's products, Cholesky factors, inverses
 * and solves) runs here, in an order fixed by the sizes alone.  A dot
 * product keeps BK_LIN_LANES partial sums, element i going to sum i mod
 * BK_LIN_LANES (the last block zero-padded), combined in one fixed tree; a
 * compiler may map the lanes onto SSE2, AVX2 or AVX-512 registers without
 * changing what is added to what, so no width, BLAS kernel, alignment or
 * padding changes a bit.  No BLAS or LAPACK call may compute anything a
 * model holds (doc/maintainers.md, Determinism).
 */
#define BK_LIN_LANES 8

/*
 * sum_i a[i] b[i] in the fixed order above; every dot product and squared
 * norm that reaches a model, so the same vector gets the same norm whether
 * it is a new row or a decoded SV, and a kernel row's dot products are
 * those of BkKernelFromDot's callers
 */
extern double BkDot(const double *a, const double *b, int n);
/* y[i] = BkDot(row i of a, x, n) for the m rows of a, lda apart */
extern void BkLinGemv(int m, int n, const double *a, int lda, const double *x,
					  double *y);
/*
 * BkLinGemv for an x of few nonzeros, the same bits (bk_linalg_sparse.c):
 * BkLinSparseLanes lists x's nonzero columns (at most max_nnz, else it
 * returns -1; cols holds max_nnz + 1) by partial sum, j mod 8, each
 * sum's in increasing j, with lane_end[l] the end of sum l's; it returns
 * their number.
 * BkLinGemvSparse then takes the m rows' dot products over those columns.
 */
extern int	BkLinSparseLanes(const double *x, int n, int max_nnz, int *cols,
							 int *lane_end);
extern void BkLinGemvSparse(int m, const double *a, int lda, const double *x,
							const int *cols, const int *lane_end, double *y);
/*
 * y = A x for the symmetric n x n A whose upper triangle (row-major, lda)
 * a holds: y[i] = sum_{j<i} a[j][i] x[j] (in order of j) + BkDot of
 * row i from i on.  The lower triangle is not read.
 */
extern void BkLinSymvUpper(int n, const double *a, int lda, const double *x,
						   double *y);
/* the upper triangle of C = A A^T (n x n, ldc) for the n rows of A (dim, lda) */
extern void BkLinSyrkUpper(int n, int dim, const double *a, int lda, double *c,
						   int ldc);
/*
 * Cholesky factor A = L L^T of the symmetric n x n A whose upper triangle
 * (row-major) a holds; L into the lower triangle of l (which may be a: the
 * upper triangle is then read before anything overwrites it).  False if a
 * pivot is not positive and finite (A not numerically positive definite).
 */
extern bool BkLinCholesky(const double *a, int lda, double *l, int ldl, int n);
/*
 * BkLinCholesky with rows 0 .. first - 1 of l already the factor of A's
 * leading first x first block (as a call on that block, or on any A with
 * the same block, left them): only the rows from first on are computed,
 * the same bits as the whole factorisation
 */
extern bool BkLinCholeskyFrom(const double *a, int lda, double *l, int ldl,
							  int n, int first);
/*
 * A^-1 from the factor L in the lower triangle of m (n x n, row-major):
 * both triangles of m get A^-1, exactly symmetric; work holds n x n.
 */
extern void BkLinCholInverse(double *m, int n, double *work);
/*
 * The upper triangle of A^-1 into out (n x n, ldo; out may not overlap l)
 * from the factor L in the lower triangle of l (n x n, ldl), the same bits
 * as BkLinCholInverse; out's lower triangle is not written.
 */
extern void BkLinCholInverseUpper(const double *l, int ldl, int n,
								  double *out, int ldo);
/* b = A^-1 b from the factor L in the lower triangle of l (n x n, ldl) */
extern void BkLinCholSolve(const double *l, int ldl, int n, double *b);
/*
 * BkLinGemv of a matrix stored as float4: each value converted to double
 * (exactly) and the same products and sums in the same order, so y is
 * bit for bit BkLinGemv's over the converted matrix
 */
extern void BkLinGemvF32(int m, int n, const float *a, int lda,
						 const double *x, double *y);

#endif							/* BK_LINALG_H */
