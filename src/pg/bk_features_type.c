/*
 * bk_features_type.c
 *	  The bk_features type: the one features argument of every aggregate
 *	  and scoring function.
 *
 * float8[], float4[], int2[], int4[], int8[], numeric[], jsonb and
 * bk_sparse reach bk_features by implicit casts that pass their bytes on
 * unchanged (no copy, no conversion): the form of a value is told from
 * its bytes (BkPgFeaturesForm).
 *
 * Its text form names its form: "TYPE:TEXT", TYPE one of float8[],
 * float4[], int2[], int4[], int8[], numeric[], jsonb and bk_sparse, TEXT
 * that type's own text form (with floats printed exactly, whatever
 * extra_float_digits says), so that the input function reads back the
 * very value the output function printed: the same type, the same bits.
 * A literal without such a prefix ('{1,2}') has no form, and the input
 * function says to cast it.  Its binary form is a byte naming the form
 * (1 array, 2 jsonb, 3 bk_sparse) then that type's binary form (an
 * array's names its element type).  Citus moves values of bk_features in
 * these forms when it pulls an aggregate's arguments to the coordinator.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "nodes/makefuncs.h"
#include "nodes/supportnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/jsonb.h"

#include "bk_pg.h"

PG_FUNCTION_INFO_V1(bk_features_in);
PG_FUNCTION_INFO_V1(bk_features_out);
PG_FUNCTION_INFO_V1(bk_features_recv);
PG_FUNCTION_INFO_V1(bk_features_send);
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

/* the type names of the text form's prefix, and what each one is */
typedef struct FeaturesTextForm
{
	const char *name;			/* before the ':' */
	BkFeatureForm form;
	Oid			elemtype;		/* an array's element type */
} FeaturesTextForm;

static const FeaturesTextForm text_forms[] = {
	{"float8[]", BK_FORM_ARRAY, FLOAT8OID},
	{"float4[]", BK_FORM_ARRAY, FLOAT4OID},
	{"int2[]", BK_FORM_ARRAY, INT2OID},
	{"int4[]", BK_FORM_ARRAY, INT4OID},
	{"int8[]", BK_FORM_ARRAY, INT8OID},
	{"numeric[]", BK_FORM_ARRAY, NUMERICOID},
	{"jsonb", BK_FORM_NAMED, InvalidOid},
	{"bk_sparse", BK_FORM_SPARSE, InvalidOid},
};

/* the binary form's first byte */
#define BK_FEATURES_BIN_ARRAY 1
#define BK_FEATURES_BIN_NAMED 2
#define BK_FEATURES_BIN_SPARSE 3

/*
 * bk_features input: "TYPE:TEXT" as bk_features_out prints it.  A bare
 * literal ('{1,2}') could be an array, a JSON document or a sparse vector:
 * an error that says to cast it.
 */
Datum
bk_features_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Datum		d = (Datum) 0;

	for (int i = 0; i < (int) lengthof(text_forms); i++)
	{
		const FeaturesTextForm *f = &text_forms[i];
		size_t		n = strlen(f->name);

		if (strncmp(str, f->name, n) != 0 || str[n] != ':')
			continue;
		switch (f->form)
		{
			case BK_FORM_ARRAY:
				d = OidInputFunctionCall(F_ARRAY_IN, str + n + 1, f->elemtype, -1);
				break;
			case BK_FORM_NAMED:
				d = OidInputFunctionCall(F_JSONB_IN, str + n + 1, InvalidOid, -1);
				break;
			case BK_FORM_SPARSE:
				d = DirectFunctionCall1(bk_sparse_in, CStringGetDatum(str + n + 1));
				break;
		}
		/* what the value is, as any value of bk_features (a jsonb scalar is no features) */
		(void) BkPgFeaturesForm(d);
		PG_RETURN_DATUM(d);
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("a features literal must say its form: \"%s\" could be an array, a JSON object or a sparse vector", str),
			 errhint("Cast it to float8[], jsonb or bk_sparse, for example '{1,2}'::float8[].")));
	PG_RETURN_NULL();
}

/* the name of the text form's prefix for a value d of form form */
static const char *
text_form_name(BkFeatureForm form, Datum d)
{
	Oid			elemtype = form == BK_FORM_ARRAY ? ARR_ELEMTYPE((ArrayType *) DatumGetPointer(d)) : InvalidOid;

	for (int i = 0; i < (int) lengthof(text_forms); i++)
		if (text_forms[i].form == form && text_forms[i].elemtype == elemtype)
			return text_forms[i].name;
	elog(ERROR, "bk_features: no text form for element type %u", elemtype);
	return NULL;				/* not reached */
}

/*
 * bk_features output: "TYPE:TEXT", TEXT the value in the text form of its
 * own type.  Floats are printed exactly (the shortest text that reads
 * back to the same bits, as extra_float_digits >= 1 gives): below that,
 * extra_float_digits is set to 1 for the call, as postgres_fdw does for
 * the values it sends.
 */
Datum
bk_features_out(PG_FUNCTION_ARGS)
{
	Datum		d = PointerGetDatum(PG_DETOAST_DATUM(PG_GETARG_DATUM(0)));
	BkFeatureForm form = BkPgFeaturesForm(d);
	int			nest = -1;
	char	   *text = NULL;
	StringInfoData buf;

	if (extra_float_digits < 1)
	{
		nest = NewGUCNestLevel();
		(void) set_config_option("extra_float_digits", "1", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
	}
	switch (form)
	{
		case BK_FORM_NAMED:
			text = DatumGetCString(DirectFunctionCall1(jsonb_out, d));
			break;
		case BK_FORM_SPARSE:
			text = DatumGetCString(DirectFunctionCall1(bk_sparse_out, d));
			break;
		case BK_FORM_ARRAY:
			/* array_out keeps its element type's I/O in fn_extra: a full call */
			text = OidOutputFunctionCall(F_ARRAY_OUT, d);
			break;
	}
	if (nest >= 0)
		AtEOXact_GUC(true, nest);
	initStringInfo(&buf);
	appendStringInfo(&buf, "%s:%s", text_form_name(form, d), text);
	PG_RETURN_CSTRING(buf.data);
}

/*
 * bk_features binary input: a byte naming the form, then the binary form
 * of float8[] (or another accepted array, whose binary form names its
 * element type), jsonb or bk_sparse
 */
Datum
bk_features_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			kind = pq_getmsgbyte(buf);
	Datum		d;

	switch (kind)
	{
		case BK_FEATURES_BIN_ARRAY:
			{
				uint32		w;
				Oid			elemtype;

				/* array_send: int32 ndim, int32 has-nulls flag, Oid element type */
				if (buf->len - buf->cursor < 12)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
							 errmsg("invalid binary bk_features: a truncated array")));
				memcpy(&w, buf->data + buf->cursor + 8, sizeof(w));
				elemtype = pg_ntoh32(w);
				if (!BkPgFeaturesElemType(elemtype))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
							 errmsg("invalid binary bk_features: an array of element type %u", elemtype)));
				d = OidReceiveFunctionCall(F_ARRAY_RECV, buf, elemtype, -1);
				break;
			}
		case BK_FEATURES_BIN_NAMED:
			d = OidReceiveFunctionCall(F_JSONB_RECV, buf, InvalidOid, -1);
			break;
		case BK_FEATURES_BIN_SPARSE:
			d = DirectFunctionCall1(bk_sparse_recv, PointerGetDatum(buf));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid binary bk_features: form %d (1 array, 2 jsonb, 3 bk_sparse)", kind)));
			PG_RETURN_NULL();
	}
	(void) BkPgFeaturesForm(d);
	PG_RETURN_DATUM(d);
}

/* bk_features binary output: the form's byte, then its type's binary form */
Datum
bk_features_send(PG_FUNCTION_ARGS)
{
	Datum		d = PointerGetDatum(PG_DETOAST_DATUM(PG_GETARG_DATUM(0)));
	bytea	   *body = NULL;
	int			kind = 0;
	StringInfoData buf;

	switch (BkPgFeaturesForm(d))
	{
		case BK_FORM_ARRAY:
			kind = BK_FEATURES_BIN_ARRAY;
			/* array_send keeps its element type's I/O in fn_extra: a full call */
			body = OidSendFunctionCall(F_ARRAY_SEND, d);
			break;
		case BK_FORM_NAMED:
			kind = BK_FEATURES_BIN_NAMED;
			body = DatumGetByteaPP(DirectFunctionCall1(jsonb_send, d));
			break;
		case BK_FORM_SPARSE:
			kind = BK_FEATURES_BIN_SPARSE;
			body = DatumGetByteaPP(DirectFunctionCall1(bk_sparse_send, d));
			break;
	}
	pq_begintypsend(&buf);
	pq_sendbyte(&buf, kind);
	pq_sendbytes(&buf, VARDATA_ANY(body), VARSIZE_ANY_EXHDR(body));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
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

