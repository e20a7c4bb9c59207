/*
 * test_params.c
 *	  Unit tests: The parameter table: types, ranges, applicability,
 *	  defaults, and the parameters of each learner.
 */
#include "bk_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
set_one(BkParams *p, const char *key, BkParamInput in, char *err)
{
	return BkParamsSet(p, key, &in, err, BK_ERRMSG_LEN);
}

void
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
		CHECK(found && n == 9, "listing shows the defaults of bpa (%d params)", n);
	}
}

/* Parameters of the three learners; one seed, one model. */
void
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

/*
 * "ridge", added after models were stored: a stored model without it reads
 * with its learner's ridge of then (BPA-P and Pegasos 0, the exact inverse
 * they were trained with; the Projectrons 1e-6), and a new one stores it.
 */
void
test_legacy_ridge(void)
{
	const char *cases[][2][2] = {
		{{"algorithm", "bpa"}, {"variant", "p"}},
		{{"algorithm", "pegasos"}, {"maintenance", "projection"}},
		{{"algorithm", "projectron"}, {"budget", "10"}},
	};
	const double legacy[] = {0.0, 0.0, 1e-6};

	for (int c = 0; c < 3; c++)
	{
		BkParams	p,
					q;
		BkStoredParam st[64];
		char		err[BK_ERRMSG_LEN] = "";
		int			n,
					k = 0;
		bool		stored = false;

		make_params(&p, cases[c], 2, 2);
		CHECK(p.ridge == 1e-6, "%s: a new model's ridge is 1e-6", cases[c][0][1]);
		n = BkParamsToStored(&p, st, 64);
		for (int i = 0; i < n; i++)
		{
			stored |= st[i].id == BK_P_RIDGE;
			if (st[i].id != BK_P_RIDGE)
				st[k++] = st[i];
		}
		CHECK(stored, "%s: the ridge is stored", cases[c][0][1]);
		CHECK(BkParamsFromStored(&q, st, k, false, false, err, sizeof(err)) && q.ridge == legacy[c],
			  "%s: a stored model without \"ridge\" reads with %g (%s)",
			  cases[c][0][1], legacy[c], err);
	}

	/*
	 * The whole model: a trained model's bytes with the ridge entry cut out
	 * (as an earlier version stored them) pass the validator and decode
	 * with the learner's ridge of then; valgrind once saw the canonical-form
	 * check read past the stored entries here.
	 */
	for (int c = 0; c < 3; c++)
	{
		const char *pp[3][2];
		double		xs[2 * 200];
		int64_t		ys[200];
		BkRng		rng;
		BkModel    *m,
				   *d;
		uint8_t    *buf,
				   *cut;
		size_t		len;
		uint32_t	np;
		size_t		at = 0;
		char		err[BK_ERRMSG_LEN] = "";
		BkErrCode	code;

		pp[0][0] = cases[c][0][0];
		pp[0][1] = cases[c][0][1];
		pp[1][0] = cases[c][1][0];
		pp[1][1] = cases[c][1][1];
		pp[2][0] = "gamma";
		pp[2][1] = "4";
		BkRngSeed(&rng, 11);
		checkerboard(&rng, 200, xs, ys, 0.0);
		m = train(pp, 3, xs, ys, 0, 200, NULL);
		buf = encode(m, &len);
		np = (uint32_t) buf[16] | (uint32_t) buf[17] << 8;
		for (uint32_t i = 0; i < np; i++)
			if ((buf[20 + 16 * i] | buf[21 + 16 * i] << 8) == BK_P_RIDGE)
				at = 20 + 16 * (size_t) i;
		CHECK(at > 0, "%s: the ridge entry found", cases[c][0][1]);
		cut = malloc(len - 16);
		memcpy(cut, buf, at);
		memcpy(cut + at, buf + at + 16, len - at - 16);
		cut[16] = (uint8_t) (np - 1);
		cut[8] = (uint8_t) (len - 16);
		cut[9] = (uint8_t) ((len - 16) >> 8);
		cut[10] = (uint8_t) ((len - 16) >> 16);
		cut[11] = (uint8_t) ((len - 16) >> 24);
		fix_crc(cut, len - 16);
		CHECK(BkFormatValidate(cut, len - 16, err, sizeof(err), &code),
			  "%s: a stored model without \"ridge\" is valid (%s)", cases[c][0][1], err);
		d = BkModelDecode(&bk_std_env, cut, len - 16, true);
		CHECK(d->params.ridge == legacy[c], "%s: and decodes with ridge %g",
			  cases[c][0][1], legacy[c]);
		BkModelFree(d);
		BkModelFree(m);
		free(buf);
		free(cut);
	}
}

/*
 * Platt's fit (bk_calibrate.c): at the returned (A, B) the gradient of the
 * cross-entropy against the smoothed targets vanishes; negating the
 * scores and the classes negates A and B (the fit of the other class of
 * two).
 */
void
test_platt_fit(void)
{
	enum {N = 400};
	static double f[N],
				g[N];
	static bool pos[N],
				neg[N];
	BkRng		rng;
	double		A,
				B,
				A2,
				B2,
				n1 = 0,
				g1 = 0,
				g2 = 0,
				hi,
				lo;

	BkRngSeed(&rng, 5);
	for (int i = 0; i < N; i++)
	{
		pos[i] = BkRngUniform(&rng) < 0.3;
		f[i] = (pos[i] ? 1.0 : -0.5) + 1.5 * (BkRngUniform(&rng) - 0.5);
		g[i] = -f[i];
		neg[i] = !pos[i];
		n1 += pos[i];
	}
	CHECK(BkPlattFit(&bk_std_env, f, pos, N, &A, &B), "Platt: a fit");
	hi = (n1 + 1) / (n1 + 2);
	lo = 1 / (N - n1 + 2);
	for (int i = 0; i < N; i++)
	{
		double		p = 1 / (1 + exp(A * f[i] + B));
		double		t = pos[i] ? hi : lo;

		g1 += f[i] * (t - p);
		g2 += t - p;
	}
	CHECK(fabs(g1) < 1e-4 && fabs(g2) < 1e-4 && A < 0,
		  "Platt: the gradient vanishes at the fit (%g, %g), A = %g < 0", g1, g2, A);
	CHECK(BkPlattFit(&bk_std_env, g, neg, N, &A2, &B2) &&
		  fabs(A2 - A) < 1e-6 && fabs(B2 + B) < 1e-6,
		  "Platt: the other class of two has A and -B (%g %g, %g %g)", A, B, A2, B2);
}

/*
 * BkParseDouble gives strtod's value and end, bit for bit: random decimals
 * of 1 to 25 digits, with and without a point, signs, exponents and
 * trailing text, and the forms strtod reads that the fast path leaves to
 * it (hexadecimal, infinities, leading space).
 */
void
test_parse_double(void)
{
	BkRng		rng;
	int			same = 0,
				n = 0;
	const char *fixed[] = {"0", "-0", "0.0", "000.000100", "1e22", "1e23", "9007199254740993",
		"9007199254740992", "123456789012345678901234", "0.1", "-3.14159", "2.5e-3",
		"1E5", "1e", "1e+", ".5", "5.", ".", "-", "", " 7", "0x1p3", "inf", "-nan",
		"17:1", "4.000000e+00", "0.30000000000000004", "1e-400", "1e400", "1.5 2"};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
	{
		char	   *e1,
				   *e2;
		double		a = strtod(fixed[i], &e1),
					b = BkParseDouble(fixed[i], &e2);

		n++;
		if (e1 == e2 && (memcmp(&a, &b, sizeof(a)) == 0 || (a != a && b != b)))
			same++;
		else
			printf("# BkParseDouble(\"%s\") = %.17g, strtod %.17g\n", fixed[i], b, a);
	}
	BkRngSeed(&rng, 77);
	for (int t = 0; t < 200000; t++)
	{
		char		buf[64];
		int			k = 0;
		int			nd = 1 + (int) BkRngBelow(&rng, 25);
		int			point = (int) BkRngBelow(&rng, (uint64_t) nd + 2);
		char	   *e1,
				   *e2;
		double		a,
					b;

		if (BkRngBelow(&rng, 3) == 0)
			buf[k++] = '-';
		for (int d = 0; d < nd; d++)
		{
			if (d == point)
				buf[k++] = '.';
			buf[k++] = (char) ('0' + (BkRngBelow(&rng, 4) == 0 ? 0 : BkRngBelow(&rng, 10)));
		}
		if (BkRngBelow(&rng, 4) == 0)
			k += snprintf(buf + k, sizeof(buf) - (size_t) k, "e%d", (int) BkRngBelow(&rng, 61) - 30);
		if (BkRngBelow(&rng, 5) == 0)
			buf[k++] = ':';
		buf[k] = '\0';
		a = strtod(buf, &e1);
		b = BkParseDouble(buf, &e2);
		n++;
		if (e1 == e2 && memcmp(&a, &b, sizeof(a)) == 0)
			same++;
		else if (n - same < 5)
			printf("# BkParseDouble(\"%s\") = %.17g, strtod %.17g\n", buf, b, a);
	}
	CHECK(same == n, "BkParseDouble equals strtod on %d of %d strings", same, n);
}

/*
 * BkDecimalDouble, the fast path the JSON numbers of named features take
 * from a numeric's digits: where it answers, strtod's bits for the same
 * decimal printed as text ("-12345e-7"), negative zero included; outside
 * its domain (a significand above 2^53, a power of ten beyond 10^22) it
 * declines.  Significands of 1 to 17 digits and the edges 2^53 - 1, 2^53,
 * 2^53 + 1, exponents -30 to 30.
 */
void
test_decimal_double(void)
{
	BkRng		rng;
	int			same = 0,
				n = 0,
				declined = 0,
				wrong_domain = 0;
	const uint64_t edges[] = {0, 1, 9, 10, 4503599627370496, 9007199254740991,
		9007199254740992, 9007199254740993, 99999999999999999ULL};

	BkRngSeed(&rng, 1957);
	for (int t = 0; t < 400000; t++)
	{
		char		buf[64];
		uint64_t	m;
		int			e = (int) BkRngBelow(&rng, 61) - 30;
		bool		neg = BkRngBelow(&rng, 2) == 0;
		double		a,
					b = 0.0;
		bool		fast;

		if (t < (int) (sizeof(edges) / sizeof(edges[0])) * 61)
		{
			m = edges[t / 61];
			e = t % 61 - 30;
		}
		else
		{
			int			nd = 1 + (int) BkRngBelow(&rng, 17);

			m = 0;
			for (int d = 0; d < nd; d++)
				m = m * 10 + BkRngBelow(&rng, 10);
		}
		snprintf(buf, sizeof(buf), "%s%llue%d", neg ? "-" : "", (unsigned long long) m, e);
		a = strtod(buf, NULL);
		fast = BkDecimalDouble(neg, m, e, &b);
		if (fast != (m <= (UINT64_C(1) << 53) && e >= -22 && e <= 22))
			wrong_domain++;
		if (!fast)
		{
			declined++;
			continue;
		}
		n++;
		if (memcmp(&a, &b, sizeof(a)) == 0)
			same++;
		else if (n - same < 5)
			printf("# BkDecimalDouble(%s) = %.17g, strtod %.17g\n", buf, b, a);
	}
	CHECK(same == n && n > 200000, "BkDecimalDouble equals strtod on %d of %d decimals", same, n);
	CHECK(wrong_domain == 0 && declined > 0,
		  "BkDecimalDouble declines exactly outside m <= 2^53, |e| <= 22 (%d declined, %d wrong)",
		  declined, wrong_domain);
}
