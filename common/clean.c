#include "common/clean.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/guess.h"
#include "common/gz_writer.h"
#include "common/langtag.h"
#include "common/nq_sort.h"
#include "common/nquads.h"
#include "common/rdf_reader.h"
#include "common/skolem.h"
#include "common/xsd_literal.h"

#define INPUT_BUFFER ((size_t)1 << 20)

typedef struct {
  const LwCleanOptions *options;
  LwCleanReport *report;
  LwSorter *sorter;
  const char *skolem_base;
  const char *seed_hash;
  char seed_buf[LW_HASH_HEX_LEN + 1]; /* the default seed hash */
  size_t max_errors;
  LwBuf line;       /* the canonical line being built */
  LwSkolem skolem;  /* blank nodes to well-known IRIs */
  LwError err;      /* why on_quad stopped the reader */
} CleanContext;

/* ---- the report ---------------------------------------------------------- */

const char *lw_clean_error_kind_name(LwCleanErrorKind kind)
{
  switch (kind) {
  case LW_CLEAN_ERROR_SYNTAX: return "syntax";
  case LW_CLEAN_ERROR_LITERAL: return "literal";
  case LW_CLEAN_ERROR_LANGTAG: return "langtag";
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
        list, json_pack("{s:s, s:I, s:I, s:s}", "kind",
                        lw_clean_error_kind_name(e->kind), "line",
                        (json_int_t)e->line, "column", (json_int_t)e->column,
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

static void on_syntax_error(void *handle, unsigned line, unsigned column,
                            const char *message)
{
  CleanContext *c = handle;
  c->report->syntax_errors++;
  sample_error(c, LW_CLEAN_ERROR_SYNTAX, line, column, "%s", message);
}

/* Counts a bad literal or language tag; the statement is kept as it is. */
static void check_literal(CleanContext *c, const LwTerm *o)
{
  if (o->type != LW_TERM_LITERAL) {
    return;
  }
  if (o->lang) {
    if (!lw_langtag_valid(o->lang)) {
      c->report->literal_errors++;
      sample_error(c, LW_CLEAN_ERROR_LANGTAG, 0, 0,
                   "malformed language tag \"%.64s\"", o->lang);
    }
  } else if (o->datatype && !lw_literal_valid(o->datatype, o->value, o->len)) {
    c->report->literal_errors++;
    int shown = o->len > 64 ? 64 : (int)o->len;
    sample_error(c, LW_CLEAN_ERROR_LITERAL, 0, 0,
                 "invalid lexical form \"%.*s%s\" for <%.200s>", shown,
                 o->value, o->len > 64 ? "..." : "", o->datatype);
  }
}

static LwStatus on_quad(void *handle, const LwQuad *quad)
{
  CleanContext *c = handle;
  c->report->statements++;
  check_literal(c, &quad->object);
  LwQuad q = *quad;
  LwStatus st = LW_OK;
  if (quad->subject.type == LW_TERM_BLANK || quad->object.type == LW_TERM_BLANK ||
      quad->graph.type == LW_TERM_BLANK) {
    st = lw_skolem_quad(&c->skolem, quad, &q);
    if (st != LW_OK) {
      return lw_error_set(&c->err, st, "cannot name a blank node");
    }
  }
  lw_buf_reset(&c->line);
  st = lw_nquads_append(&c->line, &q);
  if (st != LW_OK) {
    return lw_error_set(&c->err, st, "cannot write a statement");
  }
  return lw_sorter_add(c->sorter, c->line.data, c->line.len, &c->err);
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
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
        (*p >= '0' && *p <= '9') || strchr("/-._~!$&'()*+,;=:@", *p)) {
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
static LwStatus guess(FILE *in, const char *path, const LwCleanOptions *o,
                      LwFormat *format, LwError *err)
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
    return lw_error_set(err, LW_ERR_IO, "cannot read %s: %s", path,
                        strerror(errno));
  }
  if (*format == LW_FORMAT_UNKNOWN) {
    return lw_error_set(err, LW_ERR_FORMAT, "not RDF: %s", info.reason);
  }
  return LW_OK;
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

static LwStatus read_input(CleanContext *c, CleanResources *res,
                           const char *base, LwError *err)
{
  LwReadOptions ro = {
      .format = c->report->format,
      .base_iri = base,
      .on_quad = on_quad,
      .quad_handle = c,
      .on_error = on_syntax_error,
      .error_handle = c,
  };
  LwReadStats stats = {0};
  LwError rerr = {0};
  LwStatus st = lw_rdf_read(res->in, &ro, &stats, &rerr);
  if (c->err.status > LW_NOTHING) {
    *err = c->err; /* our own sink stopped the reader */
    return c->err.status;
  }
  if (st == LW_ERR_SYNTAX) {
    /* The reader could not go on: keep what it read, count the stop. */
    if (c->report->syntax_errors == 0) {
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

static LwStatus write_output(CleanContext *c, CleanResources *res,
                             const char *path, LwError *err)
{
  const LwCleanOptions *o = c->options;
  bool gzip = o->compress == LW_CLEAN_GZIP_ON ||
              (o->compress == LW_CLEAN_GZIP_AUTO && o->output_path &&
               ends_with(o->output_path, ".gz"));
  if (o->output_path) {
    res->out = fopen(o->output_path, "wb");
    if (!res->out) {
      return lw_error_set(err, LW_ERR_IO, "cannot create %s: %s",
                          o->output_path, strerror(errno));
    }
    res->out_owned = true;
    res->out_created = true;
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
  if (st == LW_OK && wst != LW_OK) {
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
      return lw_error_set(err, LW_ERR_IO, "cannot write %s: %s",
                          o->output_path, strerror(errno));
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

static LwStatus clean(const char *path, CleanContext *c, CleanResources *res,
                      LwError *err)
{
  const LwCleanOptions *o = c->options;
  res->in = fopen(path, "rb");
  if (!res->in) {
    return lw_error_set(err, LW_ERR_IO, "cannot open %s: %s", path,
                        strerror(errno));
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
      return lw_error_set(err, LW_ERR_IO, "cannot resolve %s: %s", path,
                          strerror(errno));
    }
    base = res->base;
  }
  if (!o->seed_hash) {
    lw_md5_hex(base, strlen(base), c->seed_buf);
  }
  c->seed_hash = o->seed_hash ? o->seed_hash : c->seed_buf;
  c->skolem_base = o->skolem_base ? o->skolem_base : LW_CLEAN_DEFAULT_SKOLEM_BASE;
  lw_skolem_init(&c->skolem, c->skolem_base, c->seed_hash);
  LwSortOptions so = {.data_dir = o->data_dir, .memory_budget = o->memory_budget};
  c->sorter = lw_sorter_new(&so);
  if (!c->sorter) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory for the sort");
  }
  LW_TRY(read_input(c, res, base, err));
  fclose(res->in);
  res->in = NULL;
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
  lw_sorter_free(c.sorter); /* removes the sort runs, also on error */
  lw_buf_free(&c.line);
  lw_skolem_free(&c.skolem);
  free(res.base);
  return st;
}
