/*
 * bk_stream.c
 *	  Helpers for the rows of a training stream: their order
 *	  (bk_shuffle_key), a seeded split (bk_fold) and reading them from
 *	  LIBSVM text (bk_libsvm).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

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

PG_FUNCTION_INFO_V1(bk_fold);

/*
 * bk_fold(id int8, seed int8, k int4): |bk_shuffle_key(id, seed) % k|,
 * in 0 .. k - 1.  For a key spread evenly over int8 each part takes about
 * 1/k of the rows: 0 from the remainder 0, any other r from r and -r.
 * (For k a power of two, bk_fold(id, s, k) = 0 is the same set of rows
 * as bk_shuffle_key(id, s) % k = 0.)
 */
Datum
bk_fold(PG_FUNCTION_ARGS)
{
	uint64_t	id = (uint64_t) PG_GETARG_INT64(0);
	uint64_t	seed = (uint64_t) PG_GETARG_INT64(1);
	int32		k = PG_GETARG_INT32(2);
	int64		r;

	if (k < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bk_fold needs k of at least 1 part, got %d", k)));
	r = (int64) BkShuffleKey(id, seed) % k;
	PG_RETURN_INT32((int32) (r < 0 ? -r : r));
}

PG_FUNCTION_INFO_V1(bk_libsvm);

/*
 * bk_libsvm(line text, dim int4, OUT label int8, OUT features float8[]):
 * one line of LIBSVM / svmlight text as a label and dense features
 */
Datum
bk_libsvm(PG_FUNCTION_ARGS)
{
	char	   *line = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		dim = PG_GETARG_INT32(1);
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2] = {false, false};
	char		err[BK_ERRMSG_LEN];
	int64_t		label;
	double	   *x;

	if (dim < 1 || dim > BK_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dim must be between 1 and %d, got %d", BK_MAX_DIM, dim)));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "bk_libsvm must return a record");
	x = palloc(sizeof(double) * (Size) dim);
	err[0] = '\0';
	if (!BkParseLibsvm(line, dim, &label, x, err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid LIBSVM line: %s", err),
				 errdetail("The line begins \"%.60s\".", line)));
	values[0] = Int64GetDatum(label);
	values[1] = PointerGetDatum(BkPgFloat8Array(x, dim));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc),
													  values, nulls)));
}
