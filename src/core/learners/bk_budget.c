/*
 * bk_budget.c
 *	  What the learners share around their budget (or, unbudgeted, their
 *	  max_sv cap): room for one more SV, counting maintenance steps,
 *	  removing a random SV, and removing an SV with the row's kernel values
 *	  and the neighbour cache kept aligned with the slots.  The learners
 *	  call these instead of the model, so calls flow one way: the model
 *	  calls the learners (through the registry), never the reverse; what
 *	  the budget needs of the model above it (its encoded size, its
 *	  algorithm's name) it asks through the model's hooks.
 */
#include "bk_internal.h"

/*
 * Room for one more SV in an unbudgeted learner; reaching max_sv is an
 * error rather than a silently different algorithm.
 */
void
BkBudgetReserveUnbudgeted(BkModel *m, BkMachine *mach)
{
	/* before growing: the model as it is now must still be storable */
	if (mach->n_sv == mach->capacity)
	{
		char		err[BK_ERRMSG_LEN];
		size_t		size;

		if (!m->hooks->encoded_size(m, BK_MAX_MODEL_BYTES, &size, err, sizeof(err)))
			BkRaiseHint(&m->env, BK_ERR_LIMIT, err,
						"Lower max_sv, or use a budgeted algorithm such as \"bpa\".",
						"algorithm \"%s\" reached the largest model that pg_dump and COPY can always write (%zu MB) at %d support vectors",
						m->hooks->algorithm_name(&m->params), (size_t) BK_MAX_MODEL_BYTES >> 20,
						mach->n_sv);
	}
	if (!BkMachineReserve(&m->env, mach, m->dim, (int) m->params.max_sv))
		BkRaise(&m->env, BK_ERR_LIMIT,
				"Raise max_sv, or use a budgeted algorithm such as \"bpa\".",
				"algorithm \"%s\" reached max_sv = %lld support vectors",
				m->hooks->algorithm_name(&m->params), (long long) m->params.max_sv);
}

/* Count one budget-maintenance step of a machine. */
void
BkBudgetCountMaintenance(BkModel *m, BkMachine *mach)
{
	mach->maintenance++;
	m->maintenance++;
}

/*
 * With B SVs stored, remove one chosen uniformly at random (the model's
 * seeded generator): the maintenance of RBP and PA+Rand.
 */
void
BkBudgetRemoveRandomIfFull(BkModel *m, BkMachine *mach)
{
	if (mach->n_sv < m->params.budget)
		return;
	BkMachineRemove(mach, m->dim, (int) BkRngBelow(&m->rng, (uint64_t) mach->n_sv));
	BkBudgetCountMaintenance(m, mach);
}

/*
 * Remove SV r, keeping the row's kernel values (krow, dots) and the
 * neighbour cache aligned with the slots: the last SV moves into r, as in
 * BkMachineRemove.  work has room for n_sv doubles (the cache's repair).
 */
void
BkBudgetRemove(BkModel *m, BkMachine *mach, BkRow *row, int r, double *work)
{
	int			last = mach->n_sv - 1;

	row->krow[r] = row->krow[last];
	row->dots[r] = row->dots[last];
	if (mach->has_nearest)
		BkNearestRemove(&m->env, mach, m->dim, r, work);
	else
		BkMachineRemove(mach, m->dim, r);
}
