/*
 * bk_score.c
 *	  bk_predict, bk_predict_label, bk_scores and bk_decision, with a cache
 *	  of decoded models in each call site's fn_extra (decode once per query,
 *	  not once per row), bounded per backend.
 *
 * The cache key: the argument is read raw (not detoasted).  An on-disk
 * TOAST pointer is keyed on (va_toastrelid, va_valueid), which is unique
 * for a stored value and costs no I/O.  Any other value (inline, compressed
 * inline, in memory) is detoasted; a model of format version 2 is then
 * keyed on its length and the SHA-256 digest it carries of its bytes
 * (checked when the entry was decoded, so two decoded models share a key
 * only if they share their bytes), which costs 36 bytes compared whatever
 * the model's size.  A version 1 model (0.1.0), which has no digest, is
 * compared by length and full content against a copy kept in the entry.
 * The memory address is never a key: different models arrive at the same
 * address in hash joins.  The view bk_model_cache reports the lookups and the
 * bytes they compared.
 *
 * Memory: every decoded model of the backend, whatever its call site, is
 * on one LRU list and counted against budgetkernel.model_cache_size (the
 * memory its context holds, measured after decoding and again after its
 * first use, which allocates its scoring scratch).  Loading a model evicts the least recently
 * used ones, of any call site, until it fits; the model being loaded is
 * always kept, so one model larger than the bound is still decoded once.
 * A call site holds any number of models within the bound (a join scoring
 * many stored models does not decode on every row).  At the end of every
 * transaction all entries are released, so a cached plan (PL/pgSQL,
 * prepared statements) does not keep decoded models between transactions.
 */
#include "postgres.h"

#include <string.h>

#include "access/detoast.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/ilist.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "bk_pg.h"

PG_FUNCTION_INFO_V1(bk_predict);
PG_FUNCTION_INFO_V1(bk_predict_label);
PG_FUNCTION_INFO_V1(bk_decision);
PG_FUNCTION_INFO_V1(bk_scores);
PG_FUNCTION_INFO_V1(bk_model_cache);

/* budgetkernel.model_cache_size, in kB (bk_module.c defines the GUC) */
int			bk_model_cache_size_kb = 256 * 1024;

typedef struct BkModelCache BkModelCache;

typedef struct BkCacheEntry
{
	dlist_node	lru;			/* on bk_cache_lru, most recent first */
	BkModelCache *owner;		/* the call site's cache */
	bool		ondisk;			/* keyed on the TOAST pointer */
	Oid			toastrelid;		/* key of on-disk values */
	Oid			valueid;
	int32		rawsize;
	Size		len;			/* key of other values: length, and */
	bool		digested;		/* ... the trailer of a version 2 model */
	uint8		trailer[BK_DIGEST_LEN + 4];	/* (its digest and CRC), */
	uint8	   *bytes;			/* ... or else all its bytes */
	Size		mem;			/* memory of mcxt, counted in the bound */
	bool		settled;		/* mem measured after the model's first use */
	MemoryContext mcxt;			/* holds this entry, bytes and the model */
	BkModel    *model;
} BkCacheEntry;

/*
 * One call site's models (fn_extra, in fn_mcxt).  The entries' contexts
 * are children of bk_cache_context, not of fn_mcxt: when fn_mcxt goes, a
 * reset callback unlinks and frees them (a child context would already be
 * gone when the callback runs).
 */
struct BkModelCache
{
	int			n;
	int			cap;
	BkCacheEntry **ent;
	MemoryContextCallback reset_cb; /* fn_mcxt goes away: unlink, warn */
	BkPgShortBuf row_buf;		/* the current row's short features */
	const char *fname;			/* the scoring function of this call site */
	BkPgKeyTally tally;			/* rows of named features that lacked keys */
	BkCacheEntry *last;			/* the entry the previous row found, or NULL */
};

/* Every cached model of the backend, and their memory */
static dlist_head bk_cache_lru = DLIST_STATIC_INIT(bk_cache_lru);
static Size bk_cache_mem = 0;
static MemoryContext bk_cache_context = NULL;
static bool bk_xact_cb_registered = false;

/* What the backend's lookups did, since it started (the view bk_model_cache) */
static struct
{
	int64		lookups;		/* scored rows that looked their model up */
	int64		hits;
	int64		decodes;
	int64		evictions;		/* entries released to fit the bound */
	int64		key_bytes;		/* bytes compared to recognise a model */
}			bk_cache_stats;

/* Free one entry and take it out of its call site and of the LRU list. */
static void
bk_cache_drop(BkCacheEntry *e)
{
	BkModelCache *c = e->owner;

	for (int i = 0; i < c->n; i++)
		if (c->ent[i] == e)
		{
			c->ent[i] = c->ent[--c->n];
			break;
		}
	if (c->last == e)
		c->last = NULL;
	dlist_delete(&e->lru);
	bk_cache_mem -= e->mem;
	MemoryContextDelete(e->mcxt);	/* e with it */
}

/*
 * The call site's memory context is being reset or deleted: at the end of
 * the query, say once how many rows lacked keys (not when the transaction
 * is being aborted: the query failed).
 */
static void
bk_cache_site_gone(void *arg)
{
	BkModelCache *c = (BkModelCache *) arg;

	while (c->n > 0)
		bk_cache_drop(c->ent[c->n - 1]);
	if (c->tally.lacking > 0 && IsTransactionState())
		BkPgWarnKeys(&c->tally, c->fname);
	c->tally.lacking = 0;
}

/* End of a transaction: release every decoded model of the backend. */
static void
bk_cache_xact_end(XactEvent event, void *arg)
{
	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT &&
		event != XACT_EVENT_PARALLEL_COMMIT && event != XACT_EVENT_PARALLEL_ABORT &&
		event != XACT_EVENT_PREPARE)
		return;
	while (!dlist_is_empty(&bk_cache_lru))
		bk_cache_drop(dlist_container(BkCacheEntry, lru, dlist_tail_node(&bk_cache_lru)));
}

/* Evict least recently used entries until extra more bytes fit. */
static void
bk_cache_make_room(Size extra)
{
	Size		limit = (Size) bk_model_cache_size_kb * 1024;

	while (!dlist_is_empty(&bk_cache_lru) && bk_cache_mem + extra > limit)
	{
		bk_cache_drop(dlist_container(BkCacheEntry, lru,
									  dlist_tail_node(&bk_cache_lru)));
		bk_cache_stats.evictions++;
	}
}

static BkModelCache *
bk_cache_of(FunctionCallInfo fcinfo)
{
	BkModelCache *c = (BkModelCache *) fcinfo->flinfo->fn_extra;
	MemoryContext fn_mcxt = fcinfo->flinfo->fn_mcxt;

	if (c != NULL)
		return c;
	if (!bk_xact_cb_registered)
	{
		bk_cache_context = AllocSetContextCreate(TopMemoryContext,
												 "budgetkernel model cache",
												 ALLOCSET_SMALL_SIZES);
		RegisterXactCallback(bk_cache_xact_end, NULL);
		bk_xact_cb_registered = true;
	}
	c = (BkModelCache *) MemoryContextAllocZero(fn_mcxt, sizeof(BkModelCache));
	c->cap = 4;
	c->ent = MemoryContextAlloc(fn_mcxt, sizeof(BkCacheEntry *) * c->cap);
	c->tally.mcxt = fn_mcxt;
	c->reset_cb.func = bk_cache_site_gone;
	c->reset_cb.arg = c;
	MemoryContextRegisterResetCallback(fn_mcxt, &c->reset_cb);
	fcinfo->flinfo->fn_extra = c;
	return c;
}

/*
 * Decode a model into a new context under bk_cache_context (which is not
 * freed by an error: the context is deleted here if decoding fails)
 */
static MemoryContext
bk_cache_decode(const uint8 *bytes, Size len, BkModel **model)
{
	MemoryContext mcxt = AllocSetContextCreate(bk_cache_context,
											   "budgetkernel cached model",
											   ALLOCSET_DEFAULT_SIZES);
	BkEnv		env;

	BkPgEnvInit(&env, mcxt);
	PG_TRY();
	{
		*model = BkModelDecode(&env, bytes, len, false);
	}
	PG_CATCH();
	{
		MemoryContextDelete(mcxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return mcxt;
}

/*
 * A cached model is used again.  At its first reuse, its memory is
 * measured again: what scoring allocated in its context on first use
 * (kernel-row scratch, row descriptors, preparation stamps) counts in the
 * bound too, and other entries are released to make room for it.
 */
static BkModel *
bk_cache_hit(BkCacheEntry *e)
{
	bk_cache_stats.hits++;
	if (!e->settled)
	{
		dlist_delete(&e->lru);
		bk_cache_mem -= e->mem;
		e->mem = MemoryContextMemAllocated(e->mcxt, true);
		e->settled = true;
		bk_cache_make_room(e->mem);
		dlist_push_head(&bk_cache_lru, &e->lru);
		bk_cache_mem += e->mem;
	}
	else
		dlist_move_head(&bk_cache_lru, &e->lru);
	return e->model;
}

/* What identifies a model argument: see the head of this file */
typedef struct BkCacheKey
{
	bool		ondisk;
	struct varatt_external ve;	/* of an on-disk value */
	Size		len;			/* of any other value, its length and */
	const uint8 *digest;		/* ... trailer (a version 2 model), or */
	const uint8 *bytes;			/* ... its bytes (a version 1 model) */
} BkCacheKey;

/* Whether entry e holds the model of key k (counting the bytes compared) */
static bool
bk_cache_matches(const BkCacheEntry *e, const BkCacheKey *k)
{
	if (k->ondisk)
		return e->ondisk && e->toastrelid == k->ve.va_toastrelid &&
			e->valueid == k->ve.va_valueid && e->rawsize == k->ve.va_rawsize;
	if (e->ondisk || e->len != k->len || e->digested != (k->digest != NULL))
		return false;
	if (k->digest != NULL)
	{
		bk_cache_stats.key_bytes += sizeof(e->trailer);
		return memcmp(e->trailer, k->digest, sizeof(e->trailer)) == 0;
	}
	bk_cache_stats.key_bytes += k->len;
	return memcmp(e->bytes, k->bytes, k->len) == 0;
}

/*
 * The decoded model of argument argno, from this call site's cache.  The
 * entry the previous row found is tried first: rows scored by one model
 * after another compare one key each, whatever the number of entries.
 */
BkModel *
BkPgCachedModel(FunctionCallInfo fcinfo, int argno)
{
	BkModelCache *cache = bk_cache_of(fcinfo);
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	struct varlena *flat = NULL;
	BkCacheKey	key = {0};
	BkCacheEntry *e = NULL;
	MemoryContext mcxt;
	BkModel    *m;
	const uint8 *bytes;
	Size		len;

	bk_cache_stats.lookups++;
	key.ondisk = VARATT_IS_EXTERNAL_ONDISK(raw);
	if (key.ondisk)
		VARATT_EXTERNAL_GET_POINTER(key.ve, raw);
	else
	{
		flat = (struct varlena *) PG_DETOAST_DATUM_PACKED(PointerGetDatum(raw));
		key.bytes = (const uint8 *) VARDATA_ANY(flat);
		key.len = VARSIZE_ANY_EXHDR(flat);
		key.digest = BkModelStoredDigest(key.bytes, key.len);
	}
	if (cache->last != NULL && bk_cache_matches(cache->last, &key))
		e = cache->last;
	for (int i = 0; e == NULL && i < cache->n; i++)
		if (cache->ent[i] != cache->last && bk_cache_matches(cache->ent[i], &key))
			e = cache->ent[i];
	if (e != NULL)
	{
		if (flat != NULL && flat != raw)
			pfree(flat);
		cache->last = e;
		return bk_cache_hit(e);
	}
	if (key.ondisk)
		flat = detoast_attr(raw);

	/* miss: decode into a new entry (validates; corrupted bytes raise XX001) */
	bytes = (const uint8 *) VARDATA_ANY(flat);
	len = VARSIZE_ANY_EXHDR(flat);
	mcxt = bk_cache_decode(bytes, len, &m);
	bk_cache_stats.decodes++;

	e = MemoryContextAllocZero(mcxt, sizeof(BkCacheEntry));
	e->owner = cache;
	e->mcxt = mcxt;
	e->model = m;
	e->ondisk = key.ondisk;
	if (key.ondisk)
	{
		e->toastrelid = key.ve.va_toastrelid;
		e->valueid = key.ve.va_valueid;
		e->rawsize = key.ve.va_rawsize;
	}
	else if (key.digest != NULL)
	{
		/* decoding checked the digest against the bytes */
		e->len = len;
		e->digested = true;
		memcpy(e->trailer, key.digest, sizeof(e->trailer));
	}
	else
	{
		e->len = len;
		e->bytes = MemoryContextAlloc(mcxt, Max(len, 1));
		memcpy(e->bytes, bytes, len);
	}
	e->mem = MemoryContextMemAllocated(mcxt, true);

	/* room for it within the backend's bound, then it is the most recent */
	bk_cache_make_room(e->mem);
	if (cache->n == cache->cap)
	{
		cache->cap *= 2;
		cache->ent = repalloc(cache->ent, sizeof(BkCacheEntry *) * cache->cap);
	}
	cache->ent[cache->n++] = e;
	cache->last = e;
	dlist_push_head(&bk_cache_lru, &e->lru);
	bk_cache_mem += e->mem;

	if (flat != raw)
		pfree(flat);
	return m;
}

/*
 * The features argument (argno) of a scoring function, checked against
 * the model
 */
static const double *
bk_score_features(FunctionCallInfo fcinfo, int argno, BkModel *m, const char *fname)
{
	Datum		raw = PG_GETARG_DATUM(argno);
	BkModelCache *c = bk_cache_of(fcinfo);
	Datum		features;

	BkPgPrefetchNextRow(raw);
	c->fname = fname;
	/* a short value goes into the call site's buffer, not a palloc'd copy per row */
	features = BkPgDetoastRow(raw, &c->row_buf);
	/* its form (array, jsonb, bk_sparse) from its bytes: bk_features takes all */
	return BkPgScoringRow(m, features, BkPgFeaturesForm(features),
						  0, "the model's", &c->tally);
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
	BkModelInfo info;

	BkModelGetInfo(m, &info);
	if (info.text_labels)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("bk_predict returns int8 labels, but the model has text labels"),
				 errhint("Use bk_predict_label(model, features), which returns the label as text.")));
	x = bk_score_features(fcinfo, 1, m, "bk_predict");
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
	const double *x = bk_score_features(fcinfo, 1, m, "bk_predict_label");
	int			c = BkModelPredictClass(m, x);
	BkModelInfo info;

	if (c < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("model has no class to predict"),
				 errdetail("The model was trained on no labelled row.")));
	BkModelGetInfo(m, &info);
	if (info.text_labels)
		PG_RETURN_TEXT_P(cstring_to_text(BkPgClassName(m, c)));
	PG_RETURN_TEXT_P(cstring_to_text(psprintf(INT64_FORMAT,
											  (int64) BkModelClassLabel(m, c))));
}

/*
 * bk_scores(model, features): one score per class, in the order of
 * bk_info(model)->'classes'; the prediction is the first largest
 */
Datum
bk_scores(PG_FUNCTION_ARGS)
{
	BkModel    *m = BkPgCachedModel(fcinfo, 0);
	const double *x = bk_score_features(fcinfo, 1, m, "bk_scores");
	Datum	   *d;
	double	   *sc;
	int			i;
	BkModelInfo info;

	BkModelGetInfo(m, &info);
	if (info.n_classes == 0 && !info.params->regression && !info.params->novelty)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("model has no class to score"),
				 errdetail("The model was trained on no labelled row.")));
	sc = palloc(sizeof(double) * (Size) Max(info.n_classes, 1));
	d = palloc(sizeof(Datum) * (Size) Max(info.n_classes, 1));
	BkModelScores(m, x, sc);
	for (i = 0; i < info.n_classes; i++)
		d[i] = Float8GetDatum(sc[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(d, info.n_classes, FLOAT8OID,
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
	const double *x = bk_score_features(fcinfo, 1, m, "bk_decision");

	PG_RETURN_FLOAT8(BkModelDecision(m, x));
}

/*
 * bk_predict_value(model, features): a regressor's prediction, in its
 * target's units
 */
PG_FUNCTION_INFO_V1(bk_predict_value);
Datum
bk_predict_value(PG_FUNCTION_ARGS)
{
	BkModel    *m = BkPgCachedModel(fcinfo, 0);
	const double *x = bk_score_features(fcinfo, 1, m, "bk_predict_value");

	PG_RETURN_FLOAT8(BkModelPredictValue(m, x));
}

/*
 * bk_novelty(model, features): a novelty detector's score of the row,
 * rho - f(x): above 0 for a row it flags, higher for a more unusual one
 */
PG_FUNCTION_INFO_V1(bk_novelty);
Datum
bk_novelty(PG_FUNCTION_ARGS)
{
	BkModel    *m = BkPgCachedModel(fcinfo, 0);
	const double *x = bk_score_features(fcinfo, 1, m, "bk_novelty");

	PG_RETURN_FLOAT8(BkModelNoveltyScore(m, x));
}

/*
 * bk_probabilities(model, features): one probability per class, in the
 * order of bk_info's classes, summing to 1 (a calibrated model:
 * bk_calibrate)
 */
PG_FUNCTION_INFO_V1(bk_probabilities);
Datum
bk_probabilities(PG_FUNCTION_ARGS)
{
	BkModel    *m = BkPgCachedModel(fcinfo, 0);
	const double *x = bk_score_features(fcinfo, 1, m, "bk_probabilities");
	Datum	   *d;
	double	   *pr;
	BkModelInfo info;

	BkModelGetInfo(m, &info);
	pr = palloc(sizeof(double) * (Size) Max(info.n_classes, 1));
	d = palloc(sizeof(Datum) * (Size) Max(info.n_classes, 1));
	BkModelProbabilities(m, x, pr);
	for (int i = 0; i < info.n_classes; i++)
		d[i] = Float8GetDatum(pr[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(d, info.n_classes, FLOAT8OID,
										  sizeof(float8), FLOAT8PASSBYVAL,
										  TYPALIGN_DOUBLE));
}

/*
 * bk_predict_probability(model, features): the probability of the class
 * bk_predict gives (a calibrated model)
 */
PG_FUNCTION_INFO_V1(bk_predict_probability);
Datum
bk_predict_probability(PG_FUNCTION_ARGS)
{
	BkModel    *m = BkPgCachedModel(fcinfo, 0);
	const double *x = bk_score_features(fcinfo, 1, m, "bk_predict_probability");
	double	   *pr;
	BkModelInfo info;
	int			c;

	BkModelGetInfo(m, &info);
	pr = palloc(sizeof(double) * (Size) Max(info.n_classes, 1));
	BkModelProbabilities(m, x, pr);
	c = BkModelPredictClass(m, x);
	PG_RETURN_FLOAT8(pr[c]);
}

/*
 * _bk_model_cache(), the row of the view bk_model_cache: what this
 * backend's lookups did since it started, and the entries held now (all
 * are released at the end of each transaction, so outside one it holds
 * none)
 */
Datum
bk_model_cache(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	Datum		values[7];
	bool		nulls[7] = {false};
	dlist_iter	it;
	int			entries = 0;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "bk_model_cache must return a record");
	dlist_foreach(it, &bk_cache_lru)
		entries++;
	values[0] = Int64GetDatum(bk_cache_stats.lookups);
	values[1] = Int64GetDatum(bk_cache_stats.hits);
	values[2] = Int64GetDatum(bk_cache_stats.decodes);
	values[3] = Int64GetDatum(bk_cache_stats.evictions);
	values[4] = Int64GetDatum(bk_cache_stats.key_bytes);
	values[5] = Int32GetDatum(entries);
	values[6] = Int64GetDatum((int64) bk_cache_mem);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
