/*
 * fuzz_common.h
 *	  Shared by the fuzz targets: the C library environment
 *	  (test/common/bk_stdenv.h), whose error hook either jumps back (an
 *	  expected error) or aborts (a bug the fuzzer found), and whose
 *	  allocator counts the bytes the core holds.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "bk_internal.h"
#include "bk_stdenv.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

/* an error nobody expects (bk_std_jump unset) is a bug: abort */
static void
fuzz_error(void *ctx, BkErrCode code, const char *msg, const char *detail,
		   const char *hint)
{
	bk_std_abort_on_error = true;
	BkStdError(ctx, code, msg, detail, hint);
}

/* 64 MB per allocation: a hostile model must not get more */
static const BkEnv fuzz_env = {BkStdAlloc, BkStdRealloc, BkStdFree, fuzz_error,
NULL, (size_t) 64 << 20, NULL};

/* ---- fuzz_seeds.c ---- */

/*
 * One encoded model of each learner (and variant), trained on a few rows
 * of dimension 3; the seeds of fuzz_format, and the base models of
 * fuzz_learn.  Returns how many (at most max) were written, each in a
 * malloc'd buffer.
 */
extern size_t FuzzModelSeeds(uint8_t **seeds, size_t *lens, size_t max);

#endif
