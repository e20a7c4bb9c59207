/*
 * bk_prep_remap.c
 *	  Moving a model's stored vectors (its support vectors and evaluation
 *	  points) from its preparation to another of the same layout with other
 *	  statistics: the pooled preparation of a merge (bk_part_prep.c).  Each
 *	  value is taken back to its input's own units and prepared again.
 */
#include "bk_internal.h"

#include <stdio.h>

/*
 * An input that the side's preparation counted no value of (every row of
 * its fit lacked it) prepares a missing value as its fill and any value
 * as itself (center 0, scale 1: BkPrepDerive), so a stored vector that
 * holds something else there came from a row that had a value, learned
 * after the fit (bk_continue).  Such a value cannot be told from the
 * missing one in general, and the pooling would overwrite it with the
 * fill: refused, rather than merged into a different function.
 */
static void
check_unfitted_inputs(BkModel *m)
{
	const BkPrep *p = m->prep;

	for (int i = 0; i < p->n_inputs; i++)
	{
		const BkPrepInput *in = &p->inputs[i];
		/* the fill as the vectors hold it: a float4 model's, rounded */
		double		fill = in->fill;

		if (in->kind != BK_INPUT_NUMERIC || in->n != 0.0)
			continue;
		if (m->params.sv_precision == BK_SV_FLOAT4)
			(void) BkSvRound(&fill, 1);
		for (int k = 0; k < m->n_machines; k++)
		{
			const BkMachine *mach = &m->machines[k];
			bool		held = false;

			for (int j = 0; j < mach->n_sv && !held; j++)
				held = BkSvRow(mach, j)[in->offset] != fill;
			if (mach->eval)
				for (int j = 0; j < mach->eval->n && !held; j++)
					held = mach->eval->x[(size_t) j * m->dim + in->offset] != fill;
			if (!held)
				continue;
			if (in->name != NULL)
				BkRaiseHint(&m->env, BK_ERR_PARAM, NULL,
							"Merge models whose first training saw a value of every input they were later trained on, or train the merged model afresh.",
							"cannot merge: input \"%s\" had no value in the rows the preparation was fitted on, but the model was trained further on rows that have one",
							in->name);
			BkRaiseHint(&m->env, BK_ERR_PARAM, NULL,
						"Merge models whose first training saw a value of every input they were later trained on, or train the merged model afresh.",
						"cannot merge: input %d had no value in the rows the preparation was fitted on, but the model was trained further on rows that have one",
						i + 1);
		}
	}
}

/*
 * x, prepared by from, prepared by to instead (same layout); a float4
 * model's rounded to float4 again (bk_svstore.c), which raises if a value
 * leaves float4's range
 */
static void
remap_row(BkModel *m, const BkPrep *from, const BkPrep *to, double *x, int dim,
		  double *sqnorm)
{
	for (int i = 0; i < from->n_inputs; i++)
	{
		const BkPrepInput *f = &from->inputs[i];
		const BkPrepInput *t = &to->inputs[i];

		if (f->kind != BK_INPUT_NUMERIC)
			continue;
		/* a side that never saw a value of the input holds its fill: the missing value */
		if (f->n == 0.0)
			x[f->offset] = t->fill;
		else if (f->center != t->center || f->scale != t->scale)
			x[f->offset] = (x[f->offset] * f->scale + f->center - t->center) / t->scale;
	}
	if (m->params.sv_precision == BK_SV_FLOAT4 && !BkSvRound(x, dim))
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL, FLOAT4_HINT,
					"a support vector under the merged preparation is beyond float4's range");
	*sqnorm = BkDot(x, x, dim);
}

/*
 * Move m's support vectors and evaluation points from its preparation to
 * to (same layout, other statistics): each stored vector is taken back to
 * the inputs' own units and prepared again.  The learner's state that
 * depends on them is rebuilt by the merge.
 */
void
BkPrepRemapModel(BkModel *m, const BkPrep *to)
{
	const BkPrep *from = m->prep;
	int			dim = m->dim;

	check_unfitted_inputs(m);

	for (int k = 0; k < m->n_machines; k++)
	{
		BkMachine  *mach = &m->machines[k];

		for (int j = 0; j < mach->n_sv; j++)
			remap_row(m, from, to, BkSvRow(mach, j), dim, &mach->sqnorm[j]);
		BkSvSync(mach, dim, 0, mach->n_sv);
		if (mach->eval)
			for (int j = 0; j < mach->eval->n; j++)
				remap_row(m, from, to, mach->eval->x + (size_t) j * dim, dim,
						  &mach->eval->sqnorm[j]);
	}
}
