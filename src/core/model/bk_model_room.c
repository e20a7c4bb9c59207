/*
 * bk_model_room.c
 *	  What a model checks before it grows: room under the allocation limit
 *	  for one more class, room in its 64-bit counters for more rows.  A
 *	  model whose counters are full (only crafted bytes get there: 2^64 - 1
 *	  rows) is refused with BK_ERR_LIMIT, as the merge refuses counts that
 *	  would overflow (bk_model_merge.c), never wrapped around.
 */
#include "bk_internal.h"

/* Error out before a new class would take the model past the limit. */
void
BkModelCheckClassRoom(BkModel *m, int n_classes)
{
	char		err[BK_ERRMSG_LEN];

	if (!BkModelCheckSizeClasses(&m->params, m->dim, n_classes, m->env.max_alloc,
								 err, sizeof(err)))
		BkRaise(&m->env, BK_ERR_LIMIT, NULL, "%s", err);
}

/*
 * Error out before n more rows (seen or skipped) would overflow a counter:
 * the rows seen and skipped, their sum, and the budget maintenance, which
 * may count one step per machine and row.
 */
void
BkModelCheckRowRoom(const BkModel *m, uint64_t n)
{
	uint64_t	rows = m->rows_seen + m->rows_skipped;
	uint64_t	machines = m->n_machines > 0 ? (uint64_t) m->n_machines : 1;

	if (rows < m->rows_seen || n > UINT64_MAX - rows ||
		m->maintenance > UINT64_MAX - machines)
		BkRaiseHint(&m->env, BK_ERR_LIMIT, NULL,
					"Train a new model: bk_train over the rows.",
					"cannot train further: the model's counts of rows are at their maximum");
}

void
BkModelSkip(BkModel *m, uint64_t n)
{
	BkModelCheckRowRoom(m, n);
	m->rows_skipped += n;
}
