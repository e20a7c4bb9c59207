/*
 * test_distil.c
 *	  The distilling merge of many parts (bk_model_distil.c): the union kept
 *	  whole is the exact weighted average of the parts; distilling it gives
 *	  a valid model of the budget that trains on, the same bytes every
 *	  time, kept only when it agrees with the average on more held-out
 *	  points than the folded merge; learners it does not apply to, and a
 *	  union within the budget, leave the merge as it is.  Merged weak parts
 *	  are then continued over the union's points with the labels the parts
 *	  learned them with, the same bytes on every CPU.
 */
#include "bk_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DP_TRAIN	4000
#define DP_TEST		1000
#define DP_PARTS	16

static int	sort_dim;

static int
cmp_rows(const void *a, const void *b)
{
	return memcmp(*(const double *const *) a, *(const double *const *) b,
				  sizeof(double) * (size_t) sort_dim);
}

/* the union's distinct SVs, counted by sorting their bytes */
static int
distinct_svs(const BkModel *u)
{
	size_t		total = 0,
				at = 0;
	const double **rows;
	int			n = 0;

	for (int k = 0; k < u->n_machines; k++)
		total += (size_t) u->machines[k].n_sv;
	rows = malloc(sizeof(double *) * (total + 1));
	for (int k = 0; k < u->n_machines; k++)
		for (int j = 0; j < u->machines[k].n_sv; j++)
			rows[at++] = BkSvRow(&u->machines[k], j);
	sort_dim = u->dim;
	qsort(rows, total, sizeof(double *), cmp_rows);
	for (size_t i = 0; i < total; i++)
		n += i == 0 || cmp_rows(&rows[i - 1], &rows[i]) != 0;
	free(rows);
	return n;
}

static void
distil_learner(const char *pp[][2], int np, const char *name, const double *x,
			   const int64_t *y)
{
	BkModel    *parts[DP_PARTS];
	BkModel    *fold,
			   *u,
			   *again,
			   *u2;
	BkDistilReport r,
				r2;
	double		worst = 0.0;
	uint64_t	total = 0;
	size_t		len,
				len2;
	uint8_t    *b,
			   *b2;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	double		acc_fold;
	bool		within = true;

	for (int p = 0; p < DP_PARTS; p++)
	{
		parts[p] = train_mc(pp, np, x, y, 0, 0, NULL);
		for (int i = p; i < DP_TRAIN; i += DP_PARTS)
			BkModelLearn(parts[p], x + 2 * (size_t) i, y[i]);
		total += parts[p]->rows_seen;
	}
	merge_parts(parts, DP_PARTS, &fold, &u);

	/* the union is the weighted average of the parts, to rounding */
	for (int i = DP_TRAIN; i < DP_TRAIN + 200; i++)
	{
		double		su[3],
					sp[3],
					avg[3] = {0.0, 0.0, 0.0};

		for (int p = 0; p < DP_PARTS; p++)
		{
			BkModelScores(parts[p], x + 2 * (size_t) i, sp);
			for (int c = 0; c < 3; c++)
				avg[c] += (double) parts[p]->rows_seen / (double) total * sp[c];
		}
		BkModelScores(u, x + 2 * (size_t) i, su);
		for (int c = 0; c < 3; c++)
			worst = fmax(worst, fabs(su[c] - avg[c]) / (1.0 + fabs(avg[c])));
	}
	CHECK(worst < 1e-9, "%s: the union of %d parts scores as their weighted average (%g)",
		  name, DP_PARTS, worst);
	for (int k = 0; k < u->n_machines; k++)
		within &= u->machines[k].n_sv <= (int) u->params.budget;
	CHECK(!within, "%s: the union outgrows the budget", name);

	acc_fold = accuracy_mc(fold, x + 2 * DP_TRAIN, y + DP_TRAIN, DP_TEST);
	/* the same parts merged again, for a second distillation */
	merge_parts(parts, DP_PARTS, &again, &u2);
	BkModelDistil(fold, u, &r);
	CHECK(r.points == distinct_svs(u), "%s: every distinct point of the union labelled (%d)",
		  name, r.points);
	CHECK(r.agree_merged <= r.points && r.agree_distilled <= r.points &&
		  r.agree_quarter <= r.points &&
		  r.agree_expected >= r.agree_distilled && r.agree_expected <= r.points &&
		  r.distilled == (r.agree_expected > r.agree_merged),
		  "%s: distilled only when it should agree more (%d, from %d and %d, against %d of %d)",
		  name, r.agree_expected, r.agree_distilled, r.agree_quarter, r.agree_merged, r.points);
	CHECK(r.distilled, "%s: %d parts are distilled", name, DP_PARTS);
	/*
	 * Pegasos distils for 3 / lambda steps (paper 004, Theorem 1), within
	 * 5 .. 15 passes: 15 for these 160 points at lambda 1e-4; the others
	 * for 5 passes
	 */
	CHECK(strcmp(name, "pegasos") == 0 ?
		  r.epochs == (int) fmin(15.0, fmax(5.0, ceil(3.0 / (fold->params.lambda * r.points)))) :
		  r.epochs == 5,
		  "%s: %d passes over the %d points", name, r.epochs, r.points);
	CHECK(strcmp(name, "pegasos") != 0 || (r.own_points == 0 && !r.refined),
		  "%s: never continued over the parts' own labels (%d points)", name, r.own_points);
	/*
	 * a distilled model is not polished, one-vs-rest or not (its polish
	 * against a union of many parts was the dearest step of the merge;
	 * BPA-NN here scored 94.4 % polished, 91.4 % before its machines were
	 * polished)
	 */
	CHECK(r.polish.machines == 0, "%s: the distilled machines not polished (%d)",
		  name, r.polish.machines);
	for (int k = 0; k < fold->n_machines; k++)
		CHECK(fold->machines[k].n_sv <= (int) fold->params.budget,
			  "%s: machine %d within the budget (%d)", name, k, fold->machines[k].n_sv);
	CHECK(fold->rows_seen == total, "%s: the rows seen are the parts' (%llu)",
		  name, (unsigned long long) fold->rows_seen);
	/*
	 * 10 of the 1,000 held-out rows or more (Pegasos 89.5 % against 71.0 %,
	 * BPA-NN 91.4 % against 89.5 %)
	 */
	CHECK(accuracy_mc(fold, x + 2 * DP_TRAIN, y + DP_TRAIN, DP_TEST) >= acc_fold + 0.01,
		  "%s: distilled %.4f, folded %.4f on held-out rows", name,
		  accuracy_mc(fold, x + 2 * DP_TRAIN, y + DP_TRAIN, DP_TEST), acc_fold);

	/* the same bytes again; valid; trains on */
	BkModelDistil(again, u2, &r2);
	b = encode(fold, &len);
	b2 = encode(again, &len2);
	CHECK(len == len2 && memcmp(b, b2, len) == 0, "%s: distilled twice, the same bytes", name);
	CHECK(BkFormatValidate(b, len, err, sizeof(err), &code), "%s: the distilled model is valid (%s)",
		  name, err);
	for (int i = 0; i < 200; i++)
		BkModelLearn(again, x + 2 * (size_t) i, y[i]);
	free(b2);
	b2 = encode(again, &len2);
	CHECK(BkFormatValidate(b2, len2, err, sizeof(err), &code),
		  "%s: the distilled model trained on is valid (%s)", name, err);
	free(b);
	free(b2);
	BkModelFree(again);
	BkModelFree(u2);
	BkModelFree(fold);
	BkModelFree(u);
	for (int p = 0; p < DP_PARTS; p++)
		BkModelFree(parts[p]);
}

/* a learner it does not apply to, or a union within the budget: no change */
static void
distil_not_applied(const char *pp[][2], int np, const char *name, const double *x,
				   const int64_t *y, int rows)
{
	BkModel    *parts[DP_PARTS];
	BkModel    *fold,
			   *u;
	BkDistilReport r;
	size_t		len,
				len2;
	uint8_t    *b,
			   *b2;

	for (int p = 0; p < DP_PARTS; p++)
	{
		parts[p] = train_mc(pp, np, x, y, 0, 0, NULL);
		for (int i = p; i < rows; i += DP_PARTS)
			BkModelLearn(parts[p], x + 2 * (size_t) i, y[i]);
	}
	merge_parts(parts, DP_PARTS, &fold, &u);
	b = encode(fold, &len);
	CHECK(!BkModelDistil(fold, u, &r) && r.points == 0, "%s: not distilled", name);
	b2 = encode(fold, &len2);
	CHECK(len == len2 && memcmp(b, b2, len) == 0, "%s: the merge unchanged", name);
	free(b);
	free(b2);
	BkModelFree(fold);
	BkModelFree(u);
	for (int p = 0; p < DP_PARTS; p++)
		BkModelFree(parts[p]);
}

/*
 * A union of more than 4,096 distinct points is labelled on a sample of
 * max(2^24 / U, 1,024) of them (DISTIL_MAX_PAIRS); the model distilled into (here
 * one part, not the fold) stays a valid model of the budget
 */
static void
distil_sampled(void)
{
	const char *pp[][2] = {{"algorithm", "pa_random"}, {"budget", "600"}, {"gamma", "5000"}};
	int			n = DP_PARTS * 800;
	double	   *x = malloc(sizeof(double) * 2 * (size_t) n);
	int64_t    *y = malloc(sizeof(int64_t) * (size_t) n);
	BkModel    *parts[DP_PARTS];
	BkModel    *fold,
			   *u;
	BkDistilReport r;
	BkRng		rng;
	int			distinct;
	size_t		len;
	uint8_t    *b;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;

	BkRngSeed(&rng, 78);
	three_class(&rng, n, x, y);
	for (int p = 0; p < DP_PARTS; p++)
	{
		parts[p] = train_mc(pp, 3, x, y, 0, 0, NULL);
		for (int i = p; i < n; i += DP_PARTS)
			BkModelLearn(parts[p], x + 2 * (size_t) i, y[i]);
	}
	/* the union only (the fold's projections of 1,200 SVs would take seconds) */
	fold = copy_model(parts[0]);
	u = copy_model(parts[0]);
	for (int p = 1; p < DP_PARTS; p++)
		BkModelMergeUnion(u, parts[p]);
	distinct = distinct_svs(u);
	BkModelDistil(fold, u, &r);
	/* max(2^24 / U, 1,024) of the U points (bk_model_distil.c's DISTIL_MAX_PAIRS) */
	CHECK(distinct > 8192 && r.points == (((int64_t) 1 << 24) / distinct > 1024 ?
										   (int) (((int64_t) 1 << 24) / distinct) : 1024),
		  "a union of %d points labelled on a sample of %d", distinct, r.points);
	CHECK(r.own_points > 0 && r.own_points <= r.points,
		  "continued, if at all, over points of the labelled sample: %d points of %d",
		  r.own_points, r.points);
	b = encode(fold, &len);
	CHECK(fold->machines[0].n_sv <= 600 && fold->machines[2].n_sv <= 600 && BkFormatValidate(b, len, err, sizeof(err), &code),
		  "the merge of a sampled union is a valid model of the budget (%s)", err);
	free(b);
	BkModelFree(fold);
	BkModelFree(u);
	for (int p = 0; p < DP_PARTS; p++)
		BkModelFree(parts[p]);
	free(x);
	free(y);
}

/*
 * Many weak parts: BPA-NN with a small C, 125 rows a part, of two classes
 * (a third of the rows positive) or three; each part predicts the majority
 * class nearly everywhere (two classes), or learns little (three), and so
 * do their average and its fold.  The merged model is then continued over
 * the union's points with the labels the parts learned them with (the sign
 * of a binary machine's coefficient, the one-vs-rest machine holding the
 * point with a positive one), which repairs it.  Pegasos, natively
 * multi-class, is never continued (distil_learner).  want: the SHA-256 of
 * the continued model, the same on every CPU.
 */
static void
distil_refined(bool two_classes, const char *C, double gain, const char *want)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "nn"},
	{"budget", "20"}, {"gamma", "20"}, {"C", C}};
	const char *name = two_classes ? "weak parts, two classes" : "weak parts, three classes";
	enum
	{
		RP_PARTS = 32
	};
	int			n = DP_TRAIN + DP_TEST;
	double	   *x = malloc(sizeof(double) * 2 * (size_t) n);
	int64_t    *y = malloc(sizeof(int64_t) * (size_t) n);
	BkModel    *parts[RP_PARTS];
	BkModel    *fold,
			   *u,
			   *again,
			   *u2;
	BkDistilReport r,
				r2;
	BkRng		rng;
	double		acc_fold,
				acc;
	size_t		len,
				len2;
	uint8_t    *b,
			   *b2;
	char		hex[2 * BK_DIGEST_LEN + 1];
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;

	BkRngSeed(&rng, 79);
	three_class(&rng, n, x, y);
	if (two_classes)
		for (int i = 0; i < n; i++)
			y[i] = y[i] == 0 ? 1 : -1;
	for (int p = 0; p < RP_PARTS; p++)
	{
		parts[p] = train_mc(pp, 5, x, y, 0, 0, NULL);
		for (int i = p; i < DP_TRAIN; i += RP_PARTS)
			BkModelLearn(parts[p], x + 2 * (size_t) i, y[i]);
	}
	merge_parts(parts, RP_PARTS, &fold, &u);
	/* the same parts merged again, for a second distillation */
	merge_parts(parts, RP_PARTS, &again, &u2);
	acc_fold = accuracy_mc(fold, x + 2 * DP_TRAIN, y + DP_TRAIN, DP_TEST);
	BkModelDistil(fold, u, &r);
	acc = accuracy_mc(fold, x + 2 * DP_TRAIN, y + DP_TRAIN, DP_TEST);
	CHECK(r.own_points > 0 && r.own_points <= r.points &&
		  r.own_merged <= r.own_points && r.own_refined <= r.own_points &&
		  r.own_halves_agree <= r.own_points,
		  "%s: %d of %d points carry their parts' labels", name, r.own_points, r.points);
	CHECK(r.refined && r.own_refined > r.own_merged,
		  "%s: continued over their own labels (%d against %d, halves agree on %d of %d)",
		  name, r.own_refined, r.own_merged, r.own_halves_agree, r.own_points);
	CHECK(acc >= acc_fold + gain, "%s: continued %.4f, merged %.4f on held-out rows",
		  name, acc, acc_fold);
	BkModelDistil(again, u2, &r2);
	b = encode(fold, &len);
	b2 = encode(again, &len2);
	CHECK(len == len2 && memcmp(b, b2, len) == 0, "%s: continued twice, the same bytes", name);
	sha_hex(b, len, hex);
	CHECK(strcmp(hex, want) == 0, "%s: the continued model's SHA-256 is %s (want %s)",
		  name, hex, want);
	CHECK(BkFormatValidate(b, len, err, sizeof(err), &code) && fold->rows_seen == DP_TRAIN &&
		  fold->machines[0].n_sv <= 20,
		  "%s: the continued merge is valid, of the budget, of the parts' rows (%s)", name, err);
	free(b);
	free(b2);
	BkModelFree(again);
	BkModelFree(u2);
	BkModelFree(fold);
	BkModelFree(u);
	for (int p = 0; p < RP_PARTS; p++)
		BkModelFree(parts[p]);
	free(x);
	free(y);
}

/*
 * The fold stops at a union of more than 2 budgets of SVs per machine
 * (BkModelFoldStops), as bk_merge's transition function stops it: the
 * later parts go into the fold by their counts only (BkModelMergeCounts),
 * and BkModelRetrain continues the stopped fold over the union's points
 * with the labels the parts learned them with.  The result has the counts
 * of the whole fold, is valid, of the budget, the same bytes twice and on
 * every CPU (want), and predicts better than the whole fold.  Pegasos
 * never stops.
 */
static void
retrained(bool two_classes, const char *want)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "nn"},
	{"budget", "20"}, {"gamma", "20"}, {"C", "0.02"}};
	const char *peg[][2] = {{"algorithm", "pegasos"}, {"maintenance", "merge"},
	{"budget", "20"}, {"gamma", "20"}, {"lambda", "1e-4"}};
	const char *name = two_classes ? "retrained, two classes" : "retrained, three classes";
	enum
	{
		RT_PARTS = 32
	};
	int			n = DP_TRAIN + DP_TEST;
	double	   *x = malloc(sizeof(double) * 2 * (size_t) n);
	int64_t    *y = malloc(sizeof(int64_t) * (size_t) n);
	BkModel    *parts[RT_PARTS];
	BkModel    *full,
			   *fold[2],
			   *u[2],
			   *pu;
	BkDistilReport r[2];
	BkRng		rng;
	int			stop_at = -1;
	size_t		len[2];
	uint8_t    *b[2];
	char		hex[2 * BK_DIGEST_LEN + 1];
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	double		acc_full,
				acc;
	bool		peg_stops = false;

	BkRngSeed(&rng, 80);
	three_class(&rng, n, x, y);
	if (two_classes)
		for (int i = 0; i < n; i++)
			y[i] = y[i] == 0 ? 1 : -1;
	for (int p = 0; p < RT_PARTS; p++)
	{
		parts[p] = train_mc(pp, 5, x, y, 0, 0, NULL);
		for (int i = p; i < DP_TRAIN; i += RT_PARTS)
			BkModelLearn(parts[p], x + 2 * (size_t) i, y[i]);
	}
	full = copy_model(parts[0]);
	for (int p = 1; p < RT_PARTS; p++)
	{
		BkModel    *c = copy_model(parts[p]);

		BkModelMerge(full, c);
		BkModelFree(c);
	}
	acc_full = accuracy_mc(full, x + 2 * DP_TRAIN, y + DP_TRAIN, DP_TEST);
	for (int t = 0; t < 2; t++)
	{
		bool		stopped = false;

		fold[t] = copy_model(parts[0]);
		u[t] = copy_model(parts[0]);
		for (int p = 1; p < RT_PARTS; p++)
		{
			BkModel    *c = copy_model(parts[p]),
					   *a;

			/*
			 * as the aggregate: once stopped, the union of the own points
			 * only, and one decoded copy of the part for both
			 */
			if (stopped)
			{
				BkModelMergeUnionOwn(u[t], c);
				BkModelMergeCounts(fold[t], c);
				BkModelFree(c);
				continue;
			}
			a = copy_model(parts[p]);
			BkModelMergeUnion(u[t], c);
			if (BkModelFoldStops(u[t]))
			{
				stopped = true;
				stop_at = p;
			}
			if (stopped)
				BkModelMergeCounts(fold[t], a);
			else
				BkModelMerge(fold[t], a);
			BkModelFree(a);
			BkModelFree(c);
		}
		BkModelRetrain(fold[t], u[t], &r[t]);
		b[t] = encode(fold[t], &len[t]);
	}
	/* full parts of 20 SVs a machine: the third part takes the union past 2 budgets */
	CHECK(stop_at == 2 && r[0].retrained && r[0].epochs == 1 &&
		  r[0].own_points > 0 && r[0].own_points <= r[0].points,
		  "%s: the fold stops at part %d, %d of %d points learned", name, stop_at + 1,
		  r[0].own_points, r[0].points);
	CHECK(fold[0]->rows_seen == full->rows_seen && fold[0]->parts == full->parts &&
		  fold[0]->mistakes == full->mistakes && fold[0]->n_classes == full->n_classes,
		  "%s: the counts of the whole fold (%llu rows)", name,
		  (unsigned long long) fold[0]->rows_seen);
	acc = accuracy_mc(fold[0], x + 2 * DP_TRAIN, y + DP_TRAIN, DP_TEST);
	/*
	 * measured: two classes 89.4 %, three 89.8 %, the whole fold 87.4 %
	 * both (stopped at 8 budgets and continued twice: 93.1 % and 89.7 %;
	 * distilling and continuing the whole fold, distil_refined's data:
	 * 93.6 % and 91.7 %); learned afresh in one pass instead, 84.7 % and
	 * 89.6 %
	 */
	CHECK(acc >= acc_full + 0.01,
		  "%s: retrained %.4f, the whole fold %.4f on held-out rows", name, acc, acc_full);
	CHECK(len[0] == len[1] && memcmp(b[0], b[1], len[0]) == 0, "%s: twice, the same bytes", name);
	sha_hex(b[0], len[0], hex);
	CHECK(strcmp(hex, want) == 0, "%s: the retrained model's SHA-256 is %s (want %s)",
		  name, hex, want);
	CHECK(BkFormatValidate(b[0], len[0], err, sizeof(err), &code) &&
		  fold[0]->machines[0].n_sv <= 20,
		  "%s: the retrained merge is valid and of the budget (%s)", name, err);
	/* Pegasos (natively multi-class: no label per SV) never stops */
	pu = train_mc(peg, 5, x, y, 0, 0, NULL);
	for (int p = 0; p < RT_PARTS; p++)
	{
		BkModel    *c = train_mc(peg, 5, x, y, 0, 0, NULL);

		for (int i = p; i < DP_TRAIN; i += RT_PARTS)
			BkModelLearn(c, x + 2 * (size_t) i, y[i]);
		BkModelMergeUnion(pu, c);
		peg_stops |= BkModelFoldStops(pu);
		BkModelFree(c);
	}
	CHECK(!peg_stops, "%s: Pegasos' fold never stops", name);
	BkModelFree(pu);
	for (int t = 0; t < 2; t++)
	{
		free(b[t]);
		BkModelFree(fold[t]);
		BkModelFree(u[t]);
	}
	BkModelFree(full);
	for (int p = 0; p < RT_PARTS; p++)
		BkModelFree(parts[p]);
	free(x);
	free(y);
}

void
test_distil(void)
{
	BkRng		rng;
	double	   *x = malloc(sizeof(double) * 2 * (DP_TRAIN + DP_TEST));
	int64_t    *y = malloc(sizeof(int64_t) * (DP_TRAIN + DP_TEST));
	/*
	 * Pegasos at a budget of 10 and a narrow kernel: at 20 and gamma 20
	 * the fold, which projects the SV of least degradation, keeps the
	 * average as well as a distillation does (95.8 % both)
	 */
	const char *peg_narrow[][2] = {{"algorithm", "pegasos"}, {"maintenance", "merge"},
	{"budget", "10"}, {"gamma", "40"}, {"lambda", "1e-4"}};
	const char *peg[][2] = {{"algorithm", "pegasos"}, {"maintenance", "merge"},
	{"budget", "20"}, {"gamma", "20"}, {"lambda", "1e-4"}};
	const char *nn[][2] = {{"algorithm", "bpa"}, {"variant", "nn"},
	{"budget", "20"}, {"gamma", "100"}, {"C", "1"}};
	const char *forgetron[][2] = {{"algorithm", "forgetron"}, {"budget", "10"}, {"gamma", "20"}};
	const char *tbp[][2] = {{"algorithm", "tighter_budget_perceptron"}, {"budget", "10"}, {"gamma", "20"}};
	const char *bduol[][2] = {{"algorithm", "bduol"}, {"budget", "10"}, {"gamma", "20"}};

	BkRngSeed(&rng, 77);
	three_class(&rng, DP_TRAIN + DP_TEST, x, y);
	distil_learner(peg_narrow, 5, "pegasos", x, y);
	distil_learner(nn, 5, "bpa nn", x, y);
	distil_not_applied(forgetron, 3, "forgetron (SV ages)", x, y, DP_TRAIN);
	distil_not_applied(tbp, 3, "tighter budget perceptron (an evaluation set)", x, y, DP_TRAIN);
	distil_not_applied(bduol, 3, "bduol (dual variables in a box)", x, y, DP_TRAIN);
	/* 16 parts of one row each: a union of 16 SVs, within the budget of 20 */
	distil_not_applied(peg, 5, "a union within the budget", x, y, 16);
	distil_sampled();
	/* measured: 93.6 % against the fold's 87.2 %, and 91.7 % against 86.4 % */
	distil_refined(true, "0.02", 0.03,
				   "54ac1de01f24fad419338132b6bac33882d7af3e39532a03fbf306a5aef89212");
	distil_refined(false, "0.02", 0.03,
				   "00612ff6a96529e897697024e9694597a28d56b5bc406eff81fb0c02440e8e84");
	retrained(true, "8ab21e45f7b98e54b2e0762d20332745b38761e2196fe5739091ce8b9e008689");
	retrained(false, "f44397b53faefdacefa74f503b46ea36461b6adecd909e319b8bfe6723becc1e");
	free(x);
	free(y);
}
