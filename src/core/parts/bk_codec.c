/*
 * bk_codec.c
 *	  The reader's checks and the labels and sizes that the format's
 *	  framing (bk_encode.c, bk_decode.c) and the parts' codecs (bk_part_*.c) share
 *	  (bk_codec.h).
 */
#include "bk_codec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool
BkReadReals(Reader *r, double *out, size_t n, size_t width, const char *what)
{
	size_t		bytes;

	if (!BkMulSize(n, width, &bytes) || !need(r, bytes, what))
		return false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/*
	 * doubles on a little-endian machine are their own bytes: copied
	 * whole, then checked by their exponents (all ones: not finite), the
	 * same values and the same refusals as the loop below (a decode of
	 * bk_merge's parts spent a third of its time in that loop)
	 */
	if (width == 8)
	{
		const uint8_t *at = r->buf + r->pos;
		uint64_t	bad = 0;

		for (size_t i = 0; r->numeric && i < n; i++)
		{
			uint64_t	b;

			memcpy(&b, at + 8 * i, 8);
			bad |= (uint64_t) ((b & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000));
		}
		/* a value not finite: the loop below says which */
		if (!bad)
		{
			if (out)
				memcpy(out, at, bytes);
			r->pos += bytes;
			return true;
		}
	}
#endif
	for (size_t i = 0; i < n; i++)
	{
		double		v = get_real(r->buf + r->pos, i, width);

		if (!isfinite(v) && r->numeric)
		{
			*r->code = BK_ERR_OVERFLOW;
			snprintf(r->err, r->errlen, "%s: value %zu is not finite", what, i);
			return false;
		}
		if (out)
			out[i] = v;
	}
	r->pos += bytes;
	return true;
}

bool
BkReadF64s(Reader *r, double *out, size_t n, const char *what)
{
	return BkReadReals(r, out, n, 8, what);
}

/* Refuse with a formatted message (the reader's err buffer). */
bool
BkReadFail(Reader *r, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return false;
}

/*
 * A floating-point value out of its range: refused (BK_ERR_OVERFLOW) when
 * the reader checks values, passed over (true) when it checks structure only.
 */
bool
BkReadFailValue(Reader *r, const char *fmt,...)
{
	va_list		ap;

	if (!r->numeric)
		return true;
	*r->code = BK_ERR_OVERFLOW;
	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return false;
}

/*
 * A text label of the class table or of the class weights (what names
 * it in messages): a u32 length of 1 to BK_MAX_LABEL_LEN and as many
 * bytes without NUL, UTF-8 with the flag.  Leaves r after it, the bytes
 * in *text.
 */
bool
BkReadTextLabel(Reader *r, bool utf8, const char *what, uint32_t i,
			 const char **text, uint32_t *len)
{
	char		lw[64];

	snprintf(lw, sizeof(lw), "%s length", what);
	if (!need(r, 4, lw))
		return false;
	*len = get_u32(r->buf + r->pos);
	if (*len == 0 || *len > BK_MAX_LABEL_LEN)
		return BkReadFail(r, "%s %u has length %u", what, i, *len);
	if (!need(r, 4 + (size_t) *len, what))
		return false;
	*text = (const char *) r->buf + r->pos + 4;
	if (memchr(*text, 0, *len) != NULL)
		return BkReadFail(r, "%s %u holds a NUL byte", what, i);
	if (utf8 && !BkValidUtf8(*text, *len))
		return BkReadFail(r, "%s %u is not valid UTF-8", what, i);
	r->pos += 4 + (size_t) *len;
	return true;
}

/* A key or level of n bytes at r: 1..BK_MAX_LABEL_LEN bytes (0 allowed for a level), no NUL */
bool
BkReadBytes(Reader *r, uint32_t n, bool empty_ok, const char *what, const char **out)
{
	if ((n == 0 && !empty_ok) || n > BK_MAX_LABEL_LEN)
		return BkReadFail(r, "%s of %u bytes, expected %d to %d", what, n,
					empty_ok ? 0 : 1, BK_MAX_LABEL_LEN);
	if (!need(r, n, what))
		return false;
	if (memchr(r->buf + r->pos, '\0', n) != NULL)
		return BkReadFail(r, "%s holds a NUL byte", what);
	if (!BkValidUtf8((const char *) r->buf + r->pos, n))
		return BkReadFail(r, "%s is not valid UTF-8", what);
	*out = (const char *) r->buf + r->pos;
	r->pos += n;
	return true;
}

/*
 * A label as the class table and the class weights write it: an i64, or
 * (text labels) a u32 length and the bytes.
 */
size_t
BkLabelSize(bool text_labels, const char *text)
{
	return text_labels ? 4 + strlen(text) : 8;
}

void
BkWriteLabel(Writer *w, bool text_labels, int64_t label, const char *text)
{
	if (text_labels)
	{
		size_t		len = strlen(text);

		w_u32(w, (uint32_t) len);
		memcpy(w->buf + w->pos, text, len);
		w->pos += len;
	}
	else
		w_u64(w, (uint64_t) label);
}

/* ---- sizes ---- */

/* the aux bits of a machine section: the bookkeeping it carries */
uint32_t
BkCodecMachineAux(const BkMachine *mach)
{
	return (mach->has_nearest ? AUX_NEAREST : 0) |
		(mach->has_ginv ? AUX_GINV : 0) |
		(mach->sv_scores ? AUX_SCORES : 0) |
		(mach->eval ? AUX_EVAL : 0) |
		(mach->born ? AUX_BORN : 0);
}

bool
BkCodecMachineSize(size_t dim, size_t n_sv, size_t sv_bytes, size_t n_coef,
				   uint32_t aux, size_t *out)
{
	size_t		size = MACHINE_HEADER;
	size_t		part;
	bool		ok = true;

	ok &= BkMulSize(n_sv, dim, &part) && BkMulSize(part, sv_bytes, &part);
	ok &= BkAddSize(size, part, &size);
	ok &= BkMulSize(n_sv, n_coef, &part) && BkMulSize(part, 8, &part);
	ok &= BkAddSize(size, part, &size);
	if (aux & AUX_NEAREST)
	{
		ok &= BkMulSize(n_sv, 12, &part);
		ok &= BkAddSize(size, part, &size);
	}
	if (aux & AUX_GINV)
	{
		ok &= BkMulSize(n_sv, n_sv, &part) && BkMulSize(part, 8, &part);
		ok &= BkAddSize(size, part, &size);
	}
	if (aux & AUX_SCORES)
	{
		ok &= BkMulSize(n_sv, 8, &part);
		ok &= BkAddSize(size, part, &size);
	}
	if (aux & AUX_BORN)
	{
		ok &= BkMulSize(n_sv, 8, &part);
		ok &= BkAddSize(size, part, &size);
	}
	*out = size;
	return ok;
}

/* bytes of an evaluation section of n points (after its 16-byte header) */
bool
BkCodecEvalSize(size_t dim, size_t n_sv, size_t n, size_t *out)
{
	size_t		part,
				size;
	bool		ok = true;

	/* per point: x (dim), label, score, sign, flips, row number */
	ok &= BkMulSize(dim + 5, 8, &part) && BkMulSize(part, n, &size);
	ok &= BkMulSize(n_sv, n, &part) && BkMulSize(part, 8, &part);
	ok &= BkAddSize(size, part, &size);
	*out = size;
	return ok;
}
