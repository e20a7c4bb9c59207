/*
 * bk_stdenv.h
 *	  The learning core's environment (BkEnv) on the C library, for the
 *	  programs that use the core without PostgreSQL: the unit tests, the
 *	  fuzz targets, the benchmark driver and the fixture writer.
 *
 *	  Memory: calloc, realloc and free, with every block linked into a
 *	  list and its size counted, so that a caller can bound what an
 *	  operation takes (bk_std_live, bk_std_peak) and free what the core
 *	  held when an error jumped out of it (BkStdReleaseAll), as the server
 *	  frees a memory context.  Running out of memory aborts.
 *
 *	  Errors: recorded in bk_std_last_*; with bk_std_jump set they longjmp
 *	  there, otherwise they print and exit(2) (abort() with
 *	  bk_std_abort_on_error, so that a fuzzer reports them).
 */
#ifndef BK_STDENV_H
#define BK_STDENV_H

#include "bk_core.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

/* names the program in the messages of an unexpected error */
extern const char *bk_std_program;
/* where a core error jumps; NULL: it is unexpected */
extern jmp_buf *bk_std_jump;
extern bool bk_std_abort_on_error;

/* the last error */
extern BkErrCode bk_std_last_code;
extern char bk_std_last_msg[BK_ERRMSG_LEN];
extern char bk_std_last_detail[BK_ERRMSG_LEN];

/* bytes the core holds now, and the most since a caller last set it */
extern size_t bk_std_live;
extern size_t bk_std_peak;

extern void *BkStdAlloc(void *ctx, size_t size);
extern void *BkStdRealloc(void *ctx, void *ptr, size_t size);
extern void BkStdFree(void *ctx, void *ptr);
extern void BkStdError(void *ctx, BkErrCode code, const char *msg,
					   const char *detail, const char *hint);

/* free every block the core still holds (after an error, say) */
extern void BkStdReleaseAll(void);

/* the functions above, with a largest allocation of 1 GB */
extern const BkEnv bk_std_env;

#endif							/* BK_STDENV_H */
