/*
 * sbf_io.c
 *	  Input and output of the scalablebloom type: the text form
 *	  ("sbf1:" followed by base64 of the payload), the binary form (the raw
 *	  payload), and the cast from bytea.  Everything that enters passes the
 *	  one validator before it becomes a scalablebloom.
 *
 * A scalablebloom is a varlena whose data is the payload, exactly like a
 * bytea holding that payload; the casts differ only in validation.  (The
 * cast to bytea cannot be WITHOUT FUNCTION: the alignments differ.)
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "utils/memutils.h"

#include "sbf.h"
#include "sbf_errors.h"

PG_FUNCTION_INFO_V1(sbf_in);
PG_FUNCTION_INFO_V1(sbf_out);
PG_FUNCTION_INFO_V1(sbf_recv);
PG_FUNCTION_INFO_V1(sbf_send);
PG_FUNCTION_INFO_V1(sbf_from_bytea);
PG_FUNCTION_INFO_V1(sbf_to_bytea);

/* Text input: "sbf1:" + base64, decoded and validated. */
Datum
sbf_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	size_t		len = strlen(str);
	size_t		maxlen;
	size_t		plen;
	ScalableBloom *result;
	SbfView		v;

	if (len < SBF_TEXT_PREFIX_LEN ||
		memcmp(str, SBF_TEXT_PREFIX, SBF_TEXT_PREFIX_LEN) != 0)
		sbf_report_text_syntax("scalablebloom", "A scalablebloom",
							   SBF_TEXT_PREFIX, false);

	/* the text form of an SBF_MAX_BYTES payload has SBF_MAX_TEXT_CHARS at most */
	if (len > SBF_MAX_TEXT_CHARS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("scalablebloom value is too large"),
				 errdetail("The text has %zu characters; the text form of a scalablebloom value is limited to %zu.",
						   len, (size_t) SBF_MAX_TEXT_CHARS),
				 errhint("Rebuild the filter with a larger error_rate, or split its elements over several filters.")));
	maxlen = sbf_text_decoded_max(len);

	result = (ScalableBloom *) palloc(VARHDRSZ + maxlen);
	if (!sbf_text_decode(str, len, result->data, &plen))
		sbf_report_text_syntax("scalablebloom", "A scalablebloom",
							   SBF_TEXT_PREFIX, true);

	sbf_check_payload_code(result->data, plen, &v,
						   ERRCODE_INVALID_TEXT_REPRESENTATION);
	SET_VARSIZE(result, VARHDRSZ + plen);
	PG_RETURN_SCALABLEBLOOM_P(result);
}

/* Text output: "sbf1:" + base64 of the payload. */
Datum
sbf_out(PG_FUNCTION_ARGS)
{
	ScalableBloom *f = PG_GETARG_SCALABLEBLOOM_P(0);
	size_t		plen = SBF_PAYLOAD_LEN(f);
	size_t		tlen = sbf_text_size(plen);
	char	   *out;

	/*
	 * base64 grows by 4/3: a payload near 1 GB has no text form.  Only values
	 * stored by sbf 1.0 above SBF_MAX_BYTES can be that long (LIMITS in
	 * sbf_core.h); they stay readable in binary and as bytea.
	 */
	if (tlen >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("scalablebloom value is too large for its text form"),
				 errdetail("The value has %zu bytes; its text form would exceed 1 GB.",
						   plen),
				 errhint("Use the binary format or a cast to bytea.")));

	out = palloc(tlen + 1);
	sbf_text_encode(SBF_PAYLOAD_PTR(f), plen, out);
	out[tlen] = '\0';
	PG_RETURN_CSTRING(out);
}

/* Binary input: the raw payload, validated, consuming the whole message. */
Datum
sbf_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			nbytes = buf->len - buf->cursor;
	const char *bytes;
	ScalableBloom *result;
	SbfView		v;

	bytes = pq_getmsgbytes(buf, nbytes);
	sbf_check_payload((const uint8 *) bytes, (size_t) nbytes, &v);

	/* validated, so nbytes <= SBF_MAX_BYTES and the varlena fits */
	result = (ScalableBloom *) palloc(VARHDRSZ + nbytes);
	memcpy(result->data, bytes, nbytes);
	SET_VARSIZE(result, VARHDRSZ + nbytes);
	PG_RETURN_SCALABLEBLOOM_P(result);
}

/* Binary output: the raw payload. */
Datum
sbf_send(PG_FUNCTION_ARGS)
{
	ScalableBloom *f = PG_GETARG_SCALABLEBLOOM_P(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) SBF_PAYLOAD_PTR(f), SBF_PAYLOAD_LEN(f));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/*
 * Cast bytea -> scalablebloom.  The representations are identical, so a
 * valid value is returned as it is; nothing is copied.
 */
Datum
sbf_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	SbfView		v;

	sbf_check_payload((const uint8 *) VARDATA(b), VARSIZE(b) - VARHDRSZ, &v);
	PG_RETURN_POINTER(b);
}

/* Cast scalablebloom -> bytea: the payload bytes, returned as they are. */
Datum
sbf_to_bytea(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(PG_GETARG_SCALABLEBLOOM_P(0));
}
