/*
 * bk_module.c
 *	  Module magic and load-time set-up: the extension's settings.  The
 *	  top of the PostgreSQL layer: it names the settings' variables of
 *	  the files that read them, and nothing calls into it.
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/guc.h"

#include "bk_pg_train.h"

BK_MODULE_MAGIC;

void		_PG_init(void);


/*
 * Module load
 *
 * Define the extension's settings (budgetkernel.*), and ask for the
 * shared memory of bk_training_progress when preloaded (bk_activity.c).
 * (The module calls no BLAS, so it has no BLAS threads to tame:
 * parallelism comes from PostgreSQL's own worker processes.)
 */
void
_PG_init(void)
{
	DefineCustomIntVariable("budgetkernel.model_cache_size",
							"Memory of the decoded models that the scoring functions of one backend keep.",
							"The least recently used models are released first; the model being scored is always kept.  All are released at the end of each transaction.",
							&bk_model_cache_size_kb,
							256 * 1024, 1024, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB,
							NULL, NULL, NULL);
	DefineCustomIntVariable("budgetkernel.progress_interval",
							"Rows between the progress NOTICEs of bk_train and bk_continue; 0 turns them off.",
							"Each NOTICE gives the rows learned, the support vectors, the online error over all rows and over the last interval, and (as detail) the time since the aggregate started and the rate.",
							&bk_progress_interval,
							0, 0, INT_MAX,
							PGC_USERSET, 0,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("budgetkernel.run_warnings",
							 "Whether bk_train and bk_continue warn of a suspicious run (a sorted stream, a constant or useless model).",
							 "bk_cross_validate turns them off for its many models, whose scores tell the same.",
							 &bk_run_warnings,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	MarkGUCPrefixReserved("budgetkernel");
	/* preloaded: the shared memory of bk_training_progress */
	BkPgActivityInit();
}
