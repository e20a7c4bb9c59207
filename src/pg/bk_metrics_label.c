/*
 * bk_metrics_label.c
 *	  bk_metrics(actual bk_label, predicted bk_label [, score | probabilities]):
 *	  one aggregate for the classification report (bk_metrics.c) and the
 *	  regression report (bk_regression_metrics.c).
 *
 * The labels' kind chooses the report, from the first row with both
 * labels: a float8 or numeric label on either side makes a regression
 * report (as the float8 form did before 0.4.0), two integers or two texts
 * a classification report.  The state wraps the chosen report's state;
 * combine, serialize, deserialize and final call the report's own
 * functions, with this call's aggregate context.
 */
#include "postgres.h"

#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"

#include "bk_pg.h"
#include "bk_label.h"

PG_FUNCTION_INFO_V1(bk_label_metrics_trans);
PG_FUNCTION_INFO_V1(bk_label_metrics_combine);
PG_FUNCTION_INFO_V1(bk_label_metrics_serialize);
PG_FUNCTION_INFO_V1(bk_label_metrics_deserialize);
PG_FUNCTION_INFO_V1(bk_label_metrics_final);

/* the reports' own support functions (bk_metrics.c, bk_regression_metrics.c) */
extern Datum bk_metrics_combine(PG_FUNCTION_ARGS);
extern Datum bk_metrics_serialize(PG_FUNCTION_ARGS);
extern Datum bk_metrics_deserialize(PG_FUNCTION_ARGS);
extern Datum bk_regression_metrics_combine(PG_FUNCTION_ARGS);
extern Datum bk_regression_metrics_serialize(PG_FUNCTION_ARGS);
extern Datum bk_regression_metrics_deserialize(PG_FUNCTION_ARGS);

#define REPORT_NONE 'u'			/* no row with both labels yet */
#define REPORT_CLASSES 'c'
#define REPORT_TEXT_CLASSES 't'
#define REPORT_REGRESSION 'r'

typedef struct LabelMetrics
{
	char		report;			/* REPORT_* */
	int			extra;			/* 0: none, 1: a score, 2: probabilities */
	int64		skipped;		/* rows skipped before the report was chosen */
	void	   *inner;			/* the report's state */
} LabelMetrics;

/* call a report's support function with this call's context */
static Datum
forward(PGFunction fn, FunctionCallInfo fcinfo, int nargs, Datum a0, bool n0,
		Datum a1, bool n1, bool *isnull)
{
	LOCAL_FCINFO(inner, 2);
	Datum		result;

	InitFunctionCallInfoData(*inner, NULL, nargs, InvalidOid, fcinfo->context, NULL);
	inner->args[0].value = a0;
	inner->args[0].isnull = n0;
	inner->args[1].value = a1;
	inner->args[1].isnull = n1;
	result = fn(inner);
	*isnull = inner->isnull;
	return result;
}

static void
skip(LabelMetrics *s, int64 n)
{
	if (s->report == REPORT_NONE)
		s->skipped += n;
	else if (s->report == REPORT_REGRESSION)
		BkPgRegressionMetricsSkip(s->inner, n);
	else
		BkPgMetricsSkip(s->inner, n);
}

/* the report of a row's two labels (the first row that has both) */
static char
report_of(const BkLabel *a, const BkLabel *p, int extra)
{
	if (BkPgLabelKindIsReal(a->kind) || BkPgLabelKindIsReal(p->kind))
	{
		if (extra != 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("bk_metrics: a score or probabilities make a classification report, and the labels are %s and %s numbers (a regression report)",
							BkPgLabelKindName(a->kind), BkPgLabelKindName(p->kind)),
					 errhint("For class labels pass integers or text, for example bk_metrics(actual::int8, predicted, score).")));
		return REPORT_REGRESSION;
	}
	if (a->kind != p->kind)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("bk_metrics: the actual label is %s and the predicted one %s",
						BkPgLabelKindName(a->kind), BkPgLabelKindName(p->kind)),
				 errhint("Compare labels of one kind: bk_predict gives integer labels, bk_predict_label text ones.")));
	return a->kind == BK_LABEL_TEXT ? REPORT_TEXT_CLASSES : REPORT_CLASSES;
}

/* a label as the report reads it: an int8 or text Datum, or a number */
static Datum
label_datum(LabelMetrics *s, const BkLabel *l)
{
	bool		ok = s->report == REPORT_TEXT_CLASSES ? l->kind == BK_LABEL_TEXT :
		s->report == REPORT_CLASSES ? l->kind == BK_LABEL_INT : l->kind != BK_LABEL_TEXT;

	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("bk_metrics: a label is %s, and the report's labels are %s",
						BkPgLabelKindName(l->kind),
						s->report == REPORT_TEXT_CLASSES ? "text" :
						s->report == REPORT_CLASSES ? "integers" : "numbers")));
	if (l->kind == BK_LABEL_TEXT)
		return PointerGetDatum(l->t);
	if (s->report == REPORT_CLASSES)
		return Int64GetDatum(l->i);
	return Float8GetDatum(l->kind == BK_LABEL_INT ? (double) l->i : l->f);
}

Datum
bk_label_metrics_trans(PG_FUNCTION_ARGS)
{
	MemoryContext agg;
	LabelMetrics *s;
	BkLabel		a,
				p;

	if (!AggCheckCallContext(fcinfo, &agg))
		elog(ERROR, "bk_label_metrics_trans called in non-aggregate context");
	if (PG_ARGISNULL(0))
	{
		BkPgCheckNargs(fcinfo, "bk_metrics");
		if (PG_NARGS() < 3)
			elog(ERROR, "bk_label_metrics_trans: called with %d arguments", PG_NARGS());
		s = MemoryContextAllocZero(agg, sizeof(LabelMetrics));
		s->report = REPORT_NONE;
		s->extra = PG_NARGS() < 4 ? 0 :
			BkPgArgType(fcinfo, 3) == FLOAT8ARRAYOID ? 2 : 1;
	}
	else
		s = (LabelMetrics *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || (s->extra != 0 && PG_ARGISNULL(3)))
	{
		skip(s, 1);
		PG_RETURN_POINTER(s);
	}
	BkPgLabelRead(PG_GETARG_DATUM(1), &a);
	BkPgLabelRead(PG_GETARG_DATUM(2), &p);
	if (s->report == REPORT_NONE)
	{
		s->report = report_of(&a, &p, s->extra);
		s->inner = s->report == REPORT_REGRESSION ? BkPgRegressionMetricsNew(agg) :
			BkPgMetricsNew(agg, s->report == REPORT_TEXT_CLASSES, s->extra);
		{
			int64		pending = s->skipped;

			s->skipped = 0;
			skip(s, pending);
		}
	}
	if (s->report == REPORT_REGRESSION)
		BkPgRegressionMetricsRow(s->inner,
								 DatumGetFloat8(label_datum(s, &a)),
								 DatumGetFloat8(label_datum(s, &p)));
	else
		BkPgMetricsRow(s->inner, agg, label_datum(s, &a), label_datum(s, &p),
					   s->extra != 0 ? PG_GETARG_DATUM(3) : (Datum) 0);
	PG_RETURN_POINTER(s);
}

Datum
bk_label_metrics_combine(PG_FUNCTION_ARGS)
{
	MemoryContext agg;
	LabelMetrics *a,
			   *b;
	bool		isnull;

	if (!AggCheckCallContext(fcinfo, &agg))
		elog(ERROR, "bk_label_metrics_combine called in non-aggregate context");
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	b = (LabelMetrics *) PG_GETARG_POINTER(1);
	if (PG_ARGISNULL(0))
	{
		a = MemoryContextAllocZero(agg, sizeof(LabelMetrics));
		a->report = REPORT_NONE;
		a->extra = b->extra;
	}
	else
		a = (LabelMetrics *) PG_GETARG_POINTER(0);
	if (b->report == REPORT_NONE)
	{
		skip(a, b->skipped);
		PG_RETURN_POINTER(a);
	}
	if (a->report != REPORT_NONE && a->report != b->report)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("bk_metrics: the parts of a parallel plan saw labels of different kinds")));
	if (a->report == REPORT_NONE)
	{
		int64		pending = a->skipped;

		a->report = b->report;
		a->skipped = 0;
		a->inner = (void *) DatumGetPointer(
			forward(a->report == REPORT_REGRESSION ? bk_regression_metrics_combine : bk_metrics_combine,
					fcinfo, 2, (Datum) 0, true, PointerGetDatum(b->inner), false, &isnull));
		skip(a, pending);
	}
	else
		a->inner = (void *) DatumGetPointer(
			forward(a->report == REPORT_REGRESSION ? bk_regression_metrics_combine : bk_metrics_combine,
					fcinfo, 2, PointerGetDatum(a->inner), false, PointerGetDatum(b->inner), false,
					&isnull));
	PG_RETURN_POINTER(a);
}

/* the state as bytes: the report, the extra argument, the rows skipped, the report's bytes */
Datum
bk_label_metrics_serialize(PG_FUNCTION_ARGS)
{
	LabelMetrics *s = (LabelMetrics *) PG_GETARG_POINTER(0);
	StringInfoData buf;
	bool		isnull;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, s->report);
	pq_sendbyte(&buf, s->extra);
	pq_sendint64(&buf, s->skipped);
	if (s->report != REPORT_NONE)
	{
		bytea	   *inner = DatumGetByteaPP(
			forward(s->report == REPORT_REGRESSION ? bk_regression_metrics_serialize : bk_metrics_serialize,
					fcinfo, 1, PointerGetDatum(s->inner), false, (Datum) 0, true, &isnull));

		pq_sendbytes(&buf, VARDATA_ANY(inner), VARSIZE_ANY_EXHDR(inner));
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
bk_label_metrics_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *bytes = PG_GETARG_BYTEA_PP(0);
	MemoryContext agg;
	LabelMetrics *s;
	const char *p = VARDATA_ANY(bytes);
	Size		len = VARSIZE_ANY_EXHDR(bytes);
	bool		isnull;

	if (!AggCheckCallContext(fcinfo, &agg))
		elog(ERROR, "bk_label_metrics_deserialize called in non-aggregate context");
	if (len < 10 || (p[0] != REPORT_NONE && p[0] != REPORT_CLASSES &&
					 p[0] != REPORT_TEXT_CLASSES && p[0] != REPORT_REGRESSION) ||
		p[1] < 0 || p[1] > 2 || (p[0] == REPORT_NONE) != (len == 10))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid partial bk_metrics state")));
	s = MemoryContextAllocZero(agg, sizeof(LabelMetrics));
	s->report = p[0];
	s->extra = p[1];
	{
		StringInfoData buf;

		buf.data = (char *) p + 2;
		buf.len = 8;
		buf.maxlen = 8;
		buf.cursor = 0;
		s->skipped = pq_getmsgint64(&buf);
	}
	if (s->report != REPORT_NONE)
	{
		bytea	   *inner = (bytea *) palloc(VARHDRSZ + len - 10);

		SET_VARSIZE(inner, VARHDRSZ + len - 10);
		memcpy(VARDATA(inner), p + 10, len - 10);
		s->inner = (void *) DatumGetPointer(
			forward(s->report == REPORT_REGRESSION ? bk_regression_metrics_deserialize : bk_metrics_deserialize,
					fcinfo, 2, PointerGetDatum(inner), false, (Datum) 0, true, &isnull));
	}
	PG_RETURN_POINTER(s);
}

Datum
bk_label_metrics_final(PG_FUNCTION_ARGS)
{
	LabelMetrics *s;
	Datum		result;
	bool		isnull;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (LabelMetrics *) PG_GETARG_POINTER(0);
	if (s->report == REPORT_NONE)
		PG_RETURN_NULL();
	result = forward(s->report == REPORT_REGRESSION ? bk_regression_metrics_final : bk_metrics_final,
					 fcinfo, 1, PointerGetDatum(s->inner), false, (Datum) 0, true, &isnull);
	if (isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(result);
}
