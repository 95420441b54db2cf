/*
 * The canonical N-Quads serializer: one statement per line, in the canonical
 * form of RDF N-Triples (RDF 1.2 §canonical N-Triples), so that two equal
 * statements always give the same bytes and a bytewise sort + dedupe removes
 * duplicates:
 *
 *   - terms separated by one space, then " .\n"; no comments;
 *   - IRIs written raw, except the characters IRIREF forbids (controls,
 *     space, < > " { } | ^ ` \) as \u00XX;
 *   - literals written raw (UTF-8, never \u) except \b \t \n \f \r \" \\ as
 *     ECHAR and the other controls (U+0000..U+001F, U+007F) as \u00XX, HEX
 *     upper-case;
 *   - xsd:string datatypes left out, language tags lower-cased;
 *   - the graph label kept when the quad has one.
 *
 * Invalid UTF-8 (which the readers never hand on) is written as U+FFFD, so
 * the output is always valid UTF-8. A blank node label that is not a valid
 * N-Triples label is written as "lwx" + its bytes in hex.
 */
#ifndef LW_NQUADS_H
#define LW_NQUADS_H

#include "common/buf.h"
#include "common/rdf_term.h"
#include "common/status.h"

/* Appends one canonical N-Quads line for q, including the final "\n", to out.
 * LW_ERR_FORMAT when q is not an RDF statement (a literal subject, a
 * non-IRI predicate, a literal graph, a missing term); LW_ERR_NOMEM. On
 * error out is left as it was. */
LwStatus lw_nquads_append(LwBuf *out, const LwQuad *q);

/* Appends one term in its canonical N-Triples form (no spaces around it). */
LwStatus lw_nquads_append_term(LwBuf *out, const LwTerm *term);

#endif
