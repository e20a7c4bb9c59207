/*
 * bk_rng.c
 *	  Seeded pseudo-random numbers: xoshiro256** (Blackman and Vigna),
 *	  seeded through splitmix64.  The state travels in the model, so a
 *	  randomised learner continues exactly where it stopped.
 */
#include "bk_internal.h"

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t	z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * splitmix64's output function is a bijection of 64-bit integers (each
 * step, an odd multiplication or an xor with a right shift, is
 * invertible), and so is adding the seed's multiple: distinct ids give
 * distinct keys for one seed, and their order looks random.
 */
uint64_t
BkShuffleKey(uint64_t id, uint64_t seed)
{
	uint64_t	x = id + seed * 0xd1b54a32d192ed03ULL;

	return splitmix64(&x);
}

void
BkRngSeed(BkRng *rng, uint64_t seed)
{
	uint64_t	x = seed;

	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&x);
}

uint64_t
BkRngNext(BkRng *rng)
{
	uint64_t   *s = rng->s;
	uint64_t	result = rotl(s[1] * 5, 7) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double
BkRngUniform(BkRng *rng)
{
	return (double) (BkRngNext(rng) >> 11) * 0x1.0p-53;
}

/* Lemire's nearly divisionless method would do; rejection keeps it plain */
uint64_t
BkRngBelow(BkRng *rng, uint64_t n)
{
	uint64_t	limit;
	uint64_t	r;

	if (n <= 1)
		return 0;
	limit = UINT64_MAX - UINT64_MAX % n;
	do
		r = BkRngNext(rng);
	while (r >= limit);
	return r % n;
}
