/*
 * fuzz_common.h
 *	  Shared by the fuzz targets: an environment whose error hook either
 *	  jumps back (an expected error) or aborts (a bug the fuzzer found).
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "bk_internal.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf *fuzz_jump = NULL;
static BkErrCode last_fuzz_code;

static void *
fuzz_alloc(void *ctx, size_t size)
{
	void	   *p = calloc(1, size);

	(void) ctx;
	if (p == NULL)
		abort();
	return p;
}

static void *
fuzz_realloc(void *ctx, void *ptr, size_t size)
{
	void	   *p = realloc(ptr, size);

	(void) ctx;
	if (p == NULL)
		abort();
	return p;
}

static void
fuzz_free(void *ctx, void *ptr)
{
	(void) ctx;
	free(ptr);
}

static void
fuzz_error(void *ctx, BkErrCode code, const char *msg, const char *detail,
		   const char *hint)
{
	(void) ctx;
	(void) hint;
	last_fuzz_code = code;
	if (fuzz_jump != NULL)
		longjmp(*fuzz_jump, 1);
	fprintf(stderr, "unexpected error %d: %s (%s)\n", (int) code, msg,
			detail ? detail : "");
	abort();
}

/* 64 MB per allocation: a hostile model must not get more */
static const BkEnv fuzz_env = {fuzz_alloc, fuzz_realloc, fuzz_free, fuzz_error,
NULL, (size_t) 64 << 20, NULL};

#endif
