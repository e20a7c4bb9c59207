/*
 * bk_train.c
 *	  The bk_train and bk_continue aggregates: transition and final
 *	  functions.
 *
 * The transition state (STYPE internal) lives in its own memory context, a
 * child of the aggregate context, and so does the core's model: the core
 * allocates through a BkEnv whose ctx is that context.  The model is created
 * on the first usable row, because its dimension is that row's length
 * (training from parameters), or decoded from the base model on the first
 * call (warm start).  Every input row counts in the stream row number shown
 * in error messages, skipped or not.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "bk_pg_train.h"
#include "bk_label.h"

PG_FUNCTION_INFO_V1(bk_train_params_trans);
PG_FUNCTION_INFO_V1(bk_train_model_trans);
PG_FUNCTION_INFO_V1(bk_train_final);
PG_FUNCTION_INFO_V1(bk_train_seconds_final);
PG_FUNCTION_INFO_V1(bk_train_text_trans);


/* A new, empty training state in its own child context of parent. */
BkTrainState *
BkPgTrainStateNew(MemoryContext parent)
{
	MemoryContext mcxt = AllocSetContextCreate(parent, "budgetkernel training state",
											   ALLOCSET_DEFAULT_SIZES);
	BkTrainState *st = (BkTrainState *) MemoryContextAllocZero(mcxt, sizeof(BkTrainState));

	st->mcxt = mcxt;
	BkPgEnvInit(&st->env, mcxt);
	st->epochs = 1;
	st->first_row = GetCurrentTimestamp();
	return st;
}

/*
 * the argument after the features and the label: params, or the model
 * (argument 2 in the label-less forms of a catalogue older than 0.4.0)
 */
#define HAS_LABEL_ARG(st) ((st)->label_source != BK_LABEL_SOURCE_NONE)
#define AFTER_LABEL(st) (HAS_LABEL_ARG(st) ? 3 : 2)
/* the state is bk_continue's (its model decides the task), not bk_train's */
#define IS_CONTINUE(st) (strcmp((st)->fname, "bk_continue") == 0)

/*
 * The state of this aggregate call, created on the first call
 */
static BkTrainState *
bk_train_get_state(FunctionCallInfo fcinfo, const char *fname, bool *created)
{
	MemoryContext aggcontext;
	BkTrainState *st;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "%s called in non-aggregate context", fname);

	*created = false;
	if (!PG_ARGISNULL(0))
		return (BkTrainState *) PG_GETARG_POINTER(0);

	BkPgCheckNargs(fcinfo, fname);
	st = BkPgTrainStateNew(aggcontext);
	/*
	 * the same C functions serve the forms with a label (bk_label: its
	 * kind is read from the first row with one; a novelty detector's is
	 * NULL) and, for a catalogue older than 0.4.0, the forms without
	 * (novelty: a jsonb or bk_model second argument)
	 */
	st->label_source = BkPgLabelSource(BkPgArgType(fcinfo, 2));
	st->novelty = st->label_source == BK_LABEL_SOURCE_NONE;
	/* the parameters or the model, and for bk_continue the overrides */
	if (PG_NARGS() < AFTER_LABEL(st) + 1)
		elog(ERROR, "%s: called with %d arguments", fname, PG_NARGS());
	/*
	 * and every form of features (bk_features): the form is that of the
	 * first row with features (bk_train_row)
	 */
	st->features_type = BkPgArgType(fcinfo, 1);
	*created = true;
	return st;
}

/*
 * Finish the parameters for dimension dim, and check the size of the model
 * they make before anything big is allocated
 */
static void
bk_train_finish_params(BkParams *params, int dim)
{
	char		err[BK_ERRMSG_LEN];

	err[0] = '\0';
	if (!BkParamsFinish(params, dim, err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", err[0] ? err : "invalid parameters")));
	err[0] = '\0';
	if (!BkModelCheckSize(params, dim, MaxAllocSize, err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s", err[0] ? err : "model too large")));
}

/*
 * Create the model from the parameters, for dimension dim
 */
static void
bk_train_create_model(BkTrainState *st, int dim)
{
	bk_train_finish_params(&st->params, dim);
	st->model = BkModelCreate(&st->env, &st->params, dim);
	/* text labels are kept in UTF-8, whatever the database's encoding */
	BkModelSetLabelsUtf8(st->model, st->text_labels);
	BkModelSkip(st->model, (uint64_t) st->skipped);
	st->skipped = 0;
	if (st->classes != NULL)
		BkPgDeclareClasses(st->model, st->classes, st->text_labels);
	if (st->class_weight != NULL)
		BkPgApplyClassWeights(st->model, st->class_weight, st->text_labels);
	BkPgProgressStart(&st->progress, st->model);
	st->progress.activity = BkPgActivityBegin(st->mcxt, st->fname, NULL, &st->params,
											  st->epochs, st->first_row);
}

/*
 * Error context of the core's learning step: which row of the stream
 */
static void
bk_train_error_context(void *arg)
{
	const BkTrainState *st = (const BkTrainState *) arg;

	errcontext("%s, row %lld of the training stream", st->fname, (long long) st->row);
}

static const char *
form_name(BkFeatureForm form)
{
	return form == BK_FORM_NAMED ? "named features (jsonb)" :
		form == BK_FORM_SPARSE ? "sparse features (bk_sparse)" : "a features array";
}

/*
 * The form of a row's features (detoasted), which must be the first
 * row's: the preparation, the kept rows and the model are of one form
 */
static void
bk_train_check_form(BkTrainState *st, Datum features)
{
	BkFeatureForm form = BkPgFeaturesForm(features);

	if (!st->form_known)
	{
		st->form = form;
		st->form_known = true;
	}
	else if (form != st->form)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the features at row %lld are %s, those of the rows before %s",
						st->fname, (long long) st->row, form_name(form), form_name(st->form)),
				 errhint("Pass the features of one call in one form.")));
}

/*
 * The task of bk_train's rows, from the first row's label and the "task"
 * parameter: without one, a float8 or numeric label trains a regressor,
 * an integer or text one a classifier
 */
static void
bk_train_know_label(BkTrainState *st, const BkLabel *l)
{
	st->text_labels = l->kind == BK_LABEL_TEXT;
	switch ((BkTask) st->task)
	{
		case BK_TASK_DEFAULT:
			st->regression = BkPgLabelKindIsReal(l->kind);
			break;
		case BK_TASK_CLASSIFICATION:
			st->regression = false;
			break;
		case BK_TASK_REGRESSION:
			if (l->kind == BK_LABEL_TEXT)
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("bk_train: \"task\": \"regression\" needs numeric targets, and the labels are text"),
						 errhint("Pass the target as a number, for example target::float8.")));
			st->regression = true;
			break;
		case BK_TASK_NOVELTY:
			/* st->novelty is set from the task before any label is read */
			elog(ERROR, "bk_train: a novelty detector's label was read");
	}
}

/*
 * The row's label (not text) as the model learns it: a regressor's target
 * as float8, a classifier's label as int8 (a float8 or numeric one must be
 * an integer).  Every row's label has the first one's kind: a bk_label
 * column may mix them, a column of a type may not.
 */
static Datum
bk_train_label(const BkTrainState *st, FunctionCallInfo fcinfo)
{
	BkLabel		l;
	double		v;

	if (st->novelty)
		return BoolGetDatum(false); /* no label: a placeholder for the rows kept */
	BkPgLabelFrom(st->label_source, PG_GETARG_DATUM(2), &l);
	if ((l.kind == BK_LABEL_TEXT) != st->text_labels)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the label at row %lld is %s, and %s",
						st->fname, (long long) st->row, BkPgLabelKindName(l.kind),
						st->regression ? "the model is a regressor, whose targets are numbers" :
						st->text_labels ? "the model's labels are text" :
						"the model's labels are integers"),
				 errhint(st->text_labels ? "Pass the labels as text, for example label::text." :
						 "Pass the labels as numbers, for example label::int8.")));
	if (l.kind == BK_LABEL_TEXT)
		return PointerGetDatum(l.t);
	v = l.kind == BK_LABEL_INT ? (double) l.i : l.f;
	if (st->regression)
	{
		if (!isfinite(v))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: the target at row %lld is %g, not a finite number",
							st->fname, (long long) st->row, v),
					 errhint("Leave such rows out (WHERE target <> 'Infinity' AND target <> '-Infinity' AND target <> 'NaN'), or give them a finite target.")));
		return Float8GetDatum(v);
	}
	if (l.kind == BK_LABEL_INT)
		return Int64GetDatum(l.i);
	if (v != floor(v) || fabs(v) > 9007199254740991.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the label %g at row %lld is not an integer, and the model is a classifier",
						st->fname, v, (long long) st->row),
				 errhint("A classifier's labels are integers or text; without \"task\": \"classification\" a float8 or numeric target trains a regressor with bk_train.")));
	return Int64GetDatum((int64) v);
}

/*
 * One input row (arguments 1 = features, 2 = label)
 */
static void
bk_train_row(BkTrainState *st, FunctionCallInfo fcinfo)
{
	ArrayType  *a;
	const double *x;
	int			n;
	Datum		features;
	ErrorContextCallback errcallback;

	st->row++;

	/* a novelty detector learns from the features alone */
	if (st->novelty && HAS_LABEL_ARG(st) && !PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(IS_CONTINUE(st) ? ERRCODE_DATATYPE_MISMATCH : ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the label at row %lld is not NULL, and a novelty detector learns without labels",
						st->fname, (long long) st->row),
				 errhint(IS_CONTINUE(st) ?
						 "The model is a novelty detector: pass NULL as the label, bk_continue(features, NULL, model)." :
						 "Pass NULL as the label, bk_train(features, NULL, '{\"task\": \"novelty\"}'); for a classifier or a regressor, leave \"task\": \"novelty\" out.")));

	/* NULL label or NULL features: skipped and counted */
	if (PG_ARGISNULL(1) || (!st->novelty && PG_ARGISNULL(2)))
	{
		if (!PG_ARGISNULL(1))
			st->unlabelled++;
		if (!st->deferred && st->model != NULL)
			BkModelSkip(st->model, 1);
		else
			st->skipped++;
		return;
	}
	st->labelled++;

	/* per-row data (detoasted features, copies) stays in the tuple context */
	BkPgPrefetchNextRow(PG_GETARG_DATUM(1));
	features = BkPgDetoastRow(PG_GETARG_DATUM(1), &st->row_buf);
	bk_train_check_form(st, features);

	/* the first row of plain arrays makes the model (errors name no row) */
	x = NULL;
	if (st->model == NULL && st->fit == NULL && st->form == BK_FORM_SPARSE)
		n = ((const BkSparse *) DatumGetPointer(features))->dim;
	else if (st->model == NULL && st->fit == NULL)
	{
		a = DatumGetArrayTypeP(features);
		x = BkPgReadFeatures(a, st->row, &n);
	}
	if (st->model == NULL && st->fit == NULL)
	{
		/* deferred for the target alone: the model is made at the end */
		if (!st->deferred)
			bk_train_create_model(st, n);
		else if (st->deferred_dim == 0)
		{
			/* the dimension is checked now, as bk_train_create_model does */
			BkParams	p = st->params;

			bk_train_finish_params(&p, n);
			st->deferred_dim = n;
		}
	}

	/* errors of the core (an undeclared label, say) then name the row */
	errcallback.callback = bk_train_error_context;
	errcallback.arg = (void *) st;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;

	/*
	 * Fitting a preparation: the row counts in its statistics and is kept;
	 * the model is made, and learns, once every row has been seen.
	 */
	if (st->deferred)
	{
		Datum		label = bk_train_label(st, fcinfo);

		if (st->fit != NULL && !st->keep_rows)
			BkPgFitRow(st->fit, features, st->form, st->row);
		if (st->regression && !st->keep_rows)
			BkRunningSumsAdd(&st->target_fit, DatumGetFloat8(label));
		BkPgEpochRowsPut(st->rows, features, st->form, label);
		error_context_stack = errcallback.previous;
		BkPgProgressReading(&st->progress, st->row - st->skipped);
		return;
	}

	if (x == NULL)
		/* bk_continue counts the rows that lack the model's keys (bk_train fitted them) */
		x = BkPgModelRow(st->model, features, st->form, st->row, st->dim_source,
						 st->tally.mcxt != NULL ? &st->tally : NULL);

	if (st->text_labels)
	{
		text	   *t = (text *) DatumGetPointer(bk_train_label(st, fcinfo));
		size_t		len = VARSIZE_ANY_EXHDR(t);
		const char *label = BkPgLabelIn(st->model, VARDATA_ANY(t), &len);

		BkModelLearnText(st->model, x, label, len);
		if (st->rows != NULL)
			BkPgEpochRowsPut(st->rows, features, st->form, PointerGetDatum(t));
	}
	else
	{
		Datum		label = bk_train_label(st, fcinfo);

		if (st->novelty)
			BkModelLearnNovel(st->model, x);
		else if (st->regression)
			BkModelLearnValue(st->model, x, DatumGetFloat8(label));
		else
			BkModelLearn(st->model, x, DatumGetInt64(label));
		if (st->rows != NULL)
			BkPgEpochRowsPut(st->rows, features, st->form, label);
	}

	error_context_stack = errcallback.previous;
	BkPgProgress(&st->progress, st->model, st->fname, st->epochs > 1 ? 1 : 0);
}

/* the type of the labels kept (BkPgEpochRowsBegin): as bk_train_label gives them */
static Oid
bk_train_label_type(const BkTrainState *st)
{
	return st->novelty ? BOOLOID : st->text_labels ? TEXTOID :
		st->regression ? FLOAT8OID : INT8OID;
}

/* a regressor takes none of a classifier's parameters, and the reverse */
static void
bk_train_check_task(const BkTrainState *st)
{
	if (st->regression && (st->classes != NULL || st->class_weight != NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" applies to classifiers, and a float8 target trains a regressor",
						st->classes != NULL ? "classes" : "class_weight"),
				 errhint("For a classifier, pass the labels as integers or text, for example label::int8.")));
	if (!st->regression && st->spec.target_scale_given)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"target_scale\" applies to regression only (a float8 target)")));
	if (st->novelty && (st->classes != NULL || st->class_weight != NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" applies to classifiers, and \"task\": \"novelty\" trains a novelty detector",
						st->classes != NULL ? "classes" : "class_weight")));
}

/*
 * bk_train's parameters, from the jsonb document of the first row with
 * features (st->form known)
 */
static void
bk_train_read_params(BkTrainState *st, FunctionCallInfo fcinfo)
{
	BkPrepSpecInit(&st->spec, st->form == BK_FORM_NAMED);
	BkPgParamsFromJsonb(&st->params, PG_GETARG_JSONB_P(AFTER_LABEL(st)), &st->classes,
						&st->class_weight, &st->epochs, &st->spec, st->mcxt);
	st->params.regression = st->regression;
	st->params.novelty = st->novelty;
	bk_train_check_task(st);
	if (st->form == BK_FORM_SPARSE && BkPrepSpecActive(&st->spec))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"scale\" and \"impute\" do not apply to sparse features"),
				 errdetail("Standardising would centre the zeros, and a sparse vector has no missing value."),
				 errhint("Scale sparse features before training (for example by dividing each by its largest value).")));
	if (st->form == BK_FORM_NAMED || BkPrepSpecActive(&st->spec) ||
		(st->regression && st->spec.target_scale == BK_SCALE_STANDARD) ||
		st->keep_rows)
	{
		/*
		 * every row is kept: the model exists once the preparation or the
		 * target's standardisation is fitted
		 */
		st->deferred = true;
		if (st->form == BK_FORM_NAMED || BkPrepSpecActive(&st->spec))
			st->fit = BkPrepFitNew(&st->env, &st->spec, st->form == BK_FORM_NAMED);
		st->rows = BkPgEpochRowsBegin(fcinfo, st->mcxt, bk_train_label_type(st),
									  st->features_type, st->fname,
									  st->keep_rows ?
									  "training the search's models" :
									  st->form == BK_FORM_NAMED ?
									  "training on named features (jsonb)" :
									  st->fit != NULL ?
									  "fitting a preparation (\"scale\", \"impute\")" :
									  "standardising the target (\"target_scale\")");
		st->progress.start = GetCurrentTimestamp();
		st->progress.activity = BkPgActivityBegin(st->mcxt, st->fname, NULL, &st->params,
												  st->epochs, st->first_row);
	}
	else if (st->epochs > 1)
		st->rows = BkPgEpochRowsBegin(fcinfo, st->mcxt, bk_train_label_type(st),
									  st->features_type, st->fname, "\"epochs\"");
}

/*
 * bk_train(features, label, params jsonb) transition function; the
 * document is read once, from the first row.  keep_rows: the state keeps
 * every row and learns none (BkPgTrainKeepRow).
 */
static BkTrainState *
params_trans(FunctionCallInfo fcinfo, bool keep_rows)
{
	bool		created;
	BkTrainState *st = bk_train_get_state(fcinfo, "bk_train_params_trans", &created);

	if (PG_ARGISNULL(AFTER_LABEL(st)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("params must not be NULL"),
				 errhint("Pass '{}' to use the default parameters.")));

	if (created)
	{
		st->fname = "bk_train";
		st->keep_rows = keep_rows;
		st->dim_source = "the first row's";
		/* a novelty detector's rows have no label: known before any row */
		if (HAS_LABEL_ARG(st) &&
			BkPgTaskFromJsonb(PG_GETARG_JSONB_P(AFTER_LABEL(st))) == BK_TASK_NOVELTY)
			st->novelty = true;
	}

	/*
	 * The document is read with the first row of features: what it makes
	 * (a preparation to fit, the rows kept) depends on their form.  A
	 * first row without features has its document checked all the same.
	 */
	if (!st->form_known && !PG_ARGISNULL(1) && (st->novelty || !PG_ARGISNULL(2)))
	{
		/* the task: the label's kind, or the one the document names */
		st->task = (int) BkPgTaskFromJsonb(PG_GETARG_JSONB_P(AFTER_LABEL(st)));
		if (!HAS_LABEL_ARG(st) && st->task != BK_TASK_DEFAULT && st->task != BK_TASK_NOVELTY)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bk_train: \"task\": \"%s\" needs a label, and bk_train(features, params) has none",
							BkPgTaskName((BkTask) st->task)),
					 errhint("Pass the label: bk_train(features, label, params).")));
		if (!st->novelty)
		{
			BkLabel		l;

			BkPgLabelFrom(st->label_source, PG_GETARG_DATUM(2), &l);
			bk_train_know_label(st, &l);
		}
		bk_train_check_form(st, PointerGetDatum(PG_DETOAST_DATUM(PG_GETARG_DATUM(1))));
		bk_train_read_params(st, fcinfo);
	}
	else if (created)
	{
		BkParams	params;
		BkPrepSpec	spec;
		Jsonb	   *classes,
				   *class_weight;
		int			epochs;

		BkPrepSpecInit(&spec, false);
		BkPgParamsFromJsonb(&params, PG_GETARG_JSONB_P(AFTER_LABEL(st)), &classes,
							&class_weight, &epochs, &spec, CurrentMemoryContext);
		(void) BkPgTaskFromJsonb(PG_GETARG_JSONB_P(AFTER_LABEL(st)));
	}

	bk_train_row(st, fcinfo);
	return st;
}

Datum
bk_train_params_trans(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(params_trans(fcinfo, false));
}

BkTrainState *
BkPgTrainKeepRow(FunctionCallInfo fcinfo)
{
	return params_trans(fcinfo, true);
}

/*
 * The state of one setting of a search (bk_train_folds.c): the rows and
 * the preparation's fit of from (its rows kept: BkPgTrainKeepRow), the
 * parameters of params.  Their preparation and task must be from's:
 * those were fitted with its rows.
 */
void
BkPgTrainSetting(BkTrainState *st, const BkTrainState *from, Jsonb *params)
{
	BkPrepSpec	spec;

	*st = *from;
	if (BkPgTaskFromJsonb(params) != (BkTask) from->task)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the settings of one search train models of one \"task\"")));
	BkPrepSpecInit(&spec, from->form == BK_FORM_NAMED);
	/* the document sets them only where it names them */
	st->classes = NULL;
	st->class_weight = NULL;
	BkPgParamsFromJsonb(&st->params, params, &st->classes, &st->class_weight,
						&st->epochs, &spec, from->mcxt);
	if (spec.scale != from->spec.scale || spec.impute != from->spec.impute ||
		spec.max_levels != from->spec.max_levels ||
		spec.target_scale != from->spec.target_scale ||
		spec.target_scale_given != from->spec.target_scale_given)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the settings of one search share their preparation (\"scale\", \"impute\", \"max_levels\", \"target_scale\")")));
	st->params.regression = from->regression;
	st->params.novelty = from->novelty;
	bk_train_check_task(st);
}

/*
 * The transition function of 0.1.0's bk_train(features, label, params
 * text), which 0.2.0 dropped (a literal resolves to jsonb).  It stays
 * defined so that 0.1.0's install script still loads, and the SQL objects
 * of a database not yet updated say what to do instead of failing to
 * find a symbol.
 */
Datum
bk_train_text_trans(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("bk_train with text params: the extension's SQL objects are older than its library"),
			 errhint("Run ALTER EXTENSION budgetkernel UPDATE; then params are jsonb, and a string literal works as before.")));
	PG_RETURN_NULL();
}

/*
 * bk_continue(features, label, model [, overrides]) transition function:
 * continue training the model with its own parameters.  Its classes are
 * frozen once it has two: a label it has not seen is an error, unless the
 * overrides allow new classes (a one-class model takes its second class
 * in any case).
 */
Datum
bk_train_model_trans(PG_FUNCTION_ARGS)
{
	bool		created;
	BkTrainState *st = bk_train_get_state(fcinfo, "bk_train_model_trans",
										  &created);

	int			model_arg = AFTER_LABEL(st);

	if (PG_ARGISNULL(model_arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("model must not be NULL")));

	/* the base model is decoded once, on the first row */
	if (created)
	{
		BkModelInfo info;
		BkOverrides overrides = {false, 1};

		if (PG_NARGS() > model_arg + 1 && PG_ARGISNULL(model_arg + 1))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("overrides must not be NULL"),
					 errhint("Pass '{}' for none.")));
		st->model = BkPgDecodeDatum(PG_GETARG_DATUM(model_arg), st->mcxt, true);
		BkPgModelIdOf(PG_GETARG_DATUM(model_arg), &st->base);
		st->tally.mcxt = st->mcxt;
		BkPgCheckLegacyLabels(st->model);
		{
			uint8		fp[BK_FINGERPRINT_LEN];

			/*
			 * provenance: continued from this model, whose counts a merge
			 * of models continued from it counts once
			 */
			BkPgFingerprint(PG_GETARG_DATUM(model_arg), fp);
			BkModelSetParent(st->model, fp);
			BkModelSetBase(st->model, fp);
		}
		if (PG_NARGS() > model_arg + 1)
			BkPgOverridesFromJsonb(PG_GETARG_JSONB_P(model_arg + 1), &overrides, st->model);
		BkModelGetInfo(st->model, &info);
		BkModelFreezeClasses(st->model,
							 info.n_classes >= 2 && !overrides.allow_new_classes);
		st->params = *info.params;
		st->dim_source = "the model's";
		st->fname = "bk_continue";
		/*
		 * the model says what its labels are: a regressor's targets are
		 * numbers, a classifier's labels text or integers (a float8 or
		 * numeric label must then be an integer)
		 */
		st->regression = info.params->regression;
		/* a detector's rows have a NULL label (or, before 0.4.0, none) */
		if (HAS_LABEL_ARG(st))
			st->novelty = info.params->novelty;
		st->text_labels = info.text_labels && !st->regression && !st->novelty;
		if (PG_NARGS() > model_arg + 1)
		{
			BkTask		task = BkPgTaskFromJsonb(PG_GETARG_JSONB_P(model_arg + 1));
			BkTask		is = info.params->novelty ? BK_TASK_NOVELTY :
				st->regression ? BK_TASK_REGRESSION : BK_TASK_CLASSIFICATION;

			if (task != BK_TASK_DEFAULT && task != is)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("bk_continue: \"task\" cannot change: the model's task is %s, not %s",
								BkPgTaskName(is), BkPgTaskName(task))));
		}
		/* the label-less form of a catalogue older than 0.4.0 */
		if (st->novelty != info.params->novelty)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("bk_continue without a label continues a novelty detector, and the model is a %s",
							info.params->regression ? "regressor" : "classifier"),
					 errhint("Pass the rows' labels: bk_continue(features, label, model).")));
		st->epochs = overrides.epochs;
		if (st->epochs > 1)
			st->rows = BkPgEpochRowsBegin(fcinfo, st->mcxt, bk_train_label_type(st),
										  st->features_type, st->fname, "\"epochs\"");
		BkPgProgressStart(&st->progress, st->model);
		st->progress.activity = BkPgActivityBegin(st->mcxt, st->fname, st->model, &st->params,
												  st->epochs, st->first_row);
	}
	else
	{
		/* one model a call: a join that pairs the rows with two models learns each row twice */
		BkPgModelId id;

		BkPgModelIdOf(PG_GETARG_DATUM(model_arg), &id);
		if (!BkPgModelIdEqual(&id, &st->base))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bk_continue continues one model: row %lld has another model than the first row",
							(long long) st->row + 1),
					 errhint("Continue each model in its own call, for example with GROUP BY the model's key, or pick one model in a subquery.")));
	}

	bk_train_row(st, fcinfo);

	PG_RETURN_POINTER(st);
}

/*
 * Raise an error unless the encoded model passes the decoder's validation
 */
static void
bk_train_check_result(const uint8_t *buf, size_t len, const char *fname)
{
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code = BK_ERR_CORRUPT;

	err[0] = '\0';
	if (BkFormatValidate(buf, len, err, sizeof(err), &code))
		return;
	if (code == BK_ERR_OVERFLOW)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s overflowed: the model holds a value that is not finite or out of range", fname ? fname : "bk_train"),
				 errdetail("%s", BkPgSentence(err)),
				 errhint("Scale the features, or use smaller steps (a larger lambda, a smaller C or eta).")));
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("%s produced a model that fails validation", fname ? fname : "bk_train"),
			 errdetail("%s", BkPgSentence(err))));
}

/*
 * The model as a bk_model value, checked by the validator: nothing we
 * return may fail our own validation.  The learning steps check the scores
 * and running sums of every row, and this, one linear pass over the bytes,
 * catches whatever overflowed on the last row (or in a merge).
 */
struct varlena *
BkPgEncodeModel(const BkModel *m, const char *fname)
{
	size_t		size;
	char		err[BK_ERRMSG_LEN];
	struct varlena *result;

	err[0] = '\0';
	if (!BkModelEncodedSize(m, BK_MAX_MODEL_BYTES, &size, err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s", err[0] ? err : "model too large to encode"),
				 errhint("Lower the budget (or max_sv).")));

	/* not zeroed: the encoder writes every byte (a unit test checks) */
	result = (struct varlena *) palloc(VARHDRSZ + size);
	SET_VARSIZE(result, VARHDRSZ + size);
	BkModelEncode(m, (uint8_t *) VARDATA(result), size);
	bk_train_check_result((const uint8_t *) VARDATA(result), size, fname);
	return result;
}

/*
 * bk_train final function: the encoded model, or NULL if no row was usable
 *
 * FINALFUNC_MODIFY = READ_ONLY: this must not change the state, so that
 * the aggregate works as a window function and states can be shared.
 */
Datum
bk_train_final(PG_FUNCTION_ARGS)
{
	BkTrainState *st;
	struct varlena *result;
	BkModelInfo info;
	BkModel    *trained;
	BkModel    *first;
	MemoryContext replay = NULL;
	int			context = AggCheckCallContext(fcinfo, NULL);

	if (!context)
		elog(ERROR, "%s called in non-aggregate context", "bk_train_final");

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (BkTrainState *) PG_GETARG_POINTER(0);
	first = st->model;
	if (st->deferred)
	{
		replay = AllocSetContextCreate(CurrentMemoryContext,
									   "budgetkernel prepared training", ALLOCSET_DEFAULT_SIZES);
		first = BkPgTrainPrepared(st, replay);
	}
	if (first != NULL)
		BkModelGetInfo(first, &info);
	if (first == NULL || info.rows_seen == 0)
	{
		if (context == AGG_CONTEXT_AGGREGATE && st->unlabelled > 0 && st->labelled == 0)
			ereport(WARNING,
					(errmsg("%s: every row with features had a NULL label, so no model was trained",
							st->fname),
					 errhint("A classifier or a regressor learns from labelled rows; a novelty detector learns without labels: pass \"task\": \"novelty\" in the params.")));
		if (replay != NULL)
			MemoryContextDelete(replay);
		PG_RETURN_NULL();
	}

	/*
	 * More passes ("epochs", only in a plain aggregate call) train a copy,
	 * so that the state stays as it is (FINALFUNC_MODIFY = READ_ONLY).
	 * (A state merged from parallel workers has had its passes, each over
	 * its own rows, before it was serialized: bk_merge_agg.c.)
	 */
	trained = first;
	if (st->epochs > 1 && st->rows != NULL)
	{
		if (replay == NULL)
			replay = AllocSetContextCreate(CurrentMemoryContext,
										   "budgetkernel epochs", ALLOCSET_DEFAULT_SIZES);
		trained = BkPgEpochsReplay(first, st->rows, st->epochs, st->fname,
								   &st->progress, replay);
	}
	/*
	 * bk_merge of parts whose union outgrew the budget: distilled, on a
	 * copy; or, where the union outgrew the fold, retrained from it
	 */
	if (st->union_model != NULL)
	{
		if (replay == NULL)
			replay = AllocSetContextCreate(CurrentMemoryContext,
										   "budgetkernel distil", ALLOCSET_DEFAULT_SIZES);
		trained = BkPgDecodeDatum(PointerGetDatum(BkPgEncodeModel(st->model, st->fname)),
								  replay, true);
		if (st->fold_stopped)
			BkPgMergeRetrain(trained, st->union_model, st->fname);
		else
			BkPgMergeDistil(trained, st->union_model, st->fname);
	}

	result = BkPgEncodeModel(trained, st->fname);

	/*
	 * As a window function this runs once per row: warn only once.  The
	 * order is the first pass's; the model judged is the one returned.
	 */
	if (context == AGG_CONTEXT_AGGREGATE)
	{
		if (st->unlabelled > 0 && st->labelled == 0)
			ereport(WARNING,
					(errmsg("%s: every row with features had a NULL label, so the model learned no row",
							st->fname),
					 errhint("A classifier or a regressor learns from labelled rows; only a novelty detector's rows have a NULL label.")));
		BkPgWarnKeys(&st->tally, st->fname);
		BkPgWarnRun(first, trained, st->fname);
	}
	if (replay != NULL)
		MemoryContextDelete(replay);
	/* the run is over (a window function's goes on with the next row) */
	if (context == AGG_CONTEXT_AGGREGATE)
		BkPgActivityEnd(st->progress.activity);

	PG_RETURN_POINTER(result);
}

/*
 * _bk_train_seconds final function, for the catalogues before 0.4.0 (their
 * bk_cross_validate timed its models with it; 0.4.0's trains them with
 * _bk_train_folds, bk_train_folds.c): the seconds since the state took its
 * first row.  Its aggregates take bk_train's arguments, transition
 * function and state, and have read-only final functions, so that in one
 * query with bk_train of the same arguments PostgreSQL shares the one
 * state: the model is trained once, and this reads the time it took.
 * Finalised after bk_train (later in the select list), the time includes
 * bk_train's final work (the passes of "epochs", a prepared model's
 * training).  Under ORDER BY in the call, a group's rows reach the
 * transition function one after the other when the group is finished, so
 * the time is that group's; without it, the groups' rows interleave and
 * it is the span of the scan.
 */
Datum
bk_train_seconds_final(PG_FUNCTION_ARGS)
{
	BkTrainState *st;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "%s called in non-aggregate context", "bk_train_seconds_final");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (BkTrainState *) PG_GETARG_POINTER(0);
	PG_RETURN_FLOAT8((double) (GetCurrentTimestamp() - st->first_row) / USECS_PER_SEC);
}

BkModel *
BkPgTrainPrepared(const BkTrainState *st, MemoryContext cxt)
{
	BkModel    *m = BkPgTrainPreparedModel(st, cxt);
	BkProgress	progress;
	MemoryContext old;

	if (m == NULL)
		return NULL;
	old = MemoryContextSwitchTo(cxt);
	BkPgProgressStart(&progress, m);
	progress.start = st->progress.start;
	progress.activity = st->progress.activity;
	BkPgRowsLearnInOrder(m, st->rows, st->fname, &progress);
	MemoryContextSwitchTo(old);
	return m;
}

BkModel *
BkPgTrainPreparedModel(const BkTrainState *st, MemoryContext cxt)
{
	MemoryContext old;
	BkEnv		env;
	BkParams	params = st->params;
	BkPrep	   *prep;
	BkModel    *m;
	int			dim;

	if (st->rows == NULL || BkPgEpochRowsCount(st->rows) == 0)
		return NULL;
	old = MemoryContextSwitchTo(cxt);
	BkPgEnvInit(&env, cxt);
	prep = st->fit != NULL ? BkPrepFitFinish(st->fit, &env) : NULL;
	dim = prep != NULL ? BkPrepDim(prep) : st->deferred_dim;
	bk_train_finish_params(&params, dim);
	m = BkModelCreate(&env, &params, dim);
	BkModelSetLabelsUtf8(m, st->text_labels);
	if (prep != NULL)
		BkModelSetPrep(m, prep);
	if (st->regression && st->spec.target_scale == BK_SCALE_STANDARD)
	{
		double		mean,
					sd;

		BkRunningSumsMoments(&st->target_fit, &mean, &sd);
		BkModelSetTargetScale(m, mean, sd);
	}
	BkModelSkip(m, (uint64_t) st->skipped);
	if (st->classes != NULL)
		BkPgDeclareClasses(m, st->classes, st->text_labels);
	if (st->class_weight != NULL)
		BkPgApplyClassWeights(m, st->class_weight, st->text_labels);
	MemoryContextSwitchTo(old);
	return m;
}
