/*
 * bk_internal_learners.h
 *	  The learners' shared steps (learners layer): a step on a row, the box
 *	  QP of paper 001, the tighter budget perceptron's evaluation set.
 */
#ifndef BK_INTERNAL_LEARNERS_H
#define BK_INTERNAL_LEARNERS_H

#include "bk_internal_kernel.h"

/* ---- learners: one step on row (x, y) ---- */

/* What a learner step gets about the current row. */
typedef struct BkRow
{
	const double *x;
	double		sqx;			/* ||x||^2 */
	double		ktt;			/* k(x, x) */
	double		y;				/* +1 / -1 */
	/*
	 * The margin the step asks of y f: 1 for a classifier; a regressor's
	 * y target - epsilon (y: the residual's sign), so that margin - y f is
	 * |target - f| - epsilon (BkModelLearnValue); a detector's rho
	 */
	double		margin;
	/* a novelty step's rate and threshold shrink (1: none), which move rho */
	double		rate;
	double		rho_decay;
	double		f;				/* f_t(x) before the update */
	double	   *dots;			/* x . sv_i */
	/*
	 * dots are BkMachineDots of x over the machine's SVs before the step
	 * (a dense row; a sparse row's are summed otherwise), so the same bits
	 * as a later BkMachineDots of x stored as an SV: Pegasos' merge of x
	 * reuses them
	 */
	bool		dense_dots;
	double	   *krow;			/* k(x, sv_i) */
	double	   *work;			/* scratch of the model */
	/*
	 * Class weights (bk_class_weight.c; 1 without): the weight of this
	 * row's loss, and the weights of the machine's positive and negative
	 * sides, which bound the dual variables of the SVs of each side
	 */
	double		weight;
	double		w_pos;
	double		w_neg;
} BkRow;

/* the class weight of an SV stored with coefficient coef on row's machine */
static inline double
BkRowSideWeight(const BkRow *row, double coef)
{
	return coef >= 0.0 ? row->w_pos : row->w_neg;
}

/* true if the step changed the machine */
/*
 * (gamma_t, d gamma_b) of paper 001 eq. 1, gamma_t in [0, C] and
 * gamma_b + d in [0, Cb] (the boxes differ under class weights)
 */
extern void BkDuolDoubleUpdate(double C, double Cb, double lt, double lb,
							   double kt, double kb, double w, double gb,
							   double *g, double *d);

/*
 * ---- bk_alg_bduol.c: BDUOL's budget maintenance (paper 001 §3) ----
 * Runs with B SVs stored and x_t about to be added; removes at least one
 * SV and changes other coefficients, keeps sv_scores (f(x_j)), the
 * neighbour cache and row->krow / row->dots (aligned with the SV slots)
 * up to date, and returns the change of f(x_t).
 */
extern double BkBduolMaintain(BkModel *m, BkMachine *mach, BkRow *row);
/* ---- bk_boxqp.c: projection under a box (paper 001 eq. 8-9) ---- */
/* Scratch of one projection of n SVs (BkBoxQpAlloc). */
typedef struct BkBoxQp
{
	int			n;
	double	   *K;				/* n x n kernel matrix */
	double	   *G;				/* n x n, K^-1 */
	double	   *HS;				/* n x n: row k = column k of H, once computed */
	double	   *M;				/* n x n: H_SS (upper), its factor (lower) */
	double	   *a;				/* candidate's coefficient changes */
	double	   *abest;
	double	   *astar;
	double	   *lo;
	double	   *hi;
	double	   *mu;
	double	   *Ka;
	int		   *state;			/* 0 free, -1 at lo, +1 at hi, 2 = j */
	int		   *fixed;			/* indices of the fixed set */
	int		   *have;			/* have[k]: HS's row k computed */
} BkBoxQp;

/* scratch for n SVs: returns the block of doubles (free it and w->state) */
extern double *BkBoxQpAlloc(const BkEnv *env, BkBoxQp *w, int n);
/* w->G = w->K^-1, with a small ridge if needed; false if even that fails */
extern bool BkBoxQpInvert(const BkEnv *env, BkBoxQp *w);
/* eq. 9 for SV j of coefficient c: a_P = -c G_Pj / G_jj in w->a and w->Ka */
extern void BkBoxQpStart(double c, BkBoxQp *w, int j);
/* eq. 8 from the start above, w->lo <= w->a <= w->hi; false if a step fails */
extern bool BkBoxQpSolve(const BkEnv *env, BkBoxQp *w, int j);
/*
 * The exact projection of eq. 8 on its own: K (n x n, row-major) the
 * kernel matrix, j the SV projected with coefficient c, lo / hi the
 * bounds of the others' coefficient changes; a gets the changes (a_j =
 * 0).  False if K is not positive definite or a step fails.
 */
extern bool BkBoxQpProject(const BkEnv *env, const double *K, int n, int j,
						   double c, const double *lo, const double *hi,
						   double *a);

/* remove SV r (BkMachineRemove) and repair the neighbour cache */
extern void BkNearestRemove(const BkEnv *env, BkMachine *mach, int dim, int r,
							double *work);
/* Projectron and Projectron++ (by m->params.algorithm) */
/* the Forgetron's self-tuned shrink phi_t (exposed for the unit tests) */
extern double BkForgetronPhi(double sigma, double mu, double Q, double M);

/* ---- bk_evalset.c: the tighter budget perceptron's evaluation set ---- */
extern void BkEvalInit(const BkEnv *env, BkMachine *mach, int cap, int dim);
extern void BkEvalFree(const BkEnv *env, BkMachine *mach);
extern void BkEvalCopy(const BkEnv *env, BkMachine *dst, const BkMachine *src,
					   int dim, double sign);
extern void BkEvalAddPoint(BkMachine *mach, int dim, const double *x, double sqx,
						   double y, double f, const double *krow, uint64_t t);
extern void BkEvalRemovePoint(BkMachine *mach, int dim, int k);
extern void BkEvalOnAddSv(const BkParams *p, BkMachine *mach, int dim, int j,
						  const double *x, double sqx, double a);
extern void BkEvalOnRemoveSv(BkMachine *mach, int i, double a);
extern void BkEvalCountFlips(BkMachine *mach);
extern int	BkEvalBestRemoval(const BkMachine *mach);


#endif							/* BK_INTERNAL_LEARNERS_H */
