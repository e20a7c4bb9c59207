/*
 * fuzz_model.c
 *	  What the targets that take models from their input share (fuzz_learn,
 *	  fuzz_merge): a model read from the input as a u32 length and its
 *	  bytes, decoded for training as bk_continue and bk_merge decode their
 *	  arguments, and the rule for the errors a user can cause.  Linked into
 *	  every target, as fuzz_seeds.c is.
 */
#include "fuzz_common.h"

#include <string.h>

/* bk_train and bk_merge encode a model within the server's allocation limit */
#define ENCODE_LIMIT	((size_t) 64 << 20)

void
FuzzExpectUserError(const char *during)
{
	switch ((int) bk_std_last_code)
	{
		case BK_ERR_DATA:
		case BK_ERR_PARAM:
		case BK_ERR_LIMIT:
		case BK_ERR_NUMERIC:
		case BK_ERR_NULL_VALUE:
		case BK_ERR_OVERFLOW:
		case BK_ERR_UNSUPPORTED:
			return;
		default:
			fprintf(stderr, "error %d while %s: %s (%s)\n", (int) bk_std_last_code,
					during, bk_std_last_msg, bk_std_last_detail);
			abort();
	}
}

BkModel *
FuzzNextModel(const uint8_t *data, size_t size, size_t *pos, bool fix_crc)
{
	uint8_t    *buf;
	size_t		len;
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;
	jmp_buf		jb;
	BkModel    *volatile m = NULL;

	if (size - *pos < 4)
		return NULL;
	len = (size_t) data[*pos] | (size_t) data[*pos + 1] << 8 |
		(size_t) data[*pos + 2] << 16 | (size_t) data[*pos + 3] << 24;
	*pos += 4;
	/* a length past the end takes the rest: mutations shift the end */
	if (len > size - *pos)
		len = size - *pos;
	/* a copy of its own, so that reading past it is caught */
	buf = malloc(len > 0 ? len : 1);
	memcpy(buf, data + *pos, len);
	*pos += len;
	if (fix_crc && len >= 16)
	{
		for (int k = 0; k < 4; k++)
			buf[8 + k] = (uint8_t) (len >> (8 * k));
		BkModelSeal(buf, len);
	}
	if (BkFormatValidate(buf, len, err, sizeof(err), &code))
	{
		bk_std_jump = &jb;
		if (setjmp(jb) == 0)
			m = BkModelDecode(&fuzz_env, buf, len, true);
		else
		{
			/* a valid model too large to train on is refused with LIMIT */
			FuzzExpectUserError("decoding a valid model for training");
			m = NULL;
		}
		bk_std_jump = NULL;
	}
	free(buf);
	return m;
}

uint8_t *
FuzzEncodeValid(const BkModel *m, size_t *len, const char *what)
{
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;
	uint8_t    *buf;

	err[0] = '\0';
	if (!BkModelEncodedSize(m, ENCODE_LIMIT, len, err, sizeof(err)))
	{
		if (err[0] == '\0')
			abort();
		return NULL;
	}
	buf = malloc(*len);
	BkModelEncode(m, buf, *len);
	if (!BkFormatValidate(buf, *len, err, sizeof(err), &code))
	{
		fprintf(stderr, "the model %s (algorithm \"%s\", dim %d, %d classes) is invalid: %s\n",
				what, BkAlgorithmName(&m->params), m->dim, m->n_classes, err);
		abort();
	}
	return buf;
}
