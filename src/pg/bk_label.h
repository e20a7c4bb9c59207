/*
 * bk_label.h
 *	  The bk_label type: the one label argument of every training and
 *	  metrics aggregate (bk_label.c).
 */
#ifndef BK_LABEL_H
#define BK_LABEL_H

#include "postgres.h"
#include "fmgr.h"
#include "utils/jsonb.h"

/* what a label was before its cast to bk_label */
typedef enum BkLabelKind
{
	BK_LABEL_TEXT,				/* text, varchar, char(n) */
	BK_LABEL_INT,				/* int2, int4, int8 */
	BK_LABEL_FLOAT,				/* float4, float8 */
	BK_LABEL_NUMERIC			/* numeric, read as its nearest float8 */
} BkLabelKind;

/* one label, read from a bk_label value */
typedef struct BkLabel
{
	BkLabelKind kind;
	int64		i;				/* BK_LABEL_INT */
	double		f;				/* BK_LABEL_FLOAT, BK_LABEL_NUMERIC */
	text	   *t;				/* BK_LABEL_TEXT: the value itself, a text */
} BkLabel;

/* read a (non-NULL) bk_label argument */
extern void BkPgLabelRead(Datum d, BkLabel *l);

/*
 * The class index of a classifier's label l (rows of fname): an error when
 * its kind is not the model's (42804), a float8 or numeric label is not an
 * integer (22023), or it is not a class of the model (22000)
 */
struct BkModel;
extern int	BkPgLabelClass(struct BkModel *m, const BkLabel *l, const char *fname, int64 row);

/* a regressor's target: an error for a text label (42804) or a non-finite one */
extern double BkPgLabelTarget(const BkLabel *l, const char *fname, int64 row);

/*
 * Where a label argument comes from: the type of a label argument (int2,
 * int4, int8, float4, float8, numeric, text, varchar: the forms before
 * 0.4.0, which a database not yet updated still calls), the bk_label
 * type, or none (not a label: a novelty form's params or model).  Told
 * once per call (the bk_label type is a catalogue lookup); BkPgLabelFrom
 * then reads each row's label.
 */
#define BK_LABEL_SOURCE_NONE 0
#define BK_LABEL_SOURCE_BK_LABEL (-1)
extern int	BkPgLabelSource(Oid t);
extern void BkPgLabelFrom(int source, Datum d, BkLabel *l);

/* "text", "integer", "float8" or "numeric": for messages */
extern const char *BkPgLabelKindName(BkLabelKind k);

/* whether the kind is a number that trains a regressor when no task is named */
#define BkPgLabelKindIsReal(k) ((k) == BK_LABEL_FLOAT || (k) == BK_LABEL_NUMERIC)

/* whether t is the bk_label type (the name of a type in the catalogue) */
extern bool BkPgIsLabelType(Oid t);

/*
 * The task a training call names ("task" in its params or overrides), or
 * BK_TASK_DEFAULT: the label's kind decides
 */
typedef enum BkTask
{
	BK_TASK_DEFAULT,
	BK_TASK_CLASSIFICATION,
	BK_TASK_REGRESSION,
	BK_TASK_NOVELTY
} BkTask;

/* the "task" key of a params or overrides object (22023 for a bad value) */
extern BkTask BkPgTaskFromJsonb(Jsonb *jb);

/* "classification", "regression" or "novelty" */
extern const char *BkPgTaskName(BkTask t);

/*
 * The two reports of bk_metrics, driven by bk_metrics_label.c: a new
 * state, one row of labels (int8 or text Datums; extra: 0 none, 1 a
 * float8 score, 2 a float8[] of probabilities), rows skipped
 */
extern void *BkPgMetricsNew(MemoryContext agg, bool text_labels, int extra);
extern void BkPgMetricsRow(void *state, MemoryContext agg, Datum actual, Datum predicted,
						   Datum extra);
extern void BkPgMetricsSkip(void *state, int64 n);
extern void *BkPgRegressionMetricsNew(MemoryContext agg);
extern void BkPgRegressionMetricsRow(void *state, double actual, double predicted);
extern void BkPgRegressionMetricsSkip(void *state, int64 n);
/* the reports of those states (bk_metrics' final functions; arg 0: the state) */
extern Datum bk_metrics_final(PG_FUNCTION_ARGS);
extern Datum bk_regression_metrics_final(PG_FUNCTION_ARGS);

#endif							/* BK_LABEL_H */
