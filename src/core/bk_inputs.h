/*
 * bk_inputs.h
 *	  What one run of training saw of its inputs (bk_inputs.c), for the
 *	  NOTICEs and WARNINGs of suspicious inputs: a float target of a few
 *	  integral values, features far from standardised, one feature that
 *	  alone gives the label (a leak), a text input of one level in every
 *	  row.  Kept in bounded memory beside the run's other counts
 *	  (BkRunStats), not stored with the model.  The glue includes this
 *	  header beside bk_core.h.
 */
#ifndef BK_INPUTS_H
#define BK_INPUTS_H

#include "bk_core.h"

/* a target of at most this many distinct integral values looks like classes */
#define BK_INPUTS_FEW_VALUES	20
/* the columns' statistics are kept for models of at most this many columns */
#define BK_INPUTS_MAX_DIM		4096
/* the constant text inputs named, at most */
#define BK_INPUTS_MAX_CONSTANT	8

typedef enum BkLeakKind
{
	BK_LEAK_NONE = 0,
	BK_LEAK_EQUAL,				/* the column holds the label's value in the rows */
	BK_LEAK_SEGMENTS,			/* the column's value decides the class */
	BK_LEAK_LINEAR				/* the column is an affine function of the target */
} BkLeakKind;

typedef struct BkInputsReport
{
	/*
	 * A regressor's target: every value integral and at most
	 * BK_INPUTS_FEW_VALUES of them (values[], ascending)
	 */
	bool		few_targets;
	int			n_targets;
	double		targets[BK_INPUTS_FEW_VALUES];

	/*
	 * The columns as the model saw them (after its preparation), when
	 * their statistics were kept (columns): the widest one's standard
	 * deviation, the narrowest non-constant one's, the largest root mean
	 * square; unscaled when they are far from standardised
	 */
	bool		columns;
	int			widest;
	double		widest_sd;
	int			narrowest;
	double		narrowest_sd;
	int			largest;
	double		largest_rms;
	bool		unscaled;

	/* a leak: the column, what it is, and its rule's share of right answers */
	BkLeakKind	leak;
	int			leak_column;
	double		leak_accuracy;	/* BK_LEAK_LINEAR: |correlation| */
	int			leak_window;	/* rows judged */

	/* text inputs of one level, present in every row (preparation's inputs) */
	int			n_constant;
	int			constant[BK_INPUTS_MAX_CONSTANT];
	bool		more_constant;
} BkInputsReport;

/* what this run saw of its inputs; m is the model of the first pass */
extern void BkModelInputsReport(BkModel *m, BkInputsReport *r);

/* a finished classifier within two points of always answering the majority */
extern bool BkInputsNearMajority(const BkRunReport *r);

/*
 * The preparation's input that column col comes from, or -1 (no
 * preparation); *level, the text level's index, or -1 for a number
 */
extern int	BkModelColumnInput(const BkModel *m, int col, int *level);

/* the run's bookkeeping (bk_run.c): each learned row, and the end */
extern void BkInputsNote(BkModel *m, const double *x, bool has_target, double t);
extern void BkInputsFree(BkModel *m);

#endif							/* BK_INPUTS_H */
