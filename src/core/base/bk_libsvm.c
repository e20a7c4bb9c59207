/*
 * bk_libsvm.c
 *	  One line of LIBSVM / svmlight text into a label and a dense feature
 *	  vector:
 *
 *	      label index:value index:value ... [# comment]
 *
 *	  the label an integer (written as one, or as an integral number such
 *	  as 1.0), indices from 1 to dim in strictly ascending order, values
 *	  finite numbers; the features not listed are 0.  Tokens are separated
 *	  by spaces or tabs.  Each malformed line gets a message that names its
 *	  problem and the token.
 */
#include "bk_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the largest label: integers a double holds exactly */
#define MAX_LABEL 9007199254740991.0

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static bool
at_end(const char *p)
{
	return *p == '\0' || *p == '#';
}

/* the token at p, for messages: up to 40 bytes */
static int
token_len(const char *p)
{
	int			n = 0;

	while (p[n] != '\0' && !is_space(p[n]) && n < 40)
		n++;
	return n;
}

/*
 * The line into x (dense, dim values) or into idx/val (sparse, 1-based
 * indices in ascending order, *nnz of them; room for dim)
 */
static bool
parse_line(const char *line, int dim, int64_t *label, double *x, int32_t *idx_out,
		   double *val_out, int *nnz, char *err, size_t errlen)
{
	const char *p = line;
	char	   *end;
	double		v;
	long long	last = 0;
	int			token = 1;

	if (x)
		memset(x, 0, sizeof(double) * (size_t) dim);
	else
		*nnz = 0;
	while (is_space(*p))
		p++;
	if (at_end(p))
	{
		snprintf(err, errlen, "the line has no label");
		return false;
	}

	/* the label */
	errno = 0;
	v = BkParseDouble(p, &end);
	if (end == p || (*end != '\0' && !is_space(*end)) ||
		(errno != 0 && isfinite(v)) || v != floor(v))
	{
		snprintf(err, errlen, "the label \"%.*s\" is not an integer",
				 token_len(p), p);
		return false;
	}
	/*
	 * an integer, but one a double does not hold exactly (beyond 2^53 the
	 * parsed value is rounded): say so, not that it is no integer
	 */
	if (!isfinite(v) || fabs(v) > MAX_LABEL)
	{
		snprintf(err, errlen, "the label \"%.*s\" is out of range: a label is an integer of at most 2^53 - 1 in magnitude (exact in a double)",
				 token_len(p), p);
		return false;
	}
	*label = (int64_t) v;
	p = end;

	for (;;)
	{
		const char *tok;
		long long	idx;

		while (is_space(*p))
			p++;
		if (at_end(p))
			return true;
		tok = p;
		token++;
		errno = 0;
		idx = strtoll(p, &end, 10);
		if (end == p || *end != ':')
		{
			if (strncmp(p, "qid:", 4) == 0)
				snprintf(err, errlen, "token %d (\"%.*s\"): svmlight's qid is not supported",
						 token, token_len(tok), tok);
			else
				snprintf(err, errlen, "token %d (\"%.*s\") is not index:value",
						 token, token_len(tok), tok);
			return false;
		}
		if (errno != 0 || idx < 1 || idx > dim)
		{
			snprintf(err, errlen, "token %d (\"%.*s\"): index out of 1..%d",
					 token, token_len(tok), tok, dim);
			return false;
		}
		if (idx <= last)
		{
			snprintf(err, errlen,
					 "token %d (\"%.*s\"): index %lld after %lld (indices must ascend)",
					 token, token_len(tok), tok, idx, last);
			return false;
		}
		last = idx;
		p = end + 1;
		errno = 0;
		v = BkParseDouble(p, &end);
		if (end == p || (*end != '\0' && !is_space(*end) && *end != '#') ||
			!isfinite(v))
		{
			snprintf(err, errlen, "token %d (\"%.*s\"): the value is not a finite number",
					 token, token_len(tok), tok);
			return false;
		}
		if (x)
			x[idx - 1] = v;
		else
		{
			idx_out[*nnz] = (int32_t) idx;
			val_out[*nnz] = v;
			(*nnz)++;
		}
		p = end;
	}
}

bool
BkParseLibsvm(const char *line, int dim, int64_t *label, double *x,
			  char *err, size_t errlen)
{
	return parse_line(line, dim, label, x, NULL, NULL, NULL, err, errlen);
}

bool
BkParseLibsvmSparse(const char *line, int dim, int64_t *label, int32_t *idx,
					double *val, int *nnz, char *err, size_t errlen)
{
	return parse_line(line, dim, label, NULL, idx, val, nnz, err, errlen);
}
