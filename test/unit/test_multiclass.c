/*
 * test_multiclass.c
 *	  Unit tests: Multi-class training: one-vs-rest, Pegasos, its ball
 *	  projection, text labels.
 */
#include "bk_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A binary machine f becomes machines -f, f and an empty one, exactly. */
void
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
	m = BkModelCreate(&bk_std_env, &p, 2);
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

void
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

		res = BkModelDecode(&bk_std_env, b2, l2, true);
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
void
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
		m = BkModelCreate(&bk_std_env, &p, 2);
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

void
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
	m = BkModelCreate(&bk_std_env, &p, 2);
	BkModelDeclareClassText(m, "blue", 4);
	BkModelDeclareClassText(m, "green", 5);
	BkModelDeclareClassText(m, "red", 3);
	for (int i = 0; i < 600; i++)
		BkModelLearnText(m, xs + 2 * i, names[ys[i]], strlen(names[ys[i]]));
	buf = encode(m, &len);
	d = BkModelDecode(&bk_std_env, buf, len, false);
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
 * The run's counts per class follow the classes when a new label takes its
 * place in canonical order: ten rows each of labels 1 to 4, then label 0,
 * leave every row counted (the count of the last class was once dropped
 * when the classes moved past the counts' capacity).
 */
void
test_run_counts_follow_classes(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "nn"}, {"budget", "10"}};
	BkParams	p;
	BkModel    *m;
	double		x[2];
	uint64_t	sum = 0;

	make_params(&p, pp, 3, 2);
	m = BkModelCreate(&bk_std_env, &p, 2);
	for (int label = 1; label <= 4; label++)
		for (int i = 0; i < 10; i++)
		{
			x[0] = label + 0.01 * i;
			x[1] = -label;
			BkModelLearn(m, x, label);
		}
	x[0] = x[1] = 0.0;
	BkModelLearn(m, x, 0);
	for (int c = 0; c < m->run.class_rows_cap; c++)
		sum += m->run.class_rows[c];
	CHECK(m->run.rows == 41 && sum == 41,
		  "the run counts every row by class after a class moves (%llu of %llu)",
		  (unsigned long long) sum, (unsigned long long) m->run.rows);
	CHECK(m->run.class_rows[0] == 1 && m->run.class_rows[4] == 10,
		  "the new class 0 has its row, class 4 its ten");
	BkModelFree(m);
}

/*
 * Pegasos' class scores (four classes at a time in local sums,
 * bk_alg_pegasos.c) against scale * sum_j alpha_j^(c) k(x_j, x) computed
 * directly, for 2 to 9 classes, so that every width of the last group of
 * four is used.
 */
void
test_pegasos_scores(void)
{
	const int	nclasses[] = {2, 3, 4, 5, 6, 7, 9};
	BkRng		rng;
	int			checked = 0,
				agree = 0;

	int			lanes_same = 0,
				lanes_bits = 0;

	BkRngSeed(&rng, 41);
	for (size_t t = 0; t < sizeof(nclasses) / sizeof(nclasses[0]); t++)
	{
		const char *pp[][2] = {{"algorithm", "pegasos"}, {"budget", "30"},
		{"gamma", "3"}, {"lambda", "0.001"}};
		int			nc = nclasses[t];
		int			n = 600;
		double	   *x = malloc(sizeof(double) * 2 * n);
		int64_t    *y = malloc(sizeof(int64_t) * n);
		BkModel    *m;
		const BkMachine *mach;

		for (int i = 0; i < n; i++)
		{
			y[i] = i % nc;
			x[2 * i] = BkRngUniform(&rng) + 0.3 * (double) y[i];
			x[2 * i + 1] = BkRngUniform(&rng) - 0.2 * (double) y[i];
		}
		m = train_mc(pp, 4, x, y, 0, n, NULL);
		mach = &m->machines[0];
		/* the class sums in AVX2 lanes give the scalar loop's bits: the same model */
		{
			BkModel    *scalar;
			size_t		na,
						nb;
			uint8_t    *ba,
					   *bb;

			BkVectorLanesEnable(false);
			scalar = train_mc(pp, 4, x, y, 0, n, NULL);
			BkVectorLanesEnable(true);
			ba = encode(m, &na);
			bb = encode(scalar, &nb);
			lanes_same += na == nb && memcmp(ba, bb, na) == 0;
			free(ba);
			free(bb);
			BkModelFree(scalar);
		}
		for (int i = 0; i < 40; i++)
		{
			double		q[2] = {BkRngUniform(&rng) * 3.0, BkRngUniform(&rng) * 2.0 - 1.0},
						scores[16];
			int			ok = 1;

			BkModelScores(m, q, scores);
			/* the class sums in AVX2 lanes: the scalar loop's bits */
			{
				double		plain[16];

				BkVectorLanesEnable(false);
				BkModelScores(m, q, plain);
				BkVectorLanesEnable(true);
				lanes_bits += memcmp(plain, scores, sizeof(double) * (size_t) nc) == 0;
			}
			for (int c = 0; c < nc; c++)
			{
				double		s = 0.0,
							mag = 0.0;

				for (int j = 0; j < mach->n_sv; j++)
				{
					const double *sv = BkSvRow(mach, j);
					double		d0 = sv[0] - q[0],
								d1 = sv[1] - q[1],
								term = mach->coef[(size_t) j * mach->n_coef + c] *
						exp(-3.0 * (d0 * d0 + d1 * d1));

					s += term;
					mag += fabs(term);
				}
				s *= mach->scale;
				mag *= fabs(mach->scale);
				ok &= fabs(scores[c] - s) <= 1e-12 * mag + 1e-300;
			}
			checked++;
			agree += ok;
		}
		BkModelFree(m);
		free(x);
		free(y);
	}
	CHECK(checked == 280 && agree == checked,
		  "pegasos: class scores = the direct sums, 2 to 9 classes (%d of %d points)",
		  agree, checked);
	CHECK(lanes_bits == checked,
		  "pegasos: the class scores with the AVX2 lane paths on and off, bit for bit, 2 to 9 classes (%d of %d points)",
		  lanes_bits, checked);
	CHECK(lanes_same == (int) (sizeof(nclasses) / sizeof(nclasses[0])),
		  "pegasos: the same model bytes with the AVX2 lane paths on and off, 2 to 9 classes (%d of %d)",
		  lanes_same, (int) (sizeof(nclasses) / sizeof(nclasses[0])));
}
