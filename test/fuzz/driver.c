/*
 * driver.c
 *	  A standalone driver for the fuzz targets, for builds without
 *	  libFuzzer (make fuzzcheck: gcc with AddressSanitizer and
 *	  UndefinedBehaviorSanitizer).  With file arguments it replays them (a
 *	  corpus or a crash found by libFuzzer); with --write-seeds DIR it writes
 *	  the target's seeds there (a starting corpus for libFuzzer); without
 *	  arguments, it mutates the seeds for BK_FUZZ_ITERATIONS rounds (default
 *	  20000) with a fixed PRNG seed, so a run is reproducible.
 */
#include "bk_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t		FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max);

static const uint32_t interesting[] = {0, 1, 2, 0x7F, 0xFF, 0x7FFF, 0xFFFF,
0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 16, 1000000};

static size_t
mutate(BkRng *rng, uint8_t *buf, size_t len, size_t cap)
{
	int			n = 1 + (int) BkRngBelow(rng, 4);

	for (int k = 0; k < n; k++)
	{
		size_t		at = len > 0 ? BkRngBelow(rng, len) : 0;

		switch (BkRngBelow(rng, 6))
		{
			case 0:				/* flip a bit */
				if (len > 0)
					buf[at] ^= (uint8_t) (1u << BkRngBelow(rng, 8));
				break;
			case 1:				/* random byte */
				if (len > 0)
					buf[at] = (uint8_t) BkRngNext(rng);
				break;
			case 2:				/* truncate */
				len = at;
				break;
			case 3:				/* an interesting 32-bit value */
				if (len >= 4)
				{
					uint32_t	v = interesting[BkRngBelow(rng, sizeof(interesting) / sizeof(interesting[0]))];

					at = BkRngBelow(rng, len - 3);
					for (int i = 0; i < 4; i++)
						buf[at + i] = (uint8_t) (v >> (8 * i));
				}
				break;
			case 4:				/* insert random bytes */
				{
					size_t		add = 1 + BkRngBelow(rng, 16);

					if (len + add <= cap)
					{
						memmove(buf + at + add, buf + at, len - at);
						for (size_t i = 0; i < add; i++)
							buf[at + i] = (uint8_t) BkRngNext(rng);
						len += add;
					}
				}
				break;
			case 5:				/* delete a run */
				if (len > 0)
				{
					size_t		del = 1 + BkRngBelow(rng, 16);

					if (at + del > len)
						del = len - at;
					memmove(buf + at, buf + at + del, len - at - del);
					len -= del;
				}
				break;
		}
	}
	return len;
}

static int
replay(const char *path)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *buf;
	long		len;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0)
	{
		perror(path);
		return 1;
	}
	rewind(f);
	buf = malloc((size_t) len + 1);
	if (fread(buf, 1, (size_t) len, f) != (size_t) len)
	{
		perror(path);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t) len);
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	uint8_t    *seeds[32];
	size_t		lens[32];
	size_t		nseeds;
	const char *iters_env = getenv("BK_FUZZ_ITERATIONS");
	long		iters = iters_env ? atol(iters_env) : 20000;
	BkRng		rng;

	if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
	{
		nseeds = FuzzSeeds(seeds, lens, 32);
		for (size_t i = 0; i < nseeds; i++)
		{
			char		path[4096];
			FILE	   *f;

			snprintf(path, sizeof(path), "%s/seed-%zu", argv[2], i);
			f = fopen(path, "wb");
			if (f == NULL || fwrite(seeds[i], 1, lens[i], f) != lens[i] || fclose(f) != 0)
			{
				perror(path);
				return 1;
			}
			free(seeds[i]);
		}
		printf("%zu seeds written to %s\n", nseeds, argv[2]);
		return 0;
	}
	if (argc > 1)
	{
		int			rc = 0;

		for (int i = 1; i < argc; i++)
			rc |= replay(argv[i]);
		printf("%d inputs replayed\n", argc - 1);
		return rc;
	}

	nseeds = FuzzSeeds(seeds, lens, 32);
	BkRngSeed(&rng, 20101);
	for (size_t i = 0; i < nseeds; i++)
		LLVMFuzzerTestOneInput(seeds[i], lens[i]);
	for (long it = 0; it < iters; it++)
	{
		size_t		s = BkRngBelow(&rng, nseeds);
		size_t		cap = lens[s] + 64;
		uint8_t    *buf = malloc(cap);
		size_t		len;

		memcpy(buf, seeds[s], lens[s]);
		len = mutate(&rng, buf, lens[s], cap);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
	}
	printf("%s: %ld mutated inputs from %zu seeds, no crash\n", argv[0], iters, nseeds);
	for (size_t i = 0; i < nseeds; i++)
		free(seeds[i]);
	return 0;
}
