/*
 * bk_progress.c
 *	  Progress of a long training run: with budgetkernel.progress_interval
 *	  set to N > 0, bk_train and bk_continue raise a NOTICE every N rows
 *	  they learn (in every pass of "epochs"): rows, support vectors, the
 *	  online error over all rows and over the last N, and as detail the
 *	  time since the aggregate started and the rate.  Off by default.
 */
#include "postgres.h"

#include "utils/timestamp.h"

#include "bk_pg.h"

int			bk_progress_interval = 0;

void
BkPgProgressStart(BkProgress *pr, const BkModel *m)
{
	BkModelInfo info;

	BkModelGetInfo(m, &info);
	pr->start = GetCurrentTimestamp();
	pr->rows_at_last = info.rows_seen;
	pr->mistakes_at_last = info.mistakes;
}

/* BkPgProgress with progress on (bk_pg.h) */
void
BkPgProgressReport(BkProgress *pr, const BkModel *m, const char *fname, int pass)
{
	BkModelInfo info;
	uint64		rows;
	double		seconds;
	char		where[32] = "";

	BkModelGetInfo(m, &info);
	rows = info.rows_seen - pr->rows_at_last;
	if (rows < (uint64) bk_progress_interval)
		return;
	seconds = (double) (GetCurrentTimestamp() - pr->start) / USECS_PER_SEC;
	if (pass > 0)
		snprintf(where, sizeof(where), "pass %d, ", pass);
	ereport(NOTICE,
			(errmsg("%s: %s" UINT64_FORMAT " rows, " UINT64_FORMAT " support vectors, online error %.1f%% (last " UINT64_FORMAT " rows: %.1f%%)",
					fname, where, info.rows_seen, BkModelSvTotal(m),
					100.0 * (double) info.mistakes / (double) info.rows_seen,
					rows, 100.0 * (double) (info.mistakes - pr->mistakes_at_last) / (double) rows),
			 errdetail("%.1f s since the first row, %.0f rows/s.",
					   seconds, seconds > 0 ? (double) info.rows_seen / seconds : 0.0)));
	pr->rows_at_last = info.rows_seen;
	pr->mistakes_at_last = info.mistakes;
}
