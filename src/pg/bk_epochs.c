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
};

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

int64
BkPgEpochRowsCount(const BkEpochRows *r)
{
	return r->n;
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

/* Learn one kept row */
static void
learn_row(BkModel *m, BkEpochRows *r, Datum features, Datum label,
		  ReplayPosition *pos, BkProgress *progress)
{
	const double *x = BkPgModelRow(m, features, r->form, pos->row, "the model's", NULL);

	if (r->label_type == BOOLOID)
		BkModelLearnNovel(m, x);	/* no label: a novelty detector */
	else if (r->label_type == FLOAT8OID)
		BkModelLearnValue(m, x, DatumGetFloat8(label));
	else if (r->label_type == TEXTOID)
	{
		text	   *t = DatumGetTextPP(label);
		size_t		len = VARSIZE_ANY_EXHDR(t);
		const char *s = BkPgLabelIn(m, VARDATA_ANY(t), &len);

		BkModelLearnText(m, x, s, len);
	}
	else
		BkModelLearn(m, x, DatumGetInt64(label));
	BkPgProgress(progress, m, pos->fname, pos->pass);
}

/* One more pass over the kept rows, in the order of the pass's shuffle keys */
static void
replay_pass(BkModel *m, BkEpochRows *r, uint64 seed, ReplayPosition *pos,
			BkProgress *progress)
{
	TupleDesc	sortdesc = CreateTemplateTupleDesc(3);
	AttrNumber	key_col = 1;
	Oid			key_op = Int8LessOperator;
	Oid			key_coll = InvalidOid;
	bool		key_nulls_first = false;
	Tuplesortstate *sort;
	TupleTableSlot *in;
	TupleTableSlot *keyed;
	TupleTableSlot *sorted;
	MemoryContext rowcxt;
	int64		i = 0;

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
		learn_row(m, r, sorted->tts_values[1], sorted->tts_values[2], pos, progress);
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

BkModel *
BkPgEpochsReplay(const BkModel *m, BkEpochRows *r, int epochs,
				 const char *fname, const BkProgress *from, MemoryContext cxt)
{
	BkProgress	progress;
	char		err[BK_ERRMSG_LEN];
	size_t		size;
	uint8_t    *bytes;
	BkModel    *copy;
	BkModelInfo info;
	ReplayPosition pos;
	ErrorContextCallback errcallback;
	MemoryContext old;

	/* the model after the first pass, copied through its bytes */
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
	TupleTableSlot *in = MakeSingleTupleTableSlot(r->desc, &TTSOpsMinimalTuple);
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext,
												 "budgetkernel first pass row",
												 ALLOCSET_SMALL_SIZES);
	ReplayPosition pos;
	ErrorContextCallback errcallback;

	pos.fname = fname;
	pos.pass = 1;
	pos.row = 0;
	errcallback.callback = replay_error_context;
	errcallback.arg = (void *) &pos;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;
	tuplestore_rescan(r->store);
	while (tuplestore_gettupleslot(r->store, true, false, in))
	{
		MemoryContext old = MemoryContextSwitchTo(rowcxt);

		CHECK_FOR_INTERRUPTS();
		pos.row++;
		slot_getallattrs(in);
		learn_row(m, r, in->tts_values[0], in->tts_values[1], &pos, progress);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	error_context_stack = errcallback.previous;
	MemoryContextDelete(rowcxt);
	ExecDropSingleTupleTableSlot(in);
}
