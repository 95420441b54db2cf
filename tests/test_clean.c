/*
 * Cleaning whole files: canonical sorted output, dirty data, literal
 * errors, determinism, the same dataset in four formats, memory.
 *
 * `test_clean --cli clean ARGS...` runs the `lodwash clean` command itself
 * (tests/test_clean_cli.sh uses it when the lodwash program is not built).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "clean/clean.h"
#include "base/base.h"
#include "tests/support/check.h"
#include "tools/commands.h"

#define XSD "http://www.w3.org/2001/XMLSchema#"

/* ---- helpers ------------------------------------------------------------ */

static char *path_in(const char *dir, const char *name)
{
  static char bufs[4][4096];
  static int k = 0;
  char *b = bufs[k++ % 4];
  snprintf(b, 4096, "%s/%s", dir, name);
  return b;
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "wb");
  fputs(text, f);
  fclose(f);
}

/* Whole file, gunzipped when it is gzip (zlib reads both). */
static char *slurp(const char *path, size_t *len)
{
  gzFile gz = gzopen(path, "rb");
  if (!gz) {
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *d = malloc(cap + 1);
  int r;
  while ((r = gzread(gz, d + n, (unsigned)(cap - n))) > 0) {
    n += (size_t)r;
    if (n == cap) {
      cap *= 2;
      d = realloc(d, cap + 1);
    }
  }
  gzclose(gz);
  d[n] = '\0';
  *len = n;
  return d;
}

static bool is_sorted_unique(const char *text, size_t len)
{
  const char *prev = NULL;
  size_t prev_len = 0;
  for (const char *p = text; p < text + len;) {
    const char *nl = memchr(p, '\n', (size_t)(text + len - p));
    if (!nl) {
      return false;
    }
    size_t l = (size_t)(nl - p);
    if (prev) {
      int c = memcmp(prev, p, prev_len < l ? prev_len : l);
      if (c > 0 || (c == 0 && prev_len >= l)) {
        return false;
      }
    }
    prev = p;
    prev_len = l;
    p = nl + 1;
  }
  return true;
}

static char *slurp(const char *path, size_t *len);

/* True when the file at path does not hold needle. */
static bool text_lacks_tag(const char *path, const char *needle)
{
  size_t len = 0;
  char *text = slurp(path, &len);
  bool lacks = text && !strstr(text, needle);
  free(text);
  return lacks;
}

static bool has_error_at(const LwCleanReport *r, LwCleanErrorKind kind, unsigned line)
{
  for (size_t i = 0; i < r->n_errors; ++i) {
    if (r->errors[i].kind == kind && r->errors[i].line == line) {
      return true;
    }
  }
  return false;
}

/* ---- tests -------------------------------------------------------------- */

static void test_free_null(void)
{
  lw_clean_report_free(NULL);
  LwCleanReport r = {0};
  lw_clean_report_free(&r);
  CHECK(true);
}

static void test_basic(const char *dir)
{
  const char *in = path_in(dir, "basic.nt");
  write_file(in, "<http://ex.org/b> <http://ex.org/p> \"two\" .\n"
                 "<http://ex.org/a> <http://ex.org/p> \"one\"@en .\n"
                 "<http://ex.org/b> <http://ex.org/p> \"two\" .\n"
                 "_:n1 <http://ex.org/p> _:n2 .\n"
                 "<http://ex.org/a>   <http://ex.org/p>   \"one\"@en   .\n"
                 "<http://ex.org/c> <http://ex.org/p> \"tab\\there\" .\n");
  const char *out = path_in(dir, "basic.nq");
  LwCleanOptions o = {.output_path = out,
                      .seed_hash = "0123456789abcdef0123456789abcdef",
                      .skolem_base = "https://example.net",
                      .data_dir = dir};
  LwCleanReport r;
  LwError err = {0};
  CHECK_INT_EQ(lw_clean_file(in, &o, &r, &err), LW_OK);
  CHECK_INT_EQ(r.format, LW_FORMAT_NTRIPLES);
  CHECK_INT_EQ(r.statements, 6);
  CHECK_INT_EQ(r.triples, 4);
  CHECK_INT_EQ(r.duplicates, 2);
  CHECK_INT_EQ(r.syntax_errors, 0);
  CHECK_INT_EQ(r.literal_errors, 0);
  size_t len = 0;
  char *text = slurp(out, &len);
  CHECK_INT_EQ(r.bytes, len);
  CHECK_INT_EQ(r.file_bytes, len); /* not .gz: plain */
  char md5[LW_HASH_HEX_LEN + 1];
  lw_md5_hex(text, len, md5);
  CHECK_STR_EQ(r.md5, md5);
  CHECK(is_sorted_unique(text, len));
  CHECK(strstr(text, "<http://ex.org/a> <http://ex.org/p> \"one\"@en .\n") != NULL);
  CHECK(strstr(text, "<https://example.net/.well-known/genid/"
                     "0123456789abcdef0123456789abcdef/n1> <http://ex.org/p> "
                     "<https://example.net/.well-known/genid/"
                     "0123456789abcdef0123456789abcdef/n2> .\n") != NULL);
  CHECK(strstr(text, "_:") == NULL);
  CHECK(strstr(text, "\"tab\\there\"") != NULL);
  free(text);
  lw_clean_report_free(&r);
}

/* The same input cleaned twice: the same bytes, the same hash. */
static void test_deterministic(const char *dir)
{
  const char *td = lw_test_testdata();
  char in[4096];
  if (td) {
    snprintf(in, sizeof(in),
             "%s/geolink/ec-geolink__design__data__bco-dmo__test__platform.ttl", td);
  } else {
    snprintf(in, sizeof(in), "%s", path_in(dir, "basic.nt"));
  }
  char md5s[2][LW_HASH_HEX_LEN + 1];
  char *files[2];
  size_t lens[2];
  for (int i = 0; i < 2; ++i) {
    const char *out = path_in(dir, i ? "det2.nq.gz" : "det1.nq.gz");
    LwCleanOptions o = {.output_path = out,
                        .data_dir = dir,
                        .memory_budget = 64 << 10,
                        .base_iri = "http://ex.org/"};
    LwCleanReport r;
    LwError err = {0};
    CHECK_INT_EQ(lw_clean_file(in, &o, &r, &err), LW_OK);
    CHECK(r.triples > 0);
    memcpy(md5s[i], r.md5, sizeof(md5s[i]));
    FILE *f = fopen(out, "rb");
    files[i] = malloc(r.file_bytes + 1);
    lens[i] = fread(files[i], 1, r.file_bytes + 1, f);
    fclose(f);
    CHECK(lens[i] > 2 && (unsigned char)files[i][0] == 0x1f); /* gzip */
    size_t plain_len = 0;
    char *plain = slurp(out, &plain_len);
    char md5[LW_HASH_HEX_LEN + 1];
    lw_md5_hex(plain, plain_len, md5);
    CHECK_STR_EQ(r.md5, md5);
    CHECK_INT_EQ(plain_len, r.bytes);
    CHECK(is_sorted_unique(plain, plain_len));
    free(plain);
    lw_clean_report_free(&r);
  }
  CHECK_STR_EQ(md5s[0], md5s[1]);
  CHECK(lens[0] == lens[1] && !memcmp(files[0], files[1], lens[0]));
  free(files[0]);
  free(files[1]);
}

/* Good statements kept, bad ones located, bad literals counted. */
static void test_dirty(const char *dir)
{
  const char *in = path_in(dir, "dirty.nt");
  write_file(
    in,
    "<http://ex.org/s1> <http://ex.org/p> \"good 1\" .\n"                    /* 1 */
    "<http://ex.org/s2> <http://ex.org/p> \"unterminated .\n"                /* 2 bad */
    "<http://ex.org/s3> <http://ex.org/p> <http://ex.org/o3> .\n"            /* 3 */
    "<http://ex.org/s4> <http://ex.org/p> .\n"                               /* 4 bad */
    "<http://ex.org/s5> <http://ex.org/p> \"12\"^^<" XSD "integer> .\n"      /* 5 */
    "<http://ex.org/s6> <http://ex.org/p> \"abc\"^^<" XSD "integer> .\n"     /* 6 literal */
    "<http://ex.org/s7> <http://ex.org/p> \"hi\"@en-US .\n"                  /* 7 */
    "<http://ex.org/s8> <http://ex.org/p> \"hi\"@abcdefghi .\n"              /* 8 dropped */
    "<http://ex.org/s9> <http://ex.org/p> \"2021-02-30\"^^<" XSD "date> .\n" /* 9 literal */
    "<http://ex.org/s1> <http://ex.org/p> \"good 1\" .\n"                    /* 10 dup */
    "<http://ex.org/s11> <http://ex.org/p> \"300\"^^<" XSD "byte> .\n" /* 11 literal */
    "<http://ex.org/s12> <http://ex.org/p> <http://ex.org/o 12> .\n"   /* 12 bad */
    "<http://ex.org/s13> <http://ex.org/p> \"good 13\" .\n");          /* 13 */
  const char *out = path_in(dir, "dirty.nq");
  LwCleanOptions o = {.output_path = out, .data_dir = dir, .max_errors = 100};
  LwCleanReport r;
  LwError err = {0};
  CHECK_INT_EQ(lw_clean_file(in, &o, &r, &err), LW_OK);
  CHECK_INT_EQ(r.syntax_errors, 3);
  CHECK_INT_EQ(r.literal_errors, 4);
  CHECK_INT_EQ(r.triples, 8); /* a malformed language tag: no valid N-Quads form */
  CHECK_INT_EQ(r.duplicates, 1);
  CHECK(has_error_at(&r, LW_CLEAN_ERROR_SYNTAX, 2));
  CHECK(has_error_at(&r, LW_CLEAN_ERROR_SYNTAX, 4));
  CHECK(has_error_at(&r, LW_CLEAN_ERROR_SYNTAX, 12));
  size_t kinds[3] = {0};
  for (size_t i = 0; i < r.n_errors; ++i) {
    kinds[r.errors[i].kind]++;
    CHECK(r.errors[i].message && r.errors[i].message[0]);
  }
  CHECK_INT_EQ(kinds[LW_CLEAN_ERROR_LITERAL], 3);
  CHECK_INT_EQ(kinds[LW_CLEAN_ERROR_LANGTAG], 1);
  size_t len = 0;
  char *text = slurp(out, &len);
  static const char *kept[] = {"s1>", "s3>", "s5>", "s6>", "s7>", "s9>", "s11>", "s13>"};
  for (size_t i = 0; i < 8; ++i) {
    char needle[64];
    snprintf(needle, sizeof(needle), "<http://ex.org/%s", kept[i]);
    CHECK(text && strstr(text, needle));
  }
  CHECK(text && strstr(text, "\"abc\"^^<" XSD "integer>")); /* kept as is */
  CHECK(text && !strstr(text, "s2>") && !strstr(text, "s4>") && !strstr(text, "s8>") &&
        !strstr(text, "s12>"));
  char *json = lw_clean_report_errors_json(&r);
  CHECK(json && json[0] == '[' && strstr(json, "\"kind\":\"syntax\""));
  CHECK(json && strstr(json, "\"line\":12"));
  free(json);
  free(text);
  lw_clean_report_free(&r);

  /* The sample list is capped; the counts are not. */
  LwCleanOptions capped = {.output_path = out, .data_dir = dir, .max_errors = 2};
  CHECK_INT_EQ(lw_clean_file(in, &capped, &r, &err), LW_OK);
  CHECK_INT_EQ(r.n_errors, 2);
  CHECK_INT_EQ(r.syntax_errors, 3);
  lw_clean_report_free(&r);
}

static void test_failures(const char *dir)
{
  LwCleanReport r;
  LwError err = {0};
  const char *out = path_in(dir, "never.nq");
  LwCleanOptions o = {.output_path = out, .data_dir = dir};
  CHECK_INT_EQ(lw_clean_file(path_in(dir, "missing.ttl"), &o, &r, &err), LW_ERR_IO);
  CHECK(strstr(err.message, "missing.ttl") != NULL);
  lw_clean_report_free(&r);
  struct stat st;
  CHECK(stat(out, &st) != 0);

  const char *pdf = path_in(dir, "doc.ttl");
  write_file(pdf, "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n");
  CHECK_INT_EQ(lw_clean_file(pdf, &o, &r, &err), LW_ERR_FORMAT);
  lw_clean_report_free(&r);
  CHECK(stat(out, &st) != 0);

  /* The format named by the caller wins over the guess. */
  const char *ttl = path_in(dir, "named.txt");
  write_file(ttl, "@prefix ex: <http://ex.org/> .\nex:a ex:p ex:b .\n");
  LwCleanOptions named = {.output_path = out, .data_dir = dir, .format = LW_FORMAT_TURTLE};
  CHECK_INT_EQ(lw_clean_file(ttl, &named, &r, &err), LW_OK);
  CHECK_INT_EQ(r.format, LW_FORMAT_TURTLE);
  CHECK_INT_EQ(r.triples, 1);
  lw_clean_report_free(&r);
}

/* ---- the same data in four formats -------------------------------------- */

/* Appends the first three terms of a canonical N-Quads line (the graph
 * dropped, language tags lower-cased) and a newline to out. */
static size_t triple_part(const char *line, size_t len, char *out)
{
  const char *p = line, *end = line + len;
  size_t o = 0;
  for (int term = 0; term < 3 && p < end; ++term) {
    const char *start = p;
    if (*p == '<') {
      p = memchr(p, '>', (size_t)(end - p));
      p = p ? p + 1 : end;
    } else if (*p == '"') {
      ++p;
      while (p < end && *p != '"') {
        p += *p == '\\' ? 2 : 1;
      }
      ++p;
      if (p < end && *p == '@') {
        while (p < end && *p != ' ') {
          ++p;
        }
      } else if (p + 1 < end && p[0] == '^' && p[1] == '^') {
        p = memchr(p, '>', (size_t)(end - p));
        p = p ? p + 1 : end;
      }
    } else {
      while (p < end && *p != ' ') {
        ++p;
      }
    }
    for (const char *q = start; q < p; ++q) {
      char ch = *q;
      if (term == 2 && *start == '"' && ch >= 'A' && ch <= 'Z') {
        const char *at = memchr(start + 1, '@', (size_t)(p - start - 1));
        const char *close = p;
        while (close > start && *close != '"') {
          --close;
        }
        if (at && at > close && q > at) {
          ch = (char)(ch - 'A' + 'a');
        }
      }
      out[o++] = ch;
    }
    out[o++] = ' ';
    ++p; /* the space */
  }
  memcpy(out + o, ".\n", 2);
  return o + 2;
}

static int cmp_lines(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The clean triples of in, blank nodes aside, graph dropped, as one sorted
 * string; NULL when cleaning failed. */
static char *triple_set(const char *in, const char *dir, LwFormat format,
                        unsigned long long *errors)
{
  const char *out = path_in(dir, "set.nq");
  LwCleanOptions o = {.output_path = out,
                      .data_dir = dir,
                      .format = format,
                      .base_iri = "http://base.example/"};
  LwCleanReport r;
  LwError err = {0};
  LwStatus st = lw_clean_file(in, &o, &r, &err);
  *errors = r.syntax_errors;
  lw_clean_report_free(&r);
  if (st != LW_OK) {
    fprintf(stderr, "clean %s: %s\n", in, err.message);
    return NULL;
  }
  size_t len = 0;
  char *text = slurp(out, &len);
  size_t n = 0, cap = 1024;
  char **lines = malloc(cap * sizeof(*lines));
  for (char *p = text; p < text + len;) {
    char *nl = memchr(p, '\n', (size_t)(text + len - p));
    *nl = '\0';
    if (!strstr(p, "/.well-known/genid/")) {
      char *t = malloc((size_t)(nl - p) + 4);
      size_t tl = triple_part(p, (size_t)(nl - p), t);
      t[tl] = '\0';
      if (n == cap) {
        cap *= 2;
        lines = realloc(lines, cap * sizeof(*lines));
      }
      lines[n++] = t;
    }
    p = nl + 1;
  }
  qsort(lines, n, sizeof(*lines), cmp_lines);
  size_t total = 1;
  for (size_t i = 0; i < n; ++i) {
    total += strlen(lines[i]);
  }
  char *set = malloc(total);
  set[0] = '\0';
  char *w = set;
  for (size_t i = 0; i < n; ++i) {
    if (!i || strcmp(lines[i], lines[i - 1])) {
      w = stpcpy(w, lines[i]);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    free(lines[i]);
  }
  free(lines);
  free(text);
  return set;
}

static bool run(const char *cmd)
{
  int rc = system(cmd);
  return rc == 0;
}

static size_t count_lines(const char *s)
{
  size_t n = 0;
  for (; *s; ++s) {
    n += *s == '\n';
  }
  return n;
}

/* Cleans each file and checks that all give the same triples. */
static void check_same(const char *label, const char **files, const LwFormat *formats,
                       size_t n, const char *dir)
{
  char *first = NULL;
  for (size_t i = 0; i < n; ++i) {
    unsigned long long errors = 0;
    char *set = triple_set(files[i], dir, formats[i], &errors);
    CHECK(set != NULL);
    CHECK_INT_EQ(errors, 0);
    if (!set) {
      continue;
    }
    if (!first) {
      first = set;
      CHECK(count_lines(first) > 0);
      printf("%s: %zu triples (blank nodes aside) in %zu formats\n", label,
             count_lines(first), n);
      continue;
    }
    bool same = !strcmp(first, set);
    if (!same) {
      fprintf(stderr, "%s: %s differs from %s (%zu vs %zu triples)\n", label, files[i],
              files[0], count_lines(set), count_lines(first));
    }
    CHECK(same);
    free(set);
  }
  free(first);
}

static void test_cross_format(const char *dir)
{
  const char *td = lw_test_testdata();
  if (!td || !run("command -v serdi >/dev/null && command -v rapper >/dev/null")) {
    puts("cross-format: no test data or no serdi/rapper; not checked");
    return;
  }
  char cmd[32768];
  /* GeoLink publishes these datasets as Turtle and as RDF/XML; N-Triples
   * and N-Quads are made from the Turtle with serdi. (Its "program" pair
   * really differs: the Turtle has CRLF inside literals and a datatype
   * written <rdf:HTML>, which XML normalizes and expands.) */
  static const char *geolink[] = {
    "ec-geolink__design__data__bco-dmo__test__funding",
    "ec-geolink__design__data__bco-dmo__test__platform",
  };
  for (size_t i = 0; i < 2; ++i) {
    char ttl[4096], rdf[4096], nt[4096], nq[4096];
    snprintf(ttl, sizeof(ttl), "%s/geolink/%s.ttl", td, geolink[i]);
    snprintf(rdf, sizeof(rdf), "%s/geolink/%s.rdf", td, geolink[i]);
    snprintf(nt, sizeof(nt), "%s/x%zu.nt", dir, i);
    snprintf(nq, sizeof(nq), "%s/x%zu.nq", dir, i);
    snprintf(cmd, sizeof(cmd),
             "serdi -q -i turtle -o ntriples '%s' > '%s' && "
             "serdi -q -i turtle -o nquads '%s' > '%s'",
             ttl, nt, ttl, nq);
    CHECK(run(cmd));
    const char *files[] = {ttl, rdf, nt, nq};
    LwFormat formats[] = {LW_FORMAT_UNKNOWN, LW_FORMAT_UNKNOWN, LW_FORMAT_UNKNOWN,
                          LW_FORMAT_NQUADS};
    check_same(geolink[i], files, formats, 4, dir);
  }
  /* A zazuko vocabulary, published as N-Quads (one graph); rapper writes
   * the other three formats. */
  static const char *vocabs[] = {"skos", "void", "dcat"};
  for (size_t i = 0; i < 3; ++i) {
    char src[4096], nt[4096], ttl[4096], rdf[4096];
    snprintf(src, sizeof(src), "%s/zazuko-rdf-vocabularies-2023.1.19/ontologies/%s.nq", td,
             vocabs[i]);
    snprintf(nt, sizeof(nt), "%s/%s.nt", dir, vocabs[i]);
    snprintf(ttl, sizeof(ttl), "%s/%s.ttl", dir, vocabs[i]);
    snprintf(rdf, sizeof(rdf), "%s/%s.rdf", dir, vocabs[i]);
    snprintf(cmd, sizeof(cmd),
             "rapper -q -i nquads -o ntriples '%s' > '%s' && "
             "rapper -q -i nquads -o turtle '%s' > '%s' && "
             "rapper -q -i nquads -o rdfxml-abbrev '%s' > '%s'",
             src, nt, src, ttl, src, rdf);
    CHECK(run(cmd));
    const char *files[] = {src, nt, ttl, rdf};
    LwFormat formats[] = {LW_FORMAT_UNKNOWN, LW_FORMAT_UNKNOWN, LW_FORMAT_UNKNOWN,
                          LW_FORMAT_UNKNOWN};
    check_same(vocabs[i], files, formats, 4, dir);
  }
}

/* ---- the fast path ------------------------------------------------------- */

/* Cleans path with and without the N-Triples fast path; both must give the
 * same bytes and the same counts. Returns false when they differ. */
static bool same_both_ways(const char *path, const char *dir, LwFormat format)
{
  LwCleanReport r[2];
  LwStatus st[2];
  for (int slow = 0; slow < 2; ++slow) {
    LwCleanOptions o = {.output_path = path_in(dir, slow ? "slow.nq" : "fast.nq"),
                        .data_dir = dir,
                        .format = format,
                        .no_fast_path = slow,
                        .base_iri = "http://base.example/"};
    LwError err = {0};
    st[slow] = lw_clean_file(path, &o, &r[slow], &err);
  }
  bool same = st[0] == st[1] && !strcmp(r[0].md5, r[1].md5) &&
              r[0].triples == r[1].triples && r[0].duplicates == r[1].duplicates &&
              r[0].statements == r[1].statements &&
              r[0].literal_errors == r[1].literal_errors &&
              (r[0].syntax_errors > 0) == (r[1].syntax_errors > 0);
  if (!same) {
    fprintf(stderr,
            "fast path differs on %s: md5 %s/%s triples %llu/%llu "
            "syntax %llu/%llu literal %llu/%llu\n",
            path, r[0].md5, r[1].md5, r[0].triples, r[1].triples, r[0].syntax_errors,
            r[1].syntax_errors, r[0].literal_errors, r[1].literal_errors);
  }
  lw_clean_report_free(&r[0]);
  lw_clean_report_free(&r[1]);
  return same;
}

static void test_fast_path(const char *dir)
{
  /* Lines the fast path must take, and lines it must leave to the reader. */
  const char *in = path_in(dir, "mixed.nq");
  write_file(in, "\xEF\xBB\xBF<http://ex.org/a> <http://ex.org/p> \"x\" .\r\n"
                 "<http://ex.org/a> <http://ex.org/p> \"x\"^^<" XSD "string> .\n"
                 "<http://ex.org/a>  <http://ex.org/p> \"x\" .\n"
                 "<http://ex.org/a> <http://ex.org/p> \"x\"@EN-us .\n"
                 "<http://ex.org/a> <http://ex.org/p> \"x\"@en-us <http://ex.org/g> .\n"
                 "<http://ex.org/a> <http://ex.org/p> \"tab\there\" .\n"
                 "<http://ex.org/a> <http://ex.org/p> \"raw\ttab\" .\n"
                 "<http://ex.org/a> <http://ex.org/p> _:b .\n"
                 "_:b <http://ex.org/p> \"\\u00E9t\\u00E9\" _:g .\n"
                 "<http://ex.org/\\u00E9> <http://ex.org/p> \"\xC3\xA9t\xC3\xA9\" .\n"
                 "<rel> <http://ex.org/p> \"x\" .\n"
                 "<http://ex.org/a> <http://ex.org/p> \"x\" . # comment\n"
                 "# only a comment\n"
                 "\n"
                 "<http://ex.org/a> <http://ex.org/p> \"bad \xC3\x28 utf8\" .\n"
                 "<http://ex.org/a> <http://ex.org/p> \"1.5\"^^<" XSD "integer> .\n"
                 "<http://ex.org/a> <http://ex.org/p> \"x\"@abcdefghi .\n"
                 "<http://ex.org/a> <http://ex.org/p> \"x\"");
  LwCleanOptions o = {.output_path = path_in(dir, "mixed.out"),
                      .data_dir = dir,
                      .format = LW_FORMAT_NQUADS,
                      .max_errors = 50};
  LwCleanReport r;
  LwError err = {0};
  CHECK_INT_EQ(lw_clean_file(in, &o, &r, &err), LW_OK);
  /* Every good statement kept, whichever path it took; the bad ones (a
   * relative IRI on line 11, invalid UTF-8 on line 15, no " ." on line 18)
   * located and skipped, on the fast path and the reader's alike; the
   * malformed language tag on line 17 dropped with its statement. */
  CHECK_INT_EQ(r.triples, 9);
  CHECK(text_lacks_tag(path_in(dir, "mixed.out"), "@abcdefghi"));
  CHECK_INT_EQ(r.duplicates, 3);
  CHECK_INT_EQ(r.literal_errors, 2);
  CHECK(has_error_at(&r, LW_CLEAN_ERROR_LITERAL, 16));
  CHECK(has_error_at(&r, LW_CLEAN_ERROR_LANGTAG, 17));
  CHECK(has_error_at(&r, LW_CLEAN_ERROR_SYNTAX, 11));
  CHECK(has_error_at(&r, LW_CLEAN_ERROR_SYNTAX, 15));
  CHECK(has_error_at(&r, LW_CLEAN_ERROR_SYNTAX, 18));
  size_t len = 0;
  char *text = slurp(path_in(dir, "mixed.out"), &len);
  static const char *want[] = {
    "<http://ex.org/a> <http://ex.org/p> \"x\" .\n",
    "<http://ex.org/a> <http://ex.org/p> \"x\"@en-us .\n",
    "<http://ex.org/a> <http://ex.org/p> \"x\"@en-us <http://ex.org/g> .\n",
    "<http://ex.org/a> <http://ex.org/p> \"tab\\there\" .\n",
    "<http://ex.org/a> <http://ex.org/p> \"raw\\ttab\" .\n",
    "<http://ex.org/\xC3\xA9> <http://ex.org/p> \"\xC3\xA9t\xC3\xA9\" .\n",
    "\"1.5\"^^<" XSD "integer> .\n",
    "/b> <http://ex.org/p> \"\xC3\xA9t\xC3\xA9\" <https://lodwash.invalid/.well-known/genid/",
  };
  for (size_t i = 0; i < sizeof(want) / sizeof(*want); ++i) {
    bool found = text && strstr(text, want[i]);
    if (!found) {
      fprintf(stderr, "missing: %s\n", want[i]);
    }
    CHECK(found);
  }
  CHECK(text && !strstr(text, "utf8"));
  CHECK(is_sorted_unique(text, len));
  free(text);
  lw_clean_report_free(&r);

  const char *td = lw_test_testdata();
  if (!td) {
    return;
  }
  /* Every W3C N-Triples and N-Quads test file, and real vocabularies. */
  static const char *suites[] = {"rdf-n-triples", "rdf-n-quads"};
  int files = 0, same = 0;
  for (int k = 0; k < 2; ++k) {
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "ls %s/w3c-rdf-tests/rdf/rdf11/%s/*.n[tq] 2>/dev/null", td,
             suites[k]);
    FILE *ls = popen(cmd, "r");
    char path[4096];
    while (ls && fgets(path, sizeof(path), ls)) {
      path[strcspn(path, "\n")] = '\0';
      bool nq = strstr(path, ".nq") != NULL;
      ++files;
      same += same_both_ways(path, dir, nq ? LW_FORMAT_NQUADS : LW_FORMAT_NTRIPLES);
    }
    if (ls) {
      pclose(ls);
    }
  }
  static const char *vocabs[] = {"skos", "schema", "owl", "dcat", "prov", "foaf"};
  for (size_t i = 0; i < 6; ++i) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/zazuko-rdf-vocabularies-2023.1.19/ontologies/%s.nq",
             td, vocabs[i]);
    ++files;
    same += same_both_ways(path, dir, LW_FORMAT_NQUADS);
  }
  printf("fast path = reader path on %d of %d files\n", same, files);
  CHECK(files > 100);
  CHECK_INT_EQ(same, files);
}

/* ---- memory ------------------------------------------------------------- */

/* Child: cleans FILE with a budget, prints the sort runs it used. */
static int clean_child(const char *in, const char *dir, size_t budget)
{
  LwCleanOptions o = {
    .output_path = path_in(dir, "big.nq.gz"), .data_dir = dir, .memory_budget = budget};
  LwCleanReport r;
  LwError err = {0};
  LwStatus st = lw_clean_file(in, &o, &r, &err);
  printf("runs=%u triples=%llu\n", r.sort_runs, r.triples);
  lw_clean_report_free(&r);
  if (st != LW_OK) {
    fprintf(stderr, "clean: %s\n", err.message);
  }
  return st == LW_OK ? 0 : 1;
}

static long child_peak_kib(const char *self, const char *in, const char *dir, size_t budget,
                           unsigned *runs)
{
  int fds[2];
  if (pipe(fds) != 0) {
    return -1;
  }
  char b[32];
  snprintf(b, sizeof(b), "%zu", budget);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    execl(self, self, "--clean-child", in, dir, b, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  char buf[256] = "";
  ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
  buf[n > 0 ? n : 0] = '\0';
  close(fds[0]);
  *runs = 0;
  sscanf(buf, "runs=%u", runs);
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    return -1;
  }
  return ru.ru_maxrss;
}

static void write_ntriples(const char *path, size_t megabytes)
{
  FILE *f = fopen(path, "wb");
  size_t total = 0;
  for (unsigned long i = 0; total < megabytes << 20; ++i) {
    int n = fprintf(f,
                    "<http://example.org/thing/%lu> <http://example.org/vocab#p%lu> "
                    "\"value number %lu, long enough to be a realistic literal\"@en .\n",
                    (i * 7919) % 1000003, i % 13, i);
    total += (size_t)n;
  }
  fclose(f);
}

static void test_peak_memory(const char *dir)
{
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) {
    return;
  }
  self[n] = '\0';
  char small[4096], big[4096];
  snprintf(small, sizeof(small), "%s/small.nt", dir);
  snprintf(big, sizeof(big), "%s/big.nt", dir);
  write_ntriples(small, 1);
  write_ntriples(big, 40); /* 10 x the budget */
  size_t budget = 4 << 20;
  unsigned runs_small = 0, runs_big = 0;
  long rss_small = child_peak_kib(self, small, dir, budget, &runs_small);
  long rss_big = child_peak_kib(self, big, dir, budget, &runs_big);
  printf("peak RSS cleaning 1 MiB: %ld KiB; 40 MiB: %ld KiB (%u runs); "
         "budget %zu KiB\n",
         rss_small, rss_big, runs_big, budget >> 10);
  CHECK(rss_small > 0 && rss_big > 0);
  CHECK_INT_EQ(runs_small, 0);
  CHECK(runs_big >= 8);
  char tmp[4096];
  snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
  CHECK(rmdir(tmp) == 0); /* empty: every run removed */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  puts("(sanitizer build: RSS not checked)");
#else
  /* The budget plus a small constant (the writer's chunks, zlib, buffers). */
  CHECK(rss_big <= rss_small + (long)(budget >> 10) + 8192);
#endif
  remove(big);
  remove(small);
  remove(path_in(dir, "big.nq.gz"));
}

/* ---- the threaded clean ---------------------------------------------------- */

/* Dirty, escaped, blank-noded, duplicated data: both the fast path and the
 * reader, in N-Triples; the same kind of data in Turtle. */
static void write_threads_input(const char *nt, const char *ttl)
{
  FILE *f = fopen(nt, "wb");
  FILE *t = fopen(ttl, "wb");
  fputs("@prefix ex: <http://ex.org/> .\n@prefix xsd: <" XSD "> .\n", t);
  for (unsigned long i = 0; i < 60000; ++i) {
    unsigned long k = (i * 7919) % 50021; /* duplicates, out of order */
    fprintf(f, "<http://ex.org/s%lu> <http://ex.org/p%lu> \"value %lu\"@EN .\n", k, k % 7, k);
    fprintf(f, "_:b%lu <http://ex.org/q> \"tab\\there \\u00e9 %lu\" .\n", k, k);
    fprintf(f, "<http://ex.org/s%lu>  <http://ex.org/n> \"%lu\"^^<" XSD "integer> .\n", k, k);
    if (i % 5000 == 17) {
      fprintf(f, "<http://ex.org/bad%lu> <http://ex.org/p> \"unterminated .\n", i);
      fprintf(f, "<http://ex.org/s%lu> <http://ex.org/p> \"x\"^^<" XSD "date> .\n", i);
    }
    fprintf(t, "ex:s%lu ex:p%lu \"value %lu\"@en ; ex:n %lu ; ex:r [ ex:q \"\"\"long\n%lu\"\"\" ] .\n",
            k, k % 7, k, k, k);
  }
  fclose(f);
  fclose(t);
}

/* Cleans in with the options, the output in out; returns its content. */
static char *clean_to(const char *in, const char *out, const char *dir, size_t budget,
                      bool single, LwCleanReport *r, size_t *len)
{
  LwCleanOptions o = {.output_path = out,
                      .data_dir = dir,
                      .memory_budget = budget,
                      .max_errors = 100,
                      .base_iri = "http://base.example/",
                      .single_thread = single};
  LwError err = {0};
  LwStatus st = lw_clean_file(in, &o, r, &err);
  CHECK_INT_EQ(st, LW_OK);
  if (st != LW_OK) {
    fprintf(stderr, "cleaning %s: %s\n", in, err.message);
  }
  FILE *f = fopen(out, "rb");
  if (!f) {
    return NULL;
  }
  char *data = malloc(r->file_bytes + 1);
  *len = fread(data, 1, r->file_bytes + 1, f);
  fclose(f);
  return data;
}

/* The parser, the sorter and the compression on threads of their own give
 * the very bytes and counts of one thread doing it all, in memory and with
 * runs on disk (several merge passes with the smallest budget). */
static void test_threads_same_output(const char *dir)
{
  char nt[4096], ttl[4096]; /* path_in's buffers are reused */
  snprintf(nt, sizeof(nt), "%s", path_in(dir, "threads.nt"));
  snprintf(ttl, sizeof(ttl), "%s", path_in(dir, "threads.ttl"));
  write_threads_input(nt, ttl);
  const char *inputs[] = {nt, ttl};
  size_t budgets[] = {64 << 10, 1 << 20, 0};
  for (size_t i = 0; i < 2; ++i) {
    for (size_t b = 0; b < 3; ++b) {
      LwCleanReport r[2];
      char *data[2];
      size_t len[2] = {0};
      for (int single = 0; single < 2; ++single) {
        data[single] = clean_to(inputs[i], path_in(dir, single ? "one.nq.gz" : "many.nq.gz"),
                                dir, budgets[b], single, &r[single], &len[single]);
      }
      CHECK(r[0].triples > 50000);
      CHECK(budgets[b] == 0 || r[0].sort_runs > 0);
      CHECK_STR_EQ(r[0].md5, r[1].md5);
      CHECK(len[0] == len[1] && data[0] && data[1] && !memcmp(data[0], data[1], len[0]));
      CHECK_INT_EQ(r[0].triples, r[1].triples);
      CHECK_INT_EQ(r[0].duplicates, r[1].duplicates);
      CHECK_INT_EQ(r[0].statements, r[1].statements);
      CHECK_INT_EQ(r[0].syntax_errors, r[1].syntax_errors);
      CHECK_INT_EQ(r[0].literal_errors, r[1].literal_errors);
      CHECK_INT_EQ(r[0].sort_runs, r[1].sort_runs);
      CHECK_INT_EQ(r[0].n_errors, r[1].n_errors);
      for (size_t e = 0; e < r[0].n_errors && e < r[1].n_errors; ++e) {
        CHECK_INT_EQ(r[0].errors[e].line, r[1].errors[e].line);
        CHECK_STR_EQ(r[0].errors[e].message, r[1].errors[e].message);
      }
      free(data[0]);
      free(data[1]);
      lw_clean_report_free(&r[0]);
      lw_clean_report_free(&r[1]);
    }
  }
  remove(nt);
  remove(ttl);
}

/* Cleaning in fails with status and a message holding needle, threaded
 * and single-threaded, and leaves no output. */
static void fails_without_output(const char *in, const char *out, const char *dir,
                                 LwStatus status, const char *needle)
{
  for (int single = 0; single < 2; ++single) {
    LwCleanOptions o = {.output_path = out,
                        .data_dir = dir,
                        .memory_budget = 256 << 10,
                        .single_thread = single};
    LwCleanReport r;
    LwError err = {0};
    CHECK_INT_EQ(lw_clean_file(in, &o, &r, &err), status);
    CHECK(err.message[0] != '\0' && strstr(err.message, needle) != NULL);
    struct stat sb;
    CHECK(stat(out, &sb) != 0);
    lw_clean_report_free(&r);
  }
}

/* An error midway, on the parser's side (a cap) or the sorter's (a run
 * that cannot be written): no output, no run left, every thread gone (the
 * sanitizer build sees leaks and threads left running). */
static void test_threads_error_midway(const char *dir)
{
  char ttl[4096], out[4096], nt[4096];
  snprintf(ttl, sizeof(ttl), "%s", path_in(dir, "deep.ttl"));
  snprintf(out, sizeof(out), "%s", path_in(dir, "deep.nq.gz"));
  snprintf(nt, sizeof(nt), "%s", path_in(dir, "many.nt"));
  FILE *f = fopen(ttl, "wb");
  fputs("@prefix ex: <http://ex.org/> .\n", f);
  for (int i = 0; i < 40000; ++i) {
    fprintf(f, "ex:s%d ex:p \"a literal long enough to fill the queue %d\" .\n", i, i);
  }
  for (int i = 0; i < 100000; ++i) {
    fputs("ex:s ex:p [ ex:q ", f); /* deeper than any cap */
  }
  fclose(f);
  fails_without_output(ttl, out, dir, LW_ERR_LIMIT, "nesting");
  char tmp[4096];
  snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
  CHECK(rmdir(tmp) == 0); /* empty: the runs written before the cap are gone */

  /* DATA/tmp is a file: the first run cannot be written, on the sorter's
   * thread, while the parser reads on. */
  write_ntriples(nt, 4);
  write_file(tmp, "not a directory\n");
  fails_without_output(nt, out, dir, LW_ERR_IO, "");
  remove(tmp);
  remove(nt);
  remove(ttl);
}

static void count_progress(void *handle, unsigned long long statements)
{
  unsigned long long *last = handle;
  CHECK(statements > *last);
  *last = statements;
}

/* Long work shows progress: the statements read so far, now and then. */
static void test_progress(const char *dir)
{
  char *in = path_in(dir, "progress.nt");
  FILE *f = fopen(in, "w");
  for (int i = 0; i < 200000; ++i) {
    fprintf(f, "<http://ex.org/s%d> <http://ex.org/p> \"%d\" .\n", i, i);
  }
  fclose(f);
  unsigned long long last = 0;
  LwCleanOptions o = {.output_path = path_in(dir, "progress.out"),
                      .data_dir = dir,
                      .progress = count_progress,
                      .progress_handle = &last};
  LwCleanReport r;
  LwError err = {0};
  CHECK_INT_EQ(lw_clean_file(in, &o, &r, &err), LW_OK);
  CHECK_INT_EQ(last, 196608); /* 3 x 65536 */
  CHECK_INT_EQ(r.triples, 200000);
  lw_clean_report_free(&r);
}

int main(int argc, char **argv)
{
  if (argc >= 2 && !strcmp(argv[1], "--cli")) {
    return lw_cmd_clean(NULL, argc - 2, argv + 2);
  }
  if (argc == 5 && !strcmp(argv[1], "--clean-child")) {
    return clean_child(argv[2], argv[3], strtoull(argv[4], NULL, 10));
  }
  char *dir = lw_test_tmpdir();
  test_peak_memory(dir); /* first, while this process is small */
  test_free_null();
  test_basic(dir);
  test_deterministic(dir);
  test_dirty(dir);
  test_failures(dir);
  test_fast_path(dir);
  test_cross_format(dir);
  test_progress(dir);
  test_threads_same_output(dir);
  test_threads_error_midway(dir);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
