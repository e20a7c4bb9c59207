--
-- bk_fold(id, seed, k): a seeded split of row ids into k parts, 0 .. k - 1,
-- each about 1/k of the rows.  bk_shuffle_key is signed, so its remainder
-- runs from -(k - 1) to k - 1: "% 10 < 7" took 85 % of the rows, not 70.
--
SELECT min(f) AS lowest, max(f) AS highest, count(DISTINCT f) AS parts,
       min(n) >= 900 AND max(n) <= 1100 AS about_a_tenth_each
FROM (SELECT f, count(*) OVER (PARTITION BY f) AS n
      FROM (SELECT bk_fold(g, 7, 10) AS f FROM generate_series(1, 10000) g) s) t;
SELECT round(avg((bk_fold(g, 7, 10) < 7)::int), 2) AS bk_fold_70_30,
       round(avg((bk_shuffle_key(g, 7) % 10 < 7)::int), 2) AS signed_remainder
FROM generate_series(1, 10000) g;
-- for k a power of two, part 0 is the rows whose key leaves remainder 0
SELECT bool_and((bk_fold(g, 7, 4) = 0) = (bk_shuffle_key(g, 7) % 4 = 0)) AS same_quarter
FROM generate_series(1, 10000) g;
-- another seed, another split; one part; no part
SELECT count(*) FILTER (WHERE bk_fold(g, 7, 10) <> bk_fold(g, 8, 10)) > 8000 AS seeds_differ
FROM generate_series(1, 10000) g;
SELECT bk_fold(5, 7, 1) AS one_part;
SELECT bk_fold(5, 7, 0);
