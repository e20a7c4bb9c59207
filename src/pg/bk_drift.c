/*
 * bk_drift.c
 *	  bk_drift(x [, params]): change detection over the aggregate's rows in
 *	  their order, as jsonb — the method, its parameters, the rows, and the
 *	  changes with the 1-based position of the row that raised each.  The
 *	  detectors are the core's (bk_drift.h); this file reads the arguments
 *	  and writes the report.
 *
 *	  The state is the detector, fixed in size at the first row (ADWIN's
 *	  histogram, at most max_changes changes): memory is bounded whatever
 *	  the number of rows.  The final function only reads the state
 *	  (FINALFUNC_MODIFY = READ_ONLY), so the aggregate is also a window
 *	  function over a growing frame (ROWS BETWEEN UNBOUNDED PRECEDING AND
 *	  CURRENT ROW): each row's report is that of the rows up to it.  A
 *	  detector depends on the order of its values, so partial states
 *	  cannot be combined: no combine function, and the aggregate runs in
 *	  one process (its functions are parallel safe).
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "bk_pg_train.h"

PG_FUNCTION_INFO_V1(bk_drift_trans);
PG_FUNCTION_INFO_V1(bk_drift_final);

typedef struct DriftState
{
	BkEnv		env;
	BkDriftParams params;
	BkDrift    *drift;
} DriftState;

static bool
set_param(void *target, const char *key, const BkParamInput *in, char *err, size_t errlen)
{
	return BkDriftParamsSet((BkDriftParams *) target, key, in, err, errlen);
}

static DriftState *
new_state(MemoryContext agg, Jsonb *params)
{
	MemoryContext mcxt = AllocSetContextCreate(agg, "budgetkernel drift",
											   ALLOCSET_SMALL_SIZES);
	DriftState *s = MemoryContextAllocZero(mcxt, sizeof(DriftState));
	char		err[BK_ERRMSG_LEN];

	BkPgEnvInit(&s->env, mcxt);
	BkDriftParamsInit(&s->params);
	if (params != NULL)
		BkPgEachParam(params, "bk_drift", set_param, &s->params);
	if (!BkDriftParamsFinish(&s->params, err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bk_drift: %s", err)));
	s->drift = BkDriftNew(&s->env, &s->params);
	return s;
}

/*
 * bk_drift(x [, params]) transition: the params of the first row make the
 * detector (NULL params: an error, 22004); a NULL x is a position without a
 * value, counted in "rows" and "rows_skipped"
 */
Datum
bk_drift_trans(PG_FUNCTION_ARGS)
{
	MemoryContext agg;
	DriftState *s;

	if (!AggCheckCallContext(fcinfo, &agg))
		elog(ERROR, "bk_drift_trans called in non-aggregate context");
	if (PG_ARGISNULL(0))
	{
		if (PG_NARGS() > 2 && PG_ARGISNULL(2))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("bk_drift: params must not be NULL"),
					 errhint("Pass '{}' for the defaults.")));
		s = new_state(agg, PG_NARGS() > 2 ? PG_GETARG_JSONB_P(2) : NULL);
	}
	else
		s = (DriftState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
		BkDriftSkip(s->drift);
	else
		(void) BkDriftAdd(s->drift, PG_GETARG_FLOAT8(1));
	PG_RETURN_POINTER(s);
}

/* push names[i]: vals[i] for i < n (integers as JSON integers, null if not finite) */
static void
push_stats(JsonbParseState **ps, const char *const *names, const double *vals, int n)
{
	for (int i = 0; i < n; i++)
	{
		bk_push_key(ps, names[i]);
		bk_push_integer_param(ps, WJB_VALUE, vals[i]);
	}
}

/* the report; reads the state only (the aggregate is READ_ONLY) */
Datum
bk_drift_final(PG_FUNCTION_ARGS)
{
	DriftState *s;
	JsonbParseState *ps = NULL;
	JsonbValue *res;
	BkParamValue pv[BK_MAX_PARAM_VALUES];
	const char *const *names;
	double		vals[BK_DRIFT_MAX_STATS];
	int			n;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (DriftState *) PG_GETARG_POINTER(0);

	pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
	bk_push_key(&ps, "method");
	bk_push_string(&ps, WJB_VALUE, BkDriftMethodName(s->params.method));
	bk_push_key(&ps, "params");
	pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
	n = BkDriftParamsList(&s->params, pv, BK_MAX_PARAM_VALUES);
	for (int i = 0; i < n; i++)
	{
		bk_push_key(&ps, pv[i].key);
		bk_push_integer_param(&ps, WJB_VALUE, pv[i].number);
	}
	pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
	bk_push_key(&ps, "rows");
	bk_push_int64(&ps, WJB_VALUE, BkDriftRows(s->drift));
	bk_push_key(&ps, "rows_skipped");
	bk_push_int64(&ps, WJB_VALUE, BkDriftSkipped(s->drift));
	bk_push_key(&ps, "changes_detected");
	bk_push_int64(&ps, WJB_VALUE, BkDriftDetected(s->drift));

	bk_push_key(&ps, "changes");
	pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
	n = BkDriftChangeStats(s->params.method, &names);
	for (int k = 0; k < BkDriftKept(s->drift); k++)
	{
		const BkDriftChange *c = BkDriftChangeAt(s->drift, k);

		pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
		bk_push_key(&ps, "row");
		bk_push_int64(&ps, WJB_VALUE, c->row);
		push_stats(&ps, names, c->stat, n);
		pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(&ps, WJB_END_ARRAY, NULL);

	/* the detector after the last row: what it estimates now */
	bk_push_key(&ps, "state");
	pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
	n = BkDriftState(s->drift, &names, vals);
	push_stats(&ps, names, vals, n);
	pushJsonbValue(&ps, WJB_END_OBJECT, NULL);

	res = pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(res));
}
