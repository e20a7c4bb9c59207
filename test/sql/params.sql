--
-- Parameters: unknown keys, wrong types, out-of-range values and options
-- that do not apply are errors naming the key and what is allowed.
--
SET client_min_messages = warning;
\set SHOW_CONTEXT never

CREATE FUNCTION try_params(p jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT bk_info(bk_train(ARRAY[x, 1 - x]::float8[], (x > 0.5)::int::int8, p))->'params'
	FROM (VALUES (0.1::float8), (0.9), (0.3), (0.7)) v(x)
$$;

-- defaults are filled in and shown
SELECT try_params('{}');
SELECT try_params('{"algorithm": "pa"}');
SELECT try_params('{"algorithm": "perceptron", "kernel": "poly"}');
SELECT try_params('{"algorithm": "bpa", "variant": "p", "loss": "ramp", "kernel": "linear", "budget": 3, "C": 0.5, "seed": 42}');

-- typos and unknown keys
SELECT try_params('{"budgte": 100}');
SELECT try_params('{"c": 1}');
SELECT try_params('{"algorithm": "svm"}');
SELECT try_params('{"kernel": "gaussian"}');
SELECT try_params('{"variant": "NN"}');
SELECT try_params('{"loss": "squared"}');

-- wrong types
SELECT try_params('{"budget": "100"}');
SELECT try_params('{"gamma": true}');
SELECT try_params('{"C": null}');
SELECT try_params('{"algorithm": 3}');
SELECT try_params('{"degree": [3]}');
SELECT try_params('[1, 2]');
SELECT try_params('"bpa"');

-- out of range
SELECT try_params('{"budget": 0}');
SELECT try_params('{"budget": 10.5}');
SELECT try_params('{"budget": 1e300}');
SELECT try_params('{"gamma": 0}');
SELECT try_params('{"gamma": -1}');
SELECT try_params('{"C": 0}');
SELECT try_params('{"kernel": "poly", "degree": 0}');
SELECT try_params('{"kernel": "poly", "coef0": -1}');
SELECT try_params('{"seed": -1}');
SELECT try_params('{"algorithm": "pa", "max_sv": 0}');

-- options that do not apply to the algorithm or kernel
SELECT try_params('{"algorithm": "pa", "variant": "nn"}');
SELECT try_params('{"algorithm": "pa", "budget": 100}');
SELECT try_params('{"algorithm": "perceptron", "C": 1}');
SELECT try_params('{"algorithm": "perceptron", "loss": "ramp"}');
SELECT try_params('{"algorithm": "bpa", "max_sv": 100}');
SELECT try_params('{"kernel": "linear", "gamma": 1}');
SELECT try_params('{"kernel": "rbf", "degree": 2}');

-- the budget perceptron: C only with the no-bias SVM rule, whose margin defaults to 1
SELECT try_params('{"algorithm": "budget_perceptron"}');
SELECT try_params('{"algorithm": "budget_perceptron", "update": "nobias_svm"}');
SELECT try_params('{"algorithm": "budget_perceptron", "C": 1}');
SELECT try_params('{"algorithm": "budget_perceptron", "update": "adagrad"}');
SELECT try_params('{"algorithm": "budget_perceptron", "margin": -1}');

-- the tighter budget perceptron: an evaluation set, with a size unless it is the SVs
SELECT try_params('{"algorithm": "tighter_budget_perceptron"}');
SELECT try_params('{"algorithm": "tighter_budget_perceptron", "eval_set": "svs"}');
SELECT try_params('{"algorithm": "tighter_budget_perceptron", "eval_set": "svs", "eval_size": 10}');
SELECT try_params('{"algorithm": "budget_perceptron", "eval_set": "flip"}');
SELECT try_params('{"algorithm": "tighter_budget_perceptron", "eval_set": "validation"}');
SELECT try_params('{"algorithm": "tighter_budget_perceptron", "eval_size": 0}');

-- SPA and OGD
SELECT try_params('{"algorithm": "spa"}');
SELECT try_params('{"algorithm": "spa", "alpha": 2, "beta": 1}');
SELECT try_params('{"algorithm": "spa", "output": "median"}');
SELECT try_params('{"algorithm": "ogd"}');
SELECT try_params('{"algorithm": "ogd", "alpha": 1}');
-- DUOL / BDUOL (paper 001): C, rho in [0, 1), BDUOL's own maintenance strategies
SELECT try_params('{"algorithm": "duol"}');
SELECT try_params('{"algorithm": "bduol"}');
SELECT try_params('{"algorithm": "bduol", "maintenance": "projection", "rho": 0.5, "C": 4}');
SELECT try_params('{"algorithm": "bduol", "rho": 1}');
SELECT try_params('{"algorithm": "bduol", "rho": -0.1}');
SELECT try_params('{"algorithm": "bduol", "maintenance": "merge"}');
SELECT try_params('{"algorithm": "pegasos", "maintenance": "nearest"}');
SELECT try_params('{"algorithm": "duol", "budget": 10}');
SELECT try_params('{"algorithm": "duol", "maintenance": "removal"}');
-- BOGD: eta, lambda, max_coef
SELECT try_params('{"algorithm": "bogd"}');
SELECT try_params('{"algorithm": "bogd", "max_coef": 0}');
SELECT try_params('{"algorithm": "bogd", "C": 1}');
-- Forgetron and the Projectrons: eta only for projectron_pp
SELECT try_params('{"algorithm": "forgetron"}');
SELECT try_params('{"algorithm": "projectron"}');
SELECT try_params('{"algorithm": "projectron_pp"}');
SELECT try_params('{"algorithm": "forgetron", "eta": 0.1}');
SELECT try_params('{"algorithm": "projectron", "eta": 0.1}');

DROP FUNCTION try_params(jsonb);

-- a key written twice: jsonb keeps the last value before bk_train sees the
-- document (documented beside the parameter rules)
SELECT bk_info(bk_train(ARRAY[1, 2]::float8[], 1::int8,
                        '{"algorithm": "pa", "C": 1, "C": 10}'))->'params'->'C' AS c;
