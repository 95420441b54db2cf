/*
 * Turtle, TriG, N-Triples and N-Quads through serd 0.30, lax.
 *
 * Every byte goes through the pre-scanner (rdf_readers/rdf_readers.h) before
 * serd sees it: nesting and term caps stop the input, bad \u escapes and
 * invalid UTF-8 become syntax errors serd reports itself.
 *
 * Turtle and TriG: serd reads pages from our own source function, in its lax
 * mode (it recovers at the next line after an error).
 *
 * N-Triples and N-Quads: we split the input into lines and give serd one
 * line at a time (serd_reader_read_string, strict mode), because serd 0.30's
 * N-Quads reader gives up on the whole rest of the document at the first bad
 * statement (sometimes without a word), and emits a statement before it has
 * seen its final '.'. Line by line, a bad line is exactly one skipped
 * statement, every error has its true line, and a statement goes out only
 * when its line had no error.
 *
 * serd hands on IRIs as written and prefixed names unexpanded: we resolve
 * relative IRIs with our own RFC 3986 code (base/base.h) and expand
 * prefixed names against the prefixes, resolved when they are declared.
 * Every string is checked to be valid UTF-8 before it goes out.
 */
#include <stdarg.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <serd/serd.h>

#include "base/base.h"
#include "rdf_readers/rdf_readers.h"

#define PAGE_SIZE LW_PRESCAN_BLOCK /* what we read at a time */

enum { T_SUBJECT, T_PREDICATE, T_OBJECT, T_GRAPH, T_DATATYPE, T_LANG, T_COUNT };

typedef struct {
  LwReadContext *rc;
  FILE *in;
  bool line_based;              /* N-Triples, N-Quads: absolute IRIs only */
  unsigned serd_errors;         /* serd errors since the last statement */
  unsigned long tags_explained; /* errors at a tag the pre-scanner refused */
  const SerdNode *problem_node; /* the node node_to_term looked at last */
  LwScanner scan;
  LwPrescanThread *prescan; /* stream mode: the scanner's thread, or NULL */
  SerdEnv *env;  /* prefixes, bound to absolute IRIs where possible */
  /* the namespace IRI of the last prefixed name checked (expand_curie), as
   * serd_env_expand gives it, when it is canonical and absolute by its
   * own scheme: its names then need only their local part checked;
   * forgotten at every @prefix (serd frees a namespace rebound) */
  const uint8_t *ns_checked;
  size_t ns_checked_len;
  char *base;    /* the current base IRI (absolute), or NULL */
  LwStatus stop; /* set when reading must end: a cap, the sink, I/O */
  bool at_eof;
  unsigned long end_line; /* where the input ended, once at_eof */
  unsigned long end_column;
  bool trailer_sent; /* after a stop: serd got the trailer to end on */
  bool end_reported; /* the error at the end of the input (or line) is out */
  unsigned long escapes_explained; /* of the scanner's refused escapes */
  unsigned line_error_column;      /* line mode: where the last error was */
  size_t line_out_len; /* line mode: the repaired line's bytes, before the
                        * pre-scanner's ending (lw_scanner_finish) */
  LwBuf terms[T_COUNT];
  /* line mode */
  unsigned long line_no;
  unsigned line_errors;     /* errors reported on the current line */
  unsigned line_statements; /* statements serd gave for the current line */
  LwQuad pending;           /* the line's statement, its strings in terms */
  LwLocation pending_at;
  LwBuf out;   /* repaired bytes for serd */
  LwBuf block; /* input read for the scanner in this thread, PAGE_SIZE (the
                * pre-scanner's thread's blocks: the same reports at the
                * same times) */
  /* stream mode: where errors were reported, to leave out serd's cascades */
  LwBuf seen;              /* SeenAt entries, a queue */
  size_t seen_first;       /* the first entry still in the queue */
  unsigned long serd_line; /* where serd's last reported error was */
  unsigned long serd_column;
  size_t out_pos; /* stream mode: bytes of out already handed on */
  /* stream mode: lines with a character serd may report wrongly as not
   * in a name (LwScanNameCharFunc), a queue of NameCharLine */
  LwBuf name_chars;
  size_t name_chars_first;
  /* stream mode: where serd stands. Paged, serd's own cursor (see
   * SerdReaderView); one byte at a time, the last byte handed to it. */
  const struct SerdReaderView *view; /* NULL: one byte at a time */
  unsigned long at_line;
  unsigned long at_column;
  size_t handed; /* bytes handed to serd, NULs and ends of input too */
  size_t end_at; /* where serd's end of input starts (see after_end), 0:
                  * serd has not asked past the input yet */
  /* line mode: the line being read, as written */
  const char *line_text;
  size_t line_len;
} SerdContext;

/* ---- the byte source: fread, then the pre-scanner ---- */

/* Appended to every input. serd 0.30 in lax mode loops for ever when the
 * input ends inside an IRI (it reads on past the end, one "invalid IRI
 * character" after the other). Outside an IRI these bytes are a comment;
 * inside one, '|' ends it with a syntax error (located at the end of the
 * input, which is where the problem is) and the newline lets serd recover. */
#define TRAILER "#|\n"
#define TRAILER_LEN 3

static void limit_hit(SerdContext *c, LwScanResult r)
{
  const LwScanner *s = &c->scan;
  if (r == LW_SCAN_NOMEM) {
    c->stop = LW_ERR_NOMEM;
    return;
  }
  if (r == LW_SCAN_N3) {
    /* the file is refused whole: a formula's statements seen before the
     * construct that shows it would otherwise stay asserted */
    lw_read_report(c->rc, (unsigned)s->stop_line, (unsigned)s->stop_column,
                   "N3 formulae are not RDF: %s", s->n3);
    lw_error_set(c->rc->err, LW_ERR_FORMAT,
                 "N3 formulae are not RDF: %s at line %lu, column %lu", s->n3, s->stop_line,
                 s->stop_column);
    c->stop = LW_ERR_FORMAT;
    return;
  }
  if (r == LW_SCAN_DEPTH) {
    lw_error_set(c->rc->err, LW_ERR_LIMIT,
                 "line %lu, column %lu: nesting deeper than %u levels", s->stop_line,
                 s->stop_column, s->max_depth);
  } else {
    lw_error_set(c->rc->err, LW_ERR_LIMIT,
                 "line %lu, column %lu: a term longer than %zu bytes", s->stop_line,
                 s->stop_column, s->max_term_bytes);
  }
  c->stop = LW_ERR_LIMIT;
}

static void scanner_error(void *handle, unsigned long line, unsigned long column,
                          const char *message);
static void scanner_name_char(void *handle, unsigned long line, bool starts);

/* c->scan becomes the scanner state the thread had (keeping our callbacks:
 * only the thread scans). */
static void take_scanner(SerdContext *c, const LwScanner *state)
{
  LwScanner own = c->scan;
  c->scan = *state;
  c->scan.on_error = own.on_error;
  c->scan.error_handle = own.error_handle;
  c->scan.on_name_char = own.on_name_char;
  c->scan.name_char_handle = own.name_char_handle;
}

/* Takes the next block the pre-scanner's thread scanned: what scanning it
 * here would have done (see the loop of fill below), its reports replayed
 * now, in order. */
static void take_block(SerdContext *c)
{
  LwPrescanBlock b;
  lw_prescan_thread_next(c->prescan, &b);
  if (b.io_error) {
    c->stop = LW_ERR_IO;
  } else {
    if (b.at_end) {
      c->at_eof = true;
      c->end_line = b.end_line;
      c->end_column = b.end_column;
    }
    if (b.len && lw_buf_append(&c->out, b.bytes, b.len) != LW_OK) {
      c->stop = LW_ERR_NOMEM;
      c->at_eof = true;
    }
    for (size_t i = 0; i < b.n_events; ++i) {
      const LwPrescanEvent *e = &b.events[i];
      if (e->kind == LW_PRESCAN_ERROR) {
        scanner_error(c, e->line, e->column, e->message);
      } else if (e->kind == LW_PRESCAN_NAME_CHAR) {
        scanner_name_char(c, e->line, e->starts);
      } else {
        take_scanner(c, b.at_limit);
        limit_hit(c, e->result);
        c->at_eof = true;
      }
    }
    take_scanner(c, b.scan);
  }
  lw_prescan_thread_release(c->prescan);
}

/* Fills c->out with repaired bytes until it holds want of them, or the
 * input ends (then the trailer follows). */
static void fill(SerdContext *c, size_t want)
{
  while (c->out.len - c->out_pos < want && !c->at_eof && c->stop == LW_OK) {
    if (c->prescan) {
      take_block(c);
      continue;
    }
    if (lw_buf_reserve(&c->block, PAGE_SIZE) != LW_OK) {
      c->stop = LW_ERR_NOMEM;
      return;
    }
    LwScanBlockEnd end;
    LwScanResult r =
      lw_scanner_read_block(&c->scan, c->in, c->block.data, PAGE_SIZE, TRAILER, &c->out, &end);
    if (end.io_error) {
      c->stop = LW_ERR_IO;
      return;
    }
    if (end.at_end) {
      c->at_eof = true;
      c->end_line = end.line;
      c->end_column = end.column;
    }
    if (r != LW_SCAN_OK) {
      limit_hit(c, r);
      c->at_eof = true;
      /* serd may be inside a string (the scanner closes it with a bad
       * escape) or an IRI (the trailer ends it) */
      lw_scanner_finish(&c->scan, &c->out);
      lw_buf_append(&c->out, TRAILER, TRAILER_LEN);
    }
  }
}

/* Moves serd's position over the n bytes handed to it. The pre-scanner
 * adds and removes no line breaks, so lines are the input's; columns count
 * the repaired bytes. */
static void follow(SerdContext *c, const char *bytes, size_t n)
{
  for (size_t i = 0; i < n; ++i) {
    if (bytes[i] == '\n') {
      ++c->at_line;
      c->at_column = 0;
    } else {
      ++c->at_column;
    }
  }
}

#define SERD_PAGE 4096 /* what serd reads at a time */

/* serd 0.30 reads a page at a time (serd_reader_read_source's page_size):
 * it asks for the next page as soon as it has taken the last byte of one,
 * a short page is the end of the input for it, and after the end its lax
 * recovery (skip_until) reads on, for ever unless it meets a NUL. So the end
 * of the input is padded with NULs to the end of serd's page, a page of
 * NULs follows (they end serd's recovery and its statements), then the
 * plain end of input, at every page boundary: serd reads on over its stale
 * page of NULs in between. One byte at a time (page 1) serd is handed the
 * same sequence, byte for byte: given the plain end of input for ever, it
 * would never leave skip_until. */
static size_t after_end(SerdContext *c, void *buf, size_t want)
{
  if (!c->end_at) {
    size_t page_end = (c->handed + SERD_PAGE - 1) / SERD_PAGE * SERD_PAGE;
    c->end_at = page_end + SERD_PAGE;
  }
  bool at_end = c->handed >= c->end_at && c->handed % SERD_PAGE == 0;
  memset(buf, '\0', want); /* what serd's column counts over */
  if (!c->view) {
    follow(c, buf, want);
  }
  c->handed += want;
  return at_end ? 0 : want;
}

static size_t source_read(void *buf, size_t size, size_t nmemb, void *stream)
{
  SerdContext *c = stream;
  size_t want = size * nmemb;
  /* One byte at a time, the pre-scanner runs when serd starts a page as
   * it would have been (so its reports come at the same times) */
  if (want == 1 && c->handed % SERD_PAGE && c->out_pos < c->out.len) {
    char byte = c->out.data[c->out_pos++];
    *(char *)buf = byte;
    follow(c, &byte, 1);
    ++c->handed;
    return 1;
  }
  if (c->stop != LW_OK && c->stop != LW_ERR_LIMIT) {
    /* stopped (sink, I/O): nothing more to read, but serd may be inside an
     * IRI, where a plain end of input would keep it reading for ever */
    if (!c->trailer_sent) { /* what is left unread is dropped */
      c->trailer_sent = true;
      c->at_eof = true;
      lw_buf_reset(&c->out);
      c->out_pos = 0;
      if (lw_buf_append(&c->out, TRAILER, TRAILER_LEN) != LW_OK) {
        return 0;
      }
    }
  }
  fill(c, SERD_PAGE);
  size_t avail = c->out.len - c->out_pos;
  size_t n = avail < want ? avail : want;
  if (n == 0) { /* the end (or a read error: serd asks source_error) */
    return c->at_eof ? after_end(c, buf, want) : 0;
  }
  if (n < want) { /* the last page: padded with NULs */
    memset((char *)buf + n, '\0', want - n);
  }
  memcpy(buf, c->out.data + c->out_pos, n);
  if (!c->view) {
    follow(c, c->out.data + c->out_pos, n);
  }
  c->out_pos += n;
  c->handed += want;
  if (c->out_pos == c->out.len) {
    lw_buf_reset(&c->out);
    c->out_pos = 0;
  } else if (c->out_pos > PAGE_SIZE) { /* keep the buffer small */
    memmove(c->out.data, c->out.data + c->out_pos, c->out.len - c->out_pos);
    c->out.len -= c->out_pos;
    c->out_pos = 0;
  }
  return want;
}

/* ---- where serd stands ---- */

/* serd 0.30 keeps no position one could ask for, but its reader has a
 * cursor for its error messages: this is the start of serd 0.30.16's reader
 * (src/reader.h, src/byte_source.h), read only. It is used only when a probe
 * finds serd's fields where they are said to be (lw_rdf_serd_paged);
 * otherwise serd is fed one byte at a time and the bytes handed to it say
 * where it is. */
typedef struct {
  SerdSource read_func;
  SerdStreamErrorFunc error_func;
  void *stream;
  size_t page_size;
  size_t buf_size;
  struct {
    const uint8_t *filename;
    unsigned line;
    unsigned col;
  } cur;
  uint8_t *file_buf;
  const uint8_t *read_buf;
  size_t read_head;
  uint8_t read_byte;
  bool from_stream;
  bool prepared;
  bool eof;
} SerdSourceView;

struct SerdReaderView {
  void *handle;
  void (*free_handle)(void *ptr);
  SerdBaseSink base_sink;
  SerdPrefixSink prefix_sink;
  SerdStatementSink statement_sink;
  SerdEndSink end_sink;
  SerdErrorSink error_sink;
  void *error_handle;
  size_t rdf_first, rdf_rest, rdf_nil;
  SerdNode default_graph;
  SerdSourceView source;
};

typedef struct {
  const struct SerdReaderView *view;
  bool known;
} LayoutProbe;

/* The probe's source: on serd's first read, are the fields where we look? */
static size_t probe_read(void *buf, size_t size, size_t nmemb, void *stream)
{
  LayoutProbe *p = stream;
  const SerdSourceView *src = &p->view->source;
  p->known = p->view->handle == p && p->view->error_handle == p &&
             src->read_func == probe_read && src->stream == p &&
             src->page_size == SERD_PAGE && src->file_buf == buf && src->read_buf == buf &&
             src->read_head == 0 && src->cur.line == 1 && src->cur.col == 1 &&
             src->from_stream && src->prepared && size * nmemb == SERD_PAGE;
  return 0;
}

static int probe_error(void *stream)
{
  (void)stream;
  return 0;
}

static SerdStatus probe_error_sink(void *handle, const SerdError *e)
{
  (void)handle, (void)e;
  return SERD_SUCCESS;
}

/* Whether serd's reader is laid out as SerdReaderView says (the serd this
 * was built for): read an empty input with a reader whose fields we know. */
static bool serd_paged;

static void probe_layout(void)
{
  LayoutProbe p = {0};
  SerdReader *reader = serd_reader_new(SERD_TURTLE, &p, NULL, NULL, NULL, NULL, NULL);
  if (!reader) {
    return; /* not known: one byte at a time */
  }
  serd_reader_set_error_sink(reader, probe_error_sink, &p);
  p.view = (const struct SerdReaderView *)reader;
  serd_reader_read_source(reader, probe_read, probe_error, &p, (const uint8_t *)"probe",
                          SERD_PAGE);
  serd_reader_free(reader);
  serd_paged = p.known;
}

bool lw_rdf_serd_paged(void)
{
  /* the answer is the linked serd's: probed once per process */
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, probe_layout);
  return serd_paged;
}

/* Where serd stands: after the bytes it has taken and the one it looks at
 * next (so a statement is located just after its object, as when serd had
 * that byte handed to it one at a time). */
static LwLocation serd_stands(const SerdContext *c)
{
  if (!c->view) {
    return (LwLocation){(unsigned)c->at_line, (unsigned)c->at_column};
  }
  const SerdSourceView *src = &c->view->source;
  unsigned line = src->cur.line;
  /* serd counts columns from 1 on the first line, from 0 after */
  unsigned column = line == 1 ? src->cur.col - 1 : src->cur.col;
  uint8_t next = src->eof ? 0 : src->read_buf[src->read_head];
  if (next == '\n') {
    ++line;
    column = 0;
  } else if (next) { /* a NUL: the end of the input */
    ++column;
  }
  return (LwLocation){line, column};
}

/* Stream mode: serd reports one problem several times at one place ("invalid
 * hex digit", "invalid escape", "expected ']'"), and the scanner reports a
 * problem before serd stumbles on it. The scanner's reports are queued (it
 * runs ahead of serd, in line order); a serd error on the same line at or
 * after a queued column, or after serd's own last error on that line, is the
 * same problem. */
typedef struct {
  unsigned long line;
  unsigned long column;
} SeenAt;

static void remember(SerdContext *c, unsigned long line, unsigned long column)
{
  SeenAt at = {line, column};
  if (c->seen_first > 4096 && c->seen_first * 2 * sizeof(SeenAt) > c->seen.len) {
    size_t used = c->seen_first * sizeof(SeenAt); /* drop what serd passed */
    memmove(c->seen.data, c->seen.data + used, c->seen.len - used);
    c->seen.len -= used;
    c->seen_first = 0;
  }
  lw_buf_append(&c->seen, &at, sizeof(at)); /* out of memory: a double count */
}

static bool cascade(SerdContext *c, unsigned long line, unsigned long column)
{
  size_t n = c->seen.len / sizeof(SeenAt);
  SeenAt at;
  for (; c->seen_first < n; ++c->seen_first) { /* behind serd now */
    memcpy(&at, c->seen.data + c->seen_first * sizeof(SeenAt), sizeof(at));
    if (at.line >= line) {
      break;
    }
  }
  for (size_t i = c->seen_first; i < n; ++i) {
    memcpy(&at, c->seen.data + i * sizeof(SeenAt), sizeof(at));
    if (at.line != line) {
      break;
    }
    if (column >= at.column) {
      return true;
    }
  }
  return false;
}

/* A line with characters serd may report wrongly (inner: not at the
 * start of a name) or rightly (starts). */
typedef struct {
  unsigned long line;
  unsigned long inner;
  bool starts;
} NameCharLine;

#define NAME_CHAR_LINES_MAX 65536 /* beyond, serd's reports stay */

static NameCharLine *name_char_line(const SerdContext *c, size_t i)
{
  return (NameCharLine *)(c->name_chars.data + i * sizeof(NameCharLine));
}

static size_t name_char_lines(const SerdContext *c)
{
  return c->name_chars.len / sizeof(NameCharLine);
}

static void scanner_name_char(void *handle, unsigned long line, bool starts)
{
  SerdContext *c = handle;
  size_t n = name_char_lines(c);
  if (n > c->name_chars_first && name_char_line(c, n - 1)->line == line) {
    NameCharLine *last = name_char_line(c, n - 1);
    last->inner += !starts;
    last->starts = last->starts || starts;
    return;
  }
  if (c->name_chars_first > 1024 && c->name_chars_first * 2 > n) {
    size_t used = c->name_chars_first * sizeof(NameCharLine); /* serd has passed them */
    memmove(c->name_chars.data, c->name_chars.data + used, c->name_chars.len - used);
    c->name_chars.len -= used;
    n -= c->name_chars_first;
    c->name_chars_first = 0;
  }
  NameCharLine l = {line, !starts, starts};
  if (n - c->name_chars_first < NAME_CHAR_LINES_MAX) {
    lw_buf_append(&c->name_chars, &l, sizeof(l)); /* out of memory: reported */
  }
}

/* Forgets the lines before line: serd has passed them. */
static void name_chars_passed(SerdContext *c, unsigned long line)
{
  size_t n = name_char_lines(c);
  while (c->name_chars_first < n && name_char_line(c, c->name_chars_first)->line < line) {
    ++c->name_chars_first;
  }
}

/* serd's "invalid character U+00B7 in name" for a character that does not
 * start the name: a name may hold it (see LwScanNameCharFunc). When a line
 * also has one that starts a name, serd's reports there all stay. */
static bool wrongly_invalid(SerdContext *c, unsigned long line, const char *message)
{
  unsigned code;
  if (sscanf(message, "invalid character U+%X in name", &code) != 1 ||
      !(code == 0xB7 || (code >= 0x300 && code <= 0x36F) || code == 0x203F ||
        code == 0x2040)) {
    return false;
  }
  name_chars_passed(c, line);
  if (c->name_chars_first == name_char_lines(c)) {
    return false;
  }
  NameCharLine *l = name_char_line(c, c->name_chars_first);
  if (l->line != line || l->starts || !l->inner) {
    return false;
  }
  --l->inner;
  return true;
}

static void scanner_error(void *handle, unsigned long line, unsigned long column,
                          const char *message)
{
  SerdContext *c = handle;
  if (c->line_based) {
    ++c->line_errors; /* the line is skipped, serd does not see it */
    line = c->line_no;
  } else {
    remember(c, line, column);
  }
  lw_read_report(c->rc, (unsigned)line, (unsigned)column, "%s", message);
}

static int source_error(void *stream)
{
  const SerdContext *c = stream;
  return c->stop == LW_ERR_IO;
}

/* ---- errors ---- */

/* serd's message for an error past the last byte of the input (or of a
 * line), in message, made to say what happened: serd names a character
 * there that is not in the input (the trailer's '|', the pre-scanner's
 * 'Z' or "\\Z", '?' or an escape %FFFFFFFF for its own end). */
static void end_message(const SerdContext *c, char *message, size_t size)
{
  /* a line-based reader sees lines (the cleaner hands it batches of them,
   * each with its line break): a term never goes on past one */
  const char *end = c->line_based ? "line" : "input";
  const char *inside = c->scan.end_inside;
  if (inside) {
    snprintf(message, size, "end of %s inside %s", end, inside);
  } else if (strchr(message, '`') || strstr(message, "%FFFFFFFF") ||
             (c->line_based && strstr(message, "end of file"))) {
    snprintf(message, size, "unexpected end of %s", end);
  } else if (!strstr(message, "end of file")) {
    char said[LW_ERROR_MESSAGE_MAX];
    snprintf(said, sizeof(said), "%s", message);
    snprintf(message, size, "unexpected end of %s: %s", end, said);
  }
}

/* serd's "invalid hexadecimal digit `Z'" for an escape the pre-scanner
 * refused (its last digit made a 'Z': see bad_code_point), in message,
 * made to say why: the escape on that line the scanner refused next. */
static void refused_escape(SerdContext *c, unsigned long line, char *message, size_t size)
{
  const LwScanner *s = &c->scan;
  size_t ring = sizeof(s->refused) / sizeof(s->refused[0]);
  unsigned long first = s->escapes_refused > ring ? s->escapes_refused - ring : 0;
  if (strcmp(message, "invalid hexadecimal digit `Z'\n") &&
      strcmp(message, "invalid hexadecimal digit `Z'")) {
    return;
  }
  c->escapes_explained = c->escapes_explained > first ? c->escapes_explained : first;
  for (; c->escapes_explained < s->escapes_refused; ++c->escapes_explained) {
    size_t k = c->escapes_explained % ring;
    if (s->refused[k].line < line) {
      continue;
    }
    if (s->refused[k].line > line) {
      return;
    }
    uint32_t cp = s->refused[k].code_point;
    ++c->escapes_explained;
    if (cp >= 0xD800 && cp <= 0xDFFF) {
      snprintf(message, size, "escape of a surrogate (U+%04X), which is no character", cp);
    } else if (cp > 0x10FFFF) {
      snprintf(message, size, "escape beyond Unicode (U+%X)", cp);
    } else {
      snprintf(message, size, "escape of U+%04X in an IRI, which IRIs may not hold", cp);
    }
    return;
  }
}

static SerdStatus on_serd_error(void *handle, const SerdError *e)
{
  SerdContext *c = handle;
  if (c->stop != LW_OK) {
    return SERD_SUCCESS; /* an artefact of cutting the input short */
  }
  char message[LW_ERROR_MESSAGE_MAX];
  va_list args;
  va_copy(args, *e->args);
  vsnprintf(message, sizeof(message), e->fmt, args);
  va_end(args);
  refused_escape(c, c->line_based ? c->line_no : e->line, message, sizeof(message));
  if (c->line_based) { /* serd saw one line: its line 1 */
    if (c->line_errors && e->col == c->line_error_column) {
      return SERD_SUCCESS; /* serd's follow-up at the same place */
    }
    c->line_error_column = e->col;
    if (e->col > c->line_out_len) { /* past the line's last byte */
      if (c->end_reported) {
        return SERD_SUCCESS; /* one problem, one error */
      }
      c->end_reported = true;
      end_message(c, message, sizeof(message));
    }
    ++c->line_errors;
    lw_read_report(c->rc, (unsigned)c->line_no, e->col, "%s", message);
    return SERD_SUCCESS;
  }
  ++c->serd_errors;
  /* serd counts columns from 0 after the first line, and from 1 on it, but
   * one byte at a time it counts one more there (the byte it starts with) */
  unsigned long line = e->line;
  unsigned long column = e->line > 1 || c->view ? e->col + 1 : e->col;
  if (wrongly_invalid(c, e->line, message)) {
    return SERD_SUCCESS;
  }
  bool at_end = c->end_line && (line > c->end_line ||
                                 (line == c->end_line && column > c->end_column));
  if (at_end) {
    line = c->end_line; /* serd read on over the trailer and the NULs */
    column = c->end_column;
  }
  if (cascade(c, line, column) || (line == c->serd_line && column >= c->serd_column) ||
      (at_end && c->end_reported)) {
    return SERD_SUCCESS;
  }
  if (at_end) {
    c->end_reported = true;
    end_message(c, message, sizeof(message));
  }
  c->serd_line = line;
  c->serd_column = column;
  if (!strncmp(message, "unexpected `-'", 14) && c->tags_explained < c->scan.tags_refused) {
    /* the pre-scanner's "@-" in front of a tag that "^^" follows */
    ++c->tags_explained;
    snprintf(message, sizeof(message), "a literal with a language tag and a datatype");
  }
  lw_read_report(c->rc, (unsigned)line, (unsigned)column, "%s", message);
  return SERD_SUCCESS;
}

/* ---- terms ---- */

static void set_term(LwTerm *t, LwTermType type, const LwBuf *b)
{
  t->type = type;
  t->value = b->data ? b->data : "";
  t->len = b->len;
  t->datatype = NULL;
  t->lang = NULL;
  t->canonical = false;
}

/* Makes value (len bytes) an absolute IRI in b: as it is, or resolved
 * against the base; *canonical as lw_read_iri_chars_check says, when it
 * is kept as it is. Returns a problem description, or NULL. */
static const char *absolute_iri(SerdContext *c, const char *value, size_t len, LwBuf *b,
                                bool *canonical)
{
  lw_buf_reset(b);
  bool plain = false;
  /* serd's strict mode (line by line) refuses such IRIs itself */
  bool chars_ok = c->line_based || lw_read_iri_chars_check(value, len, &plain);
  if (!plain && memchr(value, '\0', len)) {
    return "NUL in IRI";
  }
  if (!chars_ok) {
    return "invalid character in IRI";
  }
  if (lw_uri_is_absolute(value)) {
    *canonical = plain;
    return lw_buf_append(b, value, len) == LW_OK ? NULL : "out of memory";
  }
  if (c->line_based) {
    return "relative IRI (N-Triples and N-Quads need absolute IRIs)";
  }
  if (!c->base) {
    return "relative IRI and no base IRI";
  }
  char *resolved = lw_uri_resolve(c->base, value);
  if (!resolved) {
    return "cannot resolve relative IRI";
  }
  LwStatus st = lw_buf_append_str(b, resolved);
  free(resolved);
  return st == LW_OK ? NULL : "out of memory";
}

/* A prefixed name's IRI in b. A Turtle dump names thousands of things in
 * one namespace: the namespace is checked once (ns_checked), then only
 * each name's local part. */
static const char *expand_curie(SerdContext *c, const SerdNode *n, LwBuf *b,
                                bool *canonical)
{
  SerdChunk prefix;
  SerdChunk suffix;
  if (serd_env_expand(c->env, n, &prefix, &suffix) != SERD_SUCCESS) {
    return "undefined prefix";
  }
  lw_buf_reset(b);
  if (lw_buf_append(b, prefix.buf, prefix.len) != LW_OK ||
      lw_buf_append(b, suffix.buf, suffix.len) != LW_OK) {
    return "out of memory";
  }
  if (prefix.buf == c->ns_checked && prefix.len == c->ns_checked_len &&
      lw_span_iri_plain((const char *)suffix.buf, suffix.len, true) == suffix.len) {
    *canonical = true;
    return NULL;
  }
  if (!lw_read_iri_chars_check(b->data, b->len, canonical)) {
    return "invalid character in IRI";
  }
  if (!lw_uri_is_absolute(b->data)) {
    return "prefix bound to a relative IRI and no base IRI";
  }
  /* the scheme ends at the first ':', so one in the namespace is its own */
  if (*canonical && memchr(prefix.buf, ':', prefix.len)) {
    c->ns_checked = prefix.buf;
    c->ns_checked_len = prefix.len;
  }
  return NULL;
}

/* Converts a serd node into an LwTerm stored in b. Returns a problem
 * description (the statement is then skipped), or NULL. */
static const char *node_to_term(SerdContext *c, const SerdNode *n, LwBuf *b, LwTerm *t)
{
  const char *value = (const char *)n->buf;
  const char *problem = NULL;
  LwTermType type = LW_TERM_NONE;
  bool canonical = false;
  c->problem_node = n; /* what a report quotes */
  switch (n->type) {
  case SERD_URI:
    type = LW_TERM_IRI;
    problem = absolute_iri(c, value, n->n_bytes, b, &canonical);
    break;
  case SERD_CURIE:
    type = LW_TERM_IRI;
    problem = expand_curie(c, n, b, &canonical);
    break;
  case SERD_BLANK:
    type = LW_TERM_BLANK;
    lw_buf_reset(b);
    problem = lw_buf_append(b, value, n->n_bytes) ? "out of memory" : NULL;
    break;
  case SERD_LITERAL:
    type = LW_TERM_LITERAL;
    lw_buf_reset(b);
    problem = lw_buf_append(b, value, n->n_bytes) ? "out of memory" : NULL;
    break;
  default:
    return "unexpected node";
  }
  if (problem) {
    return problem;
  }
  /* ASCII is UTF-8: one look at the bytes for the usual term */
  canonical = canonical || lw_read_plain(type, b->data, b->len);
  if (!canonical && !lw_utf8_valid(b->data, b->len)) {
    return "invalid UTF-8 or escape";
  }
  if (b->len > c->rc->max_term_bytes) {
    return "term too long";
  }
  set_term(t, type, b);
  t->canonical = canonical;
  return NULL;
}

static const char *literal_extras(SerdContext *c, const SerdNode *datatype,
                                  const SerdNode *lang, LwTerm *t)
{
  if (datatype && datatype->buf) {
    LwTerm dt;
    const char *problem = node_to_term(c, datatype, &c->terms[T_DATATYPE], &dt);
    if (problem) {
      return problem;
    }
    if (dt.type != LW_TERM_IRI || memchr(dt.value, '\0', dt.len)) {
      return "bad datatype";
    }
    t->datatype = dt.value;
  }
  if (lang && lang->buf && lang->n_bytes) {
    if (!lw_utf8_valid((const char *)lang->buf, lang->n_bytes)) {
      return "invalid UTF-8 in language tag";
    }
    LwBuf *b = &c->terms[T_LANG];
    lw_buf_reset(b);
    if (lw_buf_append(b, lang->buf, lang->n_bytes) != LW_OK) {
      return "out of memory";
    }
    t->lang = b->data;
  }
  return NULL;
}

/* The node a report quotes, as written (a prefixed name the scanner renamed
 * is given back its name). */
static const char *quoted(const SerdNode *n)
{
  const char *text = (const char *)n->buf;
  return n->type == SERD_CURIE ? lw_scanner_written_name(text) : text;
}

/* Where the statement q is: line mode, its line and the column of the
 * object when it is a literal (the first '"': no IRI or blank node label of
 * N-Triples holds one), else 1; stream mode, where serd stands. */
static LwLocation locate(const SerdContext *c, const LwQuad *q)
{
  if (!c->line_based) {
    return serd_stands(c);
  }
  const char *quote = q->object.type == LW_TERM_LITERAL
                        ? memchr(c->line_text, '"', c->line_len)
                        : NULL;
  return (LwLocation){(unsigned)c->line_no,
                      quote ? (unsigned)(quote - c->line_text) + 1 : 1};
}

/* The location of a directive: where serd stands (0 in line mode, where
 * there are none). */
static unsigned here_line(const SerdContext *c)
{
  return c->line_based ? (unsigned)c->line_no : serd_stands(c).line;
}

static unsigned here_column(const SerdContext *c)
{
  return c->line_based ? 1 : serd_stands(c).column;
}

static SerdStatus on_statement(void *handle, SerdStatementFlags flags,
                               const SerdNode *graph, const SerdNode *subject,
                               const SerdNode *predicate, const SerdNode *object,
                               const SerdNode *datatype, const SerdNode *lang)
{
  (void)flags;
  SerdContext *c = handle;
  if (c->stop != LW_OK) {
    return SERD_ERR_INTERNAL;
  }
  LwQuad q = {0};
  const char *problem = node_to_term(c, subject, &c->terms[T_SUBJECT], &q.subject);
  if (!problem) {
    problem = node_to_term(c, predicate, &c->terms[T_PREDICATE], &q.predicate);
  }
  if (!problem) {
    problem = node_to_term(c, object, &c->terms[T_OBJECT], &q.object);
  }
  if (!problem && q.object.type == LW_TERM_LITERAL) {
    problem = literal_extras(c, datatype, lang, &q.object);
  }
  if (!problem && graph && graph->buf) {
    problem = node_to_term(c, graph, &c->terms[T_GRAPH], &q.graph);
  }
  if (!problem && (q.predicate.type != LW_TERM_IRI || q.subject.type == LW_TERM_LITERAL ||
                   q.graph.type == LW_TERM_LITERAL)) {
    problem = "term of the wrong kind";
  }
  LwLocation at = locate(c, &q);
  name_chars_passed(c, at.line);
  if (c->line_based) {
    if (problem) {
      ++c->line_errors;
      lw_read_report(c->rc, at.line, at.column, "%s: %.80s", problem,
                     quoted(c->problem_node));
    } else if (++c->line_statements == 1) {
      c->pending = q; /* goes out when the line is done, if it was good */
      c->pending_at = at;
    }
    return SERD_SUCCESS;
  }
  unsigned serd_errors = c->serd_errors;
  c->serd_errors = 0;
  if (problem) {
    /* serd's lax mode hands on what it complained about (an IRI with a
     * space, say): skip it, and count it once */
    if (!serd_errors) {
      lw_read_report(c->rc, at.line, at.column, "%s: %.80s, statement skipped", problem,
                     quoted(c->problem_node));
    }
    return SERD_SUCCESS;
  }
  LwStatus st = lw_read_emit(c->rc, &q, at.line, at.column);
  if (st > LW_NOTHING) {
    c->stop = st;
    return SERD_ERR_INTERNAL;
  }
  return SERD_SUCCESS;
}

/* ---- directives ---- */

static SerdStatus on_base(void *handle, const SerdNode *uri)
{
  SerdContext *c = handle;
  const char *value = (const char *)uri->buf;
  char *next = NULL;
  if (lw_uri_is_absolute(value)) {
    next = strdup(value);
  } else if (c->base) {
    next = lw_uri_resolve(c->base, value);
  }
  if (!next) {
    lw_read_report(c->rc, here_line(c), here_column(c),
                   "relative base IRI <%s> and no base IRI", value);
  }
  free(c->base);
  c->base = next;
  return SERD_SUCCESS;
}

static SerdStatus on_prefix(void *handle, const SerdNode *name, const SerdNode *uri)
{
  SerdContext *c = handle;
  const char *value = (const char *)uri->buf;
  char *resolved = NULL;
  if (!lw_uri_is_absolute(value) && c->base) {
    resolved = lw_uri_resolve(c->base, value);
  }
  const char *target = resolved ? resolved : value;
  if (!lw_uri_is_absolute(target)) {
    lw_read_report(c->rc, here_line(c), here_column(c),
                   "prefix %s: bound to relative IRI <%s>",
                   lw_scanner_written_name((const char *)name->buf), value);
  }
  serd_env_set_prefix_from_strings(c->env, name->buf, (const uint8_t *)target);
  c->ns_checked = NULL; /* a namespace rebound is freed */
  free(resolved);
  return SERD_SUCCESS;
}

/* ---- reading ---- */

static SerdSyntax serd_syntax(LwFormat format)
{
  switch (format) {
  case LW_FORMAT_NTRIPLES:
    return SERD_NTRIPLES;
  case LW_FORMAT_NQUADS:
    return SERD_NQUADS;
  case LW_FORMAT_TRIG:
    return SERD_TRIG;
  default:
    return SERD_TURTLE;
  }
}

static LwStatus finish(SerdContext *c, SerdStatus st)
{
  LwReadContext *rc = c->rc;
  if (c->stop == LW_ERR_LIMIT || (c->stop == LW_ERR_FORMAT && c->scan.n3)) {
    return c->stop; /* message set where the cap was hit, or N3 found */
  }
  if (c->stop == LW_ERR_IO) {
    return lw_error_set(rc->err, LW_ERR_IO, "read error");
  }
  if (c->stop == LW_ERR_NOMEM) {
    return lw_error_set(rc->err, LW_ERR_NOMEM, "out of memory");
  }
  if (c->stop != LW_OK) {
    return lw_error_set(rc->err, c->stop, "stopped by the statement sink");
  }
  if (st > SERD_FAILURE && !c->end_at) {
    /* serd gave up before the end (a corrupt byte order mark) */
    return lw_error_set(rc->err, LW_ERR_SYNTAX, "cannot read on after a syntax error");
  }
  return LW_OK;
}

/* ---- N-Triples and N-Quads, line by line ---- */

static bool blank_line(const char *line, size_t len)
{
  for (size_t i = 0; i < len; ++i) {
    char ch = line[i];
    if (ch == '#') {
      return true;
    }
    if (ch != ' ' && ch != '\t' && ch != '\r') {
      return false;
    }
  }
  return true;
}

/* Reads one line (len bytes, no '\n'): repaired by the scanner, then given
 * to serd. A statement goes out only when its line had no error. */
static void read_line(SerdContext *c, SerdReader *reader, const char *line, size_t len)
{
  ++c->line_no;
  if (c->line_no == 1 && len >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
    line += 3, len -= 3; /* a byte order mark */
  }
  if (blank_line(line, len)) {
    return;
  }
  c->line_text = line;
  c->line_len = len;
  c->line_errors = 0;
  c->line_statements = 0;
  c->end_reported = false;
  lw_buf_reset(&c->out);
  lw_scanner_sync(&c->scan);
  c->scan.line = c->line_no;
  c->scan.column = 0;
  LwScanResult r = lw_scanner_feed(&c->scan, line, len, &c->out);
  c->line_out_len = c->out.len;
  if (r == LW_SCAN_OK) {
    r = lw_scanner_finish(&c->scan, &c->out);
  }
  if (r != LW_SCAN_OK) {
    limit_hit(c, r);
    return;
  }
  if (c->line_errors) {
    return; /* the scanner reported it (invalid UTF-8) */
  }
  serd_reader_read_string(reader, (const uint8_t *)c->out.data);
  if (c->stop != LW_OK || c->line_errors) {
    return;
  }
  if (c->line_statements != 1) {
    lw_read_report(c->rc, (unsigned)c->line_no, 1,
                   c->line_statements ? "more than one statement on a line"
                                      : "not a statement");
    return;
  }
  LwStatus st = lw_read_emit(c->rc, &c->pending, c->pending_at.line, c->pending_at.column);
  if (st > LW_NOTHING) {
    c->stop = st;
  }
}

/* The end of the line starting at p (LF, CRLF or a lone CR: EOL ::=
 * [#xD#xA]+), searched from p + *searched (the bytes before hold no line
 * break), with *next set to where the next line starts; NULL when more input
 * is needed to tell (then *searched grows, so that a long line is searched
 * once, not again for every block read). */
static const char *line_end(const char *p, const char *end, bool at_eof, size_t *searched,
                            const char **next)
{
  const char *from = p + *searched;
  const char *nl = memchr(from, '\n', (size_t)(end - from));
  const char *cr = memchr(from, '\r', (size_t)((nl ? nl : end) - from));
  if (cr && cr + 1 == end && !at_eof) {
    *searched = (size_t)(cr - p); /* CR at the end of the block: maybe CRLF */
    return NULL;
  }
  if (cr) {
    *next = cr + 1 < end && cr[1] == '\n' ? cr + 2 : cr + 1;
    return cr;
  }
  if (nl) {
    *next = nl + 1;
    return nl;
  }
  if (at_eof && p < end) {
    *next = end;
    return end;
  }
  *searched = (size_t)(end - p);
  return NULL;
}

static LwStatus read_lines(SerdContext *c, SerdReader *reader)
{
  size_t max_line = 4 * c->rc->max_term_bytes + 4096;
  LwBuf buf = LW_BUF_INIT; /* unread bytes: at most a line and a block */
  size_t start = 0;        /* where the next line starts in buf */
  size_t searched = 0;     /* bytes from start that hold no line break */
  while (c->stop == LW_OK) {
    const char *p = buf.data ? buf.data + start : NULL;
    const char *next = NULL;
    const char *end = p ? line_end(p, buf.data + buf.len, c->at_eof, &searched, &next)
                        : NULL;
    if (end) {
      read_line(c, reader, p, (size_t)(end - p));
      start = (size_t)(next - buf.data);
      searched = 0;
      continue;
    }
    if (c->at_eof) {
      break;
    }
    if (buf.len - start > max_line) {
      lw_error_set(c->rc->err, LW_ERR_LIMIT, "line %lu: longer than %zu bytes",
                   c->line_no + 1, max_line);
      c->stop = LW_ERR_LIMIT;
      break;
    }
    /* move the partial line to the front, then read more */
    if (start) {
      memmove(buf.data, buf.data + start, buf.len - start);
    }
    buf.len -= start;
    start = 0;
    if (lw_buf_reserve(&buf, PAGE_SIZE) != LW_OK) {
      c->stop = LW_ERR_NOMEM;
      break;
    }
    size_t got = fread(buf.data + buf.len, 1, PAGE_SIZE, c->in);
    buf.len += got;
    buf.data[buf.len] = '\0';
    if (got == 0) {
      if (ferror(c->in)) {
        c->stop = LW_ERR_IO;
      }
      c->at_eof = true;
    }
  }
  lw_buf_free(&buf);
  return finish(c, SERD_SUCCESS);
}

/* ---- Turtle and TriG, streamed ---- */

static LwStatus read_stream(SerdContext *c, SerdReader *reader)
{
  /* In pages where we can ask serd where it stands (see SerdReaderView),
   * else one byte at a time, where the bytes handed to it say it (follow). */
  bool paged = !c->rc->serd_bytewise && lw_rdf_serd_paged();
  c->view = paged ? (const struct SerdReaderView *)reader : NULL;
  c->at_line = 1;
  if (!c->rc->prescan_inline &&
      lw_prescan_thread_start(c->in, &c->scan, TRAILER, &c->prescan, c->rc->err) != LW_OK) {
    return c->rc->err->status;
  }
  SerdStatus st = serd_reader_read_source(reader, source_read, source_error, c,
                                          (const uint8_t *)"input", paged ? SERD_PAGE : 1);
  lw_prescan_thread_stop(c->prescan);
  c->prescan = NULL;
  return finish(c, st);
}

LwStatus lw_rdf_read_serd(FILE *in, LwReadContext *rc)
{
  const LwReadOptions *o = rc->options;
  SerdContext c = {.rc = rc, .in = in, .stop = LW_OK};
  c.line_based = o->format == LW_FORMAT_NTRIPLES || o->format == LW_FORMAT_NQUADS;
  lw_scanner_init(&c.scan, !c.line_based, rc->max_depth, rc->max_term_bytes, scanner_error,
                  &c);
  if (!c.line_based) {
    c.scan.on_name_char = scanner_name_char;
    c.scan.name_char_handle = &c;
  }
  if (o->base_iri && !lw_uri_is_absolute(o->base_iri)) {
    return lw_error_set(rc->err, LW_ERR_USAGE, "base IRI <%s> is not absolute",
                        o->base_iri);
  }
  if (o->base_iri && !(c.base = strdup(o->base_iri))) {
    return lw_error_set(rc->err, LW_ERR_NOMEM, "out of memory");
  }
  c.env = serd_env_new(NULL);
  SerdReader *reader = serd_reader_new(serd_syntax(o->format), &c, NULL, on_base, on_prefix,
                                       on_statement, NULL);
  if (!c.env || !reader) {
    serd_env_free(c.env);
    serd_reader_free(reader);
    free(c.base);
    return lw_error_set(rc->err, LW_ERR_NOMEM, "out of memory");
  }
  /* Line by line we recover ourselves, and serd's strict mode is the one
   * that does not read on for ever at the end of a broken line. */
  serd_reader_set_strict(reader, c.line_based);
  serd_reader_set_error_sink(reader, on_serd_error, &c);
  LwStatus result = c.line_based ? read_lines(&c, reader) : read_stream(&c, reader);
  serd_reader_free(reader);
  serd_env_free(c.env);
  free(c.base);
  for (int i = 0; i < T_COUNT; ++i) {
    lw_buf_free(&c.terms[i]);
  }
  lw_buf_free(&c.out);
  lw_buf_free(&c.block);
  lw_buf_free(&c.seen);
  lw_buf_free(&c.name_chars);
  return result;
}
