/*
 * bk_prepare.c
 *	  A row's features argument, a float8[] array or a jsonb object, as the
 *	  vector the model learns from or scores: read, checked, and passed
 *	  through the model's preparation (the core's bk_prep.c), or fed to the
 *	  fit of a preparation during training.
 *
 * A float8[] argument of a model without preparation keeps the direct
 * path of bk_features.c: the array's own data, no copy (other numeric
 * arrays are converted there).  A jsonb object's
 * keys are the model's named inputs: numbers are numeric, strings and
 * booleans ("true", "false") categorical, null or an absent key missing;
 * other keys of the object are ignored at scoring, so that a whole row
 * (to_jsonb(t)) can be scored.  Keys and text values are kept in UTF-8,
 * as text labels are.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/syscache.h"

#include "bk_pg.h"

/* " at row N" when there is a row number, "" when scoring */
static const char *
row_text(int64 row)
{
	return row > 0 ? psprintf(" at row %lld", (long long) row) : "";
}

/*
 * The values and NULL flags of a features array; *isnull is NULL when the
 * array has no NULL element (then the values are the array's own data).
 */
static const double *
read_array_nulls(ArrayType *a, int64 row, int *n, bool **isnull)
{
	double	   *x;
	bool	   *nulls;
	int			nitems;

	*isnull = NULL;
	if (!ARR_HASNULL(a))
		return BkPgReadFeatures(a, row, n);
	if (ARR_NDIM(a) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("features must be a one-dimensional array")));
	nitems = ARR_DIMS(a)[0];
	if (nitems > BK_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("features%s have %d values, more than the limit of %d",
						row_text(row), nitems, BK_MAX_DIM)));
	/* float8[] or another numeric array, its values as doubles */
	x = BkPgArrayDoubles(a, &nulls, &nitems);
	for (int i = 0; i < nitems; i++)
	{
		if (!nulls[i] && !isfinite(x[i]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("features%s, position %d is %s", row_text(row), i + 1,
							isnan(x[i]) ? "NaN" : (x[i] > 0 ? "Infinity" : "-Infinity"))));
	}
	*isnull = nulls;
	*n = nitems;
	return x;
}

/* a string of the database as UTF-8 (the model's keys and levels) */
static const char *
utf8_of(const char *s, int len, size_t *outlen)
{
	char	   *u = pg_server_to_any(s, len, PG_UTF8);

	*outlen = (u == s) ? (size_t) len : strlen(u);
	return u;
}

/*
 * numeric's varlena, as PostgreSQL stores it on disk (numeric.c's
 * NumericData: pg_upgrade keeps it, so it does not change between
 * majors): a 4-byte length, then a 16-bit header -- the short form
 * (flag bits 10) packs sign, display scale and weight into it, the long
 * form (00 positive, 01 negative) the sign and display scale, followed by
 * a 16-bit weight; 11 is NaN or an infinity -- then the digits, base
 * 10,000, the first of them weighing 10000^weight.
 */
#define BK_NUMERIC_FLAGS		0xC000
#define BK_NUMERIC_NEG			0x4000
#define BK_NUMERIC_SHORT		0x8000
#define BK_NUMERIC_SPECIAL		0xC000
#define BK_NUMERIC_DSCALE_MASK	0x3FFF
#define BK_NUMERIC_SHORT_SIGN	0x2000
#define BK_NUMERIC_SHORT_DSCALE_MASK 0x1F80
#define BK_NUMERIC_SHORT_DSCALE_SHIFT 7
#define BK_NUMERIC_SHORT_WEIGHT_SIGN 0x0040
#define BK_NUMERIC_SHORT_WEIGHT_MASK 0x003F

/*
 * The finite numeric n as sign, significand and power of ten, when the
 * significand fits in 64 bits; false for anything else.  The value is
 * the digits' exact value, the text numeric_out prints: its integer part,
 * then exactly dscale fractional digits -- so a number with a non-zero
 * digit beyond its display scale (numeric.c makes none) is refused, as
 * it would print otherwise.
 */
static bool
numeric_decimal(Numeric n, bool *neg, uint64 *m, int *exp10)
{
	const char *p = (const char *) n;
	uint16		header;
	int			weight,
				dscale,
				ndigits,
				frac;
	const uint16 *digits;
	uint64		v = 0;
	int			e;

	if (VARATT_IS_EXTENDED(n))
		return false;
	memcpy(&header, p + VARHDRSZ, sizeof(header));
	if ((header & BK_NUMERIC_FLAGS) == BK_NUMERIC_SPECIAL)
		return false;
	if ((header & BK_NUMERIC_FLAGS) == BK_NUMERIC_SHORT)
	{
		*neg = (header & BK_NUMERIC_SHORT_SIGN) != 0;
		dscale = (header & BK_NUMERIC_SHORT_DSCALE_MASK) >> BK_NUMERIC_SHORT_DSCALE_SHIFT;
		weight = (header & BK_NUMERIC_SHORT_WEIGHT_MASK) |
			((header & BK_NUMERIC_SHORT_WEIGHT_SIGN) ? ~BK_NUMERIC_SHORT_WEIGHT_MASK : 0);
		digits = (const uint16 *) (p + VARHDRSZ + sizeof(uint16));
	}
	else
	{
		int16		w;

		*neg = (header & BK_NUMERIC_FLAGS) == BK_NUMERIC_NEG;
		dscale = header & BK_NUMERIC_DSCALE_MASK;
		memcpy(&w, p + VARHDRSZ + sizeof(uint16), sizeof(w));
		weight = w;
		digits = (const uint16 *) (p + VARHDRSZ + 2 * sizeof(uint16));
	}
	ndigits = (int) ((VARSIZE(n) - ((const char *) digits - p)) / sizeof(uint16));
	/* trailing zero digits (numeric.c strips them) */
	while (ndigits > 0 && digits[ndigits - 1] == 0)
		ndigits--;
	if (ndigits == 0)
	{
		/* zero: numeric_out prints "0", or "-0" with the sign set */
		*m = 0;
		*exp10 = 0;
		return true;
	}
	for (int i = 0; i < ndigits; i++)
	{
		/* not a base-10,000 digit, or more digits than 64 bits hold */
		if (digits[i] > 9999 || v > (PG_UINT64_MAX - 9999) / 10000)
			return false;
		v = v * 10000 + digits[i];
	}
	e = 4 * (weight - ndigits + 1);
	while (v % 10 == 0)
	{
		v /= 10;
		e++;
	}
	frac = e < 0 ? -e : 0;
	if (frac > dscale)
		return false;
	*m = v;
	*exp10 = e;
	return true;
}

/*
 * A JSON number as a double, the value of numeric's cast to float8 (its
 * numeric_out text read by strtod): straight from the numeric's digits
 * when the significand and the power of ten give it exactly
 * (BkDecimalDouble: the correctly rounded double of the number's exact
 * value, which strtod gives too), else numeric_out's text read by
 * BkParseDouble.  Out of float8's range is an error naming the key.
 * test/sql/json_numbers.sql compares the two ways, bit for bit.
 */
static double
json_number(const JsonbValue *v, const char *key, int keylen, int64 row)
{
	char	   *text;
	char	   *end;
	double		d;
	bool		neg;
	uint64		m;
	int			e;

	if (numeric_decimal(v->val.numeric, &neg, &m, &e) && BkDecimalDouble(neg, m, e, &d))
		return d;
	text = DatumGetCString(DirectFunctionCall1(numeric_out,
											   NumericGetDatum(v->val.numeric)));
	errno = 0;
	d = BkParseDouble(text, &end);
	/* as float8's input: out of range, not rounded to 0 or infinity */
	if (!isfinite(d) || *end != '\0' || (errno == ERANGE && d == 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("key \"%.*s\"%s holds a number out of the range of float8",
						keylen, key, row_text(row))));
	pfree(text);
	return d;
}

static void
refuse_json_value(const JsonbValue *v, const char *key, int keylen, int64 row)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("key \"%.*s\"%s holds an %s; a feature is a number, a string, a boolean or null",
					keylen, key, row_text(row),
					(v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data)) ?
					"array" : "object")));
}

/* A JSON value as a feature: a number, text (UTF-8), or missing (null) */
typedef enum JsonFeatureKind
{
	JSON_FEATURE_MISSING,
	JSON_FEATURE_NUMBER,
	JSON_FEATURE_TEXT
} JsonFeatureKind;

typedef struct JsonFeature
{
	JsonFeatureKind kind;
	double		number;
	const char *text;
	size_t		len;
} JsonFeature;

/*
 * The value v of key (keylen bytes, for messages) as a feature: strings in
 * UTF-8, booleans as the text "true" or "false"; an array or an object is
 * an error
 */
static void
json_feature(const JsonbValue *v, const char *key, int keylen, int64 row, JsonFeature *jf)
{
	switch (v->type)
	{
		case jbvNull:
			jf->kind = JSON_FEATURE_MISSING;
			break;
		case jbvNumeric:
			jf->kind = JSON_FEATURE_NUMBER;
			jf->number = json_number(v, key, keylen, row);
			break;
		case jbvString:
			jf->kind = JSON_FEATURE_TEXT;
			jf->text = utf8_of(v->val.string.val, v->val.string.len, &jf->len);
			break;
		case jbvBool:
			jf->kind = JSON_FEATURE_TEXT;
			jf->text = v->val.boolean ? "true" : "false";
			jf->len = v->val.boolean ? 4 : 5;
			break;
		default:
			refuse_json_value(v, key, keylen, row);
	}
}

static Jsonb *
features_object(Datum d, int64 row)
{
	Jsonb	   *jb = DatumGetJsonbP(d);

	if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("features%s must be a JSON object of named values", row_text(row)),
				 errhint("Pass a row as to_jsonb(t) - 'label' - 'id', or jsonb_build_object('age', age, ...).")));
	return jb;
}

static const char *
form_text(BkFeatureForm form)
{
	return form == BK_FORM_NAMED ? "named features (jsonb)" :
		form == BK_FORM_SPARSE ? "sparse features (bk_sparse)" : "features arrays";
}

/*
 * A sparse row: checked against the model's dimension and declared to the
 * core, which computes its kernel rows from the non-zero values; densified
 * only to learn (the learner copies a row it keeps as a support vector)
 */
static const double *
sparse_row(BkModel *m, Datum features, int64 row, const char *whose,
		   bool scoring)
{
	const BkSparse *s = (const BkSparse *) DatumGetPointer(features);
	double	   *x;
	BkModelInfo info;

	BkPgSparseCheck(s, row > 0 ? psprintf("features at row %lld", (long long) row) : "features");
	BkModelGetInfo(m, &info);
	if (s->dim != info.dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("features%s have dimension %d, expected %d (%s dimension)",
						row_text(row), s->dim, info.dim, whose)));
	/* scoring needs no dense form: a row of 2^24 dimensions stays small */
	if (scoring)
		return BkModelSparseScoringRow(m, s->indices, BkSparseValues(s), s->nnz);
	x = BkPgSparseDense(s);
	BkModelSparseRow(m, x, s->indices, BkSparseValues(s), s->nnz);
	return x;
}

void
BkPgFitRow(BkPrepFit *f, Datum features, BkFeatureForm form, int64 row)
{
	if (form != BK_FORM_NAMED)
	{
		bool	   *isnull;
		int			n;
		const double *x = read_array_nulls(DatumGetArrayTypeP(features), row, &n, &isnull);

		BkPrepFitArray(f, x, isnull, n);
		return;
	}
	else
	{
		Jsonb	   *jb = features_object(features, row);
		JsonbIterator *it = JsonbIteratorInit(&jb->root);
		JsonbValue	v;
		JsonbIteratorToken tok;
		int			input = -1,
					pos = 0;
		const char *key = NULL;
		int			keylen = 0;

		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
			{
				size_t		len;
				const char *u = utf8_of(v.val.string.val, v.val.string.len, &len);

				input = BkPrepFitKeyAt(f, pos++, u, len);
				key = v.val.string.val;
				keylen = v.val.string.len;
			}
			else if (tok == WJB_VALUE)
			{
				JsonFeature jf;

				json_feature(&v, key, keylen, row, &jf);
				if (jf.kind == JSON_FEATURE_NUMBER)
					BkPrepFitNumber(f, input, jf.number);
				else if (jf.kind == JSON_FEATURE_TEXT)
					BkPrepFitText(f, input, jf.text, jf.len);
			}
		}
	}
}

/* "a", "b", ... (at most BK_TALLY_KEYS, then "...") of a list of names */
static void
append_names(StringInfo buf, const char *const *names, int n, bool more)
{
	for (int i = 0; i < n; i++)
		appendStringInfo(buf, "%s%s", i > 0 ? ", " : "", quote_literal_cstr(names[i]));
	if (more)
		appendStringInfoString(buf, ", ...");
}

/* the name of input i in the server encoding */
static char *
input_name(const BkPrep *p, int i)
{
	size_t		len;
	const char *u = BkPrepInputName(p, i, &len);

	return pg_any_to_server(u, (int) len, PG_UTF8);
}

/*
 * A row of named features that names none of the model's keys: an error
 * naming both (an empty object, keys in another case, another table's
 * column names), never a row scored as the mean of the training rows.
 */
static void
no_key_of_the_model(const BkPrep *p, Jsonb *jb, int64 row)
{
	StringInfoData model_keys,
				row_keys;
	int			n = BkPrepInputs(p);
	char	   *names[BK_TALLY_KEYS];
	int			k = 0;
	bool		more = false;
	JsonbIterator *it = JsonbIteratorInit(&jb->root);
	JsonbValue	v;
	JsonbIteratorToken tok;

	initStringInfo(&model_keys);
	for (int i = 0; i < n && i < BK_TALLY_KEYS; i++)
		names[k++] = input_name(p, i);
	append_names(&model_keys, (const char *const *) names, k, n > BK_TALLY_KEYS);
	k = 0;
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY)
		{
			if (k < BK_TALLY_KEYS)
				names[k++] = pnstrdup(v.val.string.val, v.val.string.len);
			else
				more = true;
		}
	initStringInfo(&row_keys);
	append_names(&row_keys, (const char *const *) names, k, more);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the features%s name none of the model's %d keys", row_text(row), n),
			 errdetail("The model's keys are %s; the row's are %s.", model_keys.data,
					   k > 0 ? row_keys.data : "none (an empty object)"),
			 errhint("Keys are case-sensitive: pass the features under the names the model was trained on (bk_info(model)->'preparation'->'inputs').")));
}

/* count a scored row of named features, and the keys it lacked */
static void
tally_row(BkPgKeyTally *tally, const BkModel *m, const BkPrep *p, int absent)
{
	tally->rows++;
	if (absent == 0)
		return;
	tally->lacking++;
	for (int i = 0; i < BkPrepInputs(p); i++)
	{
		char	   *name;
		bool		seen = false;

		if (BkPrepRowNamed(m, i))
			continue;
		name = input_name(p, i);
		for (int j = 0; j < tally->n_keys && !seen; j++)
			seen = strcmp(tally->keys[j], name) == 0;
		if (seen)
			continue;
		if (tally->n_keys < BK_TALLY_KEYS)
			tally->keys[tally->n_keys++] = MemoryContextStrdup(tally->mcxt, name);
		else
			tally->more_keys = true;
	}
}

static const double *
model_row(BkModel *m, Datum features, BkFeatureForm form, int64 row,
		  const char *whose, bool scoring, BkPgKeyTally *tally)
{
	const BkPrep *p = BkModelPrep(m);
	bool		named = form == BK_FORM_NAMED;
	double	   *out;
	int			absent;

	if (form == BK_FORM_SPARSE && p == NULL)
		return sparse_row(m, PointerGetDatum(PG_DETOAST_DATUM(features)), row, whose,
						  scoring);
	if (form == BK_FORM_ARRAY && p == NULL)
	{
		int			n;
		const double *x = BkPgReadFeatures(DatumGetArrayTypeP(features), row, &n);

		if (n != BkModelDim(m))
			BkPgCheckDim(n, BkModelDim(m), row, whose);
		return x;
	}
	if (p == NULL || form == BK_FORM_SPARSE || BkPrepNamed(p) != named)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the model was trained on %s, not on %s",
						p != NULL && BkPrepNamed(p) ? "named features (jsonb)" : "features arrays",
						form_text(form)),
				 errhint("Pass the features in the form the model was trained on.")));
	out = palloc(sizeof(double) * (Size) BkPrepDim(p));
	if (!named)
	{
		bool	   *isnull;
		int			n;
		const double *x = read_array_nulls(DatumGetArrayTypeP(features), row, &n, &isnull);

		if (n != BkPrepInputs(p))
			BkPgCheckDim(n, BkPrepInputs(p), row, whose);
		BkPrepApplyArray(m, x, isnull, n, out);
	}
	else
	{
		/* one pass over the row's pairs; keys the model does not know are skipped */
		Jsonb	   *jb = features_object(features, row);
		JsonbIterator *it = JsonbIteratorInit(&jb->root);
		JsonbValue	v;
		JsonbIteratorToken tok;
		int			input = -1,
					pos = 0;
		const char *key = NULL;
		int			keylen = 0;

		BkPrepRowBegin(m, out);
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
			{
				size_t		len;
				const char *u = utf8_of(v.val.string.val, v.val.string.len, &len);

				input = BkPrepKey(m, pos++, u, len);
				key = v.val.string.val;
				keylen = v.val.string.len;
			}
			else if (tok == WJB_VALUE && input >= 0)
			{
				JsonFeature jf;

				json_feature(&v, key, keylen, row, &jf);
				if (jf.kind == JSON_FEATURE_NUMBER)
					BkPrepPutNumber(m, input, jf.number, out);
				else if (jf.kind == JSON_FEATURE_TEXT)
					BkPrepPutText(m, input, jf.text, jf.len, out);
				else
					BkPrepPutMissing(m, input, out);
			}
		}
		absent = BkPrepRowEnd(m, out);
		if (absent == BkPrepInputs(p))
			no_key_of_the_model(p, jb, row);
		if (tally != NULL)
			tally_row(tally, m, p, absent);
	}
	return out;
}

const double *
BkPgModelRow(BkModel *m, Datum features, BkFeatureForm form, int64 row,
			 const char *whose, BkPgKeyTally *tally)
{
	return model_row(m, features, form, row, whose, false, tally);
}

const double *
BkPgScoringRow(BkModel *m, Datum features, BkFeatureForm form, int64 row,
			   const char *whose, BkPgKeyTally *tally)
{
	return model_row(m, features, form, row, whose, true, tally);
}

void
BkPgWarnKeys(const BkPgKeyTally *tally, const char *fname)
{
	StringInfoData keys;

	if (tally->lacking == 0 || !bk_run_warnings)
		return;
	initStringInfo(&keys);
	append_names(&keys, (const char *const *) tally->keys, tally->n_keys, tally->more_keys);
	ereport(WARNING,
			(errmsg("%s: %lld of %lld rows lacked keys the model was trained on (%s): those inputs were imputed",
					fname, (long long) tally->lacking, (long long) tally->rows, keys.data),
			 errdetail("A key of another name, or another case, is not the same input: its value was not used."),
			 errhint("Pass the features under the names the model was trained on (bk_info(model)->'preparation'->'inputs'); SET budgetkernel.run_warnings = off silences this warning.")));
}

/*
 * bk_data_drift: one row's values as they are, before any preparation, to
 * the drift's statistics by the model's inputs (the numbers, the text, the
 * missing ones).  The row is read as scoring reads it: an array of the
 * model's length (NULL elements missing), or a jsonb object whose keys
 * the model does not know are ignored, a key absent or null being a
 * missing value, and a row that names none of the model's keys an error.
 * scratch holds BkPrepDim values (the named row's bookkeeping).
 */
void
BkPgDriftRow(BkModel *m, BkDataDrift *d, Datum features, BkFeatureForm form,
			 int64 row, double *scratch)
{
	const BkPrep *p = BkModelPrep(m);
	bool		named = form == BK_FORM_NAMED;
	int			n_inputs = BkPrepInputs(p);

	if (form == BK_FORM_SPARSE || BkPrepNamed(p) != named)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the model was trained on %s, not on %s",
						BkPrepNamed(p) ? "named features (jsonb)" : "features arrays",
						form_text(form)),
				 errhint("Pass the features in the form the model was trained on.")));
	BkDataDriftRow(d);
	if (!named)
	{
		bool	   *isnull;
		int			n;
		const double *x = read_array_nulls(DatumGetArrayTypeP(features), row, &n, &isnull);

		if (n != n_inputs)
			BkPgCheckDim(n, n_inputs, row, "the model's");
		for (int i = 0; i < n; i++)
		{
			if (isnull != NULL && isnull[i])
				BkDataDriftMissing(d, i);
			else
				BkDataDriftNumber(d, i, x[i]);
		}
	}
	else
	{
		Jsonb	   *jb = features_object(features, row);
		JsonbIterator *it = JsonbIteratorInit(&jb->root);
		JsonbValue	v;
		JsonbIteratorToken tok;
		int			input = -1,
					pos = 0,
					named_inputs = 0;
		const char *key = NULL;
		int			keylen = 0;

		BkPrepRowBegin(m, scratch);
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
			{
				size_t		len;
				const char *u = utf8_of(v.val.string.val, v.val.string.len, &len);

				input = BkPrepKey(m, pos++, u, len);
				key = v.val.string.val;
				keylen = v.val.string.len;
			}
			else if (tok == WJB_VALUE && input >= 0)
			{
				JsonFeature jf;

				json_feature(&v, key, keylen, row, &jf);
				if (jf.kind == JSON_FEATURE_NUMBER)
					BkDataDriftNumber(d, input, jf.number);
				else if (jf.kind == JSON_FEATURE_TEXT)
					BkDataDriftText(d, input, jf.text, jf.len);
				else
					BkDataDriftMissing(d, input);
			}
		}
		for (int i = 0; i < n_inputs; i++)
		{
			if (BkPrepRowNamed(m, i))
				named_inputs++;
			else
				BkDataDriftMissing(d, i);
		}
		if (named_inputs == 0)
			no_key_of_the_model(p, jb, row);
	}
}
