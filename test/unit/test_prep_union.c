/*
 * test_prep_union.c
 *	  Merging models whose preparations of named features differ in keys
 *	  or text values (bk_prep_union.c, bk_model_union.c): the merged model
 *	  is the weighted sum of both sides' expansions with every SV re-laid
 *	  into the union layout as doc/preparation.md says (a level a side
 *	  never saw 0, a categorical key it never saw all 0, a numeric key it
 *	  never saw the imputed value), its bytes valid, and it trains on,
 *	  decodes to its bytes and merges again; what cannot merge exactly is
 *	  an error.
 */
#include "bk_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a row: "n" and "c" always, and one more key (numeric or text) or none */
typedef struct URow
{
	double		n;
	const char *c;
	const char *key;			/* the extra key, or NULL */
	double		num;			/* its number, when text is NULL */
	const char *text;
	int64_t		y;
} URow;

static void
put_row(BkModel *m, const URow *r, double *out)
{
	int			i;

	BkPrepRowBegin(m, out);
	if ((i = BkPrepKey(m, 0, "c", 1)) >= 0)
		BkPrepPutText(m, i, r->c, strlen(r->c), out);
	if ((i = BkPrepKey(m, 1, "n", 1)) >= 0)
		BkPrepPutNumber(m, i, r->n, out);
	if (r->key && (i = BkPrepKey(m, 2, r->key, strlen(r->key))) >= 0)
	{
		if (r->text)
			BkPrepPutText(m, i, r->text, strlen(r->text), out);
		else
			BkPrepPutNumber(m, i, r->num, out);
	}
	BkPrepRowEnd(m, out);
}

/*
 * Rows of one side: "c" among levels, "n" shifted by shift, and key
 * (numeric when texts is NULL) in every row
 */
static void
make_rows(BkRng *rng, URow *rows, int n, const char *const *levels, int nl,
		  double shift, const char *key, const char *const *texts, int nt)
{
	for (int i = 0; i < n; i++)
	{
		URow	   *r = &rows[i];

		r->n = 4.0 * BkRngUniform(rng) - 2.0 + shift;
		r->c = levels[BkRngBelow(rng, (uint64_t) nl)];
		r->key = key;
		r->text = texts ? texts[BkRngBelow(rng, (uint64_t) nt)] : NULL;
		r->num = texts ? 0.0 : 10.0 * BkRngUniform(rng);
		r->y = (r->n + (strcmp(r->c, "red") == 0) - (strcmp(r->c, "green") == 0) > 0.2) ? 1 : 0;
	}
}

/* a model of params pp fitted on and trained on rows (impute: "none" if !impute) */
static BkModel *
fit_train(const char *pp[][2], int np, const URow *rows, int n, bool impute)
{
	BkPrepSpec	spec;
	BkPrepFit  *f;
	BkPrep	   *prep;
	BkParams	p;
	BkModel    *m;
	double	   *out;

	BkPrepSpecInit(&spec, true);
	if (!impute)
		spec.impute = BK_IMPUTE_NONE;
	f = BkPrepFitNew(&bk_std_env, &spec, true);
	for (int i = 0; i < n; i++)
	{
		BkPrepFitText(f, BkPrepFitKey(f, "c", 1), rows[i].c, strlen(rows[i].c));
		BkPrepFitNumber(f, BkPrepFitKey(f, "n", 1), rows[i].n);
		if (rows[i].key && rows[i].text)
			BkPrepFitText(f, BkPrepFitKey(f, rows[i].key, strlen(rows[i].key)),
						  rows[i].text, strlen(rows[i].text));
		else if (rows[i].key)
			BkPrepFitNumber(f, BkPrepFitKey(f, rows[i].key, strlen(rows[i].key)),
							rows[i].num);
	}
	prep = BkPrepFitFinish(f, &bk_std_env);
	make_params(&p, pp, np, BkPrepDim(prep));
	m = BkModelCreate(&bk_std_env, &p, BkPrepDim(prep));
	BkModelSetPrep(m, prep);
	out = malloc(sizeof(double) * (size_t) m->dim);
	for (int i = 0; i < n; i++)
	{
		put_row(m, &rows[i], out);
		BkModelLearn(m, out, rows[i].y);
	}
	free(out);
	return m;
}

/* what a side keeps of itself for the reference: its SVs and preparation */
typedef struct Side
{
	BkPrep	   *prep;
	int			dim;
	int			n_sv;
	double	   *sv;				/* n_sv x dim */
	double	   *coef;			/* times the machine's scale */
	double		rows;
} Side;

static void
keep_side(BkModel *m, Side *s)
{
	const BkMachine *mach = &m->machines[0];

	s->prep = BkPrepCopy(&bk_std_env, m->prep);
	s->dim = m->dim;
	s->n_sv = mach->n_sv;
	s->sv = malloc(sizeof(double) * ((size_t) mach->n_sv * m->dim + 1));
	s->coef = malloc(sizeof(double) * ((size_t) mach->n_sv + 1));
	for (int j = 0; j < mach->n_sv; j++)
	{
		memcpy(s->sv + (size_t) j * m->dim, BkSvRow(mach, j), sizeof(double) * m->dim);
		s->coef[j] = mach->scale * mach->coef[j];
	}
	s->rows = (double) m->rows_seen;
}

static void
free_side(Side *s)
{
	BkPrepFree(&bk_std_env, s->prep);
	free(s->sv);
	free(s->coef);
}

/*
 * SV x of side s in the layout of u (the merged preparation), written
 * from doc/preparation.md's rule, not from the code's: a numeric input of
 * the side taken back to its own units and prepared by u (as a merge of
 * one layout does); one the side lacks, or had no value of, u's fill; a
 * level of the side at its place among u's levels, every other level 0.
 */
static void
relay_by_hand(const Side *s, const BkPrep *u, const double *x, double *y)
{
	memset(y, 0, sizeof(double) * (size_t) u->dim);
	for (int i = 0; i < u->n_inputs; i++)
	{
		const BkPrepInput *ui = &u->inputs[i];
		const BkPrepInput *si = NULL;

		for (int k = 0; k < s->prep->n_inputs; k++)
			if (strcmp(s->prep->inputs[k].name, ui->name) == 0)
				si = &s->prep->inputs[k];
		if (ui->kind == BK_INPUT_NUMERIC)
			y[ui->offset] = si && si->n > 0 ?
				(x[si->offset] * si->scale + si->center - ui->center) / ui->scale :
				ui->fill;
		else if (si)
			for (int l = 0; l < si->n_levels; l++)
				for (int j = 0; j < ui->n_levels; j++)
					if (strcmp(ui->levels[j], si->levels[l]) == 0)
						y[ui->offset + j] = x[si->offset + l];
	}
}

/* the union-layout function: w_a f_a + w_b f_b, SVs re-laid by hand */
static double
reference(const BkModel *merged, const Side *sides, int n_sides, const double *x)
{
	double		total = 0.0,
				f = 0.0;
	double	   *y = malloc(sizeof(double) * (size_t) merged->dim);
	double		sqx = BkDot(x, x, merged->dim);

	for (int s = 0; s < n_sides; s++)
		total += sides[s].rows;
	for (int s = 0; s < n_sides; s++)
		for (int j = 0; j < sides[s].n_sv; j++)
		{
			relay_by_hand(&sides[s], merged->prep, sides[s].sv + (size_t) j * sides[s].dim, y);
			f += sides[s].rows / total * sides[s].coef[j] *
				BkKernelFromDot(&merged->params, BkDot(y, x, merged->dim),
								BkDot(y, y, merged->dim), sqx);
		}
	free(y);
	return f;
}

/* whether merging src into dst fails with code and a message holding what */
static bool
merge_fails_with(BkModel *dst, BkModel *src, BkErrCode code, const char *what)
{
	bool		failed = merge_fails(dst, src, code) &&
		strstr(bk_std_last_msg, what) != NULL;

	if (!failed)
		printf("# merge: code %d, \"%s\"\n", (int) bk_std_last_code, bk_std_last_msg);
	return failed;
}

static bool
valid(BkModel *m)
{
	size_t		len;
	uint8_t    *buf = encode(m, &len);
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	bool		ok = BkFormatValidate(buf, len, err, sizeof(err), &code);

	if (!ok)
		printf("# invalid: %s\n", err);
	free(buf);
	return ok;
}

/* the largest |decision - reference| relative to 1 + |reference| over rows */
static double
worst_gap(BkModel *m, const Side *sides, int n_sides, const URow *rows, int n)
{
	double	   *x = malloc(sizeof(double) * (size_t) m->dim);
	double		worst = 0.0;

	for (int i = 0; i < n; i++)
	{
		double		ref,
					got;

		put_row(m, &rows[i], x);
		ref = reference(m, sides, n_sides, x);
		got = BkModelDecision(m, x);
		worst = fmax(worst, fabs(got - ref) / (1.0 + fabs(ref)));
	}
	free(x);
	return worst;
}

#define NA 80
#define NB 70

void
test_prep_union(void)
{
	static const char *const la[] = {"blue", "red"};
	static const char *const lb[] = {"blue", "green"};
	static const char *const lc[] = {"green", "purple"};
	static const char *const tb[] = {"x", "y"};
	const char *pp[][2] = {{"algorithm", "bpa"}, {"budget", "500"}, {"gamma", "0.5"}};
	const char *tight[][2] = {{"algorithm", "tighter_budget_perceptron"}, {"budget", "12"},
	{"gamma", "0.5"}};
	const char *dflt[][2] = {{"algorithm", "bpa"}, {"budget", "50"}};
	URow		ra[NA],
				rb[NB],
				rc[NA],
				all[NA + NB];
	BkRng		rng;
	BkModel    *a,
			   *b,
			   *ab,
			   *ba,
			   *c,
			   *d;
	Side		sides[2];
	uint8_t    *bytes_a,
			   *bytes_b,
			   *buf,
			   *buf2;
	size_t		len_a,
				len_b,
				len,
				len2;
	double	   *x;
	double		gap;

	BkRngSeed(&rng, 2024);
	/* A: c in {blue, red}, numeric a_only; B: c in {blue, green}, text b_only */
	make_rows(&rng, ra, NA, la, 2, 0.0, "a_only", NULL, 0);
	make_rows(&rng, rb, NB, lb, 2, 0.7, "b_only", tb, 2);
	memcpy(all, ra, sizeof(ra));
	memcpy(all + NA, rb, sizeof(rb));
	a = fit_train(pp, 3, ra, NA, true);
	b = fit_train(pp, 3, rb, NB, true);
	CHECK(a->dim == 4 && b->dim == 5, "the sides' dimensions: %d and %d", a->dim, b->dim);
	bytes_a = encode(a, &len_a);
	bytes_b = encode(b, &len_b);
	keep_side(a, &sides[0]);
	keep_side(b, &sides[1]);

	/* the merge: union layout a_only, b_only (x, y), c (blue, green, red), n */
	BkModelMerge(a, b);
	ab = a;
	CHECK(ab->dim == 7 && BkPrepInputs(ab->prep) == 4 &&
		  strcmp(ab->prep->inputs[0].name, "a_only") == 0 &&
		  strcmp(ab->prep->inputs[2].name, "c") == 0 && ab->prep->inputs[2].n_levels == 3 &&
		  strcmp(ab->prep->inputs[2].levels[1], "green") == 0,
		  "the merged preparation is the union in byte order (dim %d)", ab->dim);
	CHECK(ab->prep->inputs[3].n == NA + NB && ab->prep->inputs[0].n == NA,
		  "numeric statistics pooled: n over both sides, a_only over A's rows");
	CHECK(ab->machines[0].n_sv == sides[0].n_sv + sides[1].n_sv,
		  "no reduction: the union of both sides' SVs (%d)", ab->machines[0].n_sv);
	gap = worst_gap(ab, sides, 2, all, NA + NB);
	CHECK(gap < 1e-12, "the merged model scores both sides' rows as the union-layout function (gap %g)",
		  gap);
	CHECK(valid(ab), "the merged model's bytes are valid");

	/* the other order: a valid model of the same function */
	{
		BkModel    *a2 = BkModelDecode(&bk_std_env, bytes_a, len_a, true);

		ba = BkModelDecode(&bk_std_env, bytes_b, len_b, true);
		BkModelMerge(ba, a2);
		BkModelFree(a2);
	}
	CHECK(valid(ba) && ba->dim == 7 && BkPrepSameLayout(ba->prep, ab->prep),
		  "merged the other way: valid, the same layout");
	x = malloc(sizeof(double) * 16);
	gap = 0.0;
	for (int i = 0; i < NA + NB; i++)
	{
		double		f1,
					f2;

		put_row(ab, &all[i], x);
		f1 = BkModelDecision(ab, x);
		put_row(ba, &all[i], x);
		f2 = BkModelDecision(ba, x);
		gap = fmax(gap, fabs(f1 - f2) / (1.0 + fabs(f1)));
	}
	CHECK(gap < 1e-12, "either order gives the same decisions (gap %g)", gap);

	/* re-encoded: the same bytes; continued: rows of every key, a new level */
	buf = encode(ab, &len);
	d = BkModelDecode(&bk_std_env, buf, len, true);
	buf2 = encode(d, &len2);
	CHECK(len == len2 && memcmp(buf, buf2, len) == 0, "the merged model decodes and encodes to its bytes");
	free(buf);
	free(buf2);
	for (int i = 0; i < 30; i++)
	{
		URow		r = all[i * 5];

		r.c = i % 3 ? r.c : "purple";	/* outside the vocabulary: no column */
		put_row(d, &r, x);
		BkModelLearn(d, x, r.y);
	}
	CHECK(valid(d) && d->rows_seen == NA + NB + 30, "the merged model trains on");

	/* merged again, with a third side: c in {green, purple}, numeric c_only */
	make_rows(&rng, rc, NA, lc, 2, -0.4, "c_only", NULL, 0);
	c = fit_train(pp, 3, rc, NA, true);
	BkModelMerge(d, c);
	CHECK(valid(d) && d->dim == 9 && d->prep->inputs[2].n_levels == 4,
		  "merged again: valid, dim %d (c has blue, green, purple, red)", d->dim);
	BkModelFree(c);
	BkModelFree(d);
	BkModelFree(ba);
	BkModelFree(ab);
	BkModelFree(b);
	free_side(&sides[0]);
	free_side(&sides[1]);

	/* a budget, an evaluation set: reduced, valid, trains on */
	a = fit_train(tight, 3, ra, NA, true);
	b = fit_train(tight, 3, rb, NB, true);
	BkModelMerge(a, b);
	CHECK(valid(a) && a->dim == 7 && a->machines[0].n_sv <= 12 && a->machines[0].eval != NULL,
		  "a tighter budget perceptron merges into the union, reduced to its budget");
	for (int i = 0; i < NA + NB; i += 3)
	{
		put_row(a, &all[i], x);
		BkModelLearn(a, x, all[i].y);
	}
	CHECK(valid(a), "and trains on");
	{
		BkRunReport rep;

		BkModelRunReport(a, &rep);
		CHECK(rep.rows > 0, "its run report is made from rows of the new layout");
	}
	BkModelFree(a);
	BkModelFree(b);

	/* what cannot merge exactly is an error */
	{
		URow		rk[NB];
		const char *scale_none[][2] = {{"algorithm", "bpa"}, {"budget", "500"}, {"gamma", "0.5"}};

		/* "c" numeric on one side */
		a = BkModelDecode(&bk_std_env, bytes_a, len_a, true);
		make_rows(&rng, rk, NB, lb, 2, 0.0, "c_num", NULL, 0);
		for (int i = 0; i < NB; i++)
			rk[i].key = "c";	/* c's text is replaced by the number below */
		{
			BkPrepSpec	spec;
			BkPrepFit  *f;
			BkParams	p;

			BkPrepSpecInit(&spec, true);
			f = BkPrepFitNew(&bk_std_env, &spec, true);
			for (int i = 0; i < NB; i++)
			{
				BkPrepFitNumber(f, BkPrepFitKey(f, "c", 1), rk[i].num);
				BkPrepFitNumber(f, BkPrepFitKey(f, "n", 1), rk[i].n);
			}
			make_params(&p, scale_none, 3, 2);
			b = BkModelCreate(&bk_std_env, &p, 2);
			BkModelSetPrep(b, BkPrepFitFinish(f, &bk_std_env));
			x[0] = 0.5;
			x[1] = -0.5;
			BkModelLearn(b, x, 1);
		}
		CHECK(merge_fails_with(a, b, BK_ERR_PARAM, "key \"c\" is categorical in one and numeric"),
			  "a key of two kinds does not merge");
		BkModelFree(a);
		BkModelFree(b);

		/* without "impute": other levels merge, another key does not */
		a = fit_train(pp, 3, ra, NA, false);
		for (int i = 0; i < NB; i++)
		{
			rk[i] = rb[i];
			rk[i].key = "a_only";
			rk[i].text = NULL;
		}
		b = fit_train(pp, 3, rk, NB, false);
		BkModelMerge(a, b);
		CHECK(valid(a) && a->dim == 5, "without impute, models of other levels merge");
		BkModelFree(a);
		BkModelFree(b);
		a = fit_train(pp, 3, ra, NA, false);
		b = fit_train(pp, 3, rb, NB, false);
		CHECK(merge_fails_with(a, b, BK_ERR_PARAM, "key \"a_only\" is in one only"),
			  "without impute, a key of one side does not merge");
		BkModelFree(a);
		BkModelFree(b);

		/* gamma's default, 1 / dim, differs */
		a = fit_train(dflt, 2, ra, NA, true);
		b = fit_train(dflt, 2, rb, NB, true);
		CHECK(merge_fails_with(a, b, BK_ERR_PARAM, "their dimensions are 4 and 5"),
			  "the default gamma of other dimensions does not merge");
		BkModelFree(a);
		BkModelFree(b);
	}

	/* the union of levels beyond BK_MAX_LEVELS */
	{
		BkPrepSpec	spec;
		BkParams	p;
		BkModel    *m[2];
		char		name[32];
		int			per = BK_MAX_LEVELS / 2 + 1;

		BkPrepSpecInit(&spec, true);
		spec.max_levels = BK_MAX_LEVELS;
		for (int s = 0; s < 2; s++)
		{
			BkPrepFit  *f = BkPrepFitNew(&bk_std_env, &spec, true);
			BkPrep	   *prep;
			double	   *row;

			for (int i = 0; i < per; i++)
			{
				snprintf(name, sizeof(name), "%c%06d", s ? 'b' : 'a', i);
				BkPrepFitText(f, BkPrepFitKey(f, "id", 2), name, strlen(name));
			}
			prep = BkPrepFitFinish(f, &bk_std_env);
			make_params(&p, pp, 3, BkPrepDim(prep));
			m[s] = BkModelCreate(&bk_std_env, &p, BkPrepDim(prep));
			BkModelSetPrep(m[s], prep);
			row = calloc((size_t) BkPrepDim(prep), sizeof(double));
			row[s] = 1.0;
			BkModelLearn(m[s], row, s);
			free(row);
		}
		CHECK(merge_fails_with(m[0], m[1], BK_ERR_LIMIT, "distinct text values, more than"),
			  "a union of more than %d levels is refused", BK_MAX_LEVELS);
		BkModelFree(m[0]);
		BkModelFree(m[1]);
	}
	free(x);
	free(bytes_a);
	free(bytes_b);
}
