/*
 * bk_number.c
 *	  Decimal text to double, exactly as strtod, faster for the common case.
 *
 *	  A decimal number with at most 19 significant digits whose significand
 *	  M is at most 2^53 and whose decimal exponent e is within [-22, 22] is
 *	  M * 10^e or M / 10^-e computed in one IEEE operation on two exactly
 *	  represented doubles, which rounds once, correctly: the value strtod
 *	  returns (Clinger, "How to read floating point numbers accurately",
 *	  PLDI 1990, the "fast path").  Anything else goes to strtod.  This is
 *	  the path of LIBSVM values, where strtod's general algorithm was the
 *	  largest cost of a row, and of the JSON numbers of named features:
 *	  the PostgreSQL layer hands the decimal's significand and exponent to
 *	  BkDecimalDouble straight from the number's digits, and prints the
 *	  number for BkParseDouble only when the fast path does not apply.
 */
#include "bk_internal.h"

#include <stdlib.h>

static const double pow10_exact[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/*
 * (neg ? -1 : 1) * m * 10^exp10 as the correctly rounded double, in *out,
 * when Clinger's fast path gives it: m at most 2^53 and exp10 within
 * [-22, 22] (m and 10^|exp10| are then exact doubles, and one IEEE
 * multiplication or division rounds the exact value once).  false, *out
 * untouched, otherwise: the caller reads the number the general way.
 * m = 0 is a zero of the sign neg, as strtod reads "-0".
 */
bool
BkDecimalDouble(bool neg, uint64_t m, int exp10, double *out)
{
	double		v;

	if (m > (UINT64_C(1) << 53) || exp10 < -22 || exp10 > 22)
		return false;
	v = (double) m;
	v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
	*out = neg ? -v : v;
	return true;
}

double
BkParseDouble(const char *s, char **end)
{
	const char *p = s;
	bool		neg = false;
	uint64_t	m = 0;
	int			digits = 0;		/* significant digits in m */
	int			exp10 = 0;
	bool		any = false;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	/* the integer part; leading zeros are not significant */
	for (; *p >= '0' && *p <= '9'; p++)
	{
		any = true;
		if (m == 0 && *p == '0')
			continue;
		if (digits == 19)
			return strtod(s, end);
		m = m * 10 + (uint64_t) (*p - '0');
		digits++;
	}
	/* strtod reads hexadecimal too */
	if (*p == 'x' || *p == 'X')
		return strtod(s, end);
	if (*p == '.')
	{
		const char *frac = ++p;
		const char *last = p;	/* after the last non-zero fraction digit */

		for (; *p >= '0' && *p <= '9'; p++)
			if (*p != '0')
				last = p + 1;
		any |= p > frac;
		for (const char *q = frac; q < last; q++)
		{
			if (m == 0 && *q == '0')
			{
				exp10--;
				continue;
			}
			if (digits == 19)
				return strtod(s, end);
			m = m * 10 + (uint64_t) (*q - '0');
			digits++;
			exp10--;
		}
	}
	if (!any)
		return strtod(s, end);
	if (*p == 'e' || *p == 'E')
	{
		const char *q = p + 1;
		bool		eneg = false;
		int			e = 0;

		if (*q == '-' || *q == '+')
			eneg = *q++ == '-';
		if (!(*q >= '0' && *q <= '9'))
			return strtod(s, end);
		for (; *q >= '0' && *q <= '9'; q++)
		{
			if (e > 1000)
				return strtod(s, end);
			e = e * 10 + (*q - '0');
		}
		exp10 += eneg ? -e : e;
		p = q;
	}
	{
		double		v;

		if (!BkDecimalDouble(neg, m, exp10, &v))
			return strtod(s, end);
		*end = (char *) p;
		return v;
	}
}
