/*
 * Language tags: is a tag well-formed per BCP 47 (RFC 5646, section 2.1)?
 *
 *   langtag   = language ["-" script] ["-" region] *("-" variant)
 *               *("-" extension) ["-" privateuse]
 *   language  = 2*3ALPHA ["-" extlang] / 4ALPHA / 5*8ALPHA
 *   extlang   = 3ALPHA *2("-" 3ALPHA)
 *   script    = 4ALPHA
 *   region    = 2ALPHA / 3DIGIT
 *   variant   = 5*8alphanum / (DIGIT 3alphanum)
 *   extension = singleton 1*("-" (2*8alphanum))   (singleton not x/X)
 *   privateuse = "x" 1*("-" (1*8alphanum))
 *   grandfathered = irregular / regular (the 26 tags of RFC 5646)
 *
 * Well-formed, not valid: the subtags are not looked up in the IANA
 * registry, but a repeated singleton is refused (RFC 5646 2.2.6; a
 * repeated variant is only caught by validity checking and accepted).
 * Case-insensitive. The empty string and any character outside
 * [A-Za-z0-9-] are refused. Fast, no allocation.
 */
#ifndef LW_LANGTAG_H
#define LW_LANGTAG_H

#include <stdbool.h>
#include <stddef.h>

/* True when the NUL-terminated tag is a well-formed BCP 47 language tag
 * (false for NULL). */
bool lw_langtag_valid(const char *tag);

/* The same for a tag of len bytes, not necessarily NUL-terminated. */
bool lw_langtag_valid_n(const char *tag, size_t len);

#endif
