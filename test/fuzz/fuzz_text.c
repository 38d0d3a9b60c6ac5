/*
 * fuzz_text.c
 *	  libFuzzer target for the text form: strict decoding, then validation.
 *	  Whatever decodes must re-encode to exactly the input, since every
 *	  payload has a single text form.
 */
#include <string.h>

#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		max = sbf_text_decoded_max(size);
	uint8_t    *out = malloc(max + 1);
	size_t		len;
	SbfView		v;

	if (sbf_text_decode((const char *) data, size, out, &len))
	{
		char	   *text;

		FUZZ_ASSERT(len <= max);
		FUZZ_ASSERT(sbf_text_size(len) == size);
		text = malloc(size + 1);
		sbf_text_encode(out, len, text);
		FUZZ_ASSERT(memcmp(text, data, size) == 0);
		free(text);
		if (sbf_validate(out, len, &v) == SBF_OK && sbf_view_windowed(&v))
			fuzz_check_window(out, len);
		else if (sbf_validate(out, len, &v) == SBF_OK)
		{
			(void) sbf_contains_hash(&v, sbf_hash(data, size));
			FUZZ_ASSERT(sbf_cardinality(&v) >= 0.0);
		}
	}
	free(out);
	return 0;
}
