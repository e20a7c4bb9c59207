/*
 * bk_internal_model.h
 *	  The model layer's internals: layouts and sizes, classes, weights,
 *	  calibration, the run's statistics, the budget's bookkeeping; and
 *	  BkModelSeal, for tests and fuzz drivers.
 */
#ifndef BK_INTERNAL_MODEL_H
#define BK_INTERNAL_MODEL_H

#include "bk_internal_learners.h"

/* ---- bk_layout.c: the layout each algorithm needs (create, decode, validate) ---- */
extern int	BkModelMachines(const BkParams *p, int n_classes);
extern int	BkModelCoefs(const BkParams *p, int n_classes);
extern bool BkModelNeedsNearest(const BkParams *p);
extern bool BkModelNeedsGram(const BkParams *p);
extern double BkModelGramRidge(const BkParams *p);	/* BkGramInverse.ridge */
extern bool BkModelNeedsScores(const BkParams *p);
extern int	BkModelEvalCap(const BkParams *p);	/* 0: no evaluation set */
extern bool BkModelNeedsBorn(const BkParams *p);
extern int	BkModelGrowLimit(const BkParams *p);	/* BkModel.grow_limit */
/* SV slots a training machine starts with, holding n_sv SVs */
extern int	BkModelInitialCapacity(const BkParams *p, int n_sv);
extern void BkModelAllocMachines(BkModel *m, const int *caps, int capacity);
extern void BkModelOnNewClass(BkModel *m);
/*
 * After a step (or, merging, after a merge rebuilt a machine): its scale,
 * degradation sum, norm, coefficients and cached scores must be finite
 * and in range, else BK_ERR_OVERFLOW naming the value, so that no model
 * that fails validation is ever returned.
 */
extern void BkModelCheckSums(BkModel *m, const BkMachine *mach, bool merging);
/*
 * Reorder the classes: new class i is old class perm[i].  The machines
 * follow (one-vs-rest machines change places, a binary machine whose two
 * classes exchange is negated, a multi-class machine's columns move), and
 * so do this run's counts.
 */
extern void BkModelPermuteClasses(BkModel *m, const int *perm);
extern void BkModelCheckClassRoom(BkModel *m, int n_classes);
extern void BkModelCheckRowRoom(const BkModel *m, uint64_t n);
/* BkModelCheckSize for a model of n_classes classes (all machines counted) */
extern bool BkModelCheckSizeClasses(const BkParams *p, int dim, int n_classes,
									size_t limit, char *err, size_t errlen);
/* largest encoded size a model of these parameters can reach; false on overflow */
/* the machine aux bits (doc/format.md) a model of these parameters carries */
extern uint32_t BkModelAux(const BkParams *p);

/* ---- bk_model.c ---- */
extern void BkModelLearnClass(BkModel *m, const double *x, int cls, bool is_new);

/* ---- bk_classes.c ---- */
extern void BkModelFreeClasses(BkModel *m);
/* append a class (no layout change); the arrays grow as needed */
extern void BkClassAppend(BkModel *m, int64_t label, const char *text, size_t len);
/* <0, 0, >0 as class i comes before, is, or comes after class j canonically */
extern int	BkClassCompare(const BkModel *m, int i, int j);
/* index of a label, -1 if the model lacks it */
extern int	BkClassFind(const BkModel *m, int64_t label, const char *text, size_t len);

/* ---- bk_model_classes.c: the classes as rows bring them ---- */
/* put the classes in canonical order unless they were declared */
extern void BkModelCanonicalClasses(BkModel *m);
/* add a class that no row has shown yet, in its canonical place; its index */
extern int	BkClassAdd(BkModel *m, int64_t label, const char *text, size_t len);

/* ---- bk_class_weight.c ---- */
extern void BkWeightsFree(const BkEnv *env, BkClassWeights *cw);
/* count a row of class cls and set every machine's row weights */
extern void BkWeightsForRow(BkModel *m, int cls, BkRow *rows);
/* the classes moved: new class i is old class perm[i] */
extern void BkWeightsPermute(BkModel *m, const int *perm);
/* the largest class weight now (1 without weights, or before any row) */
extern double BkWeightsLargest(BkModel *m);

/* merging: the same weights; b's counts added to a's (same classes) */
extern bool BkWeightsSame(const BkModel *a, const BkModel *b);
extern void BkWeightsAddCounts(BkModel *a, const BkModel *b);

/* ---- bk_calibrate.c ---- */
/* scores of n classes to their calibrated probabilities, in place */
extern void BkPlattProbabilities(const double *platt, int n, double *prob);

/* ---- bk_run.c: what one run of training saw ---- */
/* note a row of class cls, predicted as pred (-1: its class was new) */
extern void BkRunNote(BkModel *m, const double *x, int cls, int pred);
extern void BkRunFree(BkModel *m);
/* the model's columns change: column c to map[c], the others fill's */
extern void BkRunRelayout(BkModel *m, int new_dim, const int *map,
						  const double *fill);

/*
 * ---- bk_model_union.c: two prepared models whose keys or levels differ
 * re-laid into the union of their preparations, before a merge ----
 */
extern void BkModelUnionLayout(BkModel *a, BkModel *b);
/* the classes changed places: old class c is now inv[c] */
extern void BkRunPermute(BkModel *m, const int *inv, int n_classes);
/* BkModelRunReport, the model's prediction of a row given */
typedef int (*BkRunPredict) (BkModel *m, const double *x);
extern void BkRunMakeReport(BkModel *m, BkRunReport *out, BkRunPredict predict);
/* a regressor's: note a row of target t; the report of its predictions */
extern void BkRunNoteValue(BkModel *m, const double *x, double t);
typedef double (*BkRunPredictValue) (BkModel *m, const double *x);
extern void BkRunMakeValueReport(BkModel *m, BkRunReport *out, BkRunPredictValue predict);

/* ---- bk_budget.c: what the learners share around their budget ---- */
/* room for one more SV of an unbudgeted learner, or an error at max_sv */
extern void BkBudgetReserveUnbudgeted(BkModel *m, BkMachine *mach);
/* count one budget-maintenance step of a machine */
extern void BkBudgetCountMaintenance(BkModel *m, BkMachine *mach);
/* with B SVs stored, remove one uniformly at random (RBP, PA+Rand, BOGD) */
extern void BkBudgetRemoveRandomIfFull(BkModel *m, BkMachine *mach);
/* remove SV r, the row's kernel values and neighbour cache realigned */
extern void BkBudgetRemove(BkModel *m, BkMachine *mach, BkRow *row, int r,
						   double *work);


/*
 * Make buf[0..len) self-consistent after its bytes were changed: the
 * length field, the digest (version 2) and the CRC.  For tests and fuzz
 * drivers, which mutate valid models to reach the checks behind the
 * checksum.
 */
extern void BkModelSeal(uint8_t *buf, size_t len);

#endif							/* BK_INTERNAL_MODEL_H */
