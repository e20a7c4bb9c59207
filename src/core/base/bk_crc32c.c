/*
 * bk_crc32c.c
 *	  CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum
 *	  of the binary model format.  Table-driven, slicing by 8 bytes, about
 *	  1-2 GB/s; on an x86-64 CPU with SSE4.2 (asked once) its crc32
 *	  instruction computes the same CRC, 8 bytes at a time in three
 *	  independent streams combined by carry-less shifts (Intel, "Fast CRC
 *	  Computation for iSCSI Polynomial Using CRC32 Instruction", 2011),
 *	  several times as fast.  A CRC is exact: the same value either way,
 *	  which the unit tests compare (BkVectorLanesEnable(false) turns the
 *	  instruction off too).  bk_merge decodes every part it merges (2 MB
 *	  each for usps one-vs-rest at B = 100): the table took about a sixth
 *	  of a decode.
 */
#include "bk_internal.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && defined(__GLIBC__)
#define BK_CRC_HW 1
#include <cpuid.h>
#include <nmmintrin.h>
#endif

static uint32_t crc_table[8][256];
static int	crc_ready = 0;

static void
crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++)
	{
		uint32_t	c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^
				crc_table[0][crc_table[t - 1][i] & 0xff];
	crc_ready = 1;
}

/* the running (inverted) crc over len bytes, by the tables */
static uint32_t
crc_tables(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len >= 8)
	{
		uint32_t	lo = (uint32_t) p[0] | (uint32_t) p[1] << 8 |
			(uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
		uint32_t	hi = (uint32_t) p[4] | (uint32_t) p[5] << 8 |
			(uint32_t) p[6] << 16 | (uint32_t) p[7] << 24;

		lo ^= crc;
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
			crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
			crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
			crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len-- > 0)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return crc;
}

#ifdef BK_CRC_HW
/* -1: not asked yet; 0 or 1: whether the CPU has SSE4.2's crc32 */
static int	cpu_crc = -1;

static bool
cpu_has_crc(void)
{
	if (cpu_crc < 0)
	{
		unsigned int a,
					b,
					c,
					d;

		cpu_crc = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2) ? 1 : 0;
	}
	return cpu_crc != 0;
}

/*
 * A crc moved over CRC_BLOCK zero bytes: linear over GF(2), so a 32 x 32
 * bit matrix, that of one zero bit squared log2(8 CRC_BLOCK) times (as
 * zlib's crc32_combine builds it), then tabled by each byte of the crc.
 */
#define CRC_BLOCK 4096			/* bytes of each of the three streams */
#define CRC_BLOCK_LOG2_BITS 15	/* 8 CRC_BLOCK = 2^15 bits */

static uint32_t shift_table[4][256];
static int	shift_ready = 0;

/* mat (32 columns) times vec */
static uint32_t
gf2_times(const uint32_t *mat, uint32_t vec)
{
	uint32_t	sum = 0;

	for (int i = 0; vec != 0; i++, vec >>= 1)
		if (vec & 1)
			sum ^= mat[i];
	return sum;
}

static void
shift_init(void)
{
	uint32_t	mat[32],
				sq[32];

	/* one zero bit: r -> (r >> 1) ^ (r & 1 ? P : 0) */
	mat[0] = 0x82F63B78u;
	for (int i = 1; i < 32; i++)
		mat[i] = 1u << (i - 1);
	for (int s = 0; s < CRC_BLOCK_LOG2_BITS; s++)
	{
		for (int i = 0; i < 32; i++)
			sq[i] = gf2_times(mat, mat[i]);
		memcpy(mat, sq, sizeof(mat));
	}
	for (int byte = 0; byte < 4; byte++)
		for (uint32_t v = 0; v < 256; v++)
			shift_table[byte][v] = gf2_times(mat, v << (8 * byte));
	shift_ready = 1;
}

static inline uint32_t
crc_shift(uint32_t crc)
{
	return shift_table[0][crc & 0xff] ^ shift_table[1][(crc >> 8) & 0xff] ^
		shift_table[2][(crc >> 16) & 0xff] ^ shift_table[3][crc >> 24];
}

__attribute__((target("sse4.2")))
static uint32_t
crc_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	/*
	 * three streams of CRC_BLOCK bytes each: the crcs of the second and
	 * third start at 0 and are combined with the first's moved over the
	 * bytes after it (the crc of a || b is shift(crc(a)) ^ crc0(b), the
	 * latter started at zero, by linearity)
	 */
	while (len >= 3 * CRC_BLOCK)
	{
		uint64_t	c0 = crc,
					c1 = 0,
					c2 = 0;

		for (size_t i = 0; i < CRC_BLOCK; i += 8)
		{
			uint64_t	v0,
						v1,
						v2;

			memcpy(&v0, p + i, 8);
			memcpy(&v1, p + CRC_BLOCK + i, 8);
			memcpy(&v2, p + 2 * CRC_BLOCK + i, 8);
			c0 = _mm_crc32_u64(c0, v0);
			c1 = _mm_crc32_u64(c1, v1);
			c2 = _mm_crc32_u64(c2, v2);
		}
		crc = crc_shift(crc_shift((uint32_t) c0) ^ (uint32_t) c1) ^ (uint32_t) c2;
		p += 3 * CRC_BLOCK;
		len -= 3 * CRC_BLOCK;
	}
	while (len >= 8)
	{
		uint64_t	v;

		memcpy(&v, p, 8);
		crc = (uint32_t) _mm_crc32_u64(crc, v);
		p += 8;
		len -= 8;
	}
	while (len-- > 0)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}
#endif

/*
 * crc is the running value: pass 0 to start; the result of one call can be
 * passed to the next to checksum data in pieces.
 */
uint32_t
BkCrc32c(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (!crc_ready)
		crc_init();
	crc = ~crc;
#ifdef BK_CRC_HW
	if (BkVectorLanesOn() && cpu_has_crc())
	{
		if (!shift_ready)
			shift_init();
		return ~crc_hw(crc, p, len);
	}
#endif
	return ~crc_tables(crc, p, len);
}
