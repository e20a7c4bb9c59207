/*
 * bk_merge_agg.c
 *	  Merging models in SQL: the combine, serialize and deserialize
 *	  functions that make bk_train a parallel aggregate, the bk_merge
 *	  aggregate over stored models, and bk_merge(a, b).  The merge itself
 *	  is the core's (BkModelMerge).
 *
 * A partial state crosses between processes as a bytea: a version byte,
 * the rows skipped before any usable row, and the model's own encoding
 * (which holds everything the learner needs to go on).  A worker's state
 * that keeps its rows for more passes ("epochs") makes its passes before it
 * is serialized, so each part of a parallel plan passes over its own rows.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "bk_pg_train.h"

PG_FUNCTION_INFO_V1(bk_train_combine);
PG_FUNCTION_INFO_V1(bk_train_serialize);
PG_FUNCTION_INFO_V1(bk_train_deserialize);
PG_FUNCTION_INFO_V1(bk_merge_trans);
PG_FUNCTION_INFO_V1(bk_merge_pair);

/*
 * The most bytes of support vectors bk_merge keeps in the union it
 * distils (BkModelMergeUnion); past them it merges as before, folding
 * and reducing.  usps one-vs-rest at 32 parts of B = 100: 65 MB.
 */
#define BK_UNION_MAX_BYTES (256 * 1024 * 1024)

#define PARTIAL_VERSION 1
#define PARTIAL_HEADER	(1 + 1 + 8)	/* version, has model, skipped rows */

/* the error context of a merge: which function merges */
static void
merge_context(void *arg)
{
	errcontext("%s, merging two models", (const char *) arg);
}

/*
 * One of the core's merges (BkModelMerge, BkModelMergeUnion,
 * BkModelMergeUnionOwn, BkModelMergeCounts), its errors saying which SQL
 * function merged
 */
static void
merge_with(void (*merge) (BkModel *, BkModel *), BkModel *dst, BkModel *src,
		   const char *fname)
{
	ErrorContextCallback errcallback;

	errcallback.callback = merge_context;
	errcallback.arg = (void *) (fname ? fname : "bk_merge");
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;
	merge(dst, src);
	error_context_stack = errcallback.previous;
}

/* A copy of m in cxt (through its bytes: the model is opaque). */
static BkModel *
copy_model_in(const BkModel *m, const char *fname, MemoryContext cxt)
{
	struct varlena *bytes = BkPgEncodeModel(m, fname);

	return BkPgDecodeDatum(PointerGetDatum(bytes), cxt, true);
}

/*
 * dst merged with src; when their union outgrows the budget, the fold's
 * support vectors are then moved towards the union, the exact average of
 * the two (the core's BkModelPolish), as bk_merge's final function does
 * with the fold it keeps.  The combine of a parallel plan and bk_merge(a, b).
 */
static void
merge_polished(BkModel *dst, BkModel *src, const char *fname)
{
	MemoryContext tmp = NULL;
	BkModel    *u = NULL;

	if (BkModelPolishable(dst, src))
	{
		tmp = AllocSetContextCreate(CurrentMemoryContext, "budgetkernel merged union",
									ALLOCSET_DEFAULT_SIZES);
		u = copy_model_in(dst, fname, tmp);
		merge_with(BkModelMergeUnion, u, copy_model_in(src, fname, tmp), fname);
	}
	merge_with(BkModelMerge, dst, src, fname);
	if (u != NULL)
	{
		BkPgMergePolish(dst, u, fname);
		MemoryContextDelete(tmp);
	}
}

/*
 * A state whose fold stopped gets its machines now, retrained from its
 * union (as the final function does), before it is combined
 */
static void
settle_fold(BkTrainState *st)
{
	if (st->fold_stopped && st->union_model != NULL && st->model != NULL)
		BkPgMergeRetrain(st->model, st->union_model, st->fname);
	st->fold_stopped = false;
}

/* the state keeps no union any more (it would not be the average of all) */
static void
drop_union(BkTrainState *st)
{
	if (st->fold_stopped)
		settle_fold(st);
	if (st->union_model != NULL)
		BkModelFree(st->union_model);
	st->union_model = NULL;
	st->union_dropped = true;
}

/*
 * Merge src's model into dst (dst in the aggregate context; src anywhere
 * for the duration of the call): rows skipped before either had a model
 * are carried.
 */
static void
merge_states(BkTrainState *dst, BkTrainState *src)
{
	BkModel    *srcm = src->model;

	if (dst->deferred)
		elog(ERROR, "budgetkernel: combining into a state that is still fitting its preparation");
	settle_fold(dst);
	settle_fold(src);
	/* a part fitting a preparation (not serialized): its model now */
	if (src->deferred)
	{
		srcm = BkPgTrainPrepared(src, CurrentMemoryContext);
		if (srcm != NULL)
			src->skipped = 0;	/* counted in the model */
	}
	if (srcm == NULL)
	{
		if (dst->model != NULL)
			BkModelSkip(dst->model, (uint64_t) src->skipped);
		else
			dst->skipped += src->skipped;
		return;
	}
	if (dst->model == NULL)
	{
		dst->model = copy_model_in(srcm, dst->fname, dst->mcxt);
		BkModelSkip(dst->model, (uint64_t) dst->skipped);
		dst->skipped = 0;
		return;
	}
	merge_polished(dst->model, srcm, dst->fname);
	/* a union of some of the parts only: not distilled */
	drop_union(dst);
	/* the classes are those of both now; they were frozen for neither */
	/* the provenance of both: the models each part was merged from */
	{
		const uint8_t *fps;
		int			np = BkModelParents(srcm, &fps);

		for (int i = 0; i < np; i++)
			BkModelAddParent(dst->model, fps + (size_t) i * BK_FINGERPRINT_LEN);
	}
}

/*
 * combine(state, state): the second state merged into the first.  Not
 * strict (internal states): a NULL first state becomes a copy of the
 * second in the aggregate context.
 */
Datum
bk_train_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	BkTrainState *a;
	BkTrainState *b;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "bk_train_combine called in non-aggregate context");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_POINTER(PG_GETARG_POINTER(0));
	}
	b = (BkTrainState *) PG_GETARG_POINTER(1);
	if (PG_ARGISNULL(0))
	{
		a = BkPgTrainStateNew(aggcontext);
		a->fname = b->fname;
		a->text_labels = b->text_labels;
		a->regression = b->regression;
		a->novelty = b->novelty;
		a->dim_source = b->dim_source;
	}
	else
	{
		a = (BkTrainState *) PG_GETARG_POINTER(0);
		/* a part whose rows had no label yet knows no task: the other's */
		if (a->model == NULL && b->model != NULL)
		{
			a->text_labels = b->text_labels;
			a->regression = b->regression;
		}
	}
	merge_states(a, b);
	PG_RETURN_POINTER(a);
}

/* serialize(state) -> bytea */
Datum
bk_train_serialize(PG_FUNCTION_ARGS)
{
	BkTrainState *st;
	BkModel    *m;
	struct varlena *model = NULL;
	bytea	   *out;
	size_t		mlen = 0;
	int64		skipped;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "bk_train_serialize called in non-aggregate context");
	st = (BkTrainState *) PG_GETARG_POINTER(0);
	m = st->model;
	skipped = st->skipped;
	/* a bk_merge whose fold stopped: its machines retrained, on a copy */
	if (st->fold_stopped && st->union_model != NULL && m != NULL)
	{
		m = copy_model_in(m, st->fname, CurrentMemoryContext);
		BkPgMergeRetrain(m, st->union_model, st->fname);
	}
	/*
	 * A part that fits a preparation trains on its own rows with its own
	 * statistics; the merge pools them (bk_model_merge.c).
	 */
	if (st->deferred)
	{
		m = BkPgTrainPrepared(st, CurrentMemoryContext);
		if (m != NULL)
			skipped = 0;		/* counted in the model */
	}
	/* this part's passes over its own rows, before it leaves the process */
	if (m != NULL && st->epochs > 1 && st->rows != NULL)
		m = BkPgEpochsReplay(m, st->rows, st->epochs, st->fname,
							 &st->progress, CurrentMemoryContext);
	if (m != NULL)
	{
		model = BkPgEncodeModel(m, st->fname);
		mlen = VARSIZE(model) - VARHDRSZ;
	}
	out = (bytea *) palloc(VARHDRSZ + PARTIAL_HEADER + mlen);
	SET_VARSIZE(out, VARHDRSZ + PARTIAL_HEADER + mlen);
	((uint8 *) VARDATA(out))[0] = PARTIAL_VERSION;
	/* flags: 1 a model follows, 2 text labels, 4 regression, 16 novelty (8: unused since 0.4.0) */
	((uint8 *) VARDATA(out))[1] = (uint8) (st->text_labels ? 2 : 0) |
		(st->regression ? 4 : 0) |
		(st->novelty ? 16 : 0) | (m != NULL ? 1 : 0);
	memcpy(VARDATA(out) + 2, &skipped, 8);
	if (mlen > 0)
		memcpy(VARDATA(out) + PARTIAL_HEADER, VARDATA(model), mlen);
	PG_RETURN_BYTEA_P(out);
}

/* deserialize(bytea, internal) -> state, in the current memory context */
Datum
bk_train_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *in;
	BkTrainState *st;
	const uint8 *p;
	size_t		len;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "bk_train_deserialize called in non-aggregate context");
	in = PG_GETARG_BYTEA_PP(0);
	p = (const uint8 *) VARDATA_ANY(in);
	len = VARSIZE_ANY_EXHDR(in);
	/*
	 * the header whole, no flag unknown, a count of rows, and bytes after
	 * the header exactly when it says a model follows (the model's own
	 * decoder checks those)
	 */
	if (len < PARTIAL_HEADER || p[0] != PARTIAL_VERSION || (p[1] & ~31) != 0 ||
		((p[1] & 1) != 0) != (len > PARTIAL_HEADER))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid partial budgetkernel training state")));
	st = BkPgTrainStateNew(CurrentMemoryContext);
	st->fname = "bk_train";
	st->dim_source = "the first row's";
	st->text_labels = (p[1] & 2) != 0;
	st->regression = (p[1] & 4) != 0;
	st->novelty = (p[1] & 16) != 0;
	memcpy(&st->skipped, p + 2, 8);
	if (st->skipped < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid partial budgetkernel training state")));
	if (p[1] & 1)
	{
		bytea	   *model = (bytea *) palloc(VARHDRSZ + len - PARTIAL_HEADER);

		SET_VARSIZE(model, VARHDRSZ + len - PARTIAL_HEADER);
		memcpy(VARDATA(model), p + PARTIAL_HEADER, len - PARTIAL_HEADER);
		st->model = BkPgDecodeDatum(PointerGetDatum(model), st->mcxt, true);
	}
	PG_RETURN_POINTER(st);
}

/*
 * bk_merge(model) transition: each stored model merged into the state; a
 * NULL model is skipped.
 */
Datum
bk_merge_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	BkTrainState *st;
	BkModel    *m;
	uint8		fp[BK_FINGERPRINT_LEN];

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "bk_merge_trans called in non-aggregate context");
	if (PG_ARGISNULL(0))
	{
		BkPgCheckNargs(fcinfo, "bk_merge_trans");
		st = BkPgTrainStateNew(aggcontext);
		st->fname = "bk_merge";
		st->dim_source = "the first model's";
	}
	else
		st = (BkTrainState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);

	if (st->model == NULL)
	{
		BkModelInfo info;

		st->model = BkPgDecodeDatum(PG_GETARG_DATUM(1), st->mcxt, true);
		BkPgCheckLegacyLabels(st->model);
		BkModelGetInfo(st->model, &info);
		st->text_labels = info.text_labels;
		/* provenance: merged from this model (and the next ones) */
		BkPgFingerprint(PG_GETARG_DATUM(1), fp);
		BkModelSetParent(st->model, fp);
	}
	else
	{
		MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext,
												  "budgetkernel merged model",
												  ALLOCSET_DEFAULT_SIZES);

		/*
		 * the union of all the models, kept whole beside the fold, for the
		 * final function to distil: from the second model on, while the
		 * core can distil it and its SVs fit BK_UNION_MAX_BYTES (a merge
		 * changes the model merged in: one decoded copy for each).  Once
		 * the union outgrows the fold (BkModelFoldStops) the fold stops:
		 * the models are merged into it by their counts only, and the
		 * final function retrains its machines from the union, which is
		 * then never dropped but stops growing at those bounds.
		 */
		m = NULL;
		if (st->union_model == NULL && !BkModelDistillable(st->model))
			drop_union(st);
		if (!st->union_dropped)
		{
			bool		stopped = st->fold_stopped;

			if (st->union_model == NULL)
				st->union_model = BkPgDecodeDatum(PointerGetDatum(BkPgEncodeModel(st->model, st->fname)),
												  st->mcxt, true);
			m = BkPgDecodeDatum(PG_GETARG_DATUM(1), tmp, true);
			BkPgCheckLegacyLabels(m);
			if (!stopped)
				merge_with(BkModelMergeUnion, st->union_model, m, st->fname);
			else if (BkModelDistillableWith(st->union_model, m) &&
					 (double) (BkModelSvTotal(st->union_model) + BkModelSvTotal(m)) *
					 BkModelDim(st->union_model) * sizeof(double) <= BK_UNION_MAX_BYTES)
				merge_with(BkModelMergeUnionOwn, st->union_model, m, st->fname);
			if (!stopped)
			{
				if (!BkModelDistillable(st->union_model) ||
					(double) BkModelSvTotal(st->union_model) * BkModelDim(st->union_model) *
					sizeof(double) > BK_UNION_MAX_BYTES)
					drop_union(st);
				else if (BkModelFoldStops(st->union_model))
					st->fold_stopped = true;
			}
			/*
			 * merged into a stopped fold's union, a model without a
			 * preparation is changed only as the fold's merge would change
			 * it: the same decoded copy serves (BkModelMergeUnionOwn)
			 */
			if (!stopped || BkModelPrep(m) != NULL)
				m = NULL;
		}
		if (m == NULL)
		{
			m = BkPgDecodeDatum(PG_GETARG_DATUM(1), tmp, true);
			BkPgCheckLegacyLabels(m);
		}
		if (st->fold_stopped)
			merge_with(BkModelMergeCounts, st->model, m, st->fname);
		else
			merge_with(BkModelMerge, st->model, m, st->fname);
		BkPgFingerprint(PG_GETARG_DATUM(1), fp);
		BkModelAddParent(st->model, fp);
		MemoryContextDelete(tmp);
	}
	PG_RETURN_POINTER(st);
}

/* bk_merge(a, b): the two models merged; NULL if both are NULL */
Datum
bk_merge_pair(PG_FUNCTION_ARGS)
{
	MemoryContext tmp;
	BkModel    *a;
	BkModel    *b;
	struct varlena *result;

	if (PG_ARGISNULL(0) && PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_ARGISNULL(0) ? PG_GETARG_DATUM(1) : PG_GETARG_DATUM(0));
	tmp = AllocSetContextCreate(CurrentMemoryContext, "budgetkernel merge",
								ALLOCSET_DEFAULT_SIZES);
	a = BkPgDecodeDatum(PG_GETARG_DATUM(0), tmp, true);
	b = BkPgDecodeDatum(PG_GETARG_DATUM(1), tmp, true);
	BkPgCheckLegacyLabels(a);
	BkPgCheckLegacyLabels(b);
	merge_polished(a, b, "bk_merge");
	/* provenance: merged from the two */
	{
		uint8		fp[BK_FINGERPRINT_LEN];

		BkPgFingerprint(PG_GETARG_DATUM(0), fp);
		BkModelSetParent(a, fp);
		BkPgFingerprint(PG_GETARG_DATUM(1), fp);
		BkModelAddParent(a, fp);
	}
	result = BkPgEncodeModel(a, "bk_merge");
	MemoryContextDelete(tmp);
	PG_RETURN_POINTER(result);
}
