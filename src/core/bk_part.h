/*
 * bk_part.h
 *	  The optional parts of a model, as descriptors.
 *
 *	  A model is its framing (header, parameters, classes, counters and
 *	  random state, machines: bk_encode.c, bk_decode.c) followed by its parts, each a
 *	  section of doc/format.md after the machines: the calibration, the
 *	  preparation, the class weights (each present with its header flag
 *	  bit), the learning curve and the parents (present in every version 2
 *	  model).  Each part is one const BkPart in its own file
 *	  (bk_part_*.c), listed once in bk_parts[] (bk_parts.c) in the order of
 *	  its section.  The encoder, the parser, the merge, the class
 *	  permutation, the learning loop and the model's release loop over that
 *	  table and name no part.
 *
 *	  The parts lie below the model: they call nothing of the model or the
 *	  format (make layercheck); what they need is passed to them (the model's fields,
 *	  the reader and writer of bk_codec.h).
 *
 *	  To add a part: doc/maintainers.md, "Adding a model part".
 */
#ifndef BK_PART_H
#define BK_PART_H

#include "bk_codec.h"

typedef struct BkPart
{
	const char *name;			/* the section's name in doc/format.md */
	/*
	 * the header flag bit that marks it (doc/format.md's flags field), or 0
	 * for a part present in every model of version >= since
	 */
	uint16_t	flag;
	/* with a flag: what "%s flag in a version %u model" calls it */
	const char *flag_name;
	int			since;			/* the first format version that has it */

	/* the model has it (a flagged part: its flag is set) */
	bool		(*present) (const BkModel *m);
	/* its encoded bytes, added to *total; false on overflow */
	bool		(*size) (const BkModel *m, size_t *total);
	/* the most bytes it can take in a model of n_classes (BkFormatMaxSize) */
	size_t		(*max_size) (int n_classes);
	void		(*write) (Writer *w, const BkModel *m);
	/*
	 * Validate it at r (hdr: the framing read so far) and, when m is not
	 * NULL, decode it into m.  False with r's message when invalid.
	 */
	bool		(*parse) (Reader *r, const BkModel *hdr, BkModel *m);

	/* each of these may be NULL: the part has nothing to do */
	/* a row is about to be learned (its scores will change) */
	void		(*on_learn) (BkModel *m);
	/* the row was counted (rows_seen and mistakes are up to date) */
	void		(*on_counted) (BkModel *m);
	/* a class is about to be added */
	void		(*on_new_class) (BkModel *m);
	/* the classes moved: new class i is old class perm[i] */
	void		(*permute) (BkModel *m, const int *perm);
	/* merging (BkModelMerge): refuse b unless a's part can take it */
	void		(*merge_check) (const BkModel *a, const BkModel *b);
	/* merging, before the classes are aligned (src may change too) */
	void		(*merge_early) (BkModel *dst, BkModel *src);
	/* merging, the classes aligned, before the machines are merged */
	void		(*merge) (BkModel *dst, const BkModel *src);
	/* release what it holds */
	void		(*free) (BkModel *m);
} BkPart;

extern const BkPart BkPartCalibration;
extern const BkPart BkPartPrep;
extern const BkPart BkPartClassWeights;
extern const BkPart BkPartCurve;
extern const BkPart BkPartParents;
extern const BkPart BkPartTarget;
extern const BkPart BkPartNovelty;
extern const BkPart BkPartBase;
extern const BkPart BkPartBias;

/* every part, in the order of its section (bk_parts.c) */
extern const BkPart *const bk_parts[];
extern const int bk_n_parts;

/* the header flag bits of all parts */
extern uint16_t BkPartFlags(void);

#endif							/* BK_PART_H */
