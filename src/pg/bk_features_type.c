/*
 * bk_features_type.c
 *	  The bk_features type: the one features argument of every aggregate
 *	  and scoring function.
 *
 * float8[], float4[], int2[], int4[], int8[], numeric[], jsonb and
 * bk_sparse reach bk_features by implicit casts that pass their bytes on
 * unchanged (no copy, no conversion): the form of a value is told from
 * its bytes (BkPgFeaturesForm).  A text literal has no form: bk_features'
 * input function says to cast it.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/supportnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/jsonb.h"

#include "bk_pg.h"

PG_FUNCTION_INFO_V1(bk_features_in);
PG_FUNCTION_INFO_V1(bk_features_out);
PG_FUNCTION_INFO_V1(bk_features_cast);
PG_FUNCTION_INFO_V1(bk_features_support);

BkFeatureForm
BkPgFeaturesForm(Datum d)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);
	Size		len;
	uint32		w;

	Assert(!VARATT_IS_EXTERNAL(v));
	len = VARSIZE_ANY_EXHDR(v);
	if (len >= sizeof(uint32))
	{
		memcpy(&w, VARDATA_ANY(v), sizeof(uint32));
		if (w == BK_SPARSE_MAGIC)
			return BK_FORM_SPARSE;
		/* a jsonb's root header: a type flag set, the high bit clear */
		if ((w & 0x80000000U) == 0 &&
			(w & (JB_FSCALAR | JB_FOBJECT | JB_FARRAY)) != 0)
			return BK_FORM_NAMED;
		/* an array's number of dimensions, then its element type */
		if (w <= MAXDIM && len >= ARR_OVERHEAD_NONULLS(0) - VARHDRSZ && !VARATT_IS_SHORT(v))
		{
			Oid			elemtype = ARR_ELEMTYPE((ArrayType *) v);

			if (BkPgFeaturesElemType(elemtype))
				return BK_FORM_ARRAY;
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("features of type %s[] are not supported",
							format_type_be(elemtype)),
					 errhint("Pass " BK_FEATURES_FORMS ".")));
		}
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("features are not " BK_FEATURES_FORMS)));
	return BK_FORM_ARRAY;		/* not reached */
}

/*
 * bk_features input: a literal ('{1,2}') could be an array, a JSON
 * document or a sparse vector
 */
Datum
bk_features_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);

	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("a features literal must say its form: \"%s\" could be an array, a JSON object or a sparse vector", str),
			 errhint("Cast it to float8[], jsonb or bk_sparse, for example '{1,2}'::float8[].")));
	PG_RETURN_NULL();
}

/* bk_features output: the value in the text form of its source type */
Datum
bk_features_out(PG_FUNCTION_ARGS)
{
	Datum		d = PointerGetDatum(PG_DETOAST_DATUM(PG_GETARG_DATUM(0)));

	switch (BkPgFeaturesForm(d))
	{
		case BK_FORM_NAMED:
			return DirectFunctionCall1(jsonb_out, d);
		case BK_FORM_SPARSE:
			return DirectFunctionCall1(bk_sparse_out, d);
		case BK_FORM_ARRAY:
			break;
	}
	/* array_out keeps its element type's I/O in fn_extra: a full call */
	PG_RETURN_CSTRING(OidOutputFunctionCall(F_ARRAY_OUT, d));
}

/*
 * The cast of the numeric arrays and jsonb to bk_features: the value
 * itself (PostgreSQL makes no cast WITHOUT FUNCTION from an array type,
 * nor between types of different alignments), no copy.  The planner does
 * not even call it (bk_features_support).
 */
Datum
bk_features_cast(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/*
 * The planner support function of the casts: a call of the cast function
 * is simplified into a relabelling of its argument, as a binary-coercible
 * cast would be, so that a plan spends nothing on it per row (a function
 * call per row was a tenth of the cost of training on two-feature rows)
 */
Datum
bk_features_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSimplify))
	{
		SupportRequestSimplify *req = (SupportRequestSimplify *) rawreq;
		FuncExpr   *expr = req->fcall;

		if (list_length(expr->args) == 1)
			PG_RETURN_POINTER(makeRelabelType((Expr *) linitial(expr->args),
											  expr->funcresulttype, -1, InvalidOid,
											  COERCE_IMPLICIT_CAST));
	}
	PG_RETURN_POINTER(NULL);
}

