-- ------------------------------------------------------------------------
-- Stream order
-- ------------------------------------------------------------------------
--
-- An online learner needs its rows in an order unrelated to their labels.
-- bk_shuffle_key(id, seed) is a seeded permutation of int8: distinct ids
-- get distinct keys, so ORDER BY bk_shuffle_key(id, 42) is a shuffle that
-- every run repeats exactly.

-- Availability: 0.2.0
CREATE FUNCTION @extschema@.bk_shuffle_key(id int8, seed int8 DEFAULT 0)
	RETURNS int8
	AS 'MODULE_PATHNAME', 'bk_shuffle_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_shuffle_key(int8, int8) IS
	'a seeded shuffle of row ids: ORDER BY bk_shuffle_key(id, seed) trains on a random but repeatable order';

-- Availability: 0.2.0
-- bk_fold(id, seed, k): the row's part of a seeded split into k parts,
-- 0 .. k - 1, each about 1/k of the rows: WHERE bk_fold(id, 7, 10) < 7 is
-- a 70/30 split.  (bk_shuffle_key is signed, so bk_shuffle_key(id, 7) %
-- 10 < 7 also takes every negative remainder: 85 % of the rows.)
CREATE FUNCTION @extschema@.bk_fold(id int8, seed int8, k int4)
	RETURNS int4
	AS 'MODULE_PATHNAME', 'bk_fold'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_fold(int8, int8, int4) IS
	'the part of a seeded split into k parts (0 .. k - 1, each about 1/k of the rows) a row id falls in: WHERE bk_fold(id, 7, 10) < 7 is a 70/30 split';
