/*
 * fuzz_seeds.c
 *	  Models for the fuzz targets to start from: one of each learner (and
 *	  of the variants with their own bookkeeping), trained on 40 rows of
 *	  dimension 3, and regressors of the learners of regression.  fuzz_format mutates them; fuzz_learn goes on training
 *	  them.  A translation unit of its own, linked into every target, so the
 *	  generator exists once.
 */
#include "fuzz_common.h"
#include "bk_target.h"

#include <string.h>

/* m's bytes as a seed; m is freed */
static void
keep_seed(BkModel *m, uint8_t **seed, size_t *len)
{
	char		err[BK_ERRMSG_LEN];

	if (!BkModelEncodedSize(m, (size_t) 1 << 30, len, err, sizeof(err)))
		abort();
	*seed = malloc(*len);
	BkModelEncode(m, *seed, *len);
	BkModelFree(m);
}

size_t
FuzzModelSeeds(uint8_t **seeds, size_t *lens, size_t max)
{
	static const char *const configs[][3] = {
		{"bpa", "s", "hinge"}, {"bpa", "nn", "ramp"}, {"bpa", "p", "hinge"},
		{"pa", NULL, "ramp"}, {"perceptron", NULL, NULL},
		{"pegasos", "merge", NULL}, {"pegasos", "projection_best", NULL},
		{"pegasos", "none", NULL}, {"tighter_budget_perceptron", "flip", NULL},
		{"budget_perceptron", NULL, NULL}, {"spa", NULL, NULL},
		/* budget 6: the Forgetron's Q and born rows, the Projectrons' K^-1 */
		{"forgetron", "budget", NULL}, {"projectron", "budget", NULL},
		{"projectron_pp", "budget", NULL},
		/* DUOL's cached scores; BDUOL's scores and neighbour cache; BOGD */
		{"duol", NULL, NULL}, {"bduol", "nearest", NULL}, {"bduol", "projection", NULL},
		{"bogd", "budget", NULL},
		/* support vectors stored as float4: rows, and merged points */
		{"bpa", "nn", "float4"}, {"pegasos", "merge", "float4"},
	};
	size_t		n = 0;
	BkRng		rng;

	BkRngSeed(&rng, 99);
	for (size_t c = 0; c < sizeof(configs) / sizeof(configs[0]) && n < max; c++)
	{
		BkParams	p;
		BkParamInput in = {BK_IN_STRING, 0, NULL, false, NULL};
		BkParamInput num = {BK_IN_NUMBER, 0, NULL, false, NULL};
		BkParamInput yes = {BK_IN_BOOLEAN, 0, NULL, true, NULL};
		char		err[BK_ERRMSG_LEN];
		BkModel    *m;
		double		x[3];

		BkParamsInit(&p);
		in.string = configs[c][0];
		BkParamsSet(&p, "algorithm", &in, err, sizeof(err));
		if (configs[c][1] && strcmp(configs[c][0], "pegasos") == 0)
		{
			in.string = configs[c][1];
			BkParamsSet(&p, "maintenance", &in, err, sizeof(err));
			num.number = 6;
			if (strcmp(configs[c][1], "none") != 0)
				BkParamsSet(&p, "budget", &num, err, sizeof(err));
			else
				BkParamsSet(&p, "ball_projection", &yes, err, sizeof(err));
		}
		else if (configs[c][1] && strcmp(configs[c][0], "tighter_budget_perceptron") == 0)
		{
			in.string = configs[c][1];
			BkParamsSet(&p, "eval_set", &in, err, sizeof(err));
			num.number = 6;
			BkParamsSet(&p, "budget", &num, err, sizeof(err));
			BkParamsSet(&p, "eval_size", &num, err, sizeof(err));
		}
		else if (configs[c][1] && strcmp(configs[c][0], "bduol") == 0)
		{
			in.string = configs[c][1];
			BkParamsSet(&p, "maintenance", &in, err, sizeof(err));
			num.number = 6;
			BkParamsSet(&p, "budget", &num, err, sizeof(err));
		}
		else if (configs[c][1] && strcmp(configs[c][1], "budget") == 0)
		{
			num.number = 6;
			BkParamsSet(&p, "budget", &num, err, sizeof(err));
		}
		else if (configs[c][1])
		{
			in.string = configs[c][1];
			BkParamsSet(&p, "variant", &in, err, sizeof(err));
			num.number = 6;
			BkParamsSet(&p, "budget", &num, err, sizeof(err));
		}
		if (configs[c][2])
		{
			in.string = configs[c][2];
			BkParamsSet(&p, strcmp(configs[c][2], "float4") == 0 ? "sv_precision" : "loss",
						&in, err, sizeof(err));
		}
		if (!BkParamsFinish(&p, 3, err, sizeof(err)))
			abort();
		m = BkModelCreate(&fuzz_env, &p, 3);
		for (int i = 0; i < 40; i++)
		{
			static const char *const names[] = {"low", "mid", "high"};
			int			cls;

			/* the first and a Pegasos model continued half-way: a base */
			if ((c == 0 || c == 5) && i == 20)
			{
				uint8_t		fp[BK_FINGERPRINT_LEN];

				memset(fp, 0x5C + c, sizeof(fp));
				BkModelSetBase(m, fp);
			}

			for (int d = 0; d < 3; d++)
				x[d] = BkRngUniform(&rng);
			/* binary, then three integer classes, then three text classes */
			cls = c < 3 ? (x[0] + x[1] > 1.0) : (int) (3 * x[0]);
			if (c >= 6 && c < 8)
				BkModelLearnText(m, x, names[cls], strlen(names[cls]));
			else
				BkModelLearn(m, x, c < 3 ? 2 * cls - 1 : cls);
		}
		keep_seed(m, &seeds[n], &lens[n]);
		n++;
	}
	/* a model that prepares named features: two numeric keys, one of text */
	if (n < max)
	{
		BkParams	p;
		BkPrepSpec	spec;
		BkPrepFit  *f;
		BkModel    *m;
		char		err[BK_ERRMSG_LEN];
		double		rows[40][2];
		int			lv[40];
		static const char *const levels[] = {"x", "yy", "zzz"};
		double		out[8];

		BkPrepSpecInit(&spec, true);
		f = BkPrepFitNew(&fuzz_env, &spec, true);
		for (int i = 0; i < 40; i++)
		{
			rows[i][0] = 10 * BkRngUniform(&rng);
			rows[i][1] = BkRngUniform(&rng) - 0.5;
			lv[i] = (int) BkRngBelow(&rng, 3);
			BkPrepFitNumber(f, BkPrepFitKey(f, "a", 1), rows[i][0]);
			BkPrepFitText(f, BkPrepFitKey(f, "b", 1), levels[lv[i]], strlen(levels[lv[i]]));
			if (i % 5 != 0)		/* some missing */
				BkPrepFitNumber(f, BkPrepFitKey(f, "c", 1), rows[i][1]);
		}
		BkParamsInit(&p);
		if (!BkParamsFinish(&p, 5, err, sizeof(err)))
			abort();
		m = BkModelCreate(&fuzz_env, &p, 5);
		BkModelSetPrep(m, BkPrepFitFinish(f, &fuzz_env));
		for (int i = 0; i < 40; i++)
		{
			BkPrepRowBegin(m, out);
			BkPrepPutNumber(m, BkPrepKey(m, 0, "a", 1), rows[i][0], out);
			BkPrepPutText(m, BkPrepKey(m, 1, "b", 1), levels[lv[i]], strlen(levels[lv[i]]), out);
			if (i % 5 != 0)
				BkPrepPutNumber(m, BkPrepKey(m, 2, "c", 1), rows[i][1], out);
			BkPrepRowEnd(m, out);
			BkModelLearn(m, out, rows[i][1] > 0 ? 1 : -1);
		}
		keep_seed(m, &seeds[n], &lens[n]);
		n++;
	}
	/* a model that prepares arrays: standardised, a missing value imputed */
	if (n < max)
	{
		BkParams	p;
		BkPrepSpec	spec;
		BkPrepFit  *f;
		BkModel    *m;
		char		err[BK_ERRMSG_LEN];
		double		rows[40][3];
		bool		nulls[3] = {false, false, true};
		double		out[3];

		spec.scale = BK_SCALE_STANDARD;
		spec.impute = BK_IMPUTE_MEAN;
		spec.max_levels = BK_DEFAULT_MAX_LEVELS;
		f = BkPrepFitNew(&fuzz_env, &spec, false);
		for (int i = 0; i < 40; i++)
		{
			for (int d = 0; d < 3; d++)
				rows[i][d] = 100 * BkRngUniform(&rng);
			BkPrepFitArray(f, rows[i], i % 4 == 0 ? nulls : NULL, 3);
		}
		BkParamsInit(&p);
		if (!BkParamsFinish(&p, 3, err, sizeof(err)))
			abort();
		m = BkModelCreate(&fuzz_env, &p, 3);
		BkModelSetPrep(m, BkPrepFitFinish(f, &fuzz_env));
		for (int i = 0; i < 40; i++)
		{
			BkPrepApplyArray(m, rows[i], i % 4 == 0 ? nulls : NULL, 3, out);
			BkModelLearn(m, out, rows[i][0] > 50 ? 1 : -1);
		}
		keep_seed(m, &seeds[n], &lens[n]);
		n++;
	}
	/* regressors: the learners of regression, a standardised target */
	for (int k = 0; k < 4 && n < max; k++)
	{
		static const char *const algs[][2] = {{"bpa", "nn"}, {"bpa", "p"}, {"pa", NULL},
		{"bogd", NULL}};
		BkParamInput in = {BK_IN_STRING, 0, NULL, false, NULL};
		BkParams	p;
		BkModel    *m;
		char		err[BK_ERRMSG_LEN];
		double		x[3];

		BkParamsInit(&p);
		p.regression = true;
		in.string = algs[k][0];
		BkParamsSet(&p, "algorithm", &in, err, sizeof(err));
		if (algs[k][1])
		{
			in.string = algs[k][1];
			BkParamsSet(&p, "variant", &in, err, sizeof(err));
		}
		if (!BkParamsFinish(&p, 3, err, sizeof(err)))
			abort();
		p.budget = 6;
		m = BkModelCreate(&fuzz_env, &p, 3);
		BkModelSetTargetScale(m, 0.5, 0.3);
		for (int i = 0; i < 40; i++)
		{
			for (int d = 0; d < 3; d++)
				x[d] = BkRngUniform(&rng);
			BkModelLearnValue(m, x, x[0] * x[1] + x[2]);
		}
		keep_seed(m, &seeds[n], &lens[n]);
		n++;
	}
	/* novelty detectors: the one-class SVM on a budget, and NORMA's */
	for (int k = 0; k < 2 && n < max; k++)
	{
		BkParamInput in = {BK_IN_STRING, 0, NULL, false, NULL};
		BkParams	p;
		BkModel    *m;
		char		err[BK_ERRMSG_LEN];
		double		x[3];

		BkParamsInit(&p);
		p.novelty = true;
		in.string = k == 0 ? "pegasos" : "bogd";
		BkParamsSet(&p, "algorithm", &in, err, sizeof(err));
		if (!BkParamsFinish(&p, 3, err, sizeof(err)))
			abort();
		p.budget = 6;
		m = BkModelCreate(&fuzz_env, &p, 3);
		for (int i = 0; i < 40; i++)
		{
			for (int d = 0; d < 3; d++)
				x[d] = BkRngUniform(&rng);
			BkModelLearnNovel(m, x);
		}
		keep_seed(m, &seeds[n], &lens[n]);
		n++;
	}
	/* class weights: explicit ones of text labels, and balanced counts of integer ones */
	for (int k = 0; k < 2 && n < max; k++)
	{
		static const char *const names[] = {"ant", "bee", "cow"};
		BkParams	p;
		BkModel    *m;
		char		err[BK_ERRMSG_LEN];
		double		x[3];

		BkParamsInit(&p);
		if (!BkParamsFinish(&p, 3, err, sizeof(err)))
			abort();
		m = BkModelCreate(&fuzz_env, &p, 3);
		if (k == 0)
		{
			BkModelWeightExplicit(m);
			BkModelWeightClassText(m, "bee", 3, 4.0);
			BkModelWeightClassText(m, "yak", 3, 0.25);
		}
		else
			BkModelWeightBalanced(m);
		for (int i = 0; i < 40; i++)
		{
			int			cls;

			for (int d = 0; d < 3; d++)
				x[d] = BkRngUniform(&rng);
			cls = (int) (3 * x[0]);
			if (k == 0)
				BkModelLearnText(m, x, names[cls], 3);
			else
				BkModelLearn(m, x, cls);
		}
		keep_seed(m, &seeds[n], &lens[n]);
		n++;
	}
	return n;
}
