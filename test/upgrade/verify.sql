--
-- test/upgrade/verify.sql - in a copy of test/upgrade/models.sql's database
-- (upgraded, or restored from a dump): one line per model that lost its
-- bytes or its decisions, or is no longer valid, then the count of
-- models checked.  test/pg_upgrade.sh fails on any such line.
--
\set ON_ERROR_STOP 1
SET max_parallel_workers_per_gather = 0;
SELECT 'MISMATCH' AS status, r.name,
       md5(m.model::bytea) = r.bytes_md5 AS same_bytes,
       d.decisions = r.decisions AS same_decisions,
       bk_is_valid(m.model::bytea) AS valid
FROM reference r
LEFT JOIN models m USING (name)
LEFT JOIN LATERAL (SELECT array_agg(scores::text ORDER BY id) AS decisions FROM scored(m.model, m.features)) d ON true
WHERE m.model IS NULL OR md5(m.model::bytea) IS DISTINCT FROM r.bytes_md5
   OR d.decisions IS DISTINCT FROM r.decisions OR NOT bk_is_valid(m.model::bytea);
SELECT 'checked ' || count(*) || ' models, extension ' ||
       (SELECT extversion FROM pg_extension WHERE extname = 'budgetkernel') AS status
FROM reference;
