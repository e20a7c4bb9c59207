/*
 * bk_jsonb_build.c
 *	  Building jsonb values with pushJsonbValue: keys, strings, booleans,
 *	  nulls and numbers (doubles written with the shortest text that reads
 *	  back exactly).  bk_info and the metrics aggregates build their
 *	  reports with these.
 */
#include "postgres.h"

#include <math.h>
#include <string.h>

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "bk_pg.h"

void
bk_push_key(JsonbParseState **ps, const char *key)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) key;
	v.val.string.len = (int) strlen(key);
	pushJsonbValue(ps, WJB_KEY, &v);
}

void
bk_push_string(JsonbParseState **ps, JsonbIteratorToken tok, const char *s)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) s;
	v.val.string.len = (int) strlen(s);
	pushJsonbValue(ps, tok, &v);
}

void
bk_push_bool(JsonbParseState **ps, JsonbIteratorToken tok, bool b)
{
	JsonbValue	v;

	v.type = jbvBool;
	v.val.boolean = b;
	pushJsonbValue(ps, tok, &v);
}

void
bk_push_null(JsonbParseState **ps, JsonbIteratorToken tok)
{
	JsonbValue	v;

	v.type = jbvNull;
	pushJsonbValue(ps, tok, &v);
}

void
bk_push_numeric(JsonbParseState **ps, JsonbIteratorToken tok, Numeric num)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = num;
	pushJsonbValue(ps, tok, &v);
}

void
bk_push_int64(JsonbParseState **ps, JsonbIteratorToken tok, int64 i)
{
	bk_push_numeric(ps, tok,
					DatumGetNumeric(DirectFunctionCall1(int8_numeric,
														Int64GetDatum(i))));
}

void
bk_push_uint64(JsonbParseState **ps, JsonbIteratorToken tok, uint64 u)
{
	char		buf[32];

	if (u <= (uint64) PG_INT64_MAX)
	{
		bk_push_int64(ps, tok, (int64) u);
		return;
	}
	snprintf(buf, sizeof(buf), UINT64_FORMAT, u);
	bk_push_numeric(ps, tok,
					DatumGetNumeric(DirectFunctionCall3(numeric_in,
														CStringGetDatum(buf),
														ObjectIdGetDatum(InvalidOid),
														Int32GetDatum(-1))));
}

/*
 * A double as a JSON number, written with the shortest text that reads
 * back exactly (as float8 output does); non-finite values become null
 */
void
bk_push_double(JsonbParseState **ps, JsonbIteratorToken tok, double d)
{
	if (!isfinite(d))
	{
		bk_push_null(ps, tok);
		return;
	}
	bk_push_numeric(ps, tok,
					DatumGetNumeric(DirectFunctionCall3(numeric_in,
														CStringGetDatum(float8out_internal(d)),
														ObjectIdGetDatum(InvalidOid),
														Int32GetDatum(-1))));
}

/* An integer-valued parameter: a JSON integer when it is one */
void
bk_push_integer_param(JsonbParseState **ps, JsonbIteratorToken tok, double d)
{
	if (isfinite(d) && d == floor(d) &&
		d >= -9223372036854775808.0 && d < 9223372036854775808.0)
		bk_push_int64(ps, tok, (int64) d);
	else if (isfinite(d) && d == floor(d) &&
			 d >= 0 && d < 18446744073709551616.0)
		bk_push_uint64(ps, tok, (uint64) d);
	else
		bk_push_double(ps, tok, d);
}
