/*
 * fuzz_common.h
 *	  Shared by the fuzz targets: an environment whose error hook either
 *	  jumps back (an expected error) or aborts (a bug the fuzzer found), and
 *	  whose allocator counts the bytes the core holds.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "bk_internal.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf *fuzz_jump = NULL;
static BkErrCode last_fuzz_code;
/* the last error's message and detail, for a target that finds it wrong */
static char last_fuzz_msg[BK_ERRMSG_LEN];
static char last_fuzz_detail[BK_ERRMSG_LEN];

/*
 * Every block starts with a header that links it into the list of live
 * blocks and holds its size.  The list lets a target free what the core
 * holds after an error longjmped out of it, as the server frees the
 * memory context (fuzz_release_all); without it a long libFuzzer run
 * would grow until its RSS limit.  The sizes let a target bound what an
 * operation allocates: fuzz_live is what the core holds now, fuzz_peak the
 * most it held since the target last set it (to fuzz_live, before the
 * operation it measures).  The header is a multiple of 16 bytes so that
 * the caller's block keeps malloc's alignment.
 */
typedef struct FuzzBlock
{
	struct FuzzBlock *prev;
	struct FuzzBlock *next;
	size_t		size;
} FuzzBlock;

#define FUZZ_ALLOC_HEADER 32
static FuzzBlock fuzz_blocks = {&fuzz_blocks, &fuzz_blocks, 0};
static size_t fuzz_live = 0;
static size_t fuzz_peak = 0;

static void
fuzz_link(FuzzBlock *b, size_t size)
{
	b->size = size;
	b->prev = &fuzz_blocks;
	b->next = fuzz_blocks.next;
	b->next->prev = b;
	fuzz_blocks.next = b;
}

static void
fuzz_unlink(FuzzBlock *b)
{
	b->prev->next = b->next;
	b->next->prev = b->prev;
}

static void *
fuzz_alloc(void *ctx, size_t size)
{
	char	   *p = calloc(1, FUZZ_ALLOC_HEADER + size);

	(void) ctx;
	if (p == NULL)
		abort();
	fuzz_link((FuzzBlock *) p, size);
	fuzz_live += size;
	if (fuzz_live > fuzz_peak)
		fuzz_peak = fuzz_live;
	return p + FUZZ_ALLOC_HEADER;
}

static void *
fuzz_realloc(void *ctx, void *ptr, size_t size)
{
	FuzzBlock  *b = (FuzzBlock *) ((char *) ptr - FUZZ_ALLOC_HEADER);
	size_t		old = b->size;
	char	   *p;

	(void) ctx;
	fuzz_unlink(b);
	p = realloc(b, FUZZ_ALLOC_HEADER + size);
	if (p == NULL)
		abort();
	fuzz_link((FuzzBlock *) p, size);
	/* both blocks exist while realloc copies */
	if (fuzz_live + size > fuzz_peak)
		fuzz_peak = fuzz_live + size;
	fuzz_live = fuzz_live - old + size;
	return p + FUZZ_ALLOC_HEADER;
}

static void
fuzz_free(void *ctx, void *ptr)
{
	FuzzBlock  *b = (FuzzBlock *) ((char *) ptr - FUZZ_ALLOC_HEADER);

	(void) ctx;
	fuzz_unlink(b);
	fuzz_live -= b->size;
	free(b);
}

/* Free every block the core still holds (after an error, say). */
static inline void
fuzz_release_all(void)
{
	while (fuzz_blocks.next != &fuzz_blocks)
	{
		FuzzBlock  *b = fuzz_blocks.next;

		fuzz_unlink(b);
		free(b);
	}
	fuzz_live = 0;
}

static void
fuzz_error(void *ctx, BkErrCode code, const char *msg, const char *detail,
		   const char *hint)
{
	(void) ctx;
	(void) hint;
	last_fuzz_code = code;
	snprintf(last_fuzz_msg, sizeof(last_fuzz_msg), "%s", msg ? msg : "");
	snprintf(last_fuzz_detail, sizeof(last_fuzz_detail), "%s", detail ? detail : "");
	if (fuzz_jump != NULL)
		longjmp(*fuzz_jump, 1);
	fprintf(stderr, "unexpected error %d: %s (%s)\n", (int) code, msg,
			detail ? detail : "");
	abort();
}

/* 64 MB per allocation: a hostile model must not get more */
static const BkEnv fuzz_env = {fuzz_alloc, fuzz_realloc, fuzz_free, fuzz_error,
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
