/*
 * bk_core_format.h
 *	  The binary format (format layer): encode, validate, decode, the digest
 *	  and the checksum (doc/format.md).
 */
#ifndef BK_CORE_FORMAT_H
#define BK_CORE_FORMAT_H

#include "bk_core_model.h"

/* ------------------------------------------------------------------------
 * Binary format (little-endian, SHA-256 and CRC-32C; see doc/format.md)
 * ------------------------------------------------------------------------
 */
#define BK_FORMAT_VERSION 2
/* points of a model's learning curve: rows 1, 2, 4, ..., 2^63 */
#define BK_CURVE_MAX 64
/* a model's parents: the fingerprints (32 bytes) of the stored models it
 * was continued, merged or calibrated from, the first BK_MAX_PARENTS */
#define BK_FINGERPRINT_LEN 32
#define BK_MAX_PARENTS 64

/* Encoded size; false (and message) if it would exceed limit. */
extern bool BkModelEncodedSize(const BkModel *m, size_t limit, size_t *size,
							   char *err, size_t errlen);
extern void BkModelEncode(const BkModel *m, uint8_t *buf, size_t size);

/*
 * Check that buf holds a well-formed model that can be used.  Never
 * raises, never allocates, never reads outside buf[0..len).  On failure
 * returns false with a message and the error class: BK_ERR_CORRUPT (not a
 * model), BK_ERR_VERSION (a newer format) or BK_ERR_OVERFLOW (well formed,
 * but a floating-point field is not finite or out of its range).
 */
extern bool BkFormatValidate(const uint8_t *buf, size_t len, char *err,
							 size_t errlen, BkErrCode *code);

/*
 * The same without the checks of floating-point values (BK_ERR_OVERFLOW
 * never results): the structure, the checksum, every count and size.
 * What the type's input functions accept, so that restoring a dump never
 * loses a model stored with a non-finite value by an earlier version; the
 * decoder checks the values before use.
 */
extern bool BkFormatValidateStructure(const uint8_t *buf, size_t len,
									  char *err, size_t errlen,
									  BkErrCode *code);

/*
 * Decode (validating first; invalid bytes are reported through env->error).
 * for_training allocates room to go on learning up to the budget and keeps
 * the learner's bookkeeping; without it the model can score but not be
 * encoded again.
 */
extern BkModel *BkModelDecode(const BkEnv *env, const uint8_t *buf, size_t len,
							  bool for_training);

/* CRC-32C (Castagnoli), as used by the format. */
extern uint32_t BkCrc32c(uint32_t crc, const void *data, size_t len);
/* SHA-256 (FIPS 180-4): the digest a version 2 model keeps of its bytes */
#define BK_DIGEST_LEN 32
extern void BkSha256(const void *data, size_t len, uint8_t *out);

/*
 * The digest a version 2 model stores of its bytes (the 32 bytes before
 * the CRC), read without validating anything but the header's magic,
 * version and the length: NULL for a version 1 model or bytes that are
 * not a model.  Two models that decode have the same digest only if they
 * have the same bytes (the decoder checks it), so a cache of decoded
 * models can recognise a model by its length and digest in O(1).
 */
extern const uint8_t *BkModelStoredDigest(const uint8_t *buf, size_t len);

#endif							/* BK_CORE_FORMAT_H */
