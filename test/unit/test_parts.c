/*
 * test_parts.c
 *	  Unit tests that iterate the table of a model's parts (bk_part.h), so
 *	  that a new part is covered by adding it: doc/format.md's flags field
 *	  and its sections after the machines must be the table's, flag for
 *	  flag and in the table's order.
 */
#include "bk_test.h"
#include "bk_part.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* the bit number of a one-bit flag */
static int
flag_bit(uint16_t flag)
{
	int			b = 0;

	while (flag > 1)
	{
		flag >>= 1;
		b++;
	}
	return b;
}

/*
 * doc/format.md: the header's flags row describes "bit B (0xF" for each
 * part's flag and for no other bit above the framing's (0 to 2); each part
 * has a section "### Name (... only with flag bit B)" or, unflagged,
 * "### Name (version V...", and the sections come in the table's order.
 */
void
test_parts_format_doc(void)
{
	FILE	   *f = fopen("doc/format.md", "r");
	char		line[8192];
	int			next = 0;
	bool		flags_row = false;

	CHECK(f != NULL, "doc/format.md is readable (run from the repository root)");
	if (f == NULL)
		return;
	CHECK(bk_n_parts >= 5, "%d parts in the table", bk_n_parts);
	while (fgets(line, sizeof(line), f) != NULL)
	{
		if (strncmp(line, "| 6 | 2 | u16 | flags |", 23) == 0)
		{
			flags_row = true;
			for (int b = 3; b < 16; b++)
			{
				char		entry[32];
				bool		part_has = false;

				for (int i = 0; i < bk_n_parts; i++)
					part_has |= bk_parts[i]->flag == (1u << b);
				snprintf(entry, sizeof(entry), "bit %d (0x%x", b, 1u << b);
				CHECK((strstr(line, entry) != NULL) == part_has,
					  "doc/format.md's flags %s %s, as the parts table",
					  part_has ? "list" : "do not list", entry);
			}
		}
		if (strncmp(line, "### ", 4) == 0 && next < bk_n_parts)
		{
			const BkPart *part = bk_parts[next];
			char		title[128];
			char		want[64];

			snprintf(title, sizeof(title), "### %s (", part->name);
			title[4] = (char) toupper((unsigned char) title[4]);
			if (strncmp(line, title, strlen(title)) != 0)
				continue;
			if (part->flag != 0)
				snprintf(want, sizeof(want), "only with flag bit %d)", flag_bit(part->flag));
			else
				snprintf(want, sizeof(want), "(version %d", part->since);
			CHECK(strstr(line, want) != NULL, "doc/format.md's section of the %s says \"%s\"",
				  part->name, want);
			CHECK(part->flag == 0 || part->flag_name != NULL,
				  "the flagged part %s names its flag", part->name);
			next++;
		}
	}
	fclose(f);
	CHECK(flags_row, "doc/format.md has the header's flags row");
	CHECK(next == bk_n_parts, "doc/format.md has a section for each of the %d parts, in order (found %d)",
		  bk_n_parts, next);
}
