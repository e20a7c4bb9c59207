/*
 * bk_env.c
 *	  Error reporting and checked allocation through the caller's hooks.
 */
#include "bk_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Format a message and hand it, with the detail and hint, to the caller's
 * error hook, which does not return (ereport in the server, longjmp or
 * exit in a program).
 */
static void BK_NORETURN BK_PRINTF(5, 0)
raise_v(const BkEnv *env, BkErrCode code, const char *detail, const char *hint,
		const char *fmt, va_list ap)
{
	char		msg[BK_ERRMSG_LEN];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	env->error(env->ctx, code, msg, detail, hint);
	/* the hook must not return; stop here if it does */
	abort();
}

void
BkRaise(const BkEnv *env, BkErrCode code, const char *detail,
		const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	raise_v(env, code, detail, NULL, fmt, ap);
}

/* BkRaise with a hint: what the user can do about the error. */
void
BkRaiseHint(const BkEnv *env, BkErrCode code, const char *detail,
			const char *hint, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	raise_v(env, code, detail, hint, fmt, ap);
}

bool
BkMulSize(size_t a, size_t b, size_t *out)
{
	if (a != 0 && b > SIZE_MAX / a)
		return false;
	*out = a * b;
	return true;
}

bool
BkAddSize(size_t a, size_t b, size_t *out)
{
	if (b > SIZE_MAX - a)
		return false;
	*out = a + b;
	return true;
}

/*
 * Bytes of n elements of elsize; a size that overflows or exceeds what the
 * caller can allocate is an error, never a short block.
 */
static size_t
array_bytes(const BkEnv *env, size_t n, size_t elsize)
{
	size_t		size;

	if (!BkMulSize(n, elsize, &size) || size > env->max_alloc)
		BkRaise(env, BK_ERR_LIMIT, NULL,
				"cannot allocate %zu elements of %zu bytes", n, elsize);
	return size > 0 ? size : 1;
}

/* n elements of elsize bytes, zero-filled */
void *
BkAllocArray(const BkEnv *env, size_t n, size_t elsize)
{
	return env->alloc(env->ctx, array_bytes(env, n, elsize));
}

void *
BkReallocArray(const BkEnv *env, void *ptr, size_t n, size_t elsize)
{
	size_t		size = array_bytes(env, n, elsize);

	if (ptr == NULL)
		return env->alloc(env->ctx, size);
	return env->realloc(env->ctx, ptr, size);
}

void
BkFree(const BkEnv *env, void *ptr)
{
	if (ptr != NULL)
		env->free(env->ctx, ptr);
}

void
BkCheckInterrupts(const BkEnv *env)
{
	if (env->check_interrupts != NULL)
		env->check_interrupts(env->ctx);
}

/*
 * x - x is 0 for a finite x and NaN for an infinite or NaN one, and a sum
 * of zeros is 0 in any order: running sums say whether every value is
 * finite, where a test and branch per value took seven instructions.  Only
 * a row that fails is searched for its first bad value.  Every training
 * and scoring row of plain double precision[] features passes here, so the
 * AVX2 form (eight values an iteration, two accumulators) matters: on a9a's
 * 123 features the check takes 224 instructions a row with it and 358 with
 * the scalar sums (which the compiler runs as pairs of doubles).
 */
#ifdef BK_VECTOR_AVX2
__attribute__((target("avx2")))
static bool
all_finite_avx2(const double *x, int n)
{
	bk_v4d		s0 = {0.0, 0.0, 0.0, 0.0};
	bk_v4d		s1 = s0;
	const double *p = x;
	const double *end8 = x + (n - n % 8);
	double		rest = 0.0;

	for (; p < end8; p += 8)
	{
		bk_v4d		a,
					b;

		memcpy(&a, p, sizeof(a));
		memcpy(&b, p + 4, sizeof(b));
		s0 += a - a;
		s1 += b - b;
	}
	for (; p < x + n; p++)
		rest += *p - *p;
	s0 += s1;
	return (s0[0] + s0[1]) + (s0[2] + s0[3]) + rest == 0.0;
}
#endif

static bool
all_finite_scalar(const double *x, int n)
{
	double		s0 = 0.0,
				s1 = 0.0,
				s2 = 0.0,
				s3 = 0.0;
	const double *p = x;
	const double *end4 = x + (n - n % 4);

	/*
	 * A pointer, not an int index: under PostgreSQL's -fwrapv, x[i + 1]
	 * might wrap, and the compiler then neither pairs the loads into vector
	 * instructions nor drops the sign extensions (six instructions a value).
	 */
	for (; p < end4; p += 4)
	{
		s0 += p[0] - p[0];
		s1 += p[1] - p[1];
		s2 += p[2] - p[2];
		s3 += p[3] - p[3];
	}
	for (; p < x + n; p++)
		s0 += *p - *p;
	return (s0 + s1) + (s2 + s3) == 0.0;
}

static int
first_non_finite_search(const double *x, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return i;
	return -1;
}

/* eight values or more: the lanes where the CPU has them */
static int __attribute__((noinline))
first_non_finite_wide(const double *x, int n)
{
	bool		ok;

#ifdef BK_VECTOR_AVX2
	if (BkVectorLanes())
		ok = all_finite_avx2(x, n);
	else
#endif
		ok = all_finite_scalar(x, n);
	return ok ? -1 : first_non_finite_search(x, n);
}

/*
 * Short rows (two features, say) take one running sum here, in a function
 * that calls nothing, so that it saves no registers: on ncb1m's rows the
 * check takes 27 instructions a row, where with the lane dispatch in the
 * same function it took 53.
 */
int
BkFirstNonFinite(const double *x, int n)
{
	double		s = 0.0;

	if (n >= 8)
		return first_non_finite_wide(x, n);
	for (int i = 0; i < n; i++)
		s += x[i] - x[i];
	return s == 0.0 ? -1 : first_non_finite_search(x, n);
}
