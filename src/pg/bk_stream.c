/*
 * bk_stream.c
 *	  Helpers for the order of a training stream.
 */
#include "postgres.h"

#include "fmgr.h"

#include "bk_pg.h"

PG_FUNCTION_INFO_V1(bk_shuffle_key);

/*
 * bk_shuffle_key(id int8, seed int8): a seeded permutation of int8, so
 * that ORDER BY bk_shuffle_key(id, 42) is a repeatable shuffle without ties
 */
Datum
bk_shuffle_key(PG_FUNCTION_ARGS)
{
	uint64_t	id = (uint64_t) PG_GETARG_INT64(0);
	uint64_t	seed = (uint64_t) PG_GETARG_INT64(1);

	PG_RETURN_INT64((int64) BkShuffleKey(id, seed));
}
