/*
 * bk_features.c
 *	  Reading feature arrays for training and scoring, with the checks of
 *	  doc/security.md, "Bad input".
 *
 * A float8[] is read without deconstruct_array: without NULLs it is
 * already a contiguous vector of doubles.  The other numeric arrays that
 * bk_features takes (bk_features_type.c) are converted element by element
 * as their casts to float8 would.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "bk_pg.h"

/* an array element type bk_features takes */
bool
BkPgFeaturesElemType(Oid elemtype)
{
	return elemtype == FLOAT8OID || elemtype == FLOAT4OID || elemtype == INT2OID ||
		elemtype == INT4OID || elemtype == INT8OID || elemtype == NUMERICOID;
}

/* one element of an accepted numeric array as a double, as its cast to float8 */
static double
element_double(Oid elemtype, Datum e)
{
	switch (elemtype)
	{
		case FLOAT8OID:
			return DatumGetFloat8(e);
		case FLOAT4OID:
			return (double) DatumGetFloat4(e);
		case INT2OID:
			return (double) DatumGetInt16(e);
		case INT4OID:
			return (double) DatumGetInt32(e);
		case INT8OID:
			return (double) DatumGetInt64(e);
		case NUMERICOID:
			return DatumGetFloat8(DirectFunctionCall1(numeric_float8, e));
	}
	elog(ERROR, "budgetkernel: features of element type %u", elemtype);
	return 0.0;					/* not reached */
}

double *
BkPgArrayDoubles(ArrayType *a, bool **isnull, int *n)
{
	Oid			elemtype = ARR_ELEMTYPE(a);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			nitems;
	double	   *x;

	switch (elemtype)
	{
		case FLOAT8OID:
			typlen = 8, typbyval = FLOAT8PASSBYVAL, typalign = TYPALIGN_DOUBLE;
			break;
		case INT8OID:
			typlen = 8, typbyval = FLOAT8PASSBYVAL, typalign = TYPALIGN_DOUBLE;
			break;
		case FLOAT4OID:
		case INT4OID:
			typlen = 4, typbyval = true, typalign = TYPALIGN_INT;
			break;
		case INT2OID:
			typlen = 2, typbyval = true, typalign = TYPALIGN_SHORT;
			break;
		case NUMERICOID:
			typlen = -1, typbyval = false, typalign = TYPALIGN_INT;
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("features of type %s[] are not supported",
							format_type_be(elemtype)),
					 errhint("Pass " BK_FEATURES_FORMS ".")));
			return NULL;		/* not reached */
	}
	deconstruct_array(a, elemtype, typlen, typbyval, typalign, &elems, &nulls, &nitems);
	x = palloc(sizeof(double) * (Size) Max(nitems, 1));
	for (int i = 0; i < nitems; i++)
		x[i] = nulls[i] ? 0.0 : element_double(elemtype, elems[i]);
	if (isnull != NULL)
		*isnull = nulls;
	*n = nitems;
	return x;
}

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

	/* other numeric arrays: their values as doubles (no NULL: checked above) */
	if (elemtype == FLOAT8OID)
		x = (const double *) data;
	else
	{
		int			nconv;

		x = BkPgArrayDoubles(a, NULL, &nconv);
		Assert(nconv == nitems);
	}

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
