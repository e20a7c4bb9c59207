/*
 * bk_merge_distil.c
 *	  bk_merge's final model when it kept the union of the models merged
 *	  (bk_merge_agg.c): the merged model, distilled from that union when
 *	  that keeps more of their average, or else moved towards it (the
 *	  core's BkModelDistil); and a merge of two moved towards their union
 *	  (BkModelPolish), with the decisions at DEBUG1; where the fold
 *	  stopped, the stopped fold continued over the union's
 *	  points (BkModelRetrain).
 */
#include "postgres.h"

#include "fmgr.h"

#include "bk_pg_train.h"

/* the error contexts of a polish and of a distillation */
static void
polish_context(void *arg)
{
	errcontext("%s, moving the merged model towards the average", (const char *) arg);
}

static void
distil_context(void *arg)
{
	errcontext("%s, distilling the merged models", (const char *) arg);
}

/* errors in cb's context (its caller fname) until error_context_stack is popped */
static void
push_context(ErrorContextCallback *cb, void (*callback) (void *), const char *fname)
{
	cb->callback = callback;
	cb->arg = (void *) fname;
	cb->previous = error_context_stack;
	error_context_stack = cb;
}

static void
polish_debug(const char *fname, const BkPolishReport *r)
{
	if (r->machines > 0)
		elog(DEBUG1, "%s: the support vectors of %d machine(s) moved towards the average of the merged models in %d steps; its squared difference from that average at %d of their support vectors fell from %.6g to %.6g",
			 fname, r->machines, r->steps, r->points, r->before, r->after);
}

void
BkPgMergePolish(BkModel *m, const BkModel *u, const char *fname)
{
	BkPolishReport report;
	ErrorContextCallback errcallback;

	push_context(&errcallback, polish_context, fname);
	BkModelPolish(m, u, &report);
	error_context_stack = errcallback.previous;
	polish_debug(fname, &report);
}

void
BkPgMergeRetrain(BkModel *m, BkModel *u, const char *fname)
{
	BkDistilReport report;
	ErrorContextCallback errcallback;

	push_context(&errcallback, distil_context, fname);
	BkModelRetrain(m, u, &report);
	error_context_stack = errcallback.previous;
	elog(DEBUG1, "%s: the union outgrew the fold, which stopped: %d of its %d points with the labels the parts learned them with, the fold continued over them in %d passes: %s",
		 fname, report.own_points, report.points, report.epochs,
		 report.retrained ? "retrained" : "merged");
}

void
BkPgMergeDistil(BkModel *m, BkModel *u, const char *fname)
{
	BkDistilReport report;
	ErrorContextCallback errcallback;

	push_context(&errcallback, distil_context, fname);
	BkModelDistil(m, u, &report);
	error_context_stack = errcallback.previous;
	/* in the order of the steps: the judge, the polish, the continuation */
	elog(DEBUG1, "%s: %d points of the union labelled, learned in %d passes; the merged model agrees on %d, models distilled from a half on %d and from a quarter on %d, so one distilled from all on about %d: %s",
		 fname, report.points, report.epochs, report.agree_merged, report.agree_distilled,
		 report.agree_quarter, report.agree_expected,
		 report.distilled ? "distilled" : "merged");
	polish_debug(fname, &report.polish);
	if (report.own_points > 0)
		elog(DEBUG1, "%s: %d points with the labels the parts learned them with; the merged model predicts %d of them, continued over each half the other half's %d, and the two continued agree on %d: %s",
			 fname, report.own_points, report.own_merged, report.own_refined,
			 report.own_halves_agree, report.refined ? "continued" : "kept");
}

