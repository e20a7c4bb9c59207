/*
 * bk_decode.c
 *	  The model's binary format (doc/format.md; bk_encode.c writes it),
 *	  read: every count checked against the bytes left before anything is
 *	  read or allocated, and the CRC-32C and SHA-256 digest of the whole.
 *
 *	  One parser serves both the validator (no output, no allocation, never
 *	  raises: bk_is_valid, the bytea cast and the fuzz target share it) and
 *	  the decoder (which validates first, then parses again into a model).
 */
#include "bk_learner.h"
#include "bk_part.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- parser (validation and decoding) ---- */

/*
 * The fixed header: magic, version, flags, the length field against the
 * buffer, and (check_crc) the CRC-32C and the SHA-256 digest.  Leaves r at the first field after
 * the header with the trailer (digest and CRC) excluded from r->len.
 */
static bool
parse_header(Reader *r, BkModel *hdr, BkErrCode *code, bool check_crc,
			 uint32_t *flags_out)
{
	const uint8_t *buf = r->buf;
	size_t		len = r->len;
	uint32_t	version,
				flags,
				total;

	if (len < HEADER_LEN + 4)
		return BkReadFail(r, "%zu bytes is too short for a model", len);
	if (memcmp(buf, BK_MAGIC, 4) != 0)
		return BkReadFail(r, "bad magic number (not a budgetkernel model)");
	version = get_u16(buf + 4);
	flags = get_u16(buf + 6);
	total = get_u32(buf + 8);
	if (version > BK_FORMAT_VERSION)
	{
		*code = BK_ERR_VERSION;
		return BkReadFail(r, "model format version %u is newer than this library's version %u",
					version, BK_FORMAT_VERSION);
	}
	if (version < 1)
		return BkReadFail(r, "invalid format version %u", version);
	if (flags & ~(FLAG_TEXT_LABELS | FLAG_DECLARED | FLAG_LABELS_UTF8 | BkPartFlags()))
		return BkReadFail(r, "unknown flags 0x%04x", flags);
	hdr->format_version = (int) version;
	hdr->text_labels = (flags & FLAG_TEXT_LABELS) != 0;
	hdr->classes_declared = (flags & FLAG_DECLARED) != 0;
	hdr->labels_utf8 = (flags & FLAG_LABELS_UTF8) != 0;
	/* the target part's flag makes a regressor (parse_params passes it on) */
	hdr->params.regression = (flags & BkPartTarget.flag) != 0;
	hdr->params.novelty = (flags & BkPartNovelty.flag) != 0;
	if (hdr->params.regression && hdr->params.novelty)
		return BkReadFail(r, "a regressor and a novelty detector at once");
	*flags_out = flags;
	if (hdr->labels_utf8 && !hdr->text_labels)
		return BkReadFail(r, "UTF-8 flag without text labels");
	for (int i = 0; i < bk_n_parts; i++)
		if ((flags & bk_parts[i]->flag) && (int) version < bk_parts[i]->since)
			return BkReadFail(r, "%s flag in a version %u model",
							  bk_parts[i]->flag_name, version);
	if ((size_t) total != len)
		return BkReadFail(r, "length field says %u bytes, got %zu", total, len);
	if (len < HEADER_LEN + TRAILER_LEN(version))
		return BkReadFail(r, "%zu bytes is too short for a model", len);
	if (check_crc && BkCrc32c(0, buf, len - 4) != get_u32(buf + len - 4))
		return BkReadFail(r, "checksum mismatch");
	if (check_crc && version >= 2)
	{
		uint8_t		digest[BK_DIGEST_LEN];

		BkSha256(buf, len - TRAILER_LEN(version), digest);
		if (memcmp(digest, buf + len - TRAILER_LEN(version), BK_DIGEST_LEN) != 0)
			return BkReadFail(r, "digest mismatch");
	}
	r->len = len - TRAILER_LEN(version);	/* the trailer is not part of the body */
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
		return BkReadFail(r, "dimension %u out of range 1..%d", dim, BK_MAX_DIM);
	if (np > BK_MAX_STORED_PARAMS)
		return BkReadFail(r, "%u parameters is too many", np);
	if (!need(r, (size_t) np * 16, "parameters"))
		return false;
	for (uint32_t i = 0; i < np; i++)
	{
		params[i].id = get_u16(r->buf + r->pos);
		params[i].kind = get_u16(r->buf + r->pos + 2);
		if (get_u32(r->buf + r->pos + 4) != 0)
			return BkReadFail(r, "reserved bits of parameter %u are set", i);
		params[i].bits = get_u64(r->buf + r->pos + 8);
		r->pos += 16;
	}
	if (!BkParamsFromStored(&hdr->params, params, (int) np, hdr->params.regression,
							hdr->params.novelty, perr, sizeof(perr)))
		return BkReadFail(r, "invalid parameters: %s", perr);
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
				return BkReadFail(r, "parameters are not in canonical order or form");
			j++;
		}
		if (j != np)
			return BkReadFail(r, "parameters are not in canonical order or form");
	}
	hdr->dim = (int) dim;
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
		return BkReadFail(r, "%u classes, at most %d allowed", nc, BK_MAX_CLASSES);
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

			if (!BkReadTextLabel(r, hdr->labels_utf8, "class label", i, &text, &len))
				return false;
			if (text_seen(r, first, i, (size_t) ((const uint8_t *) text - r->buf), len))
				return BkReadFail(r, "class label %u appears twice", i);
			if (canonical && i > 0 &&
				BkBytesCompare((const char *) prev, prev_len, text, len) > 0)
				return BkReadFail(r, "class label %u is out of canonical order", i);
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
					return BkReadFail(r, "class label %lld appears twice", (long long) label);
			if (canonical && i > 0 &&
				(int64_t) get_u64(r->buf + r->pos - 8) > label)
				return BkReadFail(r, "class label %u is out of canonical order", i);
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
		return BkReadFail(r, "a model merged from 0 parts");
	for (int i = 0; i < 4; i++)
		hdr->rng.s[i] = r_u64(r);
	*n_machines = r_u32(r);
	/* xoshiro256** never reaches the all-zero state */
	if ((hdr->rng.s[0] | hdr->rng.s[1] | hdr->rng.s[2] | hdr->rng.s[3]) == 0)
		return BkReadFail(r, "random generator state is all zero");
	/* every machine may run budget maintenance once a row (one-vs-rest) */
	if (hdr->rows_updated > hdr->rows_seen || hdr->mistakes > hdr->rows_seen ||
		(hdr->rows_seen <= UINT64_MAX / (*n_machines > 0 ? *n_machines : 1) &&
		 hdr->maintenance > hdr->rows_seen * (*n_machines > 0 ? *n_machines : 1)))
		return BkReadFail(r, "inconsistent row counters");
	/* a regressor or a novelty detector has no classes and no labels */
	if (hdr->params.regression || hdr->params.novelty)
	{
		if (nc != 0 || hdr->classes_declared || hdr->text_labels)
			return BkReadFail(r, "a %s with %u classes%s",
							  hdr->params.regression ? "regressor" : "novelty detector", nc,
							  hdr->text_labels ? " of text labels" : "");
	}
	/* learned classes come with rows; declared ones may come before any */
	else if (hdr->classes_declared ? nc == 0 :
		(nc == 0) != (hdr->rows_seen == 0))
		return BkReadFail(r, "%u classes after %llu rows", nc,
					(unsigned long long) hdr->rows_seen);
	if ((int) *n_machines != BkModelMachines(&hdr->params, (int) nc))
		return BkReadFail(r, "%u machines, algorithm \"%s\" with %u classes has %d",
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

		BkCodecMachineSize((size_t) m->dim, (size_t) n_sv, BK_SV_BYTES(&m->params),
						   get_u32(r->buf + pos + 4),
					 aux, &msize);
		pos += msize;
		if (aux & AUX_EVAL)
		{
			size_t		esize;

			BkCodecEvalSize((size_t) m->dim, (size_t) n_sv, get_u32(r->buf + pos), &esize);
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
			return BkReadFail(r, "%s: value %zu is not +1 or -1", what, i);
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
			return BkReadFail(r, "%s: value %zu exceeds the rows seen", what, i);
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
		return BkReadFail(r, "evaluation set of machine %u holds %u of %u points (the parameters give %d%s)",
					k, n, cap, BkModelEvalCap(&hdr->params),
					hdr->params.eval_set == BK_EVAL_SVS ? ", and as many as the SVs" : "");
	if (offered > hdr->rows_seen)
		return BkReadFail(r, "evaluation set of machine %u was offered more rows than seen", k);
	if (!BkCodecEvalSize(dim, n_sv, n, &esize) || !need(r, esize, "evaluation set"))
		return false;
	if (e)
	{
		e->n = (int) n;
		e->offered = offered;
	}
	/* "svs": point i is SV i, which a removal takes out as its mirror */
	if (hdr->params.eval_set == BK_EVAL_SVS)
		for (size_t i = 0; i < (size_t) n * dim; i++)
			if (double_to_bits(get_real(r->buf + r->pos, i, 8)) !=
				double_to_bits(get_real(r->buf + sv_pos, i, BK_SV_BYTES(&hdr->params))))
				return BkReadFail(r, "evaluation set of machine %u is not its support vectors", k);
	if (!BkReadF64s(r, e ? e->x : NULL, (size_t) n * dim, "evaluation points") ||
		!r_signs(r, e ? e->y : NULL, n, "evaluation labels") ||
		!BkReadF64s(r, e ? e->f : NULL, n, "evaluation scores") ||
		!r_signs(r, e ? e->pred : NULL, n, "evaluation predictions") ||
		!r_counts(r, e ? e->flips : NULL, n, hdr->rows_seen, "evaluation flips") ||
		!r_counts(r, e ? e->since : NULL, n, hdr->rows_seen, "evaluation row numbers"))
		return false;
	for (uint32_t j = 0; j < n_sv; j++)
		if (!BkReadF64s(r, e ? e->kv + (size_t) j * e->cap : NULL, n, "evaluation kernel values"))
			return false;
	if (e)
		for (uint32_t i = 0; i < n; i++)
			e->sqnorm[i] = BkDot(e->x + i * dim, e->x + i * dim, (int) dim);
	return true;
}

/*
 * The SVs just read (n_sv x dim values before r->pos): each within the
 * norm a row may have, and, for the polynomial kernel, with a finite
 * k(x, x), so that every kernel value a scoring computes is finite
 * (checked_self_kernel in bk_model.c).
 */
static bool
check_sv_norms(Reader *r, const BkParams *p, size_t dim, uint32_t n_sv)
{
	size_t		sv_bytes = BK_SV_BYTES(p);
	const uint8_t *at = r->buf + r->pos - (size_t) n_sv * dim * sv_bytes;

	if (!r->numeric)
		return true;
	for (uint32_t i = 0; i < n_sv; i++)
	{
		double		sq = 0.0;

		for (size_t j = 0; j < dim; j++)
		{
			double		v = get_real(at, i * dim + j, sv_bytes);

			sq += v * v;
		}
		if (!(sq <= BK_MAX_SQNORM))
			return BkReadFailValue(r, "support vector %u has squared norm %g, beyond %g",
							  i, sq, BK_MAX_SQNORM);
		if (!isfinite(BkKernelSelf(p, sq)))
			return BkReadFailValue(r, "the kernel of support vector %u with itself overflows", i);
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
				return BkReadFailValue(r, "coefficient %u of support vector %u times the scale %g is not finite",
								  c, i, scale);
			sum += fabs(a);
		}
		if (p->kernel == BK_KERNEL_RBF && !isfinite(sum))
			return BkReadFailValue(r, "the coefficients of class %u sum beyond a double", c);
	}
	return true;
}

/*
 * A machine's header against the algorithm's limits and layout, and its
 * counters and sums (set in mach when not NULL); leaves r at its SVs.
 */
static bool
parse_machine_header(Reader *r, const BkModel *hdr, uint32_t k, BkMachine *mach,
					 uint32_t *n_sv_out, uint32_t *n_coef_out, uint32_t *aux_out,
					 double *scale_out)
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
		return BkReadFail(r, "reserved field of machine %u is set", k);
	limit = BkParamsBudgeted(p) ? (uint64_t) p->budget : (uint64_t) p->max_sv;
	if (n_sv > limit)
		return BkReadFail(r, "%u support vectors exceed the %s of %llu", n_sv,
					BkParamsBudgeted(p) ? "budget" : "max_sv",
					(unsigned long long) limit);
	if ((int) n_coef != BkModelCoefs(p, hdr->n_classes))
		return BkReadFail(r, "%u coefficients per support vector, expected %d", n_coef,
					BkModelCoefs(p, hdr->n_classes));
	want_aux = BkModelAux(p);
	if (aux != want_aux)
		return BkReadFail(r, "machine %u has bookkeeping flags 0x%x, expected 0x%x",
					k, aux, want_aux);
	if (!BkCodecMachineSize(dim, n_sv, BK_SV_BYTES(p), n_coef, aux, &msize) ||
		!need(r, msize - MACHINE_HEADER, "support vectors"))
		return false;

	updates = r_u64(r);
	maint = r_u64(r);
	since = r_u64(r);
	scale = bits_to_double(r_u64(r));
	degradation = bits_to_double(r_u64(r));
	wnorm2 = bits_to_double(r_u64(r));
	if ((!isfinite(wnorm2) || wnorm2 < 0.0 || (!p->ball_projection && wnorm2 != 0.0)) &&
		!BkReadFailValue(r, "norm %g of machine %u is invalid", wnorm2, k))
		return false;
	/*
	 * degradation, the damage of budget maintenance, and the coefficients'
	 * scale: what the learner allows (bk_learner.h; Pegasos's sum of
	 * ||Delta w||^2 and shrinking scale, the Forgetron's Q_t), else 0 and 1
	 */
	switch (BkLearnerCheckSums(p, updates, scale, degradation))
	{
		case BK_SUMS_BAD_DEGRADATION:
			if (!BkReadFailValue(r, "%s %g of machine %u is invalid",
							BkLearnerDegradationName(p), degradation, k))
				return false;
			break;
		case BK_SUMS_BAD_SCALE:
			if (!BkReadFailValue(r, "coefficient scale %g of machine %u is invalid", scale, k))
				return false;
			break;
	}
	if (updates > hdr->rows_updated || maint > hdr->maintenance)
		return BkReadFail(r, "inconsistent counters of machine %u", k);
	if (!(aux & AUX_GINV) && since != 0)
		return BkReadFail(r, "refactorisation counter set on machine %u without K^-1", k);
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

	*n_sv_out = n_sv;
	*n_coef_out = n_coef;
	*aux_out = aux;
	*scale_out = scale;
	return true;
}

/*
 * A machine's SVs and coefficients (into mach when not NULL, each SV row
 * moved to its stride and its squared norm computed); *sv_pos: where the
 * SVs begin, for the evaluation set's checks.
 */
static bool
parse_machine_vectors(Reader *r, const BkModel *hdr, BkMachine *mach, uint32_t n_sv,
					  uint32_t n_coef, double scale, size_t *sv_pos_out)
{
	const BkParams *p = &hdr->params;
	size_t		dim = (size_t) hdr->dim;
	size_t		sv_pos;

	sv_pos = r->pos;
	if (!BkReadReals(r, mach ? mach->sv : NULL, (size_t) n_sv * dim, BK_SV_BYTES(p),
					 "support vectors") ||
		!check_sv_norms(r, p, dim, n_sv) ||
		!BkReadF64s(r, mach ? mach->coef : NULL, (size_t) n_sv * n_coef, "coefficients") ||
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
		BkSvSync(mach, (int) dim, 0, (int) n_sv);
	}

	*sv_pos_out = sv_pos;
	return true;
}

/*
 * A machine's bookkeeping after its coefficients, as its aux bits say:
 * the neighbour cache, K^-1, the SVs' scores, the rows they were added at,
 * the evaluation set (into mach where it keeps them).
 */
static bool
parse_machine_bookkeeping(Reader *r, const BkModel *hdr, uint32_t k, BkMachine *mach,
						  uint32_t n_sv, uint32_t aux, size_t sv_pos)
{
	if (aux & AUX_NEAREST)
	{
		for (uint32_t i = 0; i < n_sv; i++)
		{
			int32_t		idx = (int32_t) r_u32(r);

			/* -1 only when there is no other SV */
			if (idx == (int32_t) i || idx < -1 || idx >= (int32_t) n_sv ||
				(idx == -1) != (n_sv == 1))
				return BkReadFail(r, "nearest neighbour %d of support vector %u is invalid",
							idx, i);
			if (mach && mach->has_nearest)
				mach->nearest.idx[i] = idx;
		}
		if (!need(r, (size_t) n_sv * 8, "neighbour distances"))
			return false;
		for (uint32_t i = 0; i < n_sv; i++)
			if (bits_to_double(get_u64(r->buf + r->pos + 8 * (size_t) i)) < 0 &&
				!BkReadFailValue(r, "negative neighbour distance"))
				return false;
		if (!BkReadF64s(r, mach && mach->has_nearest ? mach->nearest.dist2 : NULL,
					n_sv, "neighbour distances"))
			return false;
	}
	if (aux & AUX_GINV)
	{
		for (uint32_t i = 0; i < n_sv; i++)
			if (!BkReadF64s(r, mach && mach->has_ginv ?
						mach->ginv.m + (size_t) i * mach->ginv.cap : NULL,
						n_sv, "inverse kernel matrix"))
				return false;
		if (mach && mach->has_ginv)
			mach->ginv.n = (int) n_sv;
	}
	if (aux & AUX_SCORES)
	{
		if (!BkReadF64s(r, mach && mach->sv_scores ? mach->sv_scores : NULL, n_sv,
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
				return BkReadFail(r, "support vector rows: value %u is 0", i);
		if (!r_counts(r, mach ? mach->born : NULL, n_sv, hdr->rows_seen, "support vector rows"))
			return false;
	}
	if (aux & AUX_EVAL)
		return parse_eval(r, hdr, k, n_sv, sv_pos, mach && mach->eval ? mach->eval : NULL);
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
	uint32_t	n_sv = 0,
				n_coef = 0,
				aux = 0;
	double		scale = 1.0;
	size_t		sv_pos = 0;

	return parse_machine_header(r, hdr, k, mach, &n_sv, &n_coef, &aux, &scale) &&
		parse_machine_vectors(r, hdr, mach, n_sv, n_coef, scale, &sv_pos) &&
		parse_machine_bookkeeping(r, hdr, k, mach, n_sv, aux, sv_pos);
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
	uint32_t	flags = 0;

	*code = BK_ERR_CORRUPT;
	memset(&hdr, 0, sizeof(hdr));
	if (!parse_header(&r, &hdr, code, check_crc, &flags) ||
		!parse_params(&r, &hdr) ||
		!parse_classes(&r, &hdr, m) ||
		!parse_counters(&r, &hdr, &n_machines))
		return false;
	/* (what the parts' checks read of the header; hdr has no machines) */
	hdr.n_machines = (int) n_machines;

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
	/* the parts: a flagged one with its flag, the others from their version */
	for (int i = 0; i < bk_n_parts; i++)
	{
		const BkPart *part = bk_parts[i];

		if (part->flag != 0 ? (flags & part->flag) != 0 :
			hdr.format_version >= part->since)
		{
			if (!part->parse(&r, &hdr, m))
				return false;
		}
	}
	if (r.pos != r.len)
		return BkReadFail(&r, "%zu unexpected bytes after the last section", r.len - r.pos);
	return true;
}

const uint8_t *
BkModelStoredDigest(const uint8_t *buf, size_t len)
{
	int			version;

	if (len < HEADER_LEN + TRAILER_LEN(2) || memcmp(buf, BK_MAGIC, 4) != 0)
		return NULL;
	version = get_u16(buf + 4);
	if (version < 2 || version > BK_FORMAT_VERSION || get_u32(buf + 8) != len)
		return NULL;
	return buf + len - TRAILER_LEN(version);
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
	m->hooks = &bk_model_hooks;
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
