/*
 * bk_pg_env.c
 *	  The core's environment in the server: memory from memory contexts,
 *	  errors through ereport, interrupts through CHECK_FOR_INTERRUPTS.
 *	  The bottom of the PostgreSQL layer: every file that calls the core
 *	  sets its environment up here.
 */
#include "postgres.h"

#include <string.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "bk_pg.h"

/* ------------------------------------------------------------------------
 * BkEnv hooks
 * ------------------------------------------------------------------------
 */

/*
 * Zero-filled memory in the environment's context.  HUGE lets the core
 * size its own limits (it checks them against max_alloc first).
 */
static void *
bk_env_alloc(void *ctx, size_t size)
{
	return MemoryContextAllocExtended((MemoryContext) ctx, size,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

/*
 * Grow a block; repalloc keeps it in the context it was allocated in.
 */
static void *
bk_env_realloc(void *ctx, void *ptr, size_t size)
{
	if (ptr == NULL)
		return bk_env_alloc(ctx, size);
	return repalloc_huge(ptr, size);
}

static void
bk_env_free(void *ctx, void *ptr)
{
	if (ptr != NULL)
		pfree(ptr);
}

/*
 * The SQLSTATE of a core error class
 */
int
BkPgErrCode(BkErrCode code)
{
	switch (code)
	{
		case BK_ERR_PARAM:
			return ERRCODE_INVALID_PARAMETER_VALUE;
		case BK_ERR_DATA:
			return ERRCODE_DATA_EXCEPTION;
		case BK_ERR_NULL_VALUE:
			return ERRCODE_NULL_VALUE_NOT_ALLOWED;
		case BK_ERR_LIMIT:
			return ERRCODE_PROGRAM_LIMIT_EXCEEDED;
		case BK_ERR_CORRUPT:
			/* a stored model that fails validation */
			return ERRCODE_DATA_CORRUPTED;
		case BK_ERR_VERSION:
			return ERRCODE_FEATURE_NOT_SUPPORTED;
		case BK_ERR_NUMERIC:
			return ERRCODE_DATA_EXCEPTION;
		case BK_ERR_INTERNAL:
			return ERRCODE_INTERNAL_ERROR;
		case BK_ERR_OVERFLOW:
			return ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
		case BK_ERR_UNSUPPORTED:
			return ERRCODE_FEATURE_NOT_SUPPORTED;
	}
	return ERRCODE_INTERNAL_ERROR;
}

/*
 * Report a core error; does not return
 */
static void
bk_env_error(void *ctx, BkErrCode code, const char *message,
			 const char *detail, const char *hint)
{
	if (message == NULL)
		message = "budgetkernel core error";

	ereport(ERROR,
			(errcode(BkPgErrCode(code)),
			 errmsg("%s", message),
			 detail != NULL ? errdetail("%s", BkPgSentence(detail)) : 0,
			 hint != NULL ? errhint("%s", hint) :
			 code == BK_ERR_VERSION ?
			 errhint("Upgrade the budgetkernel extension to read this model.") : 0));
	pg_unreachable();
}

static void
bk_env_check_interrupts(void *ctx)
{
	CHECK_FOR_INTERRUPTS();
}

/*
 * Fill env so that the core allocates in ctx and reports through ereport
 */
void
BkPgEnvInit(BkEnv *env, MemoryContext ctx)
{
	memset(env, 0, sizeof(*env));
	env->alloc = bk_env_alloc;
	env->realloc = bk_env_realloc;
	env->free = bk_env_free;
	env->error = bk_env_error;
	env->check_interrupts = bk_env_check_interrupts;
	env->max_alloc = MaxAllocSize;
	env->ctx = ctx;
}

/*
 * A core message as a sentence for errdetail: the core writes messages in
 * errmsg style (lower case, no final period), details are full sentences.
 */
char *
BkPgSentence(const char *message)
{
	size_t		len = strlen(message);
	char	   *s = palloc(len + 2);

	memcpy(s, message, len + 1);
	if (len > 0 && s[0] >= 'a' && s[0] <= 'z')
		s[0] = (char) (s[0] - 'a' + 'A');
	if (len > 0 && s[len - 1] != '.')
	{
		s[len] = '.';
		s[len + 1] = '\0';
	}
	return s;
}
