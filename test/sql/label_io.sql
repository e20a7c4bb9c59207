-- bk_label's text and binary forms (0.4.0): a number says its type
-- ('5::int8', '0.1::float8', '2.5::numeric'), a text label is itself,
-- with '::text' appended when it would read back as a number or ends in
-- '::text'.  Every value reads back as itself (the kind and the bits,
-- compared by the binary form) through its text form and through COPY's
-- binary form; a string that is not a number of its type (beyond int8,
-- beyond float8) is a text label, never an error, so that printing any
-- label works.  The order: numbers by value, then text by bytes.
SET extra_float_digits = 1;
CREATE TABLE lio (id int, l bk_label);
INSERT INTO lio VALUES
	(1, 5::int2), (2, (-9223372036854775808)::int8), (3, 0.1::float8), (4, 'NaN'::float8),
	(5, '-Infinity'::float8), (6, 2.5::numeric), (7, 'abc'::text), (8, '5::int8'::text),
	(9, 'x::text'::text), (10, 'ab  '::char(4)), (11, ''::text), (12, '4.9e-324'::float8),
	(13, 1.5::float4), (14, '99999999999999999999::int8'), (15, '1e999::float8'),
	(16, '-7::int8'), (17, ' 7::int8'), (18, '7::int8::text');
SELECT id, l::text AS text_form,
       _bk_label_send(_bk_label_in(l::text::cstring)) = _bk_label_send(l) AS reads_back
FROM lio ORDER BY id;
\copy lio TO 'results/label_io.bin' WITH (FORMAT binary)
CREATE TABLE lio_bin (LIKE lio);
\copy lio_bin FROM 'results/label_io.bin' WITH (FORMAT binary)
SELECT count(*) AS rows, bool_and(_bk_label_send(b.l) = _bk_label_send(o.l)) AS same
FROM lio_bin b JOIN lio o USING (id);
SELECT array_agg(id ORDER BY l, id) AS in_order FROM lio;
