/*
 * bk_score.c
 *	  bk_predict and bk_decision, with a per-call-site cache of decoded
 *	  models in fn_extra (decode once per query, not once per row).
 *
 * The cache key follows PG-NOTES.md section 3: the argument is read raw
 * (not detoasted).  An on-disk TOAST pointer is keyed on (va_toastrelid,
 * va_valueid), which is unique for a stored value and costs no I/O.  Any
 * other value (inline, compressed inline, in memory) is detoasted and
 * compared by length and full content against a copy kept in the entry.
 * The memory address is never a key: different models arrive at the same
 * address in hash joins.  A small LRU serves joins where a few models
 * interleave.
 */
#include "postgres.h"

#include <string.h>

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "bk_pg.h"

PG_FUNCTION_INFO_V1(bk_predict);
PG_FUNCTION_INFO_V1(bk_predict_label);
PG_FUNCTION_INFO_V1(bk_decision);
PG_FUNCTION_INFO_V1(bk_scores);

/*
 * Up to 16 models per call site, so that a join scoring a dozen stored
 * models row by row does not decode on every call, but no more than
 * BK_CACHE_MAX_BYTES of model bytes: the least recently used go first (the
 * model being loaded is always kept).
 */
#define BK_CACHE_ENTRIES 16
#define BK_CACHE_MAX_BYTES ((Size) 256 * 1024 * 1024)

typedef struct BkCacheEntry
{
	bool		valid;
	bool		ondisk;			/* keyed on the TOAST pointer */
	Oid			toastrelid;		/* key of on-disk values */
	Oid			valueid;
	int32		rawsize;
	Size		len;			/* key of other values: length + bytes */
	uint8	   *bytes;
	uint64		last_used;		/* LRU clock */
	Size		model_bytes;	/* encoded size, for the byte limit */
	MemoryContext mcxt;			/* holds bytes and the model */
	BkModel    *model;
} BkCacheEntry;

typedef struct BkModelCache
{
	uint64		clock;
	Size		total_bytes;	/* model bytes of the valid entries */
	BkCacheEntry ent[BK_CACHE_ENTRIES];
} BkModelCache;

static void
bk_cache_evict(BkModelCache *cache, BkCacheEntry *e)
{
	if (e->valid)
		cache->total_bytes -= e->model_bytes;
	if (e->mcxt != NULL)
		MemoryContextDelete(e->mcxt);
	memset(e, 0, sizeof(*e));
}

/*
 * An empty entry for a model of len bytes: evict least recently used
 * entries until it fits the byte limit, then take a free entry or the
 * least recently used one
 */
static BkCacheEntry *
bk_cache_victim(BkModelCache *cache, Size len)
{
	for (;;)
	{
		BkCacheEntry *lru = NULL;
		BkCacheEntry *free_entry = NULL;
		int			i;

		for (i = 0; i < BK_CACHE_ENTRIES; i++)
		{
			BkCacheEntry *e = &cache->ent[i];

			if (!e->valid)
			{
				if (free_entry == NULL)
					free_entry = e;
			}
			else if (lru == NULL || e->last_used < lru->last_used)
				lru = e;
		}
		if (lru != NULL && cache->total_bytes + len > BK_CACHE_MAX_BYTES)
		{
			bk_cache_evict(cache, lru);
			continue;
		}
		if (free_entry != NULL)
			return free_entry;
		bk_cache_evict(cache, lru);
		return lru;
	}
}

/*
 * The decoded model of argument argno, from this call site's cache
 */
BkModel *
BkPgCachedModel(FunctionCallInfo fcinfo, int argno)
{
	MemoryContext fn_mcxt = fcinfo->flinfo->fn_mcxt;
	BkModelCache *cache = (BkModelCache *) fcinfo->flinfo->fn_extra;
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	struct varlena *flat = NULL;
	bool		ondisk = VARATT_IS_EXTERNAL_ONDISK(raw);
	struct varatt_external ve;
	BkCacheEntry *e;
	MemoryContext mcxt;
	BkEnv		env;
	BkModel    *m;
	const uint8 *bytes;
	Size		len;
	int			i;

	if (cache == NULL)
	{
		cache = (BkModelCache *) MemoryContextAllocZero(fn_mcxt,
														sizeof(BkModelCache));
		fcinfo->flinfo->fn_extra = cache;
	}

	if (ondisk)
	{
		VARATT_EXTERNAL_GET_POINTER(ve, raw);
		for (i = 0; i < BK_CACHE_ENTRIES; i++)
		{
			e = &cache->ent[i];
			if (e->valid && e->ondisk &&
				e->toastrelid == ve.va_toastrelid &&
				e->valueid == ve.va_valueid &&
				e->rawsize == ve.va_rawsize)
			{
				e->last_used = ++cache->clock;
				return e->model;
			}
		}
		flat = detoast_attr(raw);
	}
	else
	{
		flat = (struct varlena *) PG_DETOAST_DATUM_PACKED(PointerGetDatum(raw));
		bytes = (const uint8 *) VARDATA_ANY(flat);
		len = VARSIZE_ANY_EXHDR(flat);
		for (i = 0; i < BK_CACHE_ENTRIES; i++)
		{
			e = &cache->ent[i];
			if (e->valid && !e->ondisk && e->len == len &&
				memcmp(e->bytes, bytes, len) == 0)
			{
				e->last_used = ++cache->clock;
				if (flat != raw)
					pfree(flat);
				return e->model;
			}
		}
	}

	/* miss: decode into a new entry */
	bytes = (const uint8 *) VARDATA_ANY(flat);
	len = VARSIZE_ANY_EXHDR(flat);

	e = bk_cache_victim(cache, len);
	mcxt = AllocSetContextCreate(fn_mcxt, "budgetkernel model cache",
								 ALLOCSET_DEFAULT_SIZES);
	BkPgEnvInit(&env, mcxt);
	/* validates; corrupted stored bytes raise XX001 */
	m = BkModelDecode(&env, bytes, len, false);

	e->mcxt = mcxt;
	e->model = m;
	e->ondisk = ondisk;
	if (ondisk)
	{
		e->toastrelid = ve.va_toastrelid;
		e->valueid = ve.va_valueid;
		e->rawsize = ve.va_rawsize;
	}
	else
	{
		e->len = len;
		e->bytes = MemoryContextAlloc(mcxt, Max(len, 1));
		memcpy(e->bytes, bytes, len);
	}
	e->last_used = ++cache->clock;
	e->model_bytes = len;
	cache->total_bytes += len;
	e->valid = true;

	if (flat != raw)
		pfree(flat);
	return m;
}

/*
 * The features argument (argno) of a scoring function, checked against
 * the model
 */
static const double *
bk_score_features(FunctionCallInfo fcinfo, int argno, const BkModel *m)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P(argno);
	const double *x;
	int			n;

	x = BkPgReadFeatures(a, 0, &n);
	BkPgCheckDim(n, m->dim, 0, "the model's");
	return x;
}

/*
 * bk_predict(model, features): the predicted class label
 */
Datum
bk_predict(PG_FUNCTION_ARGS)
{
	BkModel    *m = BkPgCachedModel(fcinfo, 0);
	const double *x;
	int64_t		label;

	if (m->text_labels)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("bk_predict returns int8 labels, but the model has text labels"),
				 errhint("Use bk_predict_label(model, features), which returns the label as text.")));
	x = bk_score_features(fcinfo, 1, m);
	if (!BkModelPredict(m, x, &label))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("model has no class to predict"),
				 errdetail("The model was trained on no labelled row.")));

	PG_RETURN_INT64((int64) label);
}

/*
 * bk_predict_label(model, features): the predicted label as text, for
 * text- and integer-labelled models alike
 */
Datum
bk_predict_label(PG_FUNCTION_ARGS)
{
	BkModel    *m = BkPgCachedModel(fcinfo, 0);
	const double *x = bk_score_features(fcinfo, 1, m);
	int			c = BkModelPredictClass(m, x);

	if (c < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("model has no class to predict"),
				 errdetail("The model was trained on no labelled row.")));
	if (m->text_labels)
		PG_RETURN_TEXT_P(cstring_to_text(BkPgClassName(m, c)));
	PG_RETURN_TEXT_P(cstring_to_text(psprintf(INT64_FORMAT, (int64) m->classes[c])));
}

/*
 * bk_scores(model, features): one score per class, in the order of
 * bk_info(model)->'classes'; the prediction is the first largest
 */
Datum
bk_scores(PG_FUNCTION_ARGS)
{
	BkModel    *m = BkPgCachedModel(fcinfo, 0);
	const double *x = bk_score_features(fcinfo, 1, m);
	Datum	   *d;
	double	   *sc;
	int			i;

	if (m->n_classes == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("model has no class to score"),
				 errdetail("The model was trained on no labelled row.")));
	sc = palloc(sizeof(double) * (Size) m->n_classes);
	d = palloc(sizeof(Datum) * (Size) m->n_classes);
	BkModelScores(m, x, sc);
	for (i = 0; i < m->n_classes; i++)
		d[i] = Float8GetDatum(sc[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(d, m->n_classes, FLOAT8OID,
										  sizeof(float8), FLOAT8PASSBYVAL,
										  TYPALIGN_DOUBLE));
}

/*
 * bk_decision(model, features): the signed score, positive for the second
 * class of the model
 */
Datum
bk_decision(PG_FUNCTION_ARGS)
{
	BkModel    *m = BkPgCachedModel(fcinfo, 0);
	const double *x = bk_score_features(fcinfo, 1, m);

	PG_RETURN_FLOAT8(BkModelDecision(m, x));
}
