/*
 * bk_distil.h
 *	  What the distilling reduction of a merge (bk_model_distil.c) shares
 *	  with the merge (bk_model_merge.c).
 */
#ifndef BK_DISTIL_H
#define BK_DISTIL_H

#include "bk_internal.h"

/*
 * A table of rows found by their bytes: cap slots (a power of two, at
 * least 2 n for n rows), each -1 or the index of a row of some machine
 */
extern int *BkRowTableNew(const BkEnv *env, size_t n, size_t *cap);
/*
 * The slot of x's equal row of rows in table, *found true; or the empty
 * slot where x goes, *found false
 */
extern size_t BkRowSlot(const int *table, size_t cap, const BkMachine *rows,
						const double *x, int dim, bool *found);
/* ... of rows given by pointer (table: indices into rows) */
extern size_t BkRowSlotOf(const int *table, size_t cap, const double *const *rows,
						  const double *x, int dim, bool *found);
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
