/*
 * bk_drift.c
 *	  A change detector over a stream of values, whichever the method:
 *	  its parameters (the keys of bk_drift's jsonb document, their rules
 *	  and defaults), the detector (bk_adwin.c, bk_page_hinkley.c,
 *	  bk_ddm.c: each cites its paper), the positions of the values, and the
 *	  changes kept for the report.
 *
 * Memory is fixed at creation whatever the stream's length: the detector
 * (ADWIN: 64 (M + 1) buckets; the others a few numbers) and at most
 * max_changes changes (the later ones are counted, not kept).
 */
#include "bk_detect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* the parameter keys; bit k of BkDriftParams.given is key k */
enum
{
	KEY_METHOD,
	KEY_DELTA,
	KEY_CLOCK,
	KEY_MAX_BUCKETS,
	KEY_MIN_WINDOW,
	KEY_LAMBDA,
	KEY_ALPHA,
	KEY_MIN_ROWS,
	KEY_MAX_CHANGES,
	N_KEYS
};

#define M_ADWIN (1u << BK_DRIFT_ADWIN)
#define M_PH	(1u << BK_DRIFT_PAGE_HINKLEY)
#define M_DDM	(1u << BK_DRIFT_DDM)
#define M_ALL	(M_ADWIN | M_PH | M_DDM)

typedef struct DriftKey
{
	const char *name;
	unsigned	methods;		/* the methods that take it */
	bool		integer;
	double		lo,
				hi;				/* the range, lo and hi included unless open */
	bool		lo_open,
				hi_open;
} DriftKey;

static const DriftKey keys[N_KEYS] = {
	[KEY_METHOD] = {"method", M_ALL, false, 0, 0, false, false},
	/* adwin: a confidence in (0, 1); page_hinkley: a magnitude >= 0 (below) */
	[KEY_DELTA] = {"delta", M_ADWIN | M_PH, false, 0, 1e300, false, false},
	[KEY_CLOCK] = {"clock", M_ADWIN, true, 1, 1000000, false, false},
	[KEY_MAX_BUCKETS] = {"max_buckets", M_ADWIN, true, 2, BK_ADWIN_MAX_BUCKETS, false, false},
	[KEY_MIN_WINDOW] = {"min_window", M_ADWIN, true, 1, 1000000, false, false},
	[KEY_LAMBDA] = {"lambda", M_PH, false, 0, 1e300, true, false},
	[KEY_ALPHA] = {"alpha", M_PH, false, 0, 1, true, false},
	[KEY_MIN_ROWS] = {"min_rows", M_PH | M_DDM, true, 1, 1000000000, false, false},
	[KEY_MAX_CHANGES] = {"max_changes", M_ALL, true, 0, BK_DRIFT_MAX_KEPT, false, false},
};

static const char *const method_names[] = {
	[BK_DRIFT_ADWIN] = "adwin",
	[BK_DRIFT_PAGE_HINKLEY] = "page_hinkley",
	[BK_DRIFT_DDM] = "ddm",
};

#define N_METHODS 3

const char *
BkDriftMethodName(int method)
{
	return method >= 1 && method <= N_METHODS ? method_names[method] : "?";
}

void
BkDriftParamsInit(BkDriftParams *p)
{
	memset(p, 0, sizeof(*p));
	p->method = BK_DRIFT_ADWIN;
}

/* the range of key k as text: "from 1 to 100", "in (0, 1]" */
static void
range_text(const DriftKey *k, char *buf, size_t len)
{
	if (k->integer)
		snprintf(buf, len, "an integer from %.0f to %.0f", k->lo, k->hi);
	else if (k->hi >= 1e300)
		snprintf(buf, len, "a number %s %g", k->lo_open ? ">" : ">=", k->lo);
	else
		snprintf(buf, len, "a number in %c%g, %g%c", k->lo_open ? '(' : '[', k->lo,
				 k->hi, k->hi_open ? ')' : ']');
}

bool
BkDriftParamsSet(BkDriftParams *p, const char *key, const BkParamInput *in,
				 char *err, size_t errlen)
{
	int			k;
	const DriftKey *d;
	double		v;

	for (k = 0; k < N_KEYS; k++)
		if (strcmp(key, keys[k].name) == 0)
			break;
	if (k == N_KEYS)
	{
		snprintf(err, errlen, "unknown parameter \"%s\" (bk_drift takes method, delta, "
				 "clock, max_buckets, min_window, lambda, alpha, min_rows, max_changes)", key);
		return false;
	}
	d = &keys[k];
	if (k == KEY_METHOD)
	{
		int			m;

		for (m = 1; m <= N_METHODS; m++)
			if (in->type == BK_IN_STRING && strcmp(in->string, method_names[m]) == 0)
				break;
		if (m > N_METHODS)
		{
			snprintf(err, errlen, "method must be \"adwin\", \"page_hinkley\" or \"ddm\"%s%s%s",
					 in->type == BK_IN_STRING ? ", not \"" : "",
					 in->type == BK_IN_STRING ? in->string : "",
					 in->type == BK_IN_STRING ? "\"" : "");
			return false;
		}
		p->method = m;
		p->given |= 1u << k;
		return true;
	}
	v = in->number;
	if (in->type != BK_IN_NUMBER || !isfinite(v) ||
		(d->integer && v != floor(v)) ||
		v < d->lo || v > d->hi || (d->lo_open && v == d->lo) || (d->hi_open && v == d->hi))
	{
		char		range[96];

		range_text(d, range, sizeof(range));
		snprintf(err, errlen, "%s must be %s", key, range);
		return false;
	}
	switch (k)
	{
		case KEY_DELTA:
			p->delta = v;
			break;
		case KEY_CLOCK:
			p->clock = (int) v;
			break;
		case KEY_MAX_BUCKETS:
			p->max_buckets = (int) v;
			break;
		case KEY_MIN_WINDOW:
			p->min_window = (int) v;
			break;
		case KEY_LAMBDA:
			p->lambda = v;
			break;
		case KEY_ALPHA:
			p->alpha = v;
			break;
		case KEY_MIN_ROWS:
			p->min_rows = (int) v;
			break;
		case KEY_MAX_CHANGES:
			p->max_changes = (int) v;
			break;
	}
	p->given |= 1u << k;
	return true;
}

static bool
given(const BkDriftParams *p, int k)
{
	return (p->given & (1u << k)) != 0;
}

bool
BkDriftParamsFinish(BkDriftParams *p, char *err, size_t errlen)
{
	unsigned	mbit = 1u << p->method;

	for (int k = 0; k < N_KEYS; k++)
		if (given(p, k) && !(keys[k].methods & mbit))
		{
			snprintf(err, errlen, "%s does not apply to method \"%s\"", keys[k].name,
					 BkDriftMethodName(p->method));
			return false;
		}
	/* ADWIN's delta is a confidence: in (0, 1) */
	if (p->method == BK_DRIFT_ADWIN && given(p, KEY_DELTA) &&
		!(p->delta > 0.0 && p->delta < 1.0))
	{
		snprintf(err, errlen, "delta of method \"adwin\" must be a number in (0, 1)");
		return false;
	}
	if (!given(p, KEY_DELTA))
		p->delta = p->method == BK_DRIFT_ADWIN ? 0.002 : 0.005;
	if (!given(p, KEY_CLOCK))
		p->clock = 32;
	if (!given(p, KEY_MAX_BUCKETS))
		p->max_buckets = 5;
	if (!given(p, KEY_MIN_WINDOW))
		p->min_window = 5;
	if (!given(p, KEY_LAMBDA))
		p->lambda = 50.0;
	if (!given(p, KEY_ALPHA))
		p->alpha = 1.0 - 0.0001;
	if (!given(p, KEY_MIN_ROWS))
		p->min_rows = 30;
	if (!given(p, KEY_MAX_CHANGES))
		p->max_changes = BK_DRIFT_DEFAULT_KEPT;
	return true;
}

int
BkDriftParamsList(const BkDriftParams *p, BkParamValue *out, int maxout)
{
	int			n = 0;

	for (int k = KEY_METHOD + 1; k < N_KEYS && n < maxout; k++)
	{
		double		v;

		if (!(keys[k].methods & (1u << p->method)))
			continue;
		switch (k)
		{
			case KEY_DELTA:
				v = p->delta;
				break;
			case KEY_CLOCK:
				v = p->clock;
				break;
			case KEY_MAX_BUCKETS:
				v = p->max_buckets;
				break;
			case KEY_MIN_WINDOW:
				v = p->min_window;
				break;
			case KEY_LAMBDA:
				v = p->lambda;
				break;
			case KEY_ALPHA:
				v = p->alpha;
				break;
			case KEY_MIN_ROWS:
				v = p->min_rows;
				break;
			default:
				v = p->max_changes;
				break;
		}
		memset(&out[n], 0, sizeof(out[n]));
		out[n].key = keys[k].name;
		out[n].is_integer = keys[k].integer;
		out[n].number = v;
		n++;
	}
	return n;
}

struct BkDrift
{
	const BkEnv *env;
	BkDriftParams params;
	int64_t		rows;			/* positions seen, NULLs included */
	int64_t		skipped;
	int64_t		detected;
	int			kept;
	int			cap;
	BkDriftChange *changes;
	BkAdwin    *adwin;
	BkPageHinkley ph;
	BkDdm		ddm;
};

BkDrift *
BkDriftNew(const BkEnv *env, const BkDriftParams *p)
{
	BkDrift    *d = BkAllocArray(env, 1, sizeof(BkDrift));

	d->env = env;
	d->params = *p;
	switch (p->method)
	{
		case BK_DRIFT_ADWIN:
			d->adwin = BkAdwinNew(env, p->delta, p->max_buckets, p->clock, p->min_window);
			break;
		case BK_DRIFT_PAGE_HINKLEY:
			BkPageHinkleyInit(&d->ph, p->delta, p->lambda, p->alpha, p->min_rows);
			break;
		case BK_DRIFT_DDM:
			BkDdmInit(&d->ddm, p->min_rows);
			break;
		default:
			BkRaise(env, BK_ERR_INTERNAL, NULL, "unknown drift method %d", p->method);
	}
	return d;
}

void
BkDriftFree(BkDrift *d)
{
	if (d == NULL)
		return;
	BkAdwinFree(d->env, d->adwin);
	BkFree(d->env, d->changes);
	BkFree(d->env, d);
}

/* keep a change while there is room (the capacity doubles up to max_changes) */
static void
keep(BkDrift *d, const BkDriftChange *c)
{
	d->detected++;
	if (d->kept >= d->params.max_changes)
		return;
	if (d->kept == d->cap)
	{
		int			cap = d->cap == 0 ? 16 : 2 * d->cap;

		if (cap > d->params.max_changes)
			cap = d->params.max_changes;
		d->changes = BkReallocArray(d->env, d->changes, (size_t) cap, sizeof(BkDriftChange));
		d->cap = cap;
	}
	d->changes[d->kept++] = *c;
}

bool
BkDriftAdd(BkDrift *d, double x)
{
	BkDriftChange c;
	bool		change = false;

	d->rows++;
	if (!isfinite(x))
		BkRaise(d->env, BK_ERR_DATA, NULL, "the value at row %lld is %s",
				(long long) d->rows, isnan(x) ? "NaN" : (x > 0 ? "Infinity" : "-Infinity"));
	memset(&c, 0, sizeof(c));
	c.row = d->rows;
	switch (d->params.method)
	{
		case BK_DRIFT_ADWIN:
			change = BkAdwinAdd(d->adwin, x, c.stat);
			break;
		case BK_DRIFT_PAGE_HINKLEY:
			change = BkPageHinkleyAdd(&d->ph, x, c.stat);
			break;
		case BK_DRIFT_DDM:
			if (x != 0.0 && x != 1.0)
				BkRaiseHint(d->env, BK_ERR_DATA, NULL,
							"Method \"ddm\" watches an error indicator; use \"adwin\" or \"page_hinkley\" for other values.",
							"the value at row %lld is %g; method \"ddm\" takes 0 or 1",
							(long long) d->rows, x);
			change = BkDdmAdd(&d->ddm, x, d->rows, c.stat);
			break;
	}
	if (change)
		keep(d, &c);
	return change;
}

void
BkDriftSkip(BkDrift *d)
{
	d->rows++;
	d->skipped++;
}

int64_t
BkDriftRows(const BkDrift *d)
{
	return d->rows;
}

int64_t
BkDriftSkipped(const BkDrift *d)
{
	return d->skipped;
}

int64_t
BkDriftDetected(const BkDrift *d)
{
	return d->detected;
}

int
BkDriftKept(const BkDrift *d)
{
	return d->kept;
}

const BkDriftChange *
BkDriftChangeAt(const BkDrift *d, int i)
{
	return &d->changes[i];
}

int
BkDriftChangeStats(int method, const char *const **names)
{
	switch (method)
	{
		case BK_DRIFT_ADWIN:
			*names = bk_adwin_change_stats;
			return BK_ADWIN_CHANGE_STATS;
		case BK_DRIFT_PAGE_HINKLEY:
			*names = bk_page_hinkley_change_stats;
			return BK_PAGE_HINKLEY_CHANGE_STATS;
		default:
			*names = bk_ddm_change_stats;
			return BK_DDM_CHANGE_STATS;
	}
}

static const char *const adwin_state[] = {"width", "mean", "buckets"};
static const char *const ph_state[] = {"rows", "mean", "ph"};
static const char *const ddm_state[] = {"rows", "error_rate", "warning_row"};

int
BkDriftState(const BkDrift *d, const char *const **names, double *vals)
{
	switch (d->params.method)
	{
		case BK_DRIFT_ADWIN:
			*names = adwin_state;
			vals[0] = (double) BkAdwinWidth(d->adwin);
			vals[1] = BkAdwinMean(d->adwin);
			vals[2] = (double) BkAdwinBuckets(d->adwin);
			return 3;
		case BK_DRIFT_PAGE_HINKLEY:
			*names = ph_state;
			vals[0] = (double) d->ph.n;
			vals[1] = d->ph.mean;
			vals[2] = d->ph.sum - d->ph.min_sum;
			return 3;
		default:
			*names = ddm_state;
			vals[0] = (double) d->ddm.n;
			vals[1] = d->ddm.n > 0 ? (double) d->ddm.errors / (double) d->ddm.n : NAN;
			vals[2] = d->ddm.warning_row > 0 ? (double) d->ddm.warning_row : NAN;
			return 3;
	}
}
