/*
 * bk_internal_types.h
 *	  The core's own types (every layer): a model and its machines, caches
 *	  and optional parts, as the modules of the core see them.
 */
#ifndef BK_INTERNAL_TYPES_H
#define BK_INTERNAL_TYPES_H

#include "bk_core.h"

/* ------------------------------------------------------------------------
 * Models (the learner state; training and scoring use the same struct),
 * opaque outside the core
 * ------------------------------------------------------------------------
 */

/* Cached nearest neighbour of every SV (BPA-NN bookkeeping, §3.1.3). */
typedef struct BkNearest
{
	int32_t    *idx;			/* nearest other SV, -1 if none */
	double	   *dist2;			/* squared Euclidean distance to it */
	/*
	 * Gaussian kernel to it, exp(rbf_arg[r]), memoised by the exponent
	 * (BkNearestRbf): NaN where none was computed.
	 */
	double	   *rbf_arg;
	double	   *rbf;
} BkNearest;

/* Inverse kernel matrix of the SVs, kept by rank-one updates (BPA-P). */
typedef struct BkGramInverse
{
	int			n;				/* order (== n_sv between rows) */
	int			cap;			/* allocated order, a multiple of 8: the stride */
	double	   *m;				/* cap x cap, row-major, upper n x n used;
								 * 64-byte aligned, within block */
	void	   *block;			/* the allocation m lies in (BkGramFree) */
	uint64_t	since_refresh;	/* updates since the last refactorisation */
	double		ridge;			/* inverse of K + ridge diag(K); from the params */
} BkGramInverse;

/*
 * The evaluation set of the Tighter Budget Perceptron (paper 003 §3.2):
 * rows whose 0-1 loss decides which SV to remove, with their current
 * scores and the kernel values between them and the SVs, so a removal
 * costs O(B q).
 */
typedef struct BkEvalSet
{
	int			n;				/* rows held */
	int			cap;			/* q, or the budget for "svs" */
	double	   *x;				/* cap x dim */
	double	   *sqnorm;
	double	   *y;				/* +1 / -1 for this machine */
	double	   *f;				/* f(e_k) of the current expansion */
	double	   *pred;			/* sign last predicted, for flip counts */
	uint64_t   *flips;			/* times the prediction changed */
	uint64_t   *since;			/* row number when it entered */
	double	   *kv;				/* sv capacity x cap: k(sv_j, e_k) */
	uint64_t	offered;		/* rows offered to the reservoir */
	double	   *work;			/* cap doubles of scratch */
} BkEvalSet;

/* One kernel expansion f(x) = sum_i coef_i k(sv_i, x). */
typedef struct BkMachine
{
	int			n_sv;
	int			capacity;		/* rows allocated in sv / sqnorm / coef */
	int			n_coef;			/* coefficients per SV (1 for binary) */
	/*
	 * capacity rows of sv_ld doubles, row-major, 64-byte aligned: SV i is
	 * BkSvRow(mach, i), its first dim values (BkSvStride)
	 */
	double	   *sv;
	int			sv_ld;
	void	   *sv_block;		/* the allocation sv lies in (bk_machine.c) */
	/*
	 * A model of "sv_precision": "float4" keeps every SV value a float4
	 * value, and its machines (not the merges' and distillations' own)
	 * keep sv32, the same matrix stored as float4, capacity rows of sv_ld:
	 * kernel rows read it, half the bytes, to the same bits (BkSvSync keeps
	 * it equal to sv; bk_svstore.c).  Otherwise false and NULL.
	 */
	bool		sv_float4;
	float	   *sv32;
	void	   *sv32_block;
	double	   *sqnorm;			/* ||sv_i||^2 */
	double	   *coef;			/* capacity x n_coef */
	bool		has_nearest;
	BkNearest	nearest;
	bool		has_ginv;
	BkGramInverse ginv;
	/* f(x_j) of every SV (budget perceptron's removal rule), or NULL */
	double	   *sv_scores;
	/* the tighter budget perceptron's evaluation set, or NULL */
	struct BkEvalSet *eval;
	/*
	 * row number at which each SV was added (SPA's averaged output, the
	 * Forgetron's oldest SV), or NULL
	 */
	uint64_t   *born;
	/*
	 * Every coefficient is multiplied by scale (Pegasos shrinks all of them
	 * by (1 - 1/t) each row: one multiplication instead of a pass over the
	 * SVs).  1 for the other learners.
	 */
	double		scale;
	/*
	 * Damage accumulated by budget maintenance: Pegasos, the sum of
	 * ||Delta w||^2 (paper 004 eq. 14); the Forgetron, Q_t, the sum of
	 * Psi over its shrink-and-remove steps (may be negative).  0 otherwise.
	 */
	double		degradation;
	/* ||w||^2, kept by Pegasos with ball_projection; 0 otherwise */
	double		wnorm2;
	uint64_t	updates;		/* rows that changed this machine */
	uint64_t	maintenance;	/* budget-maintenance steps */
} BkMachine;

/* SV i's dim values */
static inline double *
BkSvRow(const BkMachine *mach, int i)
{
	return mach->sv + (size_t) i * (size_t) mach->sv_ld;
}

typedef struct BkRng
{
	uint64_t	s[4];			/* xoshiro256** state */
} BkRng;

/*
 * What one run of training (one bk_train or bk_continue call) saw, for
 * the warnings of a suspicious run (bk_run.c).  Not part of the model's
 * value: a decoded model starts a run with none of it.
 */
#define BK_RUN_WINDOW 1000		/* the recent rows kept */
#define BK_RUN_KEEP_BYTES (2 << 20)	/* their features, at most */
typedef struct BkRunStats
{
	uint64_t	rows;			/* rows learned in this run */
	uint64_t	label_changes;	/* rows whose class differs from the row before */
	int			last_class;		/* -1 before the first row */
	uint64_t   *class_rows;		/* rows of each class in this run */
	int			class_rows_cap;
	/* the last rows: true class, and the class predicted before learning */
	int32_t    *win_true;
	int32_t    *win_pred;		/* -1: the row brought a new class */
	int			win_n;
	int			win_next;
	/*
	 * the features and classes of the last keep_cap rows that did not
	 * bring a new class, to score with the finished model (keep_cap 0:
	 * rows too wide to keep within BK_RUN_KEEP_BYTES)
	 */
	double	   *keep_x;
	int32_t    *keep_true;
	double	   *keep_t;			/* a regressor's: their targets */
	/* a regressor's targets: their Welford sums, the squared steps between them */
	double		t_prev;
	double		t_mean;
	double		t_m2;
	double		t_steps2;
	int			keep_cap;		/* set at the first row */
	int			keep_alloc;		/* rows allocated, up to keep_cap */
	int			keep_n;
	int			keep_next;
	struct BkInputStats *inputs;	/* what it saw of its inputs: bk_inputs.c */
} BkRunStats;

/*
 * The preparation of the inputs (bk_prep.c).  A numeric input keeps the
 * count, sum and sum of squared deviations of its training values, the
 * running sums of Youngs and Cramer (1971) that PostgreSQL's float8
 * aggregates keep, so that mean = sx / n and the population standard
 * deviation sqrt(sxx / n) are the values avg() and stddev_pop() give on the
 * same rows.  A categorical input keeps its levels in byte order; level j
 * sets column offset + j.
 */
typedef struct BkPrepInput
{
	char	   *name;			/* NUL-terminated key; NULL for array positions */
	uint32_t	name_len;
	int			kind;			/* BkInputKind */
	int			offset;			/* its first prepared column */
	double		n,				/* numeric: values seen */
				sx,
				sxx;
	double		center,			/* derived: out = (x - center) / scale */
				scale,
				fill;			/* a missing value's prepared column */
	int			n_levels;		/* categorical */
	char	  **levels;
	uint32_t   *level_len;
} BkPrepInput;

struct BkPrep
{
	int			scale;			/* BkScaleMode */
	int			impute;			/* BkImputeMode */
	bool		named;
	int			n_inputs;
	BkPrepInput *inputs;
	int			dim;			/* prepared columns */
	/*
	 * Reading named rows (a cache, not part of the value): the input the
	 * key at each position of the last rows named (rows of one table list
	 * the same keys in the same order), and which inputs this row gave
	 */
	int		   *hint;			/* position -> input + 1; 0 = unknown */
	int			hint_cap;
	uint32_t   *stamp;			/* input -> the row that gave it */
	uint32_t	row;
};

/* center, scale and fill of a numeric input from its sums and the modes */
extern void BkPrepDerive(const BkPrep *p, BkPrepInput *in);
/* merging: pool b's statistics into a; move m's vectors into preparation to */
extern BkPrep *BkPrepCopy(const BkEnv *env, const BkPrep *p);
extern bool BkPrepSameSums(const BkPrep *a, const BkPrep *b);
/* the most rows an input's statistics count: 2^53, exact in a double */
#define BK_PREP_MAX_COUNT 9007199254740992.0
extern int	BkPrepPoolOverflow(const BkPrep *a, const BkPrep *b);
extern void BkPrepPool(BkPrep *a, const BkPrep *b);
extern void BkPrepRemapModel(BkModel *m, const BkPrep *to);
/*
 * merging preparations of other keys or levels (bk_prep_union.c): the
 * union layout of a and b (no statistics), or an error naming why they
 * have none; side's preparation in that layout with its own statistics,
 * map[c] the union column of side's column c, fill the value of every
 * column side lacks (u->dim values; 0 where map reaches)
 */
extern BkPrep *BkPrepUnion(const BkEnv *env, const BkPrep *a, const BkPrep *b);
extern BkPrep *BkPrepUnionSide(const BkEnv *env, const BkPrep *u,
							   const BkPrep *side, int *map, double *fill);

/*
 * Class weights (bk_class_weight.c): the explicit entries in label order
 * (integers ascending, text by bytes), and the rows of each class counted
 * since the weights were set, aligned with the model's classes.
 */
typedef struct BkClassWeights
{
	int			mode;			/* BK_WEIGHT_EXPLICIT or BK_WEIGHT_BALANCED */
	int			n;				/* explicit entries */
	int64_t    *labels;
	char	  **names;			/* text labels, NUL-terminated */
	double	   *w;
	uint64_t   *count;			/* count_n classes counted */
	int			count_n;
	int			count_cap;
	double	   *scratch;		/* count_cap: the weights of one row */
	/* explicit: scratch holds the weights of these many classes (-1: none) */
	int			cached_n;
} BkClassWeights;

/*
 * What the learners and their budget (bk_budget.c), which sit below the
 * model, need of it: the bytes it would encode to (BkModelEncodedSize,
 * so that an unbudgeted learner stops before the model outgrows what can
 * be stored) and its algorithm's name for that message (BkAlgorithmName).
 * Calls through these keep the calls between files one way: the model
 * calls the learners, never the reverse.  bk_layout.c defines the one
 * table; every model made, created or decoded, points to it.
 */
typedef struct BkModelHooks
{
	bool		(*encoded_size) (const BkModel *m, size_t limit, size_t *size,
								 char *err, size_t errlen);
	const char *(*algorithm_name) (const BkParams *p);
} BkModelHooks;

extern const BkModelHooks bk_model_hooks;

typedef struct BkModel
{
	BkEnv		env;
	BkParams	params;			/* finished: defaults filled in */
	/*
	 * The capacity a budgeted learner's machines grow to (BkModelCapacity),
	 * 0 for an unbudgeted one: set with params, read at every row
	 */
	int			grow_limit;
	int			dim;
	int			format_version; /* of the bytes it was decoded from */

	/*
	 * Classes in canonical order (bk_classes.c), or as declared.  Labels are
	 * integers, or text (text_labels) kept NUL-terminated in class_names.
	 * Binary learners keep one machine for up to two classes (positive =
	 * the second) and one per class beyond (one-vs-rest); Pegasos keeps
	 * one machine with a coefficient per class.
	 */
	bool		text_labels;
	/*
	 * The text labels are UTF-8, whatever the encoding of the database
	 * (the caller converts; format flag bit 2).  Models of 0.1.0 lack the
	 * flag: their labels are in the encoding of the database that trained
	 * them, which the model does not record.
	 */
	bool		labels_utf8;
	bool		classes_declared;	/* a label outside them is an error */
	bool		classes_frozen; /* this run: a new label is an error */
	int			n_classes;
	int			class_cap;
	int64_t    *classes;
	char	  **class_names;
	int			n_machines;
	BkMachine  *machines;
	BkRng		rng;
	bool		training;		/* allocated for training (capacity, scratch) */
	uint64_t	rows_seen;		/* rows learned from (not skipped) */
	uint64_t	rows_skipped;	/* rows with a NULL label or NULL features */
	uint64_t	rows_updated;	/* rows that changed the model */
	uint64_t	mistakes;		/* online mistakes: predicted before learning */
	uint64_t	maintenance;	/* budget-maintenance steps, all machines */
	uint64_t	parts;			/* models merged into this one (BkModelMerge); 1 if none */
	/* Platt's (A, B) of each class (bk_calibrate.c), or NULL: not calibrated */
	double	   *platt;
	/*
	 * The learning curve: curve[i] = the online mistakes after 2^i rows,
	 * recorded as rows_seen reaches each power of two, so curve_n =
	 * floor(log2(rows_seen)) + 1; or curve_n = 0 for a model whose history
	 * is not one stream (merged, or stored before it was kept).
	 */
	uint64_t	curve[BK_CURVE_MAX];
	int			curve_n;
	/* the fingerprints of the models it was continued, merged or calibrated from */
	uint8_t		parents[BK_MAX_PARENTS][BK_FINGERPRINT_LEN];
	int			n_parents;
	/* the preparation of its inputs, or NULL: rows come prepared */
	BkPrep	   *prep;
	/* its class weights, or NULL: every row weighs 1 */
	BkClassWeights *weights;
	struct BkTarget *target;	/* a regressor's (bk_target.h), or NULL */
	struct BkNovelty *novelty;	/* a novelty detector's threshold, or NULL */
	/*
	 * A classifier's bias (bk_part_bias.c), or NULL: what each class's
	 * score adds (n_classes values; a binary machine's -b and b), fixed
	 * while it learns.  A model imported from LIBSVM has it (rho).
	 */
	double	   *bias;
	struct BkBase *base;		/* continued from (bk_base.h), or NULL */
	/*
	 * The sparse form of the dense row x of the next learning or scoring
	 * call (BkModelSparseRow), used once: x is NULL, or the row's pointer
	 */
	struct
	{
		const double *x;
		const int32_t *idx;
		const double *val;
		int			nnz;
	}			sparse;
	/* its address stands for a sparse row scored without a dense form */
	double		sparse_token;
	/* scratch, not part of the model's value */
	double	   *scratch;		/* kernel rows etc. */
	size_t		scratch_len;
	double	   *scores;			/* class_cap */
	size_t		work_offset;	/* of the work area in scratch */
	double	   *merge_point;	/* dim values: the point a merge builds
								 * (BkModelMergePoint, at the first merge) */
	double	   *merge_scratch;	/* the partner search's arrays
								 * (BkModelMergeScratch) */
	size_t		merge_scratch_len;
	double	   *float4_row;		/* dim values: a learned row rounded to
								 * float4 ("sv_precision": "float4") */
	void	   *rows;			/* per-machine kernel-row descriptors */
	int			rows_cap;
	BkRunStats	run;			/* this run of training */
	const BkModelHooks *hooks;	/* bk_model_hooks */
} BkModel;

#endif							/* BK_INTERNAL_TYPES_H */
