--
-- Security and resource limits (doc/security.md): no input exhausts the
-- server's memory, nothing bk_train returns fails validation, no score
-- that overflowed becomes a class.  The crafted models come from
-- test/fixtures/bk_craft (well-formed bytes that no training produces but
-- anyone can send); the test cluster caps each process at 3 GB of address
-- space (test/check.sh), so an allocation beyond a model's stored size
-- fails here instead of swapping.
--
\set VERBOSITY terse
\set ECHO none
\set sparse `test/fixtures/bk_craft sparse-ovr 4096 128 1024`
\set wide `test/fixtures/bk_craft wide-budget 4096 8000 1024`
\set bigscale `test/fixtures/bk_craft pegasos-scale 2 1e300 3`
\set ECHO all
CREATE TEMP TABLE crafted AS
SELECT :'sparse'::bk_model AS sparse, :'wide'::bk_model AS wide,
       :'bigscale'::bk_model AS bigscale;

-- 1.3 MB: 4,096 one-vs-rest machines, one of them with 128 support vectors
-- of dimension 1,024.  Scoring gives each machine room for its own SVs
-- (4,096 x 128 x 1,024 doubles, 4.3 GB, if each had the largest one's).
SELECT octet_length(sparse::bytea) < 1500000 AS small,
       bk_info(sparse)->>'n_sv' AS n_sv,
       jsonb_array_length(bk_info(sparse)->'classes') AS classes
FROM crafted;
SELECT bk_predict(sparse, array_fill(0.5, ARRAY[1024])) AS predicted,
       array_length(bk_scores(sparse, array_fill(0.5, ARRAY[1024])), 1) AS scores
FROM crafted;
SELECT count(*) AS support_vectors FROM crafted, bk_support_vectors(sparse);

-- 295 kB: 4,096 classes and a stored budget of 8,000 at dimension 1,024.
-- Continuing to train it would need 4,096 x 8,000 x 1,024 doubles: every
-- machine is counted before anything is allocated (54000).
SELECT octet_length(wide::bytea) < 300000 AS small FROM crafted;
SELECT bk_continue(array_fill(0.5, ARRAY[1024])::float8[], 1::int8, wide) FROM crafted;
\echo :LAST_ERROR_SQLSTATE
-- scoring it is fine
SELECT bk_predict(wide, array_fill(0.5, ARRAY[1024])) IS NOT NULL AS scored FROM crafted;

-- 328 bytes: two classes, no support vector, dimension 2^24 (the largest).
-- Decoding it allocates nothing of the dimension's size and a sparse row
-- is scored without a dense copy, so 48 call sites in one query score
-- within the cluster's 3 GB (each decoded copy kept a 128 MB vector, and
-- each row was made dense: 6.4 GB).
\set ECHO none
\set widedim `test/fixtures/bk_craft wide-budget 2 1 16777216`
\set ECHO all
CREATE TEMP TABLE wide_dim AS SELECT :'widedim'::bk_model AS m;
SELECT octet_length(m::bytea) < 400 AS small, bk_is_valid(m::bytea) AS valid,
       bk_info(m)->>'dim' AS dim, bk_info(m)->>'n_sv' AS n_sv
FROM wide_dim;
SELECT 'SELECT ' || string_agg(format('bk_decision(m, %L::bk_sparse)', format('{%s:1}/16777216', k)), ' + ')
       || ' AS sum_of_48_decisions FROM wide_dim'
FROM generate_series(1, 48) k \gexec

-- A valid model whose first input counts 2^53 rows, the format's most:
-- merged with another, the count would pass it.  The merge checks before
-- it combines, and refuses with a data exception naming the input (22003),
-- not an internal error from the validation of its result.
\set ECHO none
\set prepcount `test/fixtures/bk_craft prep-count 2 0 2`
\set ECHO all
SELECT bk_merge(:'prepcount'::bk_model,
                (SELECT bk_train(ARRAY[g % 5, g * 3 % 5]::float8[], (g % 2)::int8,
                                 '{"algorithm": "bpa", "budget": 4, "scale": "standard", "classes": [0, 1]}')
                 FROM generate_series(1, 8) g));
\echo :LAST_ERROR_SQLSTATE

-- A model whose counters hold 2^64 - 1 rows (valid: only crafted bytes
-- get there): one more row does not fit, and bk_continue refuses it as
-- the merge does (54000), instead of wrapping the count or failing the
-- validation of its own result (XX000, until 0.4.0).
\set ECHO none
\set fullrows `test/fixtures/bk_craft full-rows 2 0 3`
\set ECHO all
SELECT bk_is_valid(:'fullrows'::bk_model::bytea) AS valid;
SELECT bk_continue(ARRAY[g, 1, 2]::float8[], (g % 2)::int8, :'fullrows'::bk_model)
FROM generate_series(1, 2) g;
\echo :LAST_ERROR_SQLSTATE
SELECT bk_continue(ARRAY[1, 1, 2]::float8[], 1::int8, :'fullrows'::bk_model);
\echo :LAST_ERROR_SQLSTATE

-- A base section (the model it was continued from) that counts updates
-- and mistakes but no row: 0.3.0 accepted it, and merging the model with
-- itself failed the validation of the result (XX000).  The validator now
-- checks a base's counts among themselves, as it checks the model's.
\set ECHO none
\set zerobase `test/fixtures/bk_craft zero-base 2 0 3`
\set ECHO all
SELECT bk_is_valid(decode(substr(:'zerobase', 3), 'hex')) AS valid;
SELECT bk_merge(:'zerobase'::bk_model, :'zerobase'::bk_model);
\echo :LAST_ERROR_SQLSTATE

-- A budget whose model could not be dumped: refused before any row is
-- learned (54000), with the limit in the message.
SELECT bk_train(array_fill(g::float8, ARRAY[100]), (g % 2)::int8,
                '{"budget": 1048576}')
FROM generate_series(1, 4) g;
\echo :LAST_ERROR_SQLSTATE
SELECT bk_train(array_fill(g::float8, ARRAY[100]), (g % 2)::int8,
                '{"budget": 300000}') IS NOT NULL AS trained
FROM generate_series(1, 4) g;

-- A feature whose square overflows (1e200, and 1e155 whose square is
-- beyond the largest double): an error naming the row, never a model that
-- fails validation (22003).
SELECT bk_train(CASE WHEN g = 150 THEN ARRAY[1e200, 0]::float8[]
                ELSE ARRAY[(g % 7) / 7.0, (g % 11) / 11.0]::float8[] END,
                (g % 2 * 2 - 1)::int8, '{}' ORDER BY g)
FROM generate_series(1, 300) g;
\echo :LAST_ERROR_SQLSTATE
SELECT bk_train(CASE WHEN g = 7 THEN ARRAY[1e155, 0]::float8[]
                ELSE ARRAY[(g % 7) / 7.0, (g % 11) / 11.0]::float8[] END,
                (g % 2 * 2 - 1)::int8, '{"algorithm": "pa"}' ORDER BY g)
FROM generate_series(1, 20) g;
-- 1e150 is within range: a valid model
SELECT bk_is_valid(bk_train(CASE WHEN g = 150 THEN ARRAY[1e150, 0]::float8[]
                ELSE ARRAY[(g % 7) / 7.0, (g % 11) / 11.0]::float8[] END,
                (g % 2 * 2 - 1)::int8, '{}' ORDER BY g)::bytea) AS valid
FROM generate_series(1, 300) g;
-- and scoring a row that is too large is an error, not a class
SELECT bk_predict(bk_train(ARRAY[(g % 7) / 7.0, (g % 11) / 11.0]::float8[],
                           (g % 2 * 2 - 1)::int8, '{}' ORDER BY g),
                  ARRAY[1e200, 0])
FROM generate_series(1, 30) g;
\echo :LAST_ERROR_SQLSTATE

-- Pegasos with a lambda whose steps 1/(lambda t) overflow: refused (22023)
SELECT bk_train(ARRAY[(g % 7) / 7.0, (g % 11) / 11.0]::float8[], (g % 2 * 2 - 1)::int8,
                '{"algorithm": "pegasos", "lambda": 1e-300}' ORDER BY g)
FROM generate_series(1, 300) g;
\echo :LAST_ERROR_SQLSTATE
SELECT bk_is_valid(bk_train(ARRAY[(g % 7) / 7.0, (g % 11) / 11.0]::float8[],
                   (g % 2 * 2 - 1)::int8,
                   '{"algorithm": "pegasos", "lambda": 1e-100}' ORDER BY g)::bytea) AS valid
FROM generate_series(1, 300) g;

-- Pegasos with the ball projection on features of 1e100, linear kernel:
-- ||w||^2 overflows, and that is an error naming the row (22003), never an
-- invalid model
SELECT bk_is_valid(bk_train(ARRAY[(g % 7) * 1e100, (g % 11) / 11.0]::float8[],
                   (g % 2 * 2 - 1)::int8,
                   '{"algorithm": "pegasos", "ball_projection": true, "kernel": "linear", "budget": 10}'
                   ORDER BY g)::bytea) AS valid
FROM generate_series(1, 300) g;

-- A polynomial kernel that overflows: an error at the first row, not a
-- model that scores NaN and still predicts a class
SELECT bk_train(ARRAY[g, g + 1]::float8[], (g % 2 * 2 - 1)::int8,
                '{"algorithm": "pa", "kernel": "poly", "degree": 100, "gamma": 1e10}' ORDER BY g)
FROM generate_series(1, 4) g;
\echo :LAST_ERROR_SQLSTATE

-- A crafted Pegasos model whose coefficient scale (1e300) keeps every
-- stored value finite: it loads and scores small rows, but a score that
-- overflows is an error (22003), never a class
SELECT bk_predict(bigscale, ARRAY[1e-3, 0, 0]) AS predicted FROM crafted;
SELECT bk_predict(bigscale, ARRAY[1e6, 1e6, 1e6]) FROM crafted;
\echo :LAST_ERROR_SQLSTATE
SELECT bk_predict_label(bigscale, ARRAY[1e6, 1e6, 1e6]) FROM crafted;
SELECT bk_decision(bigscale, ARRAY[1e6, 1e6, 1e6]) FROM crafted;
SELECT bk_scores(bigscale, ARRAY[1e6, 1e6, 1e6]) FROM crafted;

-- Models that version 0.1.0 stored with a non-finite value: they load
-- (so that a restore keeps them), bk_is_valid finds them, and using one
-- is an error (22003) that says what to do
\set ECHO none
\i test/fixtures/defective_models.sql
\set ECHO all
SELECT name, bytes::bk_model IS NOT NULL AS loads, bk_is_valid(bytes) AS valid
FROM bk_test.defective_models() ORDER BY name;
SELECT bk_predict(bytes::bk_model, ARRAY[0.5, 0.5])
FROM bk_test.defective_models() WHERE name = 'bpa_nn_huge_feature';
\echo :LAST_ERROR_SQLSTATE
SELECT bk_info(bytes::bk_model)
FROM bk_test.defective_models() WHERE name = 'pegasos_tiny_lambda';
SELECT bk_continue(ARRAY[0.5, 0.5]::float8[], 1::int8, bytes::bk_model)
FROM bk_test.defective_models() WHERE name = 'pegasos_tiny_lambda';
-- a broken checksum is still refused on input (22P03)
SELECT set_byte(bytes, 40, get_byte(bytes, 40) # 1)::bk_model IS NOT NULL
FROM bk_test.defective_models() WHERE name = 'bpa_nn_huge_feature';
\echo :LAST_ERROR_SQLSTATE
-- a model that fails at decoding leaves no cache behind
SELECT count(*) AS cached_contexts FROM pg_backend_memory_contexts
WHERE name = 'budgetkernel cached model';

-- The scoring cache: 48 models (of 150 SVs of dimension 40, about 50 kB
-- each decoded) scored in one join give the same answers with a cache of
-- 1 MB, too small for them (evicting as it goes), as with room for all,
-- and nothing stays allocated after the query.  Their labels alternate
-- with no relation to the features, so each run warns that its model is no
-- better than the majority class (shown above): not repeated 48 times here.
SET client_min_messages = error;
CREATE TEMP TABLE many AS
SELECT g, (SELECT bk_train(array_fill((i % 7)::float8, ARRAY[39]) || g::float8, (i % 2)::int8,
                           jsonb_build_object('budget', 150, 'gamma', 0.3) ORDER BY i)
           FROM generate_series(1, 300) i) AS m
FROM generate_series(1, 48) g;
RESET client_min_messages;
SELECT sum((bk_info(m)->>'n_sv')::int) > 48 * 100 AS large_enough FROM many;
CREATE TEMP TABLE many_rows AS
SELECT i, array_fill((i % 5)::float8, ARRAY[40]) AS x FROM generate_series(1, 100) i;
CREATE TEMP TABLE scored AS
SELECT g, i, bk_predict(m, x) AS p, bk_decision(m, x) AS d FROM many, many_rows;
SET budgetkernel.model_cache_size = '1MB';
SELECT count(*) AS rows, bool_and(s.p = bk_predict(m, x) AND s.d = bk_decision(m, x)) AS same
FROM many JOIN scored s USING (g) JOIN many_rows USING (i);
RESET budgetkernel.model_cache_size;
SELECT count(*) AS cached_contexts FROM pg_backend_memory_contexts
WHERE name = 'budgetkernel cached model';
-- below the 1 MB floor: refused (only the SQLSTATE is shown, since the
-- message's range reads "1024 .. 2147483647" on PostgreSQL 15 and with
-- units, "1024 kB .. 2147483647 kB", from 16 on)
\set saved_verbosity :VERBOSITY
\set VERBOSITY sqlstate
SET budgetkernel.model_cache_size = '100kB';
\set VERBOSITY :saved_verbosity
\echo :LAST_ERROR_SQLSTATE
DROP SCHEMA bk_test CASCADE;
