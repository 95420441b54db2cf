/* fopencookie: a gzip-compressed input read through a FILE. */
#define _GNU_SOURCE
#include "clean/clean.h"

#include <errno.h>
#include <zlib.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "rdf/rdf.h"
#include "files/files.h"
#include "rdf_readers/rdf_readers.h"

#define INPUT_BUFFER ((size_t)1 << 20)
/* Lines the fast path did not take are read in batches of at most this
 * many lines or bytes (a dirty batch is read again line by line). */
#define BATCH_LINES 256
#define BATCH_BYTES ((size_t)64 << 10)
/* No line of a line-based file may be longer (the reader's term cap is
 * 16 MiB; a statement has at most five terms). */
#define MAX_LINE_BYTES ((size_t)96 << 20)
#define DATATYPE_MAX 255
/* The default sort budget (as nq_sort.c's) and the line queue's block. */
#define DEFAULT_MEMORY ((size_t)256 << 20)
#define QUEUE_BLOCK ((size_t)1 << 20)
/* A quarter of the budget, up to this much, goes to the line queue: while
 * the sorter's thread writes a full arena out as a run, the parser goes on
 * filling the queue instead of waiting (a 256 MiB arena takes about 0.3 s to
 * write; the parser makes about 50 MB of lines in that time). */
#define QUEUE_SHARE 4
#define MAX_QUEUE_EXTRA ((size_t)60 << 20)

typedef struct {
  const LwCleanOptions *options;
  LwCleanReport *report;
  LwSorter *sorter;
  LwLineQueue *queue; /* to the sorter on its own thread; NULL: called here */
  const char *skolem_base;
  const char *seed_hash;
  char seed_buf[LW_HASH_HEX_LEN + 1]; /* the default seed hash */
  size_t max_errors;
  LwBuf line;      /* the canonical line being built */
  LwSkolem skolem; /* blank nodes to well-known IRIs */
  LwError err;     /* why on_quad stopped the reader */
  /* Fast path: the lines left for the reader, and their line numbers. */
  LwBuf batch;
  unsigned long *batch_lines;
  size_t batch_n, batch_cap;
  bool in_batch;       /* the reader is reading the batch */
  LwLocation location; /* where the reader found the statement in on_quad */
  LwBuf *pending;      /* when set, on_quad keeps lines here, not in the sort */
  LwBuf pending_buf;
} CleanContext;

/* ---- the report ---------------------------------------------------------- */

const char *lw_clean_error_kind_name(LwCleanErrorKind kind)
{
  switch (kind) {
  case LW_CLEAN_ERROR_SYNTAX:
    return "syntax";
  case LW_CLEAN_ERROR_LITERAL:
    return "literal";
  case LW_CLEAN_ERROR_LANGTAG:
    return "langtag";
  }
  return "unknown";
}

void lw_clean_report_free(LwCleanReport *report)
{
  if (!report) {
    return;
  }
  for (size_t i = 0; i < report->n_errors; ++i) {
    free(report->errors[i].message);
  }
  free(report->errors);
  report->errors = NULL;
  report->n_errors = 0;
}

char *lw_clean_report_errors_json(const LwCleanReport *report)
{
  json_t *list = json_array();
  for (size_t i = 0; list && i < report->n_errors; ++i) {
    const LwCleanError *e = &report->errors[i];
    json_array_append_new(
      list, json_pack("{s:s, s:I, s:I, s:s}", "kind", lw_clean_error_kind_name(e->kind),
                      "line", (json_int_t)e->line, "column", (json_int_t)e->column,
                      "message", e->message ? e->message : ""));
  }
  char *text = list ? json_dumps(list, JSON_COMPACT) : NULL;
  json_decref(list);
  return text;
}

/* Keeps the error when there is room for more samples. */
static void sample_error(CleanContext *c, LwCleanErrorKind kind, unsigned line,
                         unsigned column, const char *fmt, ...)
  __attribute__((format(printf, 5, 6)));

static void sample_error(CleanContext *c, LwCleanErrorKind kind, unsigned line,
                         unsigned column, const char *fmt, ...)
{
  LwCleanReport *r = c->report;
  if (r->n_errors >= c->max_errors) {
    return;
  }
  LwCleanError *list = realloc(r->errors, (r->n_errors + 1) * sizeof(*list));
  if (!list) {
    return; /* a sample lost, the count stays right */
  }
  r->errors = list;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  char *copy = strdup(msg);
  if (!copy) {
    return;
  }
  list[r->n_errors++] = (LwCleanError){kind, line, column, copy};
}

/* ---- the statement pipeline ---------------------------------------------- */

/* A canonical line for the sort: through the queue to the sorter's thread,
 * or straight to the sorter when single-threaded. */
static LwStatus sort_line(CleanContext *c, const char *line, size_t len, LwError *err)
{
  return c->queue ? lw_line_queue_put(c->queue, line, len, err)
                  : lw_sorter_add(c->sorter, line, len, err);
}

static LwStatus sorter_consume(void *handle, const char *line, size_t len, LwError *err)
{
  return lw_sorter_add(handle, line, len, err);
}

static void on_syntax_error(void *handle, unsigned line, unsigned column,
                            const char *message)
{
  CleanContext *c = handle;
  c->report->syntax_errors++;
  sample_error(c, LW_CLEAN_ERROR_SYNTAX, line, column, "%s", message);
}

/* The same for a batch of lines: batch line numbers become file lines. */
static void on_batch_error(void *handle, unsigned line, unsigned column,
                           const char *message)
{
  CleanContext *c = handle;
  /* Past the last line: the reader saw the end of the batch. */
  if (line > c->batch_n) {
    line = (unsigned)c->batch_n;
  }
  unsigned file_line = line >= 1 ? (unsigned)c->batch_lines[line - 1] : 0;
  on_syntax_error(handle, file_line, file_line ? column : 0, message);
}

#define RDF_LANGSTRING "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"

/* appended to the message of a literal error whose statement is dropped */
#define DROPPED "; statement dropped"

/* Counts a bad language tag or lexical form (datatype NUL-terminated).
 * Returns false when the literal has no valid N-Quads form: a malformed
 * language tag, rdf:langString without a tag, a tag with another datatype
 * (lax readers hand on what they can); its statement is dropped
 * (docs/parse.md, "Canonical N-Quads"). A lexical form invalid for its
 * datatype is still valid N-Quads: kept. */
static bool check_literal_parts(CleanContext *c, unsigned line, unsigned column,
                                const char *lexical, size_t len, const char *datatype,
                                const char *lang, size_t lang_len)
{
  int shown = lang_len > 64 ? 64 : (int)lang_len;
  if (lang && !lw_langtag_valid_n(lang, lang_len)) {
    c->report->literal_errors++;
    sample_error(c, LW_CLEAN_ERROR_LANGTAG, line, column,
                 "malformed language tag \"%.*s\"" DROPPED, shown, lang);
    return false;
  }
  if (lang && datatype && strcmp(datatype, RDF_LANGSTRING)) {
    c->report->literal_errors++;
    sample_error(c, LW_CLEAN_ERROR_LANGTAG, line, column,
                 "language tag \"%.*s\" with the datatype <%.200s>" DROPPED, shown, lang,
                 datatype);
    return false;
  }
  if (!lang && datatype && !strcmp(datatype, RDF_LANGSTRING)) {
    c->report->literal_errors++;
    sample_error(c, LW_CLEAN_ERROR_LANGTAG, line, column,
                 "rdf:langString without a language tag" DROPPED);
    return false;
  }
  if (!lang && datatype && !lw_literal_valid(datatype, lexical, len)) {
    c->report->literal_errors++;
    int shown_lexical = len > 64 ? 64 : (int)len;
    sample_error(c, LW_CLEAN_ERROR_LITERAL, line, column,
                 "invalid lexical form \"%.*s%s\" for <%.200s>", shown_lexical, lexical,
                 len > 64 ? "..." : "", datatype);
  }
  return true;
}

/* False when the object is a literal with no valid N-Quads form (see
 * check_literal_parts). */
static bool check_literal(CleanContext *c, const LwTerm *o)
{
  if (o->type != LW_TERM_LITERAL) {
    return true;
  }
  unsigned line = c->location.line, column = c->location.column;
  if (c->in_batch) { /* the batch's line numbers become the file's */
    line = line >= 1 && line <= c->batch_n ? (unsigned)c->batch_lines[line - 1] : 0;
    column = line ? column : 0;
  }
  return check_literal_parts(c, line, column, o->value, o->len, o->datatype, o->lang,
                             o->lang ? strlen(o->lang) : 0);
}

/* Counts a statement read; tells the caller now and then (progress). */
static void count_statement(CleanContext *c)
{
  if ((++c->report->statements & 0xFFFF) == 0 && c->options->progress) {
    c->options->progress(c->options->progress_handle, c->report->statements);
  }
}

static LwStatus on_quad(void *handle, const LwQuad *quad)
{
  CleanContext *c = handle;
  count_statement(c);
  if (!check_literal(c, &quad->object)) {
    return LW_OK; /* dropped: its literal has no valid N-Quads form */
  }
  LwQuad q = *quad;
  LwStatus st = LW_OK;
  if (quad->subject.type == LW_TERM_BLANK || quad->object.type == LW_TERM_BLANK ||
      quad->graph.type == LW_TERM_BLANK) {
    st = lw_skolem_quad(&c->skolem, quad, &q);
    if (st != LW_OK) {
      return lw_error_set(&c->err, st, "cannot name a blank node");
    }
  }
  LwBuf *out = c->pending ? c->pending : &c->line;
  if (!c->pending) {
    lw_buf_reset(out);
  }
  st = lw_nquads_append(out, &q);
  if (st != LW_OK) {
    return lw_error_set(&c->err, st, "cannot write a statement");
  }
  return c->pending ? LW_OK : sort_line(c, out->data, out->len, &c->err);
}

/* ---- options --------------------------------------------------------------- */

/* "file://" + the absolute path, percent-encoding what an IRI path cannot
 * hold as it is. */
static char *file_uri(const char *path)
{
  char abs[PATH_MAX];
  if (!realpath(path, abs)) {
    return NULL;
  }
  size_t n = strlen(abs);
  char *uri = malloc(7 + 3 * n + 1);
  if (!uri) {
    return NULL;
  }
  char *o = uri + sprintf(uri, "file://");
  static const char hex[] = "0123456789ABCDEF";
  for (const unsigned char *p = (const unsigned char *)abs; *p; ++p) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        strchr("/-._~!$&'()*+,;=:@", *p)) {
      *o++ = (char)*p;
    } else {
      *o++ = '%';
      *o++ = hex[*p >> 4];
      *o++ = hex[*p & 15];
    }
  }
  *o = '\0';
  return uri;
}

static bool ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* Guesses the format from the head of in, then rewinds it. */
static LwStatus guess(FILE *in, const char *path, const LwCleanOptions *o, LwFormat *format,
                      LwError *err)
{
  char *head = malloc(LW_GUESS_HEAD_MAX);
  if (!head) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  size_t len = fread(head, 1, LW_GUESS_HEAD_MAX, in);
  bool bad = ferror(in) != 0;
  LwGuessInfo info;
  *format = bad ? LW_FORMAT_UNKNOWN
                : lw_guess_format(head, len, o->media_type, path, &info);
  free(head);
  if (bad || fseek(in, 0, SEEK_SET) != 0) {
    return lw_error_set(err, LW_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  }
  if (*format == LW_FORMAT_UNKNOWN) {
    return lw_error_set(err, LW_ERR_FORMAT, "not RDF: %s", info.reason);
  }
  return LW_OK;
}

/* ---- gzip-compressed input (the command line's convenience) ------------- */

static ssize_t gz_read(void *cookie, char *buf, size_t size)
{
  int n = gzread((gzFile)cookie, buf, size > (1u << 30) ? (1u << 30) : (unsigned)size);
  return n < 0 ? -1 : n;
}

static int gz_seek(void *cookie, off64_t *offset, int whence)
{
  /* Only rewinding after the guess is needed; zlib reads again from 0. */
  z_off_t at = gzseek((gzFile)cookie, (z_off_t)*offset, whence);
  if (at < 0) {
    return -1;
  }
  *offset = at;
  return 0;
}

static int gz_close(void *cookie)
{
  return gzclose((gzFile)cookie) == Z_OK ? 0 : -1;
}

/* Opens path; when options allow it and the file is gzip-compressed, the
 * FILE reads its decompressed content. */
static FILE *open_input(const char *path, bool gunzip)
{
  FILE *f = fopen(path, "rb");
  if (!f || !gunzip) {
    return f;
  }
  unsigned char magic[2];
  bool gz = fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (!gz) {
    rewind(f);
    return f;
  }
  fclose(f);
  gzFile g = gzopen(path, "rb");
  if (!g) {
    return NULL;
  }
  gzbuffer(g, 128 << 10);
  cookie_io_functions_t io = {gz_read, NULL, gz_seek, gz_close};
  f = fopencookie(g, "rb", io);
  if (!f) {
    gzclose(g);
  }
  return f;
}

/* ---- the whole file ------------------------------------------------------- */

typedef struct {
  FILE *in;
  FILE *out;
  bool out_owned;
  bool out_created; /* we made output_path: remove it on failure */
  char *base;
  LwGzWriter *writer;
} CleanResources;

/* Reads in with the reader for the format; on_error says how errors are
 * located (the whole file, or a batch of lines). */
static LwStatus read_stream(CleanContext *c, FILE *in, const char *base,
                            LwSyntaxErrorSink on_error, LwError *err)
{
  LwReadOptions ro = {
    .format = c->report->format,
    .base_iri = base,
    .on_quad = on_quad,
    .quad_handle = c,
    .on_error = on_error,
    .error_handle = c,
    .load_document = c->options->load_document,
    .load_handle = c->options->load_handle,
    .location = &c->location,
  };
  LwReadStats stats = {0};
  LwError rerr = {0};
  unsigned long long before = c->report->syntax_errors;
  LwStatus st = lw_rdf_read(in, &ro, &stats, &rerr);
  if (c->err.status > LW_NOTHING) {
    *err = c->err; /* our own sink stopped the reader */
    return c->err.status;
  }
  if (st == LW_ERR_SYNTAX) {
    /* The reader could not go on: keep what it read, count the stop. */
    if (c->report->syntax_errors == before) {
      c->report->syntax_errors++;
      sample_error(c, LW_CLEAN_ERROR_SYNTAX, 0, 0, "%s",
                   rerr.message[0] ? rerr.message : "unreadable input");
    }
    return LW_OK;
  }
  if (st > LW_NOTHING) {
    *err = rerr;
    if (err->status == LW_OK) {
      lw_error_set(err, st, "reading failed: %s", lw_status_name(st));
    }
    return st;
  }
  return LW_OK;
}

static LwStatus read_buffer(CleanContext *c, char *data, size_t len, const char *base,
                            LwError *err)
{
  FILE *m = fmemopen(data, len, "r");
  if (!m) {
    return lw_error_set(err, LW_ERR_NOMEM, "fmemopen: %s", strerror(errno));
  }
  c->in_batch = true;
  LwStatus st = read_stream(c, m, base, on_batch_error, err);
  c->in_batch = false;
  fclose(m);
  return st;
}

static void drop_samples(LwCleanReport *r, size_t keep)
{
  while (r->n_errors > keep) {
    free(r->errors[--r->n_errors].message);
  }
}

/* Hands the batched lines to the reader. serd's recovery from a bad line
 * can swallow the lines after it, so a batch that had any syntax error is
 * undone and read again one line at a time: a bad line then costs only
 * itself. */
static LwStatus flush_batch(CleanContext *c, const char *base, LwError *err)
{
  if (c->batch_n == 0) {
    return LW_OK;
  }
  LwCleanReport *r = c->report;
  LwCleanReport before = *r;
  lw_buf_reset(&c->pending_buf);
  c->pending = &c->pending_buf;
  LwStatus st = read_buffer(c, c->batch.data, c->batch.len, base, err);
  c->pending = NULL;
  if (st == LW_OK && r->syntax_errors == before.syntax_errors) {
    const char *p = c->pending_buf.data;
    const char *end = p + c->pending_buf.len;
    while (st == LW_OK && p < end) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      st = sort_line(c, p, (size_t)(nl - p) + 1, err);
      p = nl + 1;
    }
  } else if (st == LW_OK) {
    r->statements = before.statements;
    r->syntax_errors = before.syntax_errors;
    r->literal_errors = before.literal_errors;
    drop_samples(r, before.n_errors);
    unsigned long *lines = c->batch_lines;
    size_t n = c->batch_n;
    char *p = c->batch.data;
    for (size_t i = 0; i < n && st == LW_OK; ++i) {
      char *nl = memchr(p, '\n', (size_t)(c->batch.data + c->batch.len - p));
      c->batch_lines = &lines[i];
      c->batch_n = 1;
      st = read_buffer(c, p, (size_t)(nl - p) + 1, base, err);
      p = nl + 1;
    }
    c->batch_lines = lines;
  }
  lw_buf_reset(&c->batch);
  c->batch_n = 0;
  return st;
}

static LwStatus batch_add(CleanContext *c, const char *line, size_t len,
                          unsigned long line_no, const char *base, LwError *err)
{
  if (c->batch_n == c->batch_cap) {
    size_t cap = c->batch_cap ? 2 * c->batch_cap : 1024;
    unsigned long *lines = realloc(c->batch_lines, cap * sizeof(*lines));
    if (!lines) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
    c->batch_lines = lines;
    c->batch_cap = cap;
  }
  if (lw_buf_append(&c->batch, line, len) != LW_OK ||
      lw_buf_append_char(&c->batch, '\n') != LW_OK) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  c->batch_lines[c->batch_n++] = line_no;
  return c->batch.len >= BATCH_BYTES || c->batch_n >= BATCH_LINES
           ? flush_batch(c, base, err)
           : LW_OK;
}

/* One line (without its newline) of an N-Triples or N-Quads file. */
static LwStatus take_line(CleanContext *c, const char *line, size_t len,
                          unsigned long line_no, const char *base, LwError *err)
{
  if (len && line[len - 1] == '\r') {
    --len; /* CRLF */
  }
  LwNtFastObject o;
  bool quads = c->report->format == LW_FORMAT_NQUADS;
  if (c->options->no_fast_path || !lw_nt_fast_check(line, len, quads, &o)) {
    return batch_add(c, line, len, line_no, base, err);
  }
  count_statement(c);
  if (o.lang || o.datatype) {
    char dt[DATATYPE_MAX + 1];
    const char *datatype = NULL;
    /* Longer IRIs are never a datatype lw_literal_valid checks. */
    if (o.datatype && o.datatype_len <= DATATYPE_MAX) {
      memcpy(dt, o.datatype, o.datatype_len);
      dt[o.datatype_len] = '\0';
      datatype = dt;
    }
    /* the column of the literal's opening quote */
    unsigned column = (unsigned)(o.lexical - line);
    if (!check_literal_parts(c, (unsigned)line_no, column, o.lexical, o.lexical_len,
                             datatype, o.lang, o.lang_len)) {
      return LW_OK; /* dropped: its literal has no valid N-Quads form */
    }
  }
  return sort_line(c, line, len, err);
}

/* N-Triples and N-Quads: line by line, canonical lines straight to the sort. */
static LwStatus read_lines(CleanContext *c, FILE *in, const char *base, LwError *err)
{
  size_t cap = INPUT_BUFFER;
  char *buf = malloc(cap);
  if (!buf) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  size_t start = 0, end = 0;
  unsigned long line_no = 0;
  bool eof = false, first = true;
  LwStatus st = LW_OK;
  while (st == LW_OK) {
    char *nl = memchr(buf + start, '\n', end - start);
    if (nl || (eof && start < end)) {
      size_t len = nl ? (size_t)(nl - (buf + start)) : end - start;
      const char *line = buf + start;
      if (first && len >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
        line += 3; /* a UTF-8 BOM */
        len -= 3;
      }
      first = false;
      st = take_line(c, line, len, ++line_no, base, err);
      start += (nl ? (size_t)(nl - (buf + start)) + 1 : end - start);
      continue;
    }
    if (eof) {
      break;
    }
    /* Move the partial line to the front; grow for a long line. */
    memmove(buf, buf + start, end - start);
    end -= start;
    start = 0;
    if (end == cap) {
      if (cap >= MAX_LINE_BYTES) {
        st = lw_error_set(err, LW_ERR_LIMIT, "line %lu longer than %zu bytes", line_no + 1,
                          (size_t)MAX_LINE_BYTES);
        break;
      }
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t n = fread(buf + end, 1, cap - end, in);
    if (n == 0) {
      if (ferror(in)) {
        st = lw_error_set(err, LW_ERR_IO, "cannot read input: %s", strerror(errno));
        break;
      }
      eof = true;
    }
    end += n;
  }
  free(buf);
  if (st == LW_OK) {
    st = flush_batch(c, base, err);
  }
  return st;
}

static LwStatus read_input(CleanContext *c, CleanResources *res, const char *base,
                           LwError *err)
{
  LwFormat f = c->report->format;
  if (f == LW_FORMAT_NTRIPLES || f == LW_FORMAT_NQUADS) {
    return read_lines(c, res->in, base, err);
  }
  return read_stream(c, res->in, base, on_syntax_error, err);
}

static LwStatus write_output(CleanContext *c, CleanResources *res, const char *path,
                             LwError *err)
{
  const LwCleanOptions *o = c->options;
  bool gzip = o->compress == LW_CLEAN_GZIP_ON ||
              (o->compress == LW_CLEAN_GZIP_AUTO && o->output_path &&
               ends_with(o->output_path, ".gz"));
  if (o->output_path) {
    res->out = fopen(o->output_path, "wb");
    if (!res->out) {
      return lw_error_set(err, LW_ERR_IO, "cannot create %s: %s", o->output_path,
                          strerror(errno));
    }
    res->out_owned = true;
    /* Only a regular file is removed on failure: never a device such as
     * /dev/null or /dev/stdout. */
    struct stat sb;
    res->out_created = fstat(fileno(res->out), &sb) == 0 && S_ISREG(sb.st_mode);
  } else {
    res->out = o->output ? o->output : stdout;
  }
  LwGzOptions go = {.gzip = gzip, .level = o->gzip_level};
  LW_TRY(lw_gz_writer_open(res->out, &go, &res->writer, err));
  LwStatus st = lw_sorter_finish(c->sorter, lw_gz_writer_sink, res->writer, err);
  LwGzStats gs = {0};
  LwError werr = {0};
  LwStatus wst = lw_gz_writer_close(res->writer, &gs, &werr);
  res->writer = NULL;
  if (wst != LW_OK) {
    /* The writer knows best why output failed (disk full, ...). */
    *err = werr;
    st = wst;
  }
  if (st != LW_OK) {
    if (err->status == LW_OK) {
      lw_error_set(err, st, "cannot write the clean output of %s", path);
    }
    return st;
  }
  if (res->out_owned) {
    FILE *f = res->out;
    res->out = NULL;
    if (fclose(f) != 0) {
      return lw_error_set(err, LW_ERR_IO, "cannot write %s: %s", o->output_path,
                          strerror(errno));
    }
  }
  LwSortStats ss = lw_sorter_stats(c->sorter);
  c->report->triples = ss.lines_out;
  c->report->duplicates = ss.duplicates;
  c->report->sort_runs = ss.runs;
  c->report->bytes = gs.bytes_in;
  c->report->file_bytes = gs.bytes_out;
  memcpy(c->report->md5, gs.md5, sizeof(c->report->md5));
  return LW_OK;
}

/* The memory budget shared between the sort's arena (returned) and the
 * line queue's blocks (*queue): the default 4 blocks, plus a quarter of the
 * budget (at most MAX_QUEUE_EXTRA) when that is a block or more. The same
 * split single-threaded, so that both make the same runs. */
static size_t split_budget(size_t budget, LwLineQueueOptions *queue)
{
  if (!budget) {
    budget = DEFAULT_MEMORY;
  }
  size_t extra = budget / QUEUE_SHARE;
  extra = extra > MAX_QUEUE_EXTRA ? MAX_QUEUE_EXTRA : extra;
  size_t blocks = extra / QUEUE_BLOCK;
  queue->blocks = 4 + blocks;
  return budget - blocks * QUEUE_BLOCK;
}

static LwStatus clean(const char *path, CleanContext *c, CleanResources *res, LwError *err)
{
  const LwCleanOptions *o = c->options;
  res->in = open_input(path, o->gunzip_input);
  if (!res->in) {
    return lw_error_set(err, LW_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  }
  setvbuf(res->in, NULL, _IOFBF, INPUT_BUFFER);
  c->report->format = o->format;
  if (o->format == LW_FORMAT_UNKNOWN) {
    LW_TRY(guess(res->in, path, o, &c->report->format, err));
  }
  const char *base = o->base_iri;
  if (!base) {
    res->base = file_uri(path);
    if (!res->base) {
      return lw_error_set(err, LW_ERR_IO, "cannot resolve %s: %s", path, strerror(errno));
    }
    base = res->base;
  }
  if (!o->seed_hash) {
    lw_md5_hex(base, strlen(base), c->seed_buf);
  }
  c->seed_hash = o->seed_hash ? o->seed_hash : c->seed_buf;
  c->skolem_base = o->skolem_base ? o->skolem_base : LW_CLEAN_DEFAULT_SKOLEM_BASE;
  lw_skolem_init(&c->skolem, c->skolem_base, c->seed_hash);
  LwLineQueueOptions qo = {.block_bytes = QUEUE_BLOCK};
  LwSortOptions so = {.data_dir = o->data_dir,
                      .memory_budget = split_budget(o->memory_budget, &qo)};
  c->sorter = lw_sorter_new(&so);
  if (!c->sorter) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory for the sort");
  }
  if (!o->single_thread) {
    LW_TRY(lw_line_queue_new(&qo, sorter_consume, c->sorter, &c->queue, err));
  }
  LW_TRY(read_input(c, res, base, err));
  fclose(res->in);
  res->in = NULL;
  if (c->queue) {
    LW_TRY(lw_line_queue_finish(c->queue, err));
  }
  return write_output(c, res, path, err);
}

LwStatus lw_clean_file(const char *input_path, const LwCleanOptions *options,
                       LwCleanReport *report, LwError *err)
{
  LwCleanOptions defaults = {0};
  const LwCleanOptions *o = options ? options : &defaults;
  memset(report, 0, sizeof(*report));
  report->format = o->format;
  CleanContext c = {.options = o, .report = report};
  c.max_errors = o->max_errors < 0    ? 0
                 : o->max_errors == 0 ? LW_CLEAN_DEFAULT_MAX_ERRORS
                                      : (size_t)o->max_errors;
  CleanResources res = {0};
  LwError local = {0};
  LwError *e = err ? err : &local;
  lw_error_clear(e);
  LwStatus st = clean(input_path, &c, &res, e);

  lw_gz_writer_free(res.writer);
  if (res.in) {
    fclose(res.in);
  }
  if (res.out_owned && res.out) {
    fclose(res.out);
  }
  if (st != LW_OK && res.out_created) {
    unlink(o->output_path); /* never leave a half file that looks whole */
  }
  lw_line_queue_free(c.queue); /* its thread stops before the sorter goes */
  lw_sorter_free(c.sorter);    /* removes the sort runs, also on error */
  lw_buf_free(&c.line);
  lw_buf_free(&c.batch);
  lw_buf_free(&c.pending_buf);
  free(c.batch_lines);
  lw_skolem_free(&c.skolem);
  free(res.base);
  return st;
}
