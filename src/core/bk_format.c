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
 *	  Layout, version 1:
 *	    magic "BKMD" | u16 version | u16 flags (0) | u32 total length
 *	    u32 dim | u32 n_params | n_params x {u16 id, u16 kind, u32 0, u64 value}
 *	    u32 n_classes | n_classes x i64
 *	    u64 rows_seen, rows_skipped, rows_updated, mistakes, maintenance
 *	    u64 rng[4]
 *	    u32 n_machines, then per machine:
 *	      u32 n_sv | u32 n_coef | u32 aux | u32 0 | u64 updates, maintenance,
 *	      ginv_since_refresh | f64 sv[n_sv][dim] | f64 coef[n_sv][n_coef]
 *	      aux bit 0: i32 nearest_idx[n_sv], f64 nearest_dist2[n_sv]
 *	      aux bit 1: f64 ginv[n_sv][n_sv]
 *	    u32 crc32c of every byte before it
 */
#include "bk_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const uint8_t bk_magic[4] = {'B', 'K', 'M', 'D'};

#define AUX_NEAREST 1u
#define AUX_GINV	2u
#define AUX_KNOWN	(AUX_NEAREST | AUX_GINV)
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
	size_t		size = 16 + 24;
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
	*out = size;
	return ok;
}

static uint32_t
machine_aux(const BkMachine *mach)
{
	return (mach->has_nearest ? AUX_NEAREST : 0) |
		(mach->has_ginv ? AUX_GINV : 0);
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
	total = HEADER_LEN + 4 + 4 + (size_t) np * 16 + 4 + (size_t) m->n_classes * 8 +
		5 * 8 + 4 * 8 + 4 + 4;
	for (int i = 0; i < m->n_machines; i++)
	{
		const BkMachine *mach = &m->machines[i];
		size_t		part;

		ok &= machine_size((size_t) m->dim, (size_t) mach->n_sv,
						   (size_t) mach->n_coef, machine_aux(mach), &part);
		ok &= BkAddSize(total, part, &total);
	}
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
	w_u16(&w, 0);
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
		w_u64(&w, (uint64_t) m->classes[i]);
	w_u64(&w, m->rows_seen);
	w_u64(&w, m->rows_skipped);
	w_u64(&w, m->rows_updated);
	w_u64(&w, m->mistakes);
	w_u64(&w, m->maintenance);
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
		w_f64s(&w, mach->sv, n * m->dim);
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
	}
	w_u32(&w, BkCrc32c(0, buf, w.pos));
}

/* ---- parser (validation and decoding) ---- */

typedef struct Reader
{
	const uint8_t *buf;
	size_t		len;
	size_t		pos;
	char	   *err;
	size_t		errlen;
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

		if (!isfinite(v))
		{
			snprintf(r->err, r->errlen, "%s: value %zu is not finite", what, i);
			return false;
		}
		if (out)
			out[i] = v;
	}
	r->pos += bytes;
	return true;
}

/*
 * Parse buf.  With m == NULL only validate; otherwise m->env is set and the
 * machines are allocated (capacity for training if m->training) and filled.
 */
static bool
parse(const uint8_t *buf, size_t len, BkModel *m, char *err, size_t errlen,
	  BkErrCode *code, bool check_crc)
{
	Reader		r = {buf, len, 0, err, errlen};
	BkModel		hdr;
	BkStoredParam params[BK_MAX_STORED_PARAMS];
	uint32_t	version,
				flags,
				total,
				dim,
				np,
				nc,
				nm;
	uint32_t	crc;

	*code = BK_ERR_CORRUPT;
	memset(&hdr, 0, sizeof(hdr));

	if (len < HEADER_LEN + 4)
	{
		snprintf(err, errlen, "%zu bytes is too short for a model", len);
		return false;
	}
	if (memcmp(buf, bk_magic, 4) != 0)
	{
		snprintf(err, errlen, "bad magic number (not a budgetkernel model)");
		return false;
	}
	version = get_u16(buf + 4);
	flags = get_u16(buf + 6);
	total = get_u32(buf + 8);
	if (version > BK_FORMAT_VERSION)
	{
		*code = BK_ERR_VERSION;
		snprintf(err, errlen,
				 "model format version %u is newer than this library's version %u",
				 version, BK_FORMAT_VERSION);
		return false;
	}
	if (version < 1)
	{
		snprintf(err, errlen, "invalid format version %u", version);
		return false;
	}
	if (flags != 0)
	{
		snprintf(err, errlen, "unknown flags 0x%04x", flags);
		return false;
	}
	if ((size_t) total != len)
	{
		snprintf(err, errlen, "length field says %u bytes, got %zu", total, len);
		return false;
	}
	crc = get_u32(buf + len - 4);
	if (check_crc && BkCrc32c(0, buf, len - 4) != crc)
	{
		snprintf(err, errlen, "checksum mismatch");
		return false;
	}
	r.len = len - 4;			/* the CRC is not part of the body */
	r.pos = HEADER_LEN;

	if (!need(&r, 8, "dimension and parameter count"))
		return false;
	dim = r_u32(&r);
	np = r_u32(&r);
	if (dim < 1 || dim > BK_MAX_DIM)
	{
		snprintf(err, errlen, "dimension %u out of range 1..%d", dim, BK_MAX_DIM);
		return false;
	}
	if (np > BK_MAX_STORED_PARAMS)
	{
		snprintf(err, errlen, "%u parameters is too many", np);
		return false;
	}
	if (!need(&r, (size_t) np * 16, "parameters"))
		return false;
	for (uint32_t i = 0; i < np; i++)
	{
		params[i].id = get_u16(buf + r.pos);
		params[i].kind = get_u16(buf + r.pos + 2);
		if (get_u32(buf + r.pos + 4) != 0)
		{
			snprintf(err, errlen, "reserved bits of parameter %u are set", i);
			return false;
		}
		params[i].bits = get_u64(buf + r.pos + 8);
		r.pos += 16;
	}
	{
		char		perr[BK_ERRMSG_LEN];

		if (!BkParamsFromStored(&hdr.params, params, (int) np, perr, sizeof(perr)))
		{
			snprintf(err, errlen, "invalid parameters: %s", perr);
			return false;
		}
	}

	if (!need(&r, 4, "class count"))
		return false;
	nc = r_u32(&r);
	if (nc > BK_MAX_CLASSES)
	{
		snprintf(err, errlen, "%u classes, at most %d allowed", nc, BK_MAX_CLASSES);
		return false;
	}
	if (!need(&r, (size_t) nc * 8, "class labels"))
		return false;
	for (uint32_t i = 0; i < nc; i++)
	{
		hdr.classes[i] = (int64_t) r_u64(&r);
		for (uint32_t j = 0; j < i; j++)
			if (hdr.classes[j] == hdr.classes[i])
			{
				snprintf(err, errlen, "class label %lld appears twice",
						 (long long) hdr.classes[i]);
				return false;
			}
	}

	if (!need(&r, 9 * 8 + 4, "counters"))
		return false;
	hdr.rows_seen = r_u64(&r);
	hdr.rows_skipped = r_u64(&r);
	hdr.rows_updated = r_u64(&r);
	hdr.mistakes = r_u64(&r);
	hdr.maintenance = r_u64(&r);
	for (int i = 0; i < 4; i++)
		hdr.rng.s[i] = r_u64(&r);
	nm = r_u32(&r);
	if (hdr.rows_updated > hdr.rows_seen || hdr.mistakes > hdr.rows_seen ||
		hdr.maintenance > hdr.rows_seen)
	{
		snprintf(err, errlen, "inconsistent row counters");
		return false;
	}
	if ((nc == 0) != (hdr.rows_seen == 0))
	{
		snprintf(err, errlen, "%u classes after %llu rows", nc,
				 (unsigned long long) hdr.rows_seen);
		return false;
	}
	if ((int) nm != BkModelMachines(&hdr.params))
	{
		snprintf(err, errlen, "%u machines, algorithm \"%s\" has %d",
				 nm, BkAlgorithmName(&hdr.params), BkModelMachines(&hdr.params));
		return false;
	}

	if (m != NULL)
	{
		int			capacity = 0;

		m->params = hdr.params;
		m->dim = (int) dim;
		m->n_classes = (int) nc;
		memcpy(m->classes, hdr.classes, sizeof(hdr.classes));
		m->rows_seen = hdr.rows_seen;
		m->rows_skipped = hdr.rows_skipped;
		m->rows_updated = hdr.rows_updated;
		m->mistakes = hdr.mistakes;
		m->maintenance = hdr.maintenance;
		m->rng = hdr.rng;
		/* capacity: the largest machine, or the budget when training */
		{
			Reader		peek = r;

			for (uint32_t k = 0; k < nm; k++)
			{
				int			n_sv = (int) get_u32(buf + peek.pos);
				size_t		msize;

				if (n_sv > capacity)
					capacity = n_sv;
				machine_size(dim, (size_t) n_sv, get_u32(buf + peek.pos + 4),
							 get_u32(buf + peek.pos + 8), &msize);
				peek.pos += msize;
			}
		}
		if (m->training)
		{
			/* a stored budget is untrusted: check it before allocating */
			if (!BkModelCheckSize(&m->params, (int) dim, m->env.max_alloc, err, errlen))
			{
				*code = BK_ERR_LIMIT;
				return false;
			}
			if (BkParamsBudgeted(&m->params))
				capacity = (int) m->params.budget;
			else if (capacity < 16)
				capacity = m->params.max_sv < 16 ? (int) m->params.max_sv : 16;
		}
		if (capacity < 1)
			capacity = 1;
		BkModelAllocMachines(m, capacity);
	}

	for (uint32_t k = 0; k < nm; k++)
	{
		uint32_t	n_sv,
					n_coef,
					aux;
		uint32_t	want_aux;
		uint64_t	limit;
		size_t		msize;
		BkMachine  *mach = m ? &m->machines[k] : NULL;

		if (!need(&r, 16 + 24, "machine header"))
			return false;
		n_sv = r_u32(&r);
		n_coef = r_u32(&r);
		aux = r_u32(&r);
		if (r_u32(&r) != 0)
		{
			snprintf(err, errlen, "reserved field of machine %u is set", k);
			return false;
		}
		limit = BkParamsBudgeted(&hdr.params) ? (uint64_t) hdr.params.budget :
			(uint64_t) hdr.params.max_sv;
		if (n_sv > limit)
		{
			snprintf(err, errlen, "%u support vectors exceed the %s of %llu",
					 n_sv, BkParamsBudgeted(&hdr.params) ? "budget" : "max_sv",
					 (unsigned long long) limit);
			return false;
		}
		if (n_coef != 1)
		{
			snprintf(err, errlen, "%u coefficients per support vector, expected 1",
					 n_coef);
			return false;
		}
		want_aux = (BkModelNeedsNearest(&hdr.params) ? AUX_NEAREST : 0) |
			(BkModelNeedsGram(&hdr.params) ? AUX_GINV : 0);
		if (aux != want_aux)
		{
			snprintf(err, errlen, "machine %u has bookkeeping flags 0x%x, expected 0x%x",
					 k, aux, want_aux);
			return false;
		}
		if (!machine_size(dim, n_sv, n_coef, aux, &msize) ||
			!need(&r, msize - 40, "support vectors"))
			return false;

		{
			uint64_t	updates = r_u64(&r);
			uint64_t	maint = r_u64(&r);
			uint64_t	since = r_u64(&r);

			if (updates > hdr.rows_updated || maint > hdr.maintenance)
			{
				snprintf(err, errlen, "inconsistent counters of machine %u", k);
				return false;
			}
			if (mach)
			{
				mach->n_sv = (int) n_sv;
				mach->updates = updates;
				mach->maintenance = maint;
				if (mach->has_ginv)
					mach->ginv.since_refresh = since;
				else
					(void) since;	/* training bookkeeping, not kept for scoring */
			}
		}
		if (!r_f64s(&r, mach ? mach->sv : NULL, (size_t) n_sv * dim, "support vectors"))
			return false;
		if (!r_f64s(&r, mach ? mach->coef : NULL, (size_t) n_sv * n_coef, "coefficients"))
			return false;
		if (mach)
			for (uint32_t i = 0; i < n_sv; i++)
				mach->sqnorm[i] = BkDot(mach->sv + (size_t) i * dim,
										mach->sv + (size_t) i * dim, (int) dim);
		if (aux & AUX_NEAREST)
		{
			for (uint32_t i = 0; i < n_sv; i++)
			{
				int32_t		idx = (int32_t) r_u32(&r);

				/* -1 only when there is no other SV */
				if (idx == (int32_t) i || idx < -1 || idx >= (int32_t) n_sv ||
					(idx == -1) != (n_sv == 1))
				{
					snprintf(err, errlen, "nearest neighbour %d of support vector %u is invalid",
							 idx, i);
					return false;
				}
				if (mach && mach->has_nearest)
					mach->nearest.idx[i] = idx;
			}
			if (!need(&r, (size_t) n_sv * 8, "neighbour distances"))
				return false;
			for (uint32_t i = 0; i < n_sv; i++)
				if (bits_to_double(get_u64(buf + r.pos + 8 * (size_t) i)) < 0)
				{
					snprintf(err, errlen, "negative neighbour distance");
					return false;
				}
			if (!r_f64s(&r, mach && mach->has_nearest ? mach->nearest.dist2 : NULL,
						n_sv, "neighbour distances"))
				return false;
		}
		/* K^-1 and the neighbour cache are kept only for further training */
		if (aux & AUX_GINV)
		{
			for (uint32_t i = 0; i < n_sv; i++)
				if (!r_f64s(&r, mach && mach->has_ginv ?
							mach->ginv.m + (size_t) i * mach->ginv.cap : NULL,
							n_sv, "inverse kernel matrix"))
					return false;
			if (mach && mach->has_ginv)
				mach->ginv.n = (int) n_sv;
		}
		if (m)
			BkCheckInterrupts(&m->env);
	}

	if (r.pos != r.len)
	{
		snprintf(err, errlen, "%zu unexpected bytes after the last section",
				 r.len - r.pos);
		return false;
	}
	return true;
}

bool
BkFormatValidate(const uint8_t *buf, size_t len, char *err, size_t errlen,
				 BkErrCode *code)
{
	return parse(buf, len, NULL, err, errlen, code, true);
}

BkModel *
BkModelDecode(const BkEnv *env, const uint8_t *buf, size_t len,
			  bool for_training)
{
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;
	BkModel    *m;

	if (!BkFormatValidate(buf, len, err, sizeof(err), &code))
		BkRaise(env, code, err, "invalid budgetkernel model");

	m = env->alloc(env->ctx, sizeof(BkModel));
	memset(m, 0, sizeof(*m));
	m->env = *env;
	m->training = for_training;
	/* validated above: the second pass need not checksum again */
	if (!parse(buf, len, m, err, sizeof(err), &code, false))
	{
		if (code == BK_ERR_LIMIT)
			BkRaise(env, code, NULL, "%s", err);
		BkRaise(env, BK_ERR_INTERNAL, err, "model changed between validation and decoding");
	}
	return m;
}
