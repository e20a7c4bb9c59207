/*
 * bk_target.h
 *	  A regressor's target (bk_target.c, the part bk_part_target.c):
 *	  predictions are mean + sd f(x), so the machine learns the
 *	  standardised target (t - mean) / sd, and what the regressor saw of its
 *	  rows, prequentially (predicted before each was learned), in the
 *	  target's units.
 */
#ifndef BK_TARGET_H
#define BK_TARGET_H

#include "bk_internal.h"

#define BK_TARGET_NONE		0	/* learned as it is: mean 0, sd 1 */
#define BK_TARGET_STANDARD	1	/* standardised by its training rows */

typedef struct BkTarget
{
	int			mode;			/* BK_TARGET_* */
	double		mean;
	double		sd;
	double		sq_error;		/* sum of (t - prediction)^2 */
	double		abs_error;		/* sum of |t - prediction| */
	double		seen_mean;		/* the mean of the targets learned */
	double		seen_m2;		/* their sum of squared deviations from it */
	/*
	 * The learning curve of the squared error: sq_curve[i] = sq_error after
	 * 2^i rows, as BkModel.curve keeps the mistakes (0 points: merged)
	 */
	double		sq_curve[BK_CURVE_MAX];
	int			sq_curve_n;
} BkTarget;

/* A novelty detector's threshold: its score is rho - f(x) (bk_target.c). */
typedef struct BkNovelty
{
	double		rho;
} BkNovelty;

extern BkNovelty *BkNoveltyNew(const BkEnv *env);
extern void BkNoveltyFree(BkModel *m);
/* a and b merged with weights wa and wb: rho averaged into a */
extern void BkNoveltyPool(BkModel *a, const BkModel *b, double wa, double wb);

/* a new regressor's target: not standardised, nothing seen */
extern BkTarget *BkTargetNew(const BkEnv *env);
/* one learned row: its target and error, n_before rows seen before it */
extern void BkTargetNote(BkTarget *t, uint64_t n_before, double target, double err);
/* a and b merged with weights wa and wb: the targets pooled into a */
extern void BkTargetPool(BkModel *a, BkModel *b, double wa, double wb);
extern void BkTargetFree(BkModel *m);

#endif							/* BK_TARGET_H */
