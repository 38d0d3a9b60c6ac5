/*
 * sbf_text.c
 *	  The text form of a filter: "sbf1:" followed by standard base64 (RFC 4648
 *	  section 4, with padding) of the payload.  Decoding is strict so that
 *	  every payload has exactly one text form: no whitespace, no characters
 *	  outside the alphabet, padding only at the end and only as needed, and
 *	  unused bits of the last character zero.
 */
#include "sbf_internal.h"

static const char b64_alphabet[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Value of a base64 character, or -1 when it is not in the alphabet. */
static inline int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Length of the text form of a payload, without the NUL. */
size_t
sbf_text_size(size_t payload_len)
{
	return SBF_TEXT_PREFIX_LEN + sbf_base64_size(payload_len);
}

/* Writes the text form of a payload and a terminating NUL into out. */
void
sbf_text_encode(const uint8_t *payload, size_t len, char *out)
{
	memcpy(out, SBF_TEXT_PREFIX, SBF_TEXT_PREFIX_LEN);
	sbf_base64_encode(payload, len, out + SBF_TEXT_PREFIX_LEN);
}

/* Characters of the padded base64 of len bytes, without the NUL. */
size_t
sbf_base64_size(size_t len)
{
	return (len / 3 + (len % 3 != 0)) * 4;
}

/* Writes the padded base64 of len bytes and a terminating NUL into out. */
void
sbf_base64_encode(const uint8_t *payload, size_t len, char *out)
{
	size_t		i;

	for (i = 0; i + 3 <= len; i += 3)
	{
		uint32_t	v = ((uint32_t) payload[i] << 16) |
			((uint32_t) payload[i + 1] << 8) | payload[i + 2];

		*out++ = b64_alphabet[(v >> 18) & 63];
		*out++ = b64_alphabet[(v >> 12) & 63];
		*out++ = b64_alphabet[(v >> 6) & 63];
		*out++ = b64_alphabet[v & 63];
	}
	if (len - i == 1)
	{
		uint32_t	v = (uint32_t) payload[i] << 16;

		*out++ = b64_alphabet[(v >> 18) & 63];
		*out++ = b64_alphabet[(v >> 12) & 63];
		*out++ = '=';
		*out++ = '=';
	}
	else if (len - i == 2)
	{
		uint32_t	v = ((uint32_t) payload[i] << 16) |
			((uint32_t) payload[i + 1] << 8);

		*out++ = b64_alphabet[(v >> 18) & 63];
		*out++ = b64_alphabet[(v >> 12) & 63];
		*out++ = b64_alphabet[(v >> 6) & 63];
		*out++ = '=';
	}
	*out = '\0';
}

/* Upper bound of the payload bytes a text of text_len characters decodes to. */
size_t
sbf_text_decoded_max(size_t text_len)
{
	if (text_len <= SBF_TEXT_PREFIX_LEN)
		return 0;
	return (text_len - SBF_TEXT_PREFIX_LEN) / 4 * 3;
}

/*
 * Decodes the text form into out; false on a missing prefix, a length that
 * is not a multiple of 4, characters outside the alphabet, misplaced or
 * superfluous padding, or nonzero unused bits.
 */
bool
sbf_text_decode(const char *text, size_t text_len, uint8_t *out, size_t *out_len)
{
	*out_len = 0;
	if (text_len < SBF_TEXT_PREFIX_LEN ||
		memcmp(text, SBF_TEXT_PREFIX, SBF_TEXT_PREFIX_LEN) != 0)
		return false;
	return sbf_base64_decode(text + SBF_TEXT_PREFIX_LEN,
							 text_len - SBF_TEXT_PREFIX_LEN, out, out_len);
}

/*
 * Decodes n characters of strict padded base64 into out (room for n / 4 * 3
 * bytes); false on a length that is not a multiple of 4, characters outside
 * the alphabet, misplaced or superfluous padding, or nonzero unused bits.
 */
bool
sbf_base64_decode(const char *text, size_t n, uint8_t *out, size_t *out_len)
{
	const unsigned char *s = (const unsigned char *) text;
	size_t		i;
	size_t		o = 0;

	*out_len = 0;
	if (n % 4 != 0)
		return false;

	for (i = 0; i < n; i += 4)
	{
		int			a = b64_value(s[i]);
		int			b = b64_value(s[i + 1]);
		int			c;
		int			d;
		bool		last = (i + 4 == n);

		if (a < 0 || b < 0)
			return false;
		if (last && s[i + 2] == '=' && s[i + 3] == '=')
		{
			if (b & 15)
				return false;
			out[o++] = (uint8_t) ((a << 2) | (b >> 4));
			break;
		}
		c = b64_value(s[i + 2]);
		if (c < 0)
			return false;
		if (last && s[i + 3] == '=')
		{
			if (c & 3)
				return false;
			out[o++] = (uint8_t) ((a << 2) | (b >> 4));
			out[o++] = (uint8_t) (((b & 15) << 4) | (c >> 2));
			break;
		}
		d = b64_value(s[i + 3]);
		if (d < 0)
			return false;
		out[o++] = (uint8_t) ((a << 2) | (b >> 4));
		out[o++] = (uint8_t) (((b & 15) << 4) | (c >> 2));
		out[o++] = (uint8_t) (((c & 3) << 6) | d);
	}
	*out_len = o;
	return true;
}
