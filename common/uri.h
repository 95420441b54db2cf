/*
 * URIs per RFC 3986: splitting, normalization (§6.2.2) for seed hashes, and
 * reference resolution (§5.2). lodwash resolves IRIs itself rather than
 * trusting the parsers, which get some edge cases wrong.
 *
 * All functions work on UTF-8 IRIs too: non-ASCII bytes pass through.
 */
#ifndef LW_URI_H
#define LW_URI_H

#include <stdbool.h>
#include <stddef.h>

#include "common/hash.h"

/* The five components of a URI reference. A component that is absent has
 * ptr NULL (an empty but present one, such as "http://h?" query, has len 0). */
typedef struct {
  const char *ptr;
  size_t len;
} LwSlice;

typedef struct {
  LwSlice scheme;    /* without ":" */
  LwSlice authority; /* without "//" */
  LwSlice path;      /* always present, may be empty */
  LwSlice query;     /* without "?" */
  LwSlice fragment;  /* without "#" */
} LwUriParts;

/* Splits uri (NUL-terminated) into its components (RFC 3986 appendix B). */
void lw_uri_split(const char *uri, LwUriParts *parts);

/* True if uri starts with a scheme ("http:", "urn:", ...). */
bool lw_uri_is_absolute(const char *uri);

/* Normalizes per RFC 3986 §6.2.2: scheme and host lower-cased,
 * percent-encoding hex digits upper-cased, percent-encoded unreserved
 * characters decoded, dot segments removed; nothing more (no default-port or
 * empty-path rewriting). Returns a new string the caller frees, or NULL when
 * out of memory. */
char *lw_uri_normalize(const char *uri);

/* The seed hash of uri: MD5 (hex) of its normalization. */
void lw_uri_hash(const char *uri, char out[LW_HASH_HEX_LEN + 1]);

/* Resolves reference ref against base (RFC 3986 §5.2, strict). Returns a new
 * string the caller frees; NULL when base is not absolute and ref is
 * relative, or when out of memory. */
char *lw_uri_resolve(const char *base, const char *ref);

/* Removes dot segments from a path (RFC 3986 §5.2.4). Returns a new string
 * the caller frees, or NULL when out of memory. */
char *lw_uri_remove_dot_segments(const char *path, size_t len);

#endif
