/*
 * bk_type.c
 *	  The bk_model type: text and binary I/O, the bytea casts, bk_is_valid.
 *
 * A bk_model value is a varlena whose payload is exactly the core's encoded
 * model (BkModelEncode).  The cast to bytea is therefore free, and every way
 * of bringing bytes in from a client (text input, binary input, the cast
 * from bytea) checks their structure and checksum with
 * BkFormatValidateStructure, which reports malformed client bytes as 22P03.
 * The values of the floating-point fields are checked when the model is
 * used (decoded), not on input: version 0.1.0 could store a model with a
 * non-finite value, and a dump holding one must restore with every row
 * (refusing it would lose the whole table in pg_restore).  Using such a
 * model raises 22003; stored bytes whose structure fails the decoder's
 * checks are data corruption (XX001, see BkPgDecodeDatum).
 */
#include "postgres.h"

#include "access/detoast.h"
#include "common/cryptohash.h"
#include "common/sha2.h"

#include "mb/pg_wchar.h"

#include <string.h>

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "bk_pg.h"

PG_FUNCTION_INFO_V1(bk_model_in);
PG_FUNCTION_INFO_V1(bk_model_out);
PG_FUNCTION_INFO_V1(bk_model_recv);
PG_FUNCTION_INFO_V1(bk_model_send);
PG_FUNCTION_INFO_V1(bk_model_from_bytea);
PG_FUNCTION_INFO_V1(bk_is_valid);

/*
 * Raise an error unless buf holds a well-formed model
 */
void
BkPgValidateInput(const uint8_t *buf, size_t len)
{
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code = BK_ERR_CORRUPT;

	err[0] = '\0';
	if (BkFormatValidateStructure(buf, len, err, sizeof(err), &code))
		return;

	if (err[0] == '\0')
		strlcpy(err, "the bytes are not a well-formed model", sizeof(err));

	if (code == BK_ERR_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("unsupported %s format version", BK_TYPE_NAME),
				 errdetail("%s", BkPgSentence(err)),
				 errhint("Upgrade the budgetkernel extension to read this model.")));
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid %s value", BK_TYPE_NAME),
				 errdetail("%s", BkPgSentence(err))));
}

/*
 * Decode a stored bk_model into a model allocated in ctx
 *
 * The decoder validates first and reports invalid bytes through the
 * environment (BK_ERR_CORRUPT -> XX001 data_corrupted).
 */
BkModel *
BkPgDecodeDatum(Datum d, MemoryContext ctx, bool for_training)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(d);
	BkEnv		env;
	BkModel    *m;

	BkPgEnvInit(&env, ctx);
	m = BkModelDecode(&env, (const uint8_t *) VARDATA_ANY(v),
					  VARSIZE_ANY_EXHDR(v), for_training);
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
	return m;
}

static int
bk_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Text input: \x followed by an even number of hexadecimal digits (the
 * look of bytea's hex output), then validation of the bytes
 */
Datum
bk_model_in(PG_FUNCTION_ARGS)
{
	const char *s = PG_GETARG_CSTRING(0);
	size_t		len = strlen(s);
	size_t		nbytes;
	struct varlena *result;
	uint8_t    *dst;
	size_t		i;

	if (len < 2 || s[0] != '\\' || s[1] != 'x')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", BK_TYPE_NAME),
				 errdetail("A %s value is written as \\x followed by hexadecimal digits.",
						   BK_TYPE_NAME)));

	if ((len - 2) % 2 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", BK_TYPE_NAME),
				 errdetail("The number of hexadecimal digits is odd.")));

	nbytes = (len - 2) / 2;
	if (nbytes > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s value is too large", BK_TYPE_NAME)));

	result = (struct varlena *) palloc(VARHDRSZ + nbytes);
	SET_VARSIZE(result, VARHDRSZ + nbytes);
	dst = (uint8_t *) VARDATA(result);

	for (i = 0; i < nbytes; i++)
	{
		int			hi = bk_hex_value(s[2 + 2 * i]);
		int			lo = bk_hex_value(s[3 + 2 * i]);

		if (hi < 0 || lo < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type %s", BK_TYPE_NAME),
					 errdetail("Character %zu is not a hexadecimal digit.",
							   (hi < 0 ? 3 + 2 * i : 4 + 2 * i))));
		dst[i] = (uint8_t) ((hi << 4) | lo);
	}

	BkPgValidateInput(dst, nbytes);

	PG_RETURN_POINTER(result);
}

/*
 * Text output: \x followed by the bytes in lower-case hexadecimal
 */
Datum
bk_model_out(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_GETARG_VARLENA_PP(0);
	size_t		len = VARSIZE_ANY_EXHDR(v);
	char	   *out;
	uint64		n;

	/* the hex form is twice the size; palloc is limited to 1 GB */
	if (len > (MaxAllocSize - 3) / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s value is too large for text output", BK_TYPE_NAME),
				 errdetail("The model has %zu bytes; the text form of at most %zu bytes fits in 1 GB.",
						   len, (size_t) ((MaxAllocSize - 3) / 2)),
				 errhint("Use binary transfer (for example COPY ... WITH (FORMAT binary)).")));

	out = palloc(2 * len + 3);
	out[0] = '\\';
	out[1] = 'x';
	n = hex_encode(VARDATA_ANY(v), len, out + 2);
	out[2 + n] = '\0';

	PG_RETURN_CSTRING(out);
}

/*
 * Binary input: the encoded bytes, validated
 */
Datum
bk_model_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			len = buf->len - buf->cursor;
	const char *bytes = pq_getmsgbytes(buf, len);
	struct varlena *result;

	BkPgValidateInput((const uint8_t *) bytes, (size_t) len);

	result = (struct varlena *) palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), bytes, len);

	PG_RETURN_POINTER(result);
}

/*
 * Binary output: the encoded bytes
 */
Datum
bk_model_send(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_GETARG_VARLENA_PP(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/*
 * Cast bytea -> bk_model: the same bytes, once they are validated
 */
Datum
bk_model_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	BkPgValidateInput((const uint8_t *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));

	PG_RETURN_POINTER(b);
}

/*
 * bk_is_valid(bytea): whether the bytes are a well-formed model that can
 * be used (its values checked too, unlike the input functions); never
 * raises
 */
Datum
bk_is_valid(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;

	PG_RETURN_BOOL(BkFormatValidate((const uint8_t *) VARDATA_ANY(b),
									VARSIZE_ANY_EXHDR(b),
									err, sizeof(err), &code));
}

/*
 * Text label c of a model in the database encoding.  Labels of a model
 * that records them as UTF-8 are converted (22P05 for a character the
 * database encoding cannot represent); those of a 0.1.0 model, stored in
 * the unrecorded encoding of the database that trained it, are checked
 * against this database's encoding (22021 if invalid): a model is
 * untrusted bytes, and an invalid byte sequence must not reach a text or
 * jsonb value.
 */
const char *
BkPgClassName(const BkModel *m, int c)
{
	return BkPgModelText(m, BkModelClassText(m, c));
}

/* A label the model keeps (a class, a class weight's) in the database encoding */
const char *
BkPgModelText(const BkModel *m, const char *s)
{
	BkModelInfo info;

	BkModelGetInfo(m, &info);
	if (info.labels_utf8)
		return pg_any_to_server(s, (int) strlen(s), PG_UTF8);
	(void) pg_verifymbstr(s, (int) strlen(s), false);
	return s;
}

/*
 * A text label (len bytes in the database encoding) as the model keeps
 * it: in UTF-8 for a model that records its labels so, else (a model of
 * 0.1.0) the database's own bytes.  *len is updated.
 */
const char *
BkPgLabelIn(const BkModel *m, const char *s, size_t *len)
{
	char	   *conv;
	BkModelInfo info;

	BkModelGetInfo(m, &info);
	if (!info.labels_utf8)
		return s;
	conv = pg_server_to_any(s, (int) *len, PG_UTF8);
	if (conv != s)
		*len = strlen(conv);
	return conv;
}

/*
 * Before a 0.1.0 model with text labels goes on learning in this
 * database: its labels must be valid in this database's encoding, or a
 * label written the same way would silently become a new class (a model
 * trained in a LATIN1 database continued in a UTF8 one).  Raises 22021.
 */
void
BkPgCheckLegacyLabels(const BkModel *m)
{
	BkModelInfo info;

	BkModelGetInfo(m, &info);
	if (!info.text_labels || info.labels_utf8)
		return;
	for (int c = 0; c < info.n_classes; c++)
		(void) BkPgClassName(m, c);
}

/*
 * The fingerprint of a model value: the SHA-256 of its bytes (a model's
 * provenance names its parents by it; bk_info shows it in hex)
 */
void
BkPgFingerprint(Datum d, uint8 *out)
{
	struct varlena *v = (struct varlena *) PG_DETOAST_DATUM_PACKED(d);
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_SHA256);

	if (ctx == NULL || pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v)) < 0 ||
		pg_cryptohash_final(ctx, out, PG_SHA256_DIGEST_LENGTH) < 0)
		elog(ERROR, "could not compute the fingerprint of a model");
	pg_cryptohash_free(ctx);
}

void
BkPgModelIdOf(Datum d, BkPgModelId *id)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);

	memset(id, 0, sizeof(*id));
	id->ondisk = VARATT_IS_EXTERNAL_ONDISK(raw);
	if (id->ondisk)
	{
		struct varatt_external ve;

		VARATT_EXTERNAL_GET_POINTER(ve, raw);
		id->toastrelid = ve.va_toastrelid;
		id->valueid = ve.va_valueid;
	}
	else
	{
		struct varlena *flat = (struct varlena *) PG_DETOAST_DATUM_PACKED(d);
		const uint8 *b = (const uint8 *) VARDATA_ANY(flat);

		id->len = VARSIZE_ANY_EXHDR(flat);
		if (id->len >= 4)
			memcpy(&id->crc, b + id->len - 4, 4);
		if (flat != raw)
			pfree(flat);
	}
}

bool
BkPgModelIdEqual(const BkPgModelId *a, const BkPgModelId *b)
{
	return a->ondisk == b->ondisk && a->toastrelid == b->toastrelid &&
		a->valueid == b->valueid && a->len == b->len && a->crc == b->crc;
}
