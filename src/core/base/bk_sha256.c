/*
 * bk_sha256.c
 *	  SHA-256 (FIPS 180-4), the digest a model of format version 2 carries
 *	  of its own bytes (doc/format.md, "Digest and checksum").  Portable C,
 *	  about 150-400 MB/s, paid once when a model is encoded and once when
 *	  it is decoded; on an x86-64 CPU with the SHA extensions (asked once,
 *	  BkCpuHasSha) the blocks run on them instead, several times as fast.
 *	  A digest is exact: the same bytes either way, which the unit tests
 *	  compare (BkVectorLanesEnable(false) turns the extensions off too).
 *	  bk_merge decodes every part it merges, 2 MB each for usps
 *	  one-vs-rest at B = 100: the digest was most of a merge's decoding.
 */
#include "bk_internal.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && defined(__GLIBC__)
#define BK_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t sha256_k[64] = {
	0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u,
	0x923f82a4u, 0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u,
	0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u, 0xe49b69c1u, 0xefbe4786u,
	0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
	0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u,
	0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u,
	0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u, 0xa2bfe8a1u, 0xa81a664bu,
	0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
	0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au,
	0x5b9cca4fu, 0x682e6ff3u, 0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u,
	0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u
};

static inline uint32_t
rotr(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

/* One 64-byte block into the state h (FIPS 180-4 §6.2.2). */
static void
sha256_block(uint32_t h[8], const uint8_t *p)
{
	uint32_t	w[64];
	uint32_t	a = h[0],
				b = h[1],
				c = h[2],
				d = h[3],
				e = h[4],
				f = h[5],
				g = h[6],
				hh = h[7];

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t) p[4 * t] << 24 | (uint32_t) p[4 * t + 1] << 16 |
			(uint32_t) p[4 * t + 2] << 8 | (uint32_t) p[4 * t + 3];
	for (int t = 16; t < 64; t++)
	{
		uint32_t	s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t	s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	for (int t = 0; t < 64; t++)
	{
		uint32_t	t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
			((e & f) ^ (~e & g)) + sha256_k[t] + w[t];
		uint32_t	t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) +
			((a & b) ^ (a & c) ^ (b & c));

		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

#ifdef BK_SHA_NI
/* -1: not asked yet; 0 or 1: whether the CPU has the SHA extensions and SSE4.1 */
static int	cpu_sha = -1;

bool
BkCpuHasSha(void)
{
	if (cpu_sha < 0)
	{
		unsigned int a,
					b,
					c,
					d;
		bool		sse41 = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3);

		cpu_sha = sse41 && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29)) ? 1 : 0;
	}
	return cpu_sha != 0;
}

/*
 * n 64-byte blocks into the state h on the SHA extensions: the rounds of
 * sha256_block, four at a time (sha256rnds2 makes two, on the state as
 * ABEF and CDGH), the message schedule by sha256msg1 and sha256msg2
 */
__attribute__((target("sha,sse4.1,ssse3")))
static void
sha256_blocks_ni(uint32_t h[8], const uint8_t *p, size_t n)
{
	const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i		s0,
				s1,
				t,
				msg,
				w[4];

	/* the state as ABEF and CDGH */
	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *) &h[0]), 0xB1);
	s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *) &h[4]), 0x1B);
	s0 = _mm_alignr_epi8(t, s1, 8);
	s1 = _mm_blend_epi16(s1, t, 0xF0);
	for (size_t i = 0; i < n; i++, p += 64)
	{
		__m128i		abef = s0,
					cdgh = s1;

		for (int g = 0; g < 16; g++)
		{
			/* rounds 4g .. 4g + 3 */
			if (g < 4)
				w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) (p + 16 * g)), swap);
			msg = _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *) &sha256_k[4 * g]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
			/* the words of rounds 4 (g + 1) .. from those before */
			if (g >= 3 && g <= 14)
			{
				t = _mm_alignr_epi8(w[g & 3], w[(g + 3) & 3], 4);
				w[(g + 1) & 3] = _mm_add_epi32(w[(g + 1) & 3], t);
				w[(g + 1) & 3] = _mm_sha256msg2_epu32(w[(g + 1) & 3], w[g & 3]);
			}
			msg = _mm_shuffle_epi32(msg, 0x0E);
			s0 = _mm_sha256rnds2_epu32(s0, s1, msg);
			if (g >= 1 && g <= 12)
				w[(g + 3) & 3] = _mm_sha256msg1_epu32(w[(g + 3) & 3], w[g & 3]);
		}
		s0 = _mm_add_epi32(s0, abef);
		s1 = _mm_add_epi32(s1, cdgh);
	}
	/* back to A .. H */
	t = _mm_shuffle_epi32(s0, 0x1B);
	s1 = _mm_shuffle_epi32(s1, 0xB1);
	s0 = _mm_blend_epi16(t, s1, 0xF0);
	s1 = _mm_alignr_epi8(s1, t, 8);
	_mm_storeu_si128((__m128i *) &h[0], s0);
	_mm_storeu_si128((__m128i *) &h[4], s1);
}
#else
bool
BkCpuHasSha(void)
{
	return false;
}
#endif

/* n 64-byte blocks into the state h, on the SHA extensions when they run */
static void
sha256_blocks(uint32_t h[8], const uint8_t *p, size_t n)
{
#ifdef BK_SHA_NI
	if (BkVectorLanesOn() && BkCpuHasSha())
	{
		sha256_blocks_ni(h, p, n);
		return;
	}
#endif
	for (size_t i = 0; i < n; i++)
		sha256_block(h, p + 64 * i);
}

/* The SHA-256 of data[0..len), BK_DIGEST_LEN (32) bytes into out. */
void
BkSha256(const void *data, size_t len, uint8_t *out)
{
	uint32_t	h[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
	0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
	const uint8_t *p = data;
	size_t		full = len / 64;
	uint8_t		tail[128];
	size_t		rest = len - full * 64;
	size_t		tail_len = rest < 56 ? 64 : 128;
	uint64_t	bits = (uint64_t) len * 8;

	sha256_blocks(h, p, full);
	/* the padding: a 1 bit, zeros, the length in bits (big-endian) */
	memset(tail, 0, sizeof(tail));
	if (rest > 0)
		memcpy(tail, p + full * 64, rest);
	tail[rest] = 0x80;
	for (int i = 0; i < 8; i++)
		tail[tail_len - 1 - i] = (uint8_t) (bits >> (8 * i));
	sha256_blocks(h, tail, tail_len / 64);
	for (int i = 0; i < 8; i++)
	{
		out[4 * i] = (uint8_t) (h[i] >> 24);
		out[4 * i + 1] = (uint8_t) (h[i] >> 16);
		out[4 * i + 2] = (uint8_t) (h[i] >> 8);
		out[4 * i + 3] = (uint8_t) h[i];
	}
}
