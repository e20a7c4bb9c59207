/*
 * bk_protobuf.c
 *	  Protocol Buffers' wire format, written (bk_protobuf.h): each field a
 *	  key (field number << 3 | wire type) as a varint, then its value.
 *	  Numbers are written little-endian byte by byte, so the bytes do not
 *	  depend on the CPU's byte order.
 */
#include "bk_protobuf.h"

#include <string.h>

#define WIRE_VARINT 0
#define WIRE_BYTES 2
#define WIRE_FIXED32 5

void
BkPbInit(BkPb *b, const BkEnv *env)
{
	memset(b, 0, sizeof(*b));
	b->env = env;
}

void
BkPbFree(BkPb *b)
{
	BkFree(b->env, b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

/* room for n more bytes, doubling (the env's limit checks the size) */
static void
reserve(BkPb *b, size_t n)
{
	size_t		want;

	if (!BkAddSize(b->len, n, &want))
		BkRaise(b->env, BK_ERR_LIMIT, NULL, "the export is too large");
	if (want <= b->cap)
		return;
	if (want < 2 * b->cap)
		want = 2 * b->cap;
	if (want < 256)
		want = 256;
	b->buf = BkReallocArray(b->env, b->buf, want, 1);
	b->cap = want;
}

void
BkPbRaw(BkPb *b, const void *data, size_t len)
{
	if (len == 0)
		return;
	reserve(b, len);
	memcpy(b->buf + b->len, data, len);
	b->len += len;
}

static void
put_varint(BkPb *b, uint64_t v)
{
	uint8_t		tmp[10];
	int			n = 0;

	do
	{
		tmp[n] = (uint8_t) (v & 0x7f);
		v >>= 7;
		if (v != 0)
			tmp[n] |= 0x80;
		n++;
	} while (v != 0);
	BkPbRaw(b, tmp, (size_t) n);
}

static void
put_key(BkPb *b, int field, int wire)
{
	put_varint(b, ((uint64_t) field << 3) | (uint64_t) wire);
}

void
BkPbVarint(BkPb *b, int field, uint64_t v)
{
	put_key(b, field, WIRE_VARINT);
	put_varint(b, v);
}

void
BkPbFloat(BkPb *b, int field, float v)
{
	uint32_t	bits;
	uint8_t		tmp[4];

	memcpy(&bits, &v, sizeof(bits));
	for (int i = 0; i < 4; i++)
		tmp[i] = (uint8_t) (bits >> (8 * i));
	put_key(b, field, WIRE_FIXED32);
	BkPbRaw(b, tmp, 4);
}

void
BkPbBytes(BkPb *b, int field, const void *data, size_t len)
{
	put_key(b, field, WIRE_BYTES);
	put_varint(b, (uint64_t) len);
	BkPbRaw(b, data, len);
}

void
BkPbString(BkPb *b, int field, const char *s)
{
	BkPbBytes(b, field, s, strlen(s));
}

void
BkPbMessage(BkPb *b, int field, BkPb *sub)
{
	BkPbBytes(b, field, sub->buf, sub->len);
	BkPbFree(sub);
}

void
BkPbRawInt64(BkPb *b, int64_t v)
{
	uint64_t	u = (uint64_t) v;
	uint8_t		tmp[8];

	for (int i = 0; i < 8; i++)
		tmp[i] = (uint8_t) (u >> (8 * i));
	BkPbRaw(b, tmp, 8);
}

void
BkPbRawDouble(BkPb *b, double v)
{
	int64_t		bits;

	memcpy(&bits, &v, sizeof(bits));
	BkPbRawInt64(b, bits);
}
