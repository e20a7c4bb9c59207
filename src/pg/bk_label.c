/*
 * bk_label.c
 *	  The bk_label type: the one label argument of bk_train, bk_continue,
 *	  bk_calibrate, bk_refit and bk_metrics.
 *
 * A column of int2, int4, int8, numeric, float4, float8, text, varchar or
 * char(n) reaches bk_label by an implicit cast, and the value says what
 * it was, so one SQL signature serves every label type and the task
 * follows the column's type whoever calls (a window function, or Citus
 * calling the transition function without its call expression).  Before,
 * an int2 column found no form of its own and PostgreSQL picked the
 * float8 (regression) one; only a look at the call's cast told.
 *
 * The bytes: a text label is the text itself (text and varchar are cast
 * WITHOUT FUNCTION: no copy; char(n) loses its trailing blanks, as its
 * cast to text does).  A number is a NUL byte, which no text holds, a
 * kind byte ('i' int8, 'f' float8, 'n' numeric read as float8) and the
 * eight bytes of the value.
 *
 * The text form: a text label is itself; a number is the number with the
 * type it came as, "5::int8", "0.5::float8", "2.5::numeric".  The input
 * function reads a string ending in "::int8", "::float8" or "::numeric"
 * whose start is such a number as that number, and any other string as a
 * text label; a text label that would read as a number, or that ends in
 * "::text", is written with "::text" appended (which the input strips):
 * the form reads back as the same value.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/syscache.h"

#include "bk_pg.h"
#include "bk_label.h"

PG_FUNCTION_INFO_V1(bk_label_in);
PG_FUNCTION_INFO_V1(bk_label_out);
PG_FUNCTION_INFO_V1(bk_label_recv);
PG_FUNCTION_INFO_V1(bk_label_send);
PG_FUNCTION_INFO_V1(bk_label_from_int2);
PG_FUNCTION_INFO_V1(bk_label_from_int4);
PG_FUNCTION_INFO_V1(bk_label_from_int8);
PG_FUNCTION_INFO_V1(bk_label_from_float4);
PG_FUNCTION_INFO_V1(bk_label_from_float8);
PG_FUNCTION_INFO_V1(bk_label_from_numeric);
PG_FUNCTION_INFO_V1(bk_label_from_bpchar);

/* a number label's bytes after the varlena header */
#define LABEL_NUMBER_SIZE (2 + 8)

static Datum
label_number(char kind, const void *value)
{
	bytea	   *v = (bytea *) palloc(VARHDRSZ + LABEL_NUMBER_SIZE);
	char	   *p = VARDATA(v);

	SET_VARSIZE(v, VARHDRSZ + LABEL_NUMBER_SIZE);
	p[0] = '\0';
	p[1] = kind;
	memcpy(p + 2, value, 8);
	return PointerGetDatum(v);
}

static Datum
label_int(int64 i)
{
	return label_number('i', &i);
}

static Datum
label_float(char kind, double f)
{
	return label_number(kind, &f);
}

void
BkPgLabelRead(Datum d, BkLabel *l)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(d);
	const char *p = VARDATA_ANY(v);
	Size		len = VARSIZE_ANY_EXHDR(v);

	memset(l, 0, sizeof(*l));
	if (len == 0 || p[0] != '\0')
	{
		l->kind = BK_LABEL_TEXT;
		l->t = (text *) v;
		return;
	}
	if (len != LABEL_NUMBER_SIZE || (p[1] != 'i' && p[1] != 'f' && p[1] != 'n'))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid bk_label value")));
	if (p[1] == 'i')
	{
		l->kind = BK_LABEL_INT;
		memcpy(&l->i, p + 2, 8);
	}
	else
	{
		l->kind = p[1] == 'f' ? BK_LABEL_FLOAT : BK_LABEL_NUMERIC;
		memcpy(&l->f, p + 2, 8);
	}
}

const char *
BkPgLabelKindName(BkLabelKind k)
{
	switch (k)
	{
		case BK_LABEL_TEXT:
			return "text";
		case BK_LABEL_INT:
			return "integer";
		case BK_LABEL_FLOAT:
			return "float8";
		case BK_LABEL_NUMERIC:
			return "numeric";
	}
	return "unknown";
}

bool
BkPgIsLabelType(Oid t)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(t));
	bool		is;

	if (!HeapTupleIsValid(tup))
		return false;
	is = strcmp(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname), "bk_label") == 0;
	ReleaseSysCache(tup);
	return is;
}

/* ------------------------------------------------------------------------
 * The casts
 * ------------------------------------------------------------------------
 */
Datum
bk_label_from_int2(PG_FUNCTION_ARGS)
{
	return label_int((int64) PG_GETARG_INT16(0));
}

Datum
bk_label_from_int4(PG_FUNCTION_ARGS)
{
	return label_int((int64) PG_GETARG_INT32(0));
}

Datum
bk_label_from_int8(PG_FUNCTION_ARGS)
{
	return label_int(PG_GETARG_INT64(0));
}

Datum
bk_label_from_float4(PG_FUNCTION_ARGS)
{
	return label_float('f', (double) PG_GETARG_FLOAT4(0));
}

Datum
bk_label_from_float8(PG_FUNCTION_ARGS)
{
	return label_float('f', PG_GETARG_FLOAT8(0));
}

/* numeric: its nearest float8 (NaN and the infinities kept), as numeric's cast gives */
Datum
bk_label_from_numeric(PG_FUNCTION_ARGS)
{
	return label_float('n', DatumGetFloat8(DirectFunctionCall1(numeric_float8,
															   PG_GETARG_DATUM(0))));
}

/* char(n): without its trailing blanks, as its cast to text */
Datum
bk_label_from_bpchar(PG_FUNCTION_ARGS)
{
	return DirectFunctionCall1(rtrim1, PG_GETARG_DATUM(0));
}

/* ------------------------------------------------------------------------
 * Text and binary forms
 * ------------------------------------------------------------------------
 */

/* the suffixes of a number's text form: int8, float8, numeric */
static const char *const number_suffixes[] = {"::int8", "::float8", "::numeric"};

static bool
ends_with(const char *s, size_t n, const char *suffix)
{
	size_t		k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/*
 * Whether s[0..n) is a number in the text form, "5::int8", "0.5::float8"
 * or "2.5::numeric", read into *out.  Never an error: a string that is
 * not one (an integer beyond int8, a float8 beyond its range, anything
 * but a whole number before the suffix) is a text label, in the input
 * function and in the output function's check alike.
 */
static bool
number_form(const char *s, size_t n, Datum *out)
{
	for (int which = 0; which < 3; which++)
	{
		size_t		k = strlen(number_suffixes[which]);
		char	   *num;
		char	   *end;

		if (!ends_with(s, n, number_suffixes[which]) || n == k ||
			isspace((unsigned char) s[0]))
			continue;
		num = pnstrdup(s, n - k);
		errno = 0;
		if (which == 0)
		{
			/* an integer: an optional sign and digits, within int8 */
			int64		i;

			if (!isdigit((unsigned char) num[num[0] == '-' || num[0] == '+' ? 1 : 0]))
				return false;
			i = strtoi64(num, &end, 10);
			if (*end != '\0' || errno == ERANGE)
				return false;
			*out = label_int(i);
			return true;
		}
		else
		{
			/* a float8 (numeric: read as its float8): what float8in reads */
			double		f;

			if (pg_strcasecmp(num, "NaN") == 0 || pg_strcasecmp(num, "Infinity") == 0 ||
				pg_strcasecmp(num, "-Infinity") == 0)
				f = DatumGetFloat8(DirectFunctionCall1(float8in, CStringGetDatum(num)));
			else
			{
				f = strtod(num, &end);
				if (end == num || *end != '\0' || !isfinite(f) ||
					(errno == ERANGE && f == 0.0))
					return false;
			}
			*out = label_float(which == 1 ? 'f' : 'n', f);
			return true;
		}
	}
	return false;
}

Datum
bk_label_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	size_t		n = strlen(s);
	Datum		d;

	if (number_form(s, n, &d))
		PG_RETURN_DATUM(d);
	if (ends_with(s, n, "::text"))
		n -= strlen("::text");
	PG_RETURN_TEXT_P(cstring_to_text_with_len(s, (int) n));
}

Datum
bk_label_out(PG_FUNCTION_ARGS)
{
	BkLabel		l;
	StringInfoData buf;

	BkPgLabelRead(PG_GETARG_DATUM(0), &l);
	initStringInfo(&buf);
	switch (l.kind)
	{
		case BK_LABEL_TEXT:
			{
				char	   *s = text_to_cstring(l.t);
				size_t		n = strlen(s);
				Datum		ignored;

				appendStringInfoString(&buf, s);
				/* a text that would read back as a number, or lose its "::text" */
				if (number_form(s, n, &ignored) || ends_with(s, n, "::text"))
					appendStringInfoString(&buf, "::text");
				break;
			}
		case BK_LABEL_INT:
			appendStringInfo(&buf, INT64_FORMAT "::int8", l.i);
			break;
		case BK_LABEL_FLOAT:
		case BK_LABEL_NUMERIC:
			appendStringInfo(&buf, "%s::%s",
							 DatumGetCString(DirectFunctionCall1(float8out, Float8GetDatum(l.f))),
							 l.kind == BK_LABEL_FLOAT ? "float8" : "numeric");
			break;
	}
	PG_RETURN_CSTRING(buf.data);
}

/* binary form: the kind byte ('t', 'i', 'f', 'n'), then the text or the eight bytes */
Datum
bk_label_send(PG_FUNCTION_ARGS)
{
	BkLabel		l;
	StringInfoData buf;

	BkPgLabelRead(PG_GETARG_DATUM(0), &l);
	pq_begintypsend(&buf);
	switch (l.kind)
	{
		case BK_LABEL_TEXT:
			pq_sendbyte(&buf, 't');
			pq_sendtext(&buf, VARDATA_ANY(l.t), VARSIZE_ANY_EXHDR(l.t));
			break;
		case BK_LABEL_INT:
			pq_sendbyte(&buf, 'i');
			pq_sendint64(&buf, l.i);
			break;
		case BK_LABEL_FLOAT:
		case BK_LABEL_NUMERIC:
			pq_sendbyte(&buf, l.kind == BK_LABEL_FLOAT ? 'f' : 'n');
			pq_sendfloat8(&buf, l.f);
			break;
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
bk_label_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			kind = pq_getmsgbyte(buf);
	Datum		d;

	switch (kind)
	{
		case 't':
			{
				int			nbytes;
				char	   *s = pq_getmsgtext(buf, buf->len - buf->cursor, &nbytes);

				d = PointerGetDatum(cstring_to_text_with_len(s, nbytes));
				break;
			}
		case 'i':
			d = label_int(pq_getmsgint64(buf));
			break;
		case 'f':
		case 'n':
			d = label_float((char) kind, pq_getmsgfloat8(buf));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid kind %d in external bk_label value", kind)));
	}
	pq_getmsgend(buf);
	PG_RETURN_DATUM(d);
}

/* ------------------------------------------------------------------------
 * The task
 * ------------------------------------------------------------------------
 */
const char *
BkPgTaskName(BkTask t)
{
	switch (t)
	{
		case BK_TASK_CLASSIFICATION:
			return "classification";
		case BK_TASK_REGRESSION:
			return "regression";
		case BK_TASK_NOVELTY:
			return "novelty";
		case BK_TASK_DEFAULT:
			break;
	}
	return "default";
}

BkTask
BkPgTaskFromJsonb(Jsonb *jb)
{
	JsonbValue	key;
	JsonbValue *v;

	if (!JB_ROOT_IS_OBJECT(jb))
		return BK_TASK_DEFAULT;
	key.type = jbvString;
	key.val.string.val = "task";
	key.val.string.len = 4;
	v = findJsonbValueFromContainer(&jb->root, JB_FOBJECT, &key);
	if (v == NULL)
		return BK_TASK_DEFAULT;
	if (v->type == jbvString)
	{
		for (BkTask t = BK_TASK_CLASSIFICATION; t <= BK_TASK_NOVELTY; t++)
			if (strlen(BkPgTaskName(t)) == (size_t) v->val.string.len &&
				memcmp(BkPgTaskName(t), v->val.string.val, v->val.string.len) == 0)
				return t;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("parameter \"task\" must be \"classification\", \"regression\" or \"novelty\"")));
	return BK_TASK_DEFAULT;		/* keep the compiler quiet */
}

/* ------------------------------------------------------------------------
 * A label as a model reads it
 * ------------------------------------------------------------------------
 */
int
BkPgLabelClass(BkModel *m, const BkLabel *l, const char *fname, int64 row)
{
	BkModelInfo info;
	int			c;

	BkModelGetInfo(m, &info);
	if ((l->kind == BK_LABEL_TEXT) != info.text_labels)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the label at row %lld is %s, and the model's labels are %s",
						fname, (long long) row, BkPgLabelKindName(l->kind),
						info.text_labels ? "text" : "integers"),
				 errhint(info.text_labels ? "Pass the labels as text, for example label::text." :
						 "Pass the labels as integers, for example label::int8.")));
	if (l->kind == BK_LABEL_TEXT)
	{
		size_t		len = VARSIZE_ANY_EXHDR(l->t);
		const char *label = BkPgLabelIn(m, VARDATA_ANY(l->t), &len);

		c = BkModelClassIndex(m, 0, label, len);
		if (c < 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("%s: the label \"%s\" at row %lld is not a class of the model",
							fname, text_to_cstring(l->t), (long long) row),
					 errhint("Leave such rows out, or train a model that has the class.")));
		return c;
	}
	else
	{
		int64		v = l->i;

		if (l->kind != BK_LABEL_INT)
		{
			if (l->f != floor(l->f) || fabs(l->f) > 9007199254740991.0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s: the label %g at row %lld is not an integer, and the model is a classifier",
								fname, l->f, (long long) row)));
			v = (int64) l->f;
		}
		c = BkModelClassIndex(m, v, NULL, 0);
		if (c < 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("%s: the label %lld at row %lld is not a class of the model",
							fname, (long long) v, (long long) row),
					 errhint("Leave such rows out, or train a model that has the class.")));
		return c;
	}
}

double
BkPgLabelTarget(const BkLabel *l, const char *fname, int64 row)
{
	double		v;

	if (l->kind == BK_LABEL_TEXT)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the target at row %lld is text, and the model is a regressor, whose targets are numbers",
						fname, (long long) row),
				 errhint("Pass the rows' targets as numbers, for example target::float8.")));
	v = l->kind == BK_LABEL_INT ? (double) l->i : l->f;
	if (!isfinite(v))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the target at row %lld is %g, not a finite number",
						fname, (long long) row, v),
				 errhint("Leave such rows out, or give them a finite target.")));
	return v;
}

/* ------------------------------------------------------------------------
 * Order: numbers by value (an integer and a float8 as numbers), before
 * text, text by bytes.  For ORDER BY label inside an aggregate call,
 * whose sort key is the argument, cast to bk_label.
 * ------------------------------------------------------------------------
 */
PG_FUNCTION_INFO_V1(bk_label_cmp);
PG_FUNCTION_INFO_V1(bk_label_lt);
PG_FUNCTION_INFO_V1(bk_label_le);
PG_FUNCTION_INFO_V1(bk_label_eq);
PG_FUNCTION_INFO_V1(bk_label_ge);
PG_FUNCTION_INFO_V1(bk_label_gt);

static int
label_cmp(Datum da, Datum db)
{
	BkLabel		a,
				b;

	BkPgLabelRead(da, &a);
	BkPgLabelRead(db, &b);
	if ((a.kind == BK_LABEL_TEXT) != (b.kind == BK_LABEL_TEXT))
		return a.kind == BK_LABEL_TEXT ? 1 : -1;
	if (a.kind == BK_LABEL_TEXT)
	{
		size_t		la = VARSIZE_ANY_EXHDR(a.t),
					lb = VARSIZE_ANY_EXHDR(b.t);
		int			c = memcmp(VARDATA_ANY(a.t), VARDATA_ANY(b.t), Min(la, lb));

		return c != 0 ? (c < 0 ? -1 : 1) : (la < lb ? -1 : la > lb ? 1 : 0);
	}
	if (a.kind == BK_LABEL_INT && b.kind == BK_LABEL_INT)
		return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
	{
		/* as float8, NaN last, as float8's own order */
		double		x = a.kind == BK_LABEL_INT ? (double) a.i : a.f;
		double		y = b.kind == BK_LABEL_INT ? (double) b.i : b.f;

		return float8_cmp_internal(x, y);
	}
}

Datum
bk_label_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(label_cmp(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)));
}

Datum
bk_label_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(label_cmp(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) < 0);
}

Datum
bk_label_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(label_cmp(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) <= 0);
}

Datum
bk_label_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(label_cmp(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) == 0);
}

Datum
bk_label_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(label_cmp(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) >= 0);
}

Datum
bk_label_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(label_cmp(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) > 0);
}

/* ------------------------------------------------------------------------
 * Labels of the forms before 0.4.0.  A database whose extension is not
 * yet updated calls this library through its 0.3.0 objects, whose label
 * arguments are int8, int4, text or float8: read them as bk_label would
 * be, never take them for one.
 * ------------------------------------------------------------------------
 */
int
BkPgLabelSource(Oid t)
{
	switch (t)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
		case TEXTOID:
		case VARCHAROID:
			return (int) t;
	}
	return BkPgIsLabelType(t) ? BK_LABEL_SOURCE_BK_LABEL : BK_LABEL_SOURCE_NONE;
}

void
BkPgLabelFrom(int source, Datum d, BkLabel *l)
{
	memset(l, 0, sizeof(*l));
	switch (source)
	{
		case BK_LABEL_SOURCE_BK_LABEL:
			BkPgLabelRead(d, l);
			return;
		case INT2OID:
			l->kind = BK_LABEL_INT;
			l->i = DatumGetInt16(d);
			return;
		case INT4OID:
			l->kind = BK_LABEL_INT;
			l->i = DatumGetInt32(d);
			return;
		case INT8OID:
			l->kind = BK_LABEL_INT;
			l->i = DatumGetInt64(d);
			return;
		case FLOAT4OID:
			l->kind = BK_LABEL_FLOAT;
			l->f = DatumGetFloat4(d);
			return;
		case FLOAT8OID:
			l->kind = BK_LABEL_FLOAT;
			l->f = DatumGetFloat8(d);
			return;
		case NUMERICOID:
			l->kind = BK_LABEL_NUMERIC;
			l->f = DatumGetFloat8(DirectFunctionCall1(numeric_float8, d));
			return;
		case TEXTOID:
		case VARCHAROID:
			l->kind = BK_LABEL_TEXT;
			l->t = DatumGetTextPP(d);
			return;
	}
	elog(ERROR, "a label of an unknown source %d", source);
}
