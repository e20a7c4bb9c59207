/*
 * test_polish.c
 *	  The reduced-set refinement of a merge (bk_model_polish.c): the merged
 *	  machines' support vectors move towards the exact average of the
 *	  parts, so the merge's squared distance to the average in the kernel's
 *	  feature space falls and its predictions agree with the average's more
 *	  often; the result is a valid model of the budget that trains on, the
 *	  same bytes every time and with the vector lanes on or off (a float4
 *	  model's positions stay float4 values); other kernels and unions
 *	  within the budget are left as they are.
 */
#include "bk_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PO_TRAIN	3000
#define PO_TEST		1000
#define PO_PARTS	2

/* sum_ij a_i . b_j k(x_i, y_j) over two machines' SVs (coefficients times scale) */
static double
cross(const BkParams *p, const BkMachine *a, const BkMachine *b, int dim)
{
	double		s = 0.0;

	for (int i = 0; i < a->n_sv; i++)
		for (int j = 0; j < b->n_sv; j++)
		{
			double		d2 = 0.0,
						ab = 0.0;

			for (int e = 0; e < dim; e++)
			{
				double		t = BkSvRow(a, i)[e] - BkSvRow(b, j)[e];

				d2 += t * t;
			}
			for (int c = 0; c < a->n_coef; c++)
				ab += a->coef[(size_t) i * a->n_coef + c] * b->coef[(size_t) j * b->n_coef + c];
			s += ab * a->scale * b->scale * exp(-p->gamma * d2);
		}
	return s;
}

/* ||f_m - f_u||^2 in the kernel's feature space, over the machines */
static double
distance2(const BkModel *m, const BkModel *u)
{
	double		s = 0.0;

	for (int k = 0; k < m->n_machines; k++)
		s += cross(&m->params, &m->machines[k], &m->machines[k], m->dim) +
			cross(&m->params, &u->machines[k], &u->machines[k], m->dim) -
			2.0 * cross(&m->params, &m->machines[k], &u->machines[k], m->dim);
	return s;
}

/* the held-out rows on which m predicts what u predicts */
static int
agreement(BkModel *m, BkModel *u, const double *x, int n)
{
	int			same = 0;

	for (int i = 0; i < n; i++)
	{
		int64_t		a,
					b;

		same += BkModelPredict(m, x + 2 * (size_t) i, &a) &&
			BkModelPredict(u, x + 2 * (size_t) i, &b) && a == b;
	}
	return same;
}

/*
 * Two parts of alternate rows, folded (*fold) and kept whole (*u), from
 * copies of the parts
 */
static void
two_parts(const char *pp[][2], int np, const double *x, const int64_t *y,
		  BkModel **fold, BkModel **u)
{
	BkModel    *parts[PO_PARTS];

	for (int p = 0; p < PO_PARTS; p++)
	{
		parts[p] = train_mc(pp, np, x, y, 0, 0, NULL);
		for (int i = p; i < PO_TRAIN; i += PO_PARTS)
			BkModelLearn(parts[p], x + 2 * (size_t) i, y[i]);
	}
	merge_parts(parts, PO_PARTS, fold, u);
	for (int p = 0; p < PO_PARTS; p++)
		BkModelFree(parts[p]);
}

/*
 * One learner: the fold polished towards the union falls in distance by
 * at least drop (a share), agrees with the union on held-out rows at
 * least as often, is valid, of the budget, trains on, and is the same
 * bytes twice, of SHA-256 want
 */
static void
polished(const char *pp[][2], int np, const char *name, const double *x,
		 const int64_t *y, double drop, const char *want)
{
	BkModel    *fold,
			   *u,
			   *again,
			   *u2;
	BkPolishReport r,
				r2;
	double		d0,
				d1;
	int			agree0,
				agree1;
	size_t		len,
				len2;
	uint8_t    *b,
			   *b2;
	char		hex[2 * BK_DIGEST_LEN + 1];
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	bool		budget = true;

	two_parts(pp, np, x, y, &fold, &u);
	two_parts(pp, np, x, y, &again, &u2);
	d0 = distance2(fold, u);
	agree0 = agreement(fold, u, x + 2 * PO_TRAIN, PO_TEST);
	CHECK(BkModelPolish(fold, u, &r) && r.machines == fold->n_machines && r.steps > 0,
		  "%s: every machine polished (%d of %d, %d steps)", name, r.machines,
		  fold->n_machines, r.steps);
	d1 = distance2(fold, u);
	agree1 = agreement(fold, u, x + 2 * PO_TRAIN, PO_TEST);
	CHECK(d1 <= (1.0 - drop) * d0 && r.points > 0 && r.after < r.before,
		  "%s: the squared distance to the average falls from %.4g to %.4g (at %d of its points from %.6g to %.6g)",
		  name, d0, d1, r.points, r.before, r.after);
	CHECK(agree1 >= agree0, "%s: agrees with the average on %d held-out rows, %d before",
		  name, agree1, agree0);
	for (int k = 0; k < fold->n_machines; k++)
		budget &= fold->machines[k].n_sv <= (int) fold->params.budget;
	b = encode(fold, &len);
	CHECK(budget && fold->rows_seen == PO_TRAIN &&
		  BkFormatValidate(b, len, err, sizeof(err), &code),
		  "%s: the polished merge is valid, of the budget and the parts' rows (%s)", name, err);
	/* again, on the scalar path (a CPU without AVX2) */
	BkVectorLanesEnable(false);
	BkModelPolish(again, u2, &r2);
	BkVectorLanesEnable(true);
	b2 = encode(again, &len2);
	CHECK(len == len2 && memcmp(b, b2, len) == 0 && r2.steps == r.steps,
		  "%s: polished twice, the second without vector lanes: the same bytes", name);
	sha_hex(b, len, hex);
	CHECK(strcmp(hex, want) == 0, "%s: the polished model's SHA-256 is %s (want %s)",
		  name, hex, want);
	if (fold->params.sv_precision == BK_SV_FLOAT4)
	{
		bool		holds = true;

		for (int k = 0; k < fold->n_machines; k++)
			holds &= BkSvFloat4Holds(&fold->machines[k], fold->dim);
		CHECK(holds, "%s: the moved support vectors are float4 values", name);
	}
	/* it trains on */
	train_mc(pp, np, x, y, PO_TRAIN, PO_TRAIN + 100, fold);
	CHECK(fold->rows_seen == PO_TRAIN + 100, "%s: the polished merge trains on", name);
	free(b);
	free(b2);
	BkModelFree(fold);
	BkModelFree(u);
	BkModelFree(again);
	BkModelFree(u2);
}

/* no polish: m unchanged, to the byte */
static void
not_polished(const char *pp[][2], int np, const char *name, const double *x,
			 const int64_t *y)
{
	BkModel    *fold,
			   *u;
	BkPolishReport r;
	size_t		len,
				len2;
	uint8_t    *b,
			   *b2;
	bool		done;

	two_parts(pp, np, x, y, &fold, &u);
	b = encode(fold, &len);
	done = BkModelPolish(fold, u, &r);
	b2 = encode(fold, &len2);
	CHECK(!done && r.machines == 0 && r.steps == 0 && len == len2 && memcmp(b, b2, len) == 0,
		  "%s: not polished, the merge unchanged", name);
	free(b);
	free(b2);
	BkModelFree(fold);
	BkModelFree(u);
}

void
test_polish(void)
{
	BkRng		rng;
	double	   *x = malloc(sizeof(double) * 2 * (PO_TRAIN + PO_TEST + 100));
	int64_t    *y = malloc(sizeof(int64_t) * (PO_TRAIN + PO_TEST + 100));
	const char *peg[][2] = {{"algorithm", "pegasos"}, {"maintenance", "merge"},
	{"budget", "12"}, {"gamma", "20"}, {"lambda", "1e-4"}};
	const char *peg4[][2] = {{"algorithm", "pegasos"}, {"maintenance", "merge"},
	{"budget", "12"}, {"gamma", "20"}, {"lambda", "1e-4"}, {"sv_precision", "float4"}};
	const char *nn[][2] = {{"algorithm", "bpa"}, {"variant", "nn"},
	{"budget", "12"}, {"gamma", "20"}, {"C", "1"}};
	const char *poly[][2] = {{"algorithm", "bpa"}, {"variant", "nn"},
	{"budget", "12"}, {"kernel", "poly"}, {"gamma", "1"}, {"degree", "3"}, {"coef0", "1"}, {"C", "1"}};
	const char *wide[][2] = {{"algorithm", "pegasos"}, {"maintenance", "merge"},
	{"budget", "5000"}, {"gamma", "20"}, {"lambda", "1e-4"}};

	BkRngSeed(&rng, 83);
	three_class(&rng, PO_TRAIN + PO_TEST + 100, x, y);
	/*
	 * the squared distance measured: 149.1 to 9.1 (pegasos, float4 alike),
	 * 24.0 to 8.5 (bpa nn); agreement with the average on held-out rows
	 * 978 to 998, and 969 to 993; the squared differences at the union's
	 * points 11.8 to 0.17 (24 points), and 10.7 to 1.0 (72)
	 */
	polished(peg, 5, "pegasos", x, y, 0.5,
			 "f1473f34fe3919fc6d5a77f16f25ca9f71af360bb449bbaf388d8fb060c061e9");
	polished(peg4, 6, "pegasos, float4", x, y, 0.5,
			 "2e6c6e294d13a5e84718652744cebe342063ca737bd9b223aa20100e01aae287");
	polished(nn, 5, "bpa nn, one-vs-rest", x, y, 0.5,
			 "4f4f2f8fb7d29262a0c5191e31d81cb82bc899828fd163c55d84783aaf83c791");
	not_polished(poly, 8, "a polynomial kernel", x, y);
	not_polished(wide, 5, "a union within the budget", x, y);
	free(x);
	free(y);
}
