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

/* ---- fuzz_model.c ---- */

/*
 * An error the core reported: a user can cause these codes (the server
 * turns them into an ERROR naming the cause); the others (BK_ERR_INTERNAL,
 * BK_ERR_CORRUPT, BK_ERR_VERSION) mean the core lost track of its own
 * state, and abort.
 */
extern void FuzzExpectUserError(const char *during);

/*
 * The model at *pos of data: a u32 length (one past the end takes the
 * rest) and that many bytes, with the length field, digest and CRC-32C
 * recomputed when fix_crc, so that mutations get past the checksum;
 * decoded for training if the validator accepts it, else NULL (and NULL
 * for a valid model too large to train on).  *pos moves past it.
 */
extern BkModel *FuzzNextModel(const uint8_t *data, size_t size, size_t *pos,
							  bool fix_crc);

/*
 * m's bytes (malloc'd), which the validator must accept, else abort
 * naming what the model is; NULL when m is beyond the size bk_train and
 * bk_merge can encode (an error a user can cause)
 */
extern uint8_t *FuzzEncodeValid(const BkModel *m, size_t *len, const char *what);

/* ---- fuzz_seeds.c ---- */

/*
 * One encoded model of each learner (and variant), trained on a few rows
 * of dimension 3; the seeds of fuzz_format, and the base models of
 * fuzz_learn.  Returns how many (at most max) were written, each in a
 * malloc'd buffer.
 */
extern size_t FuzzModelSeeds(uint8_t **seeds, size_t *lens, size_t max);

#endif
