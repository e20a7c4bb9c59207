/*
 * bk_calibration.c
 *	  bk_calibrate(model, features, label): the model with Platt scaling
 *	  fitted on the rows (held-out rows, not the training ones), so that
 *	  bk_probabilities and bk_predict_probability can turn its scores into
 *	  probabilities.  The fit is the core's (bk_calibrate.c).
 *
 * The state keeps every row's class scores and class (8 bytes per class
 * and 4 per row), and the final function fits one sigmoid per class.  The
 * model argument must be the same on every row: the first row's is
 * calibrated, and a row with another model is an error.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "bk_pg.h"
#include "bk_label.h"

PG_FUNCTION_INFO_V1(bk_calibrate_trans);
PG_FUNCTION_INFO_V1(bk_calibrate_final);

typedef struct CalibState
{
	MemoryContext mcxt;
	BkEnv		env;
	BkModel    *model;			/* decoded for training (it is encoded again) */
	bool		text_labels;	/* the model's labels are text */
	int			label_source;	/* BkPgLabelSource of the label argument */
	int			n_classes;
	int			dim;
	BkPgModelId first_model;	/* which model the first row had */
	BkPgKeyTally tally;			/* rows of named features that lacked keys */
	int64		row;			/* rows seen, skipped or not */
	int64		n;				/* rows kept */
	int64		cap;
	double	   *scores;			/* n x n_classes */
	int32	   *cls;			/* n */
} CalibState;

/* the most rows kept: the scores of all classes within 1 GB */
static int64
max_rows(const CalibState *s)
{
	return (int64) (MaxAllocSize / (sizeof(double) * (Size) s->n_classes));
}

/* Record which model the first row had, or check that this row has it. */
static void
check_same_model(CalibState *s, Datum d, bool first)
{
	BkPgModelId id;

	BkPgModelIdOf(d, &id);
	if (first)
		s->first_model = id;
	else if (!BkPgModelIdEqual(&id, &s->first_model))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bk_calibrate calibrates one model: row %lld has another model than the first row",
						(long long) s->row),
				 errhint("Calibrate each model in its own call, for example with GROUP BY the model's key.")));
}

Datum
bk_calibrate_trans(PG_FUNCTION_ARGS)
{
	MemoryContext agg;
	CalibState *s;
	const double *x;
	int			c;

	if (!AggCheckCallContext(fcinfo, &agg))
		elog(ERROR, "bk_calibrate_trans called in non-aggregate context");
	if (PG_ARGISNULL(0))
	{
		MemoryContext mcxt = AllocSetContextCreate(agg, "budgetkernel calibration",
												   ALLOCSET_DEFAULT_SIZES);

		s = MemoryContextAllocZero(mcxt, sizeof(CalibState));
		s->tally.mcxt = mcxt;
		s->mcxt = mcxt;
		BkPgEnvInit(&s->env, mcxt);
		s->label_source = BkPgLabelSource(BkPgArgType(fcinfo, 3));
	}
	else
		s = (CalibState *) PG_GETARG_POINTER(0);
	s->row++;
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("model must not be NULL")));
	/* NULL features or label: the row is skipped */
	if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
		PG_RETURN_POINTER(s);

	if (s->model == NULL)
	{
		BkModelInfo info;

		s->model = BkPgDecodeDatum(PG_GETARG_DATUM(1), s->mcxt, true);
		BkPgCheckLegacyLabels(s->model);
		BkModelGetInfo(s->model, &info);
		if (info.params->regression || info.params->novelty)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bk_calibrate calibrates a classifier's scores, and the model is a %s",
							info.params->regression ? "regressor" : "novelty detector"),
					 errhint(info.params->regression ?
							 "bk_predict_value gives a regressor's prediction, and bk_metrics(actual, predicted) its errors on held-out rows." :
							 "bk_novelty gives a detector's score; doc/novelty.md sets its threshold on held-out rows.")));
		if (info.n_classes < 2)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bk_calibrate needs a model of two classes or more, got %d",
							info.n_classes)));
		s->text_labels = info.text_labels;
		s->n_classes = info.n_classes;
		s->dim = info.dim;
		check_same_model(s, PG_GETARG_DATUM(1), true);
		{
			uint8		fp[BK_FINGERPRINT_LEN];

			/* provenance: calibrated from this model */
			BkPgFingerprint(PG_GETARG_DATUM(1), fp);
			BkModelSetParent(s->model, fp);
		}
	}
	else
		check_same_model(s, PG_GETARG_DATUM(1), false);

	{
		/* detoasted once here; the form from the bytes (bk_features) */
		Datum		features = PointerGetDatum(PG_DETOAST_DATUM(PG_GETARG_DATUM(2)));

		x = BkPgScoringRow(s->model, features, BkPgFeaturesForm(features), s->row,
						   "the model's", &s->tally);
	}
	{
		BkLabel		l;

		BkPgLabelFrom(s->label_source, PG_GETARG_DATUM(3), &l);
		c = BkPgLabelClass(s->model, &l, "bk_calibrate", s->row);
	}

	if (s->n == s->cap)
	{
		int64		cap = s->cap == 0 ? 1024 : 2 * s->cap;

		if (s->n >= max_rows(s))
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("bk_calibrate keeps at most %lld rows for a model of %d classes",
							(long long) max_rows(s), s->n_classes),
					 errhint("Calibrate on a sample of the held-out rows.")));
		if (cap > max_rows(s))
			cap = max_rows(s);
		s->scores = s->scores ?
			repalloc(s->scores, sizeof(double) * (Size) cap * s->n_classes) :
			MemoryContextAlloc(s->mcxt, sizeof(double) * (Size) cap * s->n_classes);
		s->cls = s->cls ? repalloc(s->cls, sizeof(int32) * (Size) cap) :
			MemoryContextAlloc(s->mcxt, sizeof(int32) * (Size) cap);
		s->cap = cap;
	}
	BkModelScores(s->model, x, s->scores + (Size) s->n * s->n_classes);
	s->cls[s->n++] = c;
	PG_RETURN_POINTER(s);
}

/*
 * The calibrated model: one sigmoid per class, fitted on that class's
 * score of every row against whether the row is of the class.  NULL when
 * no row was usable.  FINALFUNC_MODIFY = READ_WRITE: it stores the fit in
 * the state's model.
 */
Datum
bk_calibrate_final(PG_FUNCTION_ARGS)
{
	CalibState *s;
	double	   *f,
			   *A,
			   *B;
	bool	   *pos;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "bk_calibrate_final called in non-aggregate context");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (CalibState *) PG_GETARG_POINTER(0);
	if (s->model == NULL || s->n == 0)
		PG_RETURN_NULL();

	/*
	 * Each class's sigmoid separates its rows from the others': it needs
	 * both.  Rows of one class only fit A = 0 and a B that gives that class
	 * a probability near 1 for every row, whatever its score.
	 */
	{
		int64	   *count = palloc0(sizeof(int64) * (Size) s->n_classes);

		for (int64 i = 0; i < s->n; i++)
			count[s->cls[i]]++;
		for (int c = 0; c < s->n_classes; c++)
			if (count[c] == 0 || count[c] == s->n)
			{
				const char *name = s->text_labels ? BkPgClassName(s->model, c) :
					psprintf(INT64_FORMAT, (int64) BkModelClassLabel(s->model, c));

				if (count[c] == 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("bk_calibrate needs rows of every class of the model: none of the %lld calibration rows is of class \"%s\"",
									(long long) s->n, name),
							 errhint("Calibrate on held-out rows that hold every class, for example WHERE bk_fold(id, 7, 10) = 0 of a table of all classes.")));
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("bk_calibrate needs rows of more than one class: all %lld calibration rows are of class \"%s\"",
								(long long) s->n, name),
						 errhint("Calibrate on held-out rows that hold every class, for example WHERE bk_fold(id, 7, 10) = 0 of a table of all classes.")));
			}
		pfree(count);
	}

	f = palloc(sizeof(double) * (Size) s->n);
	pos = palloc(sizeof(bool) * (Size) s->n);
	A = palloc(sizeof(double) * (Size) s->n_classes);
	B = palloc(sizeof(double) * (Size) s->n_classes);
	for (int c = 0; c < s->n_classes; c++)
	{
		for (int64 i = 0; i < s->n; i++)
		{
			f[i] = s->scores[(Size) i * s->n_classes + c];
			pos[i] = s->cls[i] == c;
		}
		if (!BkPlattFit(&s->env, f, pos, s->n, &A[c], &B[c]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("bk_calibrate: no finite sigmoid fits the scores of class %d", c)));
	}
	BkModelSetCalibration(s->model, A, B);
	BkPgWarnKeys(&s->tally, "bk_calibrate");
	PG_RETURN_POINTER(BkPgEncodeModel(s->model, "bk_calibrate"));
}
