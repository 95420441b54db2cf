/*
 * Format guessing: which of the seven RDF serializations a file is, decided
 * from the first few KB of its content.
 *
 * The content decides; the media type and the file name are only hints,
 * used to break ties, because in the wild they are often wrong (Turtle
 * served as text/plain, N-Triples named .rdf, RDF/XML named .owl). A hint
 * is taken only when the content fits it (N-Triples content named .ttl is
 * Turtle); the media type's hint first, then the extension's. The
 * guess skips a UTF-8 BOM, whitespace and comments, then looks at the
 * syntax:
 *
 *   '<?xml', '<rdf:RDF', the RDF namespace     -> RDF/XML
 *   HTML (doctype, <html>, <head>, <body>, ...)
 *     with RDFa attributes (property=, typeof=, vocab=, about=, ...) -> RDFa
 *     without                                  -> unknown (not RDF)
 *   '{' or '['                                  -> JSON-LD
 *   statements of full IRIs, blank node labels and literals, one per line
 *     with a fourth term (graph label)          -> N-Quads
 *     without                                   -> N-Triples
 *   @prefix/@base/PREFIX/BASE, ';' ',' 'a', prefixed names, multi-line
 *   statements, '[' '(' ...                     -> Turtle
 *     with graph blocks ('{', GRAPH)            -> TriG
 *
 * The narrowest format that fits the head is returned: N-Triples content is
 * also valid Turtle, TriG and N-Quads, and Turtle content is valid TriG, so
 * a parser for a wider format reads the file as well. When the head was cut
 * (info->partial), a later part of the file may still need the wider format:
 * a parser may choose Turtle/TriG for guessed N-Triples to be safe.
 *
 * The head may end anywhere, in the middle of a token or of a UTF-8
 * sequence; nothing is read beyond len. Thread-safe, no allocation.
 */
#ifndef LW_GUESS_H
#define LW_GUESS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/rdf_format.h"

/* How many bytes of the content the guess wants to see: it works with
 * less, and looks at no more than LW_GUESS_HEAD_MAX. Reading
 * LW_GUESS_HEAD_MAX bytes when they are there costs little and helps HTML,
 * whose first RDFa attribute may come after a long <head>: when a guess
 * from a shorter head is LW_FORMAT_UNKNOWN with info->partial set, a
 * longer head may change it. */
#define LW_GUESS_HEAD_SIZE 16384
#define LW_GUESS_HEAD_MAX 65536

#define LW_GUESS_REASON_MAX 160

/* What the guess saw, for the seed record and for error messages. */
typedef struct {
  /* Why this format, or why not RDF: "@prefix directive", "graph block",
   * "fourth term before '.'", "looks like PDF", "HTML without RDFa
   * attributes", "binary content", "empty content", ... */
  char reason[LW_GUESS_REASON_MAX];
  bool bom;          /* a UTF-8 BOM was skipped */
  bool partial;      /* more of the file could change the decision: the head
                        is LW_GUESS_HEAD_SIZE or longer (so probably cut) or
                        ended inside the first statement, and the guess is
                        N-Triples, HTML without RDFa or XML without RDF */
  bool hint_used;    /* the content was ambiguous; a hint broke the tie */
  LwFormat hint;     /* the format the media type or extension suggests */
  size_t start;      /* offset of the first byte of content after the BOM,
                        whitespace and comments */
} LwGuessInfo;

/*
 * Guesses the serialization of content whose first len bytes are head.
 * media_type (a Content-Type value, parameters allowed) and filename (a
 * path or URI; only its extension is used, compression extensions such as
 * .gz are looked through) may be NULL. info may be NULL; when given it is
 * always filled. Returns LW_FORMAT_UNKNOWN for content that is not RDF
 * (HTML without RDFa, PDF, CSV, binary, empty), with the reason in info.
 */
LwFormat lw_guess_format(const char *head, size_t len, const char *media_type,
                         const char *filename, LwGuessInfo *info);

/* The format a media type names (text/turtle, application/n-triples,
 * application/rdf+xml, ...; parameters ignored, case-insensitive), or
 * LW_FORMAT_UNKNOWN for NULL, generic and unknown types. */
LwFormat lw_guess_from_media_type(const char *media_type);

/* The format a file name's extension names (.ttl, .nt, .nq, .trig, .rdf,
 * .owl, .jsonld, .html, ...; .gz/.bz2/.xz/.zst looked through; a URI's
 * query and fragment ignored), or LW_FORMAT_UNKNOWN. */
LwFormat lw_guess_from_filename(const char *filename);

#endif
