/*
 * test_learners.c
 *	  Unit tests: The binary learners: format round trips and warm starts of
 *	  a set of configurations, and each learner's own invariants (SPA,
 *	  Stoptron, the tighter budget perceptron, DUOL and BDUOL).
 */
#include "bk_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
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
		resumed = BkModelDecode(&bk_std_env, b_half, len2, true);
		train(NULL, 0, xtr, ytr, ntrain / 2, ntrain, resumed);
		b_res = encode(resumed, &len3);
		CHECK(len3 == len1 && memcmp(b_res, b_whole, len1) == 0,
			  "%s config %d: continued training is bit-identical to one pass", name, c);

		/* decode and re-encode: identical bytes */
		copy = BkModelDecode(&bk_std_env, b_whole, len1, true);
		{
			size_t		len4;
			uint8_t    *b_copy = encode(copy, &len4);

			CHECK(len4 == len1 && memcmp(b_copy, b_whole, len1) == 0,
				  "config %d: decode + encode round trip", c);
			free(b_copy);
		}
		BkModelFree(copy);

		/* decoded for scoring: identical scores, and no re-encoding */
		copy = BkModelDecode(&bk_std_env, b_whole, len1, false);
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
void
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
void
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
void
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
		m = BkModelCreate(&bk_std_env, &p, 3);
		for (int i = 0; i < 3; i++)
			BkModelLearn(m, rows[i], labels[i]);
		d = BkModelDecision(m, probe);
		CHECK(m->machines[0].n_sv == 3 && fabs(d - want[o]) < 1e-15,
			  "SPA output %s on the 3-row stream: %.17g (expected %.17g)", outputs[o], d, want[o]);
		BkModelFree(m);
	}
}

/* The Stoptron's expansion stops changing once it holds B SVs. */
void
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

/*
 * Paper 001 eq. 1: (gamma_t, d gamma_b) maximises the dual ascent
 * D(g, d) = g l_t + d l_b - (k_t g^2 + k_b d^2 + 2 w g d) / 2 over the box
 * g in [0, C], d in [-gamma_b, Cb - gamma_b]: no point of a fine grid does
 * better, on random instances covering the four cases, with Cb = C and
 * with the boxes of two class weights (Cb != C).
 */
void
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
		double		Cb = it % 2 == 0 ? C : C * (0.2 + 3.0 * BkRngUniform(&rng));
		double		gb = Cb * BkRngUniform(&rng);
		double		g,
					d,
					v,
					gridmax = -1e300;

		BkDuolDoubleUpdate(C, Cb, lt, lb, kt, kb, w, gb, &g, &d);
		if (g < 0.0 || g > C || d < -gb || d > Cb - gb)
			outside++;
		v = g * lt + d * lb - 0.5 * (kt * g * g + kb * d * d + 2.0 * w * g * d);
		for (int i = 0; i <= 200; i++)
			for (int k = 0; k <= 200; k++)
			{
				double		gg = C * i / 200.0;
				double		dd = -gb + Cb * k / 200.0;
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

void
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
		m = BkModelCreate(&bk_std_env, &p, 2);
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

/* Two runs with the same parameters give the same bytes. */
void
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
 * BDUOL's exact projection (paper 001 eq. 8): the active-set solution of
 *     min a' K_PP a / 2 - a' t,  t = c K_Pj,  lo <= a <= hi
 * satisfies the KKT conditions (gradient 0 on the free coordinates, >= 0
 * at a lower bound, <= 0 at an upper one), on random kernel matrices and
 * boxes tight enough that many bounds are active.
 */
void
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
		if (!BkBoxQpProject(&bk_std_env, K, n, j, c, lo, hi, a))
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

/*
 * A merge whose union exceeds what the projection inverts at once (1,024
 * SVs): two BPA-S models of budget 700 merge to 700 SVs, valid, and the
 * merged model is about as accurate as its halves.
 */
void
test_merge_large_union(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "s"}, {"budget", "700"},
	{"gamma", "30"}};
	enum {N = 4000};
	static double xs[2 * N];
	static int64_t ys[N];
	BkRng		rng;
	BkModel    *a,
			   *b;
	uint8_t    *buf;
	size_t		len;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	double		acc_a,
				acc_m;

	BkRngSeed(&rng, 21);
	checkerboard(&rng, N, xs, ys, 0.1);
	a = train(pp, 4, xs, ys, 0, 1500, NULL);
	b = train(pp, 4, xs, ys, 1500, 3000, NULL);
	CHECK(BkModelSvTotal(a) == 700 && BkModelSvTotal(b) == 700, "both halves full (%d, %d)",
		  (int) BkModelSvTotal(a), (int) BkModelSvTotal(b));
	acc_a = accuracy(a, xs + 2 * 3000, ys + 3000, N - 3000);
	BkModelMerge(a, b);
	acc_m = accuracy(a, xs + 2 * 3000, ys + 3000, N - 3000);
	buf = encode(a, &len);
	CHECK(BkModelSvTotal(a) == 700 && BkFormatValidate(buf, len, err, sizeof(err), &code),
		  "a union of 1,400 SVs merges to the budget, valid (%s)", err);
	CHECK(acc_m > acc_a - 0.03, "merged accuracy %.3f near a half's %.3f", acc_m, acc_a);
	free(buf);
	BkModelFree(a);
	BkModelFree(b);
}

/*
 * The tighter budget perceptron's "svs" evaluation set is the SVs, in
 * their order, after a merge that reduces the union (the validator checks
 * it), and it stays so as the merged model trains on.
 */
void
test_merge_svs_eval_set(void)
{
	const char *pp[][2] = {{"algorithm", "tighter_budget_perceptron"}, {"eval_set", "svs"},
	{"budget", "20"}, {"gamma", "30"}};
	enum {N = 1800};
	static double xs[2 * N];
	static int64_t ys[N];
	BkRng		rng;
	BkModel    *a,
			   *b;
	uint8_t    *buf;
	size_t		len;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	bool		ok;

	BkRngSeed(&rng, 8);
	checkerboard(&rng, N, xs, ys, 0.05);
	a = train(pp, 4, xs, ys, 0, 600, NULL);
	b = train(pp, 4, xs, ys, 600, 1200, NULL);
	BkModelMerge(a, b);
	buf = encode(a, &len);
	ok = BkFormatValidate(buf, len, err, sizeof(err), &code);
	CHECK(ok, "merged svs model: the evaluation set is its SVs (%s)", err);
	free(buf);
	a = train(pp, 4, xs, ys, 1200, N, a);
	buf = encode(a, &len);
	ok = BkFormatValidate(buf, len, err, sizeof(err), &code);
	CHECK(ok, "and after training on (%s)", err);
	free(buf);
	BkModelFree(a);
	BkModelFree(b);
}

/*
 * Identical SVs in a merge's union are one SV with the sum of their
 * coefficients: a model merged with a copy of itself is the same function
 * with the same SVs (before, a full budget's union of 2B was projected
 * back to B, onto each SV's own copy); and models continued from one
 * parent, whose unions hold the parent's SVs twice, merge into fewer SVs
 * than the two hold.  Learners whose coefficients live in a box (DUOL)
 * keep both copies.
 */
void
test_merge_identical_svs(void)
{
	const char *algs[][2] = {{"algorithm", "bpa"}, {"algorithm", "pegasos"},
	{"algorithm", "forgetron"}, {"algorithm", "projectron"}, {"algorithm", "perceptron"}};
	enum {N = 1600};
	static double xs[2 * N];
	static int64_t ys[N];
	BkRng		rng;

	BkRngSeed(&rng, 77);
	checkerboard(&rng, N, xs, ys, 0.1);
	for (int t = 0; t < (int) (sizeof(algs) / sizeof(algs[0])); t++)
	{
		const char *pp[][2] = {{algs[t][0], algs[t][1]}, {"budget", "40"}, {"gamma", "10"}};
		int			np = strcmp(algs[t][1], "perceptron") == 0 ? 1 : 3;
		BkModel    *a = train(pp, np, xs, ys, 0, 600, NULL);
		BkModel    *b,
				   *c,
				   *d;
		uint8_t    *buf;
		size_t		len;
		double		worst = 0.0,
					f = 0.0;
		int			n_a = BkModelSvTotal(a);
		char		err[BK_ERRMSG_LEN] = "";
		BkErrCode	code;

		buf = encode(a, &len);
		b = BkModelDecode(&bk_std_env, buf, len, true);
		c = BkModelDecode(&bk_std_env, buf, len, true);
		free(buf);
		BkModelMerge(b, c);
		for (int i = 600; i < 1000; i++)
		{
			double		da = BkModelDecision(a, xs + 2 * i),
						db = BkModelDecision(b, xs + 2 * i);

			worst = fmax(worst, fabs(da - db));
			f = fmax(f, fabs(da));
		}
		CHECK((int) BkModelSvTotal(b) == n_a && worst <= 1e-9 * (1.0 + f),
			  "%s merged with itself: %d SVs as %d, decisions within %g",
			  algs[t][1], (int) BkModelSvTotal(b), n_a, worst);
		buf = encode(b, &len);
		CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "and valid (%s)", err);
		free(buf);
		/* continued apart from one parent: the parent's SVs counted once */
		buf = encode(a, &len);
		d = BkModelDecode(&bk_std_env, buf, len, true);
		free(buf);
		c = train(pp, np, xs, ys, 600, 640, c);
		d = train(pp, np, xs, ys, 640, 680, d);
		n_a = BkModelSvTotal(c) + BkModelSvTotal(d);
		BkModelMerge(c, d);
		CHECK((int) BkModelSvTotal(c) < n_a || BkModelSvTotal(c) == 40,
			  "%s continued apart: %d SVs merged from %d", algs[t][1],
			  (int) BkModelSvTotal(c), n_a);
		BkModelFree(a);
		BkModelFree(b);
		BkModelFree(c);
		BkModelFree(d);
	}
}

/*
 * Sparse rows: a model trained on rows given with their sparse form
 * equals, byte for byte, the model trained on the same dense rows when
 * the features are 0/1 (every dot product an exact sum), and scores every
 * row alike; with real values the decisions agree to rounding.
 */
void
test_sparse_rows(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "nn"}, {"budget", "30"}};
	enum {D = 60, N = 800};
	static double xs[N * D];
	static int32_t idx[N * D];
	static double val[N * D];
	static int nnz[N];
	int64_t		ys[N];
	BkRng		rng;
	BkParams	p;

	make_params(&p, pp, 3, D);
	for (int real = 0; real < 2; real++)
	{
		BkModel    *a = BkModelCreate(&bk_std_env, &p, D),
				   *b = BkModelCreate(&bk_std_env, &p, D);
		uint8_t    *ba,
				   *bb;
		size_t		la,
					lb;
		double		worst = 0.0;

		BkRngSeed(&rng, 31 + real);
		for (int i = 0; i < N; i++)
		{
			double		s = 0.0;

			nnz[i] = 0;
			for (int j = 0; j < D; j++)
			{
				double		v = BkRngBelow(&rng, 6) == 0 ?
					(real ? BkRngUniform(&rng) * 4 - 2 : 1.0) : 0.0;

				xs[i * D + j] = v;
				if (v != 0.0)
				{
					idx[i * D + nnz[i]] = j + 1;
					val[i * D + nnz[i]] = v;
					nnz[i]++;
				}
				s += (j % 7 == 0 ? 1.0 : -0.3) * v;
			}
			ys[i] = s > 0 ? 1 : -1;
		}
		for (int i = 0; i < N; i++)
		{
			BkModelLearn(a, xs + i * D, ys[i]);
			BkModelSparseRow(b, xs + i * D, idx + i * D, val + i * D, nnz[i]);
			BkModelLearn(b, xs + i * D, ys[i]);
		}
		for (int i = 0; i < N; i++)
		{
			double		da = BkModelDecision(a, xs + i * D),
						db;

			BkModelSparseRow(b, xs + i * D, idx + i * D, val + i * D, nnz[i]);
			db = BkModelDecision(b, xs + i * D);
			if (fabs(da - db) > worst)
				worst = fabs(da - db);
		}
		ba = encode(a, &la);
		bb = encode(b, &lb);
		if (real)
			CHECK(worst < 1e-9, "real-valued sparse rows: decisions within %g of dense", worst);
		else
			CHECK(la == lb && memcmp(ba, bb, la) == 0 && worst == 0.0,
				  "0/1 sparse rows: the same model bytes and decisions as dense");
		free(ba);
		free(bb);
		BkModelFree(a);
		BkModelFree(b);
	}
}
