/*
 * test_forgetron_projectron.c
 *	  Unit tests: The Forgetron (its phi and Q), the Projectron and
 *	  Projectron++ against dense projections.
 */
#include "bk_test.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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
void
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

void
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
	d = BkModelDecode(&bk_std_env, buf, len, true);
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
void
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
void
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

/*
 * The Projectrons on a numerically low-rank kernel matrix (2-D points, a
 * kernel wide for them, B = 200): with the exact K^-1 the projections
 * blow the coefficients up (to 1e9 and beyond on Banana) and the model
 * collapses; the ridge of BK_GRAM_RIDGE keeps them bounded.
 */
void
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
	m = BkModelCreate(&bk_std_env, &p, 2);
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
