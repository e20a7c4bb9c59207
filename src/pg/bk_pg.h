/*
 * bk_pg.h
 *	  What the files of the PostgreSQL layer share.
 *
 * The PostgreSQL layer converts SQL values into calls of the learning core
 * (bk_core.h) and the core's errors into ereport.  It contains no learning
 * algorithm.
 */
#ifndef BK_PG_H
#define BK_PG_H

#include "datatype/timestamp.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/jsonb.h"
#include "utils/palloc.h"

#include "bk_compat.h"
#include "bk_core.h"
#include "bk_activity.h"

/* Name of the SQL type, for messages. */
#define BK_TYPE_NAME "bk_model"

/* ------------------------------------------------------------------------
 * bk_pg_env.c: the core's environment in the server
 * ------------------------------------------------------------------------
 */

/* Fill env so that the core allocates in ctx and reports through ereport. */
extern void BkPgEnvInit(BkEnv *env, MemoryContext ctx);

/* The SQLSTATE of a core error class. */
extern int	BkPgErrCode(BkErrCode code);

/*
 * A core message turned into a sentence for errdetail/errhint (capital
 * first letter, final period).  Palloc'd in CurrentMemoryContext.
 */
extern char *BkPgSentence(const char *message);

/* ------------------------------------------------------------------------
 * bk_type.c: model bytes
 * ------------------------------------------------------------------------
 */

/*
 * Check client-supplied bytes with BkFormatValidateStructure and raise
 * 22P03 (0A000 for a newer format) if they are not a well-formed model.
 */
extern void BkPgValidateInput(const uint8_t *buf, size_t len);

/*
 * Decode a bk_model datum (detoasting it) into a model allocated in ctx.
 * Invalid stored bytes raise XX001 (0A000 for a newer format).
 */
extern BkModel *BkPgDecodeDatum(Datum d, MemoryContext ctx, bool for_training);
/*
 * Which model a datum holds, known in O(1) per row: an on-disk value by
 * its TOAST pointer, any other by its length and its stored checksum (the
 * model's last four bytes).  For aggregates that take one model on every
 * row (bk_continue, bk_calibrate) and must refuse a second one.
 */
typedef struct BkPgModelId
{
	bool		ondisk;
	Oid			toastrelid;
	Oid			valueid;
	Size		len;
	uint32		crc;
} BkPgModelId;

extern void BkPgModelIdOf(Datum d, BkPgModelId *id);
extern bool BkPgModelIdEqual(const BkPgModelId *a, const BkPgModelId *b);

/* the SHA-256 of a model value's bytes (BK_FINGERPRINT_LEN bytes into out) */
extern void BkPgFingerprint(Datum d, uint8 *out);

/* text label c in the database encoding (22021 / 22P05 if it cannot be) */
extern const char *BkPgClassName(const BkModel *m, int c);

/* a text label of the database as the model keeps it (UTF-8 or as is) */
extern const char *BkPgLabelIn(const BkModel *m, const char *s, size_t *len);
extern const char *BkPgModelText(const BkModel *m, const char *s);

/* bk_class_weights.c: the "class_weight" parameter and override */
/*
 * set m's class weights from the jsonb value ("balanced", "none", an
 * object); text_labels: the stream's labels are text
 */
extern void BkPgApplyClassWeights(BkModel *m, Jsonb *value, bool text_labels);
/* bk_info's "class_weight": null, "balanced" or {label: weight} */
extern void BkPgPushClassWeights(JsonbParseState **ps, const BkModel *m);

/* the labels of a 0.1.0 model must be valid in this database (22021) */
extern void BkPgCheckLegacyLabels(const BkModel *m);

/* bk_jsonb_build.c: pushJsonbValue of one key or value */
extern void bk_push_key(JsonbParseState **ps, const char *key);
extern void bk_push_string(JsonbParseState **ps, JsonbIteratorToken tok, const char *s);
extern void bk_push_bool(JsonbParseState **ps, JsonbIteratorToken tok, bool b);
extern void bk_push_null(JsonbParseState **ps, JsonbIteratorToken tok);
extern void bk_push_numeric(JsonbParseState **ps, JsonbIteratorToken tok, Numeric num);
extern void bk_push_int64(JsonbParseState **ps, JsonbIteratorToken tok, int64 i);
extern void bk_push_uint64(JsonbParseState **ps, JsonbIteratorToken tok, uint64 u);
/* a double; null if it is not finite */
extern void bk_push_double(JsonbParseState **ps, JsonbIteratorToken tok, double d);
/* an integer-valued double: a JSON integer when it is one */
extern void bk_push_integer_param(JsonbParseState **ps, JsonbIteratorToken tok, double d);

/*
 * bk_run_warnings.c: WARNINGs of a suspicious training run (fname:
 * bk_train or bk_continue): the order of the first pass, and the model
 * returned (the same, or the copy trained on more passes)
 */
/* budgetkernel.run_warnings: off, no warning at all */
extern bool bk_run_warnings;
extern void BkPgWarnRun(BkModel *first_pass, BkModel *m, const char *fname);
/*
 * bk_input_warnings.c: NOTICEs and WARNINGs of suspicious inputs (a float8
 * target of few integral values, a leak, a constant text feature), and of
 * unscaled features under a model near the majority (run: its report;
 * true when said)
 */
extern void BkPgWarnInputs(BkModel *first_pass, BkModel *m, const char *fname);
extern bool BkPgWarnUnscaled(BkModel *first_pass, const BkRunReport *run,
							 const char *fname, const char *majority_label);

/* ------------------------------------------------------------------------
 * bk_features.c: feature arrays
 * ------------------------------------------------------------------------
 */

/*
 * The values of a features array: a float8[]'s own data, or for float4[],
 * int2[], int4[], int8[] and numeric[] (whose bytes reach bk_features
 * unconverted) its values as doubles, palloc'd.  Raises an error for a multi-dimensional or empty array, a NULL
 * element or a NaN/Infinity value.  row > 0 is the stream row number shown
 * in messages; row <= 0 means "no row" (scoring).
 */
extern const double *BkPgReadFeatures(ArrayType *a, int64 row, int *n);

/*
 * Start fetching the next row of a sequential scan into the CPU cache
 * while this one is worked on.  raw is this row's features value as the
 * scan gives it (before detoasting: it then points into the table's page).
 * A heap page fills from its end down, so the row a scan reads next sits
 * just below this one, by about the size of this value plus a tuple
 * header and the columns before it (64 bytes is allowed for those).
 * Without this each row's first read stalls on memory: a third of a cheap
 * learner's time in the server, where the bare core reads rows that the
 * hardware prefetches in order (doc/performance.md).  A guess that misses
 * (another page, rows of other sizes) costs a few instructions: a prefetch
 * never faults.
 */
static inline void
BkPgPrefetchNextRow(Datum raw)
{
	uintptr_t	p = (uintptr_t) DatumGetPointer(raw);
	uintptr_t	len = Min(VARSIZE_ANY(DatumGetPointer(raw)), BLCKSZ) + 64;

	/* on integer addresses: written as p - off, the loop was dropped by GCC 12 -O2 */
	for (uintptr_t q = p - len; q < p; q += 64)
		__builtin_prefetch((const void *) q);
}

/*
 * A row's features without the palloc and copy PG_DETOAST_DATUM makes of
 * a short value (a 1-byte header: inline, under 127 bytes, such as an
 * array of up to 12 doubles): its bytes go into buf behind a 4-byte
 * header, which is what that copy would hold.  On two-feature rows the
 * palloc, and the reset of the per-row memory it left, were a tenth of
 * the server's own cost per row.  The result lives until buf's next use.
 */
typedef union BkPgShortBuf
{
	char		bytes[VARHDRSZ + VARATT_SHORT_MAX];
	double		align;			/* the array's doubles stay aligned */
} BkPgShortBuf;

static inline Datum
BkPgDetoastRow(Datum raw, BkPgShortBuf *buf)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(raw);

	/* a 1-byte header is also that of a TOAST pointer (VARATT_IS_EXTERNAL) */
	if (VARATT_IS_SHORT(v) && !VARATT_IS_EXTERNAL(v))
	{
		Size		len = VARSIZE_SHORT(v) - VARHDRSZ_SHORT;

		SET_VARSIZE(buf->bytes, len + VARHDRSZ);
		memcpy(VARDATA(buf->bytes), VARDATA_SHORT(v), len);
		return PointerGetDatum(buf->bytes);
	}
	return PointerGetDatum(PG_DETOAST_DATUM(raw));
}

/*
 * The values of a one-dimensional array of an accepted numeric element
 * type as doubles (palloc'd), and its NULL flags (*isnull: palloc'd, NULL
 * for an element that is NULL; its value is then 0)
 */
extern double *BkPgArrayDoubles(ArrayType *a, bool **isnull, int *n);

/* a one-dimensional float8[] of n values */
extern ArrayType *BkPgFloat8Array(const double *v, int n);

/*
 * Raise ERRCODE_DATA_EXCEPTION if n != expected.  whose is what expected
 * is the dimension of ("the first row's", "the model's").
 */
extern void BkPgCheckDim(int n, int expected, int64 row, const char *whose);

/* ------------------------------------------------------------------------
 * bk_sparse.c: the bk_sparse type, a sparse vector of a declared dimension
 * ------------------------------------------------------------------------
 */
/*
 * In memory and on disk (the binary send/recv format and the text form are
 * another matter, and do not hold the magic word): the magic word first,
 * so that a bk_features value tells a bk_sparse from an array (whose first
 * word is its number of dimensions, 0 to 6) and from a jsonb (whose first
 * word is its root header, flags in bits 28 to 30): the magic has the high
 * bit set, which neither has.
 */
#define BK_SPARSE_MAGIC 0xB5A50001U

typedef struct BkSparse
{
	int32		vl_len_;		/* varlena header */
	uint32		magic;			/* BK_SPARSE_MAGIC */
	int32		dim;
	int32		nnz;
	int32		indices[FLEXIBLE_ARRAY_MEMBER];	/* 1-based, ascending; then
												 * the values, aligned */
} BkSparse;

/* the nnz values of s */
extern double *BkSparseValues(const BkSparse *s);
/* a new vector of dimension dim and room for nnz values */
extern BkSparse *BkPgSparseNew(int dim, int nnz);
/* an error (22000) unless s is well formed; what names it in messages */
extern void BkPgSparseCheck(const BkSparse *s, const char *what);
/* its dense values (dim of them, palloc'd) */
extern double *BkPgSparseDense(const BkSparse *s);

/*
 * The form of a features value (bk_features: the one SQL type of every
 * features argument, which float8[], the other numeric arrays, jsonb and
 * bk_sparse reach by implicit cast, their bytes unchanged)
 */
typedef enum BkFeatureForm
{
	BK_FORM_ARRAY,				/* a numeric array: float8[], int4[], ... */
	BK_FORM_NAMED,				/* jsonb: named features */
	BK_FORM_SPARSE				/* bk_sparse */
} BkFeatureForm;

/*
 * The form of a features value from its bytes (bk_features.c).  d must be
 * detoasted (not a TOAST pointer, not an expanded object; a short header
 * is fine).  Anything else, an array of an element type other than
 * float8, float4, int2, int4, int8 and numeric included, is an error
 * (42804) naming the accepted forms.
 */
extern BkFeatureForm BkPgFeaturesForm(Datum d);

/* the forms bk_features takes, for messages */
#define BK_FEATURES_FORMS "float8[] (or another numeric array: int2[], int4[], int8[], float4[], numeric[]), jsonb or bk_sparse"

/* the element types of the arrays it takes (bk_features.c) */
extern bool BkPgFeaturesElemType(Oid elemtype);

/* bk_sparse.c: the text and binary forms of a bk_sparse (bk_features' I/O) */
extern Datum bk_sparse_in(PG_FUNCTION_ARGS);
extern Datum bk_sparse_out(PG_FUNCTION_ARGS);
extern Datum bk_sparse_recv(PG_FUNCTION_ARGS);
extern Datum bk_sparse_send(PG_FUNCTION_ARGS);

/* ------------------------------------------------------------------------
 * bk_prepare.c: a features argument (float8[] or a jsonb object of named
 * values) through the model's preparation
 * ------------------------------------------------------------------------
 */

/*
 * Rows of named features (jsonb) that lacked keys the model was trained
 * on, counted for one WARNING per call site (BkPgWarnKeys): how many rows,
 * and the first of the keys they lacked.  A row that names none of them is
 * an error instead.
 */
#define BK_TALLY_KEYS 8
typedef struct BkPgKeyTally
{
	int64		rows;			/* rows of named features scored */
	int64		lacking;		/* of them, rows that lacked a key */
	int			n_keys;
	bool		more_keys;		/* lacked more keys than kept here */
	char	   *keys[BK_TALLY_KEYS];	/* in the tally's context */
	MemoryContext mcxt;
} BkPgKeyTally;

/*
 * The vector m learns from or scores for this features datum (named: a
 * jsonb object, else a float8[]): the array itself for a model without
 * preparation (its length checked against the dimension, whose: "the
 * model's", "the first row's"), else the prepared vector, palloc'd.
 */
extern const double *BkPgModelRow(BkModel *m, Datum features, BkFeatureForm form,
								  int64 row, const char *whose, BkPgKeyTally *tally);

/*
 * The same, for scoring only: a sparse row is not densified, and the
 * pointer returned stands for it in the core's scoring calls
 * (BkModelSparseScoringRow), not to be read as values.  tally (or NULL)
 * counts the rows that lacked keys of the model.
 */
extern const double *BkPgScoringRow(BkModel *m, Datum features, BkFeatureForm form,
									int64 row, const char *whose, BkPgKeyTally *tally);
/* the WARNING of a tally with rows that lacked keys (fname: who scored) */
extern void BkPgWarnKeys(const BkPgKeyTally *tally, const char *fname);
/* feed one training row's features to the fit of a preparation */
extern void BkPgFitRow(BkPrepFit *f, Datum features, BkFeatureForm form, int64 row);
/*
 * bk_data_drift: one row's raw values to d by m's inputs (m has a
 * preparation; scratch: BkPrepDim doubles)
 */
extern void BkPgDriftRow(BkModel *m, BkDataDrift *d, Datum features, BkFeatureForm form,
						 int64 row, double *scratch);

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
/*
 * A copy of m trained on epochs - 1 more passes over the rows, pass p in
 * the order of bk_shuffle_key(position in the first pass, seed + p - 1);
 * from: the first pass's progress (its start, its bk_training_progress run)
 */
struct BkProgress;
extern BkModel *BkPgEpochsReplay(const BkModel *m, BkEpochRows *r, int epochs,
								 const char *fname, const struct BkProgress *from,
								 MemoryContext cxt);
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

/* ------------------------------------------------------------------------
 * bk_score.c: per-call-site model cache
 * ------------------------------------------------------------------------
 */

/*
 * The decoded model of argument argno, from the fn_extra cache of this
 * call site (decoded at most once per distinct model and query, while the
 * backend's decoded models fit budgetkernel.model_cache_size).
 */
extern BkModel *BkPgCachedModel(FunctionCallInfo fcinfo, int argno);

/* budgetkernel.model_cache_size, in kB */
extern int	bk_model_cache_size_kb;

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
	 * The call has no label (bk_train(features, params), bk_continue(
	 * features, model)): a novelty detector; its params or model is
	 * argument 2, not 3
	 */
	bool		novelty;
	/* the model is made once every row is seen: a fitted preparation or target */
	bool		deferred;
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
 * What a call's arguments are, whoever calls (bk_fcall.c): the type of
 * argument argno, from the call expression or else the declared
 * signature; and whether the aggregate's argument argno (0: the first
 * after the state) is an int2 or int4 column PostgreSQL cast to float8 to
 * call a float8 form: false when it cannot be seen (a window function, a
 * caller without the call expression)
 */
extern Oid	BkPgArgType(FunctionCallInfo fcinfo, int argno);
extern bool BkPgArgCastFromInteger(FunctionCallInfo fcinfo, int argno);
extern void BkPgCheckNargs(FunctionCallInfo fcinfo, const char *fname);

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
/*
 * the model as a bk_model value, validated (XX000 / 22003 / 54000 if not);
 * fname: the SQL function that made it, for the messages
 */
extern struct varlena *BkPgEncodeModel(const BkModel *m, const char *fname);

#endif							/* BK_PG_H */
