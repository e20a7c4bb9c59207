/*
 * bk_train_folds.c
 *	  _bk_train_folds(features, label, fold, settings, folds): every
 *	  (setting, fold) model of one round of bk_cross_validate's search in
 *	  one aggregate over the rows, read and sorted once for the round.
 *
 * Each model of the round learns the rows outside its fold, in the order
 * of the call's ORDER BY, exactly as bk_train(features, label, setting
 * ORDER BY ...) over those rows does: the same transition keeps them
 * (BkPgTrainKeepRow) and the same functions train them.  The rows are
 * kept once, with their folds, for the settings of one preparation
 * ("scale", "impute", "max_levels", "target_scale", "task"); each fold's
 * preparation is fitted once on the rows outside it, in their order, and
 * its models read the kept rows without those of the fold
 * (BkPgEpochRowsSkipFold), where a bk_train call a setting and fold kept,
 * fitted and prepared them all over again.  Within a memory bound the
 * fold's rows are also prepared once (parsed, standardised) and every
 * setting's model learns them from that matrix: the same rows, so the
 * same bytes.
 *
 * Each model is scored on its held-out fold as the search's SQL scored it
 * until 0.4.0 with bk_metrics(actual::text, bk_predict_label(model,
 * features)) ->> metric (a regressor: bk_metrics(actual,
 * bk_predict_value(model, features)) ->> metric): the model is decoded
 * from its bytes as scoring decodes it, the fold's rows are prepared as
 * scoring prepares them, once for the settings of the fold's preparation
 * (within the same memory bound), and the same report is made of the same
 * predictions.  In SQL each of a round's models read the fold's rows
 * again and parsed each row's features again (a sixth of a search on
 * named features).
 *
 * The result is an array of _bk_fold_model (setting, fold, model,
 * seconds, score), setting-major, settings numbered from 0 in the array's
 * order; seconds is the time of the model's own training (its passes);
 * score the metric on its fold (NULL without a metric).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"

#include "bk_label.h"
#include "bk_pg_train.h"

PG_FUNCTION_INFO_V1(bk_train_folds_trans);
PG_FUNCTION_INFO_V1(bk_train_folds_final);

/* the most folds a search takes (bk_cross_validate checks 2..20) */
#define MAX_FOLDS 100
/* the most settings in one round */
#define MAX_SETTINGS 10000
/*
 * The most preparations in one round: each keeps the rows (in memory up
 * to work_mem, on disk beyond)
 */
#define MAX_PREPARATIONS 16
/*
 * The fold's rows are prepared once for its settings when they take at
 * most this many times work_mem (a row of d features: 8 d bytes): 64 MB
 * at the default 4 MB, 13,000 rows of a9a's 123 features taking 8.5 MB.
 * The search held the rows of a setting and fold in a sort and a store of
 * work_mem each before, and holds one store a fold now.  Beyond, each
 * setting's model reads and prepares the fold's kept rows again.
 */
#define PREPARED_WORK_MEMS 16

/* the parameters that make the preparation and the task: a group shares them */
static const char *const PREP_KEYS[] = {"scale", "impute", "max_levels", "target_scale", "task"};

/* the rows of one preparation, every fold's, and the folds they are in */
typedef struct FoldGroup
{
	BkTrainState *kept;			/* its rows (BkPgTrainKeepRow) */
	uint8	   *fold_of;		/* the fold of each row kept */
	int64		n_kept;
	int64		cap;
	int64	   *skipped;		/* rows skipped (NULL) in each fold */
} FoldGroup;

typedef struct FoldsState
{
	MemoryContext mcxt;
	int			n_settings;
	int			n_folds;
	Jsonb	  **settings;		/* each setting's parameters */
	int		   *group;			/* the group of each setting */
	int			n_groups;
	int		   *first;			/* each group's first setting */
	FoldGroup  *groups;			/* each preparation's rows */
	FmgrInfo	flinfo;			/* the inner calls' (no function of their own) */
	int64		row;
	char	   *metric;			/* the key of bk_metrics' report to score, or NULL */
} FoldsState;

/* the value of key in a setting as text, or "" (absent) */
static char *
prep_key_text(Jsonb *jb, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&jb->root, key, strlen(key), NULL);

	if (v == NULL)
		return "";
	return JsonbToCString(NULL, &JsonbValueToJsonb(v)->root, 0);
}

static FoldsState *
folds_state_new(FunctionCallInfo fcinfo, MemoryContext aggcontext)
{
	MemoryContext old = MemoryContextSwitchTo(aggcontext);
	FoldsState *fs = palloc0(sizeof(FoldsState));
	Jsonb	   *settings;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			n_keys = lengthof(PREP_KEYS);
	char	  **keys;
	int64		folds;

	fs->mcxt = aggcontext;
	if (PG_ARGISNULL(4) || PG_ARGISNULL(5))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("_bk_train_folds: settings and folds must not be NULL")));
	folds = PG_GETARG_INT64(5);
	if (folds < 2 || folds > MAX_FOLDS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_bk_train_folds: folds must be between 2 and %d, not %lld",
						MAX_FOLDS, (long long) folds)));
	fs->n_folds = (int) folds;
	fs->metric = PG_ARGISNULL(6) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(6));
	settings = PG_GETARG_JSONB_P_COPY(4);
	if (!JB_ROOT_IS_ARRAY(settings) || JB_ROOT_IS_SCALAR(settings) ||
		JB_ROOT_COUNT(settings) < 1 || JB_ROOT_COUNT(settings) > MAX_SETTINGS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_bk_train_folds: settings must be a JSON array of 1 to %d objects",
						MAX_SETTINGS)));
	fs->n_settings = JB_ROOT_COUNT(settings);
	fs->settings = palloc(sizeof(Jsonb *) * fs->n_settings);
	fs->group = palloc(sizeof(int) * fs->n_settings);
	fs->first = palloc(sizeof(int) * fs->n_settings);
	keys = palloc(sizeof(char *) * fs->n_settings);

	/* each element, as a document of its own */
	it = JsonbIteratorInit(&settings->root);
	{
		int			i = 0;

		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (tok != WJB_ELEM)
				continue;
			if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("_bk_train_folds: setting %d is not a JSON object", i)));
			fs->settings[i++] = JsonbValueToJsonb(&v);
		}
	}

	/* the groups: settings of one preparation and task, by their text */
	for (int i = 0; i < fs->n_settings; i++)
	{
		StringInfoData s;

		initStringInfo(&s);
		for (int k = 0; k < n_keys; k++)
		{
			appendStringInfoString(&s, prep_key_text(fs->settings[i], PREP_KEYS[k]));
			appendStringInfoChar(&s, '\x1f');
		}
		keys[i] = s.data;
		fs->group[i] = -1;
		for (int g = 0; g < fs->n_groups; g++)
			if (strcmp(keys[fs->first[g]], keys[i]) == 0)
				fs->group[i] = g;
		if (fs->group[i] < 0 && fs->n_groups == MAX_PREPARATIONS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("_bk_train_folds: the settings ask for more than %d preparations",
							MAX_PREPARATIONS),
					 errdetail("Settings that differ in \"scale\", \"impute\", \"max_levels\", \"target_scale\" or \"task\" are trained from rows kept apart."),
					 errhint("Search those parameters in searches of their own.")));
		if (fs->group[i] < 0)
		{
			fs->first[fs->n_groups] = i;
			fs->group[i] = fs->n_groups++;
		}
	}
	fs->groups = palloc0(sizeof(FoldGroup) * fs->n_groups);
	for (int g = 0; g < fs->n_groups; g++)
	{
		fs->groups[g].skipped = palloc0(sizeof(int64) * fs->n_folds);
		fs->groups[g].cap = 1024;
		fs->groups[g].fold_of = palloc(fs->groups[g].cap);
	}

	/* the inner calls find the features' and label's types in the call */
	fmgr_info_copy(&fs->flinfo, fcinfo->flinfo, aggcontext);
	fs->flinfo.fn_oid = InvalidOid;
	fs->flinfo.fn_nargs = 4;
	fs->flinfo.fn_extra = NULL;
	MemoryContextSwitchTo(old);
	return fs;
}

/*
 * Transition: arguments (state, features bk_features, label bk_label,
 * fold int8, settings jsonb, folds int4); each preparation's state keeps
 * the row, its fold noted (or counts it skipped in its fold)
 */
Datum
bk_train_folds_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	FoldsState *fs;
	int64		fold;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "%s called in non-aggregate context", "_bk_train_folds");
	if (AggCheckCallContext(fcinfo, NULL) != AGG_CONTEXT_AGGREGATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("_bk_train_folds is an aggregate, not a window function")));
	fs = PG_ARGISNULL(0) ? folds_state_new(fcinfo, aggcontext) :
		(FoldsState *) PG_GETARG_POINTER(0);
	fs->row++;
	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("_bk_train_folds: the fold of row %lld is NULL", (long long) fs->row)));
	fold = PG_GETARG_INT64(3);
	if (fold < 0 || fold >= fs->n_folds)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_bk_train_folds: the fold of row %lld is %lld, not between 0 and %d",
						(long long) fs->row, (long long) fold, fs->n_folds - 1)));

	for (int g = 0; g < fs->n_groups; g++)
	{
		FoldGroup  *gr = &fs->groups[g];
		BkTrainState **st = &gr->kept;
		int64		before = *st != NULL && (*st)->rows != NULL ? BkPgEpochRowsCount((*st)->rows) : 0;
		LOCAL_FCINFO(inner, 4);

		InitFunctionCallInfoData(*inner, &fs->flinfo, 4, InvalidOid,
								 fcinfo->context, NULL);
		inner->args[0].value = PointerGetDatum(*st);
		inner->args[0].isnull = *st == NULL;
		inner->args[1] = fcinfo->args[1];
		inner->args[2] = fcinfo->args[2];
		inner->args[3].value = JsonbPGetDatum(fs->settings[fs->first[g]]);
		inner->args[3].isnull = false;
		*st = BkPgTrainKeepRow(inner);
		/* kept (its fold noted), or skipped (a NULL, counted in its fold) */
		if ((*st)->rows != NULL && BkPgEpochRowsCount((*st)->rows) > before)
		{
			if (gr->n_kept == gr->cap)
			{
				gr->cap *= 2;
				gr->fold_of = repalloc_huge(gr->fold_of, (Size) gr->cap);
			}
			gr->fold_of[gr->n_kept++] = (uint8) fold;
		}
		else
			gr->skipped[fold]++;
	}
	PG_RETURN_POINTER(fs);
}

/*
 * A fold's training state: the group's kept rows without the fold's, the
 * preparation and target fitted on them (fit: the fold's, or NULL), and
 * the rows skipped outside the fold; setting's parameters
 */
static void
fold_state(BkTrainState *st, const FoldsState *fs, const FoldGroup *gr, int f,
		   Jsonb *setting, BkPrepFit *fit, const BkRunningSums *target)
{
	int64		skipped = 0;

	BkPgTrainSetting(st, gr->kept, setting);
	st->fit = fit;
	st->target_fit = *target;
	for (int k = 0; k < fs->n_folds; k++)
		if (k != f)
			skipped += gr->skipped[k];
	st->skipped = skipped;
}

/*
 * The model of one setting on one fold, trained in cxt as bk_train_final
 * trains it: the first pass, then the others (from the fold's prepared
 * rows when BkPgEpochRowsPrepare made them)
 */
static BkModel *
train_setting(const FoldsState *fs, const FoldGroup *gr, int f, Jsonb *setting,
			  BkPrepFit *fit, const BkRunningSums *target, MemoryContext cxt)
{
	BkTrainState st;
	BkModel    *m;

	fold_state(&st, fs, gr, f, setting, fit, target);
	m = BkPgTrainPrepared(&st, cxt);
	if (m != NULL && st.epochs > 1)
		m = BkPgEpochsReplay(m, st.rows, st.epochs, st.fname, &st.progress, cxt);
	return m;
}

/* a model scored on its held-out rows: the report's state, and a row's scratch */
typedef struct Scoring
{
	BkModel    *m;
	bool		regression;
	bool		text_labels;	/* the model's */
	Oid			label_type;		/* the kept labels' */
	void	   *metrics;
	MemoryContext cxt;			/* the report's */
	MemoryContext rowcxt;		/* reset after each row */
} Scoring;

/* One held-out row (BkPgEpochRowsEachHeldOut): its prediction, to the report */
static void
score_row(const double *x, Datum label, void *arg)
{
	Scoring    *s = (Scoring *) arg;
	MemoryContext old;
	Datum		actual,
				predicted;
	int			c;

	if (s->regression)
	{
		BkPgRegressionMetricsRow(s->metrics, DatumGetFloat8(label), BkModelPredictValue(s->m, x));
		return;
	}
	/* bk_predict_label's class and text; the actual label's text (::text) */
	c = BkModelPredictClass(s->m, x);
	if (c < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("model has no class to predict"),
				 errdetail("The model was trained on no labelled row.")));
	old = MemoryContextSwitchTo(s->rowcxt);
	predicted = PointerGetDatum(cstring_to_text(s->text_labels ? BkPgClassName(s->m, c) :
												psprintf(INT64_FORMAT, (int64) BkModelClassLabel(s->m, c))));
	if (s->label_type == TEXTOID)
		actual = label;
	else if (s->label_type == INT8OID)
		actual = PointerGetDatum(cstring_to_text(psprintf(INT64_FORMAT, DatumGetInt64(label))));
	else
		actual = PointerGetDatum(cstring_to_text(DatumGetCString(DirectFunctionCall1(float8out, label))));
	BkPgMetricsRow(s->metrics, s->cxt, actual, predicted, (Datum) 0);
	MemoryContextSwitchTo(old);
	MemoryContextReset(s->rowcxt);
}

/*
 * The score of model (decoded from its bytes, as scoring decodes them) on
 * the fold's held-out rows (held: prepared, or NULL: read from the store):
 * (report ->> metric)::float8 of the report bk_metrics makes of them, or
 * NULL (*isnull) where the report or its value is null
 */
static double
score_model(FunctionCallInfo fcinfo, const FoldsState *fs, const BkTrainState *kept,
			BkModel *model, const BkPreparedRows *held, bool *isnull)
{
	Scoring		s;
	BkModelInfo info;
	Jsonb	   *report;
	JsonbValue *v;
	LOCAL_FCINFO(inner, 1);
	Datum		d;

	s.m = model;
	BkModelGetInfo(s.m, &info);
	s.regression = kept->regression;
	s.text_labels = info.text_labels;
	s.label_type = BkPgEpochRowsLabelType(kept->rows);
	s.cxt = CurrentMemoryContext;
	s.rowcxt = AllocSetContextCreate(CurrentMemoryContext, "budgetkernel search score row",
									 ALLOCSET_SMALL_SIZES);
	s.metrics = s.regression ? BkPgRegressionMetricsNew(s.cxt) : BkPgMetricsNew(s.cxt, true, 0);
	BkPgEpochRowsEachHeldOut(kept->rows, held, s.m, "bk_cross_validate", score_row, &s);
	MemoryContextDelete(s.rowcxt);

	/* the report, as bk_metrics' final function makes it (in this aggregate's context) */
	InitFunctionCallInfoData(*inner, NULL, 1, InvalidOid, fcinfo->context, NULL);
	inner->args[0].value = PointerGetDatum(s.metrics);
	inner->args[0].isnull = false;
	d = s.regression ? bk_regression_metrics_final(inner) : bk_metrics_final(inner);
	*isnull = true;
	if (inner->isnull)
		return 0.0;
	report = DatumGetJsonbP(d);
	v = getKeyJsonValueFromContainer(&report->root, fs->metric, strlen(fs->metric), NULL);
	if (v == NULL || v->type == jbvNull)
		return 0.0;
	if (v->type != jbvNumeric)
		elog(ERROR, "_bk_train_folds: the report's \"%s\" is not a number", fs->metric);
	*isnull = false;
	/* ->> gives the number's text, ::float8 reads it */
	return DatumGetFloat8(DirectFunctionCall1(float8in,
											  DirectFunctionCall1(numeric_out,
																  NumericGetDatum(v->val.numeric))));
}

/*
 * Final: the array of (setting, fold, model, seconds, score),
 * setting-major; a model (and its score) is NULL where its rows held none
 * usable.  Reads the state only.
 */
Datum
bk_train_folds_final(PG_FUNCTION_ARGS)
{
	FoldsState *fs;
	Oid			array_type = get_fn_expr_rettype(fcinfo->flinfo);
	Oid			elem_type = get_element_type(array_type);
	TupleDesc	desc;
	Datum	   *elems;
	int			n;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	Size		limit = (Size) work_mem * 1024 * PREPARED_WORK_MEMS;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "%s called in non-aggregate context", "_bk_train_folds");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (!OidIsValid(elem_type))
		elog(ERROR, "_bk_train_folds: the result is not an array");
	fs = (FoldsState *) PG_GETARG_POINTER(0);
	desc = lookup_rowtype_tupdesc_copy(elem_type, -1);
	if (desc->natts != 5)
		elog(ERROR, "_bk_train_folds: the result's element has %d columns, not 5", desc->natts);
	desc = BlessTupleDesc(desc);
	n = fs->n_settings * fs->n_folds;
	elems = palloc(sizeof(Datum) * n);

	for (int g = 0; g < fs->n_groups; g++)
		for (int f = 0; f < fs->n_folds; f++)
		{
			const FoldGroup *gr = &fs->groups[g];
			const BkTrainState *kept = gr->kept;
			MemoryContext fold_cxt = AllocSetContextCreate(CurrentMemoryContext,
														   "budgetkernel search fold",
														   ALLOCSET_DEFAULT_SIZES);
			BkPrepFit  *fit = NULL;
			BkRunningSums target;
			BkPreparedRows *held = NULL;
			bool		held_made = false;

			memset(&target, 0, sizeof(target));
			if (kept != NULL && kept->rows == NULL)
				kept = NULL;	/* no row with features */
			if (kept != NULL)
			{
				BkTrainState st;
				BkModel    *m;
				BkEnv		env;
				MemoryContext old = MemoryContextSwitchTo(fold_cxt);

				/* the rows outside the fold; their preparation and target fitted */
				BkPgEpochRowsSkipFold(kept->rows, gr->fold_of, f);
				BkPgEnvInit(&env, fold_cxt);
				if (kept->fit != NULL)
					fit = BkPrepFitNew(&env, &kept->spec, kept->form == BK_FORM_NAMED);
				BkPgEpochRowsFit(kept->rows, fit, kept->regression ? &target : NULL);
				MemoryContextSwitchTo(old);
				/* and prepared once, by the first setting's model */
				fold_state(&st, fs, gr, f, fs->settings[fs->first[g]], fit, &target);
				m = BkPgTrainPreparedModel(&st, fold_cxt);
				if (m != NULL)
					(void) BkPgEpochRowsPrepare(st.rows, m, st.fname, limit, fold_cxt);
			}
			for (int s = 0; s < fs->n_settings; s++)
			{
				MemoryContext cxt;
				BkModel    *m = NULL;
				TimestampTz start = GetCurrentTimestamp();
				Datum		values[5];
				bool		nulls[5] = {false, false, false, false, true};

				if (fs->group[s] != g)
					continue;
				cxt = AllocSetContextCreate(fold_cxt, "budgetkernel search model",
											ALLOCSET_DEFAULT_SIZES);
				if (kept != NULL)
					m = train_setting(fs, gr, f, fs->settings[s], fit, &target, cxt);
				values[0] = Int32GetDatum(s);
				values[1] = Int32GetDatum(f);
				if (m != NULL)
				{
					BkModelInfo info;

					BkModelGetInfo(m, &info);
					if (info.rows_seen == 0)
						m = NULL;
				}
				if (m != NULL)
					values[2] = PointerGetDatum(BkPgEncodeModel(m, "bk_train"));
				else
					nulls[2] = true;
				values[3] = Float8GetDatum((double) (GetCurrentTimestamp() - start) /
										   USECS_PER_SEC);
				if (!nulls[2] && fs->metric != NULL)
				{
					MemoryContext old = MemoryContextSwitchTo(cxt);
					BkModel    *dm = BkPgDecodeDatum(values[2], cxt, false);

					/* the fold's rows prepared once, by its first model as decoded */
					if (!held_made)
					{
						held = BkPgEpochRowsHeldOut(kept->rows, dm, "bk_cross_validate",
													limit, fold_cxt);
						held_made = true;
					}
					values[4] = Float8GetDatum(score_model(fcinfo, fs, kept, dm, held,
														   &nulls[4]));
					MemoryContextSwitchTo(old);
					/* bk_training_progress: one more model of the search scored */
					if (!nulls[4])
						BkPgActivitySearchModelScored();
				}
				elems[s * fs->n_folds + f] = HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
				MemoryContextDelete(cxt);
			}
			/* every row again, and the prepared ones, in fold_cxt, forgotten */
			if (kept != NULL)
				BkPgEpochRowsSkipFold(kept->rows, NULL, -1);
			MemoryContextDelete(fold_cxt);
		}
	for (int g = 0; g < fs->n_groups; g++)
		if (fs->groups[g].kept != NULL)
			BkPgActivityEnd(fs->groups[g].kept->progress.activity);

	get_typlenbyvalalign(elem_type, &elmlen, &elmbyval, &elmalign);
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, n, elem_type, elmlen, elmbyval, elmalign));
}
