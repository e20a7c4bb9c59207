/*
 * bk_stdenv.c
 *	  The learning core's environment on the C library (see bk_stdenv.h).
 */
#include "bk_stdenv.h"

#include <stdio.h>
#include <stdlib.h>

const char *bk_std_program = "budgetkernel";
jmp_buf    *bk_std_jump = NULL;
bool		bk_std_abort_on_error = false;
BkErrCode	bk_std_last_code;
char		bk_std_last_msg[BK_ERRMSG_LEN];
char		bk_std_last_detail[BK_ERRMSG_LEN];
size_t		bk_std_live = 0;
size_t		bk_std_peak = 0;

/*
 * Every block starts with a header that links it into the list of live
 * blocks and holds its size; the header is a multiple of 16 bytes so that
 * the caller's block keeps malloc's alignment.
 */
typedef struct Block
{
	struct Block *prev;
	struct Block *next;
	size_t		size;
} Block;

#define HEADER 32
static Block blocks = {&blocks, &blocks, 0};

static void
link_block(Block *b, size_t size)
{
	b->size = size;
	b->prev = &blocks;
	b->next = blocks.next;
	b->next->prev = b;
	blocks.next = b;
}

static void
unlink_block(Block *b)
{
	b->prev->next = b->next;
	b->next->prev = b->prev;
}

static void
out_of_memory(size_t size)
{
	fprintf(stderr, "%s: out of memory (%zu bytes)\n", bk_std_program, size);
	abort();
}

void *
BkStdAlloc(void *ctx, size_t size)
{
	char	   *p = calloc(1, HEADER + size);

	(void) ctx;
	if (p == NULL)
		out_of_memory(size);
	link_block((Block *) p, size);
	bk_std_live += size;
	if (bk_std_live > bk_std_peak)
		bk_std_peak = bk_std_live;
	return p + HEADER;
}

void *
BkStdRealloc(void *ctx, void *ptr, size_t size)
{
	Block	   *b = (Block *) ((char *) ptr - HEADER);
	size_t		old = b->size;
	char	   *p;

	(void) ctx;
	unlink_block(b);
	p = realloc(b, HEADER + size);
	if (p == NULL)
		out_of_memory(size);
	link_block((Block *) p, size);
	/* both blocks exist while realloc copies */
	if (bk_std_live + size > bk_std_peak)
		bk_std_peak = bk_std_live + size;
	bk_std_live = bk_std_live - old + size;
	return p + HEADER;
}

void
BkStdFree(void *ctx, void *ptr)
{
	Block	   *b;

	(void) ctx;
	if (ptr == NULL)
		return;
	b = (Block *) ((char *) ptr - HEADER);
	unlink_block(b);
	bk_std_live -= b->size;
	free(b);
}

void
BkStdReleaseAll(void)
{
	while (blocks.next != &blocks)
	{
		Block	   *b = blocks.next;

		unlink_block(b);
		free(b);
	}
	bk_std_live = 0;
}

void
BkStdError(void *ctx, BkErrCode code, const char *msg, const char *detail,
		   const char *hint)
{
	(void) ctx;
	(void) hint;
	bk_std_last_code = code;
	snprintf(bk_std_last_msg, sizeof(bk_std_last_msg), "%s", msg ? msg : "");
	snprintf(bk_std_last_detail, sizeof(bk_std_last_detail), "%s",
			 detail ? detail : "");
	if (bk_std_jump != NULL)
		longjmp(*bk_std_jump, 1);
	fprintf(stderr, "%s: core error %d: %s%s%s\n", bk_std_program, (int) code,
			msg ? msg : "", detail ? ": " : "", detail ? detail : "");
	if (bk_std_abort_on_error)
		abort();
	exit(2);
}

const BkEnv bk_std_env = {BkStdAlloc, BkStdRealloc, BkStdFree, BkStdError,
NULL, (size_t) 1 << 30, NULL};
