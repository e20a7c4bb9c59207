/*
 * bk_activity.h
 *	  Training visible to other sessions: the view bk_training_progress
 *	  reads one slot of shared memory per backend, which the backend's
 *	  training aggregates (bk_train, bk_continue) and bk_cross_validate
 *	  write (bk_activity.c; doc/progress.md).
 *
 *	  Only the glue includes it, through bk_pg.h.
 */
#ifndef BK_ACTIVITY_H
#define BK_ACTIVITY_H

#include "datatype/timestamp.h"
#include "utils/palloc.h"

#include "bk_core.h"

/*
 * Rows learned between two looks at the clock: the per-row cost is a
 * decrement and a test; every BK_ACTIVITY_ROWS rows the clock is read, and
 * the slot is written if BK_ACTIVITY_MS milliseconds have passed since
 * this backend last wrote it.
 */
#define BK_ACTIVITY_ROWS 256
#define BK_ACTIVITY_MS 100

/* one training run of one aggregate state (opaque; in the state's context) */
typedef struct BkActivity BkActivity;

/* _PG_init: ask for the shared memory when the library is preloaded */
extern void BkPgActivityInit(void);

/*
 * A training run begins: fname is "bk_train" or "bk_continue"; m the model
 * it continues (its rows and mistakes so far are not this run's), or NULL;
 * params its parameters, if known (the learner's name); epochs the passes
 * over the rows.  The record lives in cxt, and a reset or deletion of cxt
 * (the end of the aggregate, an error, a cancel) takes the run off the view.
 */
extern BkActivity *BkPgActivityBegin(MemoryContext cxt, const char *fname,
									 const BkModel *m, const BkParams *params,
									 int epochs, TimestampTz start);

/*
 * Every BK_ACTIVITY_ROWS rows (BkPgProgress in bk_pg.h): the run's numbers
 * into the slot if the last write is BK_ACTIVITY_MS old.  m: the model
 * learning (NULL while the rows are only read and kept: rows_read is then
 * their count); pass: 1 for the first pass.
 */
extern void BkPgActivityTick(BkActivity *a, const BkModel *m, int64 rows_read, int pass);

/* the run is over (the final function): off the view */
extern void BkPgActivityEnd(BkActivity *a);

/* bk_cross_validate: a search begins (started) or ends (0) */
extern void BkPgActivitySearch(TimestampTz started);

/* bk_cross_validate's models to score (so far known), of the search begun at started */
extern void BkPgActivitySearchTotal(TimestampTz started, int total);

/*
 * the search under way scored one more model (_bk_train_folds, as each
 * model of a round is scored; nothing outside a search)
 */
extern void BkPgActivitySearchModelScored(void);

#endif							/* BK_ACTIVITY_H */
