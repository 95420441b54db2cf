/*
 * lodwash's RDF library: the RDF model every reader and writer shares (terms,
 * quads, the quad sink), the RDF formats and the guess of a file's format from
 * its first bytes, checks of literals (XSD datatypes, BCP 47 language tags),
 * canonical N-Quads writing and fast N-Triples reading, and skolemization of
 * blank nodes.
 *
 * Uses base. It parses no syntax but N-Triples lines: the readers are in
 * rdf_readers/, the JSON-LD processor in jsonld/. Below, one section per
 * module; its code is rdf/<module>.c.
 */
#ifndef LW_RDF_H
#define LW_RDF_H

#include "base/base.h"

/* ---- rdf_format (rdf/rdf_format.c) ------------------------------------- */

/*
 * The serializations lodwash recognises, with the names stored on seed
 * records (`format`) and accepted on the command line. LW_FORMAT_RDFA and
 * LW_FORMAT_JSONLD_HTML are both HTML pages, read the same way (the page's
 * RDFa and its JSON-LD scripts); the name says what the guess found.
 */
typedef enum {
  LW_FORMAT_UNKNOWN = 0,
  LW_FORMAT_JSONLD,
  LW_FORMAT_NQUADS,
  LW_FORMAT_NTRIPLES,
  LW_FORMAT_RDFXML,
  LW_FORMAT_RDFA,
  LW_FORMAT_TRIG,
  LW_FORMAT_TURTLE,
  LW_FORMAT_JSONLD_HTML, /* an HTML page with JSON-LD scripts */
  LW_FORMAT_RDFJSON      /* RDF/JSON (W3C Note, application/rdf+json) */
} LwFormat;

/* The record name: "JSON-LD", "N-Quads", "N-Triples", "RDF/XML", "RDFa",
 * "TriG", "Turtle", "JSON-LD/HTML", "RDF/JSON", or "unknown". */
const char *lw_format_name(LwFormat format);

/* Parses a record name or a short name (jsonld, nquads, nq, ntriples, nt,
 * rdfxml, xml, rdfa, html, trig, turtle, ttl, jsonld-html, rdfjson),
 * case-insensitively. */
LwFormat lw_format_parse(const char *name);

/* ---- rdf_term (types only) --------------------------------------------- */

/*
 * RDF terms and quads as every reader hands them on: serd (Turtle, TriG,
 * N-Triples, N-Quads), raptor2 (RDF/XML), the RDFa and the JSON-LD
 * processors all call one LwQuadSink, so the cleaning that follows does not care where a
 * statement came from.
 *
 * Strings are UTF-8, unescaped, NUL-terminated, owned by the caller of the
 * sink and valid only during the call. IRIs are absolute (readers resolve
 * relative ones); a blank node's value is its label without "_:".
 */
#include <stddef.h>

typedef enum {
  LW_TERM_NONE = 0, /* absent: the default graph */
  LW_TERM_IRI,
  LW_TERM_BLANK,
  LW_TERM_LITERAL
} LwTermType;

typedef struct {
  LwTermType type;
  const char *value;    /* IRI, blank node label or lexical form */
  size_t len;           /* strlen(value) */
  const char *datatype; /* literals: datatype IRI, or NULL (xsd:string / langString) */
  const char *lang;     /* literals: language tag, or NULL */
  /* value is already as canonical N-Quads writes it, nothing to escape
   * (IRIs: ASCII that IRIREF allows; literals: ASCII but controls, '"',
   * '\' and DEL): set by a reader that saw so while checking it, so that
   * the writer copies it without looking at it again; false is always safe */
  bool canonical;
} LwTerm;

typedef struct {
  LwTerm subject;
  LwTerm predicate;
  LwTerm object;
  LwTerm graph; /* type LW_TERM_NONE for the default graph */
} LwQuad;

/* Where a reader found a statement (1-based; 0 when unknown), for locating
 * what is wrong with its literal: N-Triples / N-Quads, the line and the
 * literal object's opening quote (else column 1); Turtle / TriG, where serd
 * stood when the object ended; RDF/XML and RDFa, the line of the element
 * (libxml2 gives no column); JSON-LD, where the top-level element holding
 * it starts (streamed documents only). */
typedef struct {
  unsigned line;
  unsigned column;
} LwLocation;

/* What a reader (lw_rdf_read, or the JSON-LD processor) counted. */
typedef struct {
  unsigned long long statements; /* passed to on_quad */
  unsigned long long errors;     /* reported to on_error */
} LwReadStats;

/* Receives one statement. Returning an error (> LW_NOTHING) stops the reader. */
typedef LwStatus (*LwQuadSink)(void *handle, const LwQuad *quad);

/* Receives one syntax problem, located in the input (1-based line and column,
 * 0 when unknown). The reader skips the bad statement and goes on. */
typedef void (*LwSyntaxErrorSink)(void *handle, unsigned line, unsigned column,
                                  const char *message);

/* ---- format_guess (rdf/format_guess.c) --------------------------------- */

/*
 * Format guessing: which of the RDF serializations a file is, decided
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
 *     without, with an application/ld+json script -> JSON-LD in HTML
 *     without either                           -> unknown (not RDF)
 *   '{' "subject": { "predicate": [ { "type" | "value" ...   -> RDF/JSON
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
#include <stdbool.h>
#include <stddef.h>

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
  bool bom;       /* a UTF-8 BOM was skipped */
  bool partial;   /* more of the file could change the decision: the head
                        is LW_GUESS_HEAD_SIZE or longer (so probably cut) or
                        ended inside the first statement, and the guess is
                        N-Triples, HTML without RDFa or XML without RDF */
  bool hint_used; /* the content was ambiguous; a hint broke the tie */
  LwFormat hint;  /* the format the media type or extension suggests */
  size_t start;   /* offset of the first byte of content after the BOM,
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

/* ---- xsd_literal (rdf/xsd_literal.c) ----------------------------------- */

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
#include <stdbool.h>
#include <stddef.h>

#define LW_XSD_NS "http://www.w3.org/2001/XMLSchema#"

/* True when lexical[0..len) is a valid lexical form for datatype_iri (a
 * full IRI, NUL-terminated), or when datatype_iri is NULL or not a
 * datatype we check. */
bool lw_literal_valid(const char *datatype_iri, const char *lexical, size_t len);

/* True when lw_literal_valid checks datatype_iri (it is one of the XSD
 * datatypes listed above). */
bool lw_literal_datatype_checked(const char *datatype_iri);

/* ---- langtag (rdf/langtag.c) ------------------------------------------- */

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
#include <stdbool.h>
#include <stddef.h>

/* True when the NUL-terminated tag is a well-formed BCP 47 language tag
 * (false for NULL). */
bool lw_langtag_valid(const char *tag);

/* The same for a tag of len bytes, not necessarily NUL-terminated. */
bool lw_langtag_valid_n(const char *tag, size_t len);

/* ---- nquads (rdf/nquads.c) --------------------------------------------- */

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
/* Appends one canonical N-Quads line for q, including the final "\n", to out.
 * LW_ERR_FORMAT when q is not an RDF statement (a literal subject, a
 * non-IRI predicate, a literal graph, a missing term); LW_ERR_NOMEM. On
 * error out is left as it was. */
LwStatus lw_nquads_append(LwBuf *out, const LwQuad *q);

/* Appends one term in its canonical N-Triples form (no spaces around it). */
LwStatus lw_nquads_append_term(LwBuf *out, const LwTerm *term);

/* ---- nt_fast (rdf/nt_fast.c) ------------------------------------------- */

/*
 * The fast path for line-based input (N-Triples, N-Quads): most lines of a
 * real dump are already exactly the canonical N-Quads line lodwash would
 * write for them (rdf/rdf.h). Such a line can go to the sort as it is,
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
#include <stdbool.h>
#include <stddef.h>

/* The object literal of a line that passed, for the literal checks. */
typedef struct {
  bool is_literal;
  const char *lexical; /* the lexical form (no escapes in a passing line) */
  size_t lexical_len;
  const char *datatype; /* datatype IRI without < >, or NULL */
  size_t datatype_len;
  const char *lang; /* language tag without '@', or NULL */
  size_t lang_len;
} LwNtFastObject;

/* True when line[0..len) (without its newline) is a canonical statement as
 * described above; quads allows a graph IRI. object is filled when true. */
bool lw_nt_fast_check(const char *line, size_t len, bool quads, LwNtFastObject *object);

/* ---- skolem (rdf/skolem.c) --------------------------------------------- */

/*
 * Blank node skolemization (RDF 1.1 §3.5): a blank node becomes the
 * well-known IRI
 *
 *     BASE/.well-known/genid/SEEDHASH/LABEL
 *
 * where SEEDHASH names the file (the seed's hash) and LABEL is the blank
 * node's label in that file. Stable: cleaning the same file again gives the
 * same IRIs. Collision-free: SEEDHASH and LABEL are percent-encoded so that
 * only RFC 3986 unreserved characters (A-Z a-z 0-9 - . _ ~) stay as they
 * are and every other byte becomes %XX (upper-case hex); two different labels
 * (or seeds) therefore never give the same IRI, and the IRI is already in
 * RFC 3986 normal form. BASE is used as it is, without a trailing '/'.
 */
#include <stddef.h>

/* Appends the skolem IRI (without < >) for label (label_len bytes) to out. */
LwStatus lw_skolem_append_iri(LwBuf *out, const char *base, const char *seed_hash,
                              const char *label, size_t label_len);

/* Skolemizes quads one after the other, reusing its buffers. */
typedef struct {
  const char *base;      /* e.g. "https://lodwash.example.org"; borrowed */
  const char *seed_hash; /* borrowed */
  bool canonical;        /* its IRIs are LwTerm.canonical: base is (the
                          * rest is percent-encoded) */
  LwBuf iris[3];         /* subject, object, graph */
} LwSkolem;

/* Sets up a skolemizer; base and seed_hash must outlive it. */
void lw_skolem_init(LwSkolem *sk, const char *base, const char *seed_hash);

/* Frees its buffers. NULL is safe. */
void lw_skolem_free(LwSkolem *sk);

/* Copies in to out with every blank node (subject, object, graph) replaced
 * by its skolem IRI. out's strings point into sk (valid until the next
 * call) or into in. */
LwStatus lw_skolem_quad(LwSkolem *sk, const LwQuad *in, LwQuad *out);

#endif
