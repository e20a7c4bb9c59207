/*
 * bk_refit.c
 *	  The bk_refit aggregate: a model's coefficients refit over its kept
 *	  support vectors in one scan (the core's bk_refit.c; doc/refit.md).
 *
 * The state, in its own child context of the aggregate context, holds the
 * model's bytes and the model decoded from them (its kernel rows), and the
 * core's sums.  The final function decodes the bytes again and solves into
 * that copy, so the state stays as it is (FINALFUNC_MODIFY = READ_ONLY).
 * A parallel worker's state crosses as bytea: the model's bytes and the
 * sums; combining adds the sums, which is why the aggregate is parallel
 * safe (a parallel plan adds its workers' sums in the order the plan
 * finishes them, so only a serial scan promises the same bits twice).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"

#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "bk_pg.h"
#include "bk_refit.h"

PG_FUNCTION_INFO_V1(bk_refit_trans);
PG_FUNCTION_INFO_V1(bk_refit_final);
PG_FUNCTION_INFO_V1(bk_refit_combine);
PG_FUNCTION_INFO_V1(bk_refit_serialize);
PG_FUNCTION_INFO_V1(bk_refit_deserialize);

/* the bytes of a serialised state begin with this */
#define REFIT_STATE_MAGIC 0x626b7266	/* "bkrf" */

typedef struct RefitState
{
	MemoryContext mcxt;
	BkEnv		env;
	struct varlena *bytes;		/* the model's bytes, detoasted, in mcxt */
	BkPgModelId id;				/* the model of the first row */
	BkModel    *model;			/* decoded from bytes: its kernel rows */
	BkRefit    *refit;
	double		lambda;
	bool		regression;
	bool		text_labels;	/* the model's labels are text */
	Oid			label_type;		/* of the label argument */
	int64		row;			/* rows of the stream, skipped or not */
	int64		skipped;
	BkPgShortBuf row_buf;
} RefitState;

static const char *
type_name(Oid t)
{
	return t == INT8OID ? "int8" : t == INT4OID ? "int4" : t == FLOAT8OID ? "float8" :
		t == TEXTOID ? "text" : format_type_be(t);
}

/* "lambda" is the one parameter */
static bool
set_param(void *target, const char *key, const BkParamInput *in, char *err,
		  size_t errlen)
{
	double	   *lambda = (double *) target;

	if (strcmp(key, "lambda") != 0)
	{
		snprintf(err, errlen, "unknown parameter \"%s\" (bk_refit takes \"lambda\")", key);
		return false;
	}
	if (in->type != BK_IN_NUMBER || !isfinite(in->number) || !(in->number > 0.0) ||
		in->number > 1e6)
	{
		snprintf(err, errlen, "parameter \"lambda\" must be a number above 0 and at most 1e6");
		return false;
	}
	*lambda = in->number;
	return true;
}

/*
 * A new state for this model (the first row's), checked: a model whose
 * coefficients the refit can replace, a label of its kind, the memory
 */
static RefitState *
refit_state_new(MemoryContext parent, Datum model, Oid label_type, double lambda)
{
	MemoryContext mcxt = AllocSetContextCreate(parent, "budgetkernel refit state",
											   ALLOCSET_DEFAULT_SIZES);
	RefitState *st = (RefitState *) MemoryContextAllocZero(mcxt, sizeof(RefitState));
	MemoryContext old;
	BkModelInfo info;
	const char *refusal;
	size_t		bytes;

	st->mcxt = mcxt;
	BkPgEnvInit(&st->env, mcxt);
	st->lambda = lambda;
	st->label_type = label_type;
	old = MemoryContextSwitchTo(mcxt);
	st->bytes = PG_DETOAST_DATUM_COPY(model);
	MemoryContextSwitchTo(old);
	BkPgModelIdOf(model, &st->id);
	st->model = BkPgDecodeDatum(PointerGetDatum(st->bytes), mcxt, false);
	BkModelGetInfo(st->model, &info);
	st->regression = info.params->regression;
	st->text_labels = info.text_labels;

	refusal = BkRefitRefusal(st->model);
	if (refusal != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("bk_refit cannot refit a model of algorithm \"%s\": %s",
						BkAlgorithmName(info.params), refusal),
				 errhint("Refit a model of pa, ogd, perceptron, bpa, the budget perceptron, projectron or pegasos.")));
	if (st->regression ? label_type == TEXTOID :
		(st->text_labels != (label_type == TEXTOID)))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("bk_refit: the model is a %s, and the labels are %s",
						st->regression ? "regressor" :
						st->text_labels ? "classifier of text labels" : "classifier of integer labels",
						type_name(label_type)),
				 errhint(st->regression ? "Pass the rows' targets as numbers (float8)." :
						 st->text_labels ? "Pass the labels as text." :
						 "Pass the labels as integers (int8).")));
	if (label_type != TEXTOID && label_type != INT8OID && label_type != INT4OID &&
		label_type != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("bk_refit: labels of type %s are not supported", type_name(label_type)),
				 errhint("Pass int8, int4 or text labels, or float8 targets.")));
	if (!BkRefitBytes(st->model, &bytes) || bytes > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bk_refit: the refit of this model needs more than the limit of %zu bytes",
						(size_t) MaxAllocSize),
				 errdetail("Its sums hold (B + 1)^2 doubles for each machine of B support vectors."),
				 errhint("Refit a model of a smaller budget.")));
	st->refit = BkRefitNew(&st->env, st->model, lambda);
	return st;
}

/* the class index of the row's label (a classifier's) */
static int
refit_class(RefitState *st, FunctionCallInfo fcinfo)
{
	int			c;

	if (st->text_labels)
	{
		text	   *t = PG_GETARG_TEXT_PP(3);
		size_t		len = VARSIZE_ANY_EXHDR(t);
		const char *label = BkPgLabelIn(st->model, VARDATA_ANY(t), &len);

		c = BkModelClassIndex(st->model, 0, label, len);
		if (c < 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("bk_refit: the label \"%s\" at row %lld is not a class of the model",
							text_to_cstring(t), (long long) st->row),
					 errhint("A refit keeps the model's classes: leave such rows out, or train a model that has the class.")));
	}
	else
	{
		int64		v;

		if (st->label_type == FLOAT8OID)
		{
			double		d = PG_GETARG_FLOAT8(3);

			if (d != floor(d) || fabs(d) > 9007199254740991.0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("bk_refit: the label %g at row %lld is not an integer, and the model is a classifier",
								d, (long long) st->row)));
			v = (int64) d;
		}
		else
			v = st->label_type == INT4OID ? (int64) PG_GETARG_INT32(3) : PG_GETARG_INT64(3);
		c = BkModelClassIndex(st->model, v, NULL, 0);
		if (c < 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("bk_refit: the label %lld at row %lld is not a class of the model",
							(long long) v, (long long) st->row),
					 errhint("A refit keeps the model's classes: leave such rows out, or train a model that has the class.")));
	}
	return c;
}

/*
 * Transition: bk_refit(model, features, label, params)
 */
Datum
bk_refit_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	RefitState *st;
	Datum		features;
	const double *x;
	double		target = 0.0;
	int			cls = -1;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "%s called in non-aggregate context", "bk_refit_trans");
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("model must not be NULL")));

	if (PG_ARGISNULL(0))
	{
		double		lambda = BK_REFIT_DEFAULT_LAMBDA;

		if (!PG_ARGISNULL(4))
			BkPgEachParam(PG_GETARG_JSONB_P(4), "bk_refit", set_param, &lambda);
		st = refit_state_new(aggcontext, PG_GETARG_DATUM(1), BkPgArgType(fcinfo, 3), lambda);
	}
	else
	{
		BkPgModelId id;

		st = (RefitState *) PG_GETARG_POINTER(0);
		BkPgModelIdOf(PG_GETARG_DATUM(1), &id);
		if (!BkPgModelIdEqual(&id, &st->id))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bk_refit refits one model: row %lld has another model than the first row",
							(long long) st->row + 1),
					 errhint("Refit each model in its own call, for example with GROUP BY the model's key, or pick one model in a subquery.")));
	}

	st->row++;
	if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
	{
		st->skipped++;
		PG_RETURN_POINTER(st);
	}
	if (st->regression)
	{
		target = st->label_type == FLOAT8OID ? PG_GETARG_FLOAT8(3) :
			st->label_type == INT4OID ? (double) PG_GETARG_INT32(3) : (double) PG_GETARG_INT64(3);
		if (!isfinite(target))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bk_refit: the target at row %lld is %g, not a finite number",
							(long long) st->row, target),
					 errhint("Leave such rows out, or give them a finite target.")));
	}
	else
		cls = refit_class(st, fcinfo);

	features = BkPgDetoastRow(PG_GETARG_DATUM(2), &st->row_buf);
	x = BkPgModelRow(st->model, features, BkPgFeaturesForm(features), st->row,
					 "the model's", NULL);
	BkRefitAddRow(st->refit, st->model, x, target, cls);
	PG_RETURN_POINTER(st);
}

/*
 * Final: the model of the same basis with the refit coefficients, or
 * NULL when no row was usable
 */
Datum
bk_refit_final(PG_FUNCTION_ARGS)
{
	RefitState *st;
	MemoryContext cxt;
	BkModel    *m;
	struct varlena *result;
	uint8		fp[BK_FINGERPRINT_LEN];

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "%s called in non-aggregate context", "bk_refit_final");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (RefitState *) PG_GETARG_POINTER(0);
	if (BkRefitRows(st->refit) == 0)
		PG_RETURN_NULL();
	cxt = AllocSetContextCreate(CurrentMemoryContext, "budgetkernel refit",
								ALLOCSET_DEFAULT_SIZES);
	m = BkPgDecodeDatum(PointerGetDatum(st->bytes), cxt, true);
	BkRefitFinish(st->refit, m);
	/* provenance: refit from this model */
	BkPgFingerprint(PointerGetDatum(st->bytes), fp);
	BkModelSetParent(m, fp);
	result = BkPgEncodeModel(m, "bk_refit");
	MemoryContextDelete(cxt);
	PG_RETURN_POINTER(result);
}

/* a copy of a state in the aggregate context (a combine's first input) */
static RefitState *
refit_state_copy(MemoryContext parent, RefitState *src)
{
	RefitState *st = refit_state_new(parent, PointerGetDatum(src->bytes),
									 src->label_type, src->lambda);
	size_t		n;
	const double *v = BkRefitState(src->refit, &n);

	BkRefitSetState(st->refit, v, n, BkRefitRows(src->refit));
	st->row = src->row;
	st->skipped = src->skipped;
	return st;
}

Datum
bk_refit_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	RefitState *a;
	RefitState *b;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "%s called in non-aggregate context", "bk_refit_combine");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_POINTER(PG_GETARG_POINTER(0));
	}
	b = (RefitState *) PG_GETARG_POINTER(1);
	if (PG_ARGISNULL(0))
		PG_RETURN_POINTER(refit_state_copy(aggcontext, b));
	a = (RefitState *) PG_GETARG_POINTER(0);
	if (VARSIZE_ANY(a->bytes) != VARSIZE_ANY(b->bytes) ||
		memcmp(a->bytes, b->bytes, VARSIZE_ANY(a->bytes)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bk_refit refits one model: the parts of a parallel plan saw two models"),
				 errhint("Refit each model in its own call, for example with GROUP BY the model's key, or pick one model in a subquery.")));
	if (a->lambda != b->lambda)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bk_refit: the parts of a parallel plan were given two values of \"lambda\"")));
	BkRefitCombine(a->refit, b->refit);
	a->row += b->row;
	a->skipped += b->skipped;
	PG_RETURN_POINTER(a);
}

/*
 * A state as bytea: magic, lambda, label type, rows, skipped, sums count,
 * the model's bytes, the sums
 */
Datum
bk_refit_serialize(PG_FUNCTION_ARGS)
{
	RefitState *st;
	StringInfoData buf;
	size_t		n;
	const double *v;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "%s called in non-aggregate context", "bk_refit_serialize");
	st = (RefitState *) PG_GETARG_POINTER(0);
	v = BkRefitState(st->refit, &n);
	pq_begintypsend(&buf);
	pq_sendint32(&buf, REFIT_STATE_MAGIC);
	pq_sendfloat8(&buf, st->lambda);
	pq_sendint32(&buf, (uint32) st->label_type);
	pq_sendint64(&buf, (int64) BkRefitRows(st->refit));
	pq_sendint64(&buf, st->row);
	pq_sendint64(&buf, st->skipped);
	pq_sendint64(&buf, (int64) n);
	pq_sendint32(&buf, (uint32) VARSIZE_ANY(st->bytes));
	pq_sendbytes(&buf, (const char *) st->bytes, VARSIZE_ANY(st->bytes));
	for (size_t i = 0; i < n; i++)
		pq_sendfloat8(&buf, v[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
bk_refit_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;
	double		lambda;
	Oid			label_type;
	uint64		rows;
	int64		row,
				skipped;
	size_t		n;
	uint32		len;
	struct varlena *bytes;
	RefitState *st;
	double	   *v;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "%s called in non-aggregate context", "bk_refit_deserialize");
	buf.data = VARDATA_ANY(in);
	buf.len = VARSIZE_ANY_EXHDR(in);
	buf.maxlen = buf.len;
	buf.cursor = 0;
	if (pq_getmsgint(&buf, 4) != REFIT_STATE_MAGIC)
		elog(ERROR, "bk_refit_deserialize: not a refit state");
	lambda = pq_getmsgfloat8(&buf);
	label_type = (Oid) pq_getmsgint(&buf, 4);
	rows = (uint64) pq_getmsgint64(&buf);
	row = pq_getmsgint64(&buf);
	skipped = pq_getmsgint64(&buf);
	n = (size_t) pq_getmsgint64(&buf);
	len = (uint32) pq_getmsgint(&buf, 4);
	if (len < VARHDRSZ || len > (uint32) (buf.len - buf.cursor))
		elog(ERROR, "bk_refit_deserialize: a refit state of a bad length");
	bytes = (struct varlena *) palloc(len);
	memcpy(bytes, pq_getmsgbytes(&buf, (int) len), len);
	st = refit_state_new(aggcontext, PointerGetDatum(bytes), label_type, lambda);
	if (n > (size_t) (buf.len - buf.cursor) / sizeof(double))
		elog(ERROR, "bk_refit_deserialize: a refit state of a bad length");
	v = (double *) palloc(sizeof(double) * (n > 0 ? n : 1));
	for (size_t i = 0; i < n; i++)
		v[i] = pq_getmsgfloat8(&buf);
	pq_getmsgend(&buf);
	BkRefitSetState(st->refit, v, n, rows);
	st->row = row;
	st->skipped = skipped;
	pfree(v);
	pfree(bytes);
	PG_RETURN_POINTER(st);
}
