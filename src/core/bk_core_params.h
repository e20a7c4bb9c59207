/*
 * bk_core_params.h
 *	  The learners' parameters as the caller sets them (learners layer):
 *	  the enumerations stored in models, BkParams and its setters, limits.
 */
#ifndef BK_CORE_PARAMS_H
#define BK_CORE_PARAMS_H

#include "bk_core_env.h"

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

#endif							/* BK_CORE_PARAMS_H */
