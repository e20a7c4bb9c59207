/*
 * bk_kernel.c
 *	  Kernel functions.  Every kernel is a function of x.x', ||x||^2 and
 *	  ||x'||^2, so one fixed-order matrix-vector product of the SV matrix
 *	  and x (BkLinGemv) gives the dot products, and the non-linearity is
 *	  applied afterwards (exp from bk_fmath.c):
 *
 *	  rbf     k(x, x') = exp(-gamma ||x - x'||^2),
 *	          ||x - x'||^2 = ||x||^2 + ||x'||^2 - 2 x.x' (clamped at 0)
 *	  linear  k(x, x') = x.x'
 *	  poly    k(x, x') = (gamma x.x' + coef0)^degree
 *
 *	  The papers write the RBF width as exp(-||x - x'||^2 / 2 sigma^2):
 *	  gamma = 1 / (2 sigma^2).
 */
#include "bk_internal.h"

#include <math.h>
#include <string.h>

double
BkKernelFromDot(const BkParams *p, double dot, double sqa, double sqb)
{
	switch (p->kernel)
	{
		case BK_KERNEL_RBF:
			return BkExp(-p->gamma * BkDist2(dot, sqa, sqb));
		case BK_KERNEL_LINEAR:
			return dot;
		case BK_KERNEL_POLY:
			return BkIpow(p->gamma * dot + p->coef0, p->degree);
	}
	return 0.0;
}

#ifdef BK_VECTOR_AVX2
/*
 * krow[i] = exp(-gamma max(sqnorm[i] + sqx - 2 dots[i], 0)), four at a
 * time: the same operations, in the same order, as the scalar loop of
 * kernel_of_dots (compiled for "avx2" without "fma", the compiler cannot
 * fuse them into FMAs), and BkExp4 is BkExp in each lane, so the values are
 * the same bits on either path.
 */
__attribute__((target("avx2")))
static void
rbf_of_dots_avx2(double gamma, const double *sqnorm, double sqx,
				 const double *dots, double *krow, int n)
{
	const bk_v4d ng = {-gamma, -gamma, -gamma, -gamma};
	const bk_v4d sx = {sqx, sqx, sqx, sqx};
	int			i = 0;

	for (; i + 4 <= n; i += 4)
	{
		bk_v4d		sq,
					dot,
					d;

		memcpy(&sq, sqnorm + i, sizeof(sq));
		memcpy(&dot, dots + i, sizeof(dot));
		d = BkExp4(ng * BkDist2x4(dot, sq, sx));
		memcpy(krow + i, &d, sizeof(d));
	}
	for (; i < n; i++)
		krow[i] = BkExp(-gamma * BkDist2(dots[i], sqnorm[i], sqx));
}
#endif

/* krow from the dot products of x with the machine's SVs */
static void
kernel_of_dots(const BkParams *p, const BkMachine *mach, double sqx,
			   const double *dots, double *krow)
{
	int			n = mach->n_sv;

	switch (p->kernel)
	{
		case BK_KERNEL_RBF:
#ifdef BK_VECTOR_AVX2
			if (BkVectorLanes())
			{
				rbf_of_dots_avx2(p->gamma, mach->sqnorm, sqx, dots, krow, n);
				break;
			}
#endif
			for (int i = 0; i < n; i++)
				krow[i] = -p->gamma * BkDist2(dots[i], mach->sqnorm[i], sqx);
			BkExpArray(krow, n);
			break;
		case BK_KERNEL_LINEAR:
			for (int i = 0; i < n; i++)
				krow[i] = dots[i];
			break;
		case BK_KERNEL_POLY:
			for (int i = 0; i < n; i++)
				krow[i] = BkIpow(p->gamma * dots[i] + p->coef0, p->degree);
			break;
	}
}

void
BkKernelRow(const BkParams *p, const BkMachine *mach, int dim,
			const double *x, double sqx, double *dots, double *krow)
{
	int			n = mach->n_sv;

	if (n == 0)
		return;
	BkMachineDots(mach, n, dim, x, dots);
	kernel_of_dots(p, mach, sqx, dots, krow);
}

/*
 * A sparse row: each dot product gathers the SV's values at the row's
 * indices, O(n nnz) instead of the dense O(n dim)
 */
void
BkKernelRowSparse(const BkParams *p, const BkMachine *mach, int dim,
				  const int32_t *idx, const double *val, int nnz,
				  double sqx, double *dots, double *krow)
{
	int			n = mach->n_sv;

	if (n == 0)
		return;
	for (int i = 0; i < n; i++)
	{
		const double *sv = BkSvRow(mach, i) - 1;	/* 1-based */
		double		s = 0.0;

		for (int k = 0; k < nnz; k++)
			s += sv[idx[k]] * val[k];
		dots[i] = s;
	}
	kernel_of_dots(p, mach, sqx, dots, krow);
}
