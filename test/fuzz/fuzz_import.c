/*
 * fuzz_import.c
 *	  Fuzz target of bk_import's parser of LIBSVM model text
 *	  (src/core/format/bk_import_libsvm.c).  The input's first byte picks
 *	  the dimension given (0, the largest index, for most), the rest is the
 *	  text.  Hostile text must get an error a user can cause (malformed:
 *	  BK_ERR_DATA; a model the core cannot hold: BK_ERR_UNSUPPORTED; too
 *	  large for its text: BK_ERR_LIMIT), never a crash; a model it accepts
 *	  must pass the validator, and export again to LIBSVM text and ONNX (or
 *	  be refused with BK_ERR_UNSUPPORTED), and the LIBSVM text must import
 *	  again.
 */
#include "fuzz_common.h"

#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* bytes through a step that may refuse with an error a user can cause */
static BkModel *
import(const uint8_t *text, size_t len, int dim)
{
	jmp_buf		jb;
	BkModel    *volatile m = NULL;

	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
		m = BkModelImport(&fuzz_env, "libsvm", text, len, dim);
	else
	{
		FuzzExpectUserError("importing LIBSVM model text");
		m = NULL;
	}
	bk_std_jump = NULL;
	return m;
}

static uint8_t *
export(BkModel *m, const char *format, size_t *len)
{
	jmp_buf		jb;
	uint8_t    *volatile out = NULL;

	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
		out = BkModelExport(m, format, len);
	else
	{
		if (bk_std_last_code != BK_ERR_UNSUPPORTED && bk_std_last_code != BK_ERR_LIMIT)
		{
			fprintf(stderr, "export to %s failed: %s\n", format, bk_std_last_msg);
			abort();
		}
		out = NULL;
	}
	bk_std_jump = NULL;
	return out;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int			dim;
	BkModel    *m;
	uint8_t    *bytes;
	size_t		len;

	if (size == 0)
		return 0;
	dim = data[0] < 200 ? 0 : data[0] - 199;
	m = import(data + 1, size - 1, dim);
	if (m == NULL)
		return 0;
	free(FuzzEncodeValid(m, &len, "imported from LIBSVM text"));
	bytes = export(m, "onnx", &len);
	BkFree(&fuzz_env, bytes);
	bytes = export(m, "libsvm", &len);
	if (bytes != NULL)
	{
		BkModel    *again = import(bytes, len, m->dim);

		if (again == NULL)
		{
			fprintf(stderr, "the LIBSVM export of an imported model does not import: %s\n",
					bk_std_last_msg);
			abort();
		}
		BkModelFree(again);
		BkFree(&fuzz_env, bytes);
	}
	BkModelFree(m);
	return 0;
}

size_t		FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max);

size_t
FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max)
{
	static const char *const texts[] = {
		"\001svm_type c_svc\nkernel_type polynomial\ndegree 2\ngamma 0.5\ncoef0 1\nnr_class 2\n"
		"total_sv 3\nrho -0.25\nlabel 1 -1\nprobA -2.5\nprobB 0.1\nnr_sv 2 1\nSV\n"
		"0.5 1:0.25 3:-1\n1 2:2\n-1.5 1:1 2:1 3:1\n",
		"\001svm_type epsilon_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.3\nSV\n"
		"0.75 1:0.5 2:-0.5\n-0.25 1:1.5\n",
		"\001svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 1\nSV\n"
		"1 1:1 2:2\n1 1:-1 4:0.5\n",
		"\001svm_type c_svc\nkernel_type rbf\ngamma 2\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 3 7\n"
		"nr_sv 1 1\nSV\n1 1:0.1\n-1 1:-0.1\n",
		"\203svm_type nu_svr\nkernel_type polynomial\ndegree 3\ngamma 1\ncoef0 0\nnr_class 2\n"
		"total_sv 1\nrho -2\nSV\n0.5 2:1e-3\n",
	};
	size_t		n = 0;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]) && n < max; i++)
	{
		lens[n] = strlen(texts[i]);
		seeds[n] = malloc(lens[n]);
		memcpy(seeds[n], texts[i], lens[n]);
		n++;
	}
	return n;
}
