/*
 * lw_rdf_read: checks the options, applies the default limits and hands the
 * input to the reader for its format.
 */
#include "rdf_readers/rdf_readers.h"

#include "jsonld/jsonld.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"

void lw_read_report(LwReadContext *ctx, unsigned line, unsigned column, const char *fmt,
                    ...)
{
  char message[LW_ERROR_MESSAGE_MAX];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof(message), fmt, args);
  va_end(args);
  size_t len = strlen(message);
  while (len && (message[len - 1] == '\n' || message[len - 1] == ' ')) {
    message[--len] = '\0';
  }
  /* parsers quote the offending byte, which may be no UTF-8 at all */
  for (size_t i = 0; i < len;) {
    size_t ok = lw_utf8_valid_prefix(message + i, len - i);
    i += ok;
    if (i < len) {
      message[i++] = '?';
    }
  }
  ++ctx->stats->errors;
  if (ctx->options->on_error) {
    ctx->options->on_error(ctx->options->error_handle, line, column, message);
  }
}

bool lw_read_iri_chars_ok(const char *s, size_t len)
{
  return lw_span_iri_plain(s, len, false) == len;
}

bool lw_read_iri_chars_check(const char *s, size_t len, bool *canonical)
{
  size_t plain = lw_span_iri_plain(s, len, true);
  *canonical = plain == len;
  return *canonical || lw_read_iri_chars_ok(s + plain, len - plain);
}

bool lw_read_plain(LwTermType type, const char *s, size_t len)
{
  switch (type) {
  case LW_TERM_IRI:
    return lw_span_iri_plain(s, len, true) == len;
  case LW_TERM_LITERAL:
    return lw_span_literal_plain(s, len) == len;
  default:
    return false;
  }
}

bool lw_read_iri_ok(const char *s, size_t len)
{
  return lw_read_iri_chars_ok(s, len) && lw_uri_is_absolute(s);
}

LwStatus lw_read_emit(LwReadContext *ctx, const LwQuad *quad, unsigned line,
                      unsigned column)
{
  if (ctx->options->location) {
    *ctx->options->location = (LwLocation){line, column};
  }
  LwStatus st = ctx->options->on_quad(ctx->options->quad_handle, quad);
  if (st <= LW_NOTHING) {
    ++ctx->stats->statements;
  }
  return st;
}

static LwStatus read_jsonld(FILE *in, const LwReadOptions *options, LwReadStats *stats,
                            LwError *err)
{
  LwJsonldOptions jo = {
    .base_iri = options->base_iri,
    .load = options->load_document,
    .load_handle = options->load_handle,
    .on_quad = options->on_quad,
    .quad_handle = options->quad_handle,
    .on_error = options->on_error,
    .error_handle = options->error_handle,
    .max_depth = options->max_depth,
    .location = options->location,
  };
  return lw_jsonld_to_rdf(in, &jo, stats, err);
}

LwStatus lw_rdf_read(FILE *in, const LwReadOptions *options, LwReadStats *stats,
                     LwError *err)
{
  LwReadStats local_stats;
  if (!stats) {
    stats = &local_stats;
  }
  *stats = (LwReadStats){0, 0};
  lw_error_clear(err);
  if (!in || !options || !options->on_quad) {
    return lw_error_set(err, LW_ERR_USAGE, "lw_rdf_read: no input or no sink");
  }
  LwReadContext ctx = {
    .options = options,
    .stats = stats,
    .err = err,
    .max_depth = options->max_depth ? options->max_depth : LW_READ_DEFAULT_MAX_DEPTH,
    .max_term_bytes = options->max_term_bytes ? options->max_term_bytes
                                              : LW_READ_DEFAULT_MAX_TERM_BYTES,
  };
  switch (options->format) {
  case LW_FORMAT_TURTLE:
  case LW_FORMAT_TRIG:
  case LW_FORMAT_NTRIPLES:
  case LW_FORMAT_NQUADS:
    return lw_rdf_read_serd(in, &ctx);
  case LW_FORMAT_RDFXML:
    return lw_rdf_read_raptor(in, &ctx);
  case LW_FORMAT_RDFA:
  case LW_FORMAT_JSONLD_HTML:
    return lw_rdf_read_html(in, &ctx);
  case LW_FORMAT_RDFJSON:
    return lw_rdf_read_rdfjson(in, &ctx);
  case LW_FORMAT_JSONLD:
    return read_jsonld(in, options, stats, err);
  case LW_FORMAT_UNKNOWN:
    break;
  }
  return lw_error_set(err, LW_ERR_USAGE, "lw_rdf_read: unknown format");
}
