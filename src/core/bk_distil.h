/*
 * bk_distil.h
 *	  What the distilling reduction of a merge (bk_model_distil.c) shares
 *	  with the merge (bk_model_merge.c).
 */
#ifndef BK_DISTIL_H
#define BK_DISTIL_H

#include "bk_internal.h"

/* FNV-1a over a row's bytes: equal rows, equal hashes */
extern uint64_t BkRowHash(const double *x, int dim);
/*
 * Machine k of m takes u's SVs and coefficients (times u's scale), and its
 * learner's bookkeeping is rebuilt from them, as after a merge; not for a
 * machine with an evaluation set or SV ages
 */
extern void BkMergeInstall(BkModel *m, int k, const BkMachine *u);

/*
 * The class a classifier predicts for a row whose kernel row against each
 * machine's SVs is krows[k] (as BkModelPredictClass, which computes them);
 * not for a learner that predicts with another function (SPA)
 */
extern int	BkModelClassOfKernelRows(BkModel *m, double *const *krows);

#endif							/* BK_DISTIL_H */
