/*
 * Never invalid N-Quads out: dirty literals in every syntax lodwash reads (a
 * malformed language tag such as "d"@en--, rdf:langString without a tag, a
 * tag with a datatype, "l"@en^^<dt> in Turtle's lax recovery) are literal or
 * syntax errors, and every line of every clean file is valid N-Quads:
 * serdi reads the output strictly without a word (when serdi is installed),
 * and our own check finds every language tag well-formed (BCP 47, which
 * N-Quads' grammar does not check) and no rdf:langString datatype.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clean/clean.h"
#include "rdf/rdf.h"
#include "tests/support/check.h"

#define RDF "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define XSD "http://www.w3.org/2001/XMLSchema#"

static const struct {
  const char *name;
  LwFormat format;
  const char *text;
  unsigned kept; /* statements that must come out */
} inputs[] = {
  {"dirty.nt", LW_FORMAT_NTRIPLES,
   "<http://s/1> <http://p/> \"d\"@en-- .\n"
   "<http://s/2> <http://p/> \"x\"^^<" RDF "langString> .\n"
   "<http://s/3> <http://p/> \"l\"@en^^<http://dt/> .\n"
   "<http://s/4> <http://p/> \"nine\"@abcdefghi .\n"
   "<http://s/5> <http://p/> \"ok\"@EN-us .\n"
   "<http://s/6> <http://p/> \"ok\"^^<" XSD "string> .\n"
   "<http://s/7> <http://p/> \"bad int\"^^<" XSD "integer> .\n",
   3},
  {"dirty.nq", LW_FORMAT_NQUADS,
   "<http://s/1> <http://p/> \"d\"@en-- <http://g/> .\n"
   "<http://s/2> <http://p/> \"x\"^^<" RDF "langString> <http://g/> .\n"
   "<http://s/3> <http://p/> \"ok\"@de-AT <http://g/> .\n"
   "<http://s/4> <http://p/> \"y\"@en-x-a-b-c-d <http://g/> .\n",
   2},
  {"dirty.ttl", LW_FORMAT_TURTLE,
   "@prefix rdf: <" RDF "> .\n@prefix : <http://e/> .\n"
   ":s1 :p \"d\"@en-- .\n"
   ":s2 :p \"x\"^^rdf:langString .\n"
   ":s3 :p \"l\"@en^^<http://dt/> .\n"
   ":s4 :p \"y\"@en-US^^rdf:langString .\n"
   ":s5 :p \"\"\"long\"\"\"@fr, 'single'@it ; :q \"ok\" .\n"
   ":s6 :p \"a\"@en-a .\n",
   3},
  {"dirty.trig", LW_FORMAT_TRIG,
   "@prefix rdf: <" RDF "> .\n@prefix : <http://e/> .\n"
   ":g { :s1 :p \"d\"@en-- .\n"
   ":s2 :p \"x\"^^rdf:langString .\n"
   ":s3 :p \"l\"@en^^:dt .\n"
   ":s4 :p \"ok\"@en }\n",
   1},
  {"dirty.rdf", LW_FORMAT_RDFXML,
   "<rdf:RDF xmlns:rdf=\"" RDF "\" xmlns:e=\"http://e/\">\n"
   " <rdf:Description rdf:about=\"http://e/s\">\n"
   "  <e:p xml:lang=\"en--\">d</e:p>\n"
   "  <e:q rdf:datatype=\"" RDF "langString\">x</e:q>\n"
   "  <e:r xml:lang=\"en\">ok</e:r>\n"
   " </rdf:Description>\n</rdf:RDF>\n",
   1},
  {"dirty.jsonld", LW_FORMAT_JSONLD,
   "{\"@id\": \"http://e/s\", \"http://e/p\": [\n"
   "  {\"@value\": \"d\", \"@language\": \"en--\"},\n"
   "  {\"@value\": \"x\", \"@type\": \"" RDF "langString\"},\n"
   "  {\"@value\": \"ok\", \"@language\": \"en\"}]}\n",
   1},
  {"dirty.rj", LW_FORMAT_RDFJSON,
   "{\"http://e/s\": {\"http://e/p\": [\n"
   "  {\"type\": \"literal\", \"value\": \"d\", \"lang\": \"en--\"},\n"
   "  {\"type\": \"literal\", \"value\": \"x\", \"datatype\": \"" RDF "langString\"},\n"
   "  {\"type\": \"literal\", \"value\": \"l\", \"lang\": \"en\", \"datatype\": \"http://dt/\"},\n"
   "  {\"type\": \"literal\", \"value\": \"ok\", \"lang\": \"en\"}]}}\n",
   1},
  {"dirty.html", LW_FORMAT_JSONLD_HTML,
   "<html><head><script type=\"application/ld+json\">{\"@id\": \"http://e/s\",\n"
   " \"http://e/p\": [{\"@value\": \"d\", \"@language\": \"en--\"}, \"ok\"]}</script></head>\n"
   "<body><p about=\"http://e/s\" property=\"http://e/q\" lang=\"en--\">d</p>\n"
   "<p about=\"http://e/s\" property=\"http://e/r\" lang=\"en\">ok</p></body></html>\n",
   2},
};

/* The object literal of a canonical line: its closing quote is the line's
 * last '"' (IRIs hold none, quotes in literals are escaped). True when what
 * follows is no language tag, or a well-formed one, and no rdf:langString. */
static bool literal_ok(const char *line, size_t len, char *why, size_t size)
{
  const char *q = NULL;
  for (const char *p = line; p < line + len; ++p) {
    if (*p == '"' && (p == line || p[-1] != '\\')) {
      q = p;
    }
  }
  if (!q) {
    return true;
  }
  if (q[1] == '@') {
    size_t n = strcspn(q + 2, " ");
    if (!lw_langtag_valid_n(q + 2, n)) {
      snprintf(why, size, "malformed language tag in: %.*s", (int)len, line);
      return false;
    }
  } else if (!strncmp(q + 1, "^^<" RDF "langString>", strlen("^^<" RDF "langString>"))) {
    snprintf(why, size, "rdf:langString without a tag: %.*s", (int)len, line);
    return false;
  }
  return true;
}

/* Our check of every line, and serdi's strict reading of the file. */
static bool output_valid(const char *path, char *why, size_t size)
{
  FILE *f = fopen(path, "rb");
  char line[4096];
  bool ok = f != NULL;
  while (ok && fgets(line, sizeof(line), f)) {
    ok = literal_ok(line, strcspn(line, "\n"), why, size);
  }
  if (f) {
    fclose(f);
  }
  if (ok && system("serdi -v > /dev/null 2>&1") == 0) {
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "serdi -i nquads -o nquads '%s' 2>&1 >/dev/null | grep -q .",
             path);
    if (system(cmd) == 0) { /* serdi said something */
      snprintf(why, size, "serdi reports an error in %s", path);
      ok = false;
    }
  }
  return ok;
}

static unsigned count_lines(const char *path)
{
  FILE *f = fopen(path, "rb");
  unsigned n = 0;
  int c;
  while (f && (c = fgetc(f)) != EOF) {
    n += c == '\n';
  }
  if (f) {
    fclose(f);
  }
  return n;
}

static void check_input(const char *dir, size_t i)
{
  char in[4096], out[4096], why[512] = "";
  snprintf(in, sizeof(in), "%s/%s", dir, inputs[i].name);
  snprintf(out, sizeof(out), "%s/%s.nq", dir, inputs[i].name);
  FILE *f = fopen(in, "wb");
  fputs(inputs[i].text, f);
  fclose(f);
  LwCleanOptions o = {.output_path = out,
                      .data_dir = dir,
                      .format = inputs[i].format,
                      .base_iri = "http://e/doc",
                      .max_errors = 20};
  LwCleanReport r;
  LwError err = {0};
  LwStatus st = lw_clean_file(in, &o, &r, &err);
  bool valid = st == LW_OK && output_valid(out, why, sizeof(why));
  unsigned lines = st == LW_OK ? count_lines(out) : 0;
  if (!valid || lines != inputs[i].kept || r.literal_errors + r.syntax_errors == 0) {
    printf("%s: status %s (%s), %u lines (want %u), %llu literal and %llu syntax errors: "
           "%s\n",
           inputs[i].name, lw_status_name(st), err.message, lines, inputs[i].kept,
           (unsigned long long)r.literal_errors, (unsigned long long)r.syntax_errors, why);
    CHECK(false);
  } else {
    CHECK(true);
  }
  lw_clean_report_free(&r);
}

int main(void)
{
  char *dir = lw_test_tmpdir();
  for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); ++i) {
    check_input(dir, i);
  }
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
