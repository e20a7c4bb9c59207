/*
 * bk_bytes.c
 *	  Byte strings, the lowest layer of the class table, the class weights,
 *	  the preparation and the format: their order (a prefix first), a
 *	  NUL-terminated copy, and the check of UTF-8.  Calls nothing of the
 *	  model.
 */
#include "bk_internal.h"

#include <string.h>

int
BkBytesCompare(const char *a, size_t alen, const char *b, size_t blen)
{
	int			r = memcmp(a, b, alen < blen ? alen : blen);

	if (r != 0)
		return r;
	return alen < blen ? -1 : (alen > blen ? 1 : 0);
}


char *
BkCopyBytes(const BkEnv *env, const char *s, size_t len)
{
	char	   *c = BkAllocArray(env, len + 1, 1);

	memcpy(c, s, len);
	c[len] = '\0';
	return c;
}


bool
BkValidUtf8(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t		i = 0;

	while (i < len)
	{
		unsigned char c = p[i];
		size_t		n;
		uint32_t	cp;

		if (c < 0x80)
		{
			i++;
			continue;
		}
		/* the lead byte gives the number of continuation bytes */
		if (c >= 0xC2 && c <= 0xDF)
		{
			n = 1;
			cp = c & 0x1F;
		}
		else if (c >= 0xE0 && c <= 0xEF)
		{
			n = 2;
			cp = c & 0x0F;
		}
		else if (c >= 0xF0 && c <= 0xF4)
		{
			n = 3;
			cp = c & 0x07;
		}
		else
			return false;
		if (len - i <= n)
			return false;
		for (size_t k = 1; k <= n; k++)
		{
			if ((p[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i + k] & 0x3F);
		}
		/* overlong forms, surrogates, beyond U+10FFFF */
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
			(cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
			return false;
		i += n + 1;
	}
	return true;
}
