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

#include <math.h>
#include <string.h>

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
			return BkIpow(p->gamma * dot + p->coef0, p->degree);
	}
	return 0.0;
}

/* -1: not asked yet; 0 or 1: whether the CPU runs AVX2 + FMA */
static int	cpu_avx2 = -1;
static bool lanes_off = false;

bool
BkCpuHasAvx2(void)
{
#ifdef BK_VECTOR_AVX2
	if (cpu_avx2 < 0)
		cpu_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	return cpu_avx2 != 0;
#else
	return false;
#endif
}

bool
BkVectorLanes(void)
{
	return !lanes_off && BkCpuHasAvx2();
}

void
BkVectorLanesEnable(bool on)
{
	lanes_off = !on;
}

#ifdef BK_VECTOR_AVX2
__attribute__((target("avx2,fma")))
int
BkLanesFirstMin(bk_v4d v, bk_v4i at, double *best)
{
	int			found = -1;

	for (int l = 0; l < 4; l++)
		if (at[l] >= 0 && (found < 0 || v[l] < *best || (v[l] == *best && at[l] < found)))
		{
			*best = v[l];
			found = (int) at[l];
		}
	return found;
}
#endif

#ifdef BK_VECTOR_AVX2
#define BK_VECTOR_EXP 1
/* glibc's vector math library (libmvec): exp of four doubles with AVX2 */
extern bk_v4d _ZGVdN4v_exp(bk_v4d x) __attribute__((target("avx2,fma")));

__attribute__((target("avx2,fma")))
static void
exp_array_avx2(double *v, int n)
{
	int			i = 0;

	for (; i + 4 <= n; i += 4)
	{
		bk_v4d		x;

		memcpy(&x, v + i, sizeof(x));
		x = _ZGVdN4v_exp(x);
		memcpy(v + i, &x, sizeof(x));
	}
	if (i < n)
	{
		/* the tail through the same routine: a value never depends on its slot */
		bk_v4d		x = {0.0, 0.0, 0.0, 0.0};

		memcpy(&x, v + i, sizeof(double) * (size_t) (n - i));
		x = _ZGVdN4v_exp(x);
		memcpy(v + i, &x, sizeof(double) * (size_t) (n - i));
	}
}

/*
 * krow[i] = exp(-gamma max(sqnorm[i] + sqx - 2 dots[i], 0)), four at a
 * time: the same operations, in the same order, as the scalar loop of
 * kernel_of_dots (the build keeps the compiler from fusing them into FMAs,
 * see the Makefile), so the values are the same bits on either path.
 */
__attribute__((target("avx2,fma")))
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
		d = _ZGVdN4v_exp(ng * BkDist2x4(dot, sq, sx));
		memcpy(krow + i, &d, sizeof(d));
	}
	for (; i < n; i++)
		krow[i] = -gamma * BkDist2(dots[i], sqnorm[i], sqx);
	if (n % 4 != 0)
		exp_array_avx2(krow + n - n % 4, n % 4);
}
#endif

/*
 * v[i] = exp(v[i]).  The B exponentials of a kernel row are a fifth to
 * two fifths of the fast learners' time: on x86-64 CPUs with AVX2 they go
 * four at a time through libmvec (within 1 ulp of exp, as exp itself is
 * of the true value), elsewhere one at a time.  So a model's last bits may
 * differ between machines with and without AVX2, as they already do with
 * the BLAS kernels OpenBLAS picks per CPU.
 */
void
BkExpArray(double *v, int n)
{
#ifdef BK_VECTOR_EXP
	if (BkCpuHasAvx2())
	{
		exp_array_avx2(v, n);
		return;
	}
#endif
	for (int i = 0; i < n; i++)
		v[i] = exp(v[i]);
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
#ifdef BK_VECTOR_EXP
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
