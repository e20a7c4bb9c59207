/*
 * bk_evalset.c
 *	  The evaluation set of the Tighter Budget Perceptron (paper 003 §3.2):
 *	  rows with their label, their score f(e_k) under the current expansion
 *	  and the kernel values k(sv_j, e_k) with every SV.  Adding an SV costs
 *	  one BkLinGemv over the set (O(q d)); removing one, O(q); choosing which SV
 *	  to remove, O(B q) with no kernel evaluation.
 *
 *	  Layout: points in slots 0..n-1 (removal moves the last into the gap,
 *	  as the SV store does); kv is (SV capacity) x cap, row j for SV j.
 */
#include "bk_internal.h"

#include <string.h>

#define KV(e, j, k) ((e)->kv[(size_t) (j) * (e)->cap + (k)])

void
BkEvalInit(const BkEnv *env, BkMachine *mach, int cap, int dim)
{
	BkEvalSet  *e = BkAllocArray(env, 1, sizeof(BkEvalSet));

	e->cap = cap;
	e->x = BkAllocArray(env, (size_t) cap * dim, sizeof(double));
	e->sqnorm = BkAllocArray(env, (size_t) cap, sizeof(double));
	e->y = BkAllocArray(env, (size_t) cap, sizeof(double));
	e->f = BkAllocArray(env, (size_t) cap, sizeof(double));
	e->pred = BkAllocArray(env, (size_t) cap, sizeof(double));
	e->flips = BkAllocArray(env, (size_t) cap, sizeof(uint64_t));
	e->since = BkAllocArray(env, (size_t) cap, sizeof(uint64_t));
	e->kv = BkAllocArray(env, (size_t) mach->capacity * cap, sizeof(double));
	e->work = BkAllocArray(env, (size_t) cap, sizeof(double));
	mach->eval = e;
}

void
BkEvalFree(const BkEnv *env, BkMachine *mach)
{
	BkEvalSet  *e = mach->eval;

	if (e == NULL)
		return;
	BkFree(env, e->x);
	BkFree(env, e->sqnorm);
	BkFree(env, e->y);
	BkFree(env, e->f);
	BkFree(env, e->pred);
	BkFree(env, e->flips);
	BkFree(env, e->since);
	BkFree(env, e->kv);
	BkFree(env, e->work);
	BkFree(env, e);
	mach->eval = NULL;
}

/*
 * dst's set = src's with labels and scores multiplied by sign (one-vs-rest
 * turns the binary machine f into -f for class 0).
 */
void
BkEvalCopy(const BkEnv *env, BkMachine *dst, const BkMachine *src, int dim,
		   double sign)
{
	const BkEvalSet *s = src->eval;
	BkEvalSet  *d;

	BkEvalInit(env, dst, s->cap, dim);
	d = dst->eval;
	d->n = s->n;
	d->offered = s->offered;
	memcpy(d->x, s->x, sizeof(double) * (size_t) s->cap * dim);
	memcpy(d->sqnorm, s->sqnorm, sizeof(double) * (size_t) s->cap);
	memcpy(d->flips, s->flips, sizeof(uint64_t) * (size_t) s->cap);
	memcpy(d->since, s->since, sizeof(uint64_t) * (size_t) s->cap);
	memcpy(d->kv, s->kv, sizeof(double) * (size_t) src->capacity * s->cap);
	for (int k = 0; k < s->cap; k++)
	{
		d->y[k] = sign * s->y[k];
		d->f[k] = sign * s->f[k];
		d->pred[k] = sign * s->pred[k];
	}
}

/*
 * A row joins the set: label y, score f, and krow[j] = k(sv_j, x) for the
 * machine's current SVs; t is its row number.
 */
void
BkEvalAddPoint(BkMachine *mach, int dim, const double *x, double sqx, double y,
			   double f, const double *krow, uint64_t t)
{
	BkEvalSet  *e = mach->eval;
	int			k = e->n++;

	memcpy(e->x + (size_t) k * dim, x, sizeof(double) * dim);
	e->sqnorm[k] = sqx;
	e->y[k] = y;
	e->f[k] = f;
	e->pred[k] = f > 0.0 ? 1.0 : -1.0;
	e->flips[k] = 0;
	e->since[k] = t;
	for (int j = 0; j < mach->n_sv; j++)
		KV(e, j, k) = krow[j];
}

/* Point k leaves the set; the last point takes its slot. */
void
BkEvalRemovePoint(BkMachine *mach, int dim, int k)
{
	BkEvalSet  *e = mach->eval;
	int			last = --e->n;

	if (k == last)
		return;
	memcpy(e->x + (size_t) k * dim, e->x + (size_t) last * dim, sizeof(double) * dim);
	e->sqnorm[k] = e->sqnorm[last];
	e->y[k] = e->y[last];
	e->f[k] = e->f[last];
	e->pred[k] = e->pred[last];
	e->flips[k] = e->flips[last];
	e->since[k] = e->since[last];
	for (int j = 0; j < mach->n_sv; j++)
		KV(e, j, k) = KV(e, j, last);
}

/*
 * SV slot j now holds x with coefficient a (just appended): its kernel
 * values with the set, and every score gains a k(x, e_k).
 */
void
BkEvalOnAddSv(const BkParams *p, BkMachine *mach, int dim, int j,
			  const double *x, double sqx, double a)
{
	BkEvalSet  *e = mach->eval;
	double	   *work = e->work;

	if (e->n == 0)
		return;
	BkLinGemv(e->n, dim, e->x, dim, x, work);
	for (int k = 0; k < e->n; k++)
	{
		double		kv = BkKernelFromDot(p, work[k], e->sqnorm[k], sqx);

		KV(e, j, k) = kv;
		e->f[k] += a * kv;
	}
}

/*
 * SV i (coefficient a) is about to leave, and the last SV will take its
 * slot: every score loses a k(sv_i, e_k), and the kernel values follow the
 * move.  Call before BkMachineRemove.
 */
void
BkEvalOnRemoveSv(BkMachine *mach, int i, double a)
{
	BkEvalSet  *e = mach->eval;
	int			last = mach->n_sv - 1;

	for (int k = 0; k < e->n; k++)
		e->f[k] -= a * KV(e, i, k);
	if (i != last)
		memcpy(e->kv + (size_t) i * e->cap, e->kv + (size_t) last * e->cap,
			   sizeof(double) * e->n);
}

/* Count the points whose predicted label changed since the last count. */
void
BkEvalCountFlips(BkMachine *mach)
{
	BkEvalSet  *e = mach->eval;

	for (int k = 0; k < e->n; k++)
	{
		double		s = e->f[k] > 0.0 ? 1.0 : -1.0;

		if (s != e->pred[k])
			e->flips[k]++;
		e->pred[k] = s;
	}
}

/*
 * The SV whose removal makes the fewest errors on the set (paper 003 Fig. 3
 * step 1a): argmin_j sum_k L(y_k, sign(f(e_k) - alpha_j y_j k(x_j, e_k))),
 * L the 0-1 loss.  O(B q).
 */
int
BkEvalBestRemoval(const BkMachine *mach)
{
	const BkEvalSet *e = mach->eval;
	int			best = 0;
	long		besterr = -1;

	for (int j = 0; j < mach->n_sv; j++)
	{
		double		a = mach->coef[j];
		long		err = 0;

		for (int k = 0; k < e->n; k++)
		{
			double		v = e->f[k] - a * KV(e, j, k);

			err += (v > 0.0 ? 1.0 : -1.0) != e->y[k];
		}
		if (besterr < 0 || err < besterr)
		{
			best = j;
			besterr = err;
		}
	}
	return best;
}
