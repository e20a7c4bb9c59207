/*
 * bk_row_table.c
 *	  A hash table of rows found by their bytes (bk_distil.h): the merge
 *	  combines a union's identical SVs with it (bk_model_merge.c), the
 *	  distillation and the retraining find the union's distinct points
 *	  (bk_model_distil.c).  Only the table's slots depend on the hash,
 *	  never the order in which rows are found.
 */
#include "bk_distil.h"

#include <string.h>

/*
 * A hash of a row's bytes (FNV-1a's steps on 8-byte words, then splitmix64's
 * finaliser): equal rows, equal hashes; only the table's slots depend on it
 */
static uint64_t
row_hash(const double *x, int dim)
{
	uint64_t	h = UINT64_C(14695981039346656037),
				v;

	for (int j = 0; j < dim; j++)
	{
		memcpy(&v, x + j, 8);
		h = (h ^ v) * UINT64_C(1099511628211);
	}
	h = (h ^ (h >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	h = (h ^ (h >> 27)) * UINT64_C(0x94d049bb133111eb);
	return h ^ (h >> 31);
}

int *
BkRowTableNew(const BkEnv *env, size_t n, size_t *cap)
{
	int		   *table;

	*cap = 1;
	while (*cap < 2 * n)
		*cap *= 2;
	table = BkAllocArray(env, *cap, sizeof(int));
	for (size_t i = 0; i < *cap; i++)
		table[i] = -1;
	return table;
}

size_t
BkRowSlotOf(const int *table, size_t cap, const double *const *rows, const double *x,
			int dim, bool *found)
{
	size_t		h = (size_t) (row_hash(x, dim) & (uint64_t) (cap - 1));

	for (; table[h] >= 0; h = (h + 1) & (cap - 1))
		if (memcmp(rows[table[h]], x, sizeof(double) * (size_t) dim) == 0)
		{
			*found = true;
			return h;
		}
	*found = false;
	return h;
}

size_t
BkRowSlot(const int *table, size_t cap, const BkMachine *rows, const double *x,
		  int dim, bool *found)
{
	size_t		h = (size_t) (row_hash(x, dim) & (uint64_t) (cap - 1));

	for (; table[h] >= 0; h = (h + 1) & (cap - 1))
		if (memcmp(BkSvRow(rows, table[h]), x, sizeof(double) * (size_t) dim) == 0)
		{
			*found = true;
			return h;
		}
	*found = false;
	return h;
}
