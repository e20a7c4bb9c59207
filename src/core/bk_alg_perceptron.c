/*
 * bk_alg_perceptron.c
 *	  The kernel perceptron (Rosenblatt 1958), the memory-unbounded
 *	  baseline of papers 000-003: on a mistake, y_t f_t(x_t) <= 0, add x_t
 *	  with coefficient y_t.  Unbudgeted, so capped by max_sv: reaching the
 *	  cap is an error rather than a silently different algorithm.
 */
#include "bk_internal.h"

bool
BkPerceptronStep(BkModel *m, BkMachine *mach, const BkRow *row)
{
	if (row->y * row->f > 0.0)
		return false;
	/* Phi(x) = 0 (a zero vector under the linear kernel) adds nothing */
	if (row->ktt <= 0.0)
		return false;
	BkModelReserveUnbudgeted(m, mach);
	BkMachineAppend(mach, m->dim, row->x, row->sqx, row->y);
	return true;
}
