/*
 * bk_refit.h
 *	  The refit of a model's coefficients over its kept basis (bk_refit.c,
 *	  doc/refit.md): one scan accumulates the normal equations of each
 *	  machine, the final step solves them.  Included by the PostgreSQL
 *	  layer's bk_refit.c and by the unit tests.
 */
#ifndef BK_REFIT_H
#define BK_REFIT_H

#include "bk_core.h"

typedef struct BkRefit BkRefit;

/*
 * The default "lambda": the ridge per row, the system being
 * (A + lambda n K_BB) alpha = b over n rows (measured in doc/refit.md)
 */
#define BK_REFIT_DEFAULT_LAMBDA 1e-5

/*
 * NULL if m's coefficients can be refit; else why not, for an error
 * (0A000) that names the model's algorithm ("it predicts with another
 * expansion than its coefficients", ...)
 */
extern const char *BkRefitRefusal(const BkModel *m);
/*
 * The bytes a refit of m holds at once (its sums, a row block and the
 * solve's copy), false if they overflow size_t: checked against the
 * memory limit before BkRefitNew allocates them
 */
extern bool BkRefitBytes(const BkModel *m, size_t *bytes);
/* the sums of a refit of m with ridge lambda (finite, > 0), all zero */
extern BkRefit *BkRefitNew(const BkEnv *env, const BkModel *m, double lambda);
extern void BkRefitFree(BkRefit *r);
/*
 * One row x of m's dimension, with a regressor's target (in the target's
 * units) or a classifier's class index cls (BkModelClassIndex); the kernel
 * rows are computed with m, the model the refit was made for
 */
extern void BkRefitAddRow(BkRefit *r, BkModel *m, const double *x,
						  double target, int cls);
extern uint64_t BkRefitRows(const BkRefit *r);
/*
 * The refit's state as one array of doubles, its pending rows folded in
 * first (*n values; the row count is BkRefitRows): what a parallel
 * worker serialises
 */
extern const double *BkRefitState(BkRefit *r, size_t *n);
/* the state back from such an array of n values and its row count */
extern void BkRefitSetState(BkRefit *r, const double *v, size_t n, uint64_t rows);
/* a += b: two refits of one model over disjoint rows */
extern void BkRefitCombine(BkRefit *a, BkRefit *b);
/*
 * Solve and install the coefficients (and the intercept) in m, a model
 * decoded from the same bytes as the one the refit was made for; r is
 * not changed.  BK_ERR_NUMERIC if a system is not positive definite.
 */
extern void BkRefitFinish(const BkRefit *r, BkModel *m);

/*
 * The solve alone, for the unit tests: the nrhs right-hand sides of n
 * values each in alpha (b on entry, n apart) become the solutions of
 * (a + reg + jitter I) alpha = b, for the n x n symmetric a and reg
 * (upper triangles, row-major), as BkRefitFinish solves each machine;
 * false if the matrix is not numerically positive definite
 */
extern bool BkRefitSolve(const BkEnv *env, int n, const double *a,
						 const double *reg, int nrhs, double *alpha);

#endif							/* BK_REFIT_H */
