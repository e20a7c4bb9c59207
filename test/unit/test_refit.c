/*
 * test_refit.c
 *	  The solve of the refit over the kept basis (bk_refit.c): its system
 *	  (A + lambda n K_BB + jitter I) alpha = b against LAPACKE's dposv on
 *	  the same matrix, and its refusal of a matrix that is not positive
 *	  definite.
 */
#include "bk_test.h"
#include "bk_refit.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void
test_refit_solve(void)
{
	BkRng		rng;
	int			ok_solve = 1,
				ok_fail = 1;
	double		worst = 0.0;

	BkRngSeed(&rng, 55);
	for (int n = 1; n <= 80; n += (n < 8 ? 1 : 9))
	{
		int			rows = 3 * n + 5;
		int			nrhs = 1 + n % 3;
		size_t		nn = (size_t) n * n;
		double	   *phi = malloc(sizeof(double) * rows * n);
		double	   *pts = malloc(sizeof(double) * n * 2);
		double	   *a = calloc(nn, sizeof(double));
		double	   *reg = calloc(nn, sizeof(double));
		double	   *ref = malloc(sizeof(double) * nn);
		double	   *alpha = malloc(sizeof(double) * nrhs * n);
		double	   *b = malloc(sizeof(double) * nrhs * n);
		double		trace = 0.0;

		/* A = Phi' Phi of kernel-like rows in (0, 1], the ridge a Gaussian Gram */
		for (int i = 0; i < rows * n; i++)
			phi[i] = 1e-3 + BkRngUniform(&rng);
		for (int i = 0; i < 2 * n; i++)
			pts[i] = BkRngUniform(&rng);
		for (int i = 0; i < n; i++)
			for (int j = i; j < n; j++)
			{
				double		s = 0.0,
							d0 = pts[2 * i] - pts[2 * j],
							d1 = pts[2 * i + 1] - pts[2 * j + 1];

				for (int r = 0; r < rows; r++)
					s += phi[r * n + i] * phi[r * n + j];
				a[i * n + j] = s;
				reg[i * n + j] = 1e-4 * rows * exp(-(d0 * d0 + d1 * d1));
			}
		for (int i = 0; i < nrhs * n; i++)
			b[i] = 2.0 * BkRngUniform(&rng) - 1.0;
		memcpy(alpha, b, sizeof(double) * nrhs * n);
		if (!BkRefitSolve(&bk_std_env, n, a, reg, nrhs, alpha))
			ok_solve = 0;

		/* the reference: the same matrix, its jitter included, by dposv */
		for (int i = 0; i < n; i++)
			trace += a[i * n + i] + reg[i * n + i];
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				ref[i * n + j] = i <= j ? a[i * n + j] + reg[i * n + j] : 0.0;
		for (int i = 0; i < n; i++)
			ref[i * n + i] += 1e-10 * trace / n;
		{
			/* dposv takes the right-hand sides as columns of an n x nrhs matrix */
			double	   *x = malloc(sizeof(double) * n * nrhs);

			for (int t = 0; t < nrhs; t++)
				for (int i = 0; i < n; i++)
					x[i * nrhs + t] = b[t * n + i];
			if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', n, nrhs, ref, n, x, nrhs) != 0)
				ok_solve = 0;
			for (int t = 0; t < nrhs; t++)
			{
				double		num = 0.0,
							den = 0.0,
							rel;

				for (int i = 0; i < n; i++)
				{
					double		d = alpha[t * n + i] - x[i * nrhs + t];

					num += d * d;
					den += x[i * nrhs + t] * x[i * nrhs + t];
				}
				rel = den > 0.0 ? sqrt(num / den) : sqrt(num);
				if (!(rel <= worst))
					worst = rel;
			}
			free(x);
		}

		/* a matrix that is not positive definite: -A */
		for (size_t i = 0; i < nn; i++)
		{
			a[i] = -a[i];
			reg[i] = 0.0;
		}
		memcpy(alpha, b, sizeof(double) * n);
		ok_fail &= !BkRefitSolve(&bk_std_env, n, a, reg, 1, alpha);

		free(phi);
		free(pts);
		free(a);
		free(reg);
		free(ref);
		free(alpha);
		free(b);
	}
	CHECK(ok_solve && worst < 1e-8,
		  "BkRefitSolve within 1e-8 (relative) of LAPACKE dposv on the same system (worst %.3g)",
		  worst);
	CHECK(ok_fail, "BkRefitSolve refuses a matrix that is not positive definite");
}

/* m's coefficients refit over rows [0, n) of (x, y), on a copy: its bytes */
static uint8_t *
refit_bytes(BkModel *m, const double *x, const int64_t *y, int n, size_t *len)
{
	BkModel    *c = copy_model(m);
	BkModel    *d = copy_model(m);
	BkRefit    *r = BkRefitNew(&bk_std_env, c, BK_REFIT_DEFAULT_LAMBDA);
	uint8_t    *buf;

	for (int i = 0; i < n; i++)
		BkRefitAddRow(r, c, x + 2 * i, 0.0, BkModelClassIndex(c, y[i], NULL, 0));
	BkRefitFinish(r, d);
	buf = encode(d, len);
	BkRefitFree(r);
	BkModelFree(c);
	BkModelFree(d);
	return buf;
}

/*
 * A refit of a BPA-NN model on checkerboard rows: the same bytes twice,
 * and with the vector lane paths on and off (the sums are fixed-order
 * loops, the kernel rows bk_kernel.c's), a valid model that differs from
 * the online one
 */
void
test_refit_deterministic(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "nn"}, {"budget", "40"}, {"gamma", "20"}};
	BkRng		rng;
	double	   *x = malloc(sizeof(double) * 2 * 1500);
	int64_t    *y = malloc(sizeof(int64_t) * 1500);
	BkModel    *m;
	uint8_t    *a,
			   *b,
			   *c,
			   *online;
	size_t		la,
				lb,
				lc,
				lo;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;

	BkRngSeed(&rng, 56);
	checkerboard(&rng, 1500, x, y, 0.0);
	m = train(pp, 4, x, y, 0, 1500, NULL);
	online = encode(m, &lo);
	BkVectorLanesEnable(true);
	a = refit_bytes(m, x, y, 1500, &la);
	b = refit_bytes(m, x, y, 1500, &lb);
	BkVectorLanesEnable(false);
	c = refit_bytes(m, x, y, 1500, &lc);
	BkVectorLanesEnable(true);
	CHECK(la == lb && memcmp(a, b, la) == 0, "a refit gives the same bytes twice");
	CHECK(la == lc && memcmp(a, c, la) == 0,
		  "a refit gives the same bytes with the vector lane paths on and off");
	CHECK(BkFormatValidate(a, la, err, sizeof(err), &code),
		  "a refit model passes the validator (%s)", err);
	CHECK(la != lo || memcmp(a, online, la) != 0, "a refit changes the online model's bytes");
	free(a);
	free(b);
	free(c);
	free(online);
	BkModelFree(m);
	free(x);
	free(y);
}
