/*
 * bk_merge_distil.c
 *	  bk_merge's final model when it kept the union of the models merged
 *	  (bk_merge_agg.c): the merged model, distilled from that union when
 *	  that keeps more of their average (the core's BkModelDistil).
 */
#include "postgres.h"

#include "fmgr.h"

#include "bk_pg.h"

/* the error context of a distillation */
static void
distil_context(void *arg)
{
	errcontext("%s, distilling the merged models", (const char *) arg);
}

void
BkPgMergeDistil(BkModel *m, BkModel *u, const char *fname)
{
	BkDistilReport report;
	ErrorContextCallback errcallback;

	errcallback.callback = distil_context;
	errcallback.arg = (void *) fname;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;
	BkModelDistil(m, u, &report);
	error_context_stack = errcallback.previous;
	if (report.polish.machines > 0)
		elog(DEBUG1, "%s: the support vectors of %d machines moved towards the parts' average in %d steps; their projection of it holds %.6g of its squared norm, %.6g before",
			 fname, report.polish.machines, report.polish.steps,
			 report.polish.held_after, report.polish.held_before);
	elog(DEBUG1, "%s: %d points of the union labelled; the merged model agrees on %d, models distilled from a half on %d and from a quarter on %d, so one distilled from all on about %d: %s",
		 fname, report.points, report.agree_merged, report.agree_distilled,
		 report.agree_quarter, report.agree_expected,
		 report.distilled ? "distilled" : "merged");
	if (report.own_points > 0)
		elog(DEBUG1, "%s: %d points with the labels the parts learned them with; the merged model predicts %d of them, continued over each half the other half's %d, and the two continued agree on %d: %s",
			 fname, report.own_points, report.own_merged, report.own_refined,
			 report.own_halves_agree, report.refined ? "continued" : "kept");
}

