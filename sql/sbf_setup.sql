-- sbf_setup: helpers shared by the regress files.  The Makefile runs this
-- file first; pg_regress gives each file its own session, so the helpers
-- live in schema sbf_regress (not pg_temp) and outlast it.

CREATE SCHEMA sbf_regress;

-- SQLSTATE, message, detail and hint of a statement ('00000' and 'no error'
-- when it succeeds): SELECT * FROM sbf_regress.try($$...$$)
CREATE FUNCTION sbf_regress.try(stmt text, OUT code text, OUT message text,
								OUT detail text, OUT hint text)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	code := '00000';
	message := 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
		detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END $$;

-- the helper reports a success and a failure as such
SELECT * FROM sbf_regress.try($$SELECT 1$$);
SELECT code, message FROM sbf_regress.try($$SELECT 1/0$$);
