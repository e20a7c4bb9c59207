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

#include "bk_pg_train.h"
#include "bk_label.h"
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
	int64		row;			/* rows of the stream, skipped or not */
	int64		skipped;
	BkPgShortBuf row_buf;
} RefitState;

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
refit_state_new(MemoryContext parent, Datum model, double lambda)
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
		st = refit_state_new(aggcontext, PG_GETARG_DATUM(1), lambda);
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
	{
		BkLabel		l;

		BkPgLabelRead(PG_GETARG_DATUM(3), &l);
		if (st->regression)
			target = BkPgLabelTarget(&l, "bk_refit", st->row);
		else
			cls = BkPgLabelClass(st->model, &l, "bk_refit", st->row);
	}

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
	RefitState *st = refit_state_new(parent, PointerGetDatum(src->bytes), src->lambda);
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
 * A state as bytea: magic, lambda, rows, skipped, sums count,
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
	rows = (uint64) pq_getmsgint64(&buf);
	row = pq_getmsgint64(&buf);
	skipped = pq_getmsgint64(&buf);
	n = (size_t) pq_getmsgint64(&buf);
	len = (uint32) pq_getmsgint(&buf, 4);
	if (len < VARHDRSZ || len > (uint32) (buf.len - buf.cursor))
		elog(ERROR, "bk_refit_deserialize: a refit state of a bad length");
	bytes = (struct varlena *) palloc(len);
	memcpy(bytes, pq_getmsgbytes(&buf, (int) len), len);
	st = refit_state_new(aggcontext, PointerGetDatum(bytes), lambda);
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
