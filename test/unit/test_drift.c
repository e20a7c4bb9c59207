/*
 * test_drift.c
 *	  Change detectors (bk_adwin.c, bk_page_hinkley.c, bk_ddm.c through
 *	  bk_drift.c) and feature drift against a preparation
 *	  (bk_data_drift.c).
 */
#include "bk_test.h"
#include "bk_detect.h"

#include <math.h>
#include <string.h>

/* a detector of method (and one more key, or NULL), defaults filled in */
static BkDrift *
detector(const char *method, const char *key, double value)
{
	BkDriftParams p;
	BkParamInput in;
	char		err[BK_ERRMSG_LEN];

	BkDriftParamsInit(&p);
	memset(&in, 0, sizeof(in));
	in.type = BK_IN_STRING;
	in.string = method;
	CHECK(BkDriftParamsSet(&p, "method", &in, err, sizeof(err)), "method %s: %s", method, err);
	if (key != NULL)
	{
		memset(&in, 0, sizeof(in));
		in.type = BK_IN_NUMBER;
		in.number = value;
		CHECK(BkDriftParamsSet(&p, key, &in, err, sizeof(err)), "%s: %s", key, err);
	}
	CHECK(BkDriftParamsFinish(&p, err, sizeof(err)), "finish: %s", err);
	return BkDriftNew(&bk_std_env, &p);
}

/*
 * The bar of issue 53: Bernoulli(0.1) errors for n rows, stepping to 0.3
 * from row step (0: never); the row of the first change at or after from
 * (0: none) and the changes raised
 */
static int64_t
change_from(BkDrift *d, int n, int step, uint64_t seed, int from, int64_t *changes)
{
	BkRng		rng;
	int64_t		first = 0;

	BkRngSeed(&rng, seed);
	for (int i = 1; i <= n; i++)
	{
		double		rate = (step > 0 && i >= step) ? 0.3 : 0.1;
		bool		c = BkDriftAdd(d, BkRngUniform(&rng) < rate ? 1.0 : 0.0);

		if (c && first == 0 && i >= from)
			first = i;
	}
	*changes = BkDriftDetected(d);
	return first;
}

/* the first change's row (0: none) */
static int64_t
first_change(BkDrift *d, int n, int step, uint64_t seed, int64_t *changes)
{
	return change_from(d, n, step, seed, 1, changes);
}

static void
test_adwin_histogram(void)
{
	BkAdwin    *a = BkAdwinNew(&bk_std_env, 0.002, 5, 32, 5);
	BkRng		rng;
	double		stat[BK_DRIFT_MAX_STATS];
	bool		ok = true,
				small = true;
	int64_t		ones = 0;

	BkRngSeed(&rng, 7);
	for (int i = 1; i <= 20000; i++)
	{
		double		x = BkRngUniform(&rng) < 0.25 ? 1.0 : 0.0;

		ones += x != 0.0;
		(void) BkAdwinAdd(a, x, stat);
		ok = ok && BkAdwinCheck(a);
		/* §4: at most M + 1 buckets of each of the log2(W) + 1 sizes */
		small = small && BkAdwinBuckets(a) <= 6 * (int) (log2((double) BkAdwinWidth(a)) + 1.0);
	}
	CHECK(ok, "the exponential histogram's invariants hold after every value");
	CHECK(small, "ADWIN2 keeps O(M log W) buckets");
	/* a stationary stream keeps its whole window: its mean is the stream's */
	CHECK(BkAdwinWidth(a) == 20000, "stationary: the window is the stream (%lld)",
		  (long long) BkAdwinWidth(a));
	CHECK(BkAdwinMean(a) == (double) ones / 20000.0, "the window's mean is exact for 0/1 values");
	BkAdwinFree(&bk_std_env, a);
}

static void
test_adwin_step(void)
{
	int64_t		changes,
				first;
	int			false_alarms = 0;
	BkDrift    *d;
	const BkDriftChange *c;

	/* five seeds of the stationary stream: no change in 50 000 rows */
	for (uint64_t seed = 1; seed <= 5; seed++)
	{
		d = detector("adwin", NULL, 0);
		(void) first_change(d, 50000, 0, seed, &changes);
		false_alarms += (int) changes;
		BkDriftFree(d);
	}
	CHECK(false_alarms == 0, "adwin: no change on stationary Bernoulli(0.1) (%d)", false_alarms);
	for (uint64_t seed = 1; seed <= 5; seed++)
	{
		d = detector("adwin", NULL, 0);
		first = first_change(d, 50000, 25001, seed, &changes);
		CHECK(first >= 25001 && first <= 26500,
			  "adwin: the step at 25 001 is found by row 26 500 (seed %d: %lld)",
			  (int) seed, (long long) first);
		c = BkDriftChangeAt(d, 0);
		CHECK(BkDriftKept(d) >= 1 && c->row == first, "the first change is kept with its row");
		/* what is left is mostly after the step: its mean is near 0.3 */
		CHECK(c->stat[0] < (double) first && c->stat[3] < c->stat[1],
			  "the cut dropped the older, lower part (width %g, mean %g, dropped mean %g)",
			  c->stat[0], c->stat[1], c->stat[3]);
		BkDriftFree(d);
	}
	/* clock 1 tests every row: it finds the step no later than every 32 */
	d = detector("adwin", "clock", 1);
	first = first_change(d, 30000, 25001, 1, &changes);
	{
		BkDrift    *d32 = detector("adwin", NULL, 0);
		int64_t		first32 = first_change(d32, 30000, 25001, 1, &changes);

		CHECK(first >= 25001 && first <= first32, "clock 1 detects no later (%lld, %lld)",
			  (long long) first, (long long) first32);
		BkDriftFree(d32);
	}
	BkDriftFree(d);
}

/*
 * Page-Hinkley against its definition computed from scratch at each row
 * (the sums over t <= T, not the running updates): 0s then 1s
 */
static void
test_page_hinkley(void)
{
	double		lambda = 5.0;
	BkPageHinkley ph;
	double		stat[BK_DRIFT_MAX_STATS];
	double		x[200];
	int			got = 0,
				want = 0;

	for (int i = 0; i < 200; i++)
		x[i] = i < 60 ? 0.0 : 1.0;
	BkPageHinkleyInit(&ph, 0.0, lambda, 1.0, 30);
	for (int T = 1; T <= 200 && got == 0; T++)
		if (BkPageHinkleyAdd(&ph, x[T - 1], stat))
			got = T;
	/* m_t = sum_{s<=t} (x_s - mean_s), mean_s over the first s values */
	{
		double		m = 0.0,
					minm = 0.0,
					sum = 0.0;

		for (int T = 1; T <= 200 && want == 0; T++)
		{
			sum += x[T - 1];
			m += x[T - 1] - sum / T;
			minm = m < minm ? m : minm;
			if (T >= 30 && m - minm > lambda)
				want = T;
		}
	}
	CHECK(got > 60 && got == want, "page_hinkley alarms where its definition does (%d, %d)",
		  got, want);

	/* its false alarms before the step aside (doc/drift.md) */
	for (uint64_t seed = 1; seed <= 5; seed++)
	{
		int64_t		changes,
					first;
		BkDrift    *d = detector("page_hinkley", NULL, 0);

		first = change_from(d, 50000, 25001, seed, 25001, &changes);
		CHECK(first >= 25001 && first <= 26500, "page_hinkley finds the step (seed %d: %lld)",
			  (int) seed, (long long) first);
		BkDriftFree(d);
	}
}

static void
test_ddm(void)
{
	int64_t		changes,
				first = 0;
	BkDrift    *d = NULL;
	jmp_buf		jb;
	volatile bool failed = false;
	const BkDriftChange *c;

	/*
	 * its false alarms before the step aside, and its slower detection
	 * when p_min + s_min was set low early on (doc/drift.md)
	 */
	for (uint64_t seed = 1; seed <= 5; seed++)
	{
		BkDriftFree(d);
		d = detector("ddm", NULL, 0);
		first = change_from(d, 50000, 25001, seed, 25001, &changes);
		CHECK(first >= 25001 && first <= 35000, "ddm finds the step (seed %d: %lld)",
			  (int) seed, (long long) first);
	}
	c = BkDriftChangeAt(d, 0);
	for (int k = 0; k < BkDriftKept(d); k++)
		if (BkDriftChangeAt(d, k)->row == first)
			c = BkDriftChangeAt(d, k);
	/* Gama et al. §3: the drift level, p + s beyond p_min + 3 s_min */
	CHECK(c->stat[0] + c->stat[1] > c->stat[2] + 3.0 * c->stat[3],
		  "the change is past the drift level");
	CHECK(!isfinite(c->stat[4]) || (c->stat[4] > 0 && c->stat[4] <= (double) c->row),
		  "a warning zone begins before its change");
	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
		(void) BkDriftAdd(d, 0.5);
	else
		failed = bk_std_last_code == BK_ERR_DATA;
	bk_std_jump = NULL;
	CHECK(failed, "ddm refuses a value other than 0 or 1");
	BkDriftFree(d);
}

static bool
param_fails(const char *key, BkParamInput *in, const char *method)
{
	BkDriftParams p;
	char		err[BK_ERRMSG_LEN];
	BkParamInput m;

	BkDriftParamsInit(&p);
	if (method != NULL)
	{
		memset(&m, 0, sizeof(m));
		m.type = BK_IN_STRING;
		m.string = method;
		if (!BkDriftParamsSet(&p, "method", &m, err, sizeof(err)))
			return true;
	}
	if (!BkDriftParamsSet(&p, key, in, err, sizeof(err)))
		return true;
	return !BkDriftParamsFinish(&p, err, sizeof(err));
}

static void
test_drift_params(void)
{
	BkParamInput in;
	BkDriftParams p;
	BkParamValue v[BK_MAX_PARAM_VALUES];
	char		err[BK_ERRMSG_LEN];
	int			n;
	jmp_buf		jb;
	volatile bool failed = false;
	BkDrift    *d;

	memset(&in, 0, sizeof(in));
	in.type = BK_IN_STRING;
	in.string = "cusum";
	CHECK(param_fails("method", &in, NULL), "an unknown method is refused");
	in.type = BK_IN_NUMBER;
	in.number = 0.0;
	CHECK(param_fails("delta", &in, NULL), "adwin's delta 0 is refused");
	in.number = 1.0;
	CHECK(param_fails("delta", &in, NULL), "adwin's delta 1 is refused");
	CHECK(!param_fails("delta", &in, "page_hinkley"), "page_hinkley's delta 1 is a tolerance");
	in.number = 0.5;
	CHECK(param_fails("clock", &in, NULL), "clock 0.5 is refused");
	in.number = 1.0;
	CHECK(param_fails("max_buckets", &in, NULL), "max_buckets 1 is refused");
	CHECK(param_fails("clock", &in, "ddm"), "a key of another method is refused");
	CHECK(param_fails("lambda", &in, "adwin"), "lambda is not adwin's");
	CHECK(param_fails("sigma", &in, NULL), "an unknown key is refused");
	in.type = BK_IN_STRING;
	in.string = "0.1";
	CHECK(param_fails("delta", &in, NULL), "a string delta is refused");

	BkDriftParamsInit(&p);
	CHECK(BkDriftParamsFinish(&p, err, sizeof(err)), "the defaults finish");
	CHECK(p.method == BK_DRIFT_ADWIN && p.delta == 0.002 && p.clock == 32 &&
		  p.max_buckets == 5 && p.min_window == 5, "adwin's defaults are MOA's");
	n = BkDriftParamsList(&p, v, BK_MAX_PARAM_VALUES);
	CHECK(n == 5 && strcmp(v[0].key, "delta") == 0 && v[0].number == 0.002,
		  "the list holds adwin's keys (%d)", n);

	/* at most max_changes changes are kept; every one is counted */
	memset(&in, 0, sizeof(in));
	in.type = BK_IN_NUMBER;
	in.number = 2;
	BkDriftParamsInit(&p);
	CHECK(BkDriftParamsSet(&p, "max_changes", &in, err, sizeof(err)), "%s", err);
	BkDriftParamsFinish(&p, err, sizeof(err));
	d = BkDriftNew(&bk_std_env, &p);
	for (int i = 0; i < 20000; i++)
		(void) BkDriftAdd(d, (i / 2000) % 2 == 0 ? 0.0 : 1.0);
	CHECK(BkDriftKept(d) == 2 && BkDriftDetected(d) >= 9,
		  "2 changes kept, every switch counted (%d, %lld)", BkDriftKept(d),
		  (long long) BkDriftDetected(d));
	BkDriftSkip(d);
	CHECK(BkDriftRows(d) == 20001 && BkDriftSkipped(d) == 1, "a NULL is a counted position");
	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
		(void) BkDriftAdd(d, NAN);
	else
		failed = bk_std_last_code == BK_ERR_DATA;
	bk_std_jump = NULL;
	CHECK(failed, "NaN is refused");
	BkDriftFree(d);
}

static bool
text_fails(BkDataDrift *d, int input)
{
	jmp_buf		jb;
	volatile bool failed = false;

	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
		BkDataDriftText(d, input, "big", 3);
	else
		failed = bk_std_last_code == BK_ERR_DATA;
	bk_std_jump = NULL;
	return failed;
}

/* feature drift: a preparation of "colour" (3 levels) and "size" */
static void
test_data_drift(void)
{
	BkPrepSpec	spec;
	BkPrepFit  *f;
	BkPrep	   *prep;
	BkRng		rng;
	BkDataDrift *d;
	BkDataDriftParams dp;
	BkDataDriftInput r;
	BkRunningSums train = {0, 0, 0},
				rows = {0, 0, 0};
	static const char *const lv[] = {"blue", "green", "red"};
	int			colour = -1,
				size = -1;
	double		tm,
				tsd,
				m,
				sd;

	BkRngSeed(&rng, 5);
	BkPrepSpecInit(&spec, true);
	f = BkPrepFitNew(&bk_std_env, &spec, true);
	for (int i = 0; i < 300; i++)
	{
		double		v = 10 * BkRngUniform(&rng);

		BkRunningSumsAdd(&train, v);
		BkPrepFitNumber(f, BkPrepFitKey(f, "size", 4), v);
		BkPrepFitText(f, BkPrepFitKey(f, "colour", 6), lv[i % 3], strlen(lv[i % 3]));
	}
	prep = BkPrepFitFinish(f, &bk_std_env);
	for (int i = 0; i < BkPrepInputs(prep); i++)
	{
		size_t		len;
		const char *name = BkPrepInputName(prep, i, &len);

		if (strcmp(name, "colour") == 0)
			colour = i;
		if (strcmp(name, "size") == 0)
			size = i;
	}
	CHECK(colour >= 0 && size >= 0, "the preparation has both inputs");
	d = BkDataDriftNew(&bk_std_env, prep);
	/* the rows: size shifted by +2, "red" and a new "pink" */
	for (int i = 0; i < 200; i++)
	{
		double		v = 2 + 10 * BkRngUniform(&rng);

		BkDataDriftRow(d);
		if (i % 10 == 0)
			BkDataDriftMissing(d, size);
		else
		{
			BkRunningSumsAdd(&rows, v);
			BkDataDriftNumber(d, size, v);
		}
		BkDataDriftText(d, colour, i % 4 == 0 ? "pink" : "red", i % 4 == 0 ? 4 : 3);
	}
	BkDataDriftParamsInit(&dp);
	BkDataDriftResult(d, &dp, size, &r);
	BkRunningSumsMoments(&train, &tm, &tsd);
	BkRunningSumsMoments(&rows, &m, &sd);
	CHECK(r.kind == BK_INPUT_NUMERIC && r.values == 180 && r.missing == 20,
		  "size: 180 values, 20 missing");
	CHECK(r.train_mean == tm && r.train_sd == tsd && r.mean == m && r.sd == sd,
		  "size: the training statistics are the preparation's, the rows' their own");
	CHECK(r.mean_shift == (m - tm) / tsd && r.mean_shift > 0.5 && r.moved,
		  "size: a shift of about 0.7 sd moved (%g)", r.mean_shift);
	CHECK(r.z == r.mean_shift * sqrt(180.0), "size: z = d sqrt(n)");
	CHECK(fabs(r.sd_z - log(r.sd_ratio) * sqrt(358.0)) < 1e-12, "size: sd_z = ln(ratio) sqrt(2 (n - 1))");
	dp.z = 100.0;
	BkDataDriftResult(d, &dp, size, &r);
	CHECK(!r.moved, "size: a shift within z = 100 noise did not move");
	BkDataDriftParamsInit(&dp);
	BkDataDriftResult(d, &dp, colour, &r);
	CHECK(r.kind == BK_INPUT_CATEGORICAL && r.n_levels == 3 && r.unseen == 50 &&
		  r.level_counts[2] == 150 && r.level_counts[0] == 0 && r.unseen_share == 0.25 &&
		  r.moved, "colour: 150 red, 50 unseen of 200");
	dp.unseen = 0.3;
	BkDataDriftResult(d, &dp, colour, &r);
	CHECK(!r.moved, "colour: under the unseen threshold it did not move");
	CHECK(text_fails(d, size), "text for a numeric input is refused");
	BkDataDriftFree(d);

	/* rows from the training distribution do not move */
	d = BkDataDriftNew(&bk_std_env, prep);
	BkRngSeed(&rng, 5);
	for (int i = 0; i < 300; i++)
	{
		BkDataDriftRow(d);
		BkDataDriftNumber(d, size, 10 * BkRngUniform(&rng));
		BkDataDriftText(d, colour, lv[i % 3], strlen(lv[i % 3]));
	}
	BkDataDriftParamsInit(&dp);
	BkDataDriftResult(d, &dp, size, &r);
	CHECK(!r.moved && r.mean_shift == 0.0 && r.sd_ratio == 1.0,
		  "the training rows themselves: no shift (%g, %g)", r.mean_shift, r.sd_ratio);
	BkDataDriftResult(d, &dp, colour, &r);
	CHECK(!r.moved && r.unseen == 0 && r.level_counts[1] == 100, "the training levels: none unseen");
	BkDataDriftFree(d);
	BkPrepFree(&bk_std_env, prep);
}

void
test_drift(void)
{
	test_adwin_histogram();
	test_adwin_step();
	test_page_hinkley();
	test_ddm();
	test_drift_params();
	test_data_drift();
}
