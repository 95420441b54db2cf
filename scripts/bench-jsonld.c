/*
 * The C side of scripts/bench-jsonld: converts one JSON-LD file to N-Quads
 * with lw_jsonld_to_rdf and prints "quads seconds" on stderr.
 *   bench-jsonld-c FILE.jsonld BASE-IRI OUT.nq
 * Built by scripts/bench-jsonld against build/liblodwash_core.a.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jsonld/jsonld.h"

static void put_escaped(FILE *out, const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    switch (c) {
    case '"':
      fputs("\\\"", out);
      break;
    case '\\':
      fputs("\\\\", out);
      break;
    case '\n':
      fputs("\\n", out);
      break;
    case '\r':
      fputs("\\r", out);
      break;
    case '\0':
      fputs("\\u0000", out);
      break;
    default:
      putc(c, out);
    }
  }
}

static void put_term(FILE *out, const LwTerm *t)
{
  switch (t->type) {
  case LW_TERM_IRI:
    putc('<', out);
    fwrite(t->value, 1, t->len, out);
    putc('>', out);
    break;
  case LW_TERM_BLANK:
    fputs("_:", out);
    fwrite(t->value, 1, t->len, out);
    break;
  case LW_TERM_LITERAL:
    putc('"', out);
    put_escaped(out, t->value, t->len);
    putc('"', out);
    if (t->lang) {
      fprintf(out, "@%s", t->lang);
    } else if (t->datatype) {
      fprintf(out, "^^<%s>", t->datatype);
    }
    break;
  case LW_TERM_NONE:
    return;
  }
  putc(' ', out);
}

static LwStatus write_quad(void *handle, const LwQuad *q)
{
  FILE *out = handle;
  put_term(out, &q->subject);
  put_term(out, &q->predicate);
  put_term(out, &q->object);
  put_term(out, &q->graph);
  fputs(".\n", out);
  return LW_OK;
}

int main(int argc, char **argv)
{
  if (argc != 4) {
    fprintf(stderr, "usage: %s FILE.jsonld BASE-IRI OUT.nq\n", argv[0]);
    return 2;
  }
  FILE *in = fopen(argv[1], "rb");
  FILE *out = fopen(argv[3], "wb");
  if (!in || !out) {
    perror("open");
    return 1;
  }
  static char buf[1 << 20];
  setvbuf(out, buf, _IOFBF, sizeof(buf));
  LwJsonldOptions opt = {0};
  opt.base_iri = argv[2];
  opt.on_quad = write_quad;
  opt.quad_handle = out;
  LwReadStats stats = {0};
  LwError err;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  LwStatus st = lw_jsonld_to_rdf(in, &opt, &stats, &err);
  fclose(out);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fclose(in);
  if (st != LW_OK) {
    fprintf(stderr, "error: %s\n", err.message);
    return 1;
  }
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  fprintf(stderr, "%llu %.3f\n", stats.statements, secs);
  return 0;
}
