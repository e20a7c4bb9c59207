/*
 * bk_svstore.c
 *	  The support vectors of one kernel expansion: a contiguous row-major
 *	  capacity x dim matrix, the cached squared norms and the coefficients.
 */
#include "bk_internal.h"

#include <string.h>

void
BkMachineInit(const BkEnv *env, BkMachine *mach, int dim, int n_coef,
			  int capacity)
{
	size_t		cells;

	memset(mach, 0, sizeof(*mach));
	if (!BkMulSize((size_t) capacity, (size_t) dim, &cells))
		BkRaise(env, BK_ERR_LIMIT, NULL, "support vector matrix too large");
	mach->n_coef = n_coef;
	mach->capacity = capacity;
	mach->sv = BkAllocArray(env, cells, sizeof(double));
	mach->sqnorm = BkAllocArray(env, (size_t) capacity, sizeof(double));
	mach->coef = BkAllocArray(env, (size_t) capacity * n_coef, sizeof(double));
}

void
BkMachineFree(const BkEnv *env, BkMachine *mach)
{
	BkFree(env, mach->sv);
	BkFree(env, mach->sqnorm);
	BkFree(env, mach->coef);
	if (mach->has_nearest)
	{
		BkFree(env, mach->nearest.idx);
		BkFree(env, mach->nearest.dist2);
	}
	if (mach->has_ginv)
		BkFree(env, mach->ginv.m);
	memset(mach, 0, sizeof(*mach));
}

/*
 * Room for one more SV.  Unbudgeted learners grow by doubling up to their
 * cap; budgeted ones are allocated at the budget once and never grow.
 */
bool
BkMachineReserve(const BkEnv *env, BkMachine *mach, int dim, int limit)
{
	int			newcap;

	if (mach->n_sv < mach->capacity)
		return true;
	if (mach->n_sv >= limit)
		return false;
	newcap = mach->capacity < limit / 2 ? mach->capacity * 2 : limit;
	if (newcap < 16 && limit >= 16)
		newcap = 16;
	if (newcap > limit)
		newcap = limit;
	mach->sv = BkReallocArray(env, mach->sv, (size_t) newcap * dim, sizeof(double));
	mach->sqnorm = BkReallocArray(env, mach->sqnorm, newcap, sizeof(double));
	mach->coef = BkReallocArray(env, mach->coef, (size_t) newcap * mach->n_coef,
								sizeof(double));
	mach->capacity = newcap;
	return true;
}

int
BkMachineAppend(BkMachine *mach, int dim, const double *x, double sqx,
				double coef)
{
	int			i = mach->n_sv++;

	BkMachineReplace(mach, dim, i, x, sqx, coef);
	return i;
}

void
BkMachineReplace(BkMachine *mach, int dim, int r, const double *x,
				 double sqx, double coef)
{
	memcpy(mach->sv + (size_t) r * dim, x, sizeof(double) * dim);
	mach->sqnorm[r] = sqx;
	mach->coef[(size_t) r * mach->n_coef] = coef;
	for (int c = 1; c < mach->n_coef; c++)
		mach->coef[(size_t) r * mach->n_coef + c] = 0.0;
}

/* f(x) = sum_i alpha_i k(sv_i, x) of a binary machine (eq. 5) */
double
BkMachineScore(const BkMachine *mach, const double *krow)
{
	double		f = 0.0;

	for (int i = 0; i < mach->n_sv; i++)
		f += mach->coef[(size_t) i * mach->n_coef] * krow[i];
	return f;
}
