/*
 * Streaming RDF readers: one entry point for every serialization, calling an
 * LwQuadSink for each statement (see common/rdf_term.h).
 *
 * Readers are lax: a bad statement is reported through on_error with its
 * line and column, skipped, and reading goes on. They never crash or exhaust
 * memory on hostile input: nesting depth, term size and line size are capped,
 * XML external entities and entity expansion are off. Relative IRIs are
 * resolved against base_iri with lodwash's own RFC 3986 code.
 *
 * What the readers guarantee (docs/parse.md has the details):
 *   - every string handed on is valid UTF-8 (a statement with invalid UTF-8
 *     is skipped and reported); IRIs are absolute and hold none of the
 *     characters IRIREF forbids;
 *   - blank node labels are the document's, except that in Turtle / TriG a
 *     label "b<digit>..." comes out as "B<digit>..." and "B...B<digit>..."
 *     with one more 'B' (serd 0.30's renaming, made collision-free), and in
 *     RDF/XML an rdf:nodeID starting with 'g' gets another 'g'; labels the
 *     libraries generate never equal a document's label; skolemize with
 *     common/skolem.h;
 *   - an error has the line and column where the parser noticed it; 0 when
 *     unknown (a statement serd read but that we refuse, such as a relative
 *     IRI without a base, has no location in serd 0.30);
 *   - N-Triples / N-Quads: one bad line is one skipped statement; a line is
 *     at most 4 * max_term_bytes + 4 KiB;
 *   - RDF/XML and RDFa: max_depth also caps element nesting; a DTD may only
 *     declare plain internal entities (see common/xml_guard.h); an XML
 *     well-formedness error ends the document (LW_ERR_SYNTAX). RDFa is read
 *     by raptor's XML-based parser: XHTML and well-formed HTML only.
 */
#ifndef LW_RDF_READER_H
#define LW_RDF_READER_H

#include <stdio.h>

#include "common/rdf_format.h"
#include "common/rdf_term.h"
#include "common/status.h"

typedef struct {
  LwFormat format;
  const char *base_iri;        /* resolves relative IRIs; NULL: none */
  LwQuadSink on_quad;
  void *quad_handle;
  LwSyntaxErrorSink on_error;  /* may be NULL (errors are still counted) */
  void *error_handle;
  unsigned max_depth;          /* [ ( { nesting; 0: default (256) */
  size_t max_term_bytes;       /* one IRI, literal or tag; 0: default (16 MiB) */
  /* JSON-LD only: fetches remote contexts (an LwJsonldLoadFn, see
   * common/jsonld.h); NULL: a document naming a remote context fails. */
  LwStatus (*load_document)(void *handle, const char *url, char **body, size_t *len,
                            char **document_url, LwError *err);
  void *load_handle;
  /* When set, the reader writes there where each statement is before it
   * hands it to on_quad. */
  LwLocation *location;
} LwReadOptions;

/* Reads all of in (UTF-8) in options->format. Returns LW_OK when the input
 * was read to its end, even with skipped statements (counted in stats);
 * LW_ERR_LIMIT when a cap was hit, LW_ERR_SYNTAX when nothing past some point
 * could be read; whatever on_quad returned when it stopped the reader
 * (on_quad returning LW_NOTHING does not stop it). LW_ERR_FORMAT for
 * JSON-LD until the JSON-LD processor is linked in; LW_ERR_USAGE for a
 * missing sink, an unknown format or a relative base_iri. err gets the
 * message; stats (may be NULL) the counts, also on error. */
LwStatus lw_rdf_read(FILE *in, const LwReadOptions *options,
                     LwReadStats *stats, LwError *err);

#endif
