/*
 * bk_format.c
 *	  The model's binary format (doc/format.md): fixed-width little-endian
 *	  fields whatever the machine, every count checked against the bytes
 *	  left before anything is read or allocated, and a CRC-32C of the whole.
 *
 *	  One parser serves both the validator (no output, no allocation, never
 *	  raises: bk_is_valid, the bytea cast and the fuzz target share it) and
 *	  the decoder (which validates first, then parses again into a model).
 *
 *	  Layout, version 2 (version 1 lacks the u64 parts; both are read):
 *	    magic "BKMD" | u16 version | u16 flags | u32 total length
 *	      flags bit 0: text labels; bit 1: classes declared up front;
 *	      bit 2: the text labels are UTF-8 (else: the training database's
 *	      encoding, not recorded; models of version 0.1.0)
 *	    u32 dim | u32 n_params | n_params x {u16 id, u16 kind, u32 0, u64 value}
 *	    u32 n_classes | n_classes x (i64 label, or u32 length + the label's
 *	      bytes)
 *	    u64 rows_seen, rows_skipped, rows_updated, mistakes, maintenance
 *	    u64 parts (version 2: the models merged into this one, 1 if none)
 *	    u64 rng[4]
 *	    u32 n_machines, then per machine:
 *	      u32 n_sv | u32 n_coef | u32 aux | u32 0 | u64 updates, maintenance,
 *	      ginv_since_refresh | f64 scale | f64 degradation | f64 wnorm2
 *	      (degradation: Pegasos's ||Delta w||^2 sum, the Forgetron's Q_t)
 *	      f64 sv[n_sv][dim] | f64 coef[n_sv][n_coef] (actual = scale x coef)
 *	      aux bit 0: i32 nearest_idx[n_sv], f64 nearest_dist2[n_sv]
 *	      aux bit 1: f64 ginv[n_sv][n_sv]
 *	      aux bit 2: f64 sv_scores[n_sv] (f(x_j) of every SV)
 *	      aux bit 4: u64 born[n_sv] (the row at which each SV was added;
 *	        SPA and the Forgetron)
 *	      aux bit 3: the evaluation set: u32 n | u32 cap | u64 offered |
 *	        f64 x[n][dim] | f64 y[n] | f64 f[n] | f64 pred[n] | u64 flips[n] |
 *	        u64 since[n] | f64 kv[n_sv][n]
 *	    version 2, flag bit 3: f64 (A, B) per class (Platt's calibration)
 *	    version 2, flag bit 4: the preparation of the inputs (write_prep)
 *	    version 2, flag bit 5: the class weights (write_weights)
 *	    version 2: u32 n + u64 curve[n] (the learning curve), then
 *	      u32 n + n x 32 bytes (the parents' fingerprints)
 *	    u32 crc32c of every byte before it
 */
#include "bk_learner.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const uint8_t bk_magic[4] = {'B', 'K', 'M', 'D'};

#define AUX_NEAREST 1u
#define AUX_GINV	2u
#define AUX_SCORES	4u
#define AUX_EVAL	8u
#define AUX_BORN	16u
#define AUX_KNOWN	(AUX_NEAREST | AUX_GINV | AUX_SCORES | AUX_EVAL | AUX_BORN)
#define FLAG_TEXT_LABELS	1u
#define FLAG_DECLARED		2u
#define FLAG_LABELS_UTF8	4u
#define FLAG_CALIBRATED		8u	/* version 2: Platt's (A, B) per class at the end */
#define FLAG_PREPARED		16u	/* version 2: the preparation of the inputs at the end */
#define FLAG_WEIGHTED		32u	/* version 2: the class weights at the end */
#define FLAGS_KNOWN			(FLAG_TEXT_LABELS | FLAG_DECLARED | FLAG_LABELS_UTF8 | \
							 FLAG_CALIBRATED | FLAG_PREPARED | FLAG_WEIGHTED)
#define MACHINE_HEADER		(16 + 48)
#define BK_MAX_STORED_PARAMS 64
#define HEADER_LEN	12			/* magic, version, flags, length */

/* ---- little-endian primitives ---- */

static void
put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static void
put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static void
put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static uint16_t
get_u16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (uint16_t) p[1] << 8);
}

static uint32_t
get_u32(const uint8_t *p)
{
	uint32_t	v = 0;

	for (int i = 3; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint64_t
get_u64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static double
bits_to_double(uint64_t b)
{
	double		d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

static uint64_t
double_to_bits(double d)
{
	uint64_t	b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

/* ---- writer ---- */

typedef struct Writer
{
	uint8_t    *buf;
	size_t		pos;
} Writer;

static void
w_u16(Writer *w, uint16_t v)
{
	put_u16(w->buf + w->pos, v);
	w->pos += 2;
}

static void
w_u32(Writer *w, uint32_t v)
{
	put_u32(w->buf + w->pos, v);
	w->pos += 4;
}

static void
w_u64(Writer *w, uint64_t v)
{
	put_u64(w->buf + w->pos, v);
	w->pos += 8;
}

static void
w_f64s(Writer *w, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		w_u64(w, double_to_bits(v[i]));
}

/* ---- sizes ---- */

static bool
machine_size(size_t dim, size_t n_sv, size_t n_coef, uint32_t aux,
			 size_t *out)
{
	size_t		size = MACHINE_HEADER;
	size_t		part;
	bool		ok = true;

	ok &= BkMulSize(n_sv, dim, &part) && BkMulSize(part, 8, &part);
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
static bool
eval_size(size_t dim, size_t n_sv, size_t n, size_t *out)
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

static uint32_t
machine_aux(const BkMachine *mach)
{
	return (mach->has_nearest ? AUX_NEAREST : 0) |
		(mach->has_ginv ? AUX_GINV : 0) |
		(mach->sv_scores ? AUX_SCORES : 0) |
		(mach->eval ? AUX_EVAL : 0) |
		(mach->born ? AUX_BORN : 0);
}

/*
 * The preparation (flag bit 4): u32 n_inputs | u8 named | u8 scale |
 * u8 impute | u8 0, then per input u8 kind | u8 0 | u16 0 | u32 name_len |
 * the name's bytes, and for a numeric input f64 n, sx, sxx, for a
 * categorical one u32 n_levels and each level as u32 length + bytes.
 */
static size_t
prep_size(const BkPrep *p)
{
	size_t		total = 8;

	for (int i = 0; i < p->n_inputs; i++)
	{
		const BkPrepInput *in = &p->inputs[i];

		total += 8 + in->name_len;
		if (in->kind == BK_INPUT_NUMERIC)
			total += 24;
		else
		{
			total += 4;
			for (int j = 0; j < in->n_levels; j++)
				total += 4 + in->level_len[j];
		}
	}
	return total;
}

static void
write_prep(Writer *w, const BkPrep *p)
{
	w_u32(w, (uint32_t) p->n_inputs);
	w->buf[w->pos++] = p->named ? 1 : 0;
	w->buf[w->pos++] = (uint8_t) p->scale;
	w->buf[w->pos++] = (uint8_t) p->impute;
	w->buf[w->pos++] = 0;
	for (int i = 0; i < p->n_inputs; i++)
	{
		const BkPrepInput *in = &p->inputs[i];

		w->buf[w->pos++] = (uint8_t) in->kind;
		w->buf[w->pos++] = 0;
		w_u16(w, 0);
		w_u32(w, in->name_len);
		if (in->name_len > 0)
			memcpy(w->buf + w->pos, in->name, in->name_len);
		w->pos += in->name_len;
		if (in->kind == BK_INPUT_NUMERIC)
		{
			double		v[3] = {in->n, in->sx, in->sxx};

			w_f64s(w, v, 3);
		}
		else
		{
			w_u32(w, (uint32_t) in->n_levels);
			for (int j = 0; j < in->n_levels; j++)
			{
				w_u32(w, in->level_len[j]);
				memcpy(w->buf + w->pos, in->levels[j], in->level_len[j]);
				w->pos += in->level_len[j];
			}
		}
	}
}

/*
 * A label as the class table and the class weights write it: an i64, or
 * (text labels) a u32 length and the bytes.
 */
static size_t
label_size(bool text_labels, const char *text)
{
	return text_labels ? 4 + strlen(text) : 8;
}

static void
w_label(Writer *w, bool text_labels, int64_t label, const char *text)
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

/*
 * The class weights (flag bit 5): u8 mode | u8 0 | u16 0 | u32 n, then n
 * entries in label order, each the label (i64, or u32 length + bytes) and
 * f64 weight, then u64 rows of each class counted since the weights were
 * set, n_classes of them.
 */
static size_t
weights_size(const BkModel *m)
{
	const BkClassWeights *cw = m->weights;
	size_t		total = 8 + 8 * (size_t) m->n_classes;

	for (int i = 0; i < cw->n; i++)
		total += 8 + label_size(m->text_labels, cw->names[i]);
	return total;
}

static void
write_weights(Writer *w, const BkModel *m)
{
	const BkClassWeights *cw = m->weights;

	w->buf[w->pos++] = (uint8_t) cw->mode;
	w->buf[w->pos++] = 0;
	w_u16(w, 0);
	w_u32(w, (uint32_t) cw->n);
	for (int i = 0; i < cw->n; i++)
	{
		w_label(w, m->text_labels, cw->labels[i], m->text_labels ? cw->names[i] : NULL);
		w_f64s(w, &cw->w[i], 1);
	}
	/* a class added since the counts last grew has none yet */
	for (int c = 0; c < m->n_classes; c++)
		w_u64(w, c < cw->count_n ? cw->count[c] : 0);
}

bool
BkModelEncodedSize(const BkModel *m, size_t limit, size_t *size, char *err,
				   size_t errlen)
{
	BkStoredParam params[BK_MAX_STORED_PARAMS];
	int			np = BkParamsToStored(&m->params, params, BK_MAX_STORED_PARAMS);
	size_t		total;
	bool		ok = true;

	/* decoded for scoring, it lacks the learner's bookkeeping */
	if (!m->training)
	{
		snprintf(err, errlen, "a model decoded for scoring cannot be encoded");
		return false;
	}
	total = HEADER_LEN + 4 + 4 + (size_t) np * 16 + 4 + 6 * 8 + 4 * 8 + 4 + 4;
	for (int i = 0; i < m->n_classes; i++)
		total += label_size(m->text_labels, m->class_names[i]);
	for (int i = 0; i < m->n_machines; i++)
	{
		const BkMachine *mach = &m->machines[i];
		size_t		part;

		ok &= machine_size((size_t) m->dim, (size_t) mach->n_sv,
						   (size_t) mach->n_coef, machine_aux(mach), &part);
		ok &= BkAddSize(total, part, &total);
		if (mach->eval)
		{
			ok &= eval_size((size_t) m->dim, (size_t) mach->n_sv,
							(size_t) mach->eval->n, &part);
			ok &= BkAddSize(total, part + 16, &total);
		}
	}
	if (m->platt != NULL)
		ok &= BkAddSize(total, 16 * (size_t) m->n_classes, &total);
	/* the learning curve: a count and its points; the parents */
	ok &= BkAddSize(total, 4 + 8 * (size_t) m->curve_n, &total);
	ok &= BkAddSize(total, 4 + BK_FINGERPRINT_LEN * (size_t) m->n_parents, &total);
	if (m->prep != NULL)
		ok &= BkAddSize(total, prep_size(m->prep), &total);
	if (m->weights != NULL)
		ok &= BkAddSize(total, weights_size(m), &total);
	if (!ok || total > limit || total > UINT32_MAX)
	{
		snprintf(err, errlen, "encoded model would exceed the size limit of %zu bytes",
				 limit < UINT32_MAX ? limit : (size_t) UINT32_MAX);
		return false;
	}
	*size = total;
	return true;
}

void
BkModelEncode(const BkModel *m, uint8_t *buf, size_t size)
{
	BkStoredParam params[BK_MAX_STORED_PARAMS];
	int			np = BkParamsToStored(&m->params, params, BK_MAX_STORED_PARAMS);
	Writer		w = {buf, 0};

	memcpy(buf, bk_magic, 4);
	w.pos = 4;
	w_u16(&w, BK_FORMAT_VERSION);
	w_u16(&w, (uint16_t) ((m->text_labels ? FLAG_TEXT_LABELS : 0) |
						  (m->classes_declared ? FLAG_DECLARED : 0) |
						  (m->text_labels && m->labels_utf8 ? FLAG_LABELS_UTF8 : 0) |
						  (m->platt != NULL ? FLAG_CALIBRATED : 0) |
						  (m->prep != NULL ? FLAG_PREPARED : 0) |
						  (m->weights != NULL ? FLAG_WEIGHTED : 0)));
	w_u32(&w, (uint32_t) size);
	w_u32(&w, (uint32_t) m->dim);
	w_u32(&w, (uint32_t) np);
	for (int i = 0; i < np; i++)
	{
		w_u16(&w, params[i].id);
		w_u16(&w, params[i].kind);
		w_u32(&w, 0);
		w_u64(&w, params[i].bits);
	}
	w_u32(&w, (uint32_t) m->n_classes);
	for (int i = 0; i < m->n_classes; i++)
		w_label(&w, m->text_labels, m->classes[i], m->text_labels ? m->class_names[i] : NULL);
	w_u64(&w, m->rows_seen);
	w_u64(&w, m->rows_skipped);
	w_u64(&w, m->rows_updated);
	w_u64(&w, m->mistakes);
	w_u64(&w, m->maintenance);
	w_u64(&w, m->parts);
	for (int i = 0; i < 4; i++)
		w_u64(&w, m->rng.s[i]);
	w_u32(&w, (uint32_t) m->n_machines);
	for (int k = 0; k < m->n_machines; k++)
	{
		const BkMachine *mach = &m->machines[k];
		uint32_t	aux = machine_aux(mach);
		size_t		n = (size_t) mach->n_sv;

		w_u32(&w, (uint32_t) mach->n_sv);
		w_u32(&w, (uint32_t) mach->n_coef);
		w_u32(&w, aux);
		w_u32(&w, 0);
		w_u64(&w, mach->updates);
		w_u64(&w, mach->maintenance);
		w_u64(&w, mach->has_ginv ? mach->ginv.since_refresh : 0);
		w_u64(&w, double_to_bits(mach->scale));
		w_u64(&w, double_to_bits(mach->degradation));
		w_u64(&w, double_to_bits(mach->wnorm2));
		for (size_t i = 0; i < n; i++)
			w_f64s(&w, BkSvRow(mach, (int) i), m->dim);
		w_f64s(&w, mach->coef, n * mach->n_coef);
		if (aux & AUX_NEAREST)
		{
			for (size_t i = 0; i < n; i++)
				w_u32(&w, (uint32_t) mach->nearest.idx[i]);
			w_f64s(&w, mach->nearest.dist2, n);
		}
		if (aux & AUX_GINV)
			for (size_t i = 0; i < n; i++)
				w_f64s(&w, mach->ginv.m + i * mach->ginv.cap, n);
		if (aux & AUX_SCORES)
			w_f64s(&w, mach->sv_scores, n);
		if (aux & AUX_BORN)
			for (size_t i = 0; i < n; i++)
				w_u64(&w, mach->born[i]);
		if (aux & AUX_EVAL)
		{
			const BkEvalSet *e = mach->eval;
			size_t		ne = (size_t) e->n;

			w_u32(&w, (uint32_t) e->n);
			w_u32(&w, (uint32_t) e->cap);
			w_u64(&w, e->offered);
			w_f64s(&w, e->x, ne * m->dim);
			w_f64s(&w, e->y, ne);
			w_f64s(&w, e->f, ne);
			w_f64s(&w, e->pred, ne);
			for (size_t k = 0; k < ne; k++)
				w_u64(&w, e->flips[k]);
			for (size_t k = 0; k < ne; k++)
				w_u64(&w, e->since[k]);
			for (size_t j = 0; j < n; j++)
				w_f64s(&w, e->kv + j * e->cap, ne);
		}
	}
	if (m->platt != NULL)
		w_f64s(&w, m->platt, 2 * (size_t) m->n_classes);
	if (m->prep != NULL)
		write_prep(&w, m->prep);
	if (m->weights != NULL)
		write_weights(&w, m);
	w_u32(&w, (uint32_t) m->curve_n);
	for (int i = 0; i < m->curve_n; i++)
		w_u64(&w, m->curve[i]);
	w_u32(&w, (uint32_t) m->n_parents);
	memcpy(w.buf + w.pos, m->parents, BK_FINGERPRINT_LEN * (size_t) m->n_parents);
	w.pos += BK_FINGERPRINT_LEN * (size_t) m->n_parents;
	w_u32(&w, BkCrc32c(0, buf, w.pos));
}

static uint32_t params_aux(const BkParams *p);

/* ---- parser (validation and decoding) ---- */

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

static bool
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

static uint32_t
r_u32(Reader *r)
{
	uint32_t	v = get_u32(r->buf + r->pos);

	r->pos += 4;
	return v;
}

static uint64_t
r_u64(Reader *r)
{
	uint64_t	v = get_u64(r->buf + r->pos);

	r->pos += 8;
	return v;
}

/* n doubles, all finite; copied to out when out is not NULL */
static bool
r_f64s(Reader *r, double *out, size_t n, const char *what)
{
	size_t		bytes;

	if (!BkMulSize(n, 8, &bytes) || !need(r, bytes, what))
		return false;
	for (size_t i = 0; i < n; i++)
	{
		double		v = bits_to_double(get_u64(r->buf + r->pos + 8 * i));

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

/* Refuse with a formatted message (the reader's err buffer). */
static bool BK_PRINTF(2, 3)
fail(Reader *r, const char *fmt,...)
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
static bool BK_PRINTF(2, 3)
fail_value(Reader *r, const char *fmt,...)
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
 * The fixed header: magic, version, flags, the length field against the
 * buffer, and (check_crc) the CRC-32C.  Leaves r at the first field after
 * the header with the CRC excluded from r->len.
 */
static bool
parse_header(Reader *r, BkModel *hdr, BkErrCode *code, bool check_crc,
			 bool *calibrated, bool *prepared, bool *weighted)
{
	const uint8_t *buf = r->buf;
	size_t		len = r->len;
	uint32_t	version,
				flags,
				total;

	if (len < HEADER_LEN + 4)
		return fail(r, "%zu bytes is too short for a model", len);
	if (memcmp(buf, bk_magic, 4) != 0)
		return fail(r, "bad magic number (not a budgetkernel model)");
	version = get_u16(buf + 4);
	flags = get_u16(buf + 6);
	total = get_u32(buf + 8);
	if (version > BK_FORMAT_VERSION)
	{
		*code = BK_ERR_VERSION;
		return fail(r, "model format version %u is newer than this library's version %u",
					version, BK_FORMAT_VERSION);
	}
	if (version < 1)
		return fail(r, "invalid format version %u", version);
	if (flags & ~FLAGS_KNOWN)
		return fail(r, "unknown flags 0x%04x", flags);
	hdr->format_version = (int) version;
	hdr->text_labels = (flags & FLAG_TEXT_LABELS) != 0;
	hdr->classes_declared = (flags & FLAG_DECLARED) != 0;
	hdr->labels_utf8 = (flags & FLAG_LABELS_UTF8) != 0;
	*calibrated = (flags & FLAG_CALIBRATED) != 0;
	*prepared = (flags & FLAG_PREPARED) != 0;
	*weighted = (flags & FLAG_WEIGHTED) != 0;
	if (hdr->labels_utf8 && !hdr->text_labels)
		return fail(r, "UTF-8 flag without text labels");
	if (*calibrated && version < 2)
		return fail(r, "calibration flag in a version %u model", version);
	if (*prepared && version < 2)
		return fail(r, "preparation flag in a version %u model", version);
	if (*weighted && version < 2)
		return fail(r, "class weight flag in a version %u model", version);
	if ((size_t) total != len)
		return fail(r, "length field says %u bytes, got %zu", total, len);
	if (check_crc && BkCrc32c(0, buf, len - 4) != get_u32(buf + len - 4))
		return fail(r, "checksum mismatch");
	r->len = len - 4;			/* the CRC is not part of the body */
	r->pos = HEADER_LEN;
	return true;
}

/* Dimension and parameters, into hdr->dim and hdr->params. */
static bool
parse_params(Reader *r, BkModel *hdr)
{
	BkStoredParam params[BK_MAX_STORED_PARAMS];
	char		perr[BK_ERRMSG_LEN];
	uint32_t	dim,
				np;

	if (!need(r, 8, "dimension and parameter count"))
		return false;
	dim = r_u32(r);
	np = r_u32(r);
	if (dim < 1 || dim > BK_MAX_DIM)
		return fail(r, "dimension %u out of range 1..%d", dim, BK_MAX_DIM);
	if (np > BK_MAX_STORED_PARAMS)
		return fail(r, "%u parameters is too many", np);
	if (!need(r, (size_t) np * 16, "parameters"))
		return false;
	for (uint32_t i = 0; i < np; i++)
	{
		params[i].id = get_u16(r->buf + r->pos);
		params[i].kind = get_u16(r->buf + r->pos + 2);
		if (get_u32(r->buf + r->pos + 4) != 0)
			return fail(r, "reserved bits of parameter %u are set", i);
		params[i].bits = get_u64(r->buf + r->pos + 8);
		r->pos += 16;
	}
	if (!BkParamsFromStored(&hdr->params, params, (int) np, perr, sizeof(perr)))
		return fail(r, "invalid parameters: %s", perr);
	/*
	 * One byte form per model: the parameters in the order the encoder
	 * writes.  A "ridge" the model does not store (stored before it
	 * existed) was filled in with its learner's value of then
	 * (BkParamsFromStored), and the encoder will write it: the stored
	 * entries are compared with the others.
	 */
	{
		BkStoredParam canon[BK_MAX_STORED_PARAMS];
		int			nc = BkParamsToStored(&hdr->params, canon, BK_MAX_STORED_PARAMS);
		bool		ridge_stored = false;
		uint32_t	j = 0;

		for (uint32_t i = 0; i < np; i++)
			ridge_stored |= params[i].id == BK_P_RIDGE;
		for (int i = 0; i < nc; i++)
		{
			if (canon[i].id == BK_P_RIDGE && !ridge_stored)
				continue;
			if (j >= np || canon[i].id != params[j].id || canon[i].bits != params[j].bits)
				return fail(r, "parameters are not in canonical order or form");
			j++;
		}
		if (j != np)
			return fail(r, "parameters are not in canonical order or form");
	}
	hdr->dim = (int) dim;
	return true;
}

/*
 * A text label of the class table or of the class weights (what names
 * it in messages): a u32 length of 1 to BK_MAX_LABEL_LEN and as many
 * bytes without NUL, UTF-8 with the flag.  Leaves r after it, the bytes
 * in *text.
 */
static bool
r_text_label(Reader *r, const BkModel *hdr, const char *what, uint32_t i,
			 const char **text, uint32_t *len)
{
	char		lw[64];

	snprintf(lw, sizeof(lw), "%s length", what);
	if (!need(r, 4, lw))
		return false;
	*len = get_u32(r->buf + r->pos);
	if (*len == 0 || *len > BK_MAX_LABEL_LEN)
		return fail(r, "%s %u has length %u", what, i, *len);
	if (!need(r, 4 + (size_t) *len, what))
		return false;
	*text = (const char *) r->buf + r->pos + 4;
	if (memchr(*text, 0, *len) != NULL)
		return fail(r, "%s %u holds a NUL byte", what, i);
	if (hdr->labels_utf8 && !BkValidUtf8(*text, *len))
		return fail(r, "%s %u is not valid UTF-8", what, i);
	r->pos += 4 + (size_t) *len;
	return true;
}

/* Whether text label i (at pos, len bytes) equals an earlier one. */
static bool
text_seen(const Reader *r, size_t first, uint32_t i, size_t pos, uint32_t len)
{
	size_t		q = first;

	for (uint32_t j = 0; j < i; j++)
	{
		uint32_t	lj = get_u32(r->buf + q);

		if (lj == len && memcmp(r->buf + q + 4, r->buf + pos, len) == 0)
			return true;
		q += 4 + lj;
	}
	return false;
}

/*
 * Class labels: distinct integers, or distinct non-empty text labels
 * without NUL of at most BK_MAX_LABEL_LEN bytes.  Appended to m if given.
 */
static bool
parse_classes(Reader *r, BkModel *hdr, BkModel *m)
{
	uint32_t	nc;
	size_t		first;
	bool		canonical;
	const uint8_t *prev = NULL;
	uint32_t	prev_len = 0;

	if (!need(r, 4, "class count"))
		return false;
	nc = r_u32(r);
	if (nc > BK_MAX_CLASSES)
		return fail(r, "%u classes, at most %d allowed", nc, BK_MAX_CLASSES);
	/*
	 * Version 2 stores learned classes in canonical order (integers
	 * ascending, text by bytes), so that decoding and encoding again gives
	 * the same bytes; version 1 stored them as they came (the decoder
	 * sorts them).
	 */
	canonical = hdr->format_version >= 2 && !hdr->classes_declared;
	first = r->pos;
	for (uint32_t i = 0; i < nc; i++)
	{
		if (hdr->text_labels)
		{
			const char *text;
			uint32_t	len;

			if (!r_text_label(r, hdr, "class label", i, &text, &len))
				return false;
			if (text_seen(r, first, i, (size_t) ((const uint8_t *) text - r->buf), len))
				return fail(r, "class label %u appears twice", i);
			if (canonical && i > 0 &&
				BkBytesCompare((const char *) prev, prev_len, text, len) > 0)
				return fail(r, "class label %u is out of canonical order", i);
			prev = (const uint8_t *) text;
			prev_len = len;
			if (m)
				BkClassAppend(m, 0, text, len);
		}
		else
		{
			int64_t		label;

			if (!need(r, 8, "class label"))
				return false;
			label = (int64_t) get_u64(r->buf + r->pos);
			for (uint32_t j = 0; j < i; j++)
				if ((int64_t) get_u64(r->buf + first + 8 * (size_t) j) == label)
					return fail(r, "class label %lld appears twice", (long long) label);
			if (canonical && i > 0 &&
				(int64_t) get_u64(r->buf + r->pos - 8) > label)
				return fail(r, "class label %u is out of canonical order", i);
			if (m)
				BkClassAppend(m, label, NULL, 0);
			r->pos += 8;
		}
	}
	hdr->n_classes = (int) nc;
	return true;
}

/* Counters, PRNG state and the machine count. */
static bool
parse_counters(Reader *r, BkModel *hdr, uint32_t *n_machines)
{
	uint32_t	nc = (uint32_t) hdr->n_classes;

	bool		has_parts = hdr->format_version >= 2;

	if (!need(r, (has_parts ? 10 : 9) * 8 + 4, "counters"))
		return false;
	hdr->rows_seen = r_u64(r);
	hdr->rows_skipped = r_u64(r);
	hdr->rows_updated = r_u64(r);
	hdr->mistakes = r_u64(r);
	hdr->maintenance = r_u64(r);
	hdr->parts = has_parts ? r_u64(r) : 1;
	if (hdr->parts == 0)
		return fail(r, "a model merged from 0 parts");
	for (int i = 0; i < 4; i++)
		hdr->rng.s[i] = r_u64(r);
	*n_machines = r_u32(r);
	/* xoshiro256** never reaches the all-zero state */
	if ((hdr->rng.s[0] | hdr->rng.s[1] | hdr->rng.s[2] | hdr->rng.s[3]) == 0)
		return fail(r, "random generator state is all zero");
	/* every machine may run budget maintenance once a row (one-vs-rest) */
	if (hdr->rows_updated > hdr->rows_seen || hdr->mistakes > hdr->rows_seen ||
		(hdr->rows_seen <= UINT64_MAX / (*n_machines > 0 ? *n_machines : 1) &&
		 hdr->maintenance > hdr->rows_seen * (*n_machines > 0 ? *n_machines : 1)))
		return fail(r, "inconsistent row counters");
	/* learned classes come with rows; declared ones may come before any */
	if (hdr->classes_declared ? nc == 0 :
		(nc == 0) != (hdr->rows_seen == 0))
		return fail(r, "%u classes after %llu rows", nc,
					(unsigned long long) hdr->rows_seen);
	if ((int) *n_machines != BkModelMachines(&hdr->params, (int) nc))
		return fail(r, "%u machines, algorithm \"%s\" with %u classes has %d",
					*n_machines, BkAlgorithmName(&hdr->params), nc,
					BkModelMachines(&hdr->params, (int) nc));
	return true;
}

/*
 * SV slots of each machine when decoding, into caps (the machine headers
 * were validated by the first pass).  Scoring gives each machine room for
 * exactly its SVs, so the memory of a decoded model follows its stored
 * size; training gives room for the SVs (16 at least), to grow as SVs
 * arrive up to the budget or max_sv (the full size of every machine was
 * checked against the allocation limit before).
 */
static void
decode_capacities(const Reader *r, const BkModel *m, uint32_t n_machines,
				  int *caps)
{
	size_t		pos = r->pos;

	for (uint32_t k = 0; k < n_machines; k++)
	{
		int			n_sv = (int) get_u32(r->buf + pos);
		uint32_t	aux = get_u32(r->buf + pos + 8);
		size_t		msize;
		int			cap = n_sv;

		machine_size((size_t) m->dim, (size_t) n_sv, get_u32(r->buf + pos + 4),
					 aux, &msize);
		pos += msize;
		if (aux & AUX_EVAL)
		{
			size_t		esize;

			eval_size((size_t) m->dim, (size_t) n_sv, get_u32(r->buf + pos), &esize);
			pos += 16 + esize;
		}
		if (m->training)
			cap = BkModelInitialCapacity(&m->params, n_sv);
		/* an empty machine needs no slot to score (but one to learn) */
		caps[k] = m->training && cap < 1 ? 1 : cap;
	}
}

/* a +1 / -1 array of n doubles (labels, predicted signs) */
static bool
r_signs(Reader *r, double *out, size_t n, const char *what)
{
	if (!need(r, n * 8, what))
		return false;
	for (size_t i = 0; i < n; i++)
	{
		double		v = bits_to_double(get_u64(r->buf + r->pos + 8 * i));

		if (v != 1.0 && v != -1.0)
			return fail(r, "%s: value %zu is not +1 or -1", what, i);
		if (out)
			out[i] = v;
	}
	r->pos += n * 8;
	return true;
}

/* n counters of at most limit each */
static bool
r_counts(Reader *r, uint64_t *out, size_t n, uint64_t limit, const char *what)
{
	if (!need(r, n * 8, what))
		return false;
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	v = get_u64(r->buf + r->pos + 8 * i);

		if (v > limit)
			return fail(r, "%s: value %zu exceeds the rows seen", what, i);
		if (out)
			out[i] = v;
	}
	r->pos += n * 8;
	return true;
}

/*
 * The tighter budget perceptron's evaluation set of machine k: its size
 * against the parameters (for "svs" the SVs themselves, in their order:
 * the SVs are at sv_pos), labels and signs
 * of +1 / -1, row numbers within the stream, finite values.
 */
static bool
parse_eval(Reader *r, const BkModel *hdr, uint32_t k, uint32_t n_sv, size_t sv_pos,
		   BkEvalSet *e)
{
	uint32_t	n,
				cap;
	uint64_t	offered;
	size_t		esize,
				dim = (size_t) hdr->dim;

	if (!need(r, 16, "evaluation set header"))
		return false;
	n = r_u32(r);
	cap = r_u32(r);
	offered = r_u64(r);
	if ((int) cap != BkModelEvalCap(&hdr->params) || n > cap ||
		(hdr->params.eval_set == BK_EVAL_SVS && n != n_sv))
		return fail(r, "evaluation set of machine %u holds %u of %u points (the parameters give %d%s)",
					k, n, cap, BkModelEvalCap(&hdr->params),
					hdr->params.eval_set == BK_EVAL_SVS ? ", and as many as the SVs" : "");
	if (offered > hdr->rows_seen)
		return fail(r, "evaluation set of machine %u was offered more rows than seen", k);
	if (!eval_size(dim, n_sv, n, &esize) || !need(r, esize, "evaluation set"))
		return false;
	if (e)
	{
		e->n = (int) n;
		e->offered = offered;
	}
	/* "svs": point i is SV i, which a removal takes out as its mirror */
	if (hdr->params.eval_set == BK_EVAL_SVS &&
		memcmp(r->buf + r->pos, r->buf + sv_pos, (size_t) n * dim * 8) != 0)
		return fail(r, "evaluation set of machine %u is not its support vectors", k);
	if (!r_f64s(r, e ? e->x : NULL, (size_t) n * dim, "evaluation points") ||
		!r_signs(r, e ? e->y : NULL, n, "evaluation labels") ||
		!r_f64s(r, e ? e->f : NULL, n, "evaluation scores") ||
		!r_signs(r, e ? e->pred : NULL, n, "evaluation predictions") ||
		!r_counts(r, e ? e->flips : NULL, n, hdr->rows_seen, "evaluation flips") ||
		!r_counts(r, e ? e->since : NULL, n, hdr->rows_seen, "evaluation row numbers"))
		return false;
	for (uint32_t j = 0; j < n_sv; j++)
		if (!r_f64s(r, e ? e->kv + (size_t) j * e->cap : NULL, n, "evaluation kernel values"))
			return false;
	if (e)
		for (uint32_t i = 0; i < n; i++)
			e->sqnorm[i] = BkDot(e->x + i * dim, e->x + i * dim, (int) dim);
	return true;
}

/*
 * The SVs just read (n_sv x dim doubles before r->pos): each within the
 * norm a row may have, and, for the polynomial kernel, with a finite
 * k(x, x), so that every kernel value a scoring computes is finite
 * (checked_self_kernel in bk_model.c).
 */
static bool
check_sv_norms(Reader *r, const BkParams *p, size_t dim, uint32_t n_sv)
{
	const uint8_t *at = r->buf + r->pos - (size_t) n_sv * dim * 8;

	if (!r->numeric)
		return true;
	for (uint32_t i = 0; i < n_sv; i++)
	{
		double		sq = 0.0;

		for (size_t j = 0; j < dim; j++)
		{
			double		v = bits_to_double(get_u64(at + 8 * (i * dim + j)));

			sq += v * v;
		}
		if (!(sq <= BK_MAX_SQNORM))
			return fail_value(r, "support vector %u has squared norm %g, beyond %g",
							  i, sq, BK_MAX_SQNORM);
		if (!isfinite(BkKernelSelf(p, sq)))
			return fail_value(r, "the kernel of support vector %u with itself overflows", i);
	}
	return true;
}

/*
 * The coefficients just read: with the machine's scale they must be
 * finite, and so must the sum of their magnitudes, which bounds every
 * score of a kernel whose values are at most 1 (rbf).
 */
static bool
check_coefs(Reader *r, const BkParams *p, uint32_t n_sv, uint32_t n_coef,
			double scale)
{
	const uint8_t *at = r->buf + r->pos - (size_t) n_sv * n_coef * 8;

	if (!r->numeric)
		return true;
	for (uint32_t c = 0; c < n_coef; c++)
	{
		double		sum = 0.0;

		for (uint32_t i = 0; i < n_sv; i++)
		{
			double		a = scale * bits_to_double(get_u64(at + 8 * ((size_t) i * n_coef + c)));

			if (!isfinite(a))
				return fail_value(r, "coefficient %u of support vector %u times the scale %g is not finite",
								  c, i, scale);
			sum += fabs(a);
		}
		if (p->kernel == BK_KERNEL_RBF && !isfinite(sum))
			return fail_value(r, "the coefficients of class %u sum beyond a double", c);
	}
	return true;
}

/*
 * One machine: its header against the algorithm's limits and layout, then
 * the SVs, coefficients and bookkeeping (copied into mach when not NULL;
 * K^-1 and the neighbour cache only when mach keeps them, for training).
 */
static bool
parse_machine(Reader *r, const BkModel *hdr, uint32_t k, BkMachine *mach)
{
	const BkParams *p = &hdr->params;
	size_t		dim = (size_t) hdr->dim;
	uint32_t	n_sv,
				n_coef,
				aux,
				want_aux;
	uint64_t	limit,
				updates,
				maint,
				since;
	size_t		sv_pos = 0;
	double		scale,
				degradation,
				wnorm2;
	size_t		msize;

	if (!need(r, MACHINE_HEADER, "machine header"))
		return false;
	n_sv = r_u32(r);
	n_coef = r_u32(r);
	aux = r_u32(r);
	if (r_u32(r) != 0)
		return fail(r, "reserved field of machine %u is set", k);
	limit = BkParamsBudgeted(p) ? (uint64_t) p->budget : (uint64_t) p->max_sv;
	if (n_sv > limit)
		return fail(r, "%u support vectors exceed the %s of %llu", n_sv,
					BkParamsBudgeted(p) ? "budget" : "max_sv",
					(unsigned long long) limit);
	if ((int) n_coef != BkModelCoefs(p, hdr->n_classes))
		return fail(r, "%u coefficients per support vector, expected %d", n_coef,
					BkModelCoefs(p, hdr->n_classes));
	want_aux = params_aux(p);
	if (aux != want_aux)
		return fail(r, "machine %u has bookkeeping flags 0x%x, expected 0x%x",
					k, aux, want_aux);
	if (!machine_size(dim, n_sv, n_coef, aux, &msize) ||
		!need(r, msize - MACHINE_HEADER, "support vectors"))
		return false;

	updates = r_u64(r);
	maint = r_u64(r);
	since = r_u64(r);
	scale = bits_to_double(r_u64(r));
	degradation = bits_to_double(r_u64(r));
	wnorm2 = bits_to_double(r_u64(r));
	if ((!isfinite(wnorm2) || wnorm2 < 0.0 || (!p->ball_projection && wnorm2 != 0.0)) &&
		!fail_value(r, "norm %g of machine %u is invalid", wnorm2, k))
		return false;
	/*
	 * degradation, the damage of budget maintenance, and the coefficients'
	 * scale: what the learner allows (bk_learner.h; Pegasos's sum of
	 * ||Delta w||^2 and shrinking scale, the Forgetron's Q_t), else 0 and 1
	 */
	switch (BkLearnerCheckSums(p, updates, scale, degradation))
	{
		case BK_SUMS_BAD_DEGRADATION:
			if (!fail_value(r, "%s %g of machine %u is invalid",
							BkLearnerDegradationName(p), degradation, k))
				return false;
			break;
		case BK_SUMS_BAD_SCALE:
			if (!fail_value(r, "coefficient scale %g of machine %u is invalid", scale, k))
				return false;
			break;
	}
	if (updates > hdr->rows_updated || maint > hdr->maintenance)
		return fail(r, "inconsistent counters of machine %u", k);
	if (!(aux & AUX_GINV) && since != 0)
		return fail(r, "refactorisation counter set on machine %u without K^-1", k);
	if (mach)
	{
		mach->n_sv = (int) n_sv;
		mach->scale = scale;
		mach->degradation = degradation;
		mach->wnorm2 = wnorm2;
		mach->updates = updates;
		mach->maintenance = maint;
		if (mach->has_ginv)
			mach->ginv.since_refresh = since;
	}

	sv_pos = r->pos;
	if (!r_f64s(r, mach ? mach->sv : NULL, (size_t) n_sv * dim, "support vectors") ||
		!check_sv_norms(r, p, dim, n_sv) ||
		!r_f64s(r, mach ? mach->coef : NULL, (size_t) n_sv * n_coef, "coefficients") ||
		!check_coefs(r, p, n_sv, n_coef, scale))
		return false;
	if (mach)
	{
		/*
		 * Read as n_sv rows of dim values: each row moves to its stride,
		 * the last first so that none is overwritten before it moves.
		 */
		if ((size_t) mach->sv_ld != dim)
			for (uint32_t i = n_sv; i-- > 0;)
			{
				double	   *row = BkSvRow(mach, (int) i);

				memmove(row, mach->sv + (size_t) i * dim, sizeof(double) * dim);
				memset(row + dim, 0, sizeof(double) * (mach->sv_ld - dim));
			}
		for (uint32_t i = 0; i < n_sv; i++)
			mach->sqnorm[i] = BkDot(BkSvRow(mach, (int) i), BkSvRow(mach, (int) i),
									(int) dim);
	}

	if (aux & AUX_NEAREST)
	{
		for (uint32_t i = 0; i < n_sv; i++)
		{
			int32_t		idx = (int32_t) r_u32(r);

			/* -1 only when there is no other SV */
			if (idx == (int32_t) i || idx < -1 || idx >= (int32_t) n_sv ||
				(idx == -1) != (n_sv == 1))
				return fail(r, "nearest neighbour %d of support vector %u is invalid",
							idx, i);
			if (mach && mach->has_nearest)
				mach->nearest.idx[i] = idx;
		}
		if (!need(r, (size_t) n_sv * 8, "neighbour distances"))
			return false;
		for (uint32_t i = 0; i < n_sv; i++)
			if (bits_to_double(get_u64(r->buf + r->pos + 8 * (size_t) i)) < 0 &&
				!fail_value(r, "negative neighbour distance"))
				return false;
		if (!r_f64s(r, mach && mach->has_nearest ? mach->nearest.dist2 : NULL,
					n_sv, "neighbour distances"))
			return false;
	}
	if (aux & AUX_GINV)
	{
		for (uint32_t i = 0; i < n_sv; i++)
			if (!r_f64s(r, mach && mach->has_ginv ?
						mach->ginv.m + (size_t) i * mach->ginv.cap : NULL,
						n_sv, "inverse kernel matrix"))
				return false;
		if (mach && mach->has_ginv)
			mach->ginv.n = (int) n_sv;
	}
	if (aux & AUX_SCORES)
	{
		if (!r_f64s(r, mach && mach->sv_scores ? mach->sv_scores : NULL, n_sv,
					"support vector scores"))
			return false;
	}
	/* each SV's row: at least 1, at most the rows seen */
	if (aux & AUX_BORN)
	{
		if (!need(r, (size_t) n_sv * 8, "support vector rows"))
			return false;
		for (uint32_t i = 0; i < n_sv; i++)
			if (get_u64(r->buf + r->pos + 8 * (size_t) i) == 0)
				return fail(r, "support vector rows: value %u is 0", i);
		if (!r_counts(r, mach ? mach->born : NULL, n_sv, hdr->rows_seen, "support vector rows"))
			return false;
	}
	if (aux & AUX_EVAL)
		return parse_eval(r, hdr, k, n_sv, sv_pos, mach && mach->eval ? mach->eval : NULL);
	return true;
}

/* A key or level of n bytes at r: 1..BK_MAX_LABEL_LEN bytes (0 allowed for a level), no NUL */
static bool
r_bytes(Reader *r, uint32_t n, bool empty_ok, const char *what, const char **out)
{
	if ((n == 0 && !empty_ok) || n > BK_MAX_LABEL_LEN)
		return fail(r, "%s of %u bytes, expected %d to %d", what, n,
					empty_ok ? 0 : 1, BK_MAX_LABEL_LEN);
	if (!need(r, n, what))
		return false;
	if (memchr(r->buf + r->pos, '\0', n) != NULL)
		return fail(r, "%s holds a NUL byte", what);
	if (!BkValidUtf8((const char *) r->buf + r->pos, n))
		return fail(r, "%s is not valid UTF-8", what);
	*out = (const char *) r->buf + r->pos;
	r->pos += n;
	return true;
}

/*
 * The preparation (see write_prep): inputs named in strictly ascending byte
 * order (or unnamed and numeric), levels in strictly ascending byte order,
 * sums that a stream of values can give, and as many prepared columns as
 * the model's dimension.  Decoded into m when m is not NULL.
 */
static bool
parse_prep(Reader *r, int dim, BkModel *m)
{
	uint32_t	n;
	int			named,
				scale,
				impute;
	size_t		cols = 0;
	BkPrep	   *p = NULL;
	const char *prev = NULL;
	uint32_t	prev_len = 0;

	if (!need(r, 8, "preparation"))
		return false;
	n = r_u32(r);
	named = r->buf[r->pos];
	scale = r->buf[r->pos + 1];
	impute = r->buf[r->pos + 2];
	if (r->buf[r->pos + 3] != 0 || named > 1 || scale > BK_SCALE_STANDARD ||
		impute > BK_IMPUTE_MEAN)
		return fail(r, "invalid preparation modes at offset %zu", r->pos);
	r->pos += 4;
	if (n < 1 || n > BK_MAX_INPUTS)
		return fail(r, "a preparation of %u inputs, expected 1 to %d", n, BK_MAX_INPUTS);
	if (n > (r->len - r->pos) / 8)
		return fail(r, "truncated: %u inputs need at least %u bytes", n, 8 * n);
	if (m != NULL)
	{
		p = BkAllocArray(&m->env, 1, sizeof(BkPrep));
		p->named = named;
		p->scale = scale;
		p->impute = impute;
		p->inputs = BkAllocArray(&m->env, n, sizeof(BkPrepInput));
		p->n_inputs = (int) n;
		m->prep = p;			/* freed with the model on any failure below */
	}
	for (uint32_t i = 0; i < n; i++)
	{
		int			kind;
		uint32_t	name_len;
		const char *name = NULL;
		BkPrepInput *in = p ? &p->inputs[i] : NULL;

		if (!need(r, 8, "preparation input"))
			return false;
		kind = r->buf[r->pos];
		if (kind != BK_INPUT_NUMERIC && kind != BK_INPUT_CATEGORICAL)
			return fail(r, "input %u has kind %d", i, kind);
		if (r->buf[r->pos + 1] != 0 || get_u16(r->buf + r->pos + 2) != 0)
			return fail(r, "input %u has non-zero padding", i);
		r->pos += 4;
		name_len = r_u32(r);
		if (named)
		{
			if (!r_bytes(r, name_len, false, "an input's name", &name))
				return false;
			if (prev != NULL && BkBytesCompare(prev, prev_len, name, name_len) >= 0)
				return fail(r, "input names out of order at input %u", i);
			prev = name;
			prev_len = name_len;
		}
		else if (name_len != 0 || kind != BK_INPUT_NUMERIC)
			return fail(r, "input %u of an array is named or not numeric", i);
		if (in)
		{
			in->kind = kind;
			in->offset = (int) cols;
			in->name_len = name_len;
			if (named)
				in->name = BkCopyBytes(&m->env, name, name_len);
		}
		if (kind == BK_INPUT_NUMERIC)
		{
			double		v[3];

			if (!r_f64s(r, v, 3, "an input's sums"))
				return false;
			if (v[0] < 0 || v[0] > BK_PREP_MAX_COUNT || v[0] != floor(v[0]) ||
				v[2] < 0 || (v[0] == 0 && (v[1] != 0 || v[2] != 0)))
				return fail(r, "input %u has impossible sums", i);
			if (in)
			{
				in->n = v[0];
				in->sx = v[1];
				in->sxx = v[2];
				BkPrepDerive(p, in);
			}
			cols++;
		}
		else
		{
			uint32_t	nl;

			if (!need(r, 4, "levels"))
				return false;
			nl = r_u32(r);
			if (nl > BK_MAX_LEVELS || nl > (r->len - r->pos) / 4)
				return fail(r, "input %u has %u levels", i, nl);
			if (in)
			{
				in->levels = BkAllocArray(&m->env, nl ? nl : 1, sizeof(char *));
				in->level_len = BkAllocArray(&m->env, nl ? nl : 1, sizeof(uint32_t));
				in->scale = 1.0;
			}
			prev = NULL;
			for (uint32_t j = 0; j < nl; j++)
			{
				uint32_t	len;
				const char *lv;

				if (!need(r, 4, "level"))
					return false;
				len = r_u32(r);
				if (!r_bytes(r, len, true, "a level", &lv))
					return false;
				if (j > 0 && BkBytesCompare(prev, prev_len, lv, len) >= 0)
					return fail(r, "levels of input %u out of order", i);
				prev = lv;
				prev_len = len;
				if (in)
				{
					in->levels[j] = BkCopyBytes(&m->env, lv, len);
					in->level_len[j] = len;
					in->n_levels = (int) j + 1;
				}
			}
			cols += nl;
			/* the names' order goes on from this input's name */
			prev = name;
			prev_len = name_len;
		}
	}
	if (cols != (size_t) dim)
		return fail(r, "the preparation has %zu columns, the model's dimension is %d",
					cols, dim);
	if (p)
		p->dim = dim;
	return true;
}

/*
 * The class weights (see write_weights): a known mode, explicit entries
 * only for explicit weights, labels of the model's type in strictly
 * ascending order (as classes: 1 to BK_MAX_LABEL_LEN bytes, no NUL, UTF-8
 * with the flag), weights in [BK_MIN_CLASS_WEIGHT, BK_MAX_CLASS_WEIGHT],
 * and counts that the rows seen can give.  Decoded into m when not NULL.
 */
static bool
parse_weights(Reader *r, const BkModel *hdr, BkModel *m)
{
	int			mode;
	uint32_t	n;
	const uint8_t *prev = NULL;
	uint32_t	prev_len = 0;
	int64_t		prev_label = 0;
	uint64_t	sum = 0;
	BkClassWeights *cw = NULL;

	if (!need(r, 8, "class weights"))
		return false;
	mode = r->buf[r->pos];
	if ((mode != BK_WEIGHT_EXPLICIT && mode != BK_WEIGHT_BALANCED) ||
		r->buf[r->pos + 1] != 0 || get_u16(r->buf + r->pos + 2) != 0)
		return fail(r, "invalid class weight mode at offset %zu", r->pos);
	r->pos += 4;
	n = r_u32(r);
	if (n > BK_MAX_CLASSES || (mode == BK_WEIGHT_BALANCED && n != 0))
		return fail(r, "%u class weight entries for mode %d", n, mode);
	if (m)
	{
		if (mode == BK_WEIGHT_BALANCED)
			BkModelWeightBalanced(m);
		else
			BkModelWeightExplicit(m);
		cw = m->weights;
	}
	for (uint32_t i = 0; i < n; i++)
	{
		double		w;
		const char *text = NULL;
		uint32_t	len = 0;
		int64_t		label = 0;

		if (hdr->text_labels)
		{
			if (!r_text_label(r, hdr, "class weight label", i, &text, &len))
				return false;
			if (i > 0 && BkBytesCompare((const char *) prev, prev_len, text, len) >= 0)
				return fail(r, "class weight label %u is out of order", i);
			prev = (const uint8_t *) text;
			prev_len = len;
		}
		else
		{
			if (!need(r, 8, "class weight label"))
				return false;
			label = (int64_t) r_u64(r);
			if (i > 0 && label <= prev_label)
				return fail(r, "class weight label %u is out of order", i);
			prev_label = label;
		}
		if (!need(r, 8, "class weight"))
			return false;
		w = bits_to_double(r_u64(r));
		if (!(w >= BK_MIN_CLASS_WEIGHT && w <= BK_MAX_CLASS_WEIGHT))
			return fail(r, "class weight %u is %g, outside [%g, %g]", i, w,
						BK_MIN_CLASS_WEIGHT, BK_MAX_CLASS_WEIGHT);
		/* checked above: in order and in range, each is appended */
		if (m && text)
			BkModelWeightClassText(m, text, len, w);
		else if (m)
			BkModelWeightClass(m, label, w);
	}
	if (!need(r, 8 * (size_t) hdr->n_classes, "class weight counts"))
		return false;
	for (int c = 0; c < hdr->n_classes; c++)
	{
		uint64_t	v = r_u64(r);

		if (v > hdr->rows_seen - sum)
			return fail(r, "class weight counts sum beyond the %llu rows seen",
						(unsigned long long) hdr->rows_seen);
		sum += v;
		if (m)
			cw->count[c] = v;
	}
	return true;
}

/*
 * Parse buf.  With m == NULL only validate; otherwise m->env and
 * m->training are set, and the machines are allocated (room to go on
 * learning if m->training) and filled.  numeric: check the values of the
 * floating-point fields too (Reader.numeric).
 */
static bool
parse(const uint8_t *buf, size_t len, BkModel *m, char *err, size_t errlen,
	  BkErrCode *code, bool check_crc, bool numeric)
{
	Reader		r = {buf, len, 0, err, errlen, code, numeric};
	BkModel		hdr;
	uint32_t	n_machines = 0;
	bool		calibrated = false;
	bool		prepared = false;
	bool		weighted = false;

	*code = BK_ERR_CORRUPT;
	memset(&hdr, 0, sizeof(hdr));
	if (!parse_header(&r, &hdr, code, check_crc, &calibrated, &prepared, &weighted) ||
		!parse_params(&r, &hdr) ||
		!parse_classes(&r, &hdr, m) ||
		!parse_counters(&r, &hdr, &n_machines))
		return false;

	if (m != NULL)
	{
		int		   *caps;

		m->params = hdr.params;
		m->grow_limit = BkModelGrowLimit(&m->params);
		m->dim = hdr.dim;
		m->format_version = hdr.format_version;
		m->text_labels = hdr.text_labels;
		m->classes_declared = hdr.classes_declared;
		m->labels_utf8 = hdr.labels_utf8;
		m->rows_seen = hdr.rows_seen;
		m->rows_skipped = hdr.rows_skipped;
		m->rows_updated = hdr.rows_updated;
		m->mistakes = hdr.mistakes;
		m->maintenance = hdr.maintenance;
		m->parts = hdr.parts;
		m->rng = hdr.rng;
		/*
		 * A stored budget is untrusted: check what training would allocate,
		 * every machine counted, before allocating anything.
		 */
		if (m->training &&
			!BkModelCheckSizeClasses(&m->params, m->dim, hdr.n_classes,
									 m->env.max_alloc, err, errlen))
		{
			*code = BK_ERR_LIMIT;
			return false;
		}
		caps = BkAllocArray(&m->env, n_machines > 0 ? n_machines : 1, sizeof(int));
		decode_capacities(&r, m, n_machines, caps);
		BkModelAllocMachines(m, caps, 0);
		BkFree(&m->env, caps);
	}

	for (uint32_t k = 0; k < n_machines; k++)
	{
		if (!parse_machine(&r, &hdr, k, m ? &m->machines[k] : NULL))
			return false;
		if (m)
			BkCheckInterrupts(&m->env);
	}
	/* Platt's (A, B) of each class: finite, for two classes or more */
	if (calibrated)
	{
		size_t		n = 2 * (size_t) hdr.n_classes;

		if (hdr.n_classes < 2)
			return fail(&r, "a calibration of %d class", hdr.n_classes);
		if (!need(&r, 8 * n, "calibration"))
			return false;
		for (size_t i = 0; i < n; i++)
			if (!isfinite(bits_to_double(get_u64(r.buf + r.pos + 8 * i))) &&
				!fail_value(&r, "calibration value %zu is not finite", i))
				return false;
		if (m)
			m->platt = BkAllocArray(&m->env, n, sizeof(double));
		if (!r_f64s(&r, m ? m->platt : NULL, n, "calibration"))
			return false;
	}
	if (prepared && !parse_prep(&r, hdr.dim, m))
		return false;
	if (weighted && !parse_weights(&r, &hdr, m))
		return false;
	/*
	 * Version 2: the learning curve, none or one point per power of two of
	 * rows seen (2^i <= rows_seen), non-decreasing, point i at most 2^i and
	 * the last at most the mistakes
	 */
	if (hdr.format_version >= 2)
	{
		uint32_t	nc;
		int			want = 0;
		uint64_t	prev = 0;

		if (!need(&r, 4, "learning curve"))
			return false;
		nc = r_u32(&r);
		for (uint64_t v = hdr.rows_seen; v > 0; v >>= 1)
			want++;
		if (nc != 0 && (int) nc != want)
			return fail(&r, "a learning curve of %u points after %llu rows, expected 0 or %d",
						nc, (unsigned long long) hdr.rows_seen, want);
		if (!need(&r, 8 * (size_t) nc, "learning curve"))
			return false;
		for (uint32_t i = 0; i < nc; i++)
		{
			uint64_t	v = r_u64(&r);

			if (v > (UINT64_C(1) << i) || v > hdr.mistakes || v < prev)
				return fail(&r, "learning curve point %u (%llu mistakes) is invalid",
							i, (unsigned long long) v);
			prev = v;
			if (m)
				m->curve[i] = v;
		}
		if (m)
			m->curve_n = (int) nc;
		/* the parents' fingerprints: at most BK_MAX_PARENTS */
		if (!need(&r, 4, "parents"))
			return false;
		nc = r_u32(&r);
		if (nc > BK_MAX_PARENTS)
			return fail(&r, "%u parents, at most %d", nc, BK_MAX_PARENTS);
		if (!need(&r, BK_FINGERPRINT_LEN * (size_t) nc, "parents"))
			return false;
		if (m)
		{
			memcpy(m->parents, r.buf + r.pos, BK_FINGERPRINT_LEN * (size_t) nc);
			m->n_parents = (int) nc;
		}
		r.pos += BK_FINGERPRINT_LEN * (size_t) nc;
	}
	if (r.pos != r.len)
		return fail(&r, "%zu unexpected bytes after the last section", r.len - r.pos);
	return true;
}

bool
BkFormatValidate(const uint8_t *buf, size_t len, char *err, size_t errlen,
				 BkErrCode *code)
{
	return parse(buf, len, NULL, err, errlen, code, true, true);
}

bool
BkFormatValidateStructure(const uint8_t *buf, size_t len, char *err,
						  size_t errlen, BkErrCode *code)
{
	return parse(buf, len, NULL, err, errlen, code, true, false);
}

BkModel *
BkModelDecode(const BkEnv *env, const uint8_t *buf, size_t len,
			  bool for_training)
{
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;
	BkModel    *m;

	if (!BkFormatValidate(buf, len, err, sizeof(err), &code))
	{
		if (code == BK_ERR_VERSION)
			BkRaise(env, code, err, "unsupported bk_model format version");
		if (code == BK_ERR_OVERFLOW)
			BkRaiseHint(env, code, err,
						"The model was trained by a version of budgetkernel that could store overflowed values; retrain it with scaled features.  bk_is_valid(model::bytea) finds such models.",
						"bk_model holds a value that is not finite or out of range");
		BkRaise(env, code, err, "invalid budgetkernel model");
	}

	m = env->alloc(env->ctx, sizeof(BkModel));
	memset(m, 0, sizeof(*m));
	m->env = *env;
	m->training = for_training;
	/* validated above: the second pass need not checksum or check values again */
	if (!parse(buf, len, m, err, sizeof(err), &code, false, false))
	{
		if (code == BK_ERR_LIMIT)
			BkRaiseHint(env, code, NULL,
						"Scoring needs only the model's stored size; to go on learning, train a new model with a smaller budget.",
						"%s", err);
		BkRaise(env, BK_ERR_INTERNAL, err, "model changed between validation and decoding");
	}
	/* earlier versions stored the classes in order of first appearance */
	BkModelCanonicalClasses(m);
	return m;
}

/*
 * The machine aux flags a model of these parameters carries (the layout
 * the validator demands and the encoder writes).
 */
static uint32_t
params_aux(const BkParams *p)
{
	return (BkModelNeedsNearest(p) ? AUX_NEAREST : 0) |
		(BkModelNeedsGram(p) ? AUX_GINV : 0) |
		(BkModelNeedsScores(p) ? AUX_SCORES : 0) |
		(BkModelEvalCap(p) > 0 ? AUX_EVAL : 0) |
		(BkModelNeedsBorn(p) ? AUX_BORN : 0);
}

bool
BkFormatMaxSize(const BkParams *p, int dim, int n_classes, size_t *out)
{
	size_t		n_sv = BkParamsBudgeted(p) ? (size_t) p->budget : (size_t) p->max_sv;
	size_t		one,
				total,
				part;
	int			machines = BkModelMachines(p, n_classes);
	bool		ok;

	ok = machine_size((size_t) dim, n_sv, (size_t) BkModelCoefs(p, n_classes),
					  params_aux(p), &one);
	if (BkModelEvalCap(p) > 0)
	{
		ok &= eval_size((size_t) dim, n_sv, (size_t) BkModelEvalCap(p), &part);
		ok &= BkAddSize(one, part + 16, &one);
	}
	/* header, parameters, counters; classes as the longest text labels */
	ok &= BkMulSize(one, (size_t) machines, &total);
	ok &= BkMulSize((size_t) (n_classes > 0 ? n_classes : 1), 4 + BK_MAX_LABEL_LEN, &part);
	ok &= BkAddSize(total, part + HEADER_LEN + 8 + BK_MAX_STORED_PARAMS * 16 + 128, &total);
	/* a calibration: two doubles per class; the curve and the parents */
	ok &= BkAddSize(total, 16 * (size_t) (n_classes > 0 ? n_classes : 1), &total);
	ok &= BkAddSize(total, 8 + 8 * BK_CURVE_MAX + BK_FINGERPRINT_LEN * BK_MAX_PARENTS, &total);
	*out = total;
	return ok;
}
