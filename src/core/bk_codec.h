/*
 * bk_codec.h
 *	  What the format's framing (bk_encode.c, bk_decode.c) and the codecs of the model's
 *	  parts (bk_part_*.c) share: the little-endian primitives, the writer
 *	  and the reader of doc/format.md's fields, and the sizes of a machine
 *	  section.  Below the model: nothing here calls it.
 */
#ifndef BK_CODEC_H
#define BK_CODEC_H

#include "bk_internal.h"

#include <stdio.h>
#include <string.h>

/* machine aux bits (doc/format.md, "Machine sections") */
#define AUX_NEAREST 1u
#define AUX_GINV	2u
#define AUX_SCORES	4u
#define AUX_EVAL	8u
#define AUX_BORN	16u
#define AUX_KNOWN	(AUX_NEAREST | AUX_GINV | AUX_SCORES | AUX_EVAL | AUX_BORN)
/* the header's flag bits of the framing; the parts' are in their descriptors */
#define FLAG_TEXT_LABELS	1u
#define FLAG_DECLARED		2u
#define FLAG_LABELS_UTF8	4u
#define MACHINE_HEADER		(16 + 48)
#define BK_MAX_STORED_PARAMS 64
#define HEADER_LEN	12			/* magic, version, flags, length */
/* after the body: the digest (version 2) and the CRC */
#define TRAILER_LEN(version) ((version) >= 2 ? BK_DIGEST_LEN + 4 : 4)
#define BK_MAGIC	"BKMD"		/* the first 4 bytes of every model */

/* ---- little-endian primitives ---- */

static inline void
put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static inline void
put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static inline void
put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static inline uint16_t
get_u16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (uint16_t) p[1] << 8);
}

static inline uint32_t
get_u32(const uint8_t *p)
{
	uint32_t	v = 0;

	for (int i = 3; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline uint64_t
get_u64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline double
bits_to_double(uint64_t b)
{
	double		d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

static inline uint64_t
double_to_bits(double d)
{
	uint64_t	b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

/*
 * Value i of stored reals width bytes each, 8 (f64) or 4 (f32: a float4
 * model's support vectors), as the double it equals
 */
static inline double
get_real(const uint8_t *at, size_t i, size_t width)
{
	if (width == 4)
	{
		uint32_t	b = get_u32(at + 4 * i);
		float		f;

		memcpy(&f, &b, sizeof(f));
		return (double) f;
	}
	return bits_to_double(get_u64(at + 8 * i));
}

/* ---- writer ---- */

typedef struct Writer
{
	uint8_t    *buf;
	size_t		pos;
} Writer;

static inline void
w_u16(Writer *w, uint16_t v)
{
	put_u16(w->buf + w->pos, v);
	w->pos += 2;
}

static inline void
w_u32(Writer *w, uint32_t v)
{
	put_u32(w->buf + w->pos, v);
	w->pos += 4;
}

static inline void
w_u64(Writer *w, uint64_t v)
{
	put_u64(w->buf + w->pos, v);
	w->pos += 8;
}

static inline void
w_f64s(Writer *w, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		w_u64(w, double_to_bits(v[i]));
}

/* n values that are float4 values (a float4 model's SVs), as float4 */
static inline void
w_f32s(Writer *w, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		float		f = (float) v[i];
		uint32_t	b;

		memcpy(&b, &f, sizeof(b));
		w_u32(w, b);
	}
}

/* ---- reader ---- */

typedef struct Reader
{
	const uint8_t *buf;
	size_t		len;
	size_t		pos;
	char	   *err;
	size_t		errlen;
	BkErrCode  *code;
	/*
	 * Check the values of the floating-point fields (finite, in range).
	 * Without it only the structure is checked: what bk_model's input
	 * functions accept, so that a restore never loses a model that an
	 * earlier version stored with a non-finite value (it fails at use).
	 */
	bool		numeric;
} Reader;

static inline bool
need(Reader *r, size_t n, const char *what)
{
	if (n > r->len - r->pos)
	{
		snprintf(r->err, r->errlen, "truncated: %s needs %zu bytes at offset %zu, %zu left",
				 what, n, r->pos, r->len - r->pos);
		return false;
	}
	return true;
}

static inline uint32_t
r_u32(Reader *r)
{
	uint32_t	v = get_u32(r->buf + r->pos);

	r->pos += 4;
	return v;
}

static inline uint64_t
r_u64(Reader *r)
{
	uint64_t	v = get_u64(r->buf + r->pos);

	r->pos += 8;
	return v;
}

/*
 * n reals of width bytes (get_real), all finite when r->numeric; copied
 * to out when out is not NULL
 */
extern bool BkReadReals(Reader *r, double *out, size_t n, size_t width,
						const char *what);
/* n doubles so */
extern bool BkReadF64s(Reader *r, double *out, size_t n, const char *what);
/* refuse with a formatted message (the reader's err buffer); false */
extern bool BkReadFail(Reader *r, const char *fmt,...) BK_PRINTF(2, 3);
/* a value out of its range: refused when r->numeric, else passed over (true) */
extern bool BkReadFailValue(Reader *r, const char *fmt,...) BK_PRINTF(2, 3);
/* a text label of the class table or the class weights (what: its name) */
extern bool BkReadTextLabel(Reader *r, bool utf8, const char *what, uint32_t i,
							const char **text, uint32_t *len);
/* a key or level: 1..BK_MAX_LABEL_LEN bytes (0 allowed if empty_ok), no NUL, UTF-8 */
extern bool BkReadBytes(Reader *r, uint32_t n, bool empty_ok, const char *what,
						const char **out);

/* ---- labels and sizes ---- */

/* a label as the class table and the class weights write it */
extern size_t BkLabelSize(bool text_labels, const char *text);
extern void BkWriteLabel(Writer *w, bool text_labels, int64_t label, const char *text);
/* the aux bits of a machine's section: the bookkeeping it carries */
extern uint32_t BkCodecMachineAux(const BkMachine *mach);
/* the bytes of one stored SV value: 4 for "sv_precision": "float4", else 8 */
#define BK_SV_BYTES(p) ((size_t) ((p)->sv_precision == BK_SV_FLOAT4 ? 4 : 8))
/* a machine section without its evaluation set; false on overflow */
extern bool BkCodecMachineSize(size_t dim, size_t n_sv, size_t sv_bytes,
							   size_t n_coef, uint32_t aux, size_t *out);
/* an evaluation set of n points after its 16-byte header; false on overflow */
extern bool BkCodecEvalSize(size_t dim, size_t n_sv, size_t n, size_t *out);

#endif							/* BK_CODEC_H */
