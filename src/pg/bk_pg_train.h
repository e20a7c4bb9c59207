/*
 * bk_pg_train.h
 *	  What the training aggregates of the PostgreSQL layer share: their
 *	  parameters (jsonb), the rows kept for more passes, progress, the
 *	  state of bk_train and bk_continue, and the merge's glue.
 *
 * The rest of the layer (errors, models as datums, features, labels)
 * is bk_pg.h, which this includes.
 */
#ifndef BK_PG_TRAIN_H
#define BK_PG_TRAIN_H

#include "bk_pg.h"

/* ------------------------------------------------------------------------
 * bk_params_jsonb.c: jsonb parameters
 * ------------------------------------------------------------------------
 */

/* the largest "epochs" */
#define BK_MAX_EPOCHS 1000
/* "epochs" of a jsonb value; errors name the document ("params", "overrides") */
extern int	BkPgEpochsFromJsonb(const JsonbValue *v, const char *document);

/*
 * bk_overrides.c: the overrides of bk_continue(features, label, model,
 * overrides), read with bk_params_jsonb.c's readers (never the reverse)
 */
typedef struct BkOverrides
{
	bool		allow_new_classes;	/* a label the model has not seen adds a class */
	int			epochs;			/* passes over the rows (1: none more) */
} BkOverrides;

/*
 * bk_epochs.c: the passes after the first.  The rows are kept (within
 * work_mem, spilling to temporary files) as the first pass learns them.
 */
typedef struct BkEpochRows BkEpochRows;
extern BkEpochRows *BkPgEpochRowsBegin(FunctionCallInfo fcinfo, MemoryContext cxt,
										Oid label_type, Oid features_type,
										const char *fname, const char *why);
/* keep a row; form: its features' (every row of a call has the same) */
extern void BkPgEpochRowsPut(BkEpochRows *r, Datum features, BkFeatureForm form,
							 Datum label);
extern int64 BkPgEpochRowsCount(const BkEpochRows *r);
/* the kept labels' type: INT8OID, TEXTOID, FLOAT8OID or BOOLOID (none) */
extern Oid	BkPgEpochRowsLabelType(const BkEpochRows *r);
/*
 * Read the rows without those of one fold (a search's held-out fold):
 * fold_of[i] the fold of the row kept i-th, fold the one left out (the
 * rows that remain are numbered and replayed as if they were all); NULL:
 * every row again.  BkPgEpochRowsCount then counts the rows that remain.
 */
extern void BkPgEpochRowsSkipFold(BkEpochRows *r, const uint8 *fold_of, int fold);
/* fit and target (either NULL) fitted on the rows, in their order */
extern void BkPgEpochRowsFit(BkEpochRows *r, BkPrepFit *fit, BkRunningSums *target);
/*
 * A copy of m trained on epochs - 1 more passes over the rows, pass p in
 * the order of bk_shuffle_key(position in the first pass, seed + p - 1);
 * from: the first pass's progress (its start, its bk_training_progress run)
 */
struct BkProgress;
extern BkModel *BkPgEpochsReplay(const BkModel *m, BkEpochRows *r, int epochs,
								 const char *fname, const struct BkProgress *from,
								 MemoryContext cxt);
/*
 * Prepare the rows once, by m's preparation, for the models of that
 * preparation (a search's settings on one fold): the passes of
 * BkPgRowsLearnInOrder and BkPgEpochsReplay then learn them from that
 * matrix, in the same orders, so the same bytes, until the next
 * BkPgEpochRowsSkipFold.  False (and the store is read) when they would
 * take more than limit bytes.
 */
typedef struct BkPreparedRows BkPreparedRows;
extern bool BkPgEpochRowsPrepare(BkEpochRows *r, BkModel *m, const char *fname,
								 Size limit, MemoryContext cxt);
/*
 * The rows of the fold left out (BkPgEpochRowsSkipFold), to score a
 * search's models on: prepared once as scoring prepares them
 * (BkPgScoringRow) by m, a model of the fold's preparation, when they are
 * dense and take at most limit bytes (else NULL); then
 * BkPgEpochRowsEachHeldOut gives each row, as prepared, and its label to
 * visit (from the store, prepared by m, where held is NULL).
 */
typedef void (*BkHeldOutVisit) (const double *x, Datum label, void *arg);
extern BkPreparedRows *BkPgEpochRowsHeldOut(BkEpochRows *r, BkModel *m, const char *fname,
											Size limit, MemoryContext cxt);
extern void BkPgEpochRowsEachHeldOut(BkEpochRows *r, const BkPreparedRows *held, BkModel *m,
									 const char *fname, BkHeldOutVisit visit, void *arg);
/* the overrides of jb into o, and the learner's parameters into m */
extern void BkPgOverridesFromJsonb(Jsonb *jb, BkOverrides *o, BkModel *m);
/* what a jsonb value is, for the core's parameter checks (BkParamInput) */
extern void BkPgParamInput(const JsonbValue *v, BkParamInput *in);
/* each key of a parameter document through set (false: an error, 22023) */
typedef bool (*BkPgParamSetter) (void *target, const char *key, const BkParamInput *in,
								 char *err, size_t errlen);
extern void BkPgEachParam(Jsonb *jb, const char *fname, BkPgParamSetter set, void *target);

extern void BkPgParamsFromJsonb(BkParams *p, Jsonb *jb, Jsonb **classes,
								Jsonb **class_weight, int *epochs,
								BkPrepSpec *spec, MemoryContext classes_cxt);
extern void BkPgDeclareClasses(BkModel *m, Jsonb *classes, bool text_labels);

/*
 * bk_progress.c: budgetkernel.progress_interval, and the NOTICEs of a
 * training run every that many rows learned
 */
extern int	bk_progress_interval;
typedef struct BkProgress
{
	TimestampTz start;			/* the aggregate's first row */
	uint64		rows_at_last;	/* rows_seen at the last NOTICE */
	uint64		mistakes_at_last;
	/* bk_training_progress (bk_activity.h): the run, and rows to its next tick */
	BkActivity *activity;
	int			activity_countdown;
} BkProgress;
extern void BkPgProgressStart(BkProgress *pr, const BkModel *m);
extern void BkPgProgressReport(BkProgress *pr, const BkModel *m,
							   const char *fname, int pass);

/*
 * A NOTICE if rows_seen crossed a multiple of the interval; pass 0: no
 * pass.  And every BK_ACTIVITY_ROWS rows, the run's numbers to
 * bk_training_progress (bk_activity.c).  Called for every row: inline, so
 * that progress off costs a test, and the view a decrement and a test.
 */
static inline void
BkPgProgress(BkProgress *pr, const BkModel *m, const char *fname, int pass)
{
	if (bk_progress_interval > 0)
		BkPgProgressReport(pr, m, fname, pass);
	if (unlikely(--pr->activity_countdown <= 0))
	{
		pr->activity_countdown = BK_ACTIVITY_ROWS;
		BkPgActivityTick(pr->activity, m, 0, pass);
	}
}

/* the same while the rows are only read and kept (no model yet): rows read */
static inline void
BkPgProgressReading(BkProgress *pr, int64 rows_read)
{
	if (unlikely(--pr->activity_countdown <= 0))
	{
		pr->activity_countdown = BK_ACTIVITY_ROWS;
		BkPgActivityTick(pr->activity, NULL, rows_read, 1);
	}
}
/* one pass over the kept rows in the order they came (the first pass) */
extern void BkPgRowsLearnInOrder(BkModel *m, BkEpochRows *r, const char *fname,
								 BkProgress *progress);

/* ------------------------------------------------------------------------
 * bk_train.c: the state of the training aggregates (bk_train, bk_continue,
 * bk_merge), shared with their combine, serialize and deserialize
 * functions (bk_merge_agg.c)
 * ------------------------------------------------------------------------
 */
typedef struct BkTrainState
{
	MemoryContext mcxt;			/* holds this struct and the model */
	BkEnv		env;			/* ctx = mcxt */
	BkParams	params;			/* read from the first row's jsonb */
	BkModel    *model;			/* NULL until the first usable row */
	Jsonb	   *classes;		/* the "classes" parameter, or NULL */
	Jsonb	   *class_weight;	/* the "class_weight" parameter, or NULL */
	/*
	 * The labels are text (else numbers): from the first row with a label
	 * (bk_train_know_label), or for bk_continue from the model; every
	 * row's label must be of that kind
	 */
	bool		text_labels;
	int			task;			/* BkTask: the "task" parameter */
	int			label_source;	/* BkPgLabelSource of the label argument */
	bool		regression;		/* the model is (or will be) a regressor */
	/*
	 * A novelty detector: "task": "novelty" in bk_train's params, or a
	 * detector given to bk_continue (every row's label NULL); or the call
	 * of a catalogue older than 0.4.0 has no label argument (bk_train(
	 * features, params), bk_continue(features, model)), and its params or
	 * model is argument 2, not 3
	 */
	bool		novelty;
	int64		unlabelled;		/* rows with features and a NULL label */
	int64		labelled;		/* rows with features and a label (or a detector's) */
	/* the model is made once every row is seen: a fitted preparation or target */
	bool		deferred;
	/*
	 * every row is kept, and none fitted or learned: a search's rows
	 * (BkPgTrainKeepRow), each fold's preparation fitted by its caller
	 */
	bool		keep_rows;
	BkRunningSums target_fit;		/* the targets' sums, when standardised */
	int			deferred_dim;	/* deferred without a preparation: the first row's */
	const char *dim_source;		/* what the expected dimension is */
	const char *fname;			/* bk_train or bk_continue, for messages */
	int64		skipped;		/* rows skipped before the model existed */
	int64		row;			/* 1-based stream row number */
	int			epochs;			/* passes over the rows ("epochs") */
	BkEpochRows *rows;			/* the usable rows, kept when epochs > 1
								 * or a preparation is fitted */
	BkFeatureForm form;			/* array, jsonb or bk_sparse features */
	bool		form_known;		/* form is that of the first non-NULL row */
	Oid			features_type;	/* their SQL type (bk_features) */
	BkPrepSpec	spec;			/* the preparation asked for */
	BkPrepFit  *fit;			/* fitting it: the model is made at the end */
	BkProgress	progress;		/* budgetkernel.progress_interval */
	BkPgShortBuf row_buf;		/* the current row's short features */
	TimestampTz first_row;		/* when the state took its first row */
	BkPgModelId base;			/* bk_continue: the model of the first row */
	BkPgKeyTally tally;			/* bk_continue: rows that lacked the model's keys */
	/*
	 * bk_merge: the same models merged kept whole (BkModelMergeUnion), for
	 * the final function to distil; NULL when not kept (one model, a union
	 * over BK_UNION_MAX_BYTES, a combined parallel state: union_dropped)
	 */
	BkModel    *union_model;
	bool		union_dropped;
	/*
	 * the fold stopped (BkModelFoldStops): the models after it merged
	 * into the state's model by their counts only, its machines retrained
	 * from the union (BkPgMergeRetrain) by the final function
	 */
	bool		fold_stopped;
} BkTrainState;

/*
 * bk_merge's final model: m, a copy of the merged model, distilled from
 * the union u of the models merged when that keeps more of their average
 * (BkModelDistil); errors say that fname was distilling
 */
extern void BkPgMergeDistil(BkModel *m, BkModel *u, const char *fname);
/*
 * ... or, where the fold stopped (BkTrainState.fold_stopped), m's machines
 * learned afresh from the union's points (BkModelRetrain)
 */
extern void BkPgMergeRetrain(BkModel *m, BkModel *u, const char *fname);
/* m, merged, moved towards u, the union of what was merged (BkModelPolish) */
extern void BkPgMergePolish(BkModel *m, const BkModel *u, const char *fname);

/* a new, empty state in its own child context of parent */
extern BkTrainState *BkPgTrainStateNew(MemoryContext parent);
/*
 * A state that fits a preparation: its model after the first pass over
 * the kept rows, made in cxt; NULL if no row was usable
 */
extern BkModel *BkPgTrainPrepared(const BkTrainState *st, MemoryContext cxt);
/* ... the same model before it learns any row */
extern BkModel *BkPgTrainPreparedModel(const BkTrainState *st, MemoryContext cxt);
/*
 * bk_train's transition (arguments 0-3 of fcinfo: state, features, label,
 * params) for a state that keeps every row and learns none: the rows of a
 * search's fold, whose settings' models BkPgTrainSetting makes
 */
extern BkTrainState *BkPgTrainKeepRow(FunctionCallInfo fcinfo);
/* st: from's rows and fitted preparation, params' parameters (same preparation) */
extern void BkPgTrainSetting(BkTrainState *st, const BkTrainState *from, Jsonb *params);

#endif							/* BK_PG_TRAIN_H */
