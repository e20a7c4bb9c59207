-- Embeddings kept in pgvector columns: a vector casts to real[], which
-- reaches bk_train's bk_features by an implicit cast (read as float8
-- values), and a sparsevec's text is a bk_sparse's.  Runs where pgvector (Debian's
-- postgresql-15-pgvector, or a build from source) is installed; skipped
-- elsewhere.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS budgetkernel;
SELECT plan(4);
SET client_min_messages = error;

CREATE FUNCTION pg_temp.embedding_tests() RETURNS SETOF text LANGUAGE plpgsql AS $fn$
DECLARE
	same boolean;
	acc float8;
	sp text;
	same_sparse boolean;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
		RETURN NEXT skip('pgvector is not installed', 4);
		RETURN;
	END IF;
	CREATE EXTENSION IF NOT EXISTS vector;
	-- three-dimensional embeddings of 400 rows and a class they determine
	EXECUTE $q$
		CREATE TEMP TABLE emb AS
		SELECT i AS id,
		       ('[' || sin(i) || ',' || cos(i * 1.3) || ',' || sin(i * 0.7) || ']')::vector AS e,
		       ('{1:' || sin(i) || ',3:' || sin(i * 0.7) || '}/3')::sparsevec AS s,
		       (sin(i) * cos(i * 1.3) > 0)::int AS label
		FROM generate_series(1, 400) i$q$;
	EXECUTE $q$SELECT bk_train(e::real[], label, '{"budget": 40}' ORDER BY id)
	              = bk_train(e::real[]::float8[], label, '{"budget": 40}' ORDER BY id) FROM emb$q$ INTO same;
	RETURN NEXT ok(same, 'a vector column trains through its real[] cast as the same values as float8[]');
	EXECUTE $q$SELECT avg((bk_predict(m, e::real[]) = label)::int)
	           FROM emb, (SELECT bk_train(e::real[], label, '{"budget": 40, "gamma": 2}' ORDER BY id) AS m
	                      FROM emb WHERE id <= 300) t
	           WHERE id > 300$q$ INTO acc;
	RETURN NEXT cmp_ok(acc, '>', 0.85::float8, 'and scores held-out vectors (accuracy ' || round(acc::numeric, 3) || ')');
	EXECUTE $q$SELECT '{1:0.5,3:1}/5'::sparsevec::text::bk_sparse::text$q$ INTO sp;
	RETURN NEXT is(sp, '{1:0.5,3:1}/5', 'a sparsevec''s text is a bk_sparse''s');
	-- real values: the same model up to the rounding of the dot products' order
	EXECUTE $q$SELECT max(abs(bk_decision(ms, s::text::bk_sparse) - bk_decision(md, bk_dense(s::text::bk_sparse)))) < 1e-9
	           FROM emb,
	                (SELECT bk_train(s::text::bk_sparse, label, '{"budget": 40}' ORDER BY id) AS ms,
	                        bk_train(bk_dense(s::text::bk_sparse), label, '{"budget": 40}' ORDER BY id) AS md
	                 FROM emb) t$q$
		INTO same_sparse;
	RETURN NEXT ok(same_sparse, 'a sparsevec column trains through bk_sparse as its dense values do');
END
$fn$;
SELECT * FROM pg_temp.embedding_tests();

SELECT * FROM finish();
ROLLBACK;
