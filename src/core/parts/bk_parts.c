/*
 * bk_parts.c
 *	  The table of a model's parts (bk_part.h): one line per part, in the
 *	  order of the sections after the machines (doc/format.md).
 *	  test/unit/test_registry.c checks it against doc/format.md's flags.
 */
#include "bk_part.h"

const BkPart *const bk_parts[] = {
	&BkPartCalibration,			/* flag bit 3 */
	&BkPartPrep,				/* flag bit 4 */
	&BkPartClassWeights,		/* flag bit 5 */
	&BkPartCurve,				/* version 2, always */
	&BkPartParents,				/* version 2, always */
	&BkPartTarget,				/* flag bit 6 */
	&BkPartNovelty,				/* flag bit 7 */
	&BkPartBase,				/* flag bit 8 */
	&BkPartBias,				/* flag bit 9 */
};

const int	bk_n_parts = (int) (sizeof(bk_parts) / sizeof(bk_parts[0]));

uint16_t
BkPartFlags(void)
{
	uint16_t	flags = 0;

	for (int i = 0; i < bk_n_parts; i++)
		flags |= bk_parts[i]->flag;
	return flags;
}
