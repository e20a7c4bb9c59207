/*
 * bk_fmath.c
 *	  The project's own exp, log and log1p: every exponential or logarithm
 *	  that reaches a model comes from here, never from the C library.
 *
 *	  Determinism rule: glibc's exp and log have FMA variants that x86-64
 *	  CPUs with FMA select at load time (ifuncs), and libmvec's vector exp
 *	  is a third implementation per ISA; their last bits differ, so a model
 *	  trained with them depended on the CPU.  These functions use only
 *	  IEEE-754 double additions, multiplications, divisions, integer
 *	  operations on the bits, and table loads, each of which rounds the
 *	  same way on every CPU (the build passes -ffp-contract=off, and the
 *	  lane paths are compiled for "avx2" without "fma", so no a*b+c is
 *	  ever fused).  The four-lane path BkExp4 performs, in each lane, the
 *	  scalar BkExp's operations in its order: the same bits in any slot.
 *
 *	  exp: the algorithm of ARM's optimized-routines (Szabolcs Nagy, the
 *	  one glibc 2.28+ uses), without FMA:
 *
 *	      x = k ln2/N + r,  N = 128, |r| <= ln2/2N (+ rounding),
 *	      exp(x) = 2^(k/N) exp(r) = 2^(k >> 7) H_j (1 + T_j) exp(r),
 *
 *	  with j = k mod N, H_j = 2^(j/N) rounded to a double, T_j its relative
 *	  rounding error (the table, below, generated with 60-digit decimal
 *	  arithmetic), and exp(r) - 1 by its Taylor polynomial of degree 5,
 *	  whose truncation error is below |r|^6/720 < 6e-19 at |r| <= 0.0028.
 *	  k ln2/N is subtracted in two parts (Cody and Waite): hi holds the
 *	  first 35 bits of ln2/N, so k hi is exact for |k| < 2^18 (|x| < 1024)
 *	  and x - k hi is exact; lo = ln2/N - hi.  The error is below 0.52 ulp
 *	  for normal results (0.5 from the last addition, the rest from the
 *	  polynomial's and the table's roundings); the unit tests compare it
 *	  with glibc's exp on millions of arguments (at most 1 ulp apart).
 *	  Beyond 709.78 it returns +inf, below -745.14 +0, in between
 *	  subnormal results rounded once (the subnormal case of the original),
 *	  exp(NaN) is NaN, exp(-inf) 0.
 *
 *	  log: fdlibm's e_log.c (Sun Microsystems, 1993): x = 2^k (1 + f) with
 *	  1 + f in [sqrt(2)/2, sqrt(2)), log(1 + f) = 2 atanh(s), s = f / (2 +
 *	  f), by a minimax polynomial in s^2 (|error| < 2^-58.45), k ln2 in
 *	  two parts; error below 1 ulp.
 *
 *	  log1p(u) = log(w) + (u - (w - 1)) / w with w = 1 + u rounded: the
 *	  correction restores what rounding w lost (fdlibm's s_log1p.c uses it
 *	  too); the unit tests bound its error against glibc's log1p.
 */
#include "bk_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define EXP_N		128
#define EXP_SHIFT	0x1.8p52
#define EXP_INV_LN2_N	0x1.71547652b82fep+7	/* N / ln2 */
#define EXP_LN2_HI_N	0x1.62e42fef80000p-8	/* ln2 / N, 35 bits */
#define EXP_LN2_LO_N	0x1.1cf79abc9e3b4p-43	/* ln2 / N - hi */
#define EXP_C2		0.5
#define EXP_C3		(1.0 / 6.0)
#define EXP_C4		(1.0 / 24.0)
#define EXP_C5		(1.0 / 120.0)

/*
 * For j = 0..127: the bits of T_j (2^(j/N) = H_j (1 + T_j)), and the bits
 * of H_j less j << 45, so that adding k << 45 gives 2^(k/N)'s exponent.
 */
static const uint64_t exp_tab[2 * EXP_N] = {
	UINT64_C(0x0000000000000000), UINT64_C(0x3ff0000000000000), UINT64_C(0x3c9b3b4f1a88bf6e), UINT64_C(0x3feff63da9fb3335),
	UINT64_C(0xbc7160139cd8dc5d), UINT64_C(0x3fefec9a3e778061), UINT64_C(0xbc905e7a108766d1), UINT64_C(0x3fefe315e86e7f85),
	UINT64_C(0x3c8cd2523567f613), UINT64_C(0x3fefd9b0d3158574), UINT64_C(0xbc8bce8023f98efa), UINT64_C(0x3fefd06b29ddf6de),
	UINT64_C(0x3c60f74e61e6c861), UINT64_C(0x3fefc74518759bc8), UINT64_C(0x3c90a3e45b33d399), UINT64_C(0x3fefbe3ecac6f383),
	UINT64_C(0x3c979aa65d837b6d), UINT64_C(0x3fefb5586cf9890f), UINT64_C(0x3c8eb51a92fdeffc), UINT64_C(0x3fefac922b7247f7),
	UINT64_C(0x3c3ebe3d702f9cd1), UINT64_C(0x3fefa3ec32d3d1a2), UINT64_C(0xbc6a033489906e0b), UINT64_C(0x3fef9b66affed31b),
	UINT64_C(0xbc9556522a2fbd0e), UINT64_C(0x3fef9301d0125b51), UINT64_C(0xbc5080ef8c4eea55), UINT64_C(0x3fef8abdc06c31cc),
	UINT64_C(0xbc91c923b9d5f416), UINT64_C(0x3fef829aaea92de0), UINT64_C(0x3c80d3e3e95c55af), UINT64_C(0x3fef7a98c8a58e51),
	UINT64_C(0xbc801b15eaa59348), UINT64_C(0x3fef72b83c7d517b), UINT64_C(0xbc8f1ff055de323d), UINT64_C(0x3fef6af9388c8dea),
	UINT64_C(0x3c8b898c3f1353bf), UINT64_C(0x3fef635beb6fcb75), UINT64_C(0xbc96d99c7611eb26), UINT64_C(0x3fef5be084045cd4),
	UINT64_C(0x3c9aecf73e3a2f60), UINT64_C(0x3fef54873168b9aa), UINT64_C(0xbc8fe782cb86389d), UINT64_C(0x3fef4d5022fcd91d),
	UINT64_C(0x3c8a6f4144a6c38d), UINT64_C(0x3fef463b88628cd6), UINT64_C(0x3c807a05b0e4047d), UINT64_C(0x3fef3f49917ddc96),
	UINT64_C(0x3c968efde3a8a894), UINT64_C(0x3fef387a6e756238), UINT64_C(0x3c875e18f274487d), UINT64_C(0x3fef31ce4fb2a63f),
	UINT64_C(0x3c80472b981fe7f2), UINT64_C(0x3fef2b4565e27cdd), UINT64_C(0xbc96b87b3f71085e), UINT64_C(0x3fef24dfe1f56381),
	UINT64_C(0x3c82f7e16d09ab31), UINT64_C(0x3fef1e9df51fdee1), UINT64_C(0xbc3d219b1a6fbffa), UINT64_C(0x3fef187fd0dad990),
	UINT64_C(0x3c8b3782720c0ab4), UINT64_C(0x3fef1285a6e4030b), UINT64_C(0x3c6e149289cecb8f), UINT64_C(0x3fef0cafa93e2f56),
	UINT64_C(0x3c834d754db0abb6), UINT64_C(0x3fef06fe0a31b715), UINT64_C(0x3c864201e2ac744c), UINT64_C(0x3fef0170fc4cd831),
	UINT64_C(0x3c8fdd395dd3f84a), UINT64_C(0x3feefc08b26416ff), UINT64_C(0xbc86a3803b8e5b04), UINT64_C(0x3feef6c55f929ff1),
	UINT64_C(0xbc924aedcc4b5068), UINT64_C(0x3feef1a7373aa9cb), UINT64_C(0xbc9907f81b512d8e), UINT64_C(0x3feeecae6d05d866),
	UINT64_C(0xbc71d1e83e9436d2), UINT64_C(0x3feee7db34e59ff7), UINT64_C(0xbc991919b3ce1b15), UINT64_C(0x3feee32dc313a8e5),
	UINT64_C(0x3c859f48a72a4c6d), UINT64_C(0x3feedea64c123422), UINT64_C(0xbc9312607a28698a), UINT64_C(0x3feeda4504ac801c),
	UINT64_C(0xbc58a78f4817895b), UINT64_C(0x3feed60a21f72e2a), UINT64_C(0xbc7c2c9b67499a1b), UINT64_C(0x3feed1f5d950a897),
	UINT64_C(0x3c4363ed60c2ac11), UINT64_C(0x3feece086061892d), UINT64_C(0x3c9666093b0664ef), UINT64_C(0x3feeca41ed1d0057),
	UINT64_C(0x3c6ecce1daa10379), UINT64_C(0x3feec6a2b5c13cd0), UINT64_C(0x3c93ff8e3f0f1230), UINT64_C(0x3feec32af0d7d3de),
	UINT64_C(0x3c7690cebb7aafb0), UINT64_C(0x3feebfdad5362a27), UINT64_C(0x3c931dbdeb54e077), UINT64_C(0x3feebcb299fddd0d),
	UINT64_C(0xbc8f94340071a38e), UINT64_C(0x3feeb9b2769d2ca7), UINT64_C(0xbc87deccdc93a349), UINT64_C(0x3feeb6daa2cf6642),
	UINT64_C(0xbc78dec6bd0f385f), UINT64_C(0x3feeb42b569d4f82), UINT64_C(0xbc861246ec7b5cf6), UINT64_C(0x3feeb1a4ca5d920f),
	UINT64_C(0x3c93350518fdd78e), UINT64_C(0x3feeaf4736b527da), UINT64_C(0x3c7b98b72f8a9b05), UINT64_C(0x3feead12d497c7fd),
	UINT64_C(0x3c9063e1e21c5409), UINT64_C(0x3feeab07dd485429), UINT64_C(0x3c34c7855019c6ea), UINT64_C(0x3feea9268a5946b7),
	UINT64_C(0x3c9432e62b64c035), UINT64_C(0x3feea76f15ad2148), UINT64_C(0xbc8ce44a6199769f), UINT64_C(0x3feea5e1b976dc09),
	UINT64_C(0xbc8c33c53bef4da8), UINT64_C(0x3feea47eb03a5585), UINT64_C(0xbc845378892be9ae), UINT64_C(0x3feea34634ccc320),
	UINT64_C(0xbc93cedd78565858), UINT64_C(0x3feea23882552225), UINT64_C(0x3c5710aa807e1964), UINT64_C(0x3feea155d44ca973),
	UINT64_C(0xbc93b3efbf5e2228), UINT64_C(0x3feea09e667f3bcd), UINT64_C(0xbc6a12ad8734b982), UINT64_C(0x3feea012750bdabf),
	UINT64_C(0xbc6367efb86da9ee), UINT64_C(0x3fee9fb23c651a2f), UINT64_C(0xbc80dc3d54e08851), UINT64_C(0x3fee9f7df9519484),
	UINT64_C(0xbc781f647e5a3ecf), UINT64_C(0x3fee9f75e8ec5f74), UINT64_C(0xbc86ee4ac08b7db0), UINT64_C(0x3fee9f9a48a58174),
	UINT64_C(0xbc8619321e55e68a), UINT64_C(0x3fee9feb564267c9), UINT64_C(0x3c909ccb5e09d4d3), UINT64_C(0x3feea0694fde5d3f),
	UINT64_C(0xbc7b32dcb94da51d), UINT64_C(0x3feea11473eb0187), UINT64_C(0x3c94ecfd5467c06b), UINT64_C(0x3feea1ed0130c132),
	UINT64_C(0x3c65ebe1abd66c55), UINT64_C(0x3feea2f336cf4e62), UINT64_C(0xbc88a1c52fb3cf42), UINT64_C(0x3feea427543e1a12),
	UINT64_C(0xbc9369b6f13b3734), UINT64_C(0x3feea589994cce13), UINT64_C(0xbc805e843a19ff1e), UINT64_C(0x3feea71a4623c7ad),
	UINT64_C(0xbc94d450d872576e), UINT64_C(0x3feea8d99b4492ed), UINT64_C(0x3c90ad675b0e8a00), UINT64_C(0x3feeaac7d98a6699),
	UINT64_C(0x3c8db72fc1f0eab4), UINT64_C(0x3feeace5422aa0db), UINT64_C(0xbc65b6609cc5e7ff), UINT64_C(0x3feeaf3216b5448c),
	UINT64_C(0x3c7bf68359f35f44), UINT64_C(0x3feeb1ae99157736), UINT64_C(0xbc93091fa71e3d83), UINT64_C(0x3feeb45b0b91ffc6),
	UINT64_C(0xbc5da9b88b6c1e29), UINT64_C(0x3feeb737b0cdc5e5), UINT64_C(0xbc6c23f97c90b959), UINT64_C(0x3feeba44cbc8520f),
	UINT64_C(0xbc92434322f4f9aa), UINT64_C(0x3feebd829fde4e50), UINT64_C(0xbc85ca6cd7668e4b), UINT64_C(0x3feec0f170ca07ba),
	UINT64_C(0x3c71affc2b91ce27), UINT64_C(0x3feec49182a3f090), UINT64_C(0x3c6dd235e10a73bb), UINT64_C(0x3feec86319e32323),
	UINT64_C(0xbc87c50422622263), UINT64_C(0x3feecc667b5de565), UINT64_C(0x3c8b1c86e3e231d5), UINT64_C(0x3feed09bec4a2d33),
	UINT64_C(0xbc91bbd1d3bcbb15), UINT64_C(0x3feed503b23e255d), UINT64_C(0x3c90cc319cee31d2), UINT64_C(0x3feed99e1330b358),
	UINT64_C(0x3c8469846e735ab3), UINT64_C(0x3feede6b5579fdbf), UINT64_C(0xbc82dfcd978e9db4), UINT64_C(0x3feee36bbfd3f37a),
	UINT64_C(0x3c8c1a7792cb3387), UINT64_C(0x3feee89f995ad3ad), UINT64_C(0xbc907b8f4ad1d9fa), UINT64_C(0x3feeee07298db666),
	UINT64_C(0xbc55c3d956dcaeba), UINT64_C(0x3feef3a2b84f15fb), UINT64_C(0xbc90a40e3da6f640), UINT64_C(0x3feef9728de5593a),
	UINT64_C(0xbc68d6f438ad9334), UINT64_C(0x3feeff76f2fb5e47), UINT64_C(0xbc91eee26b588a35), UINT64_C(0x3fef05b030a1064a),
	UINT64_C(0x3c74ffd70a5fddcd), UINT64_C(0x3fef0c1e904bc1d2), UINT64_C(0xbc91bdfbfa9298ac), UINT64_C(0x3fef12c25bd71e09),
	UINT64_C(0x3c736eae30af0cb3), UINT64_C(0x3fef199bdd85529c), UINT64_C(0x3c8ee3325c9ffd94), UINT64_C(0x3fef20ab5fffd07a),
	UINT64_C(0x3c84e08fd10959ac), UINT64_C(0x3fef27f12e57d14b), UINT64_C(0x3c63cdaf384e1a67), UINT64_C(0x3fef2f6d9406e7b5),
	UINT64_C(0x3c676b2c6c921968), UINT64_C(0x3fef3720dcef9069), UINT64_C(0xbc808a1883ccb5d2), UINT64_C(0x3fef3f0b555dc3fa),
	UINT64_C(0xbc8fad5d3ffffa6f), UINT64_C(0x3fef472d4a07897c), UINT64_C(0xbc900dae3875a949), UINT64_C(0x3fef4f87080d89f2),
	UINT64_C(0x3c74a385a63d07a7), UINT64_C(0x3fef5818dcfba487), UINT64_C(0xbc82919e2040220f), UINT64_C(0x3fef60e316c98398),
	UINT64_C(0x3c8e5a50d5c192ac), UINT64_C(0x3fef69e603db3285), UINT64_C(0x3c843a59ac016b4b), UINT64_C(0x3fef7321f301b460),
	UINT64_C(0xbc82d52107b43e1f), UINT64_C(0x3fef7c97337b9b5f), UINT64_C(0xbc892ab93b470dc9), UINT64_C(0x3fef864614f5a129),
	UINT64_C(0x3c74b604603a88d3), UINT64_C(0x3fef902ee78b3ff6), UINT64_C(0x3c83c5ec519d7271), UINT64_C(0x3fef9a51fbc74c83),
	UINT64_C(0xbc8ff7128fd391f0), UINT64_C(0x3fefa4afa2a490da), UINT64_C(0xbc8dae98e223747d), UINT64_C(0x3fefaf482d8e67f1),
	UINT64_C(0x3c8ec3bc41aa2008), UINT64_C(0x3fefba1bee615a27), UINT64_C(0x3c842b94c3a9eb32), UINT64_C(0x3fefc52b376bba97),
	UINT64_C(0x3c8a64a931d185ee), UINT64_C(0x3fefd0765b6e4540), UINT64_C(0xbc8e37bae43be3ed), UINT64_C(0x3fefdbfdad9cbe14),
	UINT64_C(0x3c77893b4d91cd9d), UINT64_C(0x3fefe7c1819e90d8), UINT64_C(0x3c5305c14160cc89), UINT64_C(0x3feff3c22b8f71f1),
};

static inline uint64_t
as_u64(double d)
{
	uint64_t	u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static inline double
as_double(uint64_t u)
{
	double		d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/*
 * The results that overflow the scale's exponent or fall into the
 * subnormal range (ARM's specialcase): tmp = exp(r) - 1 + T_j, sbits the
 * scale's bits, ki the bits holding k.
 */
static double
exp_special(double tmp, uint64_t sbits, uint64_t ki)
{
	double		scale,
				y;

	if ((ki & 0x80000000) == 0)
	{
		/* k > 0: the scale's exponent may be too large by up to 460 */
		sbits -= UINT64_C(1009) << 52;
		scale = as_double(sbits);
		return 0x1p1009 * (scale + scale * tmp);
	}
	/* k < 0: scaled up by 2^1022, and a subnormal result rounded once */
	sbits += UINT64_C(1022) << 52;
	scale = as_double(sbits);
	y = scale + scale * tmp;
	if (y < 1.0)
	{
		double		hi,
					lo;

		lo = scale - y + scale * tmp;
		hi = 1.0 + y;
		lo = 1.0 - hi + y + lo;
		y = (hi + lo) - 1.0;
		if (y == 0.0)
			y = 0.0;			/* not -0 */
	}
	return 0x1p-1022 * y;
}

double
BkExp(double x)
{
	double		kd,
				r,
				r2,
				tmp,
				scale;
	uint64_t	ki,
				j,
				sbits;
	bool		large = false;

	if (!(fabs(x) < 512.0))
	{
		if (isnan(x))
			return x + x;
		if (!(fabs(x) < 1024.0))
			return x > 0.0 ? HUGE_VAL : 0.0;
		large = true;
	}
	kd = x * EXP_INV_LN2_N + EXP_SHIFT;
	ki = as_u64(kd);
	kd -= EXP_SHIFT;
	r = (x - kd * EXP_LN2_HI_N) - kd * EXP_LN2_LO_N;
	j = 2 * (ki % EXP_N);
	sbits = exp_tab[j + 1] + (ki << 45);
	r2 = r * r;
	tmp = as_double(exp_tab[j]) + r + r2 * (EXP_C2 + r * EXP_C3) +
		r2 * r2 * (EXP_C4 + r * EXP_C5);
	if (large)
		return exp_special(tmp, sbits, ki);
	scale = as_double(sbits);
	return scale + scale * tmp;
}

#ifdef BK_VECTOR_AVX2
/*
 * BkExp of four values: each lane BkExp's operations for |x| < 512 in its
 * order (so the same bits), the lanes beyond that range (rare: a kernel's
 * exponent below -512 is a kernel value below 1e-222) through BkExp.
 * "avx2" without "fma": nothing here can be fused.
 */
__attribute__((target("avx2")))
bk_v4d
BkExp4(bk_v4d x)
{
	const bk_v4d inv = {EXP_INV_LN2_N, EXP_INV_LN2_N, EXP_INV_LN2_N, EXP_INV_LN2_N};
	const bk_v4d shift = {EXP_SHIFT, EXP_SHIFT, EXP_SHIFT, EXP_SHIFT};
	const bk_v4d hi = {EXP_LN2_HI_N, EXP_LN2_HI_N, EXP_LN2_HI_N, EXP_LN2_HI_N};
	const bk_v4d lo = {EXP_LN2_LO_N, EXP_LN2_LO_N, EXP_LN2_LO_N, EXP_LN2_LO_N};
	const bk_v4d c2 = {EXP_C2, EXP_C2, EXP_C2, EXP_C2};
	const bk_v4d c3 = {EXP_C3, EXP_C3, EXP_C3, EXP_C3};
	const bk_v4d c4 = {EXP_C4, EXP_C4, EXP_C4, EXP_C4};
	const bk_v4d c5 = {EXP_C5, EXP_C5, EXP_C5, EXP_C5};
	const bk_v4d lim = {512.0, 512.0, 512.0, 512.0};
	const bk_v4i absmask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
	bk_v4d		kd,
				r,
				r2,
				tmp,
				tail,
				scale,
				y;
	bk_v4i		ki,
				j,
				hbits,
				in;

	kd = x * inv + shift;
	ki = (bk_v4i) kd;
	kd -= shift;
	r = (x - kd * hi) - kd * lo;
	j = (ki & (EXP_N - 1)) * 2;
	tail = (bk_v4d) {as_double(exp_tab[j[0]]), as_double(exp_tab[j[1]]),
	as_double(exp_tab[j[2]]), as_double(exp_tab[j[3]])};
	hbits = (bk_v4i) {(long long) exp_tab[j[0] + 1], (long long) exp_tab[j[1] + 1],
	(long long) exp_tab[j[2] + 1], (long long) exp_tab[j[3] + 1]};
	r2 = r * r;
	tmp = tail + r + r2 * (c2 + r * c3) + r2 * r2 * (c4 + r * c5);
	scale = (bk_v4d) ((bk_v4u) hbits + ((bk_v4u) ki << 45));
	y = scale + scale * tmp;
	in = (bk_v4d) ((bk_v4i) x & absmask) < lim;
	if (!(in[0] & in[1] & in[2] & in[3]))
		for (int l = 0; l < 4; l++)
			if (!in[l])
				y[l] = BkExp(x[l]);
	return y;
}
#endif

#ifdef BK_VECTOR_AVX2
/* v[i] = BkExp4 for the leading multiple of four; returns where it stopped */
__attribute__((target("avx2")))
static int
exp_array_avx2(double *v, int n)
{
	int			i = 0;

	for (; i + 4 <= n; i += 4)
	{
		bk_v4d		x;

		memcpy(&x, v + i, sizeof(x));
		x = BkExp4(x);
		memcpy(v + i, &x, sizeof(x));
	}
	return i;
}
#endif

/*
 * v[i] = BkExp(v[i]); four at a time where the CPU has AVX2 and the lane
 * paths are on (the same bits)
 */
void
BkExpArray(double *v, int n)
{
	int			i = 0;

#ifdef BK_VECTOR_AVX2
	if (BkVectorLanes())
		i = exp_array_avx2(v, n);
#endif
	for (; i < n; i++)
		v[i] = BkExp(v[i]);
}

/*
 * fdlibm e_log.c's constants and method.  Its notice, which its licence
 * asks to keep with code derived from it:
 *
 *   Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
 *
 *   Developed at SunSoft, a Sun Microsystems, Inc. business.
 *   Permission to use, copy, modify, and distribute this
 *   software is freely granted, provided that this notice
 *   is preserved.
 */
#define LN2_HI		6.93147180369123816490e-01	/* 3fe62e42 fee00000 */
#define LN2_LO		1.90821492927058770002e-10	/* 3dea39ef 35793c76 */
#define TWO54		1.80143985094819840000e+16	/* 43500000 00000000 */
#define LG1			6.666666666666735130e-01	/* 3FE55555 55555593 */
#define LG2			3.999999999940941908e-01	/* 3FD99999 9997FA04 */
#define LG3			2.857142874366239149e-01	/* 3FD24924 94229359 */
#define LG4			2.222219843214978396e-01	/* 3FCC71C5 1D8E78AF */
#define LG5			1.818357216161805012e-01	/* 3FC74664 96CB03DE */
#define LG6			1.531383769920937332e-01	/* 3FC39A09 D078C69F */
#define LG7			1.479819860511658591e-01	/* 3FC2F112 DF3E5244 */

double
BkLog(double x)
{
	uint64_t	u = as_u64(x);
	int32_t		hx = (int32_t) (u >> 32);
	uint32_t	lx = (uint32_t) u;
	int32_t		k = 0,
				i,
				j;
	double		hfsq,
				f,
				s,
				z,
				R,
				w,
				t1,
				t2,
				dk;

	if (hx < 0x00100000)
	{
		/* x < 2^-1022 */
		if (((hx & 0x7fffffff) | lx) == 0)
			return -HUGE_VAL;	/* log(+-0) */
		if (hx < 0)
			return NAN;			/* log(negative) */
		k -= 54;
		x *= TWO54;				/* subnormal: scale up */
		u = as_u64(x);
		hx = (int32_t) (u >> 32);
	}
	if (hx >= 0x7ff00000)
		return x + x;			/* inf or NaN */
	k += (hx >> 20) - 1023;
	hx &= 0x000fffff;
	i = (hx + 0x95f64) & 0x100000;
	/* normalise x or x / 2 */
	u = as_u64(x);
	u = (u & UINT64_C(0xffffffff)) | ((uint64_t) (uint32_t) (hx | (i ^ 0x3ff00000)) << 32);
	x = as_double(u);
	k += (i >> 20);
	f = x - 1.0;
	dk = (double) k;
	if ((0x000fffff & (2 + hx)) < 3)
	{
		/* -2^-20 <= f < 2^-20 */
		if (f == 0.0)
			return k == 0 ? 0.0 : dk * LN2_HI + dk * LN2_LO;
		R = f * f * (0.5 - 0.33333333333333333 * f);
		if (k == 0)
			return f - R;
		return dk * LN2_HI - ((R - dk * LN2_LO) - f);
	}
	s = f / (2.0 + f);
	z = s * s;
	i = hx - 0x6147a;
	w = z * z;
	j = 0x6b851 - hx;
	t1 = w * (LG2 + w * (LG4 + w * LG6));
	t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
	i |= j;
	R = t2 + t1;
	if (i > 0)
	{
		hfsq = 0.5 * f * f;
		if (k == 0)
			return f - (hfsq - s * (hfsq + R));
		return dk * LN2_HI - ((hfsq - (s * (hfsq + R) + dk * LN2_LO)) - f);
	}
	if (k == 0)
		return f - s * (f - R);
	return dk * LN2_HI - ((s * (f - R) - dk * LN2_LO) - f);
}

double
BkLog1p(double u)
{
	double		w;

	if (isnan(u) || u == HUGE_VAL)
		return u + u;
	if (u < -1.0)
		return NAN;
	if (u == -1.0)
		return -HUGE_VAL;
	w = 1.0 + u;
	if (w == 1.0)
		return u;				/* |u| < 2^-53: log1p(u) = u to the bit */
	return BkLog(w) + (u - (w - 1.0)) / w;
}
