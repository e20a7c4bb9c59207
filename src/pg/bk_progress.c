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

#include "bk_pg_train.h"

int			bk_progress_interval = 0;

void
BkPgProgressStart(BkProgress *pr, const BkModel *m)
{
	BkModelInfo info;

	BkModelGetInfo(m, &info);
	pr->start = GetCurrentTimestamp();
	pr->rows_at_last = info.rows_seen;
	pr->mistakes_at_last = info.mistakes;
	pr->activity = NULL;
	pr->activity_countdown = 0;	/* the first row reports */
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

/*
 * _bk_cv_progress(started timestamptz, total int4, setting int4, fold
 * int4, score float8) -> float8: bk_cross_validate's own progress, called
 * once for each (setting, fold) model as it is scored, in the order the
 * search trains them; returns the score.  With progress on, a NOTICE says
 * how many of the search's models are done, the time since the search
 * started, and the best fold score so far.  started tells one search from
 * the next (bk_cross_validate passes its start time).
 */
PG_FUNCTION_INFO_V1(bk_cv_progress);
Datum
bk_cv_progress(PG_FUNCTION_ARGS)
{
	static TimestampTz search = 0;
	static int	done = 0;
	static double best = 0.0;
	static int	best_setting = -1;
	TimestampTz started = PG_GETARG_TIMESTAMPTZ(0);
	int32		total = PG_GETARG_INT32(1);
	int32		setting = PG_GETARG_INT32(2);
	int32		fold = PG_GETARG_INT32(3);
	double		score;
	double		seconds;

	if (PG_ARGISNULL(4))
		PG_RETURN_NULL();
	score = PG_GETARG_FLOAT8(4);
	/* the view counts the models as _bk_train_folds scores them */
	BkPgActivitySearchTotal(started, total);
	if (bk_progress_interval <= 0)
		PG_RETURN_FLOAT8(score);
	if (started != search)
	{
		search = started;
		done = 0;
		best_setting = -1;
	}
	done++;
	if (best_setting < 0 || score > best)
	{
		best = score;
		best_setting = setting;
	}
	seconds = (double) (GetCurrentTimestamp() - started) / USECS_PER_SEC;
	ereport(NOTICE,
			(errmsg("bk_cross_validate: %d of %d models trained and scored (setting %d, fold %d: %.4f)",
					done, total, setting + 1, fold + 1, score),
			 errdetail("%.1f s since the search started; the best fold so far scored %.4f (setting %d).",
					   seconds, best, best_setting + 1)));
	PG_RETURN_FLOAT8(score);
}
