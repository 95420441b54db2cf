/*
 * Lexical validation of typed literals: is "lexical"^^<datatype> a valid
 * lexical form of its XSD datatype (XML Schema 1.1 Part 2)?
 *
 * The parse stage calls this for every typed literal and counts the ones
 * that fail (the statement itself is kept). It is a set of small
 * hand-written scanners: no allocation, no regex, no locale; the lexical
 * form is a byte string of length len (it may contain NUL and need not be
 * NUL-terminated).
 *
 * Checked datatypes (namespace http://www.w3.org/2001/XMLSchema#):
 *   integer and its subtypes with their value ranges: long, int, short,
 *   byte, nonNegativeInteger, positiveInteger, nonPositiveInteger,
 *   negativeInteger, unsignedLong, unsignedInt, unsignedShort,
 *   unsignedByte; decimal, double, float (INF, -INF, +INF, NaN, exponents);
 *   boolean; date, dateTime, dateTimeStamp (timezone required), time,
 *   gYear, gYearMonth, gMonth, gMonthDay, gDay (optional timezone, day
 *   within the month, 29 February only in leap years, years of more than
 *   four digits without leading zeros, negative years, 24:00:00 only
 *   exactly); duration, dayTimeDuration, yearMonthDuration; hexBinary,
 *   base64Binary (single spaces between groups only, as XSD's grammar);
 *   anyURI (no spaces, control characters or characters IRIs exclude);
 *   string, normalizedString, token, language, Name, NCName, NMTOKEN
 *   (ASCII-level rules, any non-ASCII UTF-8 allowed as a name character).
 *
 * Whitespace: XSD collapses leading and trailing whitespace for the
 * non-string types before it checks them; RDF 1.1 says the lexical form is
 * the string as written, so " 1"^^xsd:integer is NOT valid here (as in
 * RDF 1.1 test suites and most stores' D-entailment).
 *
 * Any other datatype (rdf:langString, rdf:HTML, user types) is reported
 * valid: we check only what we know.
 */
#ifndef LW_XSD_LITERAL_H
#define LW_XSD_LITERAL_H

#include <stdbool.h>
#include <stddef.h>

#define LW_XSD_NS "http://www.w3.org/2001/XMLSchema#"

/* True when lexical[0..len) is a valid lexical form for datatype_iri (a
 * full IRI, NUL-terminated), or when datatype_iri is NULL or not a
 * datatype we check. */
bool lw_literal_valid(const char *datatype_iri, const char *lexical,
                      size_t len);

/* True when lw_literal_valid checks datatype_iri (it is one of the XSD
 * datatypes listed above). */
bool lw_literal_datatype_checked(const char *datatype_iri);

#endif
