#include <stdio.h>
#include <string.h>

#include "rdf_readers/rdf_readers.h"

void lw_syntax_log_add(void *log, unsigned line, unsigned column, const char *message)
{
  LwSyntaxLog *e = log;
  if (e->count++ == 0) {
    e->first_line = line;
  }
  if (e->message_count >= sizeof(e->messages) / sizeof(*e->messages)) {
    return;
  }
  char *m = e->messages[e->message_count++];
  if (line) {
    snprintf(m, sizeof(e->messages[0]), "line %u:%u: %s", line, column,
             message ? message : "syntax error");
  } else {
    snprintf(m, sizeof(e->messages[0]), "%s", message ? message : "syntax error");
  }
}

LwStatus lw_rdf_read_memory(const char *data, size_t len, const LwReadOptions *options,
                            LwReadStats *stats, LwError *err)
{
  if (len == 0) {
    return lw_error_set(err, LW_ERR_SYNTAX, "empty document");
  }
  FILE *f = fmemopen((void *)data, len, "r");
  if (!f) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwStatus st = lw_rdf_read(f, options, stats, err);
  fclose(f);
  return st;
}

bool lw_text_blank_line(char *buf, size_t len, unsigned line)
{
  size_t i = 0;
  for (unsigned l = 1; l < line && i < len; ++i) {
    l += buf[i] == '\n';
  }
  if (line == 0 || i >= len) {
    return false;
  }
  for (; i < len && buf[i] != '\n'; ++i) {
    buf[i] = buf[i] == '\r' ? '\r' : ' ';
  }
  return true;
}
