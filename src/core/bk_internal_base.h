/*
 * bk_internal_base.h
 *	  The base layer's internals: raising errors, checked allocation, the
 *	  parameter table, the choices' names, the random generator.
 */
#ifndef BK_INTERNAL_BASE_H
#define BK_INTERNAL_BASE_H

#include "bk_internal_types.h"

#if defined(__GNUC__)
#define BK_NORETURN __attribute__((noreturn))
#define BK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define BK_NORETURN
#define BK_PRINTF(a, b)
#endif

/* ---- bk_env.c: errors and checked allocation ---- */
extern void BkRaise(const BkEnv *env, BkErrCode code, const char *detail,
					const char *fmt,...) BK_PRINTF(4, 5) BK_NORETURN;
extern void BkRaiseHint(const BkEnv *env, BkErrCode code, const char *detail,
						const char *hint, const char *fmt,...)
			BK_PRINTF(5, 6) BK_NORETURN;
extern void *BkAllocArray(const BkEnv *env, size_t n, size_t elsize);
/* byte strings (bk_bytes.c): their order (a prefix first), a NUL-terminated copy */
extern int	BkBytesCompare(const char *a, size_t alen, const char *b, size_t blen);
extern char *BkCopyBytes(const BkEnv *env, const char *s, size_t len);
extern void *BkReallocArray(const BkEnv *env, void *ptr, size_t n, size_t elsize);
extern void BkFree(const BkEnv *env, void *ptr);
extern void BkCheckInterrupts(const BkEnv *env);
/* a * b and a + b with overflow detection */
extern bool BkMulSize(size_t a, size_t b, size_t *out);
extern bool BkAddSize(size_t a, size_t b, size_t *out);

/* ---- bk_params.c ---- */
typedef enum BkParamKind
{
	BK_KIND_INT = 1,
	BK_KIND_REAL = 2,
	BK_KIND_ENUM = 3,
	BK_KIND_BOOL = 4
} BkParamKind;

/* A parameter as stored in the binary format. */
typedef struct BkStoredParam
{
	uint16_t	id;
	uint16_t	kind;
	uint64_t	bits;			/* int64, double bits or enum value */
} BkStoredParam;

/* bit of parameter id in BkParams.given and in BkLearner.params */
#define BK_PARAM_BIT(id)		(UINT64_C(1) << (id))
#define BkParamGiven(p, id)		(((p)->given & BK_PARAM_BIT(id)) != 0)

extern int	BkParamsToStored(const BkParams *p, BkStoredParam *out, int maxout);
/* regression: the model is a regressor (its target part's flag) */
extern bool BkParamsFromStored(BkParams *p, const BkStoredParam *in, int n,
							   bool regression, bool novelty, char *err,
							   size_t errlen);

/* ---- bk_choices.c: the names of the choice parameters' values ---- */
/* NULL-terminated, value = index + 1; NULL for "algorithm" and the numbers */
extern const char *const *BkParamChoices(BkParamId id);
/* the name of one value, "?" if out of range */
extern const char *BkParamChoiceName(BkParamId id, int value);


/* ---- bk_rng.c ---- */
extern void BkRngSeed(BkRng *rng, uint64_t seed);
extern uint64_t BkRngNext(BkRng *rng);
extern double BkRngUniform(BkRng *rng);	/* [0, 1) */
extern uint64_t BkRngBelow(BkRng *rng, uint64_t n);	/* [0, n) unbiased */

#endif							/* BK_INTERNAL_BASE_H */
