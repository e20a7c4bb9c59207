/*
 * bk_protobuf.h
 *	  A writer of Protocol Buffers' wire format (base/bk_protobuf.c): the
 *	  few encodings an exported ONNX model needs (varints, fixed 32-bit
 *	  floats, length-delimited bytes and nested messages), into a buffer
 *	  that grows through the caller's BkEnv.  It knows no message: the
 *	  ONNX messages are written field by field by format/bk_onnx.c.
 *
 *	  Written by hand rather than with protobuf-c so that the server module
 *	  gains no runtime dependency for a writer of seven message types; the
 *	  export check (test/export_check.sh) parses every export with ONNX's
 *	  own parser and checker.
 */
#ifndef BK_PROTOBUF_H
#define BK_PROTOBUF_H

#include "bk_internal.h"

typedef struct BkPb
{
	const BkEnv *env;
	uint8_t    *buf;
	size_t		len;
	size_t		cap;
} BkPb;

extern void BkPbInit(BkPb *b, const BkEnv *env);
extern void BkPbFree(BkPb *b);
/* field as a varint (wire type 0): int32, int64, enum, bool */
extern void BkPbVarint(BkPb *b, int field, uint64_t v);
/* field as a fixed 32-bit float (wire type 5) */
extern void BkPbFloat(BkPb *b, int field, float v);
/* field as length-delimited bytes (wire type 2): bytes, string */
extern void BkPbBytes(BkPb *b, int field, const void *data, size_t len);
extern void BkPbString(BkPb *b, int field, const char *s);
/* field as an embedded message: sub's bytes, then sub is freed */
extern void BkPbMessage(BkPb *b, int field, BkPb *sub);
/* bytes appended as they are */
extern void BkPbRaw(BkPb *b, const void *data, size_t len);
/* a double's 8 bytes, little-endian (a tensor's raw_data) */
extern void BkPbRawDouble(BkPb *b, double v);
extern void BkPbRawInt64(BkPb *b, int64_t v);

#endif							/* BK_PROTOBUF_H */
