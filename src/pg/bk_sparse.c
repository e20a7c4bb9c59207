/*
 * bk_sparse.c
 *	  The bk_sparse type: a sparse feature vector of a declared dimension,
 *	  its non-zero values at 1-based ascending indices.  Text form (as
 *	  pgvector's sparsevec): {index:value,...}/dim, for example
 *	  '{1:0.5,7:1}/10'.  Constructed from arrays by bk_sparse(indices,
 *	  values, dim), read from LIBSVM text by bk_libsvm_sparse, turned into
 *	  a float8[] by bk_dense.
 *
 * Layout: varlena header, uint32 magic (BK_SPARSE_MAGIC, which tells a
 * bk_sparse from the other forms of bk_features), int32 dim, int32 nnz,
 * int32 indices[nnz], then (aligned to 8) float8 values[nnz].  The text
 * form and the binary send/recv format hold no magic word.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"

#include "bk_pg.h"

PG_FUNCTION_INFO_V1(bk_sparse_in);
PG_FUNCTION_INFO_V1(bk_sparse_out);
PG_FUNCTION_INFO_V1(bk_sparse_recv);
PG_FUNCTION_INFO_V1(bk_sparse_send);
PG_FUNCTION_INFO_V1(bk_sparse_make);
PG_FUNCTION_INFO_V1(bk_sparse_dense);
PG_FUNCTION_INFO_V1(bk_libsvm_sparse);

static Size
sparse_size(int nnz)
{
	return MAXALIGN(offsetof(BkSparse, indices) + sizeof(int32) * (Size) nnz) +
		sizeof(double) * (Size) nnz;
}

double *
BkSparseValues(const BkSparse *s)
{
	return (double *) ((char *) s +
					   MAXALIGN(offsetof(BkSparse, indices) + sizeof(int32) * (Size) s->nnz));
}

BkSparse *
BkPgSparseNew(int dim, int nnz)
{
	Size		size = sparse_size(nnz);
	BkSparse   *s = (BkSparse *) palloc0(size);

	SET_VARSIZE(s, size);
	s->magic = BK_SPARSE_MAGIC;
	s->dim = dim;
	s->nnz = nnz;
	return s;
}

/* a new vector of these indices and values */
static BkSparse *
sparse_of(int dim, int nnz, const int32 *idx, const double *val)
{
	BkSparse   *s = BkPgSparseNew(dim, nnz);

	memcpy(s->indices, idx, sizeof(int32) * (Size) nnz);
	memcpy(BkSparseValues(s), val, sizeof(double) * (Size) nnz);
	return s;
}

/*
 * Check a sparse vector: its dimension, and indices ascending within it
 * with finite values.  what names it in messages ("bk_sparse", "features
 * at row 3").
 */
static void
check_sparse(const BkSparse *s, const char *what, int sqlstate)
{
	const double *v = BkSparseValues(s);

	if (s->dim < 1 || s->dim > BK_MAX_DIM)
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("%s: dimension %d out of range 1..%d", what, s->dim, BK_MAX_DIM)));
	if (s->nnz < 0 || s->nnz > s->dim)
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("%s: %d values for dimension %d", what, s->nnz, s->dim)));
	for (int k = 0; k < s->nnz; k++)
	{
		if (s->indices[k] < 1 || s->indices[k] > s->dim)
			ereport(ERROR,
					(errcode(sqlstate),
					 errmsg("%s: index %d out of range 1..%d", what, s->indices[k], s->dim)));
		if (k > 0 && s->indices[k] <= s->indices[k - 1])
			ereport(ERROR,
					(errcode(sqlstate),
					 errmsg("%s: index %d after %d (indices must ascend)",
							what, s->indices[k], s->indices[k - 1])));
		if (!isfinite(v[k]))
			ereport(ERROR,
					(errcode(sqlstate),
					 errmsg("%s: the value at index %d is not finite", what, s->indices[k])));
	}
}

void
BkPgSparseCheck(const BkSparse *s, const char *what)
{
	check_sparse(s, what, ERRCODE_DATA_EXCEPTION);
}

static void
syntax_error(const char *str, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type bk_sparse: \"%s\"", str),
			 errdetail("%s", why),
			 errhint("Write {index:value,...}/dim, for example '{1:0.5,7:1}/10'; indices from 1.")));
}

/* '{1:0.5,7:1}/10' */
Datum
bk_sparse_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	char	   *p = str;
	char	   *end;
	int			cap = 16,
				nnz = 0;
	int32	   *idx = palloc(sizeof(int32) * cap);
	double	   *val = palloc(sizeof(double) * cap);
	long		dim;
	BkSparse   *s;

	while (isspace((unsigned char) *p))
		p++;
	if (*p++ != '{')
		syntax_error(str, "It must begin with \"{\".");
	while (isspace((unsigned char) *p))
		p++;
	while (*p != '}')
	{
		long		i;

		errno = 0;
		i = strtol(p, &end, 10);
		if (end == p || errno != 0 || i < 1 || i > BK_MAX_DIM)
			syntax_error(str, "An index is not an integer from 1.");
		p = end;
		while (isspace((unsigned char) *p))
			p++;
		if (*p++ != ':')
			syntax_error(str, "An index must be followed by \":\" and its value.");
		while (isspace((unsigned char) *p))
			p++;
		if (nnz == cap)
		{
			if (cap >= BK_MAX_DIM)
				syntax_error(str, "It has more values than the largest dimension.");
			cap *= 2;
			idx = repalloc(idx, sizeof(int32) * cap);
			val = repalloc(val, sizeof(double) * cap);
		}
		idx[nnz] = (int32) i;
		errno = 0;
		val[nnz] = BkParseDouble(p, &end);
		if (end == p)
			syntax_error(str, "A value is not a number.");
		/* as float8's input: out of range, not rounded to 0 or infinity */
		if (errno == ERANGE && (val[nnz] == 0.0 || isinf(val[nnz])))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("bk_sparse: \"%.*s\" is out of range for type double precision",
							(int) (end - p), p)));
		nnz++;
		p = end;
		while (isspace((unsigned char) *p))
			p++;
		if (*p == ',')
		{
			p++;
			while (isspace((unsigned char) *p))
				p++;
			if (*p == '}')
				syntax_error(str, "A \",\" must be followed by another index:value pair.");
		}
		else if (*p != '}')
			syntax_error(str, "Pairs are separated by \",\" and the list ends with \"}\".");
	}
	p++;
	if (*p++ != '/')
		syntax_error(str, "The list must be followed by \"/\" and the dimension.");
	errno = 0;
	dim = strtol(p, &end, 10);
	if (end == p || errno != 0)
		syntax_error(str, "The dimension is not an integer.");
	p = end;
	while (isspace((unsigned char) *p))
		p++;
	if (*p != '\0')
		syntax_error(str, "Unexpected text after the dimension.");
	if (dim < 1 || dim > BK_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("bk_sparse: dimension %ld out of range 1..%d", dim, BK_MAX_DIM)));
	s = sparse_of((int) dim, nnz, idx, val);
	BkPgSparseCheck(s, "bk_sparse");
	PG_RETURN_POINTER(s);
}

Datum
bk_sparse_out(PG_FUNCTION_ARGS)
{
	BkSparse   *s = (BkSparse *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	const double *v = BkSparseValues(s);
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (int k = 0; k < s->nnz; k++)
	{
		char	   *num = float8out_internal(v[k]);

		if (k > 0)
			appendStringInfoChar(&buf, ',');
		appendStringInfo(&buf, "%d:%s", s->indices[k], num);
		pfree(num);
	}
	appendStringInfo(&buf, "}/%d", s->dim);
	PG_RETURN_CSTRING(buf.data);
}

/* binary form: int32 dim, int32 nnz, int32 reserved (0), then nnz x int32, nnz x float8 */
Datum
bk_sparse_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int32		dim = pq_getmsgint(buf, 4);
	int32		nnz = pq_getmsgint(buf, 4);
	BkSparse   *s;
	double	   *v;

	int32		reserved = pq_getmsgint(buf, 4);

	if (reserved != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary bk_sparse: the reserved word is %d, not 0", reserved)));
	if (dim < 1 || dim > BK_MAX_DIM || nnz < 0 || nnz > dim ||
		(Size) nnz * 12 > (Size) (buf->len - buf->cursor))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary bk_sparse: dimension %d, %d values", dim, nnz)));
	s = BkPgSparseNew(dim, nnz);
	v = BkSparseValues(s);
	for (int k = 0; k < nnz; k++)
		s->indices[k] = pq_getmsgint(buf, 4);
	for (int k = 0; k < nnz; k++)
		v[k] = pq_getmsgfloat8(buf);
	/* what the bytes say is checked as for text input, as bytes (22P03) */
	check_sparse(s, "invalid binary bk_sparse", ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_POINTER(s);
}

Datum
bk_sparse_send(PG_FUNCTION_ARGS)
{
	BkSparse   *s = (BkSparse *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	const double *v = BkSparseValues(s);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint32(&buf, s->dim);
	pq_sendint32(&buf, s->nnz);
	pq_sendint32(&buf, 0);
	for (int k = 0; k < s->nnz; k++)
		pq_sendint32(&buf, s->indices[k]);
	for (int k = 0; k < s->nnz; k++)
		pq_sendfloat8(&buf, v[k]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* bk_sparse(indices int4[], values float8[], dim int4) */
Datum
bk_sparse_make(PG_FUNCTION_ARGS)
{
	ArrayType  *ia = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *va = PG_GETARG_ARRAYTYPE_P(1);
	int32		dim = PG_GETARG_INT32(2);
	Datum	   *id,
			   *vd;
	bool	   *in,
			   *vn;
	int			ni,
				nv;
	BkSparse   *s;
	double	   *v;

	if (ARR_NDIM(ia) > 1 || ARR_NDIM(va) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("bk_sparse: indices and values must be one-dimensional arrays")));
	deconstruct_array(ia, INT4OID, 4, true, TYPALIGN_INT, &id, &in, &ni);
	deconstruct_array(va, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &vd, &vn, &nv);
	if (ni != nv)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("bk_sparse: %d indices and %d values", ni, nv)));
	if (dim < 1 || dim > BK_MAX_DIM || ni > dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("bk_sparse: dimension %d out of range 1..%d, or fewer than its %d values",
						dim, BK_MAX_DIM, ni)));
	s = BkPgSparseNew(dim, ni);
	v = BkSparseValues(s);
	for (int k = 0; k < ni; k++)
	{
		if (in[k] || vn[k])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("bk_sparse: NULL at position %d of the indices or values", k + 1)));
		s->indices[k] = DatumGetInt32(id[k]);
		v[k] = DatumGetFloat8(vd[k]);
	}
	BkPgSparseCheck(s, "bk_sparse");
	PG_RETURN_POINTER(s);
}

double *
BkPgSparseDense(const BkSparse *s)
{
	const double *v = BkSparseValues(s);
	double	   *x = palloc0(sizeof(double) * (Size) s->dim);

	for (int k = 0; k < s->nnz; k++)
		x[s->indices[k] - 1] = v[k];
	return x;
}

/* bk_dense(bk_sparse) -> float8[] */
Datum
bk_sparse_dense(PG_FUNCTION_ARGS)
{
	BkSparse   *s = (BkSparse *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	PG_RETURN_ARRAYTYPE_P(BkPgFloat8Array(BkPgSparseDense(s), s->dim));
}

/* bk_libsvm_sparse(line text, dim int4, OUT label int8, OUT features bk_sparse) */
Datum
bk_libsvm_sparse(PG_FUNCTION_ARGS)
{
	char	   *line = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		dim = PG_GETARG_INT32(1);
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2] = {false, false};
	int32	   *idx;
	double	   *val;
	int			nnz;
	int64_t		label;
	char		err[BK_ERRMSG_LEN];
	BkSparse   *s;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "bk_libsvm_sparse: return type must be a row type");
	if (dim < 1 || dim > BK_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dim must be from 1 to %d, got %d", BK_MAX_DIM, dim)));
	/* at most one value per index: room for dim, or for the line's tokens */
	{
		Size		cap = Min((Size) dim, strlen(line) / 2 + 1);

		idx = palloc(sizeof(int32) * cap);
		val = palloc(sizeof(double) * cap);
	}
	err[0] = '\0';
	if (!BkParseLibsvmSparse(line, dim, &label, idx, val, &nnz, err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid LIBSVM line: %s", err)));
	s = sparse_of(dim, nnz, idx, val);
	values[0] = Int64GetDatum(label);
	values[1] = PointerGetDatum(s);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
