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
 *
 * Repairs that add bytes shift serd's columns on the rest of that line; the
 * scanner's own reports count columns in input bytes.
 *
 * The scanner works on any split of the input into blocks: its state carries
 * over from one call to the next.
 */
#ifndef LW_RDF_PRESCAN_H
#define LW_RDF_PRESCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef enum {
  LW_SCAN_OK = 0,
  LW_SCAN_DEPTH, /* nesting deeper than max_depth */
  LW_SCAN_TERM,  /* a term longer than max_term_bytes */
  LW_SCAN_NOMEM
} LwScanResult;

/* Receives a problem the scanner repaired (1-based line and column). */
typedef void (*LwScanErrorFunc)(void *handle, unsigned long line,
                                unsigned long column, const char *message);

typedef struct {
  /* configuration */
  bool long_strings;     /* Turtle/TriG: ' strings and """ / ''' */
  unsigned max_depth;
  size_t max_term_bytes;
  LwScanErrorFunc on_error;
  void *error_handle;
  /* state */
  int state;
  int ret_state;         /* where an escape returns to */
  int quote;             /* the quote character of the open string */
  int quotes_seen;       /* consecutive quotes (opening or closing) */
  int esc_left;          /* hex digits still expected in a \u escape */
  uint32_t esc_value;
  bool in_token;         /* the last byte out was part of a bare token */
  unsigned dots;         /* dots held back after a bare token */
  int label_state;       /* where in "_:B...B<digit>" we are */
  unsigned held_b;       /* 'B's held back after "_:" */
  int bool_state;        /* where in "Z...Z" + "true" / "false" we are */
  char bool_held[5];     /* the letters of "true" / "false" held back */
  unsigned bool_len;
  bool after_caret;      /* the last byte was '^': a datatype name follows */
  unsigned depth;
  size_t term_len;
  unsigned long reported_line; /* one report per line is enough */
  unsigned char carry[4]; /* the start of a UTF-8 sequence cut by a block */
  size_t carry_len;
  /* position of the next input byte (1-based line, 0-based byte column) */
  unsigned long line;
  unsigned long column;
  /* what stopped it */
  unsigned long stop_line;
  unsigned long stop_column;
} LwScanner;

/* Sets up a scanner. on_error may be NULL. */
void lw_scanner_init(LwScanner *s, bool long_strings, unsigned max_depth,
                     size_t max_term_bytes, LwScanErrorFunc on_error,
                     void *error_handle);

/* Forgets any open string, IRI or comment: the caller knows that a new
 * statement starts here (the line-based syntaxes, at each line). */
void lw_scanner_sync(LwScanner *s);

/* Scans len bytes of data and appends the repaired bytes to out. Returns
 * LW_SCAN_OK, or the cap that was hit (out then holds what came before the
 * offending byte, and stop_line / stop_column say where it is). */
LwScanResult lw_scanner_feed(LwScanner *s, const char *data, size_t len,
                             LwBuf *out);

/* The name (a prefixed name, or a prefix) as written in the input: name
 * without the 'Z' the scanner put in front of a prefix starting with "true"
 * or "false" (see above), else name itself. */
const char *lw_scanner_written_name(const char *name);

/* At the end of the input (or of a line, for the line-based syntaxes):
 * appends what the scanner still holds back. */
LwScanResult lw_scanner_finish(LwScanner *s, LwBuf *out);

#endif
