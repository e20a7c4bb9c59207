/*
 * bk_regression_metrics.c
 *	  bk_metrics(actual float8, predicted float8): a regression report as
 *	  jsonb — rows, the root mean squared error, the mean absolute error,
 *	  R^2 (1 - SSE / SST, as scikit-learn's r2_score), the largest absolute
 *	  error, the mean error (predicted - actual) and the actual values'
 *	  mean and standard deviation.  PARALLEL SAFE: the state is a few
 *	  sums, the actual values' spread kept by Welford's update and pooled
 *	  by Chan, Golub and LeVeque's formula (combine).
 *
 *	  Two int2 columns reach this form too (int4 ones have a form of their
 *	  own; for int2 PostgreSQL prefers float8 to int4 and int8): class
 *	  labels compared as numbers would give a report of the wrong kind, so
 *	  that is an error that says which cast to write.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "bk_pg.h"
#include "bk_label.h"

PG_FUNCTION_INFO_V1(bk_regression_metrics_trans);
PG_FUNCTION_INFO_V1(bk_regression_metrics_combine);
PG_FUNCTION_INFO_V1(bk_regression_metrics_serialize);
PG_FUNCTION_INFO_V1(bk_regression_metrics_deserialize);
PG_FUNCTION_INFO_V1(bk_regression_metrics_final);

typedef struct RegressionState
{
	int64		rows;
	int64		skipped;		/* a NULL actual or predicted value */
	double		sse;			/* sum of (predicted - actual)^2 */
	double		sae;			/* sum of |predicted - actual| */
	double		se;				/* sum of predicted - actual */
	double		max_error;
	double		mean;			/* of the actual values */
	double		m2;				/* their sum of squared deviations from it */
} RegressionState;

static RegressionState *
get_state(FunctionCallInfo fcinfo)
{
	MemoryContext agg;

	if (!AggCheckCallContext(fcinfo, &agg))
		elog(ERROR, "bk_metrics called in non-aggregate context");
	if (!PG_ARGISNULL(0))
		return (RegressionState *) PG_GETARG_POINTER(0);
	if (BkPgArgCastFromInteger(fcinfo, 0) && BkPgArgCastFromInteger(fcinfo, 1))
		ereport(ERROR,
				(errcode(ERRCODE_AMBIGUOUS_FUNCTION),
				 errmsg("bk_metrics: both columns are integers, and PostgreSQL passed them as float8 (a regression report)"),
				 errhint("For class labels cast one of them to int8, for example bk_metrics(actual::int8, predicted); for numbers, cast them to float8.")));
	return (RegressionState *) MemoryContextAllocZero(agg, sizeof(RegressionState));
}

/* count one row of non-NULL values */
static void
regression_row(RegressionState *s, double actual, double predicted)
{
	double		e,
				d;

	e = predicted - actual;
	if (!isfinite(e) || !isfinite(e * e))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bk_metrics: row %lld has actual %g and predicted %g, whose error is not finite",
						(long long) (s->rows + s->skipped + 1), actual, predicted)));
	s->rows++;
	s->sse += e * e;
	s->sae += fabs(e);
	s->se += e;
	if (fabs(e) > s->max_error)
		s->max_error = fabs(e);
	d = actual - s->mean;
	s->mean += d / (double) s->rows;
	s->m2 += d * (actual - s->mean);
}

Datum
bk_regression_metrics_trans(PG_FUNCTION_ARGS)
{
	RegressionState *s = get_state(fcinfo);
	double		actual,
				predicted;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		s->skipped++;
		PG_RETURN_POINTER(s);
	}
	actual = PG_GETARG_FLOAT8(1);
	predicted = PG_GETARG_FLOAT8(2);
	regression_row(s, actual, predicted);
	PG_RETURN_POINTER(s);
}

/*
 * bk_metrics over bk_label (bk_metrics_label.c): a new state, one row, or
 * rows skipped
 */
void *
BkPgRegressionMetricsNew(MemoryContext agg)
{
	return MemoryContextAllocZero(agg, sizeof(RegressionState));
}

void
BkPgRegressionMetricsRow(void *state, double actual, double predicted)
{
	regression_row((RegressionState *) state, actual, predicted);
}

void
BkPgRegressionMetricsSkip(void *state, int64 n)
{
	((RegressionState *) state)->skipped += n;
}

Datum
bk_regression_metrics_combine(PG_FUNCTION_ARGS)
{
	MemoryContext agg;
	RegressionState *a;
	RegressionState *b;
	double		na,
				nb,
				d;

	if (!AggCheckCallContext(fcinfo, &agg))
		elog(ERROR, "bk_metrics called in non-aggregate context");
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(PG_ARGISNULL(0) ? NULL : PG_GETARG_POINTER(0));
	b = (RegressionState *) PG_GETARG_POINTER(1);
	if (PG_ARGISNULL(0))
	{
		a = (RegressionState *) MemoryContextAlloc(agg, sizeof(RegressionState));
		*a = *b;
		PG_RETURN_POINTER(a);
	}
	a = (RegressionState *) PG_GETARG_POINTER(0);
	na = (double) a->rows;
	nb = (double) b->rows;
	if (na + nb > 0)
	{
		d = b->mean - a->mean;
		a->m2 += b->m2 + d * d * na * nb / (na + nb);
		a->mean += d * nb / (na + nb);
	}
	a->rows += b->rows;
	a->skipped += b->skipped;
	a->sse += b->sse;
	a->sae += b->sae;
	a->se += b->se;
	a->max_error = Max(a->max_error, b->max_error);
	PG_RETURN_POINTER(a);
}

Datum
bk_regression_metrics_serialize(PG_FUNCTION_ARGS)
{
	RegressionState *s = (RegressionState *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint64(&buf, s->rows);
	pq_sendint64(&buf, s->skipped);
	pq_sendfloat8(&buf, s->sse);
	pq_sendfloat8(&buf, s->sae);
	pq_sendfloat8(&buf, s->se);
	pq_sendfloat8(&buf, s->max_error);
	pq_sendfloat8(&buf, s->mean);
	pq_sendfloat8(&buf, s->m2);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
bk_regression_metrics_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;
	RegressionState *s = (RegressionState *) palloc(sizeof(RegressionState));

	buf.data = VARDATA_ANY(in);
	buf.len = VARSIZE_ANY_EXHDR(in);
	buf.maxlen = buf.len;
	buf.cursor = 0;
	s->rows = pq_getmsgint64(&buf);
	s->skipped = pq_getmsgint64(&buf);
	s->sse = pq_getmsgfloat8(&buf);
	s->sae = pq_getmsgfloat8(&buf);
	s->se = pq_getmsgfloat8(&buf);
	s->max_error = pq_getmsgfloat8(&buf);
	s->mean = pq_getmsgfloat8(&buf);
	s->m2 = pq_getmsgfloat8(&buf);
	pq_getmsgend(&buf);
	PG_RETURN_POINTER(s);
}

/* the report; NULL when no row had both values */
Datum
bk_regression_metrics_final(PG_FUNCTION_ARGS)
{
	RegressionState *s;
	JsonbParseState *ps = NULL;
	JsonbValue *res;
	double		n;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "bk_metrics called in non-aggregate context");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (RegressionState *) PG_GETARG_POINTER(0);
	if (s->rows == 0)
		PG_RETURN_NULL();
	n = (double) s->rows;

	pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
	bk_push_key(&ps, "rows");
	bk_push_int64(&ps, WJB_VALUE, s->rows);
	bk_push_key(&ps, "rows_skipped");
	bk_push_int64(&ps, WJB_VALUE, s->skipped);
	bk_push_key(&ps, "rmse");
	bk_push_double(&ps, WJB_VALUE, sqrt(s->sse / n));
	bk_push_key(&ps, "mae");
	bk_push_double(&ps, WJB_VALUE, s->sae / n);
	/* scikit-learn's r2_score: undefined (null) for a constant actual column */
	bk_push_key(&ps, "r2");
	if (s->m2 > 0.0)
		bk_push_double(&ps, WJB_VALUE, 1.0 - s->sse / s->m2);
	else
		bk_push_null(&ps, WJB_VALUE);
	bk_push_key(&ps, "max_error");
	bk_push_double(&ps, WJB_VALUE, s->max_error);
	bk_push_key(&ps, "mean_error");
	bk_push_double(&ps, WJB_VALUE, s->se / n);
	bk_push_key(&ps, "actual_mean");
	bk_push_double(&ps, WJB_VALUE, s->mean);
	bk_push_key(&ps, "actual_sd");
	bk_push_double(&ps, WJB_VALUE, sqrt(s->m2 / n));
	res = pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(res));
}
