/* RDFa with an empty default namespace declaration (xmlns=""): raptor
 * 2.0.15's RDFa parser, which lodwash used before rdfa/, crashed the process
 * on it (a NULL namespace URI in raptor_sax2_start_element). lodwash's own
 * processor must read such a page, with its statements, as XHTML (XML
 * declaration) and as HTML, whatever the quotes, the spaces around '=', the
 * element, and where a 64 KiB block ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "rdf/rdf.h"
#include "rdf_readers/rdf_readers.h"
#include "tests/support/check.h"

#define XML_DECL "<?xml version=\"1.0\"?>\n"
#define WANT "<http://ex/#m> <http://e/n> \"N xmlns=\\\"\\\"\" .\n"

static LwStatus append_quad(void *handle, const LwQuad *q)
{
  return lw_nquads_append(handle, q);
}

/* Reads page as RDFa; it must give exactly the statement WANT. */
static void check_page(const char *what, const char *page)
{
  LwBuf out = {0};
  LwReadStats stats = {0};
  LwError err = {0};
  FILE *in = fmemopen((void *)page, strlen(page), "rb");
  LwReadOptions o = {.format = LW_FORMAT_RDFA,
                     .base_iri = "http://ex/",
                     .on_quad = append_quad,
                     .quad_handle = &out};
  LwStatus st = lw_rdf_read(in, &o, &stats, &err);
  fclose(in);
  bool ok = st == LW_OK && out.data && !strcmp(out.data, WANT);
  if (!ok) {
    printf("FAIL %s: status %d (%s), got:\n%s\n", what, (int)st, err.message,
           out.data ? out.data : "");
  }
  CHECK(ok);
  lw_buf_free(&out);
}

/* The page with decl in front, padding (a comment) before <html>, and the
 * declaration attr on <html> or, when nested, on the <p>. */
static char *make_page(const char *decl, size_t padding, const char *attr, bool nested)
{
  const char *form = "%s<!--%s-->\n<html %s prefix=\"e: http://e/\">\n<body about=\"#m\">"
                     "<p %s property=\"e:n\">N xmlns=\"\"</p></body></html>\n";
  char *pad = malloc(padding + 1);
  memset(pad, 'x', padding);
  pad[padding] = '\0';
  size_t size = strlen(form) + strlen(decl) + padding + strlen(attr) + 1;
  char *page = malloc(size);
  snprintf(page, size, form, decl, pad, nested ? "" : attr, nested ? attr : "");
  free(pad);
  return page;
}

static void check_forms(void)
{
  const char *attrs[] = {
    "xmlns=\"\"",     "xmlns=''",    "xmlns = ''",
    "xmlns\n=\n\"\"", "xmlns=\" \"", "xmlns=\"\" xmlns:x=\"\"",
  };
  const char *decls[][2] = {{"XHTML", XML_DECL}, {"HTML", ""}};
  for (size_t d = 0; d < 2; d++) {
    for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
      for (int nested = 0; nested < 2; nested++) {
        char what[128];
        snprintf(what, sizeof(what), "%s %s%s", decls[d][0], attrs[a],
                 nested ? " on <p>" : "");
        char *page = make_page(decls[d][1], 8, attrs[a], nested);
        check_page(what, page);
        free(page);
      }
    }
  }
}

/* The declaration across the end of raptor's first 64 KiB block: each of
 * its bytes in turn the last of the block. */
static void check_block_boundary(void)
{
  const char *attr = "xmlns = \"\"";
  size_t before = strlen(XML_DECL "<!--") + strlen("-->\n<html ");
  for (size_t last = 0; last < strlen(attr) + 2; last++) {
    char *page = make_page(XML_DECL, 65536 - before - last, attr, false);
    char what[64];
    snprintf(what, sizeof(what), "block ends %zu bytes into it", last);
    check_page(what, page);
    free(page);
  }
}

int main(void)
{
  check_forms();
  check_block_boundary();
  return lw_test_finish();
}
