/*
 * lodwash's RDF readers: one entry point (lw_rdf_read) for every RDF syntax,
 * streaming statements to a quad sink. Turtle, TriG, N-Triples and N-Quads are
 * parsed by serd (rdf_readers/rdf_reader_serd.c, with a pre-scanner for what
 * serd 0.30 reads differently), RDF/XML by raptor2 on libxml2
 * (rdf_readers/rdf_reader_raptor.c, behind an XML guard, with xml:lang
 * scoping), JSON-LD by jsonld/, HTML pages' JSON-LD scripts
 * (rdf_readers/rdf_reader_html.c) and their RDFa by rdfa/
 * (rdf_readers/rdf_reader_rdfa.c), RDF/JSON by jansson
 * (rdf_readers/rdf_reader_rdfjson.c).
 *
 * Uses base, rdf, jsonld and rdfa. Below, one section per module; the readers'
 * shared internals are in rdf_readers/rdf_reader_internal.h.
 */
#ifndef LW_RDF_READERS_H
#define LW_RDF_READERS_H

#include "base/base.h"
#include "rdf/rdf.h"

/* ---- xml_guard (rdf_readers/xml_guard.c) ------------------------------- */

/*
 * A guard in front of libxml2 (through raptor2): XML entity tricks must fail
 * fast, whatever libxml2's own limits are.
 *
 * The prolog (everything before the root element) is checked first: a DTD
 * internal subset may declare only plain internal general entities (no
 * parameter entities, no SYSTEM / PUBLIC entities, no entity whose value
 * holds '&', '%' or '<', at most LW_XML_MAX_ENTITIES of them, each at most
 * LW_XML_MAX_ENTITY_BYTES): that keeps the RDF/XML files that abbreviate
 * namespaces with entities (&rdf; &xsd; ...) readable and refuses billion
 * laughs and external entities outright. The body is then watched for
 * references to the declared entities: their expanded size may not exceed
 * 16 MiB plus 8 times the bytes read (quadratic blowup); and for element
 * nesting, which may not go deeper than max_depth (raptor slows down
 * quadratically with depth). HTML's void elements (<br>, <img>, ...) do not
 * count as open.
 */
#include <stdbool.h>
#include <stddef.h>

#define LW_XML_MAX_ENTITIES 1024
#define LW_XML_MAX_ENTITY_BYTES 8192
#define LW_XML_MAX_PROLOG_BYTES ((size_t)1 << 20)

typedef struct LwXmlGuard LwXmlGuard;

/* A new guard, or NULL when out of memory. lw_xml_guard_free(NULL) is safe. */
LwXmlGuard *lw_xml_guard_new(unsigned max_depth);
void lw_xml_guard_free(LwXmlGuard *guard);

/* Checks the prolog in data (len bytes; the start of the document). Returns
 * LW_OK when the prolog ends within data (the root element starts) and is
 * acceptable; LW_NOTHING when data ends before the root element does
 * (call again with more data, up to LW_XML_MAX_PROLOG_BYTES); LW_ERR_LIMIT
 * with a message in err when the DTD is refused or the prolog is too long
 * (set at_eof when no more data will come). */
LwStatus lw_xml_guard_prolog(LwXmlGuard *guard, const char *data, size_t len, bool at_eof,
                             LwError *err);

/* Watches the document's bytes (all of them, from the start, once the
 * prolog was accepted) for entity references and nesting. data holds len
 * bytes: the first seen of them were watched by the previous call, the rest
 * are new. LW_ERR_LIMIT when the expansion budget or the depth is
 * exceeded. */
LwStatus lw_xml_guard_feed(LwXmlGuard *guard, char *data, size_t len, size_t seen,
                           LwError *err);

/* ---- rdf_prescan (rdf_readers/rdf_prescan.c) --------------------------- */

/*
 * A light transducer that sees the bytes of Turtle, TriG, N-Triples and
 * N-Quads before serd does, and hands serd a repaired copy, to keep serd
 * 0.30 safe and correct where it is not:
 *
 *   - nesting: serd recurses once per [ ( { level and overflows the stack on
 *     deep input, so the scanner counts the open brackets outside strings,
 *     IRIs and comments and stops at max_depth;
 *   - size: an IRI, a literal or a bare token longer than max_term_bytes
 *     stops it;
 *   - escapes: serd writes invalid UTF-8 for \u / \U escapes of surrogates
 *     and of code points above U+10FFFF (and lets IRIs hold escaped
 *     characters IRIREF forbids), so the scanner writes 'Z' for the last hex
 *     digit of such an escape: serd then reports the bad escape itself, at
 *     its line and column, and recovers as from any syntax error;
 *   - invalid UTF-8 (each maximal bad subpart) is reported through on_error
 *     and becomes a bad escape ("\\Z"), so that serd skips the statement as
 *     it skips any syntax error (in a comment it becomes U+FFFD): the output
 *     is always valid UTF-8;
 *   - a NUL byte becomes \u0000 in a string (where it is allowed) and a bad
 *     escape elsewhere (serd reads C strings and would stop at it);
 *   - Turtle / TriG blank node labels: serd 0.30 renames a document's
 *     "_:b<digit>..." to "B<digit>..." (its own labels are "b<digit>"), so
 *     that "_:B1" and "_:b1" would meet (or clash, with an error); the
 *     scanner writes one more 'B' in front of a label "B...B<digit>...",
 *     which keeps all labels apart;
 *   - a bare token (a number, a prefixed name, a blank node label) followed
 *     by '.' and then white space gets a space before the dot: "12." and
 *     "_:b." end statements, and serd 0.30 gets them wrong (it drops the
 *     datatype of "12." and takes the dot into the label);
 *   - Turtle / TriG prefixed names whose prefix starts with "true" or
 *     "false" and goes on with a character that is no letter ("false.ish:o",
 *     "true-x:o", "false:o"): serd 0.30 reads the letters of an object first
 *     and takes "true" / "false" for the boolean, whatever follows. The
 *     scanner writes one more 'Z' in front of such a name wherever it stands
 *     (declaration, subject, predicate, object, datatype, graph), so that
 *     serd reads a prefixed name: "Z...Z" + "true"/"false" + such a character
 *     gets one more 'Z', which keeps all prefixes apart
 *     (lw_scanner_written_name gives the name as written, for messages).
 *   - a language tag followed by "^^" ("l"@en^^<dt>, Turtle / TriG): serd
 *     0.30 hands on "l"@en before it sees the '^' and then skips the rest
 *     with an error, a statement written in part. The scanner holds a
 *     language tag back until what follows shows, and writes such a tag
 *     as "@-en": serd refuses it inside the literal ("unexpected `-'"),
 *     and the statement is skipped whole. A tag longer than 63 bytes, or
 *     white space before the "^^", is let through;
 *   - Notation3 (Turtle / TriG only): N3's formulae and rules are not RDF,
 *     and serd reads a formula as a TriG graph block, so that quoted
 *     statements would come out asserted. The scanner stops (LW_SCAN_N3)
 *     at the first construct only N3 has, outside strings, IRIs and
 *     comments: a token "=>" (N3's implication; "=" and "==" are left to
 *     serd, which reads "==" inside [ ] as an extension),
 *     "@forAll" / "@forSome", a '{' inside any bracket (a nested formula,
 *     or one in a blank node or collection), and after a '}' that closed
 *     the outermost bracket ". ; , ] ) =" (a formula as an object, a
 *     rule's premise) or a statement of two terms ("{ ... } :p :o .", a
 *     formula as a subject): TriG's graph block is a statement of its own.
 *     A two-term statement whose last token runs into its '.' (":o.") is
 *     not caught (serd reports it as an error).
 *
 * Repairs that add bytes shift serd's columns on the rest of that line; the
 * scanner's own reports count columns in input bytes.
 *
 * The scanner works on any split of the input into blocks: its state carries
 * over from one call to the next.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
  LW_SCAN_OK = 0,
  LW_SCAN_DEPTH, /* nesting deeper than max_depth */
  LW_SCAN_TERM,  /* a term longer than max_term_bytes */
  LW_SCAN_NOMEM,
  LW_SCAN_N3 /* Turtle / TriG: an N3 construct (n3 says which) */
} LwScanResult;

/* Receives a problem the scanner repaired (1-based line and column). */
typedef void (*LwScanErrorFunc)(void *handle, unsigned long line, unsigned long column,
                                const char *message);

/* Turtle / TriG: receives each character that a name may hold but not
 * start (U+00B7, U+0300-036F, U+203F-2040) that comes in a bare token
 * after nothing but letters, or starts one (starts). serd 0.30 reads the
 * letters an object starts with on their own (true? false?), and reports
 * such a character there as "invalid character U+00B7 in name", wrongly
 * when it does not start the name (`a·b:o`, `true·x:o`). */
typedef void (*LwScanNameCharFunc)(void *handle, unsigned long line, bool starts);

typedef struct {
  /* configuration */
  bool long_strings; /* Turtle/TriG: ' strings and """ / ''' */
  unsigned max_depth;
  size_t max_term_bytes;
  LwScanErrorFunc on_error;
  void *error_handle;
  LwScanNameCharFunc on_name_char; /* may be NULL; set after lw_scanner_init */
  void *name_char_handle;
  /* state */
  int state;
  int ret_state;   /* where an escape returns to */
  int quote;       /* the quote character of the open string */
  int quotes_seen; /* consecutive quotes (opening or closing) */
  int esc_left;    /* hex digits still expected in a \u escape */
  uint32_t esc_value;
  bool in_token;     /* the last byte out was part of a bare token */
  bool name_letters; /* the bare token has had only letters so far */
  unsigned dots;     /* dots held back after a bare token */
  int label_state;   /* where in "_:B...B<digit>" we are */
  unsigned held_b;   /* 'B's held back after "_:" */
  int bool_state;    /* where in "Z...Z" + "true" / "false" we are */
  char bool_held[5]; /* the letters of "true" / "false" held back */
  unsigned bool_len;
  bool after_caret; /* the last byte was '^': a datatype name follows */
  unsigned depth;
  /* N3 (Turtle / TriG only): what was found, and what leads to it */
  const char *n3;
  unsigned char prev_sig;  /* the last character outside strings, IRIs, comments
                             and white space */
  bool n3_eq;              /* a token started with '=' ('=>'?) */
  bool n3_after_block;     /* a '}' closed the outermost bracket */
  unsigned n3_block_terms; /* terms since then */
  bool n3_in_at;           /* a token started with '@' (not a language tag) */
  char n3_word[8];         /* its letters */
  unsigned n3_word_len;
  char tag_held[64]; /* Turtle / TriG: a language tag held back, '@' first */
  unsigned tag_len;
  unsigned long tags_refused; /* tags written as "@-..." so far */
  /* the last escapes refused (a 'Z' for their last digit), for the
   * message: their lines and code points, a ring */
  struct {
    unsigned long line;
    uint32_t code_point;
    bool in_iri;
  } refused[16];
  unsigned long escapes_refused; /* so far; the ring holds the last 16 */
  size_t term_len;
  unsigned long reported_line; /* one report per line is enough */
  unsigned char carry[4];      /* the start of a UTF-8 sequence cut by a block */
  size_t carry_len;
  /* position of the next input byte (1-based line, 0-based byte column) */
  unsigned long line;
  unsigned long column;
  /* lw_scanner_finish: what the input (or line) ended inside ("an IRI",
   * "a string", ...), NULL when it ended between tokens */
  const char *end_inside;
  /* what stopped it */
  unsigned long stop_line;
  unsigned long stop_column;
} LwScanner;

/* Sets up a scanner. on_error may be NULL. */
void lw_scanner_init(LwScanner *s, bool long_strings, unsigned max_depth,
                     size_t max_term_bytes, LwScanErrorFunc on_error, void *error_handle);

/* Forgets any open string, IRI or comment: the caller knows that a new
 * statement starts here (the line-based syntaxes, at each line). */
void lw_scanner_sync(LwScanner *s);

/* Scans len bytes of data and appends the repaired bytes to out. Returns
 * LW_SCAN_OK, or the cap that was hit (out then holds what came before the
 * offending byte, and stop_line / stop_column say where it is). */
LwScanResult lw_scanner_feed(LwScanner *s, const char *data, size_t len, LwBuf *out);

/* The name (a prefixed name, or a prefix) as written in the input: name
 * without the 'Z' the scanner put in front of a prefix starting with "true"
 * or "false" (see above), else name itself. */
const char *lw_scanner_written_name(const char *name);

/* At the end of the input (or of a line, for the line-based syntaxes):
 * appends what the scanner still holds back. */
LwScanResult lw_scanner_finish(LwScanner *s, LwBuf *out);

/* ---- prescan_thread (rdf_readers/prescan_thread.c) --------------------- */

#include <stdio.h>

/* Where one block's read left the input. */
typedef struct {
  bool io_error; /* reading failed: nothing else was done */
  bool at_end;   /* the input ended: where, in line and column */
  unsigned long line;
  unsigned long column;
} LwScanBlockEnd;

/* One block of in (up to size bytes, through block) scanned into out, as
 * the Turtle reader takes its input: at the end of the input the scanner is
 * finished and the trailer added. Returns LW_SCAN_OK or what stopped the
 * scanner (the caller then finishes it and adds the trailer itself, after
 * noting the state it stopped in). Used in the reader's thread and in the
 * pre-scanner's. */
LwScanResult lw_scanner_read_block(LwScanner *s, FILE *in, char *block, size_t size,
                                   const char *trailer, LwBuf *out, LwScanBlockEnd *end);

/*
 * The pre-scanner on a thread of its own, for Turtle and TriG read as a
 * stream: the thread reads the input in blocks of LW_PRESCAN_BLOCK bytes and
 * scans each (as the reader would, in its own thread), a few blocks ahead
 * of serd. The reader takes the blocks in order, each with what the scanner
 * reported while scanning it and the scanner's state after it, and replays
 * the reports as it takes the block: so they come in the very order, with
 * the very scanner state, of scanning in the reader's thread, and the
 * parser's thread no longer spends its time scanning.
 *
 * At the end of the input (or when a cap stops the scanner) the thread ends
 * the block as the reader would: lw_scanner_finish, then the trailer given.
 * Memory: a few blocks (at most 6 output bytes an input byte each). Blocks
 * of 256 KiB, not 64: each hand-over may wake a thread, and on two busy
 * cores the wake-ups of 64 KiB blocks cost the clean stage about a tenth
 * of its time on Turtle (scripts/bench-parse).
 */
#define LW_PRESCAN_BLOCK 262144

typedef struct LwPrescanThread LwPrescanThread;

typedef enum {
  LW_PRESCAN_ERROR,     /* the scanner's on_error */
  LW_PRESCAN_NAME_CHAR, /* its on_name_char */
  LW_PRESCAN_LIMIT      /* a cap stopped it (result; the state in at_limit) */
} LwPrescanEventKind;

typedef struct {
  LwPrescanEventKind kind;
  unsigned long line;
  unsigned long column;
  const char *message; /* ERROR: a string the scanner keeps */
  bool starts;         /* NAME_CHAR */
  LwScanResult result; /* LIMIT */
} LwPrescanEvent;

typedef struct {
  const char *bytes; /* the repaired bytes */
  size_t len;
  const LwPrescanEvent *events; /* in the order they happened */
  size_t n_events;
  const LwScanner *scan;     /* the scanner after the block */
  const LwScanner *at_limit; /* after the LIMIT event: the scanner then */
  bool io_error;             /* reading failed (nothing else is set) */
  bool at_end;               /* the input ended: where in end_line, end_column */
  unsigned long end_line;
  unsigned long end_column;
} LwPrescanBlock;

/* Starts the thread on in with a copy of scanner (as set up by
 * lw_scanner_init; its callbacks are recorded as events instead). in is
 * read only by the thread until lw_prescan_thread_stop. */
LwStatus lw_prescan_thread_start(FILE *in, const LwScanner *scanner, const char *trailer,
                                 LwPrescanThread **thread, LwError *err);

/* Waits for the next block. It stays valid until lw_prescan_thread_release.
 * Called after the block with a LIMIT event, io_error or at_end: blocks
 * with nothing in them. */
void lw_prescan_thread_next(LwPrescanThread *thread, LwPrescanBlock *block);

/* Gives the block back to the thread. */
void lw_prescan_thread_release(LwPrescanThread *thread);

/* Stops the thread (what it has not handed out is dropped) and frees it.
 * NULL is safe. */
void lw_prescan_thread_stop(LwPrescanThread *thread);

/* ---- rdf_reader (rdf_readers/rdf_reader.c) ----------------------------- */

/*
 * Streaming RDF readers: one entry point for every serialization, calling an
 * LwQuadSink for each statement (see rdf/rdf.h).
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
 *     rdf/rdf.h;
 *   - an error has the line and column where the parser noticed it; 0 when
 *     unknown (a statement serd read but that we refuse, such as a relative
 *     IRI without a base, has no location in serd 0.30);
 *   - N-Triples / N-Quads: one bad line is one skipped statement; a line is
 *     at most 4 * max_term_bytes + 4 KiB;
 *   - RDF/XML and RDFa: max_depth also caps element nesting; a DTD may only
 *     declare plain internal entities (see rdf_readers/rdf_readers.h). In
 *     RDF/XML an XML well-formedness error ends the document
 *     (LW_ERR_SYNTAX); RDFa is read by lodwash's own processor (rdfa/) from
 *     libxml2's tree, which recovers what it can of a broken XML page (each
 *     error reported with its line);
 *   - HTML pages (LW_FORMAT_RDFA, LW_FORMAT_JSONLD_HTML) are read whole (at
 *     most LW_HTML_MAX_BYTES, 64 MiB): their JSON-LD scripts and their RDFa,
 *     see rdf_reader_html below.
 */
#include <stdio.h>

/* Which JSON-LD scripts of an HTML page are read. A fragment of the
 * document URL (base_iri) names the one script to read: in the API's modes
 * always (a fragment naming none is an error), in LW_HTML_SCRIPTS_EACH only
 * when it names a JSON-LD script (else it is taken for a resource's
 * fragment, "#me", and every script is read). */
typedef enum {
  LW_HTML_SCRIPTS_EACH = 0, /* every script, each its own JSON-LD document
                               (lodwash's default) */
  LW_HTML_SCRIPTS_FIRST,    /* the first only (the JSON-LD API's default,
                               extractAllScripts false) */
  LW_HTML_SCRIPTS_ALL       /* every script, their documents in one array
                               (extractAllScripts true) */
} LwHtmlScripts;

typedef struct {
  LwFormat format;
  const char *base_iri; /* resolves relative IRIs; NULL: none */
  LwQuadSink on_quad;
  void *quad_handle;
  LwSyntaxErrorSink on_error; /* may be NULL (errors are still counted) */
  void *error_handle;
  unsigned max_depth;    /* [ ( { nesting; 0: default (256) */
  size_t max_term_bytes; /* one IRI, literal or tag; 0: default (16 MiB) */
  /* JSON-LD only: fetches remote contexts (an LwJsonldLoadFn, see
   * jsonld/jsonld.h); NULL: a document naming a remote context fails. */
  LwStatus (*load_document)(void *handle, const char *url, char **body, size_t *len,
                            char **document_url, LwError *err);
  void *load_handle;
  /* When set, the reader writes there where each statement is before it
   * hands it to on_quad. */
  LwLocation *location;
  LwHtmlScripts html_scripts; /* HTML pages: which JSON-LD scripts */
} LwReadOptions;

/* Reads all of in (UTF-8) in options->format. Returns LW_OK when the input
 * was read to its end, even with skipped statements (counted in stats);
 * LW_ERR_LIMIT when a cap was hit, LW_ERR_SYNTAX when nothing past some point
 * could be read; whatever on_quad returned when it stopped the reader
 * (on_quad returning LW_NOTHING does not stop it). LW_ERR_FORMAT for
 * JSON-LD until the JSON-LD processor is linked in; LW_ERR_USAGE for a
 * missing sink, an unknown format or a relative base_iri. err gets the
 * message; stats (may be NULL) the counts, also on error. */
LwStatus lw_rdf_read(FILE *in, const LwReadOptions *options, LwReadStats *stats,
                     LwError *err);

/* ---- rdf_memory (rdf_readers/rdf_memory.c) ----------------------------- */

/*
 * Small documents held in memory (a VoID file, a DCAT catalogue): read
 * with lw_rdf_read, their syntax errors kept for the reader's warnings, and
 * a Turtle line blanked out so that the document can be read again without
 * it (serd gives up the rest of a statement after an error).
 */

/* The syntax errors of one reading: how many, the first one's line, the
 * first few messages ("line L:C: message"). Zero it before the reading;
 * lw_syntax_log_add is an LwSyntaxErrorSink. */
typedef struct {
  unsigned long long count;
  unsigned first_line;
  char messages[5][256];
  size_t message_count;
} LwSyntaxLog;

void lw_syntax_log_add(void *log, unsigned line, unsigned column, const char *message);

/* lw_rdf_read over len bytes of data: LW_ERR_SYNTAX "empty document" for
 * none, LW_ERR_NOMEM when the stream cannot be made, else lw_rdf_read's. */
LwStatus lw_rdf_read_memory(const char *data, size_t len, const LwReadOptions *options,
                            LwReadStats *stats, LwError *err);

/* Blanks line (1-based) of buf with spaces, keeping the line numbers of the
 * rest (a CR stays); false when there is no such line. */
bool lw_text_blank_line(char *buf, size_t len, unsigned line);

/* ---- rdf_reader_internal (types only) ---------------------------------- */

/*
 * What the format readers behind lw_rdf_read share (not a public header):
 * the read context with its effective limits, and error reporting.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define LW_READ_DEFAULT_MAX_DEPTH 256u
#define LW_READ_DEFAULT_MAX_TERM_BYTES ((size_t)16 << 20)

typedef struct {
  const LwReadOptions *options;
  LwReadStats *stats;
  LwError *err;
  unsigned max_depth;    /* options->max_depth or the default */
  size_t max_term_bytes; /* options->max_term_bytes or the default */
  bool serd_bytewise;    /* tests: Turtle / TriG fed to serd one byte at a
                              time, not in pages (same results) */
  bool prescan_inline;   /* tests: Turtle / TriG pre-scanned in the reader's
                              thread, not on one of its own (same results) */
} LwReadContext;

/* Counts one syntax error and passes it to options->on_error. */
void lw_read_report(LwReadContext *ctx, unsigned line, unsigned column, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));

/* Hands one statement, found at line and column, to options->on_quad and
 * counts it. */
LwStatus lw_read_emit(LwReadContext *ctx, const LwQuad *quad, unsigned line,
                      unsigned column);

/* True when s (len bytes) may go out as an IRI: absolute, and none of the
 * characters IRIREF forbids (controls, space, <>"{}|^`\). */
bool lw_read_iri_ok(const char *s, size_t len);

/* True when s holds none of the characters IRIREF forbids. */
bool lw_read_iri_chars_ok(const char *s, size_t len);

/* The same, telling in *canonical whether s is ASCII too: nothing in it for
 * the canonical writer to escape (LwTerm.canonical), and no NUL. */
bool lw_read_iri_chars_check(const char *s, size_t len, bool *canonical);

/* Whether a term of type with value s (len bytes) is written as it is in
 * canonical N-Quads (LwTerm.canonical): ASCII with nothing to escape; then
 * it is valid UTF-8 too. */
bool lw_read_plain(LwTermType type, const char *s, size_t len);

/* Turtle, TriG, N-Triples, N-Quads (serd). */
LwStatus lw_rdf_read_serd(FILE *in, LwReadContext *ctx);

/* Whether serd can be fed Turtle and TriG in pages: its reader is laid out
 * as the serd lodwash was built for, whose position lodwash reads (else serd
 * is fed one byte at a time, slower, with the same results). */
bool lw_rdf_serd_paged(void);

/* RDF/XML (raptor2). */
LwStatus lw_rdf_read_raptor(FILE *in, LwReadContext *ctx);

/* ---- rdf_reader_rdfa (rdf_readers/rdf_reader_rdfa.c) ------------------- */

/*
 * A page's RDFa, by rdfa/ (rdfa/rdfa.h): the page parsed into libxml2's
 * tree (lw_rdf_rdfa_parse: HTML, or XML when it opens with an XML
 * declaration; NULL with rc->err set when no tree can be built), and the
 * processor run over the tree (lw_rdf_read_rdfa), its triples checked as
 * every reader's and handed to the sink, its problems reported with their
 * lines.
 */
#include <libxml/tree.h>

#define LW_HTML_MAX_BYTES ((size_t)64 << 20)

xmlDocPtr lw_rdf_rdfa_parse(const LwBuf *page, LwReadContext *ctx);
LwStatus lw_rdf_read_rdfa(xmlDocPtr doc, LwReadContext *ctx);

/* ---- rdf_reader_html (rdf_readers/rdf_reader_html.c) ------------------- */

/*
 * HTML pages: their JSON-LD scripts (JSON-LD 1.1 API §4.1 and §7.3,
 * <script type="application/ld+json">) and their RDFa. The page is read
 * whole and parsed by libxml2's HTML parser; the scripts are found in its
 * tree and read by jsonld/ with the page's base: the document URL (base_iri,
 * without its fragment), overridden by the first <base href> (resolved
 * against it). Which scripts: options->html_scripts, or the one whose id is
 * base_iri's fragment (see LwHtmlScripts). A script's text is JSON as it
 * stands (HTML unescapes
 * nothing in a script, and an HTML comment around the JSON is no JSON).
 *
 * Lax, like every reader: a script that is not JSON is reported ("invalid
 * script element: ...", the API's error code) and skipped, a JSON-LD error
 * ends only its own script (the quads it gave before stay), a fragment that
 * names no JSON-LD script is reported ("loading document failed: ...");
 * the other scripts and the RDFa are still read. Errors are located at the
 * script element's line plus the line within the script.
 *
 * RDFa: a page guessed as RDFa is then read by rdfa/ (rdf_reader_rdfa.c)
 * from the same tree; a page guessed as JSON-LD in HTML too, when its tree holds RDFa
 * attributes (property, typeof, about, ...; rel / rev with a CURIE). A page
 * with both gives both.
 */
LwStatus lw_rdf_read_html(FILE *in, LwReadContext *ctx);

/* ---- rdf_reader_rdfjson (rdf_readers/rdf_reader_rdfjson.c) ------------- */

/*
 * RDF/JSON (the W3C Note "RDF 1.1 JSON Alternate Serialization",
 * application/rdf+json): an object of subjects (IRIs, "_:label") holding
 * objects of predicate IRIs holding arrays of {"type": "uri" | "bnode" |
 * "literal", "value", "lang"?, "datatype"?}. Loaded whole by jansson. A
 * subject, predicate or object breaking those rules (a literal with both a
 * language and a datatype, an unknown type, a relative IRI without a base)
 * is reported and skipped; a document that is no JSON object is
 * LW_ERR_SYNTAX, one larger than LW_RDFJSON_MAX_BYTES LW_ERR_LIMIT (the
 * tree takes several times the text). No locations (line 0).
 */
#define LW_RDFJSON_MAX_BYTES ((size_t)256 << 20)

LwStatus lw_rdf_read_rdfjson(FILE *in, LwReadContext *ctx);

#endif
