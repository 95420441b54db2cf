/*
 * UTF-8 validation (RFC 3629): no overlong forms, no surrogates
 * (U+D800..U+DFFF), nothing above U+10FFFF. The readers check every string
 * the parsers hand them with it, because serd 0.30 writes invalid UTF-8 for
 * \u escapes of surrogates and out-of-range code points.
 */
#ifndef LW_UTF8_H
#define LW_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes the character at s (len bytes available). Returns its length in
 * bytes (1-4) and stores the code point in *cp, or returns 0 when the bytes
 * there are not a valid UTF-8 sequence (or are cut off by len). */
size_t lw_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);

/* Length of the longest valid UTF-8 prefix of s: len when all of s is valid. */
size_t lw_utf8_valid_prefix(const char *s, size_t len);

/* True when all len bytes of s are valid UTF-8. */
bool lw_utf8_valid(const char *s, size_t len);

/* Encodes code point cp (must be a Unicode scalar value) into out; returns
 * the number of bytes written (1-4), or 0 for a surrogate or cp > 0x10FFFF. */
size_t lw_utf8_encode(uint32_t cp, char out[4]);

#endif
