/*
 * bk_data_drift.c
 *	  bk_data_drift(model, features): the rows' features
 *	  compared, input by input, with the preparation the model stores, as
 *	  jsonb — per input its statistics and whether it moved, and the list
 *	  of inputs that moved.  The comparison is the core's
 *	  (bk_data_drift.c); this file reads the rows as scoring does
 *	  (bk_prepare.c) and writes the report.
 *
 *	  The state holds the decoded model and a few numbers per input and
 *	  level: bounded whatever the number of rows.  No combine function (the
 *	  running sums would pool differently with each plan's split, and the
 *	  report should not depend on the plan): it runs in one process.
 */
#include "postgres.h"

#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "bk_pg.h"

PG_FUNCTION_INFO_V1(bk_data_drift_trans);
PG_FUNCTION_INFO_V1(bk_data_drift_final);

typedef struct DataDriftState
{
	MemoryContext mcxt;
	BkEnv		env;
	BkDataDriftParams params;
	BkPgModelId model_id;		/* the first row's model */
	BkModel    *model;
	BkDataDrift *drift;
	double	   *scratch;		/* BkPrepDim values */
	int64		row;			/* 1-based, every row */
	int64		skipped;		/* rows with NULL features */
} DataDriftState;

/* the model of the first row, decoded; it must have a preparation */
static void
start(DataDriftState *s, Datum model)
{
	const BkPrep *p;

	BkPgModelIdOf(model, &s->model_id);
	s->model = BkPgDecodeDatum(model, s->mcxt, false);
	p = BkModelPrep(s->model);
	if (p == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bk_data_drift: the model stores no preparation of its inputs to compare the rows with"),
				 errhint("A model keeps its inputs' statistics when it prepares them: trained on named features (jsonb), or on arrays with \"scale\": \"standard\" or \"impute\": \"mean\" (doc/preparation.md).")));
	s->drift = BkDataDriftNew(&s->env, p);
	s->scratch = MemoryContextAllocHuge(s->mcxt, sizeof(double) * (Size) BkPrepDim(p));
}

Datum
bk_data_drift_trans(PG_FUNCTION_ARGS)
{
	MemoryContext agg;
	DataDriftState *s;
	Datum		features;

	if (!AggCheckCallContext(fcinfo, &agg))
		elog(ERROR, "bk_data_drift_trans called in non-aggregate context");
	if (PG_ARGISNULL(0))
	{
		MemoryContext mcxt = AllocSetContextCreate(agg, "budgetkernel data drift",
												   ALLOCSET_DEFAULT_SIZES);

		s = MemoryContextAllocZero(mcxt, sizeof(DataDriftState));
		s->mcxt = mcxt;
		BkPgEnvInit(&s->env, mcxt);
		BkDataDriftParamsInit(&s->params);
	}
	else
		s = (DataDriftState *) PG_GETARG_POINTER(0);
	s->row++;
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("model must not be NULL")));
	if (s->model == NULL)
		start(s, PG_GETARG_DATUM(1));
	else
	{
		BkPgModelId id;

		BkPgModelIdOf(PG_GETARG_DATUM(1), &id);
		if (!BkPgModelIdEqual(&id, &s->model_id))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bk_data_drift compares rows with one model: row %lld has another model than the first row",
							(long long) s->row),
					 errhint("Compare with each model in its own call, for example with GROUP BY the model's key.")));
	}
	if (PG_ARGISNULL(2))
	{
		s->skipped++;
		PG_RETURN_POINTER(s);
	}
	/* what reading the row allocates is the per-row context's: reset per row */
	features = PointerGetDatum(PG_DETOAST_DATUM(PG_GETARG_DATUM(2)));
	BkPgDriftRow(s->model, s->drift, features, BkPgFeaturesForm(features), s->row,
				 s->scratch);
	PG_RETURN_POINTER(s);
}

/* a name or level of the model (UTF-8) in the server's encoding */
static void
push_model_text(JsonbParseState **ps, JsonbIteratorToken tok, const char *u, size_t len)
{
	bk_push_string(ps, tok, pg_any_to_server(u, (int) len, PG_UTF8));
}

/* input i's name: its key, or its 1-based position in the arrays */
static void
push_input_name(JsonbParseState **ps, JsonbIteratorToken tok, const BkPrep *p, int i)
{
	size_t		len;
	const char *u = BkPrepInputName(p, i, &len);

	if (u != NULL)
		push_model_text(ps, tok, u, len);
	else
		bk_push_int64(ps, tok, i + 1);
}

static void
push_number(JsonbParseState **ps, const char *key, double v)
{
	bk_push_key(ps, key);
	bk_push_double(ps, WJB_VALUE, v);
}

Datum
bk_data_drift_final(PG_FUNCTION_ARGS)
{
	DataDriftState *s;
	const BkPrep *p;
	JsonbParseState *ps = NULL;
	JsonbValue *res;
	int			n;
	bool	   *moved;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (DataDriftState *) PG_GETARG_POINTER(0);
	if (s->model == NULL)
		PG_RETURN_NULL();
	p = BkModelPrep(s->model);
	n = BkPrepInputs(p);
	moved = palloc0(sizeof(bool) * (Size) n);

	pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
	bk_push_key(&ps, "rows");
	bk_push_int64(&ps, WJB_VALUE, BkDataDriftRows(s->drift));
	bk_push_key(&ps, "rows_skipped");
	bk_push_int64(&ps, WJB_VALUE, s->skipped);
	/* the fixed thresholds of "moved" (doc/drift.md) */
	bk_push_key(&ps, "thresholds");
	pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
	push_number(&ps, "mean_shift", s->params.mean_shift);
	push_number(&ps, "sd_ratio", s->params.sd_ratio);
	push_number(&ps, "z", s->params.z);
	push_number(&ps, "unseen", s->params.unseen);
	pushJsonbValue(&ps, WJB_END_OBJECT, NULL);

	bk_push_key(&ps, "features");
	pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
	{
		BkDataDriftInput r;

		BkDataDriftResult(s->drift, &s->params, i, &r);
		moved[i] = r.moved;
		pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
		bk_push_key(&ps, "feature");
		push_input_name(&ps, WJB_VALUE, p, i);
		bk_push_key(&ps, "kind");
		bk_push_string(&ps, WJB_VALUE, r.kind == BK_INPUT_NUMERIC ? "numeric" : "categorical");
		bk_push_key(&ps, "values");
		bk_push_int64(&ps, WJB_VALUE, r.values);
		bk_push_key(&ps, "missing");
		bk_push_int64(&ps, WJB_VALUE, r.missing);
		if (r.kind == BK_INPUT_NUMERIC)
		{
			push_number(&ps, "training_values", r.train_count);
			push_number(&ps, "training_mean", r.train_mean);
			push_number(&ps, "training_sd", r.train_sd);
			push_number(&ps, "mean", r.mean);
			push_number(&ps, "sd", r.sd);
			push_number(&ps, "mean_shift", r.mean_shift);
			push_number(&ps, "z", r.z);
			push_number(&ps, "sd_ratio", r.sd_ratio);
			push_number(&ps, "sd_z", r.sd_z);
		}
		else
		{
			/* every training level with its count among the rows */
			bk_push_key(&ps, "levels");
			pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
			for (int j = 0; j < r.n_levels; j++)
			{
				size_t		len;
				const char *u = BkPrepLevel(p, i, j, &len);

				push_model_text(&ps, WJB_KEY, u, len);
				bk_push_int64(&ps, WJB_VALUE, r.level_counts[j]);
			}
			pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
			bk_push_key(&ps, "unseen");
			bk_push_int64(&ps, WJB_VALUE, r.unseen);
			push_number(&ps, "unseen_share", r.unseen_share);
		}
		bk_push_key(&ps, "moved");
		bk_push_bool(&ps, WJB_VALUE, r.moved);
		pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(&ps, WJB_END_ARRAY, NULL);

	bk_push_key(&ps, "moved");
	pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
		if (moved[i])
			push_input_name(&ps, WJB_ELEM, p, i);
	pushJsonbValue(&ps, WJB_END_ARRAY, NULL);

	res = pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(res));
}
