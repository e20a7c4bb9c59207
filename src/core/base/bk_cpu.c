/*
 * bk_cpu.c
 *	  Which vector paths run: whether the CPU runs AVX2 and AVX-512F
 *	  (asked once), and the switches the tests use to compare the lane
 *	  paths with the scalar code (bk_internal.h says what the lane paths promise).  The
 *	  lowest layer: everything that has a lane path asks here.
 */
#include "bk_internal.h"

#ifdef BK_VECTOR_AVX2
/*
 * -1: not asked yet; 0 or 1: whether the CPU runs AVX2.  Not FMA: no
 * clone is compiled for it (doc/maintainers.md, Determinism, rule 4).
 */
static int	cpu_avx2 = -1;
/* the same for AVX-512F (with the OS's support of its registers) */
static int	cpu_avx512 = -1;
#endif
static bool lanes_off = false;
static bool wide_off = false;

bool
BkCpuHasAvx2(void)
{
#ifdef BK_VECTOR_AVX2
	if (cpu_avx2 < 0)
		cpu_avx2 = __builtin_cpu_supports("avx2");
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

bool
BkVectorWide(void)
{
#ifdef BK_VECTOR_AVX2
	if (cpu_avx512 < 0)
		cpu_avx512 = __builtin_cpu_supports("avx512f");
	return !wide_off && cpu_avx512 != 0 && BkVectorLanes();
#else
	return false;
#endif
}

void
BkVectorWideEnable(bool on)
{
	wide_off = !on;
}

bool
BkVectorLanesOn(void)
{
	return !lanes_off;
}

void
BkVectorLanesEnable(bool on)
{
	lanes_off = !on;
}

#ifdef BK_VECTOR_AVX2
__attribute__((target("avx2")))
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
