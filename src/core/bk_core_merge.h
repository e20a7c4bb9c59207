/*
 * bk_core_merge.h
 *	  Merging models (model layer): two at a time, their union, and the
 *	  reductions of a merge of many parts (polish, distillation).
 */
#ifndef BK_CORE_MERGE_H
#define BK_CORE_MERGE_H

#include "bk_core_model.h"

/*
 * Merge src into dst, both decoded for training and trained on disjoint
 * rows: dst becomes the weighted average of the two by rows seen, reduced
 * to the budget, with its learner's state rebuilt (bk_model_merge.c).
 * src gains dst's classes and is left for the caller to free.  Models of
 * different dimensions, label types, declared classes or parameters (the
 * seed aside) are refused (BK_ERR_PARAM) with the difference named.
 */
extern void BkModelMerge(BkModel *dst, BkModel *src);
/*
 * The same merge kept whole: dst becomes the exact weighted average of the
 * two, the union of their SVs, never reduced to the budget and for scoring
 * only (its learner's bookkeeping is not rebuilt): the union that
 * BkModelDistil labels.  The parts of both are merged as by BkModelMerge,
 * so the same models merged in the same order by both have the same
 * classes, layout and preparation.
 */
extern void BkModelMergeUnion(BkModel *dst, BkModel *src);
/*
 * BkModelMergeUnion for the union of a fold that stopped (BkModelFoldStops),
 * which BkModelRetrain only labels by the parts' own labels: of
 * one-vs-rest machines it keeps src's SVs of a positive coefficient only
 * (the others label no point), of one binary machine all.  src is changed
 * as BkModelMergeCounts would change it: without a preparation
 * (BkModelPrep NULL), the same decoded src can then be merged into the
 * stopped fold by BkModelMergeCounts.
 */
extern void BkModelMergeUnionOwn(BkModel *dst, BkModel *src);
/*
 * The same merge without the machines: dst's counts, classes, parts and
 * preparation become those of the merge, its machines stay as they were
 * (but for their counts of updates).  For a fold that stopped
 * (BkModelFoldStops) whose machines BkModelRetrain replaces.
 */
extern void BkModelMergeCounts(BkModel *dst, BkModel *src);
/*
 * Move the support vectors of each machine of m, a merge of Gaussian-kernel
 * models reduced to the budget, towards the union u of the same models
 * (their exact average, as for BkModelDistil): a few steps of gradient
 * descent on the positions of the reduced set (Burges 1996), the
 * coefficients re-solved at each, minimising the squared distance of the
 * two functions in the kernel's feature space plus their squared
 * differences at the points of u (bk_model_polish.c).  False,
 * m unchanged, where no machine was reduced or the bounds leave no step.
 */
typedef struct BkPolishReport
{
	int			machines;		/* machines moved */
	int			steps;			/* steps taken, over the machines */
	int			points;			/* points of u's SVs matched, over the machines */
	double		before;			/* sum of ||g(p) - f(p)||^2 over them, before */
	double		after;			/* ... and after */
} BkPolishReport;
extern bool BkModelPolish(BkModel *m, const BkModel *u, BkPolishReport *report);
/*
 * BkModelPolish within a bound for each machine rather than one shared by
 * the machines (a larger one, with a cap over them): for the model a
 * merge of many keeps, where a one-vs-rest model's machines would each
 * get too little of the shared bound for a step
 */
extern bool BkModelPolishEachMachine(BkModel *m, const BkModel *u, BkPolishReport *report);
/*
 * Whether merging b into a would reduce a union that BkModelPolish can
 * then polish (a Gaussian kernel, plain machines: BkModelPlainMachines;
 * some machine's SVs of both above the budget; the classes as they are):
 * the merges that keep the union for it only then
 */
extern bool BkModelPolishable(const BkModel *a, const BkModel *b);
/*
 * Whether m is a classifier of a budgeted learner whose machines hold
 * only SVs and coefficients (not SV ages, an evaluation set, dual
 * variables in a box, another predictor): what the merge's polish and
 * distillation can rebuild
 */
extern bool BkModelPlainMachines(const BkModel *m);
/*
 * Distil the union u of the models merged into m (the same models, in the
 * same order, by BkModelMergeUnion and BkModelMerge): a fresh model of m's
 * learner learns u's distinct SVs labelled by u's class, and its machines
 * replace m's when it agrees with u on more of those points
 * (bk_model_distil.c), or else m is polished (BkModelPolish; a model of
 * one-vs-rest machines each machine within its own bound,
 * BkModelPolishEachMachine); a distilled model is not.  Then, for a
 * learner of binary machines without class weights, m is continued over
 * those of the labelled points that carry the label a part learned them
 * with, when that predicts those labels better on held-out points,
 * significantly and stably.  False, m unchanged, when none of these
 * happens, or when m is not a classifier of a learner it applies to, or u
 * never exceeded the budget.
 */
typedef struct BkDistilReport
{
	int			points;			/* the union's distinct points, labelled */
	int			epochs;			/* the learner's passes over them */
	int			agree_merged;	/* on which the merged model predicts u's class */
	int			agree_distilled;	/* on which a model distilled from half does */
	int			agree_quarter;	/* ... and one distilled from a quarter */
	int			agree_expected;	/* what the model distilled from all should */
	bool		distilled;		/* m's machines are the distilled ones */
	int			own_points;		/* points with the label the parts learned */
	int			own_merged;		/* on which the merged model predicts it */
	int			own_refined;	/* ... and m continued over the other half */
	int			own_halves_agree;	/* on which the two continued agree */
	bool		refined;		/* m then continued over all of them */
	bool		retrained;		/* BkModelRetrain: the stopped fold continued */
	BkPolishReport polish;		/* m's SVs moved towards u (BkModelPolish...) */
} BkDistilReport;
extern bool BkModelDistil(BkModel *m, BkModel *u, BkDistilReport *report);
/*
 * Whether a model, or a union of models, can be distilled: a classifier of
 * a budgeted learner whose machines hold only SVs and coefficients (not
 * SV ages, an evaluation set, dual variables in a box, another predictor),
 * of at most 65,536 SVs in all
 */
extern bool BkModelDistillable(const BkModel *m);
/* whether u with m's SVs added would still be distillable (65,536 SVs) */
extern bool BkModelDistillableWith(const BkModel *u, const BkModel *m);
/*
 * Whether the fold of a merge of many parts stops at the union u of the
 * parts merged so far: u holds more than 2 budgets of SVs per machine, and at least one of
 * the rows in 16 (its rows_seen), of
 * a learner whose SVs are rows learned with their labels (a budgeted
 * classifier of binary or one-vs-rest machines, plain machines, no class
 * weights).  From there on the parts are merged into the fold by
 * BkModelMergeCounts only, and the merge's machines are BkModelRetrain's.
 */
extern bool BkModelFoldStops(const BkModel *u);
/*
 * m, the fold as it stopped (its counts those of all the parts), continued
 * for one pass, in a seeded shuffle, over the distinct points of u
 * that carry the label a part learned them with (bk_model_distil.c).
 * False, m unchanged, unless BkModelFoldStops(u) and u has such points.
 */
extern bool BkModelRetrain(BkModel *m, BkModel *u, BkDistilReport *report);

#endif							/* BK_CORE_MERGE_H */
