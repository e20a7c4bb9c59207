/*
 * bk_kernel.c
 *	  Kernel functions.  Every kernel is a function of x.x', ||x||^2 and
 *	  ||x'||^2, so one BLAS dgemv of x against the SV matrix gives the dot
 *	  products, and the non-linearity is applied afterwards:
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

#include <cblas.h>
#include <math.h>

/*
 * Plain dot product.  Squared norms are always computed here, so the same
 * vector gets the same norm whether it is a new row or a decoded SV.
 */
double
BkDot(const double *a, const double *b, int n)
{
	double		s = 0.0;

	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

/* x^n for a small positive integer n, by squaring */
static double
ipow(double x, int64_t n)
{
	double		r = 1.0;

	while (n > 0)
	{
		if (n & 1)
			r *= x;
		x *= x;
		n >>= 1;
	}
	return r;
}

double
BkKernelFromDot(const BkParams *p, double dot, double sqa, double sqb)
{
	switch (p->kernel)
	{
		case BK_KERNEL_RBF:
			return exp(-p->gamma * BkDist2(dot, sqa, sqb));
		case BK_KERNEL_LINEAR:
			return dot;
		case BK_KERNEL_POLY:
			return ipow(p->gamma * dot + p->coef0, p->degree);
	}
	return 0.0;
}

double
BkKernelSelf(const BkParams *p, double sq)
{
	switch (p->kernel)
	{
		case BK_KERNEL_RBF:
			return 1.0;
		case BK_KERNEL_LINEAR:
			return sq;
		case BK_KERNEL_POLY:
			return ipow(p->gamma * sq + p->coef0, p->degree);
	}
	return 0.0;
}

/* krow from the dot products of x with the machine's SVs */
static void
kernel_of_dots(const BkParams *p, const BkMachine *mach, double sqx,
			   const double *dots, double *krow)
{
	int			n = mach->n_sv;

	switch (p->kernel)
	{
		case BK_KERNEL_RBF:
			for (int i = 0; i < n; i++)
				krow[i] = exp(-p->gamma * BkDist2(dots[i], mach->sqnorm[i], sqx));
			break;
		case BK_KERNEL_LINEAR:
			for (int i = 0; i < n; i++)
				krow[i] = dots[i];
			break;
		case BK_KERNEL_POLY:
			for (int i = 0; i < n; i++)
				krow[i] = ipow(p->gamma * dots[i] + p->coef0, p->degree);
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
	cblas_dgemv(CblasRowMajor, CblasNoTrans, n, dim, 1.0, mach->sv, dim,
				x, 1, 0.0, dots, 1);
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
		const double *sv = mach->sv + (size_t) i * dim - 1;	/* 1-based */
		double		s = 0.0;

		for (int k = 0; k < nnz; k++)
			s += sv[idx[k]] * val[k];
		dots[i] = s;
	}
	kernel_of_dots(p, mach, sqx, dots, krow);
}
