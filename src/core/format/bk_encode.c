/*
 * bk_encode.c
 *	  The model's binary format (doc/format.md), written: fixed-width
 *	  little-endian fields whatever the machine, a SHA-256 digest and a
 *	  CRC-32C of the whole.  bk_decode.c reads it back; the parts write their own
 *	  sections (bk_part.h); the encoded size is BkModelEncodedSize
 *	  (bk_layout.c).
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
 *	      f64 sv[n_sv][dim] (f32 with "sv_precision": "float4") |
 *	      f64 coef[n_sv][n_coef] (actual = scale x coef)
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
 *	    version 2: the SHA-256 of every byte before it (32 bytes)
 *	    u32 crc32c of every byte before it
 */
#include "bk_learner.h"
#include "bk_part.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* the header's flags: the framing's, and the flag of each part present */
static uint16_t
model_flags(const BkModel *m)
{
	uint16_t	flags = (m->text_labels ? FLAG_TEXT_LABELS : 0) |
		(m->classes_declared ? FLAG_DECLARED : 0) |
		(m->text_labels && m->labels_utf8 ? FLAG_LABELS_UTF8 : 0);

	for (int i = 0; i < bk_n_parts; i++)
		if (bk_parts[i]->flag != 0 && bk_parts[i]->present(m))
			flags |= bk_parts[i]->flag;
	return flags;
}

void
BkModelEncode(const BkModel *m, uint8_t *buf, size_t size)
{
	BkStoredParam params[BK_MAX_STORED_PARAMS];
	int			np = BkParamsToStored(&m->params, params, BK_MAX_STORED_PARAMS);
	Writer		w = {buf, 0};

	memcpy(buf, BK_MAGIC, 4);
	w.pos = 4;
	w_u16(&w, BK_FORMAT_VERSION);
	w_u16(&w, model_flags(m));
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
		BkWriteLabel(&w, m->text_labels, m->classes[i], m->text_labels ? m->class_names[i] : NULL);
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
		uint32_t	aux = BkCodecMachineAux(mach);
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
			if (m->params.sv_precision == BK_SV_FLOAT4)
				w_f32s(&w, BkSvRow(mach, (int) i), m->dim);
			else
				w_f64s(&w, BkSvRow(mach, (int) i), m->dim);
		w_f64s(&w, mach->coef, n * mach->n_coef);
		if (aux & AUX_NEAREST)
		{
			for (size_t i = 0; i < n; i++)
				w_u32(&w, (uint32_t) mach->nearest.idx[i]);
			w_f64s(&w, mach->nearest.dist2, n);
		}
		if (aux & AUX_GINV)
			/*
			 * whole rows, as the format has them: left of the diagonal the
			 * upper triangle's entries, which are all the updates keep
			 */
			for (size_t i = 0; i < n; i++)
			{
				for (size_t j = 0; j < i; j++)
					w_f64s(&w, mach->ginv.m + j * mach->ginv.cap + i, 1);
				w_f64s(&w, mach->ginv.m + i * mach->ginv.cap + i, n - i);
			}
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
	/* the parts, in the order of their sections */
	for (int i = 0; i < bk_n_parts; i++)
		if (bk_parts[i]->present(m))
			bk_parts[i]->write(&w, m);
	BkModelSeal(buf, size);
}

/*
 * The trailer: the SHA-256 of every byte before it (version 2), then the
 * CRC-32C of every byte before the CRC.  The version field says whether
 * there is a digest; nothing else is read or checked.
 */
void
BkModelSeal(uint8_t *buf, size_t len)
{
	int			version;

	if (len < HEADER_LEN + 4)
		return;
	version = get_u16(buf + 4);
	if (version >= 2 && len >= HEADER_LEN + TRAILER_LEN(version))
		BkSha256(buf, len - TRAILER_LEN(version), buf + len - TRAILER_LEN(version));
	put_u32(buf + len - 4, BkCrc32c(0, buf, len - 4));
}
