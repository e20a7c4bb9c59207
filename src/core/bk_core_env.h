/*
 * bk_core_env.h
 *	  The core's environment (base layer): how a caller lends it memory,
 *	  error reporting and interrupt checks (BkEnv), and the error codes.
 */
#ifndef BK_CORE_ENV_H
#define BK_CORE_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------
 * Environment: allocation, errors, interrupts
 * ------------------------------------------------------------------------
 */

/* Error classes; the caller maps them to its own codes (SQLSTATEs). */
typedef enum BkErrCode
{
	BK_ERR_PARAM = 1,			/* invalid parameter (22023) */
	BK_ERR_DATA = 2,			/* invalid input data: NaN, dimensions (22000) */
	BK_ERR_NULL_VALUE = 3,		/* NULL where a value is needed (22004) */
	BK_ERR_LIMIT = 4,			/* size limit exceeded (54000) */
	BK_ERR_CORRUPT = 5,			/* bytes are not a valid model (22P03 / XX001) */
	BK_ERR_VERSION = 6,			/* model written by a newer format (0A000) */
	BK_ERR_NUMERIC = 7,			/* numerical failure (22000) */
	BK_ERR_INTERNAL = 8,		/* a bug (XX000) */
	/*
	 * a number beyond what the arithmetic can hold: features whose squared
	 * norm overflows, a kernel value or score that is not finite, a model
	 * holding a non-finite value (22003)
	 */
	BK_ERR_OVERFLOW = 9,
	BK_ERR_UNSUPPORTED = 10		/* a format cannot express it (0A000) */
} BkErrCode;

typedef struct BkEnv
{
	/* zero-filled memory; never returns NULL (reports an error instead) */
	void	   *(*alloc) (void *ctx, size_t size);
	/* grow a block from alloc; never returns NULL */
	void	   *(*realloc) (void *ctx, void *ptr, size_t size);
	void		(*free) (void *ctx, void *ptr);
	/*
	 * report an error; must not return (longjmp, exit, ereport).  detail
	 * and hint may be NULL; hint says what the user can do about it.
	 */
	void		(*error) (void *ctx, BkErrCode code, const char *message,
						  const char *detail, const char *hint);
	/* called in long loops; may be NULL */
	void		(*check_interrupts) (void *ctx);
	/* largest single allocation the caller can serve */
	size_t		max_alloc;
	void	   *ctx;
} BkEnv;

#endif							/* BK_CORE_ENV_H */
