--
-- bk_libsvm(line, dim): a line of LIBSVM / svmlight text as its label and
-- dense features; a malformed line is an error naming its problem.
--
SELECT * FROM bk_libsvm('+1 1:0.5 3:-2', 4);
SELECT * FROM bk_libsvm(E'-1\t2:1e-3   4:7 # a comment', 4);
SELECT * FROM bk_libsvm('3', 2);                      -- no features: all 0
SELECT * FROM bk_libsvm('2.0 1:1', 1);                 -- an integral label
SELECT * FROM bk_libsvm(E'  0 1:1\r', 1);             -- blanks and CR around
SELECT bk_libsvm(NULL, 2) IS NULL AS strict;

-- a file, through \copy and LATERAL: the rows of the shared checkerboard
CREATE TEMP TABLE lraw (id bigserial, line text);
\copy lraw(line) FROM '../shared/data/checkerboard.train'
SELECT count(*) AS rows, count(DISTINCT r.label) AS classes,
       min(array_length(r.features, 1)) AS dim,
       bool_and(r.features[1] BETWEEN 0 AND 1 AND r.features[2] BETWEEN 0 AND 1) AS in_unit_square
FROM lraw, LATERAL bk_libsvm(line, 2) AS r;

-- malformed lines
SELECT * FROM bk_libsvm('', 2);
SELECT * FROM bk_libsvm('   # only a comment', 2);
SELECT * FROM bk_libsvm('cat 1:1', 2);
SELECT * FROM bk_libsvm('1.5 1:1', 2);
-- an integer a double does not hold (2^53 + 1): out of range, not "not an integer"
SELECT * FROM bk_libsvm('9007199254740993 1:1', 2);
SELECT * FROM bk_libsvm('1e400 1:1', 2);
SELECT * FROM bk_libsvm('1 1:1 3:1', 2);
SELECT * FROM bk_libsvm('1 0:1', 2);
SELECT * FROM bk_libsvm('1 2:1 1:1', 2);
SELECT * FROM bk_libsvm('1 1:1 1:2', 2);
SELECT * FROM bk_libsvm('1 1:abc', 2);
SELECT * FROM bk_libsvm('1 1:NaN', 2);
SELECT * FROM bk_libsvm('1 1:1e999', 2);
SELECT * FROM bk_libsvm('1 1=1', 2);
SELECT * FROM bk_libsvm('1 qid:3 1:1', 2);
SELECT * FROM bk_libsvm('1 1:1', 0);
