/*
 * fuzz_params.c
 *	  Fuzz target of the parameter parser.  The input is a list of
 *	  NUL-separated tokens, read as key, value, key, value, ...; a value
 *	  starting with 'n' is a number (the rest, by strtod), with 's' a string,
 *	  with 'b' a boolean (true if "b1"), anything else another JSON type.  Setting and finishing must never
 *	  crash, every refusal must say why, and finished parameters must
 *	  survive the binary format's round trip unchanged.
 */
#include "fuzz_common.h"

#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *text = malloc(size + 2);
	char	   *tok[64];
	int			ntok = 0;
	size_t		pos = 0;
	BkParams	p,
				q;
	char		err[BK_ERRMSG_LEN];
	int			dim;

	memcpy(text, data, size);
	text[size] = '\0';
	text[size + 1] = '\0';
	while (pos <= size && ntok < 64)
	{
		tok[ntok++] = text + pos;
		pos += strlen(text + pos) + 1;
	}
	dim = size > 0 ? 1 + data[0] % 200 : 1;

	BkParamsInit(&p);
	/* the task: a regressor when the first byte is odd (its own parameters) */
	p.regression = size > 0 && (data[0] & 1) != 0;
	for (int i = 0; i + 1 < ntok; i += 2)
	{
		BkParamInput in = {BK_IN_OTHER, 0, NULL, false, "object"};

		if (tok[i + 1][0] == 'n')
		{
			in.type = BK_IN_NUMBER;
			in.number = strtod(tok[i + 1] + 1, NULL);
		}
		else if (tok[i + 1][0] == 's')
		{
			in.type = BK_IN_STRING;
			in.string = tok[i + 1] + 1;
		}
		else if (tok[i + 1][0] == 'b')
		{
			in.type = BK_IN_BOOLEAN;
			in.boolean = tok[i + 1][1] == '1';
		}
		err[0] = '\0';
		if (!BkParamsSet(&p, tok[i], &in, err, sizeof(err)) && strlen(err) == 0)
			abort();
	}
	err[0] = '\0';
	if (BkParamsFinish(&p, dim, err, sizeof(err)))
	{
		BkStoredParam st[64],
					st2[64];
		BkParamValue vals[BK_MAX_PARAM_VALUES];
		int			n = BkParamsToStored(&p, st, 64);

		if (!BkParamsFromStored(&q, st, n, p.regression, p.novelty, err, sizeof(err)))
		{
			fprintf(stderr, "stored parameters refused: %s\n", err);
			abort();
		}
		if (BkParamsToStored(&q, st2, 64) != n)
			abort();
		for (int i = 0; i < n; i++)
			if (st[i].id != st2[i].id || st[i].kind != st2[i].kind || st[i].bits != st2[i].bits)
				abort();
		(void) BkParamsList(&p, vals, BK_MAX_PARAM_VALUES);
		(void) BkModelCheckSize(&p, dim, (size_t) 1 << 30, err, sizeof(err));
	}
	else if (strlen(err) == 0)
		abort();
	free(text);
	return 0;
}

size_t		FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max);

size_t
FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max)
{
	static const char seed_text[][80] = {
		"algorithm\0sbpa\0variant\0snn\0budget\0n100\0gamma\0n0.5",
		"algorithm\0spa\0loss\0sramp\0C\0n0.1\0max_sv\0n50",
		"kernel\0spoly\0degree\0n3\0coef0\0n1\0gamma\0n2",
		"algorithm\0sperceptron\0seed\0n42\0kernel\0slinear",
		"algorithm\0spegasos\0ball_projection\0b1\0maintenance\0smerge",
		"algorithm\0sprojectron_pp\0eta\0n0.2\0budget\0n7",
		"algorithm\0sforgetron\0budget\0n3\0gamma\0n4",
		"algorithm\0sbduol\0maintenance\0sprojection\0rho\0n0.5",
		"algorithm\0sbogd\0max_coef\0n2\0lambda\0n0.01",
	};
	static const size_t seed_len[] = {50, 45, 45, 47, 65, 44, 40, 49, 40};
	size_t		n = 0;

	for (size_t i = 0; i < sizeof(seed_len) / sizeof(seed_len[0]) && n < max; i++)
	{
		seeds[n] = malloc(seed_len[i]);
		memcpy(seeds[n], seed_text[i], seed_len[i]);
		lens[n] = seed_len[i];
		n++;
	}
	return n;
}
