/*
 * test_core.c
 *	  Unit tests of the learning core, run without a server.
 *
 *	  Besides the small parts (CRC, PRNG, parameters, kernels, the inverse
 *	  kernel matrix, the binary format), it checks every BPA variant
 *	  against a brute-force oracle: for each candidate r the oracle solves
 *	  eq. 9 of paper 000 with a dense solve on the candidate's set S, forms
 *	  w^r (eq. 8), evaluates Q(w^r) (eq. 1) directly, and the learner's step
 *	  must produce the minimiser (eq. 7).
 */
#include "bk_internal.h"

#include <lapacke.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int	n_pass = 0;
static int	n_fail = 0;

#define CHECK(cond, ...) \
	do { \
		if (cond) n_pass++; \
		else { n_fail++; printf("not ok: "); printf(__VA_ARGS__); \
			   printf("  (%s:%d)\n", __FILE__, __LINE__); } \
	} while (0)

/* ---- environment: malloc, and errors that jump back to the test ---- */

static jmp_buf *error_jump = NULL;
static BkErrCode last_code;
static char last_msg[BK_ERRMSG_LEN];

static void *
t_alloc(void *ctx, size_t size)
{
	void	   *p = calloc(1, size);

	(void) ctx;
	if (!p)
		abort();
	return p;
}

static void *
t_realloc(void *ctx, void *ptr, size_t size)
{
	void	   *p = realloc(ptr, size);

	(void) ctx;
	if (!p)
		abort();
	return p;
}

static void
t_free(void *ctx, void *ptr)
{
	(void) ctx;
	free(ptr);
}

static void
t_error(void *ctx, BkErrCode code, const char *msg, const char *detail,
		const char *hint)
{
	(void) ctx;
	(void) hint;
	last_code = code;
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
	if (error_jump)
		longjmp(*error_jump, 1);
	fprintf(stderr, "unexpected error %d: %s (%s)\n", code, msg, detail ? detail : "");
	exit(2);
}

static BkEnv env = {t_alloc, t_realloc, t_free, t_error, NULL, (size_t) 1 << 30, NULL};

/* ---- data: a seeded checkerboard, 4 x 4 on [0,1]^2 ---- */

static void
checkerboard(BkRng *rng, int n, double *x, int64_t *y, double noise)
{
	for (int i = 0; i < n; i++)
	{
		double		a = BkRngUniform(rng),
					b = BkRngUniform(rng);
		int			cell = (int) floor(4 * a) + (int) floor(4 * b);

		x[2 * i] = a;
		x[2 * i + 1] = b;
		y[i] = (cell % 2 == 0) ? 1 : -1;
		if (BkRngUniform(rng) < noise)
			y[i] = -y[i];
	}
}

static void
make_params(BkParams *p, const char *json_like[][2], int n, int dim)
{
	char		err[BK_ERRMSG_LEN];

	BkParamsInit(p);
	for (int i = 0; i < n; i++)
	{
		BkParamInput in;
		char	   *end;
		double		v = strtod(json_like[i][1], &end);

		if (*end == '\0')
		{
			in.type = BK_IN_NUMBER;
			in.number = v;
		}
		else
		{
			in.type = BK_IN_STRING;
			in.string = json_like[i][1];
		}
		if (!BkParamsSet(p, json_like[i][0], &in, err, sizeof(err)))
		{
			fprintf(stderr, "param: %s\n", err);
			exit(2);
		}
	}
	if (!BkParamsFinish(p, dim, err, sizeof(err)))
	{
		fprintf(stderr, "finish: %s\n", err);
		exit(2);
	}
}

static double
accuracy(BkModel *m, const double *x, const int64_t *y, int n)
{
	int			ok = 0;

	for (int i = 0; i < n; i++)
	{
		int64_t		lab;

		if (BkModelPredict(m, x + (size_t) i * m->dim, &lab) && lab == y[i])
			ok++;
	}
	return (double) ok / n;
}

/* ---- tests ---- */

static void
test_crc(void)
{
	/* the standard check value of CRC-32C */
	CHECK(BkCrc32c(0, "123456789", 9) == 0xE3069283u, "crc32c check value");
	CHECK(BkCrc32c(BkCrc32c(0, "1234", 4), "56789", 5) == 0xE3069283u,
		  "crc32c in pieces");
}

static void
test_rng(void)
{
	BkRng		a,
				b;
	int			same = 1,
				inrange = 1;

	BkRngSeed(&a, 42);
	BkRngSeed(&b, 42);
	for (int i = 0; i < 1000; i++)
		same &= BkRngNext(&a) == BkRngNext(&b);
	CHECK(same, "same seed gives the same sequence");
	BkRngSeed(&b, 43);
	CHECK(BkRngNext(&a) != BkRngNext(&b), "different seeds differ");
	for (int i = 0; i < 10000; i++)
	{
		double		u = BkRngUniform(&a);

		inrange &= u >= 0.0 && u < 1.0 && BkRngBelow(&a, 7) < 7;
	}
	CHECK(inrange, "uniform in [0,1) and below(n) < n");
}

static bool
set_one(BkParams *p, const char *key, BkParamInput in, char *err)
{
	return BkParamsSet(p, key, &in, err, BK_ERRMSG_LEN);
}

static void
test_params(void)
{
	BkParams	p;
	char		err[BK_ERRMSG_LEN];
	BkParamInput num = {BK_IN_NUMBER, 0, NULL, false, NULL};
	BkParamInput str = {BK_IN_STRING, 0, NULL, false, NULL};
	BkParamInput other = {BK_IN_BOOLEAN, 0, NULL, true, NULL};
	BkParamValue vals[BK_MAX_PARAM_VALUES];
	int			n;

	BkParamsInit(&p);
	CHECK(BkParamsFinish(&p, 4, err, sizeof(err)), "empty params finish");
	CHECK(p.algorithm == BK_ALG_BPA && p.variant == BK_VARIANT_NN &&
		  p.kernel == BK_KERNEL_RBF && p.budget == 100 && p.C == 1.0 &&
		  p.gamma == 0.25 && p.loss == BK_LOSS_HINGE, "defaults (gamma = 1/dim)");

	BkParamsInit(&p);
	CHECK(!set_one(&p, "budgte", num, err) && strstr(err, "unknown parameter \"budgte\"") &&
		  strstr(err, "budget"), "unknown key names the key and the allowed ones: %s", err);
	num.number = 0;
	CHECK(!set_one(&p, "budget", num, err) && strstr(err, "between 1 and"),
		  "budget 0 out of range: %s", err);
	num.number = 2.5;
	CHECK(!set_one(&p, "budget", num, err), "budget 2.5 not integral: %s", err);
	str.string = "100";
	CHECK(!set_one(&p, "budget", str, err) && strstr(err, "must be an integer"),
		  "budget as string refused: %s", err);
	CHECK(!set_one(&p, "C", other, err) && strstr(err, "boolean"),
		  "C as boolean refused: %s", err);
	num.number = -1;
	CHECK(!set_one(&p, "gamma", num, err), "negative gamma refused: %s", err);
	num.number = 0;
	CHECK(!set_one(&p, "C", num, err), "C = 0 refused: %s", err);
	str.string = "x";
	CHECK(!set_one(&p, "variant", str, err) && strstr(err, "\"nn\""),
		  "unknown variant lists choices: %s", err);
	num.number = 1;
	CHECK(!set_one(&p, "kernel", num, err), "kernel as number refused: %s", err);

	BkParamsInit(&p);
	str.string = "pa";
	set_one(&p, "algorithm", str, err);
	str.string = "nn";
	set_one(&p, "variant", str, err);
	CHECK(!BkParamsFinish(&p, 2, err, sizeof(err)) &&
		  strstr(err, "\"variant\" does not apply to algorithm \"pa\""),
		  "variant with pa refused: %s", err);

	BkParamsInit(&p);
	str.string = "linear";
	set_one(&p, "kernel", str, err);
	num.number = 0.5;
	set_one(&p, "gamma", num, err);
	CHECK(!BkParamsFinish(&p, 2, err, sizeof(err)) &&
		  strstr(err, "does not apply to kernel \"linear\""),
		  "gamma with linear refused: %s", err);

	BkParamsInit(&p);
	str.string = "perceptron";
	set_one(&p, "algorithm", str, err);
	num.number = 100;
	CHECK(set_one(&p, "budget", num, err) && !BkParamsFinish(&p, 2, err, sizeof(err)),
		  "budget with perceptron refused: %s", err);

	BkParamsInit(&p);
	BkParamsFinish(&p, 2, err, sizeof(err));
	n = BkParamsList(&p, vals, BK_MAX_PARAM_VALUES);
	{
		int			found = 0;

		for (int i = 0; i < n; i++)
			if (strcmp(vals[i].key, "variant") == 0 && strcmp(vals[i].string, "nn") == 0)
				found = 1;
		CHECK(found && n == 8, "listing shows the defaults of bpa (%d params)", n);
	}
}

static void
test_kernels(void)
{
	BkParams	p;
	double		a[3] = {1, 2, 3},
				b[3] = {-1, 0.5, 2};
	double		dot = BkDot(a, b, 3),
				sqa = BkDot(a, a, 3),
				sqb = BkDot(b, b, 3);

	BkParamsInit(&p);
	p.kernel = BK_KERNEL_RBF;
	p.gamma = 0.3;
	CHECK(fabs(BkKernelFromDot(&p, dot, sqa, sqb) - exp(-0.3 * (4 + 2.25 + 1))) < 1e-15,
		  "rbf = exp(-gamma ||a-b||^2)");
	p.kernel = BK_KERNEL_LINEAR;
	CHECK(BkKernelFromDot(&p, dot, sqa, sqb) == 6.0, "linear = a.b");
	p.kernel = BK_KERNEL_POLY;
	p.degree = 3;
	p.coef0 = 1;
	CHECK(fabs(BkKernelFromDot(&p, dot, sqa, sqb) - pow(0.3 * 6 + 1, 3)) < 1e-12,
		  "poly = (gamma a.b + coef0)^degree");
	CHECK(fabs(BkKernelSelf(&p, sqa) - pow(0.3 * 14 + 1, 3)) < 1e-9, "poly self");
}

/* ||K^-1 K - I||_max for the machine's SVs */
static double
gram_error(const BkParams *p, const BkMachine *mach, const BkGramInverse *g, int dim)
{
	int			n = mach->n_sv;
	double		worst = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
		{
			double		s = 0;

			for (int l = 0; l < n; l++)
			{
				const double *xl = mach->sv + (size_t) l * dim;
				const double *xj = mach->sv + (size_t) j * dim;
				double		k = BkKernelFromDot(p, BkDot(xl, xj, dim),
											   mach->sqnorm[l], mach->sqnorm[j]);

				s += g->m[(size_t) i * g->cap + l] * k;
			}
			s -= (i == j);
			if (fabs(s) > worst)
				worst = fabs(s);
		}
	return worst;
}

static void
test_gram(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "p"}, {"budget", "12"}, {"gamma", "2"}};
	BkParams	p;
	BkModel    *m;
	BkMachine  *mach;
	BkRng		rng;
	double		x[3],
				k[16],
				a[16];

	make_params(&p, pp, 4, 3);
	m = BkModelCreate(&env, &p, 3);
	mach = &m->machines[0];
	BkRngSeed(&rng, 7);
	/* border 10 random points in */
	for (int t = 0; t < 10; t++)
	{
		double		sq,
					q;

		for (int d = 0; d < 3; d++)
			x[d] = BkRngUniform(&rng);
		sq = BkDot(x, x, 3);
		for (int i = 0; i < mach->n_sv; i++)
			k[i] = BkKernelFromDot(&p, BkDot(mach->sv + i * 3, x, 3), mach->sqnorm[i], sq);
		q = BkGramApply(&mach->ginv, k, a);
		BkGramBorder(&env, &mach->ginv, a, 1.0 - q, 1.0);
		BkMachineAppend(mach, 3, x, sq, 1.0);
	}
	CHECK(gram_error(&p, mach, &mach->ginv, 3) < 1e-8, "bordered inverse is K^-1 (err %g)",
		  gram_error(&p, mach, &mach->ginv, 3));
	/* remove slot 3: the last SV moves into slot 3, as the store does */
	BkGramRemove(&env, &mach->ginv, 3);
	memcpy(mach->sv + 3 * 3, mach->sv + 9 * 3, 3 * sizeof(double));
	mach->sqnorm[3] = mach->sqnorm[9];
	mach->n_sv = 9;
	CHECK(gram_error(&p, mach, &mach->ginv, 3) < 1e-8, "downdated inverse is K^-1 (err %g)",
		  gram_error(&p, mach, &mach->ginv, 3));
	CHECK(BkGramRefresh(&env, &mach->ginv, &p, mach, 3) &&
		  gram_error(&p, mach, &mach->ginv, 3) < 1e-10, "LAPACKE refresh is K^-1");
	BkModelFree(m);
}

/* ---- the BPA oracle ---- */

/* solve K beta = b for symmetric positive definite K (n x n), in place */
static bool
spd_solve(double *K, double *b, int n)
{
	if (n == 0)
		return true;
	return LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', n, 1, K, n, b, 1) == 0;
}

/*
 * Candidates 0..B-1 are the SVs, B is x_t.  For candidate r, set S of the
 * variant (without r), solve eq. 9 and return Q(w^r) and the coefficients
 * of w^r over all B + 1 candidates.
 */
static double
oracle_candidate(const BkParams *p, int B, double **X, const double *alpha,
				 const int *nn, int nn_t, double y, double f, int r,
				 double *wout)
{
	int			S[1024];
	int			ns = 0;
	int			t = B;
	double		Kss[64 * 64],
				kr[64],
				kt[64],
				Kinv_kr[64],
				Kinv_kt[64];
	double		C = p->C;
	double		ar = r == t ? 0.0 : alpha[r];
	double		krt,
				num,
				den,
				tau,
				margin,
				sq,
				h;
	double		delta[65];

	if (p->variant == BK_VARIANT_S)
	{
		if (r != t)
			S[ns++] = t;
	}
	else if (p->variant == BK_VARIANT_NN)
	{
		if (r != t)
		{
			S[ns++] = t;
			if (nn[r] >= 0)
				S[ns++] = nn[r];
		}
		else if (nn_t >= 0)
			S[ns++] = nn_t;
	}
	else
		for (int i = 0; i <= B; i++)
			if (i != r)
				S[ns++] = i;

#define KER(i, j) BkKernelFromDot(p, BkDot(X[i], X[j], 2), BkDot(X[i], X[i], 2), BkDot(X[j], X[j], 2))
	for (int i = 0; i < ns; i++)
	{
		for (int j = 0; j < ns; j++)
			Kss[i * ns + j] = KER(S[i], S[j]);
		kr[i] = r == t ? 0.0 : KER(r, S[i]);
		kt[i] = KER(t, S[i]);
	}
	for (int i = 0; i < ns; i++)
	{
		Kinv_kr[i] = kr[i];
		Kinv_kt[i] = kt[i];
	}
	{
		double		K2[64 * 64];

		memcpy(K2, Kss, sizeof(double) * ns * ns);
		spd_solve(K2, Kinv_kr, ns);
		memcpy(K2, Kss, sizeof(double) * ns * ns);
		spd_solve(K2, Kinv_kt, ns);
	}
	krt = r == t ? 0.0 : KER(r, t);
	/* eq. 9 */
	num = 1.0 - y * (f - ar * krt);
	den = 0.0;
	for (int i = 0; i < ns; i++)
	{
		num -= y * ar * Kinv_kr[i] * kt[i];
		den += Kinv_kt[i] * kt[i];
	}
	tau = den > 1e-12 ? num / den : 0.0;
	tau = tau < 0 ? 0 : (tau > C ? C : tau);

	/* eq. 8: w^r = w_t - alpha_r Phi_r + sum_S beta_i Phi_i */
	for (int i = 0; i <= B; i++)
		delta[i] = 0.0;
	if (r != t)
		delta[r] -= ar;
	for (int i = 0; i < ns; i++)
		delta[S[i]] += ar * Kinv_kr[i] + tau * y * Kinv_kt[i];
	for (int i = 0; i <= B; i++)
		wout[i] = (i < B ? alpha[i] : 0.0) + delta[i];

	/* eq. 1: Q = 1/2 ||delta||^2 + C H(w^r) */
	sq = 0.0;
	margin = 0.0;
	for (int i = 0; i <= B; i++)
	{
		for (int j = 0; j <= B; j++)
			sq += delta[i] * delta[j] * KER(i, j);
		margin += wout[i] * KER(i, t);
	}
	h = 1.0 - y * margin;
#undef KER
	return 0.5 * sq + C * (h > 0 ? h : 0);
}

/*
 * Fill a budget, then for many rows compare the learner's full-budget step
 * with the oracle's minimiser of eq. 7.
 */
static void
test_bpa_oracle(const char *variant, const char *loss)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", variant}, {"loss", loss},
	{"budget", "8"}, {"gamma", "3"}, {"C", "0.8"}};
	BkParams	p;
	BkModel    *m;
	BkMachine  *mach;
	BkRng		rng;
	double		xs[2 * 400];
	int64_t		ys[400];
	int			checked = 0,
				agree = 0,
				removed_t = 0;
	double		worst = 0;

	make_params(&p, pp, 6, 2);
	m = BkModelCreate(&env, &p, 2);
	mach = &m->machines[0];
	BkRngSeed(&rng, 11);
	checkerboard(&rng, 400, xs, ys, 0.1);

	for (int i = 0; i < 400; i++)
	{
		int			B = mach->n_sv;
		double		before_alpha[64];
		double		before_x[64][2];
		int			before_nn[64];
		double	   *X[65];
		double		f = 0,
					y;
		double		bestq = INFINITY;
		double		bestw[65] = {0};
		int			nn_t = -1;
		double		nn_d = 0;

		/* labels -1 / 1: the first row decides which class is positive */
		if (B < p.budget || m->n_classes < 2)
		{
			BkModelLearn(m, xs + 2 * i, ys[i]);
			continue;
		}
		y = ys[i] == m->classes[1] ? 1.0 : -1.0;
		for (int j = 0; j < B; j++)
		{
			before_alpha[j] = mach->coef[j];
			before_x[j][0] = mach->sv[2 * j];
			before_x[j][1] = mach->sv[2 * j + 1];
			before_nn[j] = mach->has_nearest ? mach->nearest.idx[j] : -1;
			X[j] = before_x[j];
		}
		X[B] = xs + 2 * i;
		for (int j = 0; j < B; j++)
		{
			double		d = (X[j][0] - X[B][0]) * (X[j][0] - X[B][0]) +
				(X[j][1] - X[B][1]) * (X[j][1] - X[B][1]);

			f += before_alpha[j] * BkKernelFromDot(&p, BkDot(X[j], X[B], 2),
												   BkDot(X[j], X[j], 2), BkDot(X[B], X[B], 2));
			if (nn_t < 0 || d < nn_d)
			{
				nn_t = j;
				nn_d = d;
			}
		}

		BkModelLearn(m, xs + 2 * i, ys[i]);

		if (1 - y * f <= 0 || (p.loss == BK_LOSS_RAMP && fabs(f) > 1))
			continue;			/* no update: nothing to compare */

		for (int r = 0; r <= B; r++)
		{
			double		w[65];
			double		q = oracle_candidate(&p, B, X, before_alpha, before_nn, nn_t,
											 y, f, r, w);

			if (q < bestq - 1e-12)
			{
				bestq = q;
				memcpy(bestw, w, sizeof(w));
			}
		}
		if (fabs(bestw[B]) < 1e-12)
			removed_t++;

		/* the learner's w over the candidates: match SVs by their vector */
		{
			double		err = 0;

			for (int c = 0; c <= B; c++)
			{
				double		have = 0;

				for (int j = 0; j < mach->n_sv; j++)
					if (mach->sv[2 * j] == X[c][0] && mach->sv[2 * j + 1] == X[c][1])
						have = mach->coef[j];
				if (fabs(have - bestw[c]) > err)
					err = fabs(have - bestw[c]);
			}
			checked++;
			if (err < 1e-6)
				agree++;
			if (err > worst)
				worst = err;
		}
	}
	printf("# BPA-%s %s: %d full-budget updates compared, %d chose r = t, worst coefficient error %.3g\n",
		   variant, loss, checked, removed_t, worst);
	CHECK(checked > 20 && agree == checked,
		  "BPA-%s %s: step = argmin_r Q(w^r) of eq. 7-9 in %d of %d full-budget updates (worst coef error %g, %d times r = t)",
		  variant, loss, agree, checked, worst, removed_t);
	CHECK(mach->n_sv <= p.budget, "BPA-%s n_sv <= budget", variant);
	BkModelFree(m);
}

/* encode, decode and encode again */
static uint8_t *
encode(BkModel *m, size_t *len)
{
	char		err[BK_ERRMSG_LEN];
	uint8_t    *buf;

	if (!BkModelEncodedSize(m, (size_t) 1 << 30, len, err, sizeof(err)))
	{
		fprintf(stderr, "%s\n", err);
		exit(2);
	}
	buf = malloc(*len);
	BkModelEncode(m, buf, *len);
	return buf;
}

static BkModel *
train(const char *pp[][2], int np, const double *x, const int64_t *y, int from, int to,
	  BkModel *start)
{
	BkParams	p;
	BkModel    *m = start;

	if (!m)
	{
		make_params(&p, pp, np, 2);
		m = BkModelCreate(&env, &p, 2);
	}
	for (int i = from; i < to; i++)
		BkModelLearn(m, x + 2 * i, y[i]);
	return m;
}

static void
test_learners_and_format(void)
{
	static const char *configs[][6][2] = {
		{{"algorithm", "bpa"}, {"variant", "nn"}, {"loss", "ramp"}, {"budget", "100"}, {"gamma", "30"}, {"C", "1"}},
		{{"algorithm", "bpa"}, {"variant", "nn"}, {"loss", "hinge"}, {"budget", "100"}, {"gamma", "30"}, {"C", "1"}},
		{{"algorithm", "bpa"}, {"variant", "p"}, {"loss", "ramp"}, {"budget", "100"}, {"gamma", "30"}, {"C", "1"}},
		{{"algorithm", "bpa"}, {"variant", "p"}, {"loss", "hinge"}, {"budget", "100"}, {"gamma", "30"}, {"C", "1"}},
		{{"algorithm", "bpa"}, {"variant", "s"}, {"loss", "hinge"}, {"budget", "100"}, {"gamma", "30"}, {"C", "1"}},
		{{"algorithm", "pa"}, {"loss", "ramp"}, {"gamma", "30"}, {"C", "1"}, {"max_sv", "5000"}, {"seed", "1"}},
		{{"algorithm", "perceptron"}, {"gamma", "30"}, {"max_sv", "5000"}, {"seed", "1"}, {"kernel", "rbf"}, {"seed", "2"}},
		{{"algorithm", "stoptron"}, {"gamma", "30"}, {"budget", "100"}, {"seed", "1"}, {"kernel", "rbf"}, {"seed", "2"}},
		{{"algorithm", "rbp"}, {"gamma", "30"}, {"budget", "100"}, {"seed", "1"}, {"kernel", "rbf"}, {"seed", "2"}},
		{{"algorithm", "pa_random"}, {"gamma", "30"}, {"budget", "100"}, {"C", "1"}, {"kernel", "rbf"}, {"seed", "2"}},
		{{"algorithm", "budget_perceptron"}, {"gamma", "30"}, {"budget", "100"}, {"update", "perceptron"}, {"margin", "0.2"}, {"seed", "2"}},
		{{"algorithm", "budget_perceptron"}, {"gamma", "30"}, {"budget", "100"}, {"update", "mira"}, {"margin", "0.5"}, {"seed", "2"}},
		{{"algorithm", "budget_perceptron"}, {"gamma", "30"}, {"budget", "100"}, {"update", "nobias_svm"}, {"C", "1"}, {"seed", "2"}},
		{{"algorithm", "tighter_budget_perceptron"}, {"gamma", "30"}, {"budget", "100"}, {"eval_set", "svs"}, {"margin", "0.2"}, {"seed", "2"}},
		{{"algorithm", "tighter_budget_perceptron"}, {"gamma", "30"}, {"budget", "100"}, {"eval_set", "random"}, {"eval_size", "200"}, {"seed", "2"}},
		{{"algorithm", "tighter_budget_perceptron"}, {"gamma", "30"}, {"budget", "100"}, {"eval_set", "flip"}, {"eval_size", "200"}, {"seed", "2"}},
		{{"algorithm", "tighter_budget_perceptron"}, {"gamma", "30"}, {"budget", "100"}, {"eval_set", "all"}, {"eval_size", "300"}, {"seed", "2"}},
		{{"algorithm", "spa"}, {"gamma", "30"}, {"alpha", "1"}, {"beta", "2"}, {"eta", "1"}, {"output", "average"}},
		{{"algorithm", "spa"}, {"gamma", "30"}, {"alpha", "1"}, {"beta", "2"}, {"eta", "1"}, {"output", "last"}},
		{{"algorithm", "ogd"}, {"gamma", "30"}, {"eta", "0.5"}, {"max_sv", "5000"}, {"seed", "1"}, {"kernel", "rbf"}},
		{{"algorithm", "duol"}, {"gamma", "30"}, {"C", "100"}, {"max_sv", "5000"}, {"rho", "0"}, {"kernel", "rbf"}},
		{{"algorithm", "bduol"}, {"gamma", "30"}, {"C", "100"}, {"budget", "100"}, {"maintenance", "nearest"}, {"rho", "0.1"}},
		{{"algorithm", "bduol"}, {"gamma", "30"}, {"C", "100"}, {"budget", "100"}, {"maintenance", "projection"}, {"rho", "0"}},
		{{"algorithm", "bogd"}, {"gamma", "30"}, {"eta", "0.5"}, {"lambda", "0.0001"}, {"budget", "100"}, {"seed", "3"}},
		{{"algorithm", "forgetron"}, {"gamma", "30"}, {"budget", "100"}, {"seed", "1"}, {"kernel", "rbf"}, {"seed", "2"}},
		{{"algorithm", "projectron"}, {"gamma", "30"}, {"budget", "100"}, {"seed", "1"}, {"kernel", "rbf"}, {"seed", "2"}},
		{{"algorithm", "projectron_pp"}, {"gamma", "30"}, {"budget", "100"}, {"eta", "0.1"}, {"kernel", "rbf"}, {"seed", "2"}},
	};
	/* MIRA's step -y f / k(x,x) is 0 at f = 0: from w = 0 it never starts */
	static const double floor_acc[] = {0.90, 0.88, 0.90, 0.90, 0.82, 0.90, 0.85, 0.82, 0.72, 0.70, 0.68, 0.0, 0.68,
	0.81, 0.86, 0.84, 0.83, 0.95, 0.91, 0.93, 0.93, 0.84, 0.92, 0.64, 0.68, 0.90, 0.93};
	int			nconfigs = (int) (sizeof(configs) / sizeof(configs[0]));
	int			ntrain = 6000,
				ntest = 3000;
	double	   *xtr = malloc(sizeof(double) * 2 * ntrain);
	double	   *xte = malloc(sizeof(double) * 2 * ntest);
	int64_t    *ytr = malloc(sizeof(int64_t) * ntrain);
	int64_t    *yte = malloc(sizeof(int64_t) * ntest);
	BkRng		rng;

	BkRngSeed(&rng, 1);
	checkerboard(&rng, ntrain, xtr, ytr, 0.0);
	checkerboard(&rng, ntest, xte, yte, 0.0);

	for (int c = 0; c < nconfigs; c++)
	{
		BkModel    *whole = train(configs[c], 6, xtr, ytr, 0, ntrain, NULL);
		BkModel    *half = train(configs[c], 6, xtr, ytr, 0, ntrain / 2, NULL);
		BkModel    *resumed,
				   *copy;
		size_t		len1,
					len2,
					len3;
		uint8_t    *b_whole = encode(whole, &len1);
		uint8_t    *b_half = encode(half, &len2);
		uint8_t    *b_res;
		double		acc = accuracy(whole, xte, yte, ntest);
		const char *name = BkAlgorithmName(&whole->params);

		printf("# %s: accuracy %.4f, n_sv %d\n", name, acc, whole->machines[0].n_sv);
		CHECK(acc >= floor_acc[c], "%s config %d: accuracy %.4f >= %.2f (n_sv %d)",
			  name, c, acc, floor_acc[c], whole->machines[0].n_sv);
		if (BkParamsBudgeted(&whole->params))
			CHECK(whole->machines[0].n_sv <= whole->params.budget, "n_sv <= budget");
		if (whole->params.algorithm == BK_ALG_BUDGET_PERCEPTRON &&
			whole->params.update == BK_UPDATE_MIRA)
			CHECK(whole->machines[0].n_sv == 0, "MIRA (paper 003 Fig. 2) never leaves w = 0");
		if (whole->machines[0].sv_scores)
		{
			/* the cached f(x_j) of every SV is f(x_j) */
			const BkMachine *mach = &whole->machines[0];
			double		worst = 0.0;

			for (int j = 0; j < mach->n_sv; j++)
			{
				double		f = 0.0;

				for (int i = 0; i < mach->n_sv; i++)
					f += mach->coef[i] * BkKernelFromDot(&whole->params,
														 BkDot(mach->sv + 2 * i, mach->sv + 2 * j, 2),
														 mach->sqnorm[i], mach->sqnorm[j]);
				if (fabs(f - mach->sv_scores[j]) > worst)
					worst = fabs(f - mach->sv_scores[j]);
			}
			CHECK(worst < 1e-9, "%s config %d: cached SV scores are f(x_j) (worst %.2g)", name, c, worst);
		}
		if (whole->machines[0].eval)
		{
			/* every evaluation point's cached score is f(e_k) */
			const BkMachine *mach = &whole->machines[0];
			const BkEvalSet *e = mach->eval;
			double		worst = 0.0;

			for (int k = 0; k < e->n; k++)
			{
				double		f = 0.0;

				for (int i = 0; i < mach->n_sv; i++)
					f += mach->coef[i] * BkKernelFromDot(&whole->params,
														 BkDot(mach->sv + 2 * i, e->x + 2 * k, 2),
														 mach->sqnorm[i], e->sqnorm[k]);
				if (fabs(f - e->f[k]) > worst)
					worst = fabs(f - e->f[k]);
			}
			CHECK(e->n > 0 && worst < 1e-9,
				  "%s config %d: %d evaluation points, cached scores are f(e_k) (worst %.2g)",
				  name, c, e->n, worst);
		}

		/* warm start: decode the half model and continue on the rest */
		resumed = BkModelDecode(&env, b_half, len2, true);
		train(NULL, 0, xtr, ytr, ntrain / 2, ntrain, resumed);
		b_res = encode(resumed, &len3);
		CHECK(len3 == len1 && memcmp(b_res, b_whole, len1) == 0,
			  "%s config %d: continued training is bit-identical to one pass", name, c);

		/* decode and re-encode: identical bytes */
		copy = BkModelDecode(&env, b_whole, len1, true);
		{
			size_t		len4;
			uint8_t    *b_copy = encode(copy, &len4);

			CHECK(len4 == len1 && memcmp(b_copy, b_whole, len1) == 0,
				  "config %d: decode + encode round trip", c);
			free(b_copy);
		}
		BkModelFree(copy);

		/* decoded for scoring: identical scores, and no re-encoding */
		copy = BkModelDecode(&env, b_whole, len1, false);
		{
			int			same = 1;
			size_t		len5;
			char		err[BK_ERRMSG_LEN];

			for (int i = 0; i < ntest; i++)
				same &= BkModelDecision(copy, xte + 2 * i) == BkModelDecision(whole, xte + 2 * i);
			CHECK(same, "config %d: decoded model scores identically", c);
			CHECK(!BkModelEncodedSize(copy, (size_t) 1 << 30, &len5, err, sizeof(err)),
				  "config %d: a model decoded for scoring is not re-encoded", c);
		}
		free(b_whole);
		free(b_half);
		free(b_res);
		BkModelFree(whole);
		BkModelFree(half);
		BkModelFree(resumed);
		BkModelFree(copy);
	}
	free(xtr);
	free(xte);
	free(ytr);
	free(yte);
}

/*
 * Paper 003 Fig. 7: on a noisy stream the Budget Perceptron keeps the
 * mislabelled points (only well-classified SVs are removed) while the
 * Tighter Budget Perceptron removes them.  Count SVs whose label is flipped.
 */
static void
test_tighter_keeps_less_noise(void)
{
	static const char *pp_bp[][2] = {{"algorithm", "budget_perceptron"}, {"budget", "50"}, {"gamma", "30"}};
	static const char *pp_tbp[][2] = {{"algorithm", "tighter_budget_perceptron"}, {"budget", "50"}, {"gamma", "30"}, {"eval_set", "flip"}};
	BkRng		rng;
	int			n = 4000;
	double	   *xs = malloc(sizeof(double) * 2 * n);
	int64_t    *ys = malloc(sizeof(int64_t) * n);
	int			noisy[2];

	BkRngSeed(&rng, 77);
	checkerboard(&rng, n, xs, ys, 0.10);
	for (int which = 0; which < 2; which++)
	{
		BkModel    *m = which == 0 ? train(pp_bp, 3, xs, ys, 0, n, NULL) :
			train(pp_tbp, 4, xs, ys, 0, n, NULL);
		const BkMachine *mach = &m->machines[0];
		double		ypos = m->classes[1];

		noisy[which] = 0;
		for (int j = 0; j < mach->n_sv; j++)
		{
			double		a = mach->sv[2 * j],
						b = mach->sv[2 * j + 1];
			int64_t		clean = ((int) floor(4 * a) + (int) floor(4 * b)) % 2 == 0 ? 1 : -1;
			int64_t		kept = mach->coef[j] > 0 ? (int64_t) ypos : (ypos == 1 ? -1 : 1);

			noisy[which] += kept != clean;
		}
		BkModelFree(m);
	}
	printf("# mislabelled SVs kept at B = 50, 10%% noise: budget perceptron %d, tighter %d\n",
		   noisy[0], noisy[1]);
	CHECK(noisy[1] < noisy[0], "tighter budget perceptron keeps fewer mislabelled SVs (%d < %d)",
		  noisy[1], noisy[0]);
	free(xs);
	free(ys);
}

/*
 * SPA (paper 002): with a negligible step every row keeps f ~ 0, loss ~ 1,
 * so rho = min(alpha, 1) / beta on every row and the number of SVs is
 * Binomial(T, rho): within 4 standard deviations of T rho.
 */
static void
test_spa_sampling(void)
{
	const char *pp[][2] = {{"algorithm", "spa"}, {"alpha", "0.5"}, {"beta", "5"},
	{"eta", "0.00000001"}, {"gamma", "1"}, {"seed", "9"}};
	BkRng		rng;
	int			n = 20000;
	double	   *xs = malloc(sizeof(double) * 2 * n);
	int64_t    *ys = malloc(sizeof(int64_t) * n);
	BkModel    *m;
	double		rho = 0.1,
				mean,
				sd;

	BkRngSeed(&rng, 10);
	checkerboard(&rng, n, xs, ys, 0.0);
	m = train(pp, 6, xs, ys, 0, n, NULL);
	mean = n * rho;
	sd = sqrt(n * rho * (1 - rho));
	printf("# SPA alpha 0.5, beta 5: %d SVs from %d rows (expected %.0f +- %.0f)\n",
		   m->machines[0].n_sv, n, mean, sd);
	CHECK(fabs(m->machines[0].n_sv - mean) < 4 * sd,
		  "SPA adds SVs at rate alpha / beta (%d, expected %.0f +- %.0f)",
		  m->machines[0].n_sv, mean, 4 * sd);
	BkModelFree(m);
	free(xs);
	free(ys);
}

/*
 * SPA's averaged classifier on a 3-row stream checked by hand: orthogonal
 * rows under the linear kernel, alpha = beta = 1 so every row (loss 1) is
 * sampled, eta = 0.5 so tau = 0.5: coefficients -0.5, +0.5, -0.5 added at
 * rows 1, 2, 3.  At x = (1, 1, 1) the last classifier gives -0.5 and the
 * average (1/3)(f_1 + f_2 + f_3) gives (-0.5 * 2 + 0.5 * 1 + 0) / 3 = -1/6.
 */
static void
test_spa_average(void)
{
	double		rows[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
	int64_t		labels[3] = {0, 1, 0};
	double		probe[3] = {1, 1, 1};
	const char *outputs[2] = {"average", "last"};
	double		want[2] = {-1.0 / 6.0, -0.5};

	for (int o = 0; o < 2; o++)
	{
		const char *pp[][2] = {{"algorithm", "spa"}, {"kernel", "linear"}, {"alpha", "1"},
		{"beta", "1"}, {"eta", "0.5"}, {"output", outputs[o]}};
		BkParams	p;
		BkModel    *m;
		double		d;

		make_params(&p, pp, 6, 3);
		m = BkModelCreate(&env, &p, 3);
		for (int i = 0; i < 3; i++)
			BkModelLearn(m, rows[i], labels[i]);
		d = BkModelDecision(m, probe);
		CHECK(m->machines[0].n_sv == 3 && fabs(d - want[o]) < 1e-15,
			  "SPA output %s on the 3-row stream: %.17g (expected %.17g)", outputs[o], d, want[o]);
		BkModelFree(m);
	}
}

/* The Stoptron's expansion stops changing once it holds B SVs. */
static void
test_stoptron_stops(void)
{
	const char *pp[][2] = {{"algorithm", "stoptron"}, {"budget", "25"}, {"gamma", "30"}};
	BkRng		rng;
	double		xs[2 * 2000];
	int64_t		ys[2000];
	BkModel    *m;
	double		sv[25 * 2],
				coef[25];
	int			same;

	BkRngSeed(&rng, 12);
	checkerboard(&rng, 2000, xs, ys, 0.0);
	m = train(pp, 3, xs, ys, 0, 1000, NULL);
	CHECK(m->machines[0].n_sv == 25, "stoptron fills its budget");
	memcpy(sv, m->machines[0].sv, sizeof(sv));
	memcpy(coef, m->machines[0].coef, sizeof(coef));
	train(NULL, 0, xs, ys, 1000, 2000, m);
	same = memcmp(sv, m->machines[0].sv, sizeof(sv)) == 0 &&
		memcmp(coef, m->machines[0].coef, sizeof(coef)) == 0;
	CHECK(same && m->rows_seen == 2000 && m->mistakes > 0,
		  "stoptron: the model does not change once full (while still making mistakes)");
	BkModelFree(m);
}

static void
test_validator(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "nn"}, {"budget", "20"}, {"gamma", "5"}};
	double		xs[2 * 300];
	int64_t		ys[300];
	BkRng		rng;
	BkModel    *m;
	uint8_t    *buf,
			   *bad;
	size_t		len;
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;
	int			flips_caught = 1,
				cuts_caught = 1;

	BkRngSeed(&rng, 3);
	checkerboard(&rng, 300, xs, ys, 0.0);
	m = train(pp, 4, xs, ys, 0, 300, NULL);
	buf = encode(m, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "valid model accepted");

	bad = malloc(len);
	/* every single-bit flip is caught (CRC-32C detects all of them) */
	for (size_t i = 0; i < len; i++)
		for (int b = 0; b < 8; b++)
		{
			memcpy(bad, buf, len);
			bad[i] ^= (uint8_t) (1 << b);
			flips_caught &= !BkFormatValidate(bad, len, err, sizeof(err), &code);
		}
	CHECK(flips_caught, "every bit flip refused");
	for (size_t cut = 0; cut < len; cut++)
		cuts_caught &= !BkFormatValidate(buf, cut, err, sizeof(err), &code);
	CHECK(cuts_caught, "every truncation refused");

	/* hostile counts with a correct checksum: refused without over-reading */
	{
		struct
		{
			size_t		off;
			uint32_t	value;
			const char *what;
		}			cases[] = {
			{12, 0xFFFFFFFFu, "dim"}, {16, 1000000, "n_params"},
		};

		for (int c = 0; c < 2; c++)
		{
			uint8_t    *h = malloc(len);

			memcpy(h, buf, len);
			for (int k = 0; k < 4; k++)
				h[cases[c].off + k] = (uint8_t) (cases[c].value >> (8 * k));
			{
				uint32_t	crc = BkCrc32c(0, h, len - 4);

				for (int k = 0; k < 4; k++)
					h[len - 4 + k] = (uint8_t) (crc >> (8 * k));
			}
			CHECK(!BkFormatValidate(h, len, err, sizeof(err), &code),
				  "hostile %s refused: %s", cases[c].what, err);
			free(h);
		}
	}
	/* the machine's n_sv, past params and classes, set huge */
	{
		uint8_t    *h = malloc(len);
		uint32_t	np = buf[16] | buf[17] << 8;
		size_t		off = 12 + 8 + 16 * (size_t) np + 4 + 2 * 8 + 9 * 8 + 4;
		uint32_t	crc;

		memcpy(h, buf, len);
		h[off] = h[off + 1] = h[off + 2] = 0xFF;
		h[off + 3] = 0x7F;
		crc = BkCrc32c(0, h, len - 4);
		for (int k = 0; k < 4; k++)
			h[len - 4 + k] = (uint8_t) (crc >> (8 * k));
		CHECK(!BkFormatValidate(h, len, err, sizeof(err), &code) && strstr(err, "budget"),
			  "hostile n_sv refused: %s", err);
		free(h);
	}
	/* a newer format version is refused as such */
	memcpy(bad, buf, len);
	bad[4] = 2;
	CHECK(!BkFormatValidate(bad, len, err, sizeof(err), &code) && code == BK_ERR_VERSION,
		  "newer version refused with BK_ERR_VERSION: %s", err);
	free(bad);
	free(buf);
	BkModelFree(m);
}

static void
test_errors(void)
{
	const char *pp[][2] = {{"algorithm", "perceptron"}, {"max_sv", "5"}, {"gamma", "50"}};
	jmp_buf		jb;
	BkModel    *volatile m = NULL;
	double		xs[2 * 200];
	int64_t		ys[200];
	BkRng		rng;

	BkRngSeed(&rng, 5);
	checkerboard(&rng, 200, xs, ys, 0.0);
	error_jump = &jb;
	if (setjmp(jb) == 0)
	{
		m = train(pp, 3, xs, ys, 0, 200, NULL);
		CHECK(0, "perceptron beyond max_sv must fail");
	}
	else
		CHECK(last_code == BK_ERR_LIMIT && strstr(last_msg, "max_sv"),
			  "perceptron beyond max_sv: %s", last_msg);

	if (setjmp(jb) == 0)
	{
		BkParams	p;
		const char *p2[][2] = {{"budget", "10"}};

		make_params(&p, p2, 1, 2);
		m = BkModelCreate(&env, &p, 2);
		BkModelDeclareClass(m, 1);
		BkModelDeclareClass(m, 2);
		BkModelLearn(m, xs, 1);
		BkModelLearn(m, xs + 2, 3);
		CHECK(0, "a label outside the declared classes must fail");
	}
	else
		CHECK(last_code == BK_ERR_DATA && strstr(last_msg, "not among the declared"),
			  "undeclared label refused: %s", last_msg);
	if (setjmp(jb) == 0)
	{
		BkParams	p;
		const char *p2[][2] = {{"budget", "10"}};

		make_params(&p, p2, 1, 2);
		m = BkModelCreate(&env, &p, 2);
		BkModelLearnText(m, xs, "a", 1);
		BkModelLearn(m, xs + 2, 3);
		CHECK(0, "an integer label in a text-labelled stream must fail");
	}
	else
		CHECK(last_code == BK_ERR_DATA && strstr(last_msg, "text labels"),
			  "mixed label types refused: %s", last_msg);
	/* a valid model of no class (no row learned): scoring is an error, not a crash */
	{
		BkParams	p;
		const char *p4[][2] = {{"budget", "10"}};
		BkModel    *z,
				   *d;
		uint8_t    *buf;
		size_t		len;
		char		err[BK_ERRMSG_LEN];
		BkErrCode	code;
		double		sc[2];
		volatile int raised = 0;	/* set between setjmp and longjmp */

		make_params(&p, p4, 1, 2);
		z = BkModelCreate(&env, &p, 2);
		buf = encode(z, &len);
		CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "a model of no class is valid");
		d = BkModelDecode(&env, buf, len, false);
		CHECK(BkModelPredictClass(d, xs) == -1, "no class: nothing predicted");
		if (setjmp(jb) == 0)
			(void) BkModelDecision(d, xs);
		else
			raised += last_code == BK_ERR_DATA;
		if (setjmp(jb) == 0)
			BkModelScores(d, xs, sc);
		else
			raised += last_code == BK_ERR_DATA;
		CHECK(raised == 2, "no class: bk_decision and bk_scores raise a data error");
		free(buf);
		BkModelFree(z);
		BkModelFree(d);
	}
	error_jump = NULL;

	{
		BkParams	p;
		char		err[BK_ERRMSG_LEN];
		const char *p3[][2] = {{"budget", "1000000"}};

		make_params(&p, p3, 1, 1000);
		CHECK(!BkModelCheckSize(&p, 1000, (size_t) 1 << 30, err, sizeof(err)),
			  "budget x dim over 1 GB refused: %s", err);
	}
}

/* three classes on [0,1]^2: class = (floor(3x) + floor(3y)) mod 3 */
static void
three_class(BkRng *rng, int n, double *x, int64_t *y)
{
	for (int i = 0; i < n; i++)
	{
		double		a = BkRngUniform(rng),
					b = BkRngUniform(rng);

		x[2 * i] = a;
		x[2 * i + 1] = b;
		y[i] = ((int) floor(3 * a) + (int) floor(3 * b)) % 3;
	}
}

static double
accuracy_mc(BkModel *m, const double *x, const int64_t *y, int n)
{
	int			ok = 0;

	for (int i = 0; i < n; i++)
	{
		int64_t		lab;

		if (BkModelPredict(m, x + 2 * (size_t) i, &lab) && lab == y[i])
			ok++;
	}
	return (double) ok / n;
}

/* A binary machine f becomes machines -f, f and an empty one, exactly. */
static void
test_ovr_conversion(void)
{
	const char *pp[][2] = {{"variant", "p"}, {"budget", "20"}, {"gamma", "10"}};
	BkParams	p;
	BkModel    *m;
	BkRng		rng;
	double		xs[2 * 300],
				probe[2] = {0.3, 0.6},
				before,
				sc[3];
	int64_t		ys[300];
	int			ok = 1;

	BkRngSeed(&rng, 8);
	checkerboard(&rng, 300, xs, ys, 0.0);
	make_params(&p, pp, 3, 2);
	m = BkModelCreate(&env, &p, 2);
	for (int i = 0; i < 300; i++)
		BkModelLearn(m, xs + 2 * i, ys[i]);
	before = BkModelDecision(m, probe);
	BkClassAppend(m, 99, NULL, 0);
	BkModelOnNewClass(m);
	BkModelScores(m, probe, sc);
	ok = m->n_machines == 3 && sc[0] == -before && sc[1] == before && sc[2] == 0.0;
	CHECK(ok, "binary -> one-vs-rest keeps f and -f exactly (%g: %g %g %g)",
		  before, sc[0], sc[1], sc[2]);
	BkModelFree(m);
}

/* train on rows [from, to), continuing m (or a new model) */
static BkModel *
train_mc(const char *pp[][2], int np, const double *x, const int64_t *y,
		 int from, int to, BkModel *m)
{
	if (m == NULL)
	{
		BkParams	p;

		make_params(&p, pp, np, 2);
		m = BkModelCreate(&env, &p, 2);
	}
	for (int i = from; i < to; i++)
		BkModelLearn(m, x + 2 * (size_t) i, y[i]);
	return m;
}

static void
test_multiclass(void)
{
	static const char *configs[][5][2] = {
		{{"algorithm", "bpa"}, {"variant", "nn"}, {"loss", "ramp"}, {"budget", "60"}, {"gamma", "20"}},
		{{"algorithm", "pegasos"}, {"maintenance", "merge"}, {"budget", "60"}, {"gamma", "20"}, {"lambda", "0.0001"}},
		{{"algorithm", "pegasos"}, {"maintenance", "projection"}, {"budget", "60"}, {"gamma", "20"}, {"lambda", "0.0001"}},
		{{"algorithm", "pegasos"}, {"maintenance", "projection_best"}, {"budget", "60"}, {"gamma", "20"}, {"lambda", "0.0001"}},
		{{"algorithm", "pegasos"}, {"maintenance", "smallest"}, {"budget", "60"}, {"gamma", "20"}, {"lambda", "0.0001"}},
		{{"algorithm", "pegasos"}, {"maintenance", "random"}, {"budget", "60"}, {"gamma", "20"}, {"seed", "3"}},
		{{"algorithm", "pegasos"}, {"maintenance", "none"}, {"max_sv", "5000"}, {"gamma", "20"}, {"lambda", "0.0001"}},
		/* one-vs-rest: each machine its own Q_t, born rows, K^-1 */
		{{"algorithm", "forgetron"}, {"budget", "30"}, {"gamma", "20"}, {"seed", "1"}, {"seed", "2"}},
		{{"algorithm", "projectron"}, {"budget", "30"}, {"gamma", "20"}, {"seed", "1"}, {"seed", "2"}},
		{{"algorithm", "projectron_pp"}, {"budget", "30"}, {"gamma", "20"}, {"eta", "0.1"}, {"seed", "2"}},
	};
	static const double floor_acc[] = {0.90, 0.90, 0.90, 0.90, 0.75, 0.70, 0.90, 0.80, 0.92, 0.93};
	int			nconfigs = (int) (sizeof(configs) / sizeof(configs[0]));
	int			ntr = 4000,
				nte = 2000;
	double	   *xtr = malloc(sizeof(double) * 2 * ntr),
			   *xte = malloc(sizeof(double) * 2 * nte);
	int64_t    *ytr = malloc(sizeof(int64_t) * ntr),
			   *yte = malloc(sizeof(int64_t) * nte);
	BkRng		rng;
	double		degradation[10] = {0};

	BkRngSeed(&rng, 21);
	three_class(&rng, ntr, xtr, ytr);
	three_class(&rng, nte, xte, yte);
	for (int c = 0; c < nconfigs; c++)
	{
		BkModel    *whole = train_mc(configs[c], 5, xtr, ytr, 0, ntr, NULL);
		BkModel    *half = train_mc(configs[c], 5, xtr, ytr, 0, ntr / 2, NULL);
		BkModel    *res;
		size_t		l1,
					l2,
					l3;
		uint8_t    *b1 = encode(whole, &l1),
				   *b2 = encode(half, &l2),
				   *b3;
		double		acc = accuracy_mc(whole, xte, yte, nte);
		int			within = 1;

		for (int k = 0; k < whole->n_machines; k++)
			within &= !BkParamsBudgeted(&whole->params) ||
				whole->machines[k].n_sv <= whole->params.budget;
		printf("# %s/%s: accuracy %.4f, %d machines, n_sv %d, degradation %.4g\n",
			   configs[c][0][1], configs[c][1][1], acc, whole->n_machines,
			   whole->machines[0].n_sv, whole->machines[0].degradation);
		CHECK(acc >= floor_acc[c], "multi-class config %d: accuracy %.4f >= %.2f", c, acc, floor_acc[c]);
		CHECK(within, "multi-class config %d: n_sv <= budget in every machine", c);
		CHECK(whole->n_classes == 3 &&
			  whole->n_machines == (whole->params.algorithm == BK_ALG_PEGASOS ? 1 : 3),
			  "multi-class config %d: layout", c);
		if (c == 1)
			CHECK(whole->machines[0].n_sv == 60, "merge keeps exactly B SVs once full");

		res = BkModelDecode(&env, b2, l2, true);
		train_mc(NULL, 0, xtr, ytr, ntr / 2, ntr, res);
		b3 = encode(res, &l3);
		CHECK(l3 == l1 && memcmp(b3, b1, l1) == 0,
			  "multi-class config %d: continued training is bit-identical", c);
		degradation[c] = whole->machines[0].degradation;
		free(b1);
		free(b2);
		free(b3);
		BkModelFree(whole);
		BkModelFree(half);
		BkModelFree(res);
	}
	CHECK(degradation[2] < degradation[4] && degradation[3] < degradation[4] &&
		  degradation[1] < degradation[4],
		  "projection and merge degrade w less than removal (%g, %g, %g < %g)",
		  degradation[2], degradation[3], degradation[1], degradation[4]);
	free(xtr);
	free(xte);
	free(ytr);
	free(yte);
}

/* ||w||^2 of machine 0 computed directly from its SVs */
static double
direct_wnorm2(const BkModel *m)
{
	const BkMachine *mach = &m->machines[0];
	int			K = mach->n_coef;
	double		t = 0.0;

	for (int i = 0; i < mach->n_sv; i++)
		for (int j = 0; j < mach->n_sv; j++)
		{
			const double *xi = mach->sv + (size_t) i * m->dim;
			const double *xj = mach->sv + (size_t) j * m->dim;
			double		k = BkKernelFromDot(&m->params, BkDot(xi, xj, m->dim),
											mach->sqnorm[i], mach->sqnorm[j]);

			for (int c = 0; c < K; c++)
				t += mach->coef[(size_t) i * K + c] * mach->coef[(size_t) j * K + c] * k;
		}
	return t * mach->scale * mach->scale;
}

/* ball_projection: ||w|| <= 1/sqrt(lambda) after every row, tracked exactly */
static void
test_ball_projection(void)
{
	static const char *strategies[] = {"merge", "projection", "smallest", "random", "none"};
	BkRng		rng;
	double		xs[2 * 1500];
	int64_t		ys[1500];

	BkRngSeed(&rng, 31);
	three_class(&rng, 1500, xs, ys);
	for (int s = 0; s < 5; s++)
	{
		BkParams	p;
		BkParamInput in = {BK_IN_STRING, 0, NULL, false, NULL};
		BkParamInput num = {BK_IN_NUMBER, 0, NULL, false, NULL};
		BkParamInput yes = {BK_IN_BOOLEAN, 0, NULL, true, NULL};
		char		err[BK_ERRMSG_LEN];
		BkModel    *m;
		double		lambda = 0.05,
					worst_ratio = 0.0,
					worst_err = 0.0;
		int			bound = 0;

		BkParamsInit(&p);
		in.string = "pegasos";
		BkParamsSet(&p, "algorithm", &in, err, sizeof(err));
		in.string = strategies[s];
		BkParamsSet(&p, "maintenance", &in, err, sizeof(err));
		if (s < 4)
		{
			num.number = 30;
			BkParamsSet(&p, "budget", &num, err, sizeof(err));
		}
		num.number = lambda;
		BkParamsSet(&p, "lambda", &num, err, sizeof(err));
		num.number = 20;
		BkParamsSet(&p, "gamma", &num, err, sizeof(err));
		BkParamsSet(&p, "ball_projection", &yes, err, sizeof(err));
		if (!BkParamsFinish(&p, 2, err, sizeof(err)))
		{
			CHECK(0, "ball params: %s", err);
			continue;
		}
		m = BkModelCreate(&env, &p, 2);
		for (int i = 0; i < 1500; i++)
		{
			double		before_scale = m->machines[0].scale;

			BkModelLearn(m, xs + 2 * i, ys[i]);
			if (i < 300 || i % 25 == 0)
			{
				double		d = direct_wnorm2(m);
				double		e = fabs(d - m->machines[0].wnorm2) / (d > 1.0 ? d : 1.0);

				if (d * lambda > worst_ratio)
					worst_ratio = d * lambda;
				if (e > worst_err)
					worst_err = e;
				/* the projection ran: ||w||^2 sits on the sphere */
				if (fabs(d * lambda - 1.0) < 1e-9 && m->machines[0].scale != before_scale)
					bound++;
			}
		}
		printf("# ball %s: max lambda ||w||^2 = %.12f, projected on %d checked rows, worst relative error of the tracked norm %.2g\n",
			   strategies[s], worst_ratio, bound, worst_err);
		CHECK(bound > 0, "ball %s: the projection ran", strategies[s]);
		CHECK(worst_ratio <= 1.0 + 1e-9, "ball %s: ||w|| <= 1/sqrt(lambda) (max %.9f)",
			  strategies[s], worst_ratio);
		CHECK(worst_err < 1e-9, "ball %s: tracked ||w||^2 matches a direct computation (%.2g)",
			  strategies[s], worst_err);
		BkModelFree(m);
	}
}

static void
test_text_labels(void)
{
	const char *pp[][2] = {{"algorithm", "pegasos"}, {"budget", "30"}, {"gamma", "20"}};
	static const char *names[] = {"red", "green", "blue"};
	BkParams	p;
	BkModel    *m,
			   *d;
	BkRng		rng;
	double		xs[2 * 600];
	int64_t		ys[600];
	size_t		len;
	uint8_t    *buf;
	int			same = 1;

	BkRngSeed(&rng, 4);
	three_class(&rng, 600, xs, ys);
	make_params(&p, pp, 3, 2);
	m = BkModelCreate(&env, &p, 2);
	BkModelDeclareClassText(m, "blue", 4);
	BkModelDeclareClassText(m, "green", 5);
	BkModelDeclareClassText(m, "red", 3);
	for (int i = 0; i < 600; i++)
		BkModelLearnText(m, xs + 2 * i, names[ys[i]], strlen(names[ys[i]]));
	buf = encode(m, &len);
	d = BkModelDecode(&env, buf, len, false);
	CHECK(d->text_labels && d->classes_declared && d->n_classes == 3 &&
		  strcmp(d->class_names[0], "blue") == 0 && strcmp(d->class_names[2], "red") == 0,
		  "text labels and their declared order survive the format");
	for (int i = 0; i < 600; i++)
		same &= BkModelPredictClass(d, xs + 2 * i) == BkModelPredictClass(m, xs + 2 * i);
	CHECK(same, "decoded text-labelled model predicts alike");
	free(buf);
	BkModelFree(m);
	BkModelFree(d);
}

/*
 * Paper 001 eq. 1: (gamma_t, d gamma_b) maximises the dual ascent
 * D(g, d) = g l_t + d l_b - (k_t g^2 + k_b d^2 + 2 w g d) / 2 over the box
 * g in [0, C], d in [-gamma_b, C - gamma_b]: no point of a fine grid does
 * better, on random instances covering the four cases.
 */
static void
test_duol_double_update(void)
{
	BkRng		rng;
	int			bad = 0,
				outside = 0;

	BkRngSeed(&rng, 11);
	for (int it = 0; it < 400; it++)
	{
		double		C = it % 3 == 0 ? 0.5 : (it % 3 == 1 ? 1.0 : 10.0);
		double		kt = 0.5 + BkRngUniform(&rng),
					kb = 0.5 + BkRngUniform(&rng);
		double		w = -BkRngUniform(&rng) * sqrt(kt * kb);
		double		lt = 2.0 * BkRngUniform(&rng) + 1e-3,
					lb = 2.0 * BkRngUniform(&rng);
		double		gb = C * BkRngUniform(&rng);
		double		g,
					d,
					v,
					gridmax = -1e300;

		BkDuolDoubleUpdate(C, lt, lb, kt, kb, w, gb, &g, &d);
		if (g < 0.0 || g > C || d < -gb || d > C - gb)
			outside++;
		v = g * lt + d * lb - 0.5 * (kt * g * g + kb * d * d + 2.0 * w * g * d);
		for (int i = 0; i <= 200; i++)
			for (int k = 0; k <= 200; k++)
			{
				double		gg = C * i / 200.0;
				double		dd = -gb + C * k / 200.0;
				double		vv = gg * lt + dd * lb -
					0.5 * (kt * gg * gg + kb * dd * dd + 2.0 * w * gg * dd);

				if (vv > gridmax)
					gridmax = vv;
			}
		if (v < gridmax - 1e-12)
			bad++;
	}
	CHECK(outside == 0, "eq. 1 outside the box in %d instances", outside);
	CHECK(bad == 0, "eq. 1 below the grid maximum of the dual ascent in %d instances", bad);
}

/*
 * DUOL and BDUOL (paper 001): after every row the cached scores are the
 * machine's f(sv_i), every gamma_i = |coef_i| lies in (0, C], and BDUOL
 * keeps at most B SVs.  Each maintenance strategy on a noisy stream.
 */
static double
direct_score(const BkModel *m, const BkMachine *mach, const double *x)
{
	double		f = 0.0;

	for (int i = 0; i < mach->n_sv; i++)
	{
		const double *s = mach->sv + (size_t) i * m->dim;
		double		d2 = 0.0;

		for (int k = 0; k < m->dim; k++)
			d2 += (s[k] - x[k]) * (s[k] - x[k]);
		f += mach->coef[i] * exp(-m->params.gamma * d2);
	}
	return f;
}

static void
test_duol_invariants(void)
{
	static const char *configs[][5][2] = {
		{{"algorithm", "duol"}, {"gamma", "30"}, {"C", "100"}, {"max_sv", "5000"}, {"rho", "0"}},
		{{"algorithm", "bduol"}, {"gamma", "30"}, {"C", "100"}, {"budget", "60"}, {"maintenance", "removal"}},
		{{"algorithm", "bduol"}, {"gamma", "30"}, {"C", "100"}, {"budget", "60"}, {"maintenance", "nearest"}},
		{{"algorithm", "bduol"}, {"gamma", "30"}, {"C", "100"}, {"budget", "60"}, {"maintenance", "approx_projection"}},
		{{"algorithm", "bduol"}, {"gamma", "30"}, {"C", "100"}, {"budget", "60"}, {"maintenance", "projection"}},
	};
	int			n = 4000;
	double	   *x = malloc(sizeof(double) * 2 * n);
	int64_t    *y = malloc(sizeof(int64_t) * n);
	uint64_t	mistakes[5];
	BkRng		rng;

	BkRngSeed(&rng, 7);
	checkerboard(&rng, n, x, y, 0.05);
	for (int c = 0; c < 5; c++)
	{
		BkParams	p;
		BkModel    *m;
		double		worst = 0.0;
		bool		box = true,
					budget = true;

		make_params(&p, configs[c], 5, 2);
		m = BkModelCreate(&env, &p, 2);
		for (int t = 0; t < n; t++)
		{
			BkMachine  *mach;

			BkModelLearn(m, x + 2 * t, y[t]);
			mach = &m->machines[0];
			if (t % 25 != 24)
				continue;
			for (int i = 0; i < mach->n_sv; i++)
			{
				double		e = fabs(mach->sv_scores[i] -
									 direct_score(m, mach, mach->sv + 2 * i));
				double		g = fabs(mach->coef[i]);

				if (e > worst)
					worst = e;
				if (!(g > 0.0 && g <= p.C * (1.0 + 1e-12)))
					box = false;
			}
			if (p.algorithm == BK_ALG_BDUOL && mach->n_sv > p.budget)
				budget = false;
		}
		printf("# %s %s: n_sv %d, maintenance %llu, online mistakes %llu, worst score error %.2e\n",
			   BkAlgorithmName(&p), c > 0 ? configs[c][4][1] : "",
			   m->machines[0].n_sv, (unsigned long long) m->maintenance,
			   (unsigned long long) m->mistakes, worst);
		CHECK(worst < 1e-9, "config %d: cached f(sv_i) off by %.3g", c, worst);
		CHECK(box, "config %d: every gamma_i in (0, C]", c);
		CHECK(budget, "config %d: n_sv <= B", c);
		/* better than chance by far (online, from an empty model) */
		CHECK(m->mistakes < (uint64_t) (0.42 * n), "config %d: %llu online mistakes of %d",
			  c, (unsigned long long) m->mistakes, n);
		mistakes[c] = m->mistakes;
		if (p.algorithm == BK_ALG_BDUOL)
			CHECK(m->maintenance > 0, "config %d: maintenance ran", c);
		BkModelFree(m);
	}
	/* paper 001 §4: the exact projection makes the fewest mistakes */
	CHECK(mistakes[4] < mistakes[1], "BDUOL projection %llu < removal %llu mistakes",
		  (unsigned long long) mistakes[4], (unsigned long long) mistakes[1]);
	free(x);
	free(y);
}

/* ---- Forgetron, Projectron, Projectron++ ---- */

/* +1 / -1 of a label for the binary machine (positive = the second class) */
static double
machine_y(const BkModel *m, int64_t label)
{
	return m->n_classes > 1 && m->classes[1] == label ? 1.0 : -1.0;
}

/* k(sv_i, x) of machine 0 by brute force */
static double
kernel_sv(const BkModel *m, const double *sv, double sqsv, const double *x)
{
	return BkKernelFromDot(&m->params, BkDot(sv, x, m->dim), sqsv, BkDot(x, x, m->dim));
}

/* The self-tuned phi in closed form against the quadratic's definition. */
static void
test_forgetron_phi(void)
{
	/* sigma, mu, Q, M */
	static const double cases[][4] = {
		{1.0, 0.5, 0.0, 1.0},	/* a = 0 */
		{1.0, 0.0, 0.0, 1.0},	/* a > 0 */
		{1.0, 3.0, 0.0, 1.0},	/* a < 0, g(1) <= 0 */
		{1.0, 0.6, 0.4, 1.0},	/* a < 0, g(1) > 0: the smaller root */
		{0.5, -2.0, 3.0, 8.0},	/* a > 0 */
		{0.0, 1.0, 0.0, 1.0},	/* sigma = 0: no shrink */
		{1e-3, 0.2, 100.0, 214.0},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		double		s = cases[c][0],
					mu = cases[c][1],
					Q = cases[c][2],
					M = cases[c][3];
		double		phi = BkForgetronPhi(s, mu, Q, M);
#define G(f) ((s * (f)) * (s * (f)) + 2 * s * (f) - 2 * s * (f) * ((f) * mu) + Q - 15.0 / 32.0 * M)
		bool		feasible = G(phi) <= 1e-12;
		/* largest: 1, or the bound is violated just above phi */
		bool		largest = phi == 1.0 || G(phi * (1 + 1e-6)) > 0.0;
		/* and no larger feasible phi in (phi, 1] on a grid */
		bool		nolarger = true;

		for (int k = 1; k <= 1000; k++)
		{
			double		f = phi + (1.0 - phi) * k / 1000.0;

			if (f > phi * (1 + 1e-6) && G(f) <= -1e-12)
				nolarger = false;
		}
#undef G
		CHECK(phi > 0.0 && phi <= 1.0 && feasible && largest && nolarger,
			  "forgetron phi case %zu: phi %.17g in (0,1], feasible, largest", c, phi);
	}
}

static void
test_forgetron(void)
{
	const char *pp[][2] = {{"algorithm", "forgetron"}, {"budget", "20"}, {"gamma", "30"}};
	enum
	{
		N = 3000, B = 20
	};
	static double xs[2 * N];
	static int64_t ys[N];
	BkRng		rng;
	BkModel    *m,
			   *d;
	int			removals = 0,
				shrinks = 0;
	bool		within = true,
				oldest = true,
				common = true,
				phi_ok = true,
				q_ok = true,
				bound_ok = true;
	uint8_t    *buf;
	size_t		len;

	BkRngSeed(&rng, 21);
	checkerboard(&rng, N, xs, ys, 0.1);
	m = train(pp, 3, xs, ys, 0, 0, NULL);
	for (int t = 0; t < N; t++)
	{
		BkMachine  *mach = m->n_machines > 0 ? &m->machines[0] : NULL;
		int			n0 = mach ? mach->n_sv : 0;
		uint64_t	upd0 = mach ? mach->updates : 0;
		double		coef0[B],
					sv0[2 * B],
					sq0[B],
					Q0 = mach ? mach->degradation : 0.0;
		uint64_t	born0[B];
		int			r = 0;

		if (mach)
		{
			memcpy(coef0, mach->coef, sizeof(double) * n0);
			memcpy(sv0, mach->sv, sizeof(double) * 2 * n0);
			memcpy(sq0, mach->sqnorm, sizeof(double) * n0);
			memcpy(born0, mach->born, sizeof(uint64_t) * n0);
		}
		BkModelLearn(m, xs + 2 * t, ys[t]);
		mach = &m->machines[0];
		within &= mach->n_sv <= B;
		bound_ok &= isfinite(mach->degradation) &&
			mach->degradation <= 15.0 / 32.0 * (double) mach->updates + 1e-9;
		if (n0 < B || mach->updates == upd0)
			continue;

		/* a removal: the oldest SV's slot now holds x_t, born at this row */
		removals++;
		for (int i = 1; i < n0; i++)
			if (born0[i] < born0[r])
				r = i;
		oldest &= mach->born[r] == m->rows_seen &&
			memcmp(mach->sv + 2 * r, xs + 2 * t, sizeof(double) * 2) == 0;
		for (int i = 0; i < B; i++)
			oldest &= i == r || mach->born[i] == born0[i];

		/* every other coefficient scaled by the same phi; x_t gets y phi */
		{
			double		y = machine_y(m, ys[t]);
			double		phi = mach->coef[r] / y;
			double		sigma = fabs(coef0[r]),
						yr = coef0[r] < 0 ? -1.0 : 1.0;
			double		fr = y * kernel_sv(m, xs + 2 * t, BkDot(xs + 2 * t, xs + 2 * t, 2), sv0 + 2 * r);
			double		mu,
						psi,
						M = (double) mach->updates;

			for (int i = 0; i < B; i++)
				if (i != r)
					common &= fabs(mach->coef[i] - phi * coef0[i]) <= 1e-12 * fabs(coef0[i]);
			for (int i = 0; i < B; i++)
				fr += coef0[i] * kernel_sv(m, sv0 + 2 * i, sq0[i], sv0 + 2 * r);
			mu = yr * fr;
			/* phi: the largest in (0, 1] meeting Psi + Q <= 15/32 M */
			psi = (sigma * phi) * (sigma * phi) + 2 * sigma * phi - 2 * sigma * phi * (phi * mu);
			phi_ok &= phi > 0.0 && phi <= 1.0 && psi + Q0 <= 15.0 / 32.0 * M + 1e-9;
			if (phi < 1.0)
			{
				double		f2 = phi * 1.001;
				double		psi2 = (sigma * f2) * (sigma * f2) + 2 * sigma * f2 - 2 * sigma * f2 * (f2 * mu);

				phi_ok &= psi2 + Q0 > 15.0 / 32.0 * M;
				shrinks++;
			}
			q_ok &= fabs(mach->degradation - (Q0 + psi)) <= 1e-9 * (1.0 + fabs(Q0));
		}
	}
	CHECK(within, "forgetron: n_sv <= B after every row");
	CHECK(removals > 100 && shrinks > 10, "forgetron: %d removals, %d with phi < 1", removals, shrinks);
	CHECK(oldest, "forgetron: the oldest SV (by born) is the one removed");
	CHECK(common, "forgetron: every remaining coefficient shrinks by the same phi");
	CHECK(phi_ok, "forgetron: phi in (0,1] is the largest meeting Psi + Q <= 15/32 M");
	CHECK(q_ok, "forgetron: Q accumulates Psi(sigma_r phi, phi mu)");
	CHECK(bound_ok, "forgetron: Q finite and <= 15/32 mistakes after every row");

	/* Q and the rows survive the format */
	buf = encode(m, &len);
	d = BkModelDecode(&env, buf, len, true);
	CHECK(memcmp(&d->machines[0].degradation, &m->machines[0].degradation, sizeof(double)) == 0 &&
		  memcmp(d->machines[0].born, m->machines[0].born, sizeof(uint64_t) * B) == 0 &&
		  d->machines[0].updates == m->machines[0].updates,
		  "forgetron: Q (%g), born and the mistake count restored by decode",
		  d->machines[0].degradation);

	/* the validator: Q of either sign, but not above the bound */
	{
		char		err[BK_ERRMSG_LEN];
		BkErrCode	code;
		uint8_t    *b2;
		size_t		l2;

		d->machines[0].degradation = -123.5;
		b2 = encode(d, &l2);
		CHECK(BkFormatValidate(b2, l2, err, sizeof(err), &code), "forgetron: a negative Q is valid");
		free(b2);
		d->machines[0].degradation = 15.0 / 32.0 * (double) d->machines[0].updates + 1.0;
		b2 = encode(d, &l2);
		CHECK(!BkFormatValidate(b2, l2, err, sizeof(err), &code) && strstr(err, "Forgetron Q"),
			  "forgetron: Q above 15/32 mistakes refused: %s", err);
		free(b2);
	}
	free(buf);
	BkModelFree(d);
	BkModelFree(m);
}

/* d = K^-1 k_t by a dense LAPACKE solve over machine 0's SVs */
static void
dense_projection(const BkModel *m, const double *x, double *d)
{
	const BkMachine *mach = &m->machines[0];
	int			n = mach->n_sv;
	double	   *K = malloc(sizeof(double) * n * n);

	for (int i = 0; i < n; i++)
	{
		for (int j = 0; j < n; j++)
			K[i * n + j] = kernel_sv(m, mach->sv + 2 * i, mach->sqnorm[i], mach->sv + 2 * j) *
				(i == j ? 1.0 + BK_GRAM_RIDGE : 1.0);	/* the Projectrons' ridge */
		d[i] = kernel_sv(m, mach->sv + 2 * i, mach->sqnorm[i], x);
	}
	if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', n, 1, K, n, d, 1) != 0)
	{
		fprintf(stderr, "dposv failed\n");
		exit(2);
	}
	free(K);
}

/*
 * After B SVs, a Projectron mistake adds y_t K^-1 k_t to the coefficients
 * (never an SV), so f(x_t) moves by y_t k_t' K^-1 k_t; Projectron++ does
 * the same and also takes tau y_t K^-1 k_t on margin errors.
 */
static void
test_projectron(const char *alg)
{
	const char *pp[][2] = {{"algorithm", alg}, {"budget", "15"}, {"gamma", "10"}};
	enum
	{
		N = 3000, B = 15
	};
	static double xs[2 * N];
	static int64_t ys[N];
	BkRng		rng;
	BkModel    *m;
	bool		pp_alg = strcmp(alg, "projectron_pp") == 0;
	int			mistakes = 0,
				margin_updates = 0,
				margin_skips = 0;
	double		worst_coef = 0.0,
				worst_f = 0.0,
				worst_tau = 0.0;
	bool		within = true,
				stays = true;

	BkRngSeed(&rng, 31);
	checkerboard(&rng, N, xs, ys, 0.05);
	m = train(pp, 3, xs, ys, 0, 0, NULL);
	for (int t = 0; t < N; t++)
	{
		const double *x = xs + 2 * t;
		BkMachine  *mach = m->n_machines > 0 ? &m->machines[0] : NULL;
		bool		full = mach && mach->n_sv == B && m->n_classes == 2;
		double		coef0[B],
					d[B],
					f0 = 0.0,
					y = 0.0,
					ktt = 1.0,		/* rbf */
					q = 0.0;

		if (full)
		{
			memcpy(coef0, mach->coef, sizeof(coef0));
			f0 = BkModelDecision(m, x);
			y = machine_y(m, ys[t]);
			dense_projection(m, x, d);
			for (int i = 0; i < B; i++)
				q += d[i] * kernel_sv(m, mach->sv + 2 * i, mach->sqnorm[i], x);
		}
		BkModelLearn(m, x, ys[t]);
		mach = &m->machines[0];
		within &= mach->n_sv <= B;
		if (!full)
			continue;
		stays &= mach->n_sv == B;
		if (y * f0 <= 0.0)
		{
			double		f1 = BkModelDecision(m, x);

			mistakes++;
			for (int i = 0; i < B; i++)
				worst_coef = fmax(worst_coef,
								  fabs(mach->coef[i] - coef0[i] - y * d[i]) / (1.0 + fabs(d[i])));
			if (fabs((f1 - f0) - y * q) > worst_f)
				worst_f = fabs((f1 - f0) - y * q);
		}
		else if (y * f0 < 1.0)
		{
			double		loss = 1.0 - y * f0;
			double		delta2 = fmax(ktt - q, 0.0);
			double		gain = loss - delta2 / m->params.eta;
			double		tau = 0.0;
			bool		changed = memcmp(coef0, mach->coef, sizeof(coef0)) != 0;

			if (pp_alg && gain > 0.0)
				tau = fmin(fmin(loss / q, 2.0 * gain / q), 1.0);
			if (tau > 0.0)
			{
				margin_updates++;
				for (int i = 0; i < B; i++)
					worst_tau = fmax(worst_tau,
									 fabs(mach->coef[i] - coef0[i] - tau * y * d[i]) / (1.0 + fabs(d[i])));
			}
			else
			{
				margin_skips++;
				if (changed)
					worst_tau = INFINITY;
			}
		}
	}
	printf("# %s: %d projected mistakes, %d margin-error updates, %d margin errors skipped; worst %.2g %.2g %.2g\n",
		   alg, mistakes, margin_updates, margin_skips, worst_coef, worst_f, worst_tau);
	CHECK(within && stays, "%s: n_sv <= B always, and stays B once full", alg);
	CHECK(mistakes > 50 && worst_coef < 1e-6,
		  "%s: %d mistakes after B: alpha += y K^-1 k_t (dense solve), worst %.2g", alg, mistakes, worst_coef);
	CHECK(worst_f < 1e-6, "%s: f(x_t) moves by y k_t' K^-1 k_t, worst %.2g", alg, worst_f);
	if (pp_alg)
		CHECK(margin_updates > 10 && margin_skips > 0 && worst_tau < 1e-6,
			  "%s: %d margin-error steps tau y K^-1 k_t, %d skipped (worst %.2g)",
			  alg, margin_updates, margin_skips, worst_tau);
	else
		CHECK(margin_updates == 0 && margin_skips > 10 && worst_tau == 0.0,
			  "%s: margin errors (%d) leave the model as it is", alg, margin_skips);
	BkModelFree(m);
}

/*
 * Projectron and Projectron++ agree until the first margin error where the
 * latter updates: there it changes the model and the Projectron does not.
 */
static void
test_projectron_pp_differs(void)
{
	const char *p1[][2] = {{"algorithm", "projectron"}, {"budget", "15"}, {"gamma", "10"}};
	const char *p2[][2] = {{"algorithm", "projectron_pp"}, {"budget", "15"}, {"gamma", "10"}};
	enum
	{
		N = 2000
	};
	static double xs[2 * N];
	static int64_t ys[N];
	BkRng		rng;
	BkModel    *a,
			   *b;
	int			found = -1;
	bool		same_before = true;

	BkRngSeed(&rng, 41);
	checkerboard(&rng, N, xs, ys, 0.0);
	a = train(p1, 3, xs, ys, 0, 0, NULL);
	b = train(p2, 3, xs, ys, 0, 0, NULL);
	for (int t = 0; t < N && found < 0; t++)
	{
		double		f = a->n_classes == 2 ? BkModelDecision(a, xs + 2 * t) : 0.0;
		double		y = machine_y(a, ys[t]);
		uint64_t	ua = a->n_machines ? a->machines[0].updates : 0;
		uint64_t	ub = b->n_machines ? b->machines[0].updates : 0;

		BkModelLearn(a, xs + 2 * t, ys[t]);
		BkModelLearn(b, xs + 2 * t, ys[t]);
		if (b->machines[0].updates != a->machines[0].updates)
		{
			found = t;
			CHECK(y * f > 0.0 && y * f < 1.0 && a->machines[0].updates == ua &&
				  b->machines[0].updates == ub + 1,
				  "projectron_pp updates on a margin error (y f = %.3f) where projectron does not", y * f);
		}
		else
			same_before &= memcmp(a->machines[0].coef, b->machines[0].coef,
								  sizeof(double) * a->machines[0].n_sv) == 0;
	}
	CHECK(found > 0 && same_before, "projectron and projectron_pp agree until row %d", found);
	BkModelFree(a);
	BkModelFree(b);
}

/* Parameters of the three learners; one seed, one model. */
static void
test_new_learner_params(void)
{
	BkParams	p;
	char		err[BK_ERRMSG_LEN];
	BkParamInput num = {BK_IN_NUMBER, 0, NULL, false, NULL};
	BkParamInput str = {BK_IN_STRING, 0, NULL, false, NULL};
	BkParamValue vals[BK_MAX_PARAM_VALUES];
	int			n;
	bool		has_eta = false;

	BkParamsInit(&p);
	str.string = "projectron";
	num.number = 0.5;
	CHECK(set_one(&p, "algorithm", str, err) && set_one(&p, "eta", num, err) &&
		  !BkParamsFinish(&p, 2, err, sizeof(err)) &&
		  strstr(err, "\"eta\" does not apply to algorithm \"projectron\""),
		  "eta refused for projectron: %s", err);
	BkParamsInit(&p);
	str.string = "forgetron";
	CHECK(set_one(&p, "algorithm", str, err) && set_one(&p, "eta", num, err) &&
		  !BkParamsFinish(&p, 2, err, sizeof(err)) && strstr(err, "\"eta\""),
		  "eta refused for forgetron: %s", err);
	BkParamsInit(&p);
	str.string = "forgetron";
	num.number = 1;
	CHECK(set_one(&p, "algorithm", str, err) && set_one(&p, "C", num, err) &&
		  !BkParamsFinish(&p, 2, err, sizeof(err)) && strstr(err, "\"C\""),
		  "C refused for forgetron: %s", err);
	BkParamsInit(&p);
	str.string = "projectron_pp";
	num.number = 0;
	CHECK(set_one(&p, "algorithm", str, err) && !set_one(&p, "eta", num, err),
		  "eta = 0 refused: %s", err);
	CHECK(BkParamsFinish(&p, 2, err, sizeof(err)) && p.eta == 0.1 && p.budget == 100 &&
		  BkParamsBudgeted(&p) && strcmp(BkAlgorithmName(&p), "projectron_pp") == 0,
		  "projectron_pp defaults: eta 0.1, budget 100");
	n = BkParamsList(&p, vals, BK_MAX_PARAM_VALUES);
	for (int i = 0; i < n; i++)
		has_eta |= strcmp(vals[i].key, "eta") == 0 && vals[i].number == 0.1;
	CHECK(has_eta, "projectron_pp lists eta = 0.1");
	/* BDUOL takes its own maintenance strategies, Pegasos its own */
	BkParamsInit(&p);
	str.string = "bduol";
	set_one(&p, "algorithm", str, err);
	str.string = "merge";
	CHECK(set_one(&p, "maintenance", str, err) && !BkParamsFinish(&p, 2, err, sizeof(err)) &&
		  strstr(err, "does not apply to algorithm \"bduol\""), "bduol refuses merge: %s", err);
	BkParamsInit(&p);
	str.string = "pegasos";
	set_one(&p, "algorithm", str, err);
	str.string = "nearest";
	CHECK(set_one(&p, "maintenance", str, err) && !BkParamsFinish(&p, 2, err, sizeof(err)) &&
		  strstr(err, "does not apply to algorithm \"pegasos\""), "pegasos refuses nearest: %s", err);
	BkParamsInit(&p);
	str.string = "bduol";
	set_one(&p, "algorithm", str, err);
	num.number = 1;
	CHECK(set_one(&p, "rho", num, err) && !BkParamsFinish(&p, 2, err, sizeof(err)) &&
		  strstr(err, "\"rho\" must be in [0, 1)"), "rho = 1 refused: %s", err);
	BkParamsInit(&p);
	str.string = "bduol";
	set_one(&p, "algorithm", str, err);
	CHECK(BkParamsFinish(&p, 2, err, sizeof(err)) && p.maintenance == BK_MAINT_NEAREST &&
		  p.rho == 0.0 && p.C == 1.0 && p.budget == 100, "bduol defaults: nearest, rho 0, C 1, B 100");
	BkParamsInit(&p);
	str.string = "bogd";
	set_one(&p, "algorithm", str, err);
	CHECK(BkParamsFinish(&p, 2, err, sizeof(err)) && p.eta == 0.1 && p.max_coef == 4.0 &&
		  p.lambda == 1e-4, "bogd defaults: eta 0.1, max_coef 4, lambda 1e-4");
	CHECK(BK_ALG_DUOL == 12 && BK_ALG_BDUOL == 13 && BK_ALG_BOGD == 14 && BK_P_RHO == 23 &&
		  BK_P_MAX_COEF == 25, "algorithm numbers 12-14, parameter ids 23 and 25");
	/* the enum values are stored in models */
	CHECK(BK_ALG_FORGETRON == 15 && BK_ALG_PROJECTRON == 16 && BK_ALG_PROJECTRON_PP == 17,
		  "algorithm numbers 15-17");
	BkParamsInit(&p);
	str.string = "forgetron";
	set_one(&p, "algorithm", str, err);
	BkParamsFinish(&p, 2, err, sizeof(err));
	CHECK(p.algorithm == BK_ALG_FORGETRON && strcmp(BkAlgorithmName(&p), "forgetron") == 0,
		  "name forgetron is algorithm 15");
	str.string = "projectron";
	BkParamsInit(&p);
	set_one(&p, "algorithm", str, err);
	BkParamsFinish(&p, 2, err, sizeof(err));
	CHECK(p.algorithm == BK_ALG_PROJECTRON, "name projectron is algorithm 16");
}

/* Two runs with the same parameters give the same bytes. */
static void
test_new_learners_deterministic(void)
{
	static const char *const algs[] = {"forgetron", "projectron", "projectron_pp"};
	enum
	{
		N = 1500
	};
	static double xs[2 * N];
	static int64_t ys[N];
	BkRng		rng;

	BkRngSeed(&rng, 51);
	checkerboard(&rng, N, xs, ys, 0.1);
	for (int a = 0; a < 3; a++)
	{
		const char *pp[][2] = {{"algorithm", algs[a]}, {"budget", "30"}, {"seed", "7"}};
		BkModel    *m1 = train(pp, 3, xs, ys, 0, N, NULL);
		BkModel    *m2 = train(pp, 3, xs, ys, 0, N, NULL);
		size_t		l1,
					l2;
		uint8_t    *b1 = encode(m1, &l1);
		uint8_t    *b2 = encode(m2, &l2);

		/*
		 * gamma defaults to 1/dim = 0.5, wide on [0,1]^2: the kernel matrix is
		 * numerically low-rank, and the Projectrons project the vectors
		 * inside the span instead of adding them, so they may hold fewer
		 * than B SVs.
		 */
		printf("# %s, default gamma: n_sv %d\n", algs[a], m1->machines[0].n_sv);
		CHECK(l1 == l2 && memcmp(b1, b2, l1) == 0 && m1->machines[0].n_sv <= 30 &&
			  m1->machines[0].n_sv > 0, "%s: deterministic for a seed", algs[a]);
		free(b1);
		free(b2);
		BkModelFree(m1);
		BkModelFree(m2);
	}
}

/*
 * The Projectrons on a numerically low-rank kernel matrix (2-D points, a
 * kernel wide for them, B = 200): with the exact K^-1 the projections
 * blow the coefficients up (to 1e9 and beyond on Banana) and the model
 * collapses; the ridge of BK_GRAM_RIDGE keeps them bounded.
 */
static void
test_projectron_low_rank(void)
{
	const char *pp[][2] = {{"algorithm", "projectron_pp"}, {"gamma", "2"}, {"budget", "200"}};
	int			n = 6000;
	double	   *x = malloc(sizeof(double) * 2 * n);
	int64_t    *y = malloc(sizeof(int64_t) * n);
	BkRng		rng;
	BkParams	p;
	BkModel    *m;
	double		maxc = 0.0;

	BkRngSeed(&rng, 21);
	checkerboard(&rng, n, x, y, 0.1);
	make_params(&p, pp, 3, 2);
	m = BkModelCreate(&env, &p, 2);
	for (int t = 0; t < n; t++)
		BkModelLearn(m, x + 2 * t, y[t]);
	for (int i = 0; i < m->machines[0].n_sv; i++)
		if (fabs(m->machines[0].coef[i]) > maxc)
			maxc = fabs(m->machines[0].coef[i]);
	printf("# projectron_pp, low-rank K: n_sv %d, largest |coefficient| %.3g, online mistakes %llu\n",
		   m->machines[0].n_sv, maxc, (unsigned long long) m->mistakes);
	CHECK(maxc < 1e6, "projectron_pp on a low-rank K: coefficients bounded (largest %.3g)", maxc);
	BkModelFree(m);
	free(x);
	free(y);
}

/*
 * BDUOL's exact projection (paper 001 eq. 8): the active-set solution of
 *     min a' K_PP a / 2 - a' t,  t = c K_Pj,  lo <= a <= hi
 * satisfies the KKT conditions (gradient 0 on the free coordinates, >= 0
 * at a lower bound, <= 0 at an upper one), on random kernel matrices and
 * boxes tight enough that many bounds are active.
 */
static void
test_bduol_box_qp(void)
{
	BkRng		rng;
	int			bad = 0,
				failed = 0,
				active = 0;
	double		worst = 0.0;

	BkRngSeed(&rng, 31);
	for (int it = 0; it < 200; it++)
	{
		int			n = 3 + (int) BkRngBelow(&rng, 28);
		int			j = (int) BkRngBelow(&rng, (uint64_t) n);
		double		gamma = 5.0 + 35.0 * BkRngUniform(&rng);	/* well conditioned */
		double		c = (BkRngUniform(&rng) < 0.5 ? -1.0 : 1.0) * (0.1 + BkRngUniform(&rng));
		double		x[32][2],
					K[32 * 32],
					lo[32],
					hi[32],
					a[32];

		for (int i = 0; i < n; i++)
		{
			x[i][0] = BkRngUniform(&rng);
			x[i][1] = BkRngUniform(&rng);
		}
		for (int i = 0; i < n; i++)
			for (int k = 0; k < n; k++)
			{
				double		d0 = x[i][0] - x[k][0],
							d1 = x[i][1] - x[k][1];

				K[i * n + k] = exp(-gamma * (d0 * d0 + d1 * d1));
			}
		for (int i = 0; i < n; i++)
		{
			/* a box containing 0, often tight on one side */
			lo[i] = -0.3 * BkRngUniform(&rng) * fabs(c);
			hi[i] = 0.3 * BkRngUniform(&rng) * fabs(c);
		}
		if (!BkBduolBoxQp(&env, K, n, j, c, lo, hi, a))
		{
			failed++;
			continue;
		}
		for (int i = 0; i < n; i++)
		{
			double		g = -c * K[i * n + j];

			if (i == j)
				continue;
			for (int k = 0; k < n; k++)
				if (k != j)
					g += K[i * n + k] * a[k];
			if (a[i] < lo[i] - 1e-12 || a[i] > hi[i] + 1e-12)
				bad++;
			else if (a[i] <= lo[i])
			{
				active++;
				if (g < -1e-9)
					bad++;
			}
			else if (a[i] >= hi[i])
			{
				active++;
				if (g > 1e-9)
					bad++;
			}
			else if (fabs(g) > worst)
				worst = fabs(g);
		}
	}
	printf("# BDUOL box QP: %d bounds active, worst free gradient %.2g\n", active, worst);
	CHECK(failed == 0, "box QP solved in every instance (%d failed)", failed);
	CHECK(bad == 0 && worst < 1e-8, "box QP meets the KKT conditions (%d violations, free gradient %.2g)",
		  bad, worst);
	CHECK(active > 100, "the boxes bind (%d active bounds)", active);
}


/* ---- reliability: numbers, validation levels, memory of decoding ---- */

/* The last four bytes: the CRC-32C of the rest. */
static void
fix_crc(uint8_t *buf, size_t len)
{
	uint32_t	crc = BkCrc32c(0, buf, len - 4);

	for (int k = 0; k < 4; k++)
		buf[len - 4 + k] = (uint8_t) (crc >> (8 * k));
}

/* Whether learning (x, y) reports an error of class code. */
static bool
learn_fails(BkModel *m, const double *x, int64_t y, BkErrCode code)
{
	jmp_buf		jb;
	volatile bool failed = false;

	error_jump = &jb;
	if (setjmp(jb) == 0)
		BkModelLearn(m, x, y);
	else
		failed = last_code == code;
	error_jump = NULL;
	return failed;
}

static void
test_utf8(void)
{
	CHECK(BkValidUtf8("caf\xc3\xa9", 5) && BkValidUtf8("\xe2\x82\xac", 3) &&
		  BkValidUtf8("\xf0\x9f\x98\x80", 4) && BkValidUtf8("", 0),
		  "UTF-8: ASCII, two, three and four-byte forms accepted");
	CHECK(!BkValidUtf8("caf\xe9", 4), "UTF-8: a Latin-1 byte refused");
	CHECK(!BkValidUtf8("\xc0\x80", 2) && !BkValidUtf8("\xe0\x80\x80", 3),
		  "UTF-8: overlong forms refused");
	CHECK(!BkValidUtf8("\xed\xa0\x80", 3), "UTF-8: a surrogate refused");
	CHECK(!BkValidUtf8("\xf4\x90\x80\x80", 4), "UTF-8: beyond U+10FFFF refused");
	CHECK(!BkValidUtf8("\xe2\x82", 2) && !BkValidUtf8("\xe2\x28\xa1", 3),
		  "UTF-8: truncated and broken sequences refused");
}

/*
 * Nothing a learner returns fails validation: rows whose numbers would
 * overflow are errors before they change the model, and what was learned
 * still encodes to valid bytes.
 */
static void
test_overflow_guards(void)
{
	const char *bpa[][2] = {{"algorithm", "bpa"}, {"budget", "20"}};
	const char *poly[][2] = {{"algorithm", "pa"}, {"kernel", "poly"}, {"degree", "100"}, {"gamma", "1e10"}};
	double		ok[2] = {0.3, 0.7};
	double		huge[2] = {1e200, 0.0};
	double		big[2] = {1e155, 0.0};
	double		fine[2] = {1e150, 0.0};
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;
	BkParams	p;
	BkModel    *m;
	uint8_t    *buf;
	size_t		len;

	make_params(&p, bpa, 2, 2);
	m = BkModelCreate(&env, &p, 2);
	for (int i = 0; i < 30; i++)
	{
		double		x[2] = {(i % 7) / 7.0, (i % 11) / 11.0};

		BkModelLearn(m, x, i % 2 ? 1 : -1);
	}
	CHECK(learn_fails(m, huge, 1, BK_ERR_OVERFLOW) && strstr(last_msg, "too large"),
		  "a feature of 1e200 is an overflow error: %s", last_msg);
	CHECK(learn_fails(m, big, 1, BK_ERR_OVERFLOW), "a feature of 1e155 is an overflow error");
	CHECK(m->rows_seen == 30, "the refused rows were not counted");
	BkModelLearn(m, fine, 1);
	BkModelLearn(m, ok, -1);
	buf = encode(m, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code),
		  "after refused rows and a row of 1e150 the model is valid: %s", err);
	free(buf);
	BkModelFree(m);

	make_params(&p, poly, 4, 2);
	m = BkModelCreate(&env, &p, 2);
	CHECK(learn_fails(m, ok, 1, BK_ERR_OVERFLOW) && strstr(last_msg, "polynomial"),
		  "a polynomial kernel that overflows is an error: %s", last_msg);
	BkModelFree(m);

	/* Pegasos: lambda below 1e-100 refused for a new model only */
	{
		BkParamInput in = {BK_IN_STRING, 0, "pegasos", false, NULL};
		BkParamInput lam = {BK_IN_NUMBER, 1e-150, NULL, false, NULL};
		BkStoredParam st[64];
		BkParams	q;
		int			n;

		BkParamsInit(&p);
		BkParamsSet(&p, "algorithm", &in, err, sizeof(err));
		BkParamsSet(&p, "lambda", &lam, err, sizeof(err));
		CHECK(!BkParamsFinish(&p, 2, err, sizeof(err)) && strstr(err, "lambda"),
			  "Pegasos lambda 1e-150 refused for a new model: %s", err);
		/* the same parameters as a stored model (0.1.0 wrote such models) */
		p.lambda = 1e-150;
		n = BkParamsToStored(&p, st, 64);
		CHECK(BkParamsFromStored(&q, st, n, err, sizeof(err)) && q.lambda == 1e-150,
			  "a stored Pegasos lambda of 1e-150 stays readable: %s", err);
	}
}

/*
 * A model holding a non-finite value: its structure is valid (what the
 * input functions accept, so a restore keeps it), the full validation and
 * the decoder refuse it as an overflow.
 */
static void
test_validation_levels(void)
{
	const char *pp[][2] = {{"algorithm", "pa"}, {"gamma", "2"}};
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code = BK_ERR_CORRUPT;
	BkParams	p;
	BkModel    *m;
	uint8_t    *buf;
	size_t		len;
	double		inf = HUGE_VAL;
	jmp_buf		jb;

	make_params(&p, pp, 2, 2);
	m = BkModelCreate(&env, &p, 2);
	for (int i = 0; i < 10; i++)
	{
		double		x[2] = {(i % 3) / 3.0, (i % 5) / 5.0};

		BkModelLearn(m, x, i % 2 ? 1 : -1);
	}
	buf = encode(m, &len);
	/* the last coefficient is the last f64 before the CRC (pa: no aux) */
	memcpy(buf + len - 12, &inf, 8);
	fix_crc(buf, len);
	CHECK(BkFormatValidateStructure(buf, len, err, sizeof(err), &code),
		  "an infinite coefficient passes the structure checks: %s", err);
	CHECK(!BkFormatValidate(buf, len, err, sizeof(err), &code) &&
		  code == BK_ERR_OVERFLOW && strstr(err, "not finite"),
		  "and fails the value checks as an overflow: %s", err);
	error_jump = &jb;
	if (setjmp(jb) == 0)
	{
		(void) BkModelDecode(&env, buf, len, false);
		CHECK(0, "decoding a model with an infinite coefficient must fail");
	}
	else
		CHECK(last_code == BK_ERR_OVERFLOW, "decoding it is an overflow error: %s", last_msg);
	error_jump = NULL;
	/* a broken checksum is a structure failure */
	buf[len - 20] ^= 1;
	CHECK(!BkFormatValidateStructure(buf, len, err, sizeof(err), &code) &&
		  code == BK_ERR_CORRUPT, "a flipped bit fails the structure checks");
	free(buf);
	BkModelFree(m);
}

/* An environment that counts the live bytes it has handed out, and the peak. */
static size_t counted_live = 0,
			counted_peak = 0;

static void *
c_alloc(void *ctx, size_t size)
{
	size_t	   *p = calloc(1, size + 16);

	(void) ctx;
	if (!p)
		abort();
	p[0] = size;
	counted_live += size;
	if (counted_live > counted_peak)
		counted_peak = counted_live;
	return (char *) p + 16;
}

static void
c_free(void *ctx, void *ptr)
{
	(void) ctx;
	if (ptr)
	{
		size_t	   *p = (size_t *) ((char *) ptr - 16);

		counted_live -= p[0];
		free(p);
	}
}

static void *
c_realloc(void *ctx, void *ptr, size_t size)
{
	void	   *q = c_alloc(ctx, size);

	if (ptr)
	{
		size_t		old = ((size_t *) ((char *) ptr - 16))[0];

		memcpy(q, ptr, old < size ? old : size);
		c_free(ctx, ptr);
	}
	return q;
}

/*
 * Decoding a model to score it takes memory in proportion to its stored
 * size: a one-vs-rest model of 512 classes with 128 SVs of dimension 64 in
 * one machine and none in the others is 120 kB, and took 32 MB when every
 * machine had the largest one's room.  Continuing to train it is checked
 * for every machine; a budget is allocated as it fills.
 */
static void
test_decode_memory(void)
{
	BkEnv		cenv = {c_alloc, c_realloc, c_free, t_error, NULL, (size_t) 1 << 30, NULL};
	const char *pp[][2] = {{"algorithm", "perceptron"}, {"max_sv", "1"}};
	const char *big[][2] = {{"algorithm", "bpa"}, {"budget", "100000"}};
	BkParams	p;
	BkModel    *m;
	uint8_t    *buf;
	size_t		len,
				before;
	double		x[64];

	make_params(&p, pp, 2, 64);
	m = BkModelCreate(&env, &p, 64);
	for (int c = 0; c < 512; c++)
		BkModelDeclareClass(m, c);
	m->params.max_sv = 128;
	for (int i = 0; i < 128; i++)
	{
		for (int j = 0; j < 64; j++)
			x[j] = (double) ((i + j) % 7) / 7.0;
		BkMachineReserve(&env, &m->machines[0], 64, 128);
		BkMachineAppend(&m->machines[0], 64, x, BkDot(x, x, 64), i % 2 ? 1.0 : -1.0);
	}
	buf = encode(m, &len);
	BkModelFree(m);

	before = counted_live;
	counted_peak = counted_live;
	m = BkModelDecode(&cenv, buf, len, false);
	(void) BkModelPredictClass(m, x);
	CHECK(counted_peak - before <= 4 * len + 256 * 1024,
		  "decoding %zu bytes for scoring peaks at %zu bytes (at most 4 x + 256 kB)",
		  len, counted_peak - before);
	BkModelFree(m);
	CHECK(counted_live == before, "decoding and freeing leaves nothing behind");
	free(buf);

	/* a budget of 100000 at dimension 2: four rows use a few kB */
	make_params(&p, big, 2, 2);
	before = counted_live;
	counted_peak = counted_live;
	m = BkModelCreate(&cenv, &p, 2);
	for (int i = 0; i < 4; i++)
	{
		double		r[2] = {i * 0.25, 1.0 - i * 0.25};

		BkModelLearn(m, r, i % 2 ? 1 : -1);
	}
	CHECK(m->machines[0].capacity == 16 && counted_peak - before < 64 * 1024,
		  "four rows with budget 100000: %d slots, %zu bytes", m->machines[0].capacity,
		  counted_peak - before);
	BkModelFree(m);
}

int
main(void)
{
	test_crc();
	test_rng();
	test_params();
	test_kernels();
	test_gram();
	test_bpa_oracle("s", "hinge");
	test_bpa_oracle("s", "ramp");
	test_bpa_oracle("nn", "hinge");
	test_bpa_oracle("nn", "ramp");
	test_bpa_oracle("p", "hinge");
	test_bpa_oracle("p", "ramp");
	test_learners_and_format();
	test_validator();
	test_stoptron_stops();
	test_spa_sampling();
	test_spa_average();
	test_tighter_keeps_less_noise();
	test_errors();
	test_ovr_conversion();
	test_multiclass();
	test_text_labels();
	test_projectron_low_rank();
	test_duol_double_update();
	test_bduol_box_qp();
	test_duol_invariants();
	test_ball_projection();
	test_forgetron_phi();
	test_forgetron();
	test_projectron("projectron");
	test_projectron("projectron_pp");
	test_projectron_pp_differs();
	test_new_learner_params();
	test_new_learners_deterministic();
	test_utf8();
	test_overflow_guards();
	test_validation_levels();
	test_decode_memory();
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail == 0 ? 0 : 1;
}
