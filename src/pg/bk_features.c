/*
 * bk_features.c
 *	  Reading feature arrays (float8[]) for training and
 *	  scoring, with the checks of doc/reference.md, "Bad input".
 *
 * The arrays are read without deconstruct_array: a float8[] without NULLs
 * is already a contiguous vector of doubles.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "bk_pg.h"

/* " at row N" when there is a row number, "" when scoring */
static const char *
bk_row_text(int64 row)
{
	if (row <= 0)
		return "";
	return psprintf(" at row %lld", (long long) row);
}

/*
 * The values of a features array as doubles
 */
const double *
BkPgReadFeatures(ArrayType *a, int64 row, int *n)
{
	int			nitems;
	Oid			elemtype = ARR_ELEMTYPE(a);
	const char *data;
	const double *x;
	int			bad;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("features must be a one-dimensional array"),
				 errdetail("The array%s has %d dimensions.",
						   bk_row_text(row), ARR_NDIM(a))));

	nitems = (ARR_NDIM(a) == 0) ? 0 : ARR_DIMS(a)[0];
	if (nitems <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("features must not be empty"),
				 row > 0 ? errdetail("The array at row %lld is empty.",
									 (long long) row) : 0));

	if (nitems > BK_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("features%s have %d values, more than the limit of %d",
						bk_row_text(row), nitems, BK_MAX_DIM)));

	if (ARR_HASNULL(a))
	{
		bits8	   *bitmap = ARR_NULLBITMAP(a);
		int			i;

		for (i = 0; i < nitems; i++)
		{
			if ((bitmap[i / 8] & (1 << (i % 8))) == 0)
			{
				if (row > 0)
					ereport(ERROR,
							(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							 errmsg("NULL in features at row %lld, position %d",
									(long long) row, i + 1)));
				else
					ereport(ERROR,
							(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							 errmsg("NULL in features at position %d", i + 1)));
			}
		}
	}

	/*
	 * There is no NULL bitmap from here on, so the data start where
	 * ARR_DATA_PTR would put them; spelt out because that macro's ?: draws
	 * a -Wsign-compare warning under -Wextra.
	 */
	data = (const char *) a + ARR_OVERHEAD_NONULLS(ARR_NDIM(a));

	/*
	 * Every SQL signature takes float8[]: other arrays are cast before.
	 * Another type comes only from the SQL objects of 0.1.0 (float4[]
	 * twins) left in a database whose library is newer.
	 */
	if (elemtype != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("features of type %s[]: the extension's SQL objects are older than its library",
						format_type_be(elemtype)),
				 errhint("Run ALTER EXTENSION budgetkernel UPDATE.")));
	x = (const double *) data;

	bad = BkFirstNonFinite(x, nitems);
	if (bad >= 0)
	{
		const char *what = isnan(x[bad]) ? "NaN" :
			(x[bad] > 0 ? "Infinity" : "-Infinity");

		if (row > 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("features at row %lld, position %d is %s",
							(long long) row, bad + 1, what)));
		else
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("features at position %d is %s", bad + 1, what)));
	}

	*n = nitems;
	return x;
}

/*
 * Raise an error naming both lengths if n != expected
 */
void
BkPgCheckDim(int n, int expected, int64 row, const char *whose)
{
	if (n == expected)
		return;

	if (row > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("features at row %lld have %d values, expected %d (%s dimension)",
						(long long) row, n, expected, whose)));
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("features have %d values, expected %d (%s dimension)",
						n, expected, whose)));
}

/*
 * A one-dimensional float8[] of the n values v, built directly (no array
 * of Datums in between: a LIBSVM line of 16M features is one copy)
 */
ArrayType *
BkPgFloat8Array(const double *v, int n)
{
	Size		bytes = ARR_OVERHEAD_NONULLS(1) + sizeof(double) * (Size) n;
	ArrayType  *a;

	if (n == 0)
		return construct_empty_array(FLOAT8OID);
	a = (ArrayType *) palloc0(bytes);
	SET_VARSIZE(a, bytes);
	a->ndim = 1;
	a->dataoffset = 0;
	a->elemtype = FLOAT8OID;
	ARR_DIMS(a)[0] = n;
	ARR_LBOUND(a)[0] = 1;
	/* no NULL bitmap: the data follow the header (see BkPgReadFeatures) */
	memcpy((char *) a + ARR_OVERHEAD_NONULLS(1), v, sizeof(double) * (Size) n);
	return a;
}
