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
 * the model as a bk_model value, validated (XX000 / 22003 / 54000 if not);
 * fname: the SQL function that made it, for the messages
 */
extern struct varlena *BkPgEncodeModel(const BkModel *m, const char *fname);

#endif							/* BK_PG_H */
