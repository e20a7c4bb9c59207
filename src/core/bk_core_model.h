/*
 * bk_core_model.h
 *	  A model as the caller uses it (model layer): created, trained row by
 *	  row, scored, inspected, freed; opaque outside the core.
 */
#ifndef BK_CORE_MODEL_H
#define BK_CORE_MODEL_H

#include "bk_core_params.h"

/* ------------------------------------------------------------------------
 * Models (the learner state; training and scoring use the same struct)
 * ------------------------------------------------------------------------
 */

/*
 * A model is opaque outside the core: the caller reads it through
 * BkModelGetInfo and the functions below, so that the learners' state can
 * change without touching the PostgreSQL layer.
 */
typedef struct BkModel BkModel;

/* What a caller reads of a model (bk_info, checks of rows and labels). */
typedef struct BkModelInfo
{
	const BkParams *params;		/* finished: defaults filled in */
	int			format_version; /* of the bytes it was decoded from */
	int			dim;
	bool		text_labels;	/* labels are text (else int8) */
	bool		labels_utf8;	/* text labels are UTF-8 (format flag bit 2) */
	bool		classes_declared;	/* a label outside them is an error */
	int			n_classes;
	int			n_machines;		/* one, one per class, or one multi-class */
	uint64_t	rows_seen;		/* rows learned from (not skipped) */
	uint64_t	rows_skipped;	/* rows with a NULL label or NULL features */
	uint64_t	rows_updated;	/* rows that changed the model */
	uint64_t	mistakes;		/* online mistakes: predicted before learning */
	uint64_t	maintenance;	/* budget-maintenance steps, all machines */
	uint64_t	parts;			/* models merged into it; 1 if none */
} BkModelInfo;

extern void BkModelGetInfo(const BkModel *m, BkModelInfo *info);
/* its number of features (BkModelInfo.dim), for the per-row checks */
extern int	BkModelDim(const BkModel *m);

/* The integer label of class c (0 <= c < n_classes, not text_labels). */
extern int64_t BkModelClassLabel(const BkModel *m, int c);

/* The text label of class c, NUL-terminated, in the model's encoding. */
extern const char *BkModelClassText(const BkModel *m, int c);

/*
 * Freeze the classes for this run (frozen: a label the model has not seen
 * is an error, BK_ERR_DATA), or let new labels add classes.  Declared
 * classes are always fixed.  Not stored: a decoded model starts unfrozen.
 */
extern void BkModelFreezeClasses(BkModel *m, bool frozen);

/*
 * Change one parameter of a model before it is trained further
 * (BkParamsOverride); a new seed restarts the model's random numbers from
 * it.  False, the model unchanged, with a message.
 */
extern bool BkModelOverride(BkModel *m, const char *key, const BkParamInput *in,
							char *err, size_t errlen);

/* Record that the model's text labels are UTF-8 (set before any label). */
extern void BkModelSetLabelsUtf8(BkModel *m, bool utf8);

/*
 * What one run of training (this model since it was created or decoded)
 * suggests went wrong, for the caller to warn about.
 *
 * sorted: the rows came in runs of one label.  A shuffled order of the
 * same labels gives about expected_changes changes of label between
 * consecutive rows, (rows - 1) (1 - sum_i p_i^2) for the classes' shares
 * p_i; fewer than a fifth of that (and an expectation of at least 10) is a
 * sorted or blocked stream.  An online learner trained so ends biased
 * towards the last labels, and its online mistake rate means nothing.
 *
 * collapsed: over the last window rows (those of the last 1000 that did
 * not bring a new class: at least 100, with at least 20 of them in other
 * classes than the most frequent), the model predicts one class,
 * constant_class, for every row.  no_better: not collapsed, but its error
 * over the window, window_error, is no lower than always predicting the
 * window's most frequent class (majority_error).  Neither is judged on a
 * sorted stream.  The predictions are the finished model's (finished),
 * from the recent rows' features kept in training (as many of the last
 * 1000 as 2 MB holds, at least 100); for rows too wide for that, the
 * online predictions, made before each row was learned.
 */
typedef struct BkRunReport
{
	uint64_t	rows;
	uint64_t	label_changes;
	double		expected_changes;
	bool		sorted;
	int			window;			/* recent rows looked at */
	double		window_error;	/* online error over them */
	double		majority_error; /* 1 - the most frequent class's share */
	int			majority_class;
	bool		collapsed;
	int			constant_class; /* collapsed: the class always predicted */
	bool		no_better;
	bool		finished;		/* judged on the finished model's predictions */
	/*
	 * A regressor (BkRunMakeValueReport): the finished model's R^2 on the
	 * last window rows kept (their own mean as the baseline), when
	 * finished; value_useless when it is at most 0.
	 */
	double		value_r2;
	bool		value_useless;
	/*
	 * A regressor's stream in the order of its targets: the mean squared
	 * step between successive targets over twice their variance (the von
	 * Neumann ratio: about 1 for a shuffled order, near 0 for a sorted
	 * one) below SORTED_FRACTION, on 100 rows or more; then sorted is set
	 */
	double		value_order_ratio;
	/* a novelty detector: the share of those rows the finished model flags */
	double		flag_rate;
} BkRunReport;

extern void BkModelRunReport(BkModel *m, BkRunReport *r);

/*
 * One line of LIBSVM / svmlight text (NUL-terminated): "label index:value
 * ... [# comment]", an integer label, indices from 1 to dim ascending,
 * finite values.  x (dim values) gets the dense vector.  False with a
 * message naming the problem and the token on a malformed line.
 */
extern bool BkParseLibsvm(const char *line, int dim, int64_t *label, double *x,
						  char *err, size_t errlen);
/* the same into a sparse row: *nnz indices (1-based, ascending) and values */
extern bool BkParseLibsvmSparse(const char *line, int dim, int64_t *label,
								int32_t *idx, double *val, int *nnz,
								char *err, size_t errlen);

/* A seeded permutation of 64-bit ids, for shuffling a training stream. */
extern uint64_t BkShuffleKey(uint64_t id, uint64_t seed);

/* SVs over all machines */
extern uint64_t BkModelSvTotal(const BkModel *m);

/* The support vectors of machine k: how many, and SV j (dim values). */
extern int	BkModelSvCount(const BkModel *m, int k);
extern const double *BkModelSv(const BkModel *m, int k, int j);

/* Coefficients per SV of machine k (1, or n_classes for Pegasos). */
extern int	BkModelCoefCount(const BkModel *m, int k);

/*
 * Bytes a training state needs for these parameters and dimension;
 * false if the size overflows or exceeds limit (error message in err).
 */
extern bool BkModelCheckSize(const BkParams *p, int dim, size_t limit,
							 char *err, size_t errlen);

/* A new, empty model for training (params must be finished). */
extern BkModel *BkModelCreate(const BkEnv *env, const BkParams *p, int dim);

/*
 * Sparse rows: dense (m->dim values) is the dense form of the row whose
 * nnz non-zero values val sit at the 1-based ascending indices idx.  The
 * next learning or scoring call given dense computes its kernel rows from
 * the sparse form, O(B nnz) instead of O(B dim), with the same values
 * where the sums are exact (the dot products sum the non-zero products in
 * index order; the dense path in BkDot's fixed order, bk_linalg.c).
 */
extern void BkModelSparseRow(BkModel *m, const double *dense, const int32_t *idx,
							 const double *val, int nnz);

/*
 * A sparse row for scoring only, with no dense form: returns the pointer
 * that stands for the row in the scoring calls that follow (BkModelScores,
 * BkModelDecision, BkModelPredictClass, BkModelProbabilities, as often as
 * needed), which compute their kernel rows from the sparse form.  Nothing
 * of m->dim values is allocated, so a row of 2^24 dimensions and a few
 * values costs what its values cost.  The pointer is not a row of values:
 * learning from it, or scoring it after another row was declared, is an
 * error.
 */
extern const double *BkModelSparseScoringRow(BkModel *m, const int32_t *idx,
											 const double *val, int nnz);

/* Learn one row; x has m->dim finite values (the caller checks). */
/*
 * A regressor (BkParams.regression) learns one row of target t: predicted
 * first (its squared and absolute error counted), then a step of its
 * learner on the epsilon-insensitive loss.  A non-finite target, or a
 * classifier, is an error.
 */
extern void BkModelLearnValue(BkModel *m, const double *x, double t);
/* a regressor's prediction of x, in the target's units */
extern double BkModelPredictValue(BkModel *m, const double *x);
/*
 * Standardise a new regressor's target by the mean and standard deviation
 * of its training rows' targets (before any row is learned): sd 0 (a
 * constant target) divides by 1.
 */
extern void BkModelSetTargetScale(BkModel *m, double mean, double sd);
/* what a regressor holds of its target, or false for a classifier */
typedef struct BkTargetInfo
{
	bool		standardised;
	double		mean;
	double		sd;
	double		sq_error;		/* prequential, in the target's units */
	double		abs_error;
	double		seen_mean;		/* of the targets learned */
	double		seen_var;		/* their population variance */
} BkTargetInfo;
extern bool BkModelTargetInfo(const BkModel *m, BkTargetInfo *out);
/*
 * A regressor's learning curve: *points gets the sum of the prequential
 * squared errors after 1, 2, 4, ... rows (as BkModelCurve the mistakes);
 * returns their number, 0 for a classifier or a merged regressor
 */
extern int	BkModelTargetCurve(const BkModel *m, const double **points);

/*
 * A novelty detector (BkParams.novelty) learns one row without a label:
 * scored first (a row scoring above 0 is counted as flagged, in
 * mistakes), then its learner's step with y = +1 and margin rho, and the
 * threshold rho moved by the step's rate times (flagged - nu).
 */
extern void BkModelLearnNovel(BkModel *m, const double *x);
/* its novelty score of x: rho - f(x), above 0 for a row it flags */
extern double BkModelNoveltyScore(BkModel *m, const double *x);
/* a novelty detector's threshold rho, or false for another model */
extern bool BkModelNoveltyRho(const BkModel *m, double *rho);

/*
 * Youngs and Cramer's running sums, as PostgreSQL's avg(float8) and
 * stddev_pop(float8) keep them (bk_prep.c): a numeric input's
 * standardisation and a regressor's target's, fitted on the training rows.
 */
typedef struct BkRunningSums
{
	double		n;
	double		sx;				/* the sum */
	double		sxx;			/* the squared deviations from the running mean */
} BkRunningSums;
extern void BkRunningSumsAdd(BkRunningSums *s, double v);
/*
 * avg and stddev_pop of the values added; sd 0 for values constant up to
 * rounding (scikit-learn's rule, bk_prep.c), which standardising divides by 1
 */
extern void BkRunningSumsMoments(const BkRunningSums *s, double *mean, double *sd);

extern void BkModelLearn(BkModel *m, const double *x, int64_t label);
extern void BkModelLearnText(BkModel *m, const double *x, const char *label,
							 size_t len);

/*
 * Declare the class set before the first row (the "classes" parameter):
 * the classes take this order, and any other label is an error.  The first
 * declared or learned label fixes the label type (integer or text).
 */
extern void BkModelDeclareClass(BkModel *m, int64_t label);
extern void BkModelDeclareClassText(BkModel *m, const char *label, size_t len);

/* Count n skipped rows (NULL label or features). */
extern void BkModelSkip(BkModel *m, uint64_t n);

/*
 * Class weights (the "class_weight" parameter, bk_class_weight.c): the loss
 * of a row of class c counts w_c times.  Explicit: BkModelWeightExplicit,
 * then one BkModelWeightClass(Text) per label given (a label not given
 * weighs 1).  Balanced: w_c = N / (K n_c) from the rows of each class seen
 * since the weights were set.  Setting them again keeps those counts;
 * BkModelWeightClear removes them.  A weight out of
 * [BK_MIN_CLASS_WEIGHT, BK_MAX_CLASS_WEIGHT] or a label given twice is an
 * error (BK_ERR_PARAM).
 */
#define BK_WEIGHT_NONE		0
#define BK_WEIGHT_EXPLICIT	1
#define BK_WEIGHT_BALANCED	2
#define BK_MIN_CLASS_WEIGHT 1e-6
#define BK_MAX_CLASS_WEIGHT 1e6
extern void BkModelWeightExplicit(BkModel *m);
extern void BkModelWeightBalanced(BkModel *m);
extern void BkModelWeightClear(BkModel *m);
extern void BkModelWeightClass(BkModel *m, int64_t label, double w);
extern void BkModelWeightClassText(BkModel *m, const char *label, size_t len,
								   double w);
/* what bk_info shows: the mode, the explicit entries in label order */
extern int	BkModelWeightMode(const BkModel *m);
extern int	BkModelWeightEntries(const BkModel *m);
extern double BkModelWeightEntry(const BkModel *m, int i, int64_t *label,
								 const char **text);
/* rows of class c counted since the weights were set; class c's weight now */
extern uint64_t BkModelWeightRows(const BkModel *m, int c);
extern double BkModelClassWeight(BkModel *m, int c);

/*
 * One score per class, in class order (scores has n_classes entries):
 * for a binary machine f(x) [-f, f], for one-vs-rest f_k(x) of class k's
 * machine, for Pegasos the class's f^(i)(x).  The prediction is the first
 * class with the largest score.
 */
extern void BkModelScores(BkModel *m, const double *x, double *scores);

/* Index of the predicted class; -1 when the model has no class. */
extern int	BkModelPredictClass(BkModel *m, const double *x);

/*
 * Signed score of a model with at most two classes, positive for the
 * second class: f(x) of a binary learner, f^(2) - f^(1) for Pegasos.
 * Reports an error for more than two classes (use BkModelScores).
 */
extern double BkModelDecision(BkModel *m, const double *x);

/*
 * What SV j of machine k adds, per unit of its kernel value, to the score
 * of coefficient c: the coefficient with the machine's scale and, for an
 * averaged output, its weight in the average.
 */
extern double BkModelSvCoef(const BkModel *m, int k, int j, int c);

/*
 * The key under which bk_info reports the model's budget-maintenance
 * damage (Pegasos: "weight_degradation", the sum of ||Delta w||^2), with
 * its sum over the machines in *sum; NULL if its learner reports none.
 */
extern const char *BkModelDegradationKey(const BkModel *m, double *sum);

/* Predicted label of an integer-labelled model; false without classes. */
extern bool BkModelPredict(BkModel *m, const double *x, int64_t *label);

/* Whether s[0..len) is well-formed UTF-8 (no overlong form, no surrogate). */
extern bool BkValidUtf8(const char *s, size_t len);

/*
 * Decimal text to double, the value strtod gives (same end pointer), with
 * a fast exact path for short decimals (bk_number.c).
 */
extern double BkParseDouble(const char *s, char **end);

/*
 * (neg ? -1 : 1) * m * 10^exp10 as the correctly rounded double when the
 * fast path gives it exactly (m <= 2^53, |exp10| <= 22); false otherwise
 * (bk_number.c)
 */
extern bool BkDecimalDouble(bool neg, uint64_t m, int exp10, double *out);

/*
 * The natural logarithm every result of the extension uses (bk_fmath.c):
 * the same bits on every CPU, unlike the C library's log, whose variant
 * depends on the CPU (doc/maintainers.md, Determinism).
 */
extern double BkLog(double x);

/* Index of the first non-finite value, or -1. */
extern int	BkFirstNonFinite(const double *x, int n);

extern void BkModelFree(BkModel *m);

#endif							/* BK_CORE_MODEL_H */
