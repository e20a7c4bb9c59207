-- The budget perceptrons of paper 003 on USPS digit 0 against the rest
-- (usps.train -> usps.test), clean and with 10 % of the training labels
-- flipped (a seeded hash of the row id), B = p = 100, margin 0, one pass,
-- RBF width from paper 003 Table 1 (sigma 128 for features in [-1, 1],
-- read as exp(-||x - x'||^2 / sigma): gamma 4/128 on our [0, 1] features).
-- Paper 003 Fig. 9-10: the Tighter Budget Perceptron stays accurate under
-- label noise, the Budget Perceptron does not.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS budgetkernel;
SELECT plan(6);

CREATE TEMP TABLE raw (id bigserial, line text);
\copy raw(line) FROM '../shared/data/usps.train'
CREATE TEMP TABLE train AS
SELECT id, (bk_libsvm(line, 256)).features AS features,
       CASE WHEN (bk_libsvm(line, 256)).label = 0 THEN 1 ELSE -1 END::int8 AS clean
FROM raw;
ALTER TABLE train ADD COLUMN noisy int8;
UPDATE train SET noisy = CASE WHEN ('x' || substr(md5('flip:' || id), 1, 8))::bit(32)::int % 10 = 0
                              THEN -clean ELSE clean END;
TRUNCATE raw;
\copy raw(line) FROM '../shared/data/usps.test'
CREATE TEMP TABLE test AS
SELECT (bk_libsvm(line, 256)).features AS features,
       CASE WHEN (bk_libsvm(line, 256)).label = 0 THEN 1 ELSE -1 END::int8 AS y
FROM raw;

CREATE TEMP TABLE err AS
SELECT name, lab, 1 - (SELECT avg((bk_predict(m, features) = y)::int) FROM test) AS error
FROM (SELECT name, lab,
             CASE lab WHEN 'noisy' THEN (SELECT bk_train(features, noisy, params ORDER BY id) FROM train)
                      ELSE (SELECT bk_train(features, clean, params ORDER BY id) FROM train) END AS m
      FROM (VALUES ('budget', '{"algorithm": "budget_perceptron", "budget": 100, "gamma": 0.03125}'::jsonb),
                   ('tighter all', '{"algorithm": "tighter_budget_perceptron", "eval_set": "all", "eval_size": 8000, "budget": 100, "gamma": 0.03125}'),
                   ('tighter flip', '{"algorithm": "tighter_budget_perceptron", "eval_set": "flip", "eval_size": 500, "budget": 100, "gamma": 0.03125}')) c(name, params),
           unnest(ARRAY['clean', 'noisy']) lab) s;

SELECT cmp_ok(error, '<', 0.02::numeric, name || ', clean labels: under 2 % test error')
FROM err WHERE lab = 'clean' AND name IN ('budget', 'tighter all') ORDER BY name;
SELECT ok((SELECT error FROM err WHERE name = 'tighter all' AND lab = 'noisy')
          < (SELECT error FROM err WHERE name = 'budget' AND lab = 'noisy'),
          '10 % label noise: the tighter budget perceptron errs less than the budget perceptron (paper 003 Fig. 10)');
SELECT cmp_ok(error, '<', 0.07::numeric, 'tighter (all rows), noisy labels: under 7 % test error')
FROM err WHERE name = 'tighter all' AND lab = 'noisy';
SELECT cmp_ok(error, '<', 0.13::numeric, 'tighter (flip cache of 500), noisy labels: under 13 % test error')
FROM err WHERE name = 'tighter flip' AND lab = 'noisy';
SELECT cmp_ok(error, '>', 0.15::numeric, 'the budget perceptron degrades under label noise, as paper 003 reports')
FROM err WHERE name = 'budget' AND lab = 'noisy';

SELECT * FROM finish();
ROLLBACK;
