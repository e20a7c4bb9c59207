/*
 * driver.c
 *	  A standalone driver for the fuzz targets, for builds without
 *	  libFuzzer (make fuzzcheck: gcc with AddressSanitizer and
 *	  UndefinedBehaviorSanitizer).  With file arguments it replays them (a
 *	  corpus or a crash found by libFuzzer); with --write-seeds DIR it writes
 *	  the target's seeds there (a starting corpus for libFuzzer); without
 *	  arguments, it mutates the seeds for BK_FUZZ_ITERATIONS rounds (default
 *	  20000) with a fixed PRNG seed, so a run is reproducible.  When a
 *	  target aborts, it says which input did it, and writes a mutated one
 *	  to crash-<program> in the current directory, for replaying.
 */
#include "bk_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t		FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max);

/*
 * Seeds above BIG_SEED bytes (fuzz_format's models of many classes, built
 * to take megabytes to decode) cost a hundred small ones under ASan: they
 * are drawn BIG_SEED_ODDS times less often, so that the run's time goes to
 * the many small seeds while the big ones still get mutated.
 */
#define BIG_SEED		((size_t) 16 << 10)
#define BIG_SEED_ODDS	16

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

/* The input being run, for on_abort */
static const char *run_name;	/* the program */
static const char *run_what = "setting up";
static long run_index;			/* seed, file or mutation number */
static size_t run_seed;			/* a mutation's seed */
static const uint8_t *run_buf;
static size_t run_len;

/*
 * A target aborts on a bug: name the input, and keep a mutated one (the
 * seeds come back with --write-seeds).  The abort comes from the target's
 * own code, not from inside malloc or stdio, so stdio is safe here.
 */
static void
on_abort(int sig)
{
	(void) sig;
	signal(SIGABRT, SIG_DFL);
	if (strcmp(run_what, "mutation") == 0)
	{
		char		path[4096];
		const char *base = strrchr(run_name, '/');
		FILE	   *f;

		snprintf(path, sizeof(path), "crash-%s", base ? base + 1 : run_name);
		f = fopen(path, "wb");
		if (f != NULL && fwrite(run_buf, 1, run_len, f) == run_len && fclose(f) == 0)
			fprintf(stderr, "%s: aborted on mutation %ld (of seed %zu), written to %s\n",
					run_name, run_index, run_seed, path);
		else
			fprintf(stderr, "%s: aborted on mutation %ld (of seed %zu)\n",
					run_name, run_index, run_seed);
	}
	else
		fprintf(stderr, "%s: aborted on %s %ld\n", run_name, run_what, run_index);
	raise(SIGABRT);
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
	run_buf = buf;
	run_len = (size_t) len;
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

	run_name = argv[0];
	signal(SIGABRT, on_abort);
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

		run_what = "file";
		for (int i = 1; i < argc; i++)
		{
			run_index = i;
			rc |= replay(argv[i]);
		}
		printf("%d inputs replayed\n", argc - 1);
		return rc;
	}

	nseeds = FuzzSeeds(seeds, lens, 32);
	BkRngSeed(&rng, 20101);
	run_what = "seed";
	for (size_t i = 0; i < nseeds; i++)
	{
		run_index = (long) i;
		LLVMFuzzerTestOneInput(seeds[i], lens[i]);
	}
	run_what = "mutation";
	for (long it = 0; it < iters; it++)
	{
		size_t		s = BkRngBelow(&rng, nseeds);
		size_t		cap;
		uint8_t    *buf;
		size_t		len;

		while (lens[s] > BIG_SEED && BkRngBelow(&rng, BIG_SEED_ODDS) != 0)
			s = BkRngBelow(&rng, nseeds);
		cap = lens[s] + 64;
		buf = malloc(cap);
		memcpy(buf, seeds[s], lens[s]);
		len = mutate(&rng, buf, lens[s], cap);
		run_index = it;
		run_seed = s;
		run_buf = buf;
		run_len = len;
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
	}
	printf("%s: %ld mutated inputs from %zu seeds, no crash\n", argv[0], iters, nseeds);
	for (size_t i = 0; i < nseeds; i++)
		free(seeds[i]);
	return 0;
}
