/*
 * bk_crc32c.c
 *	  CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum
 *	  of the binary model format.  Table-driven, slicing by 8 bytes.
 */
#include "bk_internal.h"

#include <string.h>

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
	return ~crc;
}
