/*
 * bk_model_union.c
 *	  Before two models whose preparations differ in keys or text values
 *	  are merged (BkModelMerge): both are re-laid into the union of their
 *	  preparations (bk_prep_union.c says what each column of the union
 *	  holds for the side that lacked it), so that the merge proceeds as
 *	  for one layout: the statistics pooled, every vector moved into the
 *	  pooled preparation (bk_part_prep.c), the learner's state rebuilt
 *	  (bk_model_merge.c).
 *
 *	  Everything of the model sized by its dimension follows: every
 *	  machine's SVs and evaluation points (BkMachineRelayout), the rows
 *	  this run keeps for its report (BkRunRelayout), and the point a
 *	  merge of two SVs builds (allocated again at the new size when next
 *	  needed).  Nothing else holds a column.
 */
#include "bk_internal.h"

#include <stdio.h>

/* m into the layout of u (m's preparation has a subset of its keys and levels) */
static void
relayout(BkModel *m, const BkPrep *u)
{
	int		   *map;
	double	   *fill;
	BkPrep	   *side;

	if (BkPrepSameLayout(m->prep, u))
		return;					/* already so: the pooling moves its values */
	map = BkAllocArray(&m->env, (size_t) m->dim, sizeof(int));
	fill = BkAllocArray(&m->env, (size_t) u->dim, sizeof(double));
	side = BkPrepUnionSide(&m->env, u, m->prep, map, fill);
	if (m->params.sv_precision == BK_SV_FLOAT4 && !BkSvRound(fill, u->dim))
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL, FLOAT4_HINT,
					"a value of the merged preparation is beyond float4's range");
	for (int k = 0; k < m->n_machines; k++)
		BkMachineRelayout(&m->env, &m->machines[k], m->dim, u->dim, map, fill);
	BkRunRelayout(m, u->dim, map, fill);
	BkFree(&m->env, m->merge_point);
	m->merge_point = NULL;
	BkFree(&m->env, m->float4_row);
	m->float4_row = NULL;
	m->dim = u->dim;
	BkModelSetPrep(m, side);
	BkFree(&m->env, fill);
	BkFree(&m->env, map);
}

void
BkModelUnionLayout(BkModel *a, BkModel *b)
{
	const BkEnv *env = &a->env;
	char		err[BK_ERRMSG_LEN];
	int			n_classes = a->n_classes > b->n_classes ? a->n_classes : b->n_classes;
	BkPrep	   *u;

	if (a->prep == NULL || b->prep == NULL || BkPrepSameLayout(a->prep, b->prep))
		return;
	u = BkPrepUnion(env, a->prep, b->prep);
	/* the limits of the wider model, before either changes */
	if (!BkModelCheckSizeClasses(&a->params, u->dim, n_classes, a->env.max_alloc,
								 err, sizeof(err)) ||
		!BkModelCheckSizeClasses(&b->params, u->dim, n_classes, b->env.max_alloc,
								 err, sizeof(err)))
	{
		int			dim = u->dim;

		BkPrepFree(env, u);
		BkRaiseHint(env, BK_ERR_LIMIT, NULL,
					"The merged preparation has every key and text value of both models.",
					"cannot merge: with the union of both preparations (%d columns), %s",
					dim, err);
	}
	relayout(a, u);
	relayout(b, u);
	BkPrepFree(env, u);
}
