/*
 * A light scanner that sees the bytes of Turtle, TriG, N-Triples and N-Quads
 * before serd does, to keep serd 0.30 safe and strict where it is not:
 *
 *   - nesting: serd recurses once per [ ( { level and overflows the stack on
 *     deep input, so the scanner counts the open brackets outside strings,
 *     IRIs and comments and stops at max_depth;
 *   - size: an IRI, a literal or a bare token longer than max_term_bytes
 *     stops it, and so does a line longer than max_line_bytes (0: no line
 *     cap; used for the line-based syntaxes);
 *   - escapes: serd writes invalid UTF-8 for \u / \U escapes of surrogates
 *     and of code points above U+10FFFF (and lets IRIs hold escaped
 *     characters IRIREF forbids), so the scanner overwrites the last hex digit
 *     of such an escape with 'Z': serd then reports the bad escape itself,
 *     at the right line and column, and recovers as from any syntax error.
 *
 * The scanner works on any split of the input into blocks: its state carries
 * over from one call to the next.
 */
#ifndef LW_RDF_PRESCAN_H
#define LW_RDF_PRESCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
  LW_SCAN_OK = 0,
  LW_SCAN_DEPTH, /* nesting deeper than max_depth */
  LW_SCAN_TERM,  /* a term longer than max_term_bytes */
  LW_SCAN_LINE   /* a line longer than max_line_bytes */
} LwScanResult;

typedef struct {
  /* configuration */
  bool long_strings;     /* Turtle/TriG: ' strings and """ / ''' */
  unsigned max_depth;
  size_t max_term_bytes;
  size_t max_line_bytes; /* 0: none */
  /* state */
  int state;
  int ret_state;         /* where an escape returns to */
  int quote;             /* the quote character of the open string */
  int quotes_seen;       /* consecutive quotes (opening or closing) */
  int esc_left;          /* hex digits still expected in a \u escape */
  uint32_t esc_value;
  unsigned depth;
  size_t term_len;
  size_t line_len;
  /* position of the next byte (1-based line, 0-based column of bytes) */
  unsigned long line;
  unsigned long column;
  /* what stopped it */
  unsigned long stop_line;
  unsigned long stop_column;
} LwScanner;

/* Sets up a scanner. */
void lw_scanner_init(LwScanner *s, bool long_strings, unsigned max_depth,
                     size_t max_term_bytes, size_t max_line_bytes);

/* Forgets any open string, IRI or comment: the caller knows that a new
 * statement starts here (the line-based syntaxes, at each line). */
void lw_scanner_sync(LwScanner *s);

/* Scans len bytes of data (and may overwrite bad escapes in it, see above).
 * Returns LW_SCAN_OK, or the cap that was hit with *used set to the number
 * of bytes before the offending one (the caller hands only those on) and
 * stop_line/stop_column set. On LW_SCAN_OK *used is len. */
LwScanResult lw_scanner_feed(LwScanner *s, char *data, size_t len,
                             size_t *used);

#endif
