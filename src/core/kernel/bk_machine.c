/*
 * bk_machine.c
 *	  A machine's life: its allocation, growth by doubling and copy, with
 *	  every per-SV cache it carries (the neighbour cache, K^-1, the
 *	  evaluation set) growing and copied together.  The SV store itself
 *	  (bk_svstore.c) knows none of those caches, so they may use it.
 */
#include "bk_internal.h"

#include <stdint.h>
#include <string.h>

/*
 * The SV matrix starts on a 64-byte boundary: every kernel row is a pass
 * over it (BkLinGemv), whose vector loads are then aligned for rows of a
 * stride that is a multiple of 8 doubles; the bits do not depend on it.
 * Room for capacity x dim doubles and the shift to the boundary.
 */
#define SV_ALIGN 64

static void
alloc_sv(const BkEnv *env, BkMachine *mach, size_t cells)
{
	uintptr_t	p;

	mach->sv_block = BkAllocArray(env, cells + SV_ALIGN / sizeof(double), sizeof(double));
	p = (uintptr_t) mach->sv_block;
	mach->sv = (double *) ((p + SV_ALIGN - 1) & ~(uintptr_t) (SV_ALIGN - 1));
}

/* the float4 copy of the SV matrix (sv_float4), zero, aligned as sv is */
static void
alloc_sv32(const BkEnv *env, BkMachine *mach, size_t cells)
{
	uintptr_t	p;

	mach->sv32_block = BkAllocArray(env, cells + SV_ALIGN / sizeof(float), sizeof(float));
	memset(mach->sv32_block, 0, (cells + SV_ALIGN / sizeof(float)) * sizeof(float));
	p = (uintptr_t) mach->sv32_block;
	mach->sv32 = (float *) ((p + SV_ALIGN - 1) & ~(uintptr_t) (SV_ALIGN - 1));
}

/*
 * The SV matrix from old_cells to new_cells values, the new ones zero: in a
 * new aligned block, as realloc would keep the old block's offset.  Its
 * float4 copy, if it keeps one, grows with it.
 */
static void
grow_sv(const BkEnv *env, BkMachine *mach, size_t old_cells, size_t new_cells)
{
	void	   *old_block = mach->sv_block;
	const double *old_sv = mach->sv;

	alloc_sv(env, mach, new_cells);
	if (old_cells > 0)
		memcpy(mach->sv, old_sv, old_cells * sizeof(double));
	memset(mach->sv + old_cells, 0, (new_cells - old_cells) * sizeof(double));
	BkFree(env, old_block);
	if (mach->sv_float4)
	{
		void	   *old32_block = mach->sv32_block;
		const float *old32 = mach->sv32;

		alloc_sv32(env, mach, new_cells);
		if (old_cells > 0)
			memcpy(mach->sv32, old32, old_cells * sizeof(float));
		BkFree(env, old32_block);
	}
}

void
BkMachineKeepFloat4(const BkEnv *env, BkMachine *mach)
{
	if (mach->sv_float4)
		return;
	mach->sv_float4 = true;
	if (mach->capacity == 0)
		return;					/* BkMachineGrow allocates it */
	alloc_sv32(env, mach, (size_t) mach->capacity * (size_t) mach->sv_ld);
}

void
BkMachineInit(const BkEnv *env, BkMachine *mach, int dim, int n_coef,
			  int capacity)
{
	size_t		cells;

	memset(mach, 0, sizeof(*mach));
	mach->sv_ld = BkSvStride(dim);
	if (!BkMulSize((size_t) capacity, (size_t) mach->sv_ld, &cells))
		BkRaise(env, BK_ERR_LIMIT, NULL, "support vector matrix too large");
	mach->scale = 1.0;
	mach->n_coef = n_coef;
	mach->capacity = capacity;
	/* an empty machine decoded to score holds nothing (BkMachineGrow adds) */
	if (capacity == 0)
		return;
	alloc_sv(env, mach, cells);
	mach->sqnorm = BkAllocArray(env, (size_t) capacity, sizeof(double));
	mach->coef = BkAllocArray(env, (size_t) capacity * n_coef, sizeof(double));
}

void
BkMachineFree(const BkEnv *env, BkMachine *mach)
{
	BkFree(env, mach->sv_block);
	BkFree(env, mach->sv32_block);
	BkFree(env, mach->sqnorm);
	BkFree(env, mach->coef);
	if (mach->has_nearest)
	{
		BkFree(env, mach->nearest.idx);
		BkFree(env, mach->nearest.dist2);
		BkFree(env, mach->nearest.rbf_arg);
		BkFree(env, mach->nearest.rbf);
	}
	if (mach->has_ginv)
		BkGramFree(env, &mach->ginv);
	BkFree(env, mach->sv_scores);
	BkFree(env, mach->born);
	BkEvalFree(env, mach);
	memset(mach, 0, sizeof(*mach));
}

/* Grow a block of old_n elements to new_n, the new ones zero. */
static void *
grow_zeroed(const BkEnv *env, void *ptr, size_t old_n, size_t new_n,
			size_t elsize)
{
	char	   *p = BkReallocArray(env, ptr, new_n, elsize);

	memset(p + old_n * elsize, 0, (new_n - old_n) * elsize);
	return p;
}

/*
 * Room for newcap SVs (more than now): the vectors, norms, coefficients
 * and every per-SV piece of bookkeeping (born, SV scores, the neighbour
 * cache, K^-1, the evaluation set's kernel values) grow together, the new
 * slots zero.  Machines start small and grow by doubling as SVs arrive,
 * budgeted ones up to the budget, so a training state holds what it uses
 * (its full size is checked against the limits before the first row).
 */
void
BkMachineGrow(const BkEnv *env, BkMachine *mach, int dim, int newcap)
{
	size_t		old = (size_t) mach->capacity;
	size_t		cap = (size_t) newcap;

	grow_sv(env, mach, old * mach->sv_ld, cap * mach->sv_ld);
	mach->sqnorm = grow_zeroed(env, mach->sqnorm, old, cap, sizeof(double));
	mach->coef = grow_zeroed(env, mach->coef, old * mach->n_coef,
							 cap * mach->n_coef, sizeof(double));
	if (mach->born)
		mach->born = grow_zeroed(env, mach->born, old, cap, sizeof(uint64_t));
	if (mach->sv_scores)
		mach->sv_scores = grow_zeroed(env, mach->sv_scores, old, cap, sizeof(double));
	if (mach->has_nearest)
	{
		mach->nearest.idx = grow_zeroed(env, mach->nearest.idx, old, cap,
										sizeof(int32_t));
		mach->nearest.dist2 = grow_zeroed(env, mach->nearest.dist2, old, cap,
										  sizeof(double));
		mach->nearest.rbf_arg = BkReallocArray(env, mach->nearest.rbf_arg, cap,
											   sizeof(double));
		mach->nearest.rbf = BkReallocArray(env, mach->nearest.rbf, cap,
										   sizeof(double));
		BkNearestForget(mach, (int) old, newcap);
	}
	if (mach->has_ginv)
		BkGramGrow(env, &mach->ginv, newcap + 1);
	/* k(sv_j, e_k): one row of the evaluation set's capacity per SV */
	if (mach->eval)
		mach->eval->kv = grow_zeroed(env, mach->eval->kv, old * mach->eval->cap,
									 cap * mach->eval->cap, sizeof(double));
	mach->capacity = newcap;
}

/*
 * Room for one more SV, growing by doubling up to limit (from 16 slots at
 * least); false if limit SVs are stored already.
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
	BkMachineGrow(env, mach, dim, newcap);
	return true;
}

/*
 * dst = src with every coefficient multiplied by sign (one-vs-rest:
 * "class 0 versus the rest" is the negated binary machine).
 */
void
BkMachineCopy(const BkEnv *env, BkMachine *dst, const BkMachine *src, int dim,
			  double sign)
{
	size_t		n = (size_t) src->capacity;

	BkMachineInit(env, dst, dim, src->n_coef, src->capacity);
	dst->n_sv = src->n_sv;
	dst->scale = src->scale;
	dst->degradation = src->degradation;
	dst->wnorm2 = src->wnorm2;
	dst->updates = src->updates;
	dst->maintenance = src->maintenance;
	memcpy(dst->sv, src->sv, sizeof(double) * n * (size_t) src->sv_ld);
	if (src->sv_float4)
	{
		BkMachineKeepFloat4(env, dst);
		BkSvSync(dst, dim, 0, dst->n_sv);
	}
	memcpy(dst->sqnorm, src->sqnorm, sizeof(double) * n);
	for (size_t i = 0; i < n * src->n_coef; i++)
		dst->coef[i] = sign * src->coef[i];
	if (src->has_nearest)
	{
		BkNearestInit(env, dst, src->capacity);
		memcpy(dst->nearest.idx, src->nearest.idx, sizeof(int32_t) * n);
		memcpy(dst->nearest.dist2, src->nearest.dist2, sizeof(double) * n);
	}
	if (src->sv_scores)
	{
		dst->sv_scores = BkAllocArray(env, n, sizeof(double));
		for (size_t i = 0; i < n; i++)
			dst->sv_scores[i] = sign * src->sv_scores[i];
	}
	if (src->eval)
		BkEvalCopy(env, dst, src, dim, sign);
	if (src->born)
	{
		dst->born = BkAllocArray(env, n, sizeof(uint64_t));
		memcpy(dst->born, src->born, sizeof(uint64_t) * n);
	}
	if (src->has_ginv)
	{
		dst->has_ginv = true;
		BkGramInit(env, &dst->ginv, src->ginv.cap);
		memcpy(dst->ginv.m, src->ginv.m,
			   sizeof(double) * (size_t) src->ginv.cap * src->ginv.cap);
		dst->ginv.n = src->ginv.n;
		dst->ginv.since_refresh = src->ginv.since_refresh;
		dst->ginv.ridge = src->ginv.ridge;
	}
}

/*
 * The rows of x (n rows of old_dim values, old_ld apart) re-laid into y
 * (n rows, new_ld apart, zeroed): y = fill, then y[map[c]] = x[c]; norms
 * recomputed into sqnorm.
 */
static void
relay_rows(const double *x, int n, int old_dim, size_t old_ld, double *y,
		   int new_dim, size_t new_ld, const int *map, const double *fill,
		   double *sqnorm)
{
	for (int j = 0; j < n; j++)
	{
		const double *src = x + (size_t) j * old_ld;
		double	   *dst = y + (size_t) j * new_ld;

		memcpy(dst, fill, sizeof(double) * (size_t) new_dim);
		for (int c = 0; c < old_dim; c++)
			dst[map[c]] = src[c];
		sqnorm[j] = BkDot(dst, dst, new_dim);
	}
}

/*
 * The machine's vectors (its SVs and its evaluation points) from old_dim
 * to new_dim columns: column c moves to map[c] (distinct columns), every
 * other column takes fill's value.  The kernel caches (neighbours, K^-1,
 * scores, the evaluation set's kernel values) are kept: they stay right
 * when the columns added are 0, and a merge rebuilds them anyway.
 */
void
BkMachineRelayout(const BkEnv *env, BkMachine *mach, int old_dim, int new_dim,
				  const int *map, const double *fill)
{
	int			ld = BkSvStride(new_dim);
	size_t		cells;

	if (!BkMulSize((size_t) mach->capacity, (size_t) ld, &cells))
		BkRaise(env, BK_ERR_LIMIT, NULL, "support vector matrix too large");
	if (mach->capacity > 0)
	{
		void	   *old_block = mach->sv_block;
		const double *old_sv = mach->sv;

		alloc_sv(env, mach, cells);
		relay_rows(old_sv, mach->n_sv, old_dim, (size_t) mach->sv_ld, mach->sv,
				   new_dim, (size_t) ld, map, fill, mach->sqnorm);
		BkFree(env, old_block);
	}
	mach->sv_ld = ld;
	if (mach->sv_float4 && mach->capacity > 0)
	{
		BkFree(env, mach->sv32_block);
		alloc_sv32(env, mach, cells);
		BkSvSync(mach, new_dim, 0, mach->n_sv);
	}
	if (mach->eval)
	{
		BkEvalSet  *e = mach->eval;
		double	   *x = BkAllocArray(env, (size_t) e->cap * (size_t) new_dim + 1,
									 sizeof(double));

		relay_rows(e->x, e->n, old_dim, (size_t) old_dim, x, new_dim,
				   (size_t) new_dim, map, fill, e->sqnorm);
		BkFree(env, e->x);
		e->x = x;
	}
}
