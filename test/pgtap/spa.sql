-- Sparse PA (paper 002) on a9a: a9a.train (shuffled by a seeded hash) ->
-- a9a.test, alpha 1, beta 20, eta 0.1, gamma 0.05.  Paper 002 Table 3:
-- SPA with averaged output 84.88 %.  The averaged classifier is more
-- accurate than the last one and keeps the same support vectors.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS budgetkernel;
SELECT plan(4);

CREATE TEMP TABLE raw (id bigserial, line text);
\copy raw(line) FROM '../shared/data/a9a.train'
CREATE TEMP TABLE train AS SELECT id, (bk_libsvm(line, 123)).label AS label, (bk_libsvm(line, 123)).features AS features FROM raw;
TRUNCATE raw;
\copy raw(line) FROM '../shared/data/a9a.test'
CREATE TEMP TABLE test AS SELECT (bk_libsvm(line, 123)).label AS label, (bk_libsvm(line, 123)).features AS features FROM raw;

CREATE TEMP TABLE models AS
SELECT o AS output,
       (SELECT bk_train(features, label, jsonb_build_object('algorithm', 'spa', 'alpha', 1, 'beta', 20, 'eta', 0.1,
                                                            'gamma', 0.05, 'output', o, 'seed', 1) ORDER BY md5('1:' || id))
        FROM train) AS m
FROM unnest(ARRAY['average', 'last']) o;
CREATE TEMP TABLE acc AS
SELECT output, avg((bk_predict(m, t.features) = t.label)::int) AS acc FROM models, test t GROUP BY output;

SELECT cmp_ok(acc, '>=', 0.84, 'SPA averaged output on a9a.test (paper 002: 84.88 %)') FROM acc WHERE output = 'average';
SELECT ok((SELECT acc FROM acc WHERE output = 'average') > (SELECT acc FROM acc WHERE output = 'last'),
          'the averaged classifier beats the last one');
SELECT is((SELECT bk_info(m)->>'n_sv' FROM models WHERE output = 'average'),
          (SELECT bk_info(m)->>'n_sv' FROM models WHERE output = 'last'), 'both outputs hold the same SVs');
SELECT cmp_ok((SELECT (bk_info(m)->>'n_sv')::numeric / 32561 FROM models WHERE output = 'average'), '<', 0.05::numeric,
              'sparse: under alpha/beta = 5 % of the rows become SVs');

SELECT * FROM finish();
ROLLBACK;
