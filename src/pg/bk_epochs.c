/*
 * bk_epochs.c
 *	  Training passes after the first ("epochs": k).  The aggregate learns
 *	  each row as it arrives (the first pass, in the stream's order) and
 *	  keeps the usable rows in a tuplestore, which stays within work_mem
 *	  and spills to temporary files beyond.  The final function then
 *	  trains a copy of the model on k - 1 more passes, pass p in the order
 *	  of bk_shuffle_key(i, seed + p - 1), i the row's position (from 1) in
 *	  the first pass and seed the model's "seed" parameter: each pass
 *	  sorts the rows by that key with a tuplesort, also within work_mem.
 *	  The result equals continuing the model k - 1 times with those ORDER
 *	  BYs, and memory stays bounded whatever the number of rows.
 *
 *	  A model that fits its preparation on the training rows (bk_prepare.c)
 *	  keeps them the same way: it exists only once every row has been
 *	  seen, so its first pass too is a replay, in the stream's order.
 *
 *	  A search's round (bk_train_folds.c) keeps its rows once, every
 *	  fold's, and reads them for each fold's models without that fold's
 *	  rows (BkPgEpochRowsSkipFold), or from those rows prepared once into
 *	  a matrix (BkPgEpochRowsPrepare), which the same passes then learn in
 *	  the same orders.
 */
#include "postgres.h"

#include "access/tupdesc.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"

#include "bk_pg_train.h"

struct BkEpochRows
{
	Tuplestorestate *store;
	TupleDesc	desc;			/* features bk_features, label int8 | text | float8 */
	Oid			label_type;		/* INT8OID, TEXTOID, FLOAT8OID (a regressor's
								 * target) or BOOLOID (none: a novelty detector) */
	BkFeatureForm form;			/* of the features */
	Oid			features_type;
	int64		n;
	/*
	 * BkPgEpochRowsSkipFold: the rows whose fold_of[i] is skip_fold (i the
	 * row's place among those kept) are not read, and kept is the count
	 * of the others
	 */
	const uint8 *fold_of;
	int			skip_fold;
	int64		kept;
	/*
	 * BkPgEpochRowsPrepare: the rows read (without those left out), each
	 * as the preparation gives it, which the passes then learn instead of
	 * reading the store; NULL: read the store
	 */
	BkPreparedRows *prepared;
};

/*
 * Rows prepared once for many models of one preparation (a search's
 * settings on one fold): each row as the model's preparation gives it,
 * in the order kept, and its label.
 */
struct BkPreparedRows
{
	int64		n;
	int			dim;
	double	   *x;				/* n rows of dim */
	Datum	   *labels;			/* copies, in the context of the rows */
};

/* whether the row at place i is left out (BkPgEpochRowsSkipFold) */
static inline bool
row_left_out(const BkEpochRows *r, int64 i)
{
	return r->fold_of != NULL && r->fold_of[i] == r->skip_fold;
}

/* The aggregate's state is going: close the tuplestore (and its files) */
static void
epoch_rows_end(Datum arg)
{
	BkEpochRows *r = (BkEpochRows *) DatumGetPointer(arg);

	if (r->store != NULL)
		tuplestore_end(r->store);
	r->store = NULL;
}

BkEpochRows *
BkPgEpochRowsBegin(FunctionCallInfo fcinfo, MemoryContext cxt, Oid label_type,
				   Oid features_type, const char *fname, const char *why)
{
	MemoryContext old;
	BkEpochRows *r;

	/* a running model would replay the passes at every row */
	if (AggCheckCallContext(fcinfo, NULL) != AGG_CONTEXT_AGGREGATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s needs %s as an aggregate, not as a window function",
						why, fname)));
	old = MemoryContextSwitchTo(cxt);
	r = palloc0(sizeof(BkEpochRows));

	r->label_type = label_type;
	r->features_type = features_type;
	/* the form of the rows is known with the first one kept (BkPgEpochRowsPut) */
	if (!OidIsValid(features_type))
		features_type = FLOAT8ARRAYOID; /* any varlena aligned to double */
	r->desc = CreateTemplateTupleDesc(2);
	TupleDescInitEntry(r->desc, 1, "features", features_type, -1, 0);
	TupleDescInitEntry(r->desc, 2, "label", label_type, -1, 0);
	r->store = tuplestore_begin_heap(false, false, work_mem);
	MemoryContextSwitchTo(old);
	/* before the end of the query, when the executor shuts the aggregate down */
	AggRegisterCallback(fcinfo, epoch_rows_end, PointerGetDatum(r));
	return r;
}

Oid
BkPgEpochRowsLabelType(const BkEpochRows *r)
{
	return r->label_type;
}

int64
BkPgEpochRowsCount(const BkEpochRows *r)
{
	return r->fold_of != NULL ? r->kept : r->n;
}

void
BkPgEpochRowsSkipFold(BkEpochRows *r, const uint8 *fold_of, int fold)
{
	r->fold_of = fold_of;
	r->skip_fold = fold;
	r->kept = 0;
	r->prepared = NULL;			/* of the rows read before */
	if (fold_of != NULL)
		for (int64 i = 0; i < r->n; i++)
			r->kept += fold_of[i] != fold;
}

void
BkPgEpochRowsPut(BkEpochRows *r, Datum features, BkFeatureForm form, Datum label)
{
	Datum		values[2] = {features, label};
	bool		nulls[2] = {false, false};

	r->form = form;
	tuplestore_putvalues(r->store, r->desc, values, nulls);
	r->n++;
}

/* Error context of a replayed row: which pass, which row of it */
typedef struct ReplayPosition
{
	const char *fname;
	int			pass;
	int64		row;
} ReplayPosition;

static void
replay_error_context(void *arg)
{
	const ReplayPosition *pos = (const ReplayPosition *) arg;

	errcontext("%s, pass %d, row %lld of the pass", pos->fname, pos->pass,
			   (long long) pos->row);
}

/* what each_kept_row does with a row (pos->row: its place, from 1) */
typedef void (*KeptRowVisit) (Datum features, Datum label, ReplayPosition *pos, void *arg);

/*
 * Visit the kept rows but those left out (BkPgEpochRowsSkipFold), or with
 * held_out only those, in the order kept, each in a memory context of its
 * own, reset after it (what a row allocates, detoasting, label
 * conversion, goes with it); pos, whose fname and pass are set, numbers
 * them, and names them in errors when named is true
 */
static void
each_row(BkEpochRows *r, ReplayPosition *pos, bool named, bool held_out,
		 KeptRowVisit visit, void *arg)
{
	TupleTableSlot *in = MakeSingleTupleTableSlot(r->desc, &TTSOpsMinimalTuple);
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext,
												 "budgetkernel kept row",
												 ALLOCSET_SMALL_SIZES);
	ErrorContextCallback errcallback;
	int64		at = 0;

	errcallback.callback = replay_error_context;
	errcallback.arg = (void *) pos;
	errcallback.previous = error_context_stack;
	if (named)
		error_context_stack = &errcallback;
	pos->row = 0;
	tuplestore_rescan(r->store);
	while (tuplestore_gettupleslot(r->store, true, false, in))
	{
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		if (row_left_out(r, at++) != held_out)
			continue;
		old = MemoryContextSwitchTo(rowcxt);
		pos->row++;
		slot_getallattrs(in);
		visit(in->tts_values[0], in->tts_values[1], pos, arg);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	if (named)
		error_context_stack = errcallback.previous;
	MemoryContextDelete(rowcxt);
	ExecDropSingleTupleTableSlot(in);
}

/* each_row of the rows a model learns: all but those left out */
static inline void
each_kept_row(BkEpochRows *r, ReplayPosition *pos, bool named, KeptRowVisit visit, void *arg)
{
	each_row(r, pos, named, false, visit, arg);
}

/* Learn one row, x prepared, label of label_type (BkPgEpochRowsBegin) */
static void
learn_x(BkModel *m, Oid label_type, const double *x, Datum label)
{
	if (label_type == BOOLOID)
		BkModelLearnNovel(m, x);	/* no label: a novelty detector */
	else if (label_type == FLOAT8OID)
		BkModelLearnValue(m, x, DatumGetFloat8(label));
	else if (label_type == TEXTOID)
	{
		text	   *t = DatumGetTextPP(label);
		size_t		len = VARSIZE_ANY_EXHDR(t);
		const char *s = BkPgLabelIn(m, VARDATA_ANY(t), &len);

		BkModelLearnText(m, x, s, len);
	}
	else
		BkModelLearn(m, x, DatumGetInt64(label));
}

/* a model learning kept rows, and its progress */
typedef struct Learner
{
	BkModel    *m;
	BkEpochRows *r;
	BkProgress *progress;
} Learner;

/* Learn one kept row (each_kept_row, replay_pass) */
static void
learn_row(Datum features, Datum label, ReplayPosition *pos, void *arg)
{
	Learner    *l = (Learner *) arg;

	learn_x(l->m, l->r->label_type,
			BkPgModelRow(l->m, features, l->r->form, pos->row, "the model's", NULL), label);
	BkPgProgress(l->progress, l->m, pos->fname, pos->pass);
}

/* a row's position and its key in a pass's order */
typedef struct KeyedRow
{
	int64		key;
	int64		row;
} KeyedRow;

static int
keyed_row_cmp(const void *a, const void *b)
{
	int64		ka = ((const KeyedRow *) a)->key,
				kb = ((const KeyedRow *) b)->key;

	return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/*
 * A pass over the prepared rows: in the order kept, or (shuffled) in that
 * of bk_shuffle_key(position, seed) as a signed int8, as replay_pass's
 * tuplesort orders them (the keys of distinct positions differ: the
 * shuffle is a bijection).  pos numbers the rows of the pass.
 */
static void
prepared_pass(BkModel *m, const BkEpochRows *r, bool shuffled, uint64 seed,
			  ReplayPosition *pos, BkProgress *progress)
{
	const BkPreparedRows *pr = r->prepared;
	KeyedRow   *order = NULL;

	if (shuffled)
	{
		order = palloc_extended(sizeof(KeyedRow) * (Size) pr->n, MCXT_ALLOC_HUGE);
		for (int64 i = 0; i < pr->n; i++)
		{
			order[i].key = (int64) BkShuffleKey((uint64) (i + 1), seed);
			order[i].row = i;
		}
		qsort(order, (size_t) pr->n, sizeof(KeyedRow), keyed_row_cmp);
	}
	for (int64 i = 0; i < pr->n; i++)
	{
		int64		j = order != NULL ? order[i].row : i;

		CHECK_FOR_INTERRUPTS();
		pos->row = i + 1;
		learn_x(m, r->label_type, pr->x + (Size) j * (Size) pr->dim, pr->labels[j]);
		BkPgProgress(progress, m, pos->fname, pos->pass);
	}
	if (order != NULL)
		pfree(order);
}

/* One more pass over the kept rows, in the order of the pass's shuffle keys */
static void
replay_pass(BkModel *m, BkEpochRows *r, uint64 seed, ReplayPosition *pos,
			BkProgress *progress)
{
	TupleDesc	sortdesc;
	AttrNumber	key_col = 1;
	Oid			key_op = Int8LessOperator;
	Oid			key_coll = InvalidOid;
	bool		key_nulls_first = false;
	Tuplesortstate *sort;
	TupleTableSlot *in;
	TupleTableSlot *keyed;
	TupleTableSlot *sorted;
	MemoryContext rowcxt;
	Learner		l = {m, r, progress};
	int64		i = 0,
				at = 0;

	if (r->prepared != NULL)
	{
		prepared_pass(m, r, true, seed, pos, progress);
		return;
	}
	sortdesc = CreateTemplateTupleDesc(3);
	TupleDescInitEntry(sortdesc, 1, "key", INT8OID, -1, 0);
	TupleDescInitEntry(sortdesc, 2, "features", r->features_type, -1, 0);
	TupleDescInitEntry(sortdesc, 3, "label", r->label_type, -1, 0);
	sort = tuplesort_begin_heap(sortdesc, 1, &key_col, &key_op, &key_coll,
								&key_nulls_first, work_mem, NULL, TUPLESORT_NONE);
	in = MakeSingleTupleTableSlot(r->desc, &TTSOpsMinimalTuple);
	keyed = MakeSingleTupleTableSlot(sortdesc, &TTSOpsVirtual);
	sorted = MakeSingleTupleTableSlot(sortdesc, &TTSOpsMinimalTuple);

	/* the keys: bk_shuffle_key(position in the first pass, seed) */
	tuplestore_rescan(r->store);
	while (tuplestore_gettupleslot(r->store, true, false, in))
	{
		CHECK_FOR_INTERRUPTS();
		if (row_left_out(r, at++))
			continue;
		slot_getallattrs(in);
		ExecClearTuple(keyed);
		keyed->tts_values[0] = Int64GetDatum((int64) BkShuffleKey((uint64) ++i, seed));
		keyed->tts_isnull[0] = false;
		keyed->tts_values[1] = in->tts_values[0];
		keyed->tts_isnull[1] = false;
		keyed->tts_values[2] = in->tts_values[1];
		keyed->tts_isnull[2] = false;
		ExecStoreVirtualTuple(keyed);
		tuplesort_puttupleslot(sort, keyed);
	}
	tuplesort_performsort(sort);

	/* what a row allocates here (detoasting, label conversion) goes with it */
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "budgetkernel epoch row",
								   ALLOCSET_SMALL_SIZES);
	pos->row = 0;
	while (tuplesort_gettupleslot(sort, true, false, sorted, NULL))
	{
		MemoryContext old = MemoryContextSwitchTo(rowcxt);

		pos->row++;
		slot_getallattrs(sorted);
		learn_row(sorted->tts_values[1], sorted->tts_values[2], pos, &l);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	MemoryContextDelete(rowcxt);
	tuplesort_end(sort);
	ExecDropSingleTupleTableSlot(in);
	ExecDropSingleTupleTableSlot(keyed);
	ExecDropSingleTupleTableSlot(sorted);
	FreeTupleDesc(sortdesc);
}

/* a copy of m made in cxt, through its bytes */
static BkModel *
model_copy(const BkModel *m, MemoryContext cxt)
{
	char		err[BK_ERRMSG_LEN];
	size_t		size;
	uint8_t    *bytes;
	BkModel    *copy;
	MemoryContext old;

	err[0] = '\0';
	if (!BkModelEncodedSize(m, BK_MAX_MODEL_BYTES, &size, err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s", err[0] ? err : "model too large to encode")));
	old = MemoryContextSwitchTo(cxt);
	bytes = palloc(size);
	BkModelEncode(m, bytes, size);
	{
		BkEnv		env;

		BkPgEnvInit(&env, cxt);
		copy = BkModelDecode(&env, bytes, size, true);
	}
	pfree(bytes);
	MemoryContextSwitchTo(old);
	return copy;
}

BkModel *
BkPgEpochsReplay(const BkModel *m, BkEpochRows *r, int epochs,
				 const char *fname, const BkProgress *from, MemoryContext cxt)
{
	BkProgress	progress;
	BkModel    *copy;
	BkModelInfo info;
	ReplayPosition pos;
	ErrorContextCallback errcallback;

	/* the model after the first pass, copied through its bytes */
	copy = model_copy(m, cxt);
	BkModelGetInfo(copy, &info);
	BkPgProgressStart(&progress, copy);
	/* the run's start, and its record of bk_training_progress */
	progress.start = from->start;
	progress.activity = from->activity;

	pos.fname = fname;
	errcallback.callback = replay_error_context;
	errcallback.arg = (void *) &pos;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;
	for (int p = 2; p <= epochs; p++)
	{
		pos.pass = p;
		replay_pass(copy, r, info.params->seed + (uint64) (p - 1), &pos, &progress);
	}
	error_context_stack = errcallback.previous;
	return copy;
}

void
BkPgRowsLearnInOrder(BkModel *m, BkEpochRows *r, const char *fname,
					 BkProgress *progress)
{
	ReplayPosition pos = {fname, 1, 0};
	Learner		l = {m, r, progress};

	if (r->prepared != NULL)
	{
		ErrorContextCallback errcallback;

		errcallback.callback = replay_error_context;
		errcallback.arg = (void *) &pos;
		errcallback.previous = error_context_stack;
		error_context_stack = &errcallback;
		prepared_pass(m, r, false, 0, &pos, progress);
		error_context_stack = errcallback.previous;
	}
	else
		each_kept_row(r, &pos, true, learn_row, &l);
}

/* a fit and a target's sums fitted on kept rows (BkPgEpochRowsFit) */
typedef struct Fitting
{
	BkEpochRows *r;
	BkPrepFit  *fit;
	BkRunningSums *target;
} Fitting;

static void
fit_row(Datum features, Datum label, ReplayPosition *pos, void *arg)
{
	Fitting    *f = (Fitting *) arg;

	if (f->fit != NULL)
		BkPgFitRow(f->fit, features, f->r->form, pos->row);
	if (f->target != NULL)
		BkRunningSumsAdd(f->target, DatumGetFloat8(label));
}

void
BkPgEpochRowsFit(BkEpochRows *r, BkPrepFit *fit, BkRunningSums *target)
{
	ReplayPosition pos = {NULL, 1, 0};
	Fitting		f = {r, fit, target};

	each_kept_row(r, &pos, false, fit_row, &f);
}

/*
 * A matrix of n prepared rows of m's dimension, in cxt, or NULL when it
 * would take more than limit bytes
 */
static BkPreparedRows *
prepared_rows_new(int64 n, BkModel *m, Size limit, MemoryContext cxt)
{
	int			dim = BkModelDim(m);
	BkPreparedRows *pr;

	if (n == 0 || (Size) n > limit / sizeof(double) / (Size) dim)
		return NULL;
	pr = MemoryContextAllocZero(cxt, sizeof(BkPreparedRows));
	pr->n = n;
	pr->dim = dim;
	pr->x = MemoryContextAllocHuge(cxt, (Size) n * (Size) dim * sizeof(double));
	pr->labels = MemoryContextAllocHuge(cxt, (Size) n * sizeof(Datum));
	return pr;
}

/*
 * Row i (from 1) of pr: x as prepared and its label, a text label copied
 * into cxt (the row's context goes after it: the copy lives with the rows)
 */
static void
prepared_rows_put(BkPreparedRows *pr, MemoryContext cxt, Oid label_type, int64 i,
				  const double *x, Datum label)
{
	memcpy(pr->x + (Size) (i - 1) * (Size) pr->dim, x, sizeof(double) * (Size) pr->dim);
	if (label_type != TEXTOID)
		pr->labels[i - 1] = label;
	else
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		pr->labels[i - 1] = PointerGetDatum(DatumGetTextPCopy(label));
		MemoryContextSwitchTo(old);
	}
}

/* the rows being prepared, and the model whose preparation prepares them */
typedef struct Preparing
{
	BkEpochRows *r;
	BkModel    *m;
	BkPreparedRows *pr;
	MemoryContext cxt;
} Preparing;

static void
prepare_row(Datum features, Datum label, ReplayPosition *pos, void *arg)
{
	Preparing  *p = (Preparing *) arg;

	prepared_rows_put(p->pr, p->cxt, p->r->label_type, pos->row,
					  BkPgModelRow(p->m, features, p->r->form, pos->row, "the model's", NULL),
					  label);
}

bool
BkPgEpochRowsPrepare(BkEpochRows *r, BkModel *m, const char *fname, Size limit,
					 MemoryContext cxt)
{
	ReplayPosition pos = {fname, 1, 0};
	Preparing	p = {r, m, NULL, cxt};

	r->prepared = NULL;
	p.pr = prepared_rows_new(BkPgEpochRowsCount(r), m, limit, cxt);
	if (p.pr == NULL)
		return false;
	each_kept_row(r, &pos, true, prepare_row, &p);
	r->prepared = p.pr;
	return true;
}

/*
 * The held-out rows of the fold left out (BkPgEpochRowsSkipFold), for
 * scoring a search's models on them.  A held-out row is prepared as
 * scoring prepares it (BkPgScoringRow, bk_predict_label's preparation),
 * by a model of the fold's preparation: the models of one preparation and
 * fold prepare a row alike, so the matrix serves them all.
 */
typedef struct HeldOut
{
	BkEpochRows *r;
	BkModel    *m;
	BkPreparedRows *pr;			/* filling it, or NULL: visiting */
	MemoryContext cxt;			/* pr's */
	BkHeldOutVisit visit;
	void	   *arg;
} HeldOut;

static void
held_out_row(Datum features, Datum label, ReplayPosition *pos, void *arg)
{
	HeldOut    *h = (HeldOut *) arg;
	const double *x = BkPgScoringRow(h->m, features, h->r->form, pos->row, "the model's", NULL);

	if (h->pr == NULL)
		h->visit(x, label, h->arg);
	else
		prepared_rows_put(h->pr, h->cxt, h->r->label_type, pos->row, x, label);
}

BkPreparedRows *
BkPgEpochRowsHeldOut(BkEpochRows *r, BkModel *m, const char *fname, Size limit,
					 MemoryContext cxt)
{
	int64		n = r->fold_of != NULL ? r->n - r->kept : 0;
	ReplayPosition pos = {fname, 1, 0};
	HeldOut		h = {r, m, NULL, cxt, NULL, NULL};

	/* a sparse row is scored in its own form, not as a dense row */
	if (r->form == BK_FORM_SPARSE)
		return NULL;
	h.pr = prepared_rows_new(n, m, limit, cxt);
	if (h.pr != NULL)
		each_row(r, &pos, true, true, held_out_row, &h);
	return h.pr;
}

void
BkPgEpochRowsEachHeldOut(BkEpochRows *r, const BkPreparedRows *held, BkModel *m,
						 const char *fname, BkHeldOutVisit visit, void *arg)
{
	ReplayPosition pos = {fname, 1, 0};
	HeldOut		h = {r, m, NULL, NULL, visit, arg};

	if (held == NULL)
	{
		each_row(r, &pos, true, true, held_out_row, &h);
		return;
	}
	for (int64 i = 0; i < held->n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		visit(held->x + (Size) i * (Size) held->dim, held->labels[i], arg);
	}
}
