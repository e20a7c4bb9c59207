/*
 * bk_core.h
 *	  Public interface of the budgetkernel learning core.
 *
 * The core is plain C99: it includes no PostgreSQL header and never calls
 * the server.  Memory, error reporting and interrupt checks go through the
 * hooks of a BkEnv that the caller supplies (in the server: palloc, ereport
 * and CHECK_FOR_INTERRUPTS; in a test or benchmark program: malloc and
 * print-and-exit).  This is the only header the PostgreSQL layer includes.
 */
#ifndef BK_CORE_H
#define BK_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------
 * Environment: allocation, errors, interrupts
 * ------------------------------------------------------------------------
 */

/* Error classes; the caller maps them to its own codes (SQLSTATEs). */
typedef enum BkErrCode
{
	BK_ERR_PARAM = 1,			/* invalid parameter (22023) */
	BK_ERR_DATA = 2,			/* invalid input data: NaN, dimensions (22000) */
	BK_ERR_NULL_VALUE = 3,		/* NULL where a value is needed (22004) */
	BK_ERR_LIMIT = 4,			/* size limit exceeded (54000) */
	BK_ERR_CORRUPT = 5,			/* bytes are not a valid model (22P03 / XX001) */
	BK_ERR_VERSION = 6,			/* model written by a newer format (0A000) */
	BK_ERR_NUMERIC = 7,			/* numerical failure (22000) */
	BK_ERR_INTERNAL = 8,		/* a bug (XX000) */
	/*
	 * a number beyond what the arithmetic can hold: features whose squared
	 * norm overflows, a kernel value or score that is not finite, a model
	 * holding a non-finite value (22003)
	 */
	BK_ERR_OVERFLOW = 9,
	BK_ERR_UNSUPPORTED = 10		/* a format cannot express it (0A000) */
} BkErrCode;

typedef struct BkEnv
{
	/* zero-filled memory; never returns NULL (reports an error instead) */
	void	   *(*alloc) (void *ctx, size_t size);
	/* grow a block from alloc; never returns NULL */
	void	   *(*realloc) (void *ctx, void *ptr, size_t size);
	void		(*free) (void *ctx, void *ptr);
	/*
	 * report an error; must not return (longjmp, exit, ereport).  detail
	 * and hint may be NULL; hint says what the user can do about it.
	 */
	void		(*error) (void *ctx, BkErrCode code, const char *message,
						  const char *detail, const char *hint);
	/* called in long loops; may be NULL */
	void		(*check_interrupts) (void *ctx);
	/* largest single allocation the caller can serve */
	size_t		max_alloc;
	void	   *ctx;
} BkEnv;

/* ------------------------------------------------------------------------
 * Enumerations.  The numeric values are stored in models: never renumber.
 * ------------------------------------------------------------------------
 */
typedef enum BkAlgorithm
{
	BK_ALG_PERCEPTRON = 1,		/* kernel perceptron, unbudgeted */
	BK_ALG_PA = 2,				/* PA-I / PA^R (paper 000 eq. 3, 15), unbudgeted */
	BK_ALG_BPA = 3,				/* budgeted PA (paper 000 §3-4) */
	BK_ALG_PEGASOS = 4,			/* multi-class Pegasos (paper 004) */
	BK_ALG_STOPTRON = 5,		/* perceptron that stops at the budget */
	BK_ALG_RBP = 6,				/* random budget perceptron */
	BK_ALG_PA_RANDOM = 7,		/* PA-I with random removal (PA+Rand) */
	BK_ALG_BUDGET_PERCEPTRON = 8,	/* paper 003 Fig. 1 (Crammer et al. 2004) */
	BK_ALG_TIGHTER_BUDGET_PERCEPTRON = 9,	/* paper 003 Fig. 3 */
	BK_ALG_SPA = 10,			/* sparse PA (paper 002), unbudgeted */
	BK_ALG_OGD = 11,			/* kernel online gradient descent, unbudgeted */
	BK_ALG_DUOL = 12,			/* double updating (paper 001 eq. 1-2), unbudgeted */
	BK_ALG_BDUOL = 13,			/* budget double updating (paper 001 §3) */
	BK_ALG_BOGD = 14,			/* bounded OGD (Zhao et al. 2012), uniform removal */
	BK_ALG_FORGETRON = 15,		/* self-tuned Forgetron (Dekel et al. 2008) */
	BK_ALG_PROJECTRON = 16,		/* Projectron, fixed budget (Orabona et al. 2009) */
	BK_ALG_PROJECTRON_PP = 17	/* Projectron++, fixed budget */
} BkAlgorithm;

typedef enum BkOutput
{
	BK_OUTPUT_LAST = 1,			/* the last classifier f_T */
	BK_OUTPUT_AVERAGE = 2		/* the average (1/T) sum_t f_t (paper 002) */
} BkOutput;

typedef enum BkEvalSetKind
{
	BK_EVAL_SVS = 1,			/* the SVs themselves (paper 003 eq. 3) */
	BK_EVAL_RANDOM = 2,			/* a random reservoir of q rows (eq. 4) */
	BK_EVAL_FLIP = 3,			/* the q rows that flip most (Fig. 5) */
	BK_EVAL_ALL = 4				/* every row, the most recent q at most */
} BkEvalSetKind;

typedef enum BkUpdate
{
	BK_UPDATE_PERCEPTRON = 1,	/* alpha = 1 (paper 003 Fig. 2) */
	BK_UPDATE_MIRA = 2,			/* alpha = min(1, max(0, -y f / k_tt)) */
	BK_UPDATE_NOBIAS_SVM = 3	/* alpha = min(C, max(0, (1 - y f) / k_tt)) */
} BkUpdate;

typedef enum BkKernelType
{
	BK_KERNEL_RBF = 1,			/* exp(-gamma ||x - x'||^2) */
	BK_KERNEL_LINEAR = 2,		/* x . x' */
	BK_KERNEL_POLY = 3			/* (gamma x . x' + coef0)^degree */
} BkKernelType;

typedef enum BkLoss
{
	BK_LOSS_HINGE = 1,
	BK_LOSS_RAMP = 2
} BkLoss;

typedef enum BkMaintenance
{
	BK_MAINT_NONE = 1,			/* unbudgeted, capped by max_sv */
	BK_MAINT_RANDOM = 2,		/* remove a random SV */
	BK_MAINT_SMALLEST = 3,		/* remove the smallest SV (paper 004 §4.1) */
	BK_MAINT_PROJECTION = 4,	/* project the smallest SV (§4.2, eq. 16) */
	BK_MAINT_PROJECTION_BEST = 5,	/* project the best SV (eq. 17) */
	BK_MAINT_MERGE = 6,			/* merge two SVs (§4.3) */
	/* BDUOL (paper 001 §3), besides projection (4): the box QP of eq. 8 */
	BK_MAINT_REMOVAL = 7,		/* remove the SV of largest dual ascent, eq. 7 */
	BK_MAINT_APPROX_PROJECTION = 8, /* eq. 9-12: unconstrained, then clipped */
	BK_MAINT_NEAREST = 9		/* project onto the nearest SV, eq. 13-14 */
} BkMaintenance;

/*
 * How a model stores its support vectors: as doubles, or rounded to
 * float4, which halves the bytes a kernel row streams (bk_svstore.c)
 */
typedef enum BkSvPrecision
{
	BK_SV_FLOAT8 = 1,
	BK_SV_FLOAT4 = 2
} BkSvPrecision;

typedef enum BkVariant
{
	BK_VARIANT_S = 1,			/* BPA-Simple, eq. 12 */
	BK_VARIANT_NN = 2,			/* BPA-Nearest-Neighbour, §3.1.3 */
	BK_VARIANT_P = 3			/* BPA-Projecting, eq. 8-9 */
} BkVariant;

/* ------------------------------------------------------------------------
 * Parameters
 * ------------------------------------------------------------------------
 */

/* Parameter ids, stored in models: never renumber. */
typedef enum BkParamId
{
	BK_P_ALGORITHM = 1,
	BK_P_BUDGET = 2,
	BK_P_KERNEL = 3,
	BK_P_GAMMA = 4,
	BK_P_DEGREE = 5,
	BK_P_COEF0 = 6,
	BK_P_C = 7,
	BK_P_LOSS = 8,
	BK_P_VARIANT = 9,
	BK_P_SEED = 10,
	BK_P_MAX_SV = 11,
	BK_P_LAMBDA = 12,
	BK_P_MAINTENANCE = 13,
	BK_P_BALL_PROJECTION = 14,
	BK_P_MARGIN = 15,
	BK_P_UPDATE = 16,
	BK_P_EVAL_SET = 17,
	BK_P_EVAL_SIZE = 18,
	BK_P_ALPHA = 19,
	BK_P_BETA = 20,
	BK_P_ETA = 21,
	BK_P_OUTPUT = 22,
	BK_P_RHO = 23,
	BK_P_MAX_COEF = 25,
	BK_P_RIDGE = 26,
	BK_P_EPSILON = 27,
	BK_P_NU = 28,
	BK_P_SV_PRECISION = 29,
	BK_P_MAX_ID = 29
} BkParamId;

typedef struct BkParams
{
	int			algorithm;		/* BkAlgorithm */
	int			kernel;			/* BkKernelType */
	int			loss;			/* BkLoss */
	int			variant;		/* BkVariant */
	int			maintenance;	/* BkMaintenance (pegasos) */
	int64_t		budget;			/* B: most SVs kept (budgeted learners) */
	int64_t		max_sv;			/* safety cap of unbudgeted learners */
	int64_t		degree;			/* poly kernel */
	double		gamma;			/* rbf / poly kernel; 0 = 1/dim until resolved */
	double		coef0;			/* poly kernel */
	double		C;				/* PA aggressiveness */
	double		lambda;			/* Pegasos regularisation */
	bool		ball_projection;	/* Pegasos: project w onto ||w|| <= 1/sqrt(lambda) */
	double		margin;			/* budget perceptron: update when y f <= margin */
	int			update;			/* BkUpdate */
	int			eval_set;		/* BkEvalSetKind (tighter budget perceptron) */
	int64_t		eval_size;		/* q */
	double		alpha;			/* SPA: sampling cap */
	double		beta;			/* SPA: sampling scale, >= alpha */
	double		eta;			/* SPA aggressiveness, OGD step size,
								 * Projectron++ threshold */
	int			output;			/* BkOutput (SPA) */
	double		rho;			/* DUOL: conflict threshold, in [0, 1) */
	double		max_coef;		/* BOGD: |coefficient| <= max_coef * eta */
	double		ridge;			/* K^-1 kept is that of K + ridge diag(K) */
	double		epsilon;		/* regression: the half-width of the insensitive tube */
	double		nu;				/* novelty: the share of training rows flagged */
	int			sv_precision;	/* BkSvPrecision */
	uint64_t	seed;			/* PRNG seed */
	/*
	 * The task: a regressor (a float8 target) rather than a classifier.
	 * Not a parameter the user sets or the format stores as one: the
	 * caller sets it before BkParamsFinish from the target's type, and the
	 * decoder from the target part's flag (BkParamsFromStored takes it).
	 */
	bool		regression;
	/* the task: a novelty detector (no label); set as regression is */
	bool		novelty;
	uint64_t	given;			/* bit (1 << id): set explicitly by the user */
} BkParams;

/* What the caller found in its parameter document for one key. */
typedef enum BkParamInputType
{
	BK_IN_NUMBER,
	BK_IN_STRING,
	BK_IN_BOOLEAN,
	BK_IN_OTHER					/* null, array, object */
} BkParamInputType;

typedef struct BkParamInput
{
	BkParamInputType type;
	double		number;			/* BK_IN_NUMBER */
	const char *string;			/* BK_IN_STRING (NUL-terminated) */
	bool		boolean;		/* BK_IN_BOOLEAN */
	const char *type_name;		/* BK_IN_OTHER: "null", "array", ... */
} BkParamInput;

/* One parameter as shown to the user (bk_info), defaults filled in. */
typedef struct BkParamValue
{
	const char *key;
	bool		is_string;
	bool		is_integer;
	bool		is_boolean;		/* number is 0 or 1 */
	const char *string;			/* is_string */
	double		number;			/* !is_string */
} BkParamValue;

#define BK_ERRMSG_LEN 512

extern void BkParamsInit(BkParams *p);

/*
 * Set one key.  Returns false and a message naming the key and what is
 * allowed on an unknown key, a wrong type or an out-of-range value.
 */
extern bool BkParamsSet(BkParams *p, const char *key, const BkParamInput *in,
						char *err, size_t errlen);

/*
 * After all keys: reject keys that do not apply to the chosen algorithm or
 * kernel, fill in defaults and resolve gamma's default (1/dim).
 */
extern bool BkParamsFinish(BkParams *p, int dim, char *err, size_t errlen);

/*
 * Change one parameter of finished parameters, for a stored model trained
 * further: "seed", and those of the learner's parameters that only shape
 * the steps to come (BkModelOverride).  False with a message naming the
 * parameters that can change, on a wrong type, or against a rule.
 */
extern bool BkParamsOverride(BkParams *p, const char *key, const BkParamInput *in,
							 char *err, size_t errlen);

/* The parameters that apply to p's algorithm, defaults filled in. */
extern int	BkParamsList(const BkParams *p, BkParamValue *out, int maxout);
#define BK_MAX_PARAM_VALUES 32

extern const char *BkAlgorithmName(const BkParams *p);	/* e.g. "bpa" */
extern bool BkParamsBudgeted(const BkParams *p);

/* ------------------------------------------------------------------------
 * Limits
 * ------------------------------------------------------------------------
 */
#define BK_MAX_DIM			(1 << 24)
#define BK_MAX_BUDGET		(1 << 20)
#define BK_DEFAULT_BUDGET	100
#define BK_DEFAULT_ALGORITHM BK_ALG_BPA
#define BK_DEFAULT_MAX_SV	10000
#define BK_MAX_CLASSES		4096
#define BK_MAX_LABEL_LEN	1024	/* bytes of a text label */
/* largest ||x||^2 of a feature vector: kernels stay finite (bk_model.c) */
#define BK_MAX_SQNORM		1e300
/*
 * Largest encoded model: its text form (two hex digits a byte) must fit in
 * PostgreSQL's 1 GB limit of a value, with room for the other columns of
 * the row, so that pg_dump and COPY can always write it.
 */
#define BK_MAX_MODEL_BYTES	((size_t) 256 << 20)

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
 * The natural logarithm every result of the extension uses (bk_fmath.c):
 * the same bits on every CPU, unlike the C library's log, whose variant
 * depends on the CPU (doc/maintainers.md, Determinism).
 */
extern double BkLog(double x);

/* Index of the first non-finite value, or -1. */
extern int	BkFirstNonFinite(const double *x, int n);

extern void BkModelFree(BkModel *m);

/*
 * Merge src into dst, both decoded for training and trained on disjoint
 * rows: dst becomes the weighted average of the two by rows seen, reduced
 * to the budget, with its learner's state rebuilt (bk_model_merge.c).
 * src gains dst's classes and is left for the caller to free.  Models of
 * different dimensions, label types, declared classes or parameters (the
 * seed aside) are refused (BK_ERR_PARAM) with the difference named.
 */
extern void BkModelMerge(BkModel *dst, BkModel *src);
/*
 * The same merge kept whole: dst becomes the exact weighted average of the
 * two, the union of their SVs, never reduced to the budget and for scoring
 * only (its learner's bookkeeping is not rebuilt): the union that
 * BkModelDistil labels.  The parts of both are merged as by BkModelMerge,
 * so the same models merged in the same order by both have the same
 * classes, layout and preparation.
 */
extern void BkModelMergeUnion(BkModel *dst, BkModel *src);
/*
 * Move the support vectors of each machine of m, a merge of Gaussian-kernel
 * models reduced to the budget, towards the union u of the same models
 * (their exact average, as for BkModelDistil): a few steps of gradient
 * descent on the positions of the reduced set (Burges 1996), the
 * coefficients re-solved at each, minimising the squared distance of the
 * two functions in the kernel's feature space plus their squared
 * differences at the points of u (bk_model_polish.c).  False,
 * m unchanged, where no machine was reduced or the bounds leave no step.
 */
typedef struct BkPolishReport
{
	int			machines;		/* machines moved */
	int			steps;			/* steps taken, over the machines */
	int			points;			/* points of u's SVs matched, over the machines */
	double		before;			/* sum of ||g(p) - f(p)||^2 over them, before */
	double		after;			/* ... and after */
} BkPolishReport;
extern bool BkModelPolish(BkModel *m, const BkModel *u, BkPolishReport *report);
/*
 * BkModelPolish within a bound for each machine rather than one shared by
 * the machines (a larger one, with a cap over them): for the model a
 * merge of many keeps, where a one-vs-rest model's machines would each
 * get too little of the shared bound for a step
 */
extern bool BkModelPolishEachMachine(BkModel *m, const BkModel *u, BkPolishReport *report);
/*
 * Whether merging b into a would reduce a union that BkModelPolish can
 * then polish (a Gaussian kernel, plain machines: BkModelPlainMachines;
 * some machine's SVs of both above the budget; the classes as they are):
 * the merges that keep the union for it only then
 */
extern bool BkModelPolishable(const BkModel *a, const BkModel *b);
/*
 * Whether m is a classifier of a budgeted learner whose machines hold
 * only SVs and coefficients (not SV ages, an evaluation set, dual
 * variables in a box, another predictor): what the merge's polish and
 * distillation can rebuild
 */
extern bool BkModelPlainMachines(const BkModel *m);
/*
 * Distil the union u of the models merged into m (the same models, in the
 * same order, by BkModelMergeUnion and BkModelMerge): a fresh model of m's
 * learner learns u's distinct SVs labelled by u's class, and its machines
 * replace m's when it agrees with u on more of those points
 * (bk_model_distil.c), or else m is polished (BkModelPolish; a model of
 * one-vs-rest machines each machine within its own bound,
 * BkModelPolishEachMachine); a distilled model is not.  Then, for a
 * learner of binary machines without class weights, m is continued over
 * those of the labelled points that carry the label a part learned them
 * with, when that predicts those labels better on held-out points,
 * significantly and stably.  False, m unchanged, when none of these
 * happens, or when m is not a classifier of a learner it applies to, or u
 * never exceeded the budget.
 */
typedef struct BkDistilReport
{
	int			points;			/* the union's distinct points, labelled */
	int			agree_merged;	/* on which the merged model predicts u's class */
	int			agree_distilled;	/* on which a model distilled from half does */
	int			agree_quarter;	/* ... and one distilled from a quarter */
	int			agree_expected;	/* what the model distilled from all should */
	bool		distilled;		/* m's machines are the distilled ones */
	int			own_points;		/* points with the label the parts learned */
	int			own_merged;		/* on which the merged model predicts it */
	int			own_refined;	/* ... and m continued over the other half */
	int			own_halves_agree;	/* on which the two continued agree */
	bool		refined;		/* m then continued over all of them */
	BkPolishReport polish;		/* m's SVs moved towards u (BkModelPolish...) */
} BkDistilReport;
extern bool BkModelDistil(BkModel *m, BkModel *u, BkDistilReport *report);
/*
 * Whether a model, or a union of models, can be distilled: a classifier of
 * a budgeted learner whose machines hold only SVs and coefficients (not
 * SV ages, an evaluation set, dual variables in a box, another predictor),
 * of at most 65,536 SVs in all
 */
extern bool BkModelDistillable(const BkModel *m);

/* ---- bk_calibrate.c: probabilities by Platt scaling ---- */
/*
 * Fit P(pos | f) = 1 / (1 + exp(A f + B)) on n scores f and whether each
 * row is of the class (pos); false if no finite fit.
 */
extern bool BkPlattFit(const BkEnv *env, const double *f, const bool *pos,
					   int64_t n, double *A, double *B);
/* store one (A, B) per class (n_classes of each); learning drops them */
extern void BkModelSetCalibration(BkModel *m, const double *A, const double *B);
extern void BkModelClearCalibration(BkModel *m);
extern bool BkModelCalibrated(const BkModel *m);
/* class c's (A, B) of a calibrated model */
extern void BkModelCalibration(const BkModel *m, int c, double *A, double *B);
/* one probability per class, in class order, summing to 1 (calibrated) */
extern void BkModelProbabilities(BkModel *m, const double *x, double *prob);
/*
 * The learning curve: *points gets the online mistakes after 1, 2, 4, ...
 * rows (point i after 2^i rows); returns their number, 0 when the model
 * keeps none (merged, or stored before curves were kept)
 */
extern int	BkModelCurve(const BkModel *m, const uint64_t **points);
/*
 * Provenance: the fingerprints of the stored models this one comes from
 * (the caller computes them).  Set replaces, add appends (beyond
 * BK_MAX_PARENTS it is ignored); the count and the bytes (n x 32).
 */
extern void BkModelSetParent(BkModel *m, const uint8_t *fingerprint);
/*
 * Training goes on from the stored model of this fingerprint, which m
 * decodes: m keeps it and its counts as its base (bk_base.c), so that the
 * merge of models continued from it counts its rows once
 */
extern void BkModelSetBase(BkModel *m, const uint8_t *fingerprint);
extern void BkModelAddParent(BkModel *m, const uint8_t *fingerprint);
extern int	BkModelParents(const BkModel *m, const uint8_t **fingerprints);
/* the class index of a label, -1 if the model has no such class */
extern int	BkModelClassIndex(const BkModel *m, int64_t label, const char *text,
							  size_t len);

/* ------------------------------------------------------------------------
 * Feature preparation carried by the model (bk_prep.c)
 *
 * A model may hold the preparation of its inputs, fitted on the training
 * rows and replayed identically when it trains on and scores rows:
 * standardisation of numeric inputs, imputation of missing values, and
 * one-hot encoding of categorical (text) inputs with the training rows'
 * vocabulary.  Inputs are either the positions of a features array or the
 * named keys of a row (a JSON object, read by the caller).  The learner
 * sees the prepared vector of BkPrepDim columns, which is the model's dim.
 * ------------------------------------------------------------------------
 */
typedef enum BkScaleMode
{
	BK_SCALE_NONE = 0,			/* inputs as they are */
	BK_SCALE_STANDARD = 1		/* (x - mean) / standard deviation */
} BkScaleMode;

typedef enum BkImputeMode
{
	BK_IMPUTE_NONE = 0,			/* a missing value is an error */
	BK_IMPUTE_MEAN = 1			/* numeric: the training mean; text: no level */
} BkImputeMode;

typedef enum BkInputKind
{
	BK_INPUT_NUMERIC = 1,
	BK_INPUT_CATEGORICAL = 2
} BkInputKind;

/* the most named inputs (keys), and the levels of a categorical input */
#define BK_MAX_INPUTS		(1 << 16)
#define BK_DEFAULT_MAX_LEVELS 1000
#define BK_MAX_LEVELS		(1 << 16)

/* What the user asked for: the "scale", "impute" and "max_levels" parameters */
typedef struct BkPrepSpec
{
	int			scale;			/* BkScaleMode */
	int			impute;			/* BkImputeMode */
	int			max_levels;		/* distinct text values of one key */
	/*
	 * a regressor's target: BK_SCALE_STANDARD (the default) or
	 * BK_SCALE_NONE ("target_scale"); given: the user set it
	 */
	int			target_scale;
	bool		target_scale_given;
} BkPrepSpec;

/*
 * The defaults: nothing for a features array (its hot path stays as it
 * is), standardisation and imputation for named inputs.
 */
extern void BkPrepSpecInit(BkPrepSpec *s, bool named);
/*
 * Set key from a parameter value: 1 if key is a preparation parameter
 * (set), 0 if it is not one, -1 for an invalid value (message in err).
 */
extern int	BkPrepSpecSet(BkPrepSpec *s, const char *key, const BkParamInput *in,
						  char *err, size_t errlen);
/* whether a features array needs a preparation under s */
extern bool BkPrepSpecActive(const BkPrepSpec *s);

typedef struct BkPrep BkPrep;
typedef struct BkPrepFit BkPrepFit;

/*
 * Fitting a preparation on the training rows, one row at a time.  Array
 * rows give n values and NULL flags (isnull may be NULL); named rows give
 * their keys one by one (BkPrepFitKey returns the input's index, adding a
 * new key), then a number or a text value of that input (a JSON null
 * gives none).  Errors (a key that changes kind, too many levels or keys)
 * are reported through env.
 */
extern BkPrepFit *BkPrepFitNew(const BkEnv *env, const BkPrepSpec *s, bool named);
extern void BkPrepFitArray(BkPrepFit *f, const double *x, const bool *isnull, int n);
extern int	BkPrepFitKey(BkPrepFit *f, const char *key, size_t len);
/* the same, for the key at position pos of its row (a faster lookup) */
extern int	BkPrepFitKeyAt(BkPrepFit *f, int pos, const char *key, size_t len);
extern void BkPrepFitNumber(BkPrepFit *f, int input, double v);
extern void BkPrepFitText(BkPrepFit *f, int input, const char *s, size_t len);
/* the preparation fitted so far, allocated through env (the fit goes on) */
extern BkPrep *BkPrepFitFinish(const BkPrepFit *f, const BkEnv *env);
extern void BkPrepFree(const BkEnv *env, BkPrep *p);

/* A model's preparation, NULL if it has none; set (owned) before training */
extern const BkPrep *BkModelPrep(const BkModel *m);
extern void BkModelSetPrep(BkModel *m, BkPrep *p);

extern int	BkPrepDim(const BkPrep *p);		/* prepared columns */
extern int	BkPrepInputs(const BkPrep *p);	/* inputs (array length, keys) */
extern bool BkPrepNamed(const BkPrep *p);
extern int	BkPrepScale(const BkPrep *p);	/* BkScaleMode */
extern int	BkPrepImpute(const BkPrep *p);	/* BkImputeMode */
extern const char *BkPrepInputName(const BkPrep *p, int i, size_t *len);
extern int	BkPrepInputKind(const BkPrep *p, int i);
/* a numeric input: values seen, mean, what is subtracted and divided by, the fill */
extern void BkPrepNumeric(const BkPrep *p, int i, double *count, double *mean,
						  double *center, double *scale, double *fill);
extern int	BkPrepLevels(const BkPrep *p, int i);
extern const char *BkPrepLevel(const BkPrep *p, int i, int j, size_t *len);

/*
 * Applying it: out has BkPrepDim columns.  An array row of n values
 * (n must be BkPrepInputs; isnull may be NULL) in one call; a named row
 * starts with BkPrepRowBegin (zeroes out), then each input gets a number,
 * a text value or nothing (missing).  A missing value is imputed, or an
 * error when the preparation does not impute; a text value outside the
 * vocabulary sets no column, as one-hot encoding does; a number for a
 * categorical input or text for a numeric one is an error (BK_ERR_DATA).
 */
extern void BkPrepApplyArray(const BkModel *m, const double *x, const bool *isnull,
							 int n, double *out);
extern void BkPrepRowBegin(const BkModel *m, double *out);
/*
 * A named row's keys in the order the row lists them (pos from 0): the
 * input of the key, or -1 for a key the model does not know; then the
 * inputs the row did not give are missing values (BkPrepRowEnd).
 */
extern int	BkPrepKey(const BkModel *m, int pos, const char *key, size_t len);
/*
 * BkPrepRowEnd returns how many of the model's inputs the row did not
 * name (a key given a JSON null is named: missing on purpose);
 * BkPrepRowNamed tells whether it named one
 */
extern int	BkPrepRowEnd(const BkModel *m, double *out);
extern bool BkPrepRowNamed(const BkModel *m, int input);
extern void BkPrepPutNumber(const BkModel *m, int input, double v, double *out);
extern void BkPrepPutText(const BkModel *m, int input, const char *s, size_t len,
						  double *out);
extern void BkPrepPutMissing(const BkModel *m, int input, double *out);
/* whether two preparations take the same inputs to the same columns */
extern bool BkPrepSameLayout(const BkPrep *a, const BkPrep *b);

/* ------------------------------------------------------------------------
 * Binary format (little-endian, SHA-256 and CRC-32C; see doc/format.md)
 * ------------------------------------------------------------------------
 */
#define BK_FORMAT_VERSION 2
/* points of a model's learning curve: rows 1, 2, 4, ..., 2^63 */
#define BK_CURVE_MAX 64
/* a model's parents: the fingerprints (32 bytes) of the stored models it
 * was continued, merged or calibrated from, the first BK_MAX_PARENTS */
#define BK_FINGERPRINT_LEN 32
#define BK_MAX_PARENTS 64

/* Encoded size; false (and message) if it would exceed limit. */
extern bool BkModelEncodedSize(const BkModel *m, size_t limit, size_t *size,
							   char *err, size_t errlen);
extern void BkModelEncode(const BkModel *m, uint8_t *buf, size_t size);

/*
 * Check that buf holds a well-formed model that can be used.  Never
 * raises, never allocates, never reads outside buf[0..len).  On failure
 * returns false with a message and the error class: BK_ERR_CORRUPT (not a
 * model), BK_ERR_VERSION (a newer format) or BK_ERR_OVERFLOW (well formed,
 * but a floating-point field is not finite or out of its range).
 */
extern bool BkFormatValidate(const uint8_t *buf, size_t len, char *err,
							 size_t errlen, BkErrCode *code);

/*
 * The same without the checks of floating-point values (BK_ERR_OVERFLOW
 * never results): the structure, the checksum, every count and size.
 * What the type's input functions accept, so that restoring a dump never
 * loses a model stored with a non-finite value by an earlier version; the
 * decoder checks the values before use.
 */
extern bool BkFormatValidateStructure(const uint8_t *buf, size_t len,
									  char *err, size_t errlen,
									  BkErrCode *code);

/*
 * Decode (validating first; invalid bytes are reported through env->error).
 * for_training allocates room to go on learning up to the budget and keeps
 * the learner's bookkeeping; without it the model can score but not be
 * encoded again.
 */
extern BkModel *BkModelDecode(const BkEnv *env, const uint8_t *buf, size_t len,
							  bool for_training);

/* CRC-32C (Castagnoli), as used by the format. */
extern uint32_t BkCrc32c(uint32_t crc, const void *data, size_t len);
/* SHA-256 (FIPS 180-4): the digest a version 2 model keeps of its bytes */
#define BK_DIGEST_LEN 32
extern void BkSha256(const void *data, size_t len, uint8_t *out);

/*
 * The digest a version 2 model stores of its bytes (the 32 bytes before
 * the CRC), read without validating anything but the header's magic,
 * version and the length: NULL for a version 1 model or bytes that are
 * not a model.  Two models that decode have the same digest only if they
 * have the same bytes (the decoder checks it), so a cache of decoded
 * models can recognise a model by its length and digest in O(1).
 */
extern const uint8_t *BkModelStoredDigest(const uint8_t *buf, size_t len);

/*
 * Make buf[0..len) self-consistent after its bytes were changed: the
 * length field, the digest (version 2) and the CRC.  For tests and fuzz
 * drivers, which mutate valid models to reach the checks behind the
 * checksum.
 */
extern void BkModelSeal(uint8_t *buf, size_t len);
#include "bk_drift.h"			/* change and feature drift */
#include "bk_formats.h"	/* other formats: BkModelExport, BkModelImport */
#endif							/* BK_CORE_H */
