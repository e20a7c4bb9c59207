/*
 * bk_internal.h
 *	  Declarations shared between the modules of the learning core.
 *	  Not included by the PostgreSQL layer.
 */
#ifndef BK_INTERNAL_H
#define BK_INTERNAL_H

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
	int			cap;			/* allocated order */
	double	   *m;				/* cap x cap, row-major, upper n x n used */
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
	double	   *float4_row;		/* dim values: a learned row rounded to
								 * float4 ("sv_precision": "float4") */
	void	   *rows;			/* per-machine kernel-row descriptors */
	int			rows_cap;
	BkRunStats	run;			/* this run of training */
	const BkModelHooks *hooks;	/* bk_model_hooks */
} BkModel;

#if defined(__GNUC__)
#define BK_NORETURN __attribute__((noreturn))
#define BK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define BK_NORETURN
#define BK_PRINTF(a, b)
#endif

/* ---- bk_env.c: errors and checked allocation ---- */
extern void BkRaise(const BkEnv *env, BkErrCode code, const char *detail,
					const char *fmt,...) BK_PRINTF(4, 5) BK_NORETURN;
extern void BkRaiseHint(const BkEnv *env, BkErrCode code, const char *detail,
						const char *hint, const char *fmt,...)
			BK_PRINTF(5, 6) BK_NORETURN;
extern void *BkAllocArray(const BkEnv *env, size_t n, size_t elsize);
/* byte strings (bk_bytes.c): their order (a prefix first), a NUL-terminated copy */
extern int	BkBytesCompare(const char *a, size_t alen, const char *b, size_t blen);
extern char *BkCopyBytes(const BkEnv *env, const char *s, size_t len);
extern void *BkReallocArray(const BkEnv *env, void *ptr, size_t n, size_t elsize);
extern void BkFree(const BkEnv *env, void *ptr);
extern void BkCheckInterrupts(const BkEnv *env);
/* a * b and a + b with overflow detection */
extern bool BkMulSize(size_t a, size_t b, size_t *out);
extern bool BkAddSize(size_t a, size_t b, size_t *out);

/* ---- bk_params.c ---- */
typedef enum BkParamKind
{
	BK_KIND_INT = 1,
	BK_KIND_REAL = 2,
	BK_KIND_ENUM = 3,
	BK_KIND_BOOL = 4
} BkParamKind;

/* A parameter as stored in the binary format. */
typedef struct BkStoredParam
{
	uint16_t	id;
	uint16_t	kind;
	uint64_t	bits;			/* int64, double bits or enum value */
} BkStoredParam;

/* bit of parameter id in BkParams.given and in BkLearner.params */
#define BK_PARAM_BIT(id)		(UINT64_C(1) << (id))
#define BkParamGiven(p, id)		(((p)->given & BK_PARAM_BIT(id)) != 0)

extern int	BkParamsToStored(const BkParams *p, BkStoredParam *out, int maxout);
/* regression: the model is a regressor (its target part's flag) */
extern bool BkParamsFromStored(BkParams *p, const BkStoredParam *in, int n,
							   bool regression, bool novelty, char *err,
							   size_t errlen);

/* ---- bk_choices.c: the names of the choice parameters' values ---- */
/* NULL-terminated, value = index + 1; NULL for "algorithm" and the numbers */
extern const char *const *BkParamChoices(BkParamId id);
/* the name of one value, "?" if out of range */
extern const char *BkParamChoiceName(BkParamId id, int value);

/* ---- bk_kernel.c ---- */

/* k(a, b) given a.b, ||a||^2 and ||b||^2 */
extern double BkKernelFromDot(const BkParams *p, double dot, double sqa,
							  double sqb);

/*
 * ---- bk_cpu.c: which vector paths run ----
 * The AVX2 paths (x86-64 with GCC and glibc).  BkCpuHasAvx2: whether the
 * CPU runs AVX2 (asked once); the vector exp (BkExpArray) then runs,
 * within 1 ulp of exp().  BkVectorLanes: whether the lane paths run too,
 * which compute four doubles at a time, each lane the scalar code's
 * expressions in its order, so with the same bits as the scalar code;
 * BkVectorLanesEnable(false) turns them off, for the tests that compare.
 * Every clone is target("avx2"), never "fma": on the baseline x86-64
 * ISA the build targets, FMA instructions are then out of the clone's
 * ISA and the compiler cannot fuse an a*b+c, whatever -ffp-contract says
 * (doc/maintainers.md, Determinism, rule 4; -ffp-contract=off is still
 * passed, for the scalar code, other architectures and builds whose
 * -march has FMA).  A fused clone would differ from the scalar code.
 */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__GLIBC__)
#define BK_VECTOR_AVX2 1
typedef double bk_v4d __attribute__((vector_size(32)));
typedef long long bk_v4i __attribute__((vector_size(32)));
typedef unsigned long long bk_v4u __attribute__((vector_size(32)));

/* a where mask is set, else b (mask: a vector comparison's result) */
#define BK_BLEND4(mask, a, b) \
	((bk_v4d) ((((bk_v4i) (a)) & (mask)) | (((bk_v4i) (b)) & ~(mask))))

/*
 * BkDist2 in four lanes: sq + sqx - 2 dot, below 0 or NaN to 0, with
 * BkDist2's operations in its order, so the same bits
 */
__attribute__((target("avx2")))
static inline bk_v4d
BkDist2x4(bk_v4d dot, bk_v4d sq, bk_v4d sqx)
{
	const bk_v4d two = {2.0, 2.0, 2.0, 2.0};
	const bk_v4d zero = {0.0, 0.0, 0.0, 0.0};
	bk_v4d		d = sq + sqx - two * dot;

	return (bk_v4d) ((bk_v4i) d & (d > zero));
}

/*
 * The end of a lane search for a first minimum: lane l holds the least
 * value v[l] of its indices, first one first, at index at[l] (-1: none).
 * Returns the least of them, on a tie the lowest index, which is the
 * first minimum a scalar loop finds, and sets *best to its value; -1 if
 * no lane has one.
 */
extern int	BkLanesFirstMin(bk_v4d v, bk_v4i at, double *best)
			__attribute__((target("avx2")));
#endif
extern bool BkCpuHasAvx2(void);
extern bool BkVectorLanes(void);
extern void BkVectorLanesEnable(bool on);

/*
 * ---- bk_fmath.c: exp, log and log1p of the project's own ----
 * Every exponential or logarithm that reaches a model or a score comes
 * from these, never from the C library (whose exp and log pick FMA
 * variants by CPU): the same bits on every CPU, within 0.52 ulp (exp) and
 * 1 ulp (log) of the true value.
 */
extern double BkExp(double x);
/* BkLog: in bk_core.h (the glue's metrics use it too) */
extern double BkLog1p(double x);
/* v[i] = BkExp(v[i]), four at a time where the CPU has AVX2: same bits */
extern void BkExpArray(double *v, int n);
#ifdef BK_VECTOR_AVX2
/* BkExp of each lane, the same bits */
extern bk_v4d BkExp4(bk_v4d x) __attribute__((target("avx2")));
#endif

#include "bk_linalg.h"

/*
 * dots[i] = sv_i . x for the n_sv SVs of a machine (one BkLinGemv), then
 * krow[i] = k(sv_i, x).  dots and krow may be the same array.
 */
extern void BkKernelRow(const BkParams *p, const BkMachine *mach, int dim,
						const double *x, double sqx, double *dots,
						double *krow);
/* the same for a sparse row: nnz values at 1-based ascending indices */
extern void BkKernelRowSparse(const BkParams *p, const BkMachine *mach, int dim,
							  const int32_t *idx, const double *val, int nnz,
							  double sqx, double *dots, double *krow);

/* squared distance from the parts of ||a-b||^2 = |a|^2 + |b|^2 - 2 a.b */
static inline double
BkDist2(double dot, double sqa, double sqb)
{
	double		d = sqa + sqb - 2.0 * dot;

	return d > 0.0 ? d : 0.0;
}

/* x^n for a small positive integer n, by squaring */
static inline double
BkIpow(double x, int64_t n)
{
	double		r = 1.0;

	while (n > 0)
	{
		if (n & 1)
			r *= x;
		x *= x;
		n >>= 1;
	}
	return r;
}

/*
 * k(a, a) given ||a||^2.  Inline: the budget maintenance loops call it once
 * per SV per row, and out of line the call cost more than the arithmetic
 * (9 % of BPA-S's instructions on two-feature rows).
 */
static inline double
BkKernelSelf(const BkParams *p, double sq)
{
	switch (p->kernel)
	{
		case BK_KERNEL_RBF:
			return 1.0;
		case BK_KERNEL_LINEAR:
			return sq;
		case BK_KERNEL_POLY:
			return BkIpow(p->gamma * sq + p->coef0, p->degree);
	}
	return 0.0;
}

/* v clipped into [lo, hi] */
static inline double
BkClamp(double v, double lo, double hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

/* the label y_i of an SV stored with coefficient alpha_i y_i, alpha_i > 0 */
static inline double
BkCoefLabel(double coef)
{
	return coef >= 0.0 ? 1.0 : -1.0;
}

/* ---- bk_svstore.c: the SVs of one machine ---- */
/* doubles from one SV's row to the next for dimension dim */
extern int	BkSvStride(int dim);
extern void BkSvPaddingEnable(bool on);
/* dots[i] = x . sv_i for the first n SVs: one BkLinGemv over the rows */
extern void BkMachineDots(const BkMachine *mach, int n, int dim,
						  const double *x, double *dots);
/* append x (with ||x||^2) as a new SV with one coefficient; returns index */
extern int	BkMachineAppend(BkMachine *mach, int dim, const double *x,
							double sqx, double coef);
/* overwrite slot r with x */
extern void BkMachineReplace(BkMachine *mach, int dim, int r, const double *x,
							 double sqx, double coef);
/* the float4 copy of rows r0 .. r0 + n - 1 from the SVs (without one: none) */
extern void BkSvSync(BkMachine *mach, int dim, int r0, int n);
/* x's values rounded to float4; false if one is beyond float4's range (left as it is) */
extern bool BkSvRound(double *x, int dim);
/*
 * Every SV value a float4 value, and the float4 copy (if kept) equal to
 * them: what every writer of a float4 model's SVs keeps (checked before
 * each encoding, bk_layout.c)
 */
extern bool BkSvFloat4Holds(const BkMachine *mach, int dim);
/* the hint of an error of that range */
#define FLOAT4_HINT "A model of \"sv_precision\": \"float4\" stores values of at most 3.4e38 in magnitude: scale the features, or train with \"sv_precision\": \"float8\"."
extern double BkMachineScore(const BkMachine *mach, const double *krow);
/* ||alpha_j||^2, SV j's stored coefficients over the classes */
extern double BkMachineCoefNorm2(const BkMachine *mach, int j);
/* argmin ||alpha_j||^2 k(x_j, x_j), paper 004 §4.1: the SV that carries the least of f */
extern int	BkMachineSmallestSv(const BkParams *p, const BkMachine *mach);
extern void BkMachineRemove(BkMachine *mach, int dim, int r);
extern void BkMachineAddColumn(const BkEnv *env, BkMachine *mach);
/* f -> -f, every cached score and evaluation label with it */
extern void BkMachineNegate(BkMachine *mach);
/* column c of the coefficients <- column perm[c]; tmp: n_coef doubles */
extern void BkMachinePermuteColumns(BkMachine *mach, const int *perm, double *tmp);

/* ---- bk_machine.c: a machine's allocation, growth and copy, caches with it ---- */
extern void BkMachineInit(const BkEnv *env, BkMachine *mach, int dim,
						  int n_coef, int capacity);
/* from now on keep the float4 copy of the SVs (their values are float4's) */
extern void BkMachineKeepFloat4(const BkEnv *env, BkMachine *mach);
extern void BkMachineFree(const BkEnv *env, BkMachine *mach);
/* room for newcap SVs (> capacity), all bookkeeping with them */
extern void BkMachineGrow(const BkEnv *env, BkMachine *mach, int dim, int newcap);
/* make room for one more SV, growing up to limit; false if full */
extern bool BkMachineReserve(const BkEnv *env, BkMachine *mach, int dim,
							 int limit);
extern void BkMachineCopy(const BkEnv *env, BkMachine *dst, const BkMachine *src,
						  int dim, double sign);
/* its vectors to new_dim columns: column c to map[c], the others fill's */
extern void BkMachineRelayout(const BkEnv *env, BkMachine *mach, int old_dim,
							  int new_dim, const int *map, const double *fill);

/* ---- bk_nearest.c: nearest-neighbour bookkeeping (paper 000 §3.1.3) ---- */
extern void BkNearestInit(const BkEnv *env, BkMachine *mach, int capacity);
extern void BkNearestForget(BkMachine *mach, int from, int to);
/* the SV just appended at slot n_sv-1; dots = its dot with the others */
extern void BkNearestOnAppend(BkMachine *mach, const double *dots);
extern const double *BkNearestRbf(BkMachine *mach, double gamma);
/* slot r was overwritten by a new vector; dots = new vector . old SVs */
extern void BkNearestOnReplace(const BkEnv *env, BkMachine *mach, int dim,
							   int r, const double *dots, double *work);
/* search SV j's neighbour again among all the SVs (one BkLinGemv) */
extern void BkNearestSearch(BkMachine *mach, int dim, int j, double *work);
/* nearest SV to a point given its dots with all SVs; -1 if none */
extern int	BkNearestOf(const BkMachine *mach, const double *dots, double sqx,
						int exclude, double *dist2);

/*
 * ---- bk_gram.c: inverse kernel matrix (paper 000 §3.1.2) ----
 * With a ridge r (BkGramInverse.ridge), the inverse kept is that of
 * K + r diag(K).  On a numerically low-rank K (a wide kernel,
 * low-dimensional data, a few hundred SVs) the exact inverse amplifies
 * rounding into coefficients of 1e9 and more; a relative ridge of 1e-6
 * bounds them and leaves well-conditioned projections as they were to
 * about 1e-6.  Every learner that keeps K^-1 uses it (BkModelGramRidge):
 * the Projectrons, and BPA-P and Pegasos' projections, a deviation from
 * the exact inverse of their eq. 9 / eq. 16-17.  Without it, BPA-P at
 * B = 500 on ncheckerboard1m stalled at 360 SVs and 48.1 % accuracy (with
 * it: 500 SVs, 96.2 %, BPA-NN 96.5 %), and on the checkerboard with
 * gamma = 4 BPA-P and Pegasos stopped at 67 and 59 SVs whatever the budget
 * (with it the budgets fill).
 */
#define BK_GRAM_RIDGE 1e-6
extern void BkGramInit(const BkEnv *env, BkGramInverse *g, int capacity);
/* room for a larger order, the values kept */
extern void BkGramGrow(const BkEnv *env, BkGramInverse *g, int capacity);
/* a = K^-1 k for the current order n (whole stored rows); returns k . a */
extern double BkGramApply(const BkGramInverse *g, const double *k, double *a);

/*
 * A vector closer than this (relative squared feature-space distance,
 * s <= BK_SPAN_TOL k_tt) to the span of the SVs is inside it: adding it
 * would make K numerically singular, so the learners that keep K^-1
 * project it instead.
 */
#define BK_SPAN_TOL 1e-8

/* Where Phi(x) stands against the span of the SVs (BkGramSpan). */
typedef struct BkSpan
{
	double		q;				/* k . K^-1 k: squared norm of the projection */
	double		s;				/* k(x, x) - q: squared distance to the span */
	bool		outside;		/* s > BK_SPAN_TOL k(x, x): it can be added */
} BkSpan;

/* a = K^-1 k, and where x, with kernel column k and k(x, x) = ktt, stands */
extern BkSpan BkGramSpan(const BkGramInverse *g, const double *k, double ktt,
						 double *a);
/*
 * grow to n+1 with a new SV whose kernel column is k, k(x, x) = ktt,
 * a = G k and s = ktt - k.a (the ridge of the new diagonal entry, if any,
 * is added here)
 */
extern void BkGramBorder(const BkEnv *env, BkGramInverse *g, const double *a,
						 double s, double ktt);
/* remove index r by the Schur complement, moving the last index into r */
extern void BkGramRemove(const BkEnv *env, BkGramInverse *g, int r);
/*
 * The SV of mach whose projection onto the others degrades its function
 * least, paper 004 §4.2 eq. 17: argmin ||alpha_p||^2 / G_pp (G = g's
 * inverse), the first on a tie; -1 if no G_pp is positive
 */
extern int	BkGramLeastDegrading(const BkMachine *mach, const BkGramInverse *g);
/* recompute K^-1 from the SVs (bk_linalg.c's Cholesky); false if K is not PD */
extern bool BkGramRefresh(const BkEnv *env, BkGramInverse *g,
						  const BkParams *p, const BkMachine *mach, int dim);
/*
 * inv = the inverse of the symmetric positive definite n x n matrix k
 * (row-major; its upper triangle is read; inv may be k) by BkLinCholesky
 * and BkLinCholInverse, both triangles filled.  If k is not numerically positive definite, up to ridge_tries
 * more attempts add a ridge to its diagonal: 1e-10 of its largest entry,
 * then 100 times more each time (these need inv != k).  False if all
 * attempts fail.
 */
extern bool BkSpdInverse(const BkEnv *env, const double *k, double *inv, int n,
						 int ridge_tries);
/* count a rank-one update; refactorise every n_sv of them */
extern void BkGramNoteUpdate(const BkEnv *env, BkGramInverse *g,
							 const BkParams *p, const BkMachine *mach, int dim);

/* ---- bk_merge.c: merging two SVs (paper 004 §4.3) ---- */
typedef struct BkMergeChoice
{
	int			m;				/* the SV merged away */
	int			n;				/* its partner */
	double		h;				/* z = h x_m + (1 - h) x_n */
	double		degradation;	/* ||Delta w||^2 in stored coefficients */
	int			searched;		/* partners whose h was searched */
} BkMergeChoice;

/* one pair's best h and degradation at L = gamma d2, kmn = exp(-L) */
extern double BkMergePair(double L, double kmn, double aa, double bb, double ab,
						  double *h);
/* a lower bound of that degradation from L and kmn alone (the pruning) */
extern double BkMergeBound(double L, double kmn, double aa, double bb,
						   double ab);
extern void BkMergeChoose(const BkEnv *env, const BkParams *p,
						  const BkMachine *mach, int dim, int mi, double *work,
						  BkMergeChoice *c);
/* the same choice by the search of every partner, without pruning (tests) */
extern void BkMergeChooseExhaustive(const BkEnv *env, const BkParams *p,
									const BkMachine *mach, int dim, int mi,
									double *work, BkMergeChoice *c);
extern void BkMergePoint(const BkParams *p, const BkMachine *mach, int dim,
						 const BkMergeChoice *c, const double *work,
						 double *zbuf, double *az);
/* dim values for the point z, allocated at the model's first merge */
extern double *BkModelMergePoint(BkModel *m);
extern void BkMergeApply(BkMachine *mach, int dim, const BkMergeChoice *c,
						 const double *zbuf, const double *az);

/* ---- bk_rng.c ---- */
extern void BkRngSeed(BkRng *rng, uint64_t seed);
extern uint64_t BkRngNext(BkRng *rng);
extern double BkRngUniform(BkRng *rng);	/* [0, 1) */
extern uint64_t BkRngBelow(BkRng *rng, uint64_t n);	/* [0, n) unbiased */

/* ---- learners: one step on row (x, y) ---- */

/* What a learner step gets about the current row. */
typedef struct BkRow
{
	const double *x;
	double		sqx;			/* ||x||^2 */
	double		ktt;			/* k(x, x) */
	double		y;				/* +1 / -1 */
	/*
	 * The margin the step asks of y f: 1 for a classifier; a regressor's
	 * y target - epsilon (y: the residual's sign), so that margin - y f is
	 * |target - f| - epsilon (BkModelLearnValue); a detector's rho
	 */
	double		margin;
	/* a novelty step's rate and threshold shrink (1: none), which move rho */
	double		rate;
	double		rho_decay;
	double		f;				/* f_t(x) before the update */
	double	   *dots;			/* x . sv_i */
	double	   *krow;			/* k(x, sv_i) */
	double	   *work;			/* scratch of the model */
	/*
	 * Class weights (bk_class_weight.c; 1 without): the weight of this
	 * row's loss, and the weights of the machine's positive and negative
	 * sides, which bound the dual variables of the SVs of each side
	 */
	double		weight;
	double		w_pos;
	double		w_neg;
} BkRow;

/* the class weight of an SV stored with coefficient coef on row's machine */
static inline double
BkRowSideWeight(const BkRow *row, double coef)
{
	return coef >= 0.0 ? row->w_pos : row->w_neg;
}

/* true if the step changed the machine */
extern bool BkPerceptronStep(BkModel *m, BkMachine *mach, BkRow *row);
extern bool BkPaStep(BkModel *m, BkMachine *mach, BkRow *row);
extern bool BkBpaStep(BkModel *m, BkMachine *mach, BkRow *row);
extern bool BkStoptronStep(BkModel *m, BkMachine *mach, BkRow *row);
extern bool BkRbpStep(BkModel *m, BkMachine *mach, BkRow *row);
extern bool BkPaRandomStep(BkModel *m, BkMachine *mach, BkRow *row);
extern bool BkBudgetPerceptronStep(BkModel *m, BkMachine *mach, BkRow *row);
extern bool BkTighterBudgetPerceptronStep(BkModel *m, BkMachine *mach, BkRow *row);
extern bool BkSpaStep(BkModel *m, BkMachine *mach, BkRow *row);
extern bool BkOgdStep(BkModel *m, BkMachine *mach, BkRow *row);
extern bool BkDuolStep(BkModel *m, BkMachine *mach, BkRow *row);
/*
 * (gamma_t, d gamma_b) of paper 001 eq. 1, gamma_t in [0, C] and
 * gamma_b + d in [0, Cb] (the boxes differ under class weights)
 */
extern void BkDuolDoubleUpdate(double C, double Cb, double lt, double lb,
							   double kt, double kb, double w, double gb,
							   double *g, double *d);
extern bool BkBogdStep(BkModel *m, BkMachine *mach, BkRow *row);

/*
 * ---- bk_alg_bduol.c: BDUOL's budget maintenance (paper 001 §3) ----
 * Runs with B SVs stored and x_t about to be added; removes at least one
 * SV and changes other coefficients, keeps sv_scores (f(x_j)), the
 * neighbour cache and row->krow / row->dots (aligned with the SV slots)
 * up to date, and returns the change of f(x_t).
 */
extern double BkBduolMaintain(BkModel *m, BkMachine *mach, BkRow *row);
/* ---- bk_boxqp.c: projection under a box (paper 001 eq. 8-9) ---- */
/* Scratch of one projection of n SVs (BkBoxQpAlloc). */
typedef struct BkBoxQp
{
	int			n;
	double	   *K;				/* n x n kernel matrix */
	double	   *G;				/* n x n, K^-1 */
	double	   *HS;				/* n x n: columns of H for the fixed set */
	double	   *M;				/* n x n: H_SS, factorised */
	double	   *a;				/* candidate's coefficient changes */
	double	   *abest;
	double	   *astar;
	double	   *lo;
	double	   *hi;
	double	   *mu;
	double	   *Ka;
	int		   *state;			/* 0 free, -1 at lo, +1 at hi, 2 = j */
	int		   *fixed;			/* indices of the fixed set */
} BkBoxQp;

/* scratch for n SVs: returns the block of doubles (free it and w->state) */
extern double *BkBoxQpAlloc(const BkEnv *env, BkBoxQp *w, int n);
/* w->G = w->K^-1, with a small ridge if needed; false if even that fails */
extern bool BkBoxQpInvert(const BkEnv *env, BkBoxQp *w);
/* eq. 9 for SV j of coefficient c: a_P = -c G_Pj / G_jj in w->a and w->Ka */
extern void BkBoxQpStart(double c, BkBoxQp *w, int j);
/* eq. 8 from the start above, w->lo <= w->a <= w->hi; false if a step fails */
extern bool BkBoxQpSolve(const BkEnv *env, BkBoxQp *w, int j);
/*
 * The exact projection of eq. 8 on its own: K (n x n, row-major) the
 * kernel matrix, j the SV projected with coefficient c, lo / hi the
 * bounds of the others' coefficient changes; a gets the changes (a_j =
 * 0).  False if K is not positive definite or a step fails.
 */
extern bool BkBoxQpProject(const BkEnv *env, const double *K, int n, int j,
						   double c, const double *lo, const double *hi,
						   double *a);

/* remove SV r (BkMachineRemove) and repair the neighbour cache */
extern void BkNearestRemove(const BkEnv *env, BkMachine *mach, int dim, int r,
							double *work);
extern bool BkForgetronStep(BkModel *m, BkMachine *mach, BkRow *row);
/* Projectron and Projectron++ (by m->params.algorithm) */
extern bool BkProjectronStep(BkModel *m, BkMachine *mach, BkRow *row);
/* the Forgetron's self-tuned shrink phi_t (exposed for the unit tests) */
extern double BkForgetronPhi(double sigma, double mu, double Q, double M);
extern double BkSpaAverageScore(const BkModel *m, const BkMachine *mach,
								const double *krow);

/* ---- bk_evalset.c: the tighter budget perceptron's evaluation set ---- */
extern void BkEvalInit(const BkEnv *env, BkMachine *mach, int cap, int dim);
extern void BkEvalFree(const BkEnv *env, BkMachine *mach);
extern void BkEvalCopy(const BkEnv *env, BkMachine *dst, const BkMachine *src,
					   int dim, double sign);
extern void BkEvalAddPoint(BkMachine *mach, int dim, const double *x, double sqx,
						   double y, double f, const double *krow, uint64_t t);
extern void BkEvalRemovePoint(BkMachine *mach, int dim, int k);
extern void BkEvalOnAddSv(const BkParams *p, BkMachine *mach, int dim, int j,
						  const double *x, double sqx, double a);
extern void BkEvalOnRemoveSv(BkMachine *mach, int i, double a);
extern void BkEvalCountFlips(BkMachine *mach);
extern int	BkEvalBestRemoval(const BkMachine *mach);

extern bool BkPegasosStep(BkModel *m, BkMachine *mach, BkRow *row, int cls);
extern void BkPegasosScores(const BkModel *m, const BkMachine *mach,
							const BkRow *row, double *scores);

/* ---- bk_layout.c: the layout each algorithm needs (create, decode, validate) ---- */
extern int	BkModelMachines(const BkParams *p, int n_classes);
extern int	BkModelCoefs(const BkParams *p, int n_classes);
extern bool BkModelNeedsNearest(const BkParams *p);
extern bool BkModelNeedsGram(const BkParams *p);
extern double BkModelGramRidge(const BkParams *p);	/* BkGramInverse.ridge */
extern bool BkModelNeedsScores(const BkParams *p);
extern int	BkModelEvalCap(const BkParams *p);	/* 0: no evaluation set */
extern bool BkModelNeedsBorn(const BkParams *p);
extern int	BkModelCapacity(const BkParams *p);	/* SV slots for training */
extern int	BkModelGrowLimit(const BkParams *p);	/* BkModel.grow_limit */
/* SV slots a training machine starts with, holding n_sv SVs */
extern int	BkModelInitialCapacity(const BkParams *p, int n_sv);
extern void BkModelAllocMachines(BkModel *m, const int *caps, int capacity);
extern void BkModelOnNewClass(BkModel *m);
/*
 * After a step (or, merging, after a merge rebuilt a machine): its scale,
 * degradation sum, norm, coefficients and cached scores must be finite
 * and in range, else BK_ERR_OVERFLOW naming the value, so that no model
 * that fails validation is ever returned.
 */
extern void BkModelCheckSums(BkModel *m, const BkMachine *mach, bool merging);
/*
 * Reorder the classes: new class i is old class perm[i].  The machines
 * follow (one-vs-rest machines change places, a binary machine whose two
 * classes exchange is negated, a multi-class machine's columns move), and
 * so do this run's counts.
 */
extern void BkModelPermuteClasses(BkModel *m, const int *perm);
extern void BkModelCheckClassRoom(BkModel *m, int n_classes);
/* BkModelCheckSize for a model of n_classes classes (all machines counted) */
extern bool BkModelCheckSizeClasses(const BkParams *p, int dim, int n_classes,
									size_t limit, char *err, size_t errlen);
/* largest encoded size a model of these parameters can reach; false on overflow */
extern bool BkFormatMaxSize(const BkParams *p, int dim, int n_classes, size_t *out);
/* the machine aux bits (doc/format.md) a model of these parameters carries */
extern uint32_t BkModelAux(const BkParams *p);

/* ---- bk_model.c ---- */
extern void BkModelLearnClass(BkModel *m, const double *x, int cls, bool is_new);

/* ---- bk_classes.c ---- */
extern void BkModelFreeClasses(BkModel *m);
/* append a class (no layout change); the arrays grow as needed */
extern void BkClassAppend(BkModel *m, int64_t label, const char *text, size_t len);
/* <0, 0, >0 as class i comes before, is, or comes after class j canonically */
extern int	BkClassCompare(const BkModel *m, int i, int j);
/* index of a label, -1 if the model lacks it */
extern int	BkClassFind(const BkModel *m, int64_t label, const char *text, size_t len);

/* ---- bk_model_classes.c: the classes as rows bring them ---- */
/* put the classes in canonical order unless they were declared */
extern void BkModelCanonicalClasses(BkModel *m);
/* add a class that no row has shown yet, in its canonical place; its index */
extern int	BkClassAdd(BkModel *m, int64_t label, const char *text, size_t len);

/* ---- bk_class_weight.c ---- */
extern void BkWeightsFree(const BkEnv *env, BkClassWeights *cw);
/* count a row of class cls and set every machine's row weights */
extern void BkWeightsForRow(BkModel *m, int cls, BkRow *rows);
/* the classes moved: new class i is old class perm[i] */
extern void BkWeightsPermute(BkModel *m, const int *perm);
/* the largest class weight now (1 without weights, or before any row) */
extern double BkWeightsLargest(BkModel *m);

/* merging: the same weights; b's counts added to a's (same classes) */
extern bool BkWeightsSame(const BkModel *a, const BkModel *b);
extern void BkWeightsAddCounts(BkModel *a, const BkModel *b);

/* ---- bk_calibrate.c ---- */
/* scores of n classes to their calibrated probabilities, in place */
extern void BkPlattProbabilities(const double *platt, int n, double *prob);

/* ---- bk_run.c: what one run of training saw ---- */
/* note a row of class cls, predicted as pred (-1: its class was new) */
extern void BkRunNote(BkModel *m, const double *x, int cls, int pred);
extern void BkRunFree(BkModel *m);
/* the model's columns change: column c to map[c], the others fill's */
extern void BkRunRelayout(BkModel *m, int new_dim, const int *map,
						  const double *fill);

/*
 * ---- bk_model_union.c: two prepared models whose keys or levels differ
 * re-laid into the union of their preparations, before a merge ----
 */
extern void BkModelUnionLayout(BkModel *a, BkModel *b);
/* the classes changed places: old class c is now inv[c] */
extern void BkRunPermute(BkModel *m, const int *inv, int n_classes);
/* BkModelRunReport, the model's prediction of a row given */
typedef int (*BkRunPredict) (BkModel *m, const double *x);
extern void BkRunMakeReport(BkModel *m, BkRunReport *out, BkRunPredict predict);
/* a regressor's: note a row of target t; the report of its predictions */
extern void BkRunNoteValue(BkModel *m, const double *x, double t);
typedef double (*BkRunPredictValue) (BkModel *m, const double *x);
extern void BkRunMakeValueReport(BkModel *m, BkRunReport *out, BkRunPredictValue predict);

/* ---- bk_budget.c: what the learners share around their budget ---- */
/* room for one more SV of an unbudgeted learner, or an error at max_sv */
extern void BkBudgetReserveUnbudgeted(BkModel *m, BkMachine *mach);
/* count one budget-maintenance step of a machine */
extern void BkBudgetCountMaintenance(BkModel *m, BkMachine *mach);
/* with B SVs stored, remove one uniformly at random (RBP, PA+Rand, BOGD) */
extern void BkBudgetRemoveRandomIfFull(BkModel *m, BkMachine *mach);
/* remove SV r, the row's kernel values and neighbour cache realigned */
extern void BkBudgetRemove(BkModel *m, BkMachine *mach, BkRow *row, int r,
						   double *work);

#endif							/* BK_INTERNAL_H */
