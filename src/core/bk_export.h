/*
 * bk_export.h
 *	  What the exports of a model to other formats share (format/): the
 *	  model's scores as one kernel expansion over all its support vectors
 *	  (bk_expansion.c), and the writers of each format.
 */
#ifndef BK_EXPORT_H
#define BK_EXPORT_H

#include "bk_internal.h"

/*
 * The scores of a model as one kernel expansion: every SV of every
 * machine, with one coefficient per output column, such that column c of
 * a row x is sum_j coef[j * n_out + c] k(x, sv[j]) as the model computes
 * it (BkModelSvCoef: the machine's scale and an averaged output's
 * weights included).  A classifier's columns are its class scores (as
 * BkModelScores), a regressor's and a novelty detector's one column is
 * f(x) before its target's scale or its threshold.  decision (n_sv
 * values, a classifier of two classes only, else NULL): the coefficients
 * of BkModelDecision's signed score.
 */
typedef struct BkExpansion
{
	int			n_sv;
	int			dim;
	int			n_out;
	const double **sv;			/* n_sv rows of dim values */
	double	   *sqnorm;			/* ||sv_j||^2 as the model keeps it */
	double	   *coef;			/* n_sv x n_out */
	double	   *decision;
	/*
	 * what each output column adds (a classifier's bias, bk_part_bias.c),
	 * or NULL; decision_offset, what the signed score adds
	 */
	const double *offset;
	double		decision_offset;
} BkExpansion;

extern void BkExpansionOf(BkModel *m, BkExpansion *e);
extern void BkExpansionFree(const BkModel *m, BkExpansion *e);

/* the formats (bk_export.c dispatches): the bytes, allocated through m's env */
extern uint8_t *BkExportLibsvm(BkModel *m, size_t *len);
extern uint8_t *BkExportOnnx(BkModel *m, size_t *len);
/* bk_import_libsvm.c */
extern BkModel *BkImportLibsvm(const BkEnv *env, const char *text, size_t len,
							   int dim);

#endif							/* BK_EXPORT_H */
