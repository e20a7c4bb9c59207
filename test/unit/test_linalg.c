/*
 * test_linalg.c
 *	  Unit tests: the fixed-order linear algebra (bk_linalg.c) against
 *	  BLAS and LAPACKE within rounding, its vector paths against its plain
 *	  code bit for bit, its order against a written-out reference; the
 *	  project's exp, log and log1p (bk_fmath.c) against the C library's.
 */
#include "bk_test.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
same_bits(const double *a, const double *b, size_t n)
{
	return memcmp(a, b, sizeof(double) * n) == 0;
}

/* a random symmetric positive definite n x n matrix: X X^T / d + I / 10 */
static void
random_spd(BkRng *rng, int n, double *k)
{
	int			d = n + 3;
	double	   *x = malloc(sizeof(double) * (size_t) n * d);

	for (int i = 0; i < n * d; i++)
		x[i] = 2.0 * BkRngUniform(rng) - 1.0;
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, d, 1.0 / d, x, d,
				x, d, 0.0, k, n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			k[(size_t) i * n + j] = k[(size_t) j * n + i];
	for (int i = 0; i < n; i++)
		k[(size_t) i * n + i] += 0.1;
	free(x);
}

/*
 * BkDot's order, written out: term i into sum i mod 8, the tree
 * ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7)); every length 0-70,
 * lanes on and off, and against cblas_ddot within rounding.  Then the
 * matrix-vector products are their rows' BkDot, bit for bit, at strides
 * larger than the row (the padding changes nothing).
 */
void
test_linalg_order(void)
{
	BkRng		rng;
	double		a[80],
				b[80];
	int			order = 1,
				lanes = 1,
				close = 1;

	BkRngSeed(&rng, 31);
	for (int i = 0; i < 80; i++)
	{
		a[i] = 4.0 * BkRngUniform(&rng) - 2.0;
		b[i] = 4.0 * BkRngUniform(&rng) - 2.0;
	}
	for (int n = 0; n <= 70; n++)
	{
		double		s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
		double		want,
					got,
					plain;

		for (int i = 0; i < n; i++)
			s[i % 8] += a[i] * b[i];
		want = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
		got = BkDot(a, b, n);
		BkVectorLanesEnable(false);
		plain = BkDot(a, b, n);
		BkVectorLanesEnable(true);
		order &= memcmp(&want, &got, sizeof(double)) == 0;
		lanes &= memcmp(&plain, &got, sizeof(double)) == 0;
		close &= fabs(got - cblas_ddot(n, a, 1, b, 1)) <= 1e-13;
	}
	CHECK(order, "BkDot sums in lanes i mod 8 and one fixed tree, lengths 0-70");
	CHECK(lanes, "BkDot: the same bits with and without the AVX2 path%s",
		  BkCpuHasAvx2() ? "" : " (no AVX2 here: both plain)");
	CHECK(close, "BkDot within 1e-13 of cblas_ddot");

	/* gemv at several shapes and strides: rows' BkDot, lanes on and off */
	{
		int			ok_rows = 1,
					ok_lanes = 1,
					ok_blas = 1;

		for (int m = 1; m <= 13; m += 3)
			for (int n = 1; n <= 37; n += 4)
				for (int pad = 0; pad <= 5; pad += 5)
				{
					int			lda = n + pad;
					double	   *A = malloc(sizeof(double) * (size_t) m * lda);
					double		x[40],
								y[16],
								yp[16],
								yb[16];

					for (int i = 0; i < m * lda; i++)
						A[i] = 2.0 * BkRngUniform(&rng) - 1.0;
					for (int i = 0; i < n; i++)
						x[i] = 2.0 * BkRngUniform(&rng) - 1.0;
					BkLinGemv(m, n, A, lda, x, y);
					BkVectorLanesEnable(false);
					BkLinGemv(m, n, A, lda, x, yp);
					BkVectorLanesEnable(true);
					cblas_dgemv(CblasRowMajor, CblasNoTrans, m, n, 1.0, A, lda, x, 1,
								0.0, yb, 1);
					for (int r = 0; r < m; r++)
					{
						double		d = BkDot(A + (size_t) r * lda, x, n);

						ok_rows &= memcmp(&d, &y[r], sizeof(double)) == 0;
						ok_blas &= fabs(y[r] - yb[r]) <= 1e-13;
					}
					ok_lanes &= same_bits(y, yp, m);
					free(A);
				}
		CHECK(ok_rows, "BkLinGemv: each row's BkDot bit for bit, at any stride");
		CHECK(ok_lanes, "BkLinGemv: the same bits with and without the AVX2 path");
		CHECK(ok_blas, "BkLinGemv within 1e-13 of cblas_dgemv");
	}

	/*
	 * gemv of a float4 matrix: BkLinGemv's bits over the matrix converted
	 * to double, at every tail length, odd row counts and strides, lanes
	 * on and off
	 */
	{
		int			ok_same = 1,
					ok_lanes = 1;

		for (int m = 1; m <= 13; m += 2)
			for (int n = 1; n <= 41; n += 1)
				for (int pad = 0; pad <= 3; pad += 3)
				{
					int			lda = n + pad;
					float	   *A4 = malloc(sizeof(float) * (size_t) m * lda);
					double	   *A = malloc(sizeof(double) * (size_t) m * lda);
					double		x[48],
								y[16],
								y4[16],
								y4p[16];

					for (int i = 0; i < m * lda; i++)
					{
						A4[i] = (float) (2.0 * BkRngUniform(&rng) - 1.0);
						A[i] = (double) A4[i];
					}
					for (int i = 0; i < n; i++)
						x[i] = 2.0 * BkRngUniform(&rng) - 1.0;
					BkLinGemv(m, n, A, lda, x, y);
					BkLinGemvF32(m, n, A4, lda, x, y4);
					BkVectorLanesEnable(false);
					BkLinGemvF32(m, n, A4, lda, x, y4p);
					BkVectorLanesEnable(true);
					ok_same &= same_bits(y, y4, m);
					ok_lanes &= same_bits(y4, y4p, m);
					free(A4);
					free(A);
				}
		CHECK(ok_same, "BkLinGemvF32: BkLinGemv's bits over the converted matrix");
		CHECK(ok_lanes, "BkLinGemvF32: the same bits with and without the AVX2 path");
	}

	/*
	 * gemv of a row of few nonzeros over its nonzeros alone: BkLinGemv's
	 * bits (its AVX2 path's and its plain one's), with and without the
	 * sparse product's AVX2 path, at every tail length, with zeros of both
	 * signs, products that cancel to +0, and values of every magnitude;
	 * the list of nonzeros refused beyond its bound
	 */
	{
		int			ok_same = 1,
					ok_plain = 1,
					ok_cols = 1,
					ok_bound = 1;

		for (int m = 1; m <= 11; m += 2)
			for (int n = 1; n <= 70; n += 3)
				for (int density = 1; density <= 4; density++)
				{
					int			lda = n + (m & 1) * 2;
					double	   *A = malloc(sizeof(double) * (size_t) m * lda);
					double		x[72],
								y[16],
								yp[16],
								ys[16];
					int			cols[73],
								lane_end[8],
								nnz,
								want = 0,
								prev = -1;

					for (int i = 0; i < m * lda; i++)
						A[i] = (2.0 * BkRngUniform(&rng) - 1.0) *
							pow(10.0, (double) (int) (BkRngUniform(&rng) * 8.0) - 4.0);
					for (int i = 0; i < n; i++)
					{
						double		u = BkRngUniform(&rng);

						x[i] = u * 4.0 < (double) density ? 2.0 * BkRngUniform(&rng) - 1.0 :
							(u > 0.9 ? -0.0 : 0.0);
						want += x[i] != 0.0;
					}
					/* a pair whose products cancel in one partial sum */
					if (n > 9 && m > 1)
					{
						x[1] = 0.5;
						x[9] = 0.5;
						A[lda + 9] = -A[lda + 1];
					}
					want = 0;
					for (int i = 0; i < n; i++)
						want += x[i] != 0.0;
					nnz = BkLinSparseLanes(x, n, n, cols, lane_end);
					ok_cols &= nnz == want && lane_end[7] == nnz;
					for (int l = 0, k = 0; l < 8; l++, prev = -1)
						for (; k < lane_end[l]; k++)
						{
							ok_cols &= cols[k] % 8 == l && cols[k] > prev;
							prev = cols[k];
						}
					if (want > 0)
						ok_bound &= BkLinSparseLanes(x, n, want - 1, cols, lane_end) == -1;
					nnz = BkLinSparseLanes(x, n, n, cols, lane_end);
					BkLinGemv(m, n, A, lda, x, y);
					BkVectorLanesEnable(false);
					BkLinGemv(m, n, A, lda, x, yp);
					BkVectorLanesEnable(true);
					BkLinGemvSparse(m, A, lda, x, cols, lane_end, ys);
					ok_same &= same_bits(y, ys, m) && same_bits(yp, ys, m);
					BkVectorLanesEnable(false);
					BkLinGemvSparse(m, A, lda, x, cols, lane_end, ys);
					BkVectorLanesEnable(true);
					ok_plain &= same_bits(y, ys, m);
					free(A);
				}
		CHECK(ok_cols, "BkLinSparseLanes: every nonzero, by partial sum j mod 8, each in increasing j");
		CHECK(ok_bound, "BkLinSparseLanes: -1 beyond max_nnz nonzeros");
		CHECK(ok_same, "BkLinGemvSparse: BkLinGemv's bits over the nonzeros alone (zeros of both signs, cancelling terms)");
		CHECK(ok_plain, "BkLinGemvSparse: the same bits with and without its AVX2 path");
	}
}

/*
 * The symmetric product, the rank-k update, the Cholesky factor, inverse
 * and solve: against BLAS / LAPACKE within rounding, lanes on and off bit
 * for bit, at orders 1-60.
 */
void
test_linalg_cholesky(void)
{
	BkRng		rng;
	int			ok_symv = 1,
				ok_syrk = 1,
				ok_inv = 1,
				ok_solve = 1,
				ok_lanes = 1,
				ok_sym = 1,
				ok_upper = 1,
				ok_from = 1,
				ok_fail = 1;
	double		worst_inv = 0.0;

	BkRngSeed(&rng, 77);
	for (int n = 1; n <= 60; n += (n < 10 ? 1 : 7))
	{
		size_t		nn = (size_t) n * n;
		double	   *K = malloc(sizeof(double) * nn);
		double	   *inv = malloc(sizeof(double) * nn);
		double	   *invp = malloc(sizeof(double) * nn);
		double	   *ref = malloc(sizeof(double) * nn);
		double	   *work = malloc(sizeof(double) * nn);
		double	   *x = malloc(sizeof(double) * n);
		double	   *y = malloc(sizeof(double) * n);
		double	   *yp = malloc(sizeof(double) * n);
		double	   *yb = malloc(sizeof(double) * n);
		double	   *A = malloc(sizeof(double) * (size_t) n * 13);
		double	   *C = malloc(sizeof(double) * nn);
		double	   *Cp = malloc(sizeof(double) * nn);

		random_spd(&rng, n, K);
		for (int i = 0; i < n; i++)
			x[i] = 2.0 * BkRngUniform(&rng) - 1.0;

		/* symv: the upper triangle only (the lower one garbage) */
		memcpy(ref, K, sizeof(double) * nn);
		for (int i = 0; i < n; i++)
			for (int j = 0; j < i; j++)
				ref[(size_t) i * n + j] = 1e300;
		BkLinSymvUpper(n, ref, n, x, y);
		BkVectorLanesEnable(false);
		BkLinSymvUpper(n, ref, n, x, yp);
		BkVectorLanesEnable(true);
		cblas_dsymv(CblasRowMajor, CblasUpper, n, 1.0, K, n, x, 1, 0.0, yb, 1);
		for (int i = 0; i < n; i++)
			ok_symv &= fabs(y[i] - yb[i]) <= 1e-12;
		ok_lanes &= same_bits(y, yp, n);
		/* the AVX2 clone too, where the AVX-512 one ran above */
		BkVectorWideEnable(false);
		BkLinSymvUpper(n, ref, n, x, yp);
		BkVectorWideEnable(true);
		ok_lanes &= same_bits(y, yp, n);

		/* syrk of n rows of 11 values, 13 apart */
		for (int i = 0; i < n * 13; i++)
			A[i] = 2.0 * BkRngUniform(&rng) - 1.0;
		BkLinSyrkUpper(n, 11, A, 13, C, n);
		BkVectorLanesEnable(false);
		BkLinSyrkUpper(n, 11, A, 13, Cp, n);
		BkVectorLanesEnable(true);
		for (int i = 0; i < n; i++)
			for (int j = i; j < n; j++)
			{
				double		d = cblas_ddot(11, A + (size_t) i * 13, 1, A + (size_t) j * 13, 1);

				ok_syrk &= fabs(C[(size_t) i * n + j] - d) <= 1e-13;
				ok_lanes &= memcmp(&C[(size_t) i * n + j], &Cp[(size_t) i * n + j], sizeof(double)) == 0;
			}

		/* inverse, lanes on and off, against LAPACKE dpotrf + dpotri */
		memcpy(inv, K, sizeof(double) * nn);
		memcpy(invp, K, sizeof(double) * nn);
		if (!BkLinCholesky(inv, n, inv, n, n))
			ok_inv = 0;
		else
			BkLinCholInverse(inv, n, work);
		BkVectorLanesEnable(false);
		if (BkLinCholesky(invp, n, invp, n, n))
			BkLinCholInverse(invp, n, work);
		BkVectorLanesEnable(true);
		ok_lanes &= same_bits(inv, invp, nn);
		memcpy(ref, K, sizeof(double) * nn);
		if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', n, ref, n) != 0 ||
			LAPACKE_dpotri(LAPACK_ROW_MAJOR, 'U', n, ref, n) != 0)
			ok_inv = 0;
		for (int i = 0; i < n; i++)
			for (int j = i; j < n; j++)
			{
				double		e = fabs(inv[(size_t) i * n + j] - ref[(size_t) i * n + j]);

				if (e > worst_inv)
					worst_inv = e;
				ok_sym &= memcmp(&inv[(size_t) i * n + j], &inv[(size_t) j * n + i], sizeof(double)) == 0;
			}

		/*
		 * the upper triangle alone, into a wider stride (the inverse
		 * kernel matrix's storage): BkLinCholInverse's bits, the lower
		 * triangle untouched
		 */
		{
			int			ld = n + 3;
			double	   *up = malloc(sizeof(double) * (size_t) n * ld);

			for (int i = 0; i < n * ld; i++)
				up[i] = -7.0;
			memcpy(C, K, sizeof(double) * nn);
			if (!BkLinCholesky(C, n, C, n, n))
				ok_upper = 0;
			else
				BkLinCholInverseUpper(C, n, n, up, ld);
			for (int i = 0; i < n; i++)
				for (int j = 0; j < ld; j++)
					ok_upper &= j >= i && j < n ?
						memcmp(&up[(size_t) i * ld + j], &inv[(size_t) i * n + j], sizeof(double)) == 0 :
						up[(size_t) i * ld + j] == -7.0;
			free(up);
		}

		/* solve against LAPACKE dposv */
		memcpy(ref, K, sizeof(double) * nn);
		memcpy(yb, x, sizeof(double) * n);
		memcpy(y, x, sizeof(double) * n);
		memcpy(C, K, sizeof(double) * nn);
		if (!BkLinCholesky(C, n, C, n, n) ||
			LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', n, 1, ref, n, yb, 1) != 0)
			ok_solve = 0;
		else
		{
			BkLinCholSolve(C, n, n, y);
			for (int i = 0; i < n; i++)
				ok_solve &= fabs(y[i] - yb[i]) <= 1e-9 * (1.0 + fabs(yb[i]));
		}

		/*
		 * The factor, lanes on and off: each entry the row-by-row
		 * (Banachiewicz) entry of BkDot, bit for bit, whatever order the
		 * entries are computed in.  Then a matrix that shares K's leading
		 * p x p block, factorised from row p on over K's factor's first
		 * rows: the bits of its whole factorisation.
		 */
		for (int lanes = 0; lanes <= 1; lanes++)
		{
			int			p = n / 2;

			BkVectorLanesEnable(lanes);
			memcpy(C, K, sizeof(double) * nn);
			memcpy(ref, K, sizeof(double) * nn);
			if (!BkLinCholesky(C, n, C, n, n))
				ok_from = 0;
			for (int i = 0; i < n; i++)
			{
				double	   *li = ref + (size_t) i * n;

				for (int j = 0; j < i; j++)
					li[j] = (K[(size_t) j * n + i] - BkDot(li, ref + (size_t) j * n, j)) /
						ref[(size_t) j * n + j];
				li[i] = sqrt(K[(size_t) i * n + i] - BkDot(li, li, i));
			}
			for (int i = 0; i < n; i++)
				ok_from &= same_bits(C + (size_t) i * n, ref + (size_t) i * n, i + 1);

			/* K2: K with its rows and columns from p on replaced */
			memcpy(Cp, K, sizeof(double) * nn);
			for (int i = 0; i < n; i++)
				for (int j = i; j < n; j++)
					if (j >= p)
					{
						double		v = j == i ? (double) n + 1.0 :
							0.5 * (2.0 * BkRngUniform(&rng) - 1.0) / (double) n;

						Cp[(size_t) i * n + j] = v;
						Cp[(size_t) j * n + i] = v;
					}
			memcpy(ref, Cp, sizeof(double) * nn);
			for (int i = 0; i < p; i++)
				memcpy(Cp + (size_t) i * n, C + (size_t) i * n, sizeof(double) * (i + 1));
			if (!BkLinCholeskyFrom(Cp, n, Cp, n, n, p) || !BkLinCholesky(ref, n, ref, n, n))
				ok_from = 0;
			for (int i = 0; i < n; i++)
				ok_from &= same_bits(Cp + (size_t) i * n, ref + (size_t) i * n, i + 1);
		}
		BkVectorLanesEnable(true);

		/* a matrix that is not positive definite fails */
		if (n >= 2)
		{
			memcpy(C, K, sizeof(double) * nn);
			C[(size_t) (n - 1) * n + (n - 1)] = -1.0;
			ok_fail &= !BkLinCholesky(C, n, C, n, n);
		}
		free(K);
		free(inv);
		free(invp);
		free(ref);
		free(work);
		free(x);
		free(y);
		free(yp);
		free(yb);
		free(A);
		free(C);
		free(Cp);
	}
	CHECK(ok_symv, "BkLinSymvUpper within 1e-12 of cblas_dsymv, reading the upper triangle only");
	CHECK(ok_syrk, "BkLinSyrkUpper within 1e-13 of the BLAS dot products");
	CHECK(ok_inv && worst_inv < 1e-9,
		  "BkLinCholesky + BkLinCholInverse within 1e-9 of LAPACKE dpotrf + dpotri (worst %.3g)",
		  worst_inv);
	CHECK(ok_sym, "the Cholesky inverse is exactly symmetric");
	CHECK(ok_upper, "BkLinCholInverseUpper: BkLinCholInverse's upper triangle bit for bit, into a wider stride, nothing else written");
	CHECK(ok_solve, "BkLinCholSolve within 1e-9 (relative) of LAPACKE dposv");
	CHECK(ok_lanes, "symv, syrk, Cholesky and inverse: the same bits with and without the AVX2 paths (and symv's AVX-512 path)");

	/*
	 * symv at the inverse kernel matrix's orders and strides (a row every
	 * multiple of 8 doubles, the lower triangle garbage): the plain code,
	 * the AVX2 and the AVX-512 clones, the same bits
	 */
	{
		int			ok_wide = 1;

		for (int n = 95; n <= 505; n += 41)
		{
			int			ld = (n + 8) & ~7;
			double	   *M = malloc(sizeof(double) * (size_t) n * ld);
			double	   *x = malloc(sizeof(double) * n),
					   *y0 = malloc(sizeof(double) * n),
					   *y1 = malloc(sizeof(double) * n),
					   *y2 = malloc(sizeof(double) * n);

			for (int i = 0; i < n; i++)
			{
				x[i] = 2.0 * BkRngUniform(&rng) - 1.0;
				for (int j = 0; j < ld; j++)
					M[(size_t) i * ld + j] = j >= i ? 2.0 * BkRngUniform(&rng) - 1.0 : NAN;
			}
			BkLinSymvUpper(n, M, ld, x, y0);
			BkVectorWideEnable(false);
			BkLinSymvUpper(n, M, ld, x, y1);
			BkVectorLanesEnable(false);
			BkLinSymvUpper(n, M, ld, x, y2);
			BkVectorLanesEnable(true);
			BkVectorWideEnable(true);
			ok_wide &= same_bits(y0, y1, n) && same_bits(y0, y2, n);
			for (int i = 0; i < n; i++)
				ok_wide &= isfinite(y0[i]);
			free(M);
			free(x);
			free(y0);
			free(y1);
			free(y2);
		}
		CHECK(ok_wide, "BkLinSymvUpper at orders 95-505, strides of 8: the AVX-512, AVX2 and plain paths give the same bits%s",
			  BkVectorWide() ? "" : " (this CPU has no AVX-512F: two paths)");
	}
	CHECK(ok_from, "BkLinCholesky: the row-by-row factor's bits; BkLinCholeskyFrom extends a factor's leading rows to the whole one's bits");
	CHECK(ok_fail, "BkLinCholesky fails on a matrix that is not positive definite");
}

/* distance in ulps between two finite doubles of the same sign, or 0 / inf */
static double
ulps(double got, double want)
{
	int64_t		a,
				b;

	if (isnan(got) || isnan(want))
		return isnan(got) && isnan(want) ? 0.0 : INFINITY;
	if (got == want)
		return 0.0;
	memcpy(&a, &got, sizeof(a));
	memcpy(&b, &want, sizeof(b));
	if ((a < 0) != (b < 0))
		return INFINITY;
	return (double) llabs(a - b);
}

/*
 * BkExp against glibc's exp on 2 million arguments (uniform in the
 * kernels' range [-50, 0], in [-745, 710] and near 0), at most 1 ulp apart
 * (each is within about half an ulp of the true value); BkExp4 and
 * BkExpArray give BkExp's bits in every lane; the special values.  BkLog
 * and BkLog1p against log and log1p likewise.
 */
void
test_fmath(void)
{
	BkRng		rng;
	double		worst_exp = 0.0,
				worst_log = 0.0,
				worst_log1p = 0.0;
	long		differ = 0;
	int			lanes = 1;
	const int	n = 2000000;
	double		v[8],
				w[8];

	BkRngSeed(&rng, 2024);
	for (int i = 0; i < n; i++)
	{
		double		u = BkRngUniform(&rng);
		double		x = i % 4 == 0 ? -50.0 * u :
			i % 4 == 1 ? -745.0 + 1455.0 * u :
			i % 4 == 2 ? ldexp(u - 0.5, -(i % 60)) : 1.4 * u - 0.7;
		double		e = ulps(BkExp(x), exp(x));

		if (e > worst_exp)
			worst_exp = e;
		differ += e != 0.0;
		v[i % 8] = x;
		if (i % 8 == 7)
		{
			memcpy(w, v, sizeof(v));
			BkExpArray(w, 8);
			for (int l = 0; l < 8; l++)
			{
				double		s = BkExp(v[l]);

				lanes &= memcmp(&s, &w[l], sizeof(double)) == 0;
			}
		}
	}
	CHECK(worst_exp <= 1.0, "BkExp within 1 ulp of glibc's exp on %d arguments (worst %.0f; %ld differ)",
		  n, worst_exp, differ);
	CHECK(lanes, "BkExpArray (four lanes on AVX2) gives BkExp's bits in every slot");
	printf("# BkExp: %ld of %d arguments differ from glibc's exp by 1 ulp\n", differ, n);

	/* the edges: overflow, underflow into subnormals, specials */
	{
		double		sub_worst = 0.0;
		int			edges;

		for (int i = 0; i < 100000; i++)
		{
			double		x = -745.2 + 37.5 * BkRngUniform(&rng);	/* subnormal results */
			double		e = fabs(BkExp(x) - exp(x)) / 0x1p-1074;

			if (e > sub_worst)
				sub_worst = e;
		}
		CHECK(sub_worst <= 1.0, "BkExp's subnormal results within 1 ulp of exp (worst %.0f)", sub_worst);
		edges = BkExp(709.78) == exp(709.78) && isinf(BkExp(709.8)) && BkExp(-746.0) == 0.0 &&
			BkExp(0.0) == 1.0 && BkExp(-0.0) == 1.0 && isnan(BkExp(NAN)) &&
			isinf(BkExp(INFINITY)) && BkExp(-INFINITY) == 0.0 && isinf(BkExp(1e300)) &&
			BkExp(-1e300) == 0.0 && BkExp(0x1p-1074) == 1.0 && BkExp(1.0) == exp(1.0);
		CHECK(edges, "BkExp: overflow, underflow, 0, NaN and infinities as exp");
	}

	/* log and log1p */
	for (int i = 0; i < 1000000; i++)
	{
		double		u = BkRngUniform(&rng);
		double		x = i % 3 == 0 ? ldexp(0.5 + u, (i % 2000) - 1000) :
			i % 3 == 1 ? 0.5 + u : 1.0 + ldexp(u - 0.5, -(i % 50));
		double		e = ulps(BkLog(x), log(x));
		double		t = i % 2 ? ldexp(u, -(i % 60)) : u * 1e3;
		double		e1 = ulps(BkLog1p(t), log1p(t));

		if (e > worst_log)
			worst_log = e;
		if (e1 > worst_log1p)
			worst_log1p = e1;
	}
	CHECK(worst_log <= 1.0, "BkLog within 1 ulp of glibc's log (worst %.0f)", worst_log);
	CHECK(worst_log1p <= 2.0, "BkLog1p within 2 ulps of glibc's log1p (worst %.0f)", worst_log1p);
	CHECK(BkLog(1.0) == 0.0 && isinf(BkLog(0.0)) && BkLog(0.0) < 0 && isnan(BkLog(-1.0)) &&
		  isnan(BkLog(NAN)) && isinf(BkLog(INFINITY)) && BkLog(0x1p-1074) == log(0x1p-1074) &&
		  BkLog1p(0.0) == 0.0 && BkLog1p(1e-300) == 1e-300 && isinf(BkLog1p(-1.0)) &&
		  isnan(BkLog1p(-2.0)),
		  "BkLog and BkLog1p: 0, 1, negative, NaN, infinity and subnormal arguments");
}
