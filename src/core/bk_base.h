/*
 * bk_base.h
 *	  The model a model was continued from (bk_base.c, the part
 *	  bk_part_base.c): its fingerprint and its counts when training went
 *	  on from it.  Models continued from one stored model (the rounds of
 *	  iterative parameter mixing) all count its rows; their merge counts
 *	  them once and weighs each part by the rows it added
 *	  (bk_model_merge.c).
 */
#ifndef BK_BASE_H
#define BK_BASE_H

#include "bk_internal.h"

typedef struct BkBase
{
	uint8_t		fingerprint[BK_FINGERPRINT_LEN];
	uint64_t	rows_seen;
	uint64_t	rows_skipped;
	uint64_t	rows_updated;
	uint64_t	mistakes;
	uint64_t	maintenance;
	uint64_t	parts;
} BkBase;

/*
 * The base a and b share (the same stored model, the same counts), or
 * NULL: a merge of models continued from it counts its rows once
 */
extern const BkBase *BkBaseShared(const BkModel *a, const BkModel *b);
extern void BkBaseFree(BkModel *m);

#endif							/* BK_BASE_H */
