/*
 * The fast path for line-based input (N-Triples, N-Quads): most lines of a
 * real dump are already exactly the canonical N-Quads line lodwash would
 * write for them (common/nquads.h). Such a line can go to the sort as it is,
 * without a parser; every other line (blank nodes, escapes, comments, extra
 * whitespace, upper-case language tags, xsd:string, anything doubtful or
 * wrong) goes to the real reader, which decides, reports and rewrites it.
 *
 * A line passes only when all of this holds, so that reading it with
 * lw_rdf_read and writing it with lw_nquads_append would give the same bytes:
 *   - terms separated by exactly one space, then " ." and nothing else;
 *   - subject, predicate (and graph, N-Quads only) IRIs: "<" scheme ":" ...
 *     ">" (absolute per RFC 3986), no byte IRIREF forbids, no '\', no DEL;
 *   - object: such an IRI, or a literal without '\' and without control
 *     characters or DEL, followed by nothing, by "@" and a lower-case
 *     language tag ([a-z]+ ("-" [a-z0-9]+)*), or by "^^" and an IRI other
 *     than xsd:string;
 *   - valid UTF-8 throughout.
 */
#ifndef LW_NT_FAST_H
#define LW_NT_FAST_H

#include <stdbool.h>
#include <stddef.h>

/* The object literal of a line that passed, for the literal checks. */
typedef struct {
  bool is_literal;
  const char *lexical;  /* the lexical form (no escapes in a passing line) */
  size_t lexical_len;
  const char *datatype; /* datatype IRI without < >, or NULL */
  size_t datatype_len;
  const char *lang;     /* language tag without '@', or NULL */
  size_t lang_len;
} LwNtFastObject;

/* True when line[0..len) (without its newline) is a canonical statement as
 * described above; quads allows a graph IRI. object is filled when true. */
bool lw_nt_fast_check(const char *line, size_t len, bool quads,
                      LwNtFastObject *object);

#endif
