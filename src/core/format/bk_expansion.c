/*
 * bk_expansion.c
 *	  A model's scores as one kernel expansion over all its support
 *	  vectors (bk_export.h), for the exports: a binary machine f gives the
 *	  class scores -f and f, one-vs-rest machines a column each, Pegasos's
 *	  one machine a coefficient per class.
 */
#include "bk_export.h"
#include "bk_learner.h"

void
BkExpansionOf(BkModel *m, BkExpansion *e)
{
	const BkLearner *L = BkLearnerOf(&m->params);
	bool		classifier = m->target == NULL && m->novelty == NULL;
	int			j = 0;

	e->dim = m->dim;
	e->n_out = classifier ? m->n_classes : 1;
	e->n_sv = 0;
	for (int k = 0; k < m->n_machines; k++)
		e->n_sv += m->machines[k].n_sv;
	e->sv = BkAllocArray(&m->env, (size_t) e->n_sv + 1, sizeof(double *));
	e->sqnorm = BkAllocArray(&m->env, (size_t) e->n_sv + 1, sizeof(double));
	e->coef = BkAllocArray(&m->env, ((size_t) e->n_sv + 1) * (size_t) (e->n_out > 0 ? e->n_out : 1),
						   sizeof(double));
	e->decision = NULL;
	e->offset = classifier ? m->bias : NULL;
	/* BkModelDecision: f, the second class's score, of a binary machine */
	e->decision_offset = e->offset != NULL && m->n_classes == 2 ? m->bias[1] : 0.0;
	if (classifier && m->n_classes == 2)
		e->decision = BkAllocArray(&m->env, (size_t) e->n_sv + 1, sizeof(double));

	for (int k = 0; k < m->n_machines; k++)
	{
		const BkMachine *mach = &m->machines[k];

		for (int i = 0; i < mach->n_sv; i++, j++)
		{
			double	   *row = e->coef + (size_t) j * (size_t) e->n_out;

			e->sv[j] = BkSvRow(mach, i);
			e->sqnorm[j] = mach->sqnorm[i];
			if (!classifier)
				row[0] = BkModelSvCoef(m, k, i, 0);
			else if (L->multiclass)
			{
				/* a class beyond the machine's columns scores 0 */
				for (int c = 0; c < m->n_classes && c < mach->n_coef; c++)
					row[c] = BkModelSvCoef(m, k, i, c);
				if (e->decision)
					e->decision[j] = (mach->n_coef > 1 ? row[1] : 0.0) - row[0];
			}
			else if (m->n_machines == 1)
			{
				double		a = BkModelSvCoef(m, k, i, 0);

				row[0] = -a;
				if (m->n_classes > 1)
					row[1] = a;
				if (e->decision)
					e->decision[j] = a;
			}
			else
				row[k] = BkModelSvCoef(m, k, i, 0);
		}
	}
}

void
BkExpansionFree(const BkModel *m, BkExpansion *e)
{
	BkFree(&m->env, e->sv);
	BkFree(&m->env, e->sqnorm);
	BkFree(&m->env, e->coef);
	BkFree(&m->env, e->decision);
}
