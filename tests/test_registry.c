/* registry.yaml: good files, YAML errors (whole file refused, with
 * line:column), bad entries (reported with their line, the rest kept),
 * duplicates libyaml would let through, and the GeoLink glharvest files. */
#include "config/config.h"
#include "tests/support/check.h"

#include <stdlib.h>

static LwRegistry *parse(const char *yaml, LwStatus expect, LwError *err)
{
  LwRegistry *reg = NULL;
  lw_error_clear(err);
  LwStatus st = lw_registry_parse(yaml, strlen(yaml), "reg.yaml", &reg, err);
  CHECK_INT_EQ(st, expect);
  if (st != LW_OK) {
    CHECK(reg == NULL);
  }
  return reg;
}

/* True if some problem at line has a message containing text. */
static bool has_problem(const LwRegistry *reg, unsigned line, bool warning,
                        const char *text)
{
  for (size_t i = 0; reg && i < reg->problem_count; ++i) {
    const LwRegistryProblem *p = &reg->problems[i];
    if (p->line == line && p->warning == warning && strstr(p->message, text)) {
      return true;
    }
  }
  fprintf(stderr, "no %s at line %u containing '%s'; problems:\n",
          warning ? "warning" : "error", line, text);
  for (size_t i = 0; reg && i < reg->problem_count; ++i) {
    fprintf(stderr, "  %s\n", reg->problems[i].message);
  }
  return false;
}

static void test_good(void)
{
  LwError err;
  LwRegistry *reg = parse("# providers\n"
                          "d1lod:\n"
                          "  modified: 2015-10-01\n"
                          "  void: http://lod.dataone.org/void.ttl\n"
                          "someProvider2:\n"
                          "  modified: 2015-12-04 14:25:44.758604\n"
                          "  void: https://example.org/void.ttl\n"
                          "  enabled: false\n"
                          "  interval: 3600\n"
                          "zoned:\n"
                          "  void: 'http://example.org/v.rdf'\n"
                          "  modified: \"2015-12-04T14:25:44Z\"\n"
                          "nomod:\n"
                          "  void: http://example.org/n.ttl\n",
                          LW_OK, &err);
  CHECK(reg != NULL);
  if (!reg) {
    return;
  }
  CHECK_INT_EQ(reg->count, 4);
  CHECK_INT_EQ(reg->problem_count, 0);
  CHECK_INT_EQ(reg->error_count, 0);
  const LwProvider *p = lw_registry_find(reg, "d1lod");
  CHECK(p != NULL);
  if (p) {
    char buf[LW_DATETIME_BUF];
    CHECK_STR_EQ(p->source_url, "http://lod.dataone.org/void.ttl");
    CHECK(p->has_modified);
    CHECK_STR_EQ(lw_datetime_format(&p->modified, buf), "2015-10-01");
    CHECK(p->enabled);
    CHECK_INT_EQ(p->interval, 0);
    CHECK_INT_EQ(p->line, 2);
  }
  p = lw_registry_find(reg, "someProvider2");
  CHECK(p && !p->enabled && p->interval == 3600 && p->line == 5);
  if (p) {
    char buf[LW_DATETIME_BUF];
    CHECK_STR_EQ(lw_datetime_format(&p->modified, buf), "2015-12-04T14:25:44.758604Z");
  }
  p = lw_registry_find(reg, "zoned");
  CHECK(p && p->has_modified && p->modified.zoned);
  p = lw_registry_find(reg, "nomod");
  CHECK(p && !p->has_modified);
  CHECK(lw_registry_find(reg, "missing") == NULL);
  CHECK(lw_registry_find(reg, "D1LOD") == NULL);
  /* File order is kept. */
  CHECK_STR_EQ(reg->providers[0].name, "d1lod");
  CHECK_STR_EQ(reg->providers[3].name, "nomod");
  lw_registry_free(reg);
}

static void test_yaml_errors(void)
{
  LwError err;
  /* An unclosed quote: the whole file is refused, with line and column. */
  parse("good:\n  void: http://example.org/v.ttl\n"
        "bad:\n  void: \"http://example.org/v.ttl\n",
        LW_ERR_SYNTAX, &err);
  CHECK(strstr(err.message, "reg.yaml:") == err.message);
  CHECK(strstr(err.message, "YAML error") != NULL);
  /* Bad indentation: line 3. */
  parse("good:\n  void: http://example.org/v.ttl\n   modified: 2015-10-10\n", LW_ERR_SYNTAX,
        &err);
  CHECK(strstr(err.message, "reg.yaml:3:") != NULL);
  /* A tab for indentation is a YAML error. */
  parse("good:\n\tvoid: http://example.org/v.ttl\n", LW_ERR_SYNTAX, &err);
  CHECK(strstr(err.message, "reg.yaml:2:") != NULL);
  /* A list instead of a mapping. */
  parse("- d1lod\n- other\n", LW_ERR_FORMAT, &err);
  CHECK(strstr(err.message, "reg.yaml:1:1:") != NULL);
  parse("just text\n", LW_ERR_FORMAT, &err);
  /* Invalid UTF-8 is a reader error, located by line. */
  parse("a:\n  void: http://example.org/\xff\n", LW_ERR_SYNTAX, &err);
  CHECK(strstr(err.message, "reg.yaml:2:") != NULL);
  /* A syntax error in a second document fails the file too. */
  parse("a:\n  void: http://example.org/v.ttl\n---\nb: [\n", LW_ERR_SYNTAX, &err);
}

static void test_empty(void)
{
  LwError err;
  LwRegistry *reg = parse("", LW_OK, &err);
  CHECK(reg && reg->count == 0 && reg->problem_count == 1 && reg->error_count == 0);
  lw_registry_free(reg);
  reg = parse("# nothing yet\n", LW_OK, &err);
  CHECK(reg && reg->count == 0 && reg->error_count == 0);
  lw_registry_free(reg);
}

static void test_bad_entries(void)
{
  LwError err;
  LwRegistry *reg = parse("good1:\n"                               /* 1 */
                          "  void: http://example.org/1.ttl\n"     /* 2 */
                          "bad_name:\n"                            /* 3 */
                          "  void: http://example.org/2.ttl\n"     /* 4 */
                          "nourl:\n"                               /* 5 */
                          "  modified: 2015-10-10\n"               /* 6 */
                          "ftp:\n"                                 /* 7 */
                          "  void: ftp://example.org/v.ttl\n"      /* 8 */
                          "relative:\n"                            /* 9 */
                          "  void: ./void.ttl\n"                   /* 10 */
                          "baddate:\n"                             /* 11 */
                          "  void: http://example.org/3.ttl\n"     /* 12 */
                          "  modified: 2015-13-45\n"               /* 13 */
                          "dupkey:\n"                              /* 14 */
                          "  void: http://example.org/4.ttl\n"     /* 15 */
                          "  void: http://example.org/5.ttl\n"     /* 16 */
                          "extra:\n"                               /* 17 */
                          "  void: http://example.org/6.ttl\n"     /* 18 */
                          "  colour: blue\n"                       /* 19 */
                          "twice:\n"                               /* 20 */
                          "  void: http://example.org/7.ttl\n"     /* 21 */
                          "good2:\n"                               /* 22 */
                          "  void: https://example.org/8.ttl\n"    /* 23 */
                          "twice:\n"                               /* 24 */
                          "  void: http://example.org/9.ttl\n"     /* 25 */
                          "empty:\n"                               /* 26 */
                          "scalar: http://example.org/v.ttl\n"     /* 27 */
                          "listy:\n"                               /* 28 */
                          "  void: [http://example.org/a.ttl]\n"   /* 29 */
                          "flags:\n"                               /* 30 */
                          "  void: http://example.org/f.ttl\n"     /* 31 */
                          "  enabled: maybe\n"                     /* 32 */
                          "slow:\n"                                /* 33 */
                          "  void: http://example.org/s.ttl\n"     /* 34 */
                          "  interval: -5\n"                       /* 35 */
                          "nohost:\n"                              /* 36 */
                          "  void: 'http:///void.ttl'\n"           /* 37 */
                          "spaces:\n"                              /* 38 */
                          "  void: 'http://example.org/a b.ttl'\n" /* 39 */
                          "\"\xc3\xa9t\xc3\xa9\":\n"               /* 40 */
                          "  void: http://example.org/e.ttl\n",    /* 41 */
                          LW_OK, &err);
  CHECK(reg != NULL);
  if (!reg) {
    return;
  }
  CHECK(has_problem(reg, 3, false, "bad provider name 'bad_name'"));
  CHECK(has_problem(reg, 5, false, "'void'"));
  CHECK(has_problem(reg, 8, false, "http or https URL"));
  CHECK(has_problem(reg, 10, false, "./void.ttl"));
  CHECK(has_problem(reg, 13, false, "'modified' is not a date"));
  CHECK(has_problem(reg, 16, false, "duplicate key 'void' (first on line 15)"));
  CHECK(has_problem(reg, 19, true, "unknown key 'colour'"));
  CHECK(has_problem(reg, 20, false, "duplicate provider 'twice' (also on line 24)"));
  CHECK(has_problem(reg, 24, false, "duplicate provider 'twice' (also on line 20)"));
  CHECK(has_problem(reg, 26, false, "no settings"));
  CHECK(has_problem(reg, 27, false, "must be a mapping"));
  CHECK(has_problem(reg, 29, false, "single value"));
  CHECK(has_problem(reg, 32, false, "'enabled'"));
  CHECK(has_problem(reg, 35, false, "'interval'"));
  CHECK(has_problem(reg, 37, false, "http or https URL"));
  CHECK(has_problem(reg, 39, false, "http or https URL"));
  CHECK(has_problem(reg, 40, false, "bad provider name"));
  /* Messages carry file and line. */
  CHECK(has_problem(reg, 13, false, "reg.yaml:13: error:"));
  /* The good entries are kept, and the one with only a warning. */
  CHECK_INT_EQ(reg->count, 3);
  CHECK(lw_registry_find(reg, "good1") != NULL);
  CHECK(lw_registry_find(reg, "good2") != NULL);
  CHECK(lw_registry_find(reg, "extra") != NULL);
  CHECK(lw_registry_find(reg, "twice") == NULL);
  CHECK(lw_registry_find(reg, "dupkey") == NULL);
  CHECK_INT_EQ(reg->error_count, reg->problem_count - 1);
  lw_registry_free(reg);
}

static void test_names_and_urls(void)
{
  CHECK(lw_provider_name_valid("d1lod"));
  CHECK(lw_provider_name_valid("ABC123"));
  CHECK(!lw_provider_name_valid(""));
  CHECK(!lw_provider_name_valid("some_provder"));
  CHECK(!lw_provider_name_valid("a-b"));
  CHECK(!lw_provider_name_valid("a b"));
  CHECK(!lw_provider_name_valid("a/b"));
  char long_name[LW_PROVIDER_NAME_MAX + 2];
  memset(long_name, 'a', sizeof(long_name) - 1);
  long_name[sizeof(long_name) - 1] = '\0';
  CHECK(!lw_provider_name_valid(long_name));
  long_name[LW_PROVIDER_NAME_MAX] = '\0';
  CHECK(lw_provider_name_valid(long_name));

  CHECK(lw_registry_url_valid("http://example.org/void.ttl"));
  CHECK(lw_registry_url_valid("HTTPS://example.org"));
  CHECK(lw_registry_url_valid("http://127.0.0.1:8080/void.ttl"));
  CHECK(lw_registry_url_valid("http://user@example.org/v"));
  CHECK(!lw_registry_url_valid("ftp://example.org/v"));
  CHECK(!lw_registry_url_valid("file:///etc/passwd"));
  CHECK(!lw_registry_url_valid("http://"));
  CHECK(!lw_registry_url_valid("http:///x"));
  CHECK(!lw_registry_url_valid("http://:80/x"));
  CHECK(!lw_registry_url_valid("example.org/void.ttl"));
  CHECK(!lw_registry_url_valid("http://example.org/\tx"));
}

static char *write_file(const char *dir, const char *name, const char *text)
{
  char *path = malloc(4096);
  snprintf(path, 4096, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static void test_files(void)
{
  char *dir = lw_test_tmpdir();
  char *path = write_file(dir, "registry.yaml",
                          "a:\n  void: http://example.org/a.ttl\n"
                          "b:\n  void: nope\n");
  LwRegistry *reg = NULL;
  LwError err;
  CHECK_INT_EQ(lw_registry_load(path, &reg, &err), LW_OK);
  CHECK(reg && reg->count == 1 && reg->error_count == 1);
  if (reg) {
    /* Problems name the file as given. */
    CHECK(strstr(reg->problems[0].message, path) == reg->problems[0].message);
    CHECK(strstr(reg->problems[0].message, ":4: error:") != NULL);
  }
  lw_registry_free(reg);
  free(path);
  path = write_file(dir, "broken.yaml", "a: [\n");
  CHECK_INT_EQ(lw_registry_load(path, &reg, &err), LW_ERR_SYNTAX);
  CHECK(reg == NULL && strstr(err.message, path) == err.message);
  free(path);
  CHECK_INT_EQ(lw_registry_load("/nonexistent/registry.yaml", &reg, &err), LW_ERR_IO);
  CHECK(strstr(err.message, "/nonexistent/registry.yaml") != NULL);
  /* Too large. */
  path = malloc(4096);
  snprintf(path, 4096, "%s/huge.yaml", dir);
  FILE *f = fopen(path, "w");
  for (unsigned i = 0; i < LW_REGISTRY_MAX_BYTES / 16 + 1; ++i) {
    fputs("# padding......\n", f);
  }
  fclose(f);
  CHECK_INT_EQ(lw_registry_load(path, &reg, &err), LW_ERR_LIMIT);
  free(path);
  lw_registry_free(NULL);
  lw_test_rmtree(dir);
  free(dir);
}

static void test_alias_bomb(void)
{
  /* Aliases are shared nodes: nothing is expanded, nothing blows up. */
  LwError err;
  LwRegistry *reg = parse("a: &a [x, x, x, x, x, x, x, x, x]\n"
                          "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                          "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                          "d:\n  void: http://example.org/d.ttl\n",
                          LW_OK, &err);
  CHECK(reg && reg->count == 1 && reg->error_count == 3);
  lw_registry_free(reg);
}

/* The real registry files of GeoLink's glharvest. */
static void test_geolink(void)
{
  const char *data = lw_test_testdata();
  if (!data) {
    printf("skipping the glharvest registry files: shared test data not found\n");
    return;
  }
  char path[4096];
  LwRegistry *reg = NULL;
  LwError err;
  /* Four providers, no `modified`: all good. */
  snprintf(path, sizeof(path), "%s/geolink/ec-geolink__glharvest__glharvest__registry.yml",
           data);
  CHECK_INT_EQ(lw_registry_load(path, &reg, &err), LW_OK);
  CHECK(reg && reg->count == 4 && reg->problem_count == 0);
  if (reg) {
    const LwProvider *p = lw_registry_find(reg, "bcodmo");
    CHECK(p && !strcmp(p->source_url, "http://www.bco-dmo.org/rdf/geolink/void"));
    CHECK(p && !p->has_modified);
  }
  lw_registry_free(reg);
  /* `void: ./void.ttl`: a relative path is not an http(s) URL. */
  snprintf(
    path, sizeof(path),
    "%s/geolink/"
    "ec-geolink__glharvest__glharvest__tests__data__scenarios__simple_scenario__registry.yml",
    data);
  CHECK_INT_EQ(lw_registry_load(path, &reg, &err), LW_OK);
  CHECK(reg && reg->count == 0 && has_problem(reg, 2, false, "'./void.ttl'"));
  lw_registry_free(reg);
  /* An old format: features and dump, no void. */
  snprintf(path, sizeof(path),
           "%s/geolink/"
           "ec-geolink__glharvest__glharvest__tests__data__simple-registry.yml",
           data);
  CHECK_INT_EQ(lw_registry_load(path, &reg, &err), LW_OK);
  CHECK(reg && reg->count == 0);
  CHECK(has_problem(reg, 2, true, "unknown key 'features'"));
  CHECK(has_problem(reg, 6, true, "unknown key 'dump'"));
  CHECK(has_problem(reg, 1, false, "its source is missing: 'void'"));
  lw_registry_free(reg);
}

/* Each source kind under its own key; exactly one per provider; graph and
 * query belong to sparql. */
static void test_source_kinds(void)
{
  LwError err;
  LwRegistry *reg = parse("cat:\n"                                           /* 1 */
                          "  dcat: https://data.example.org/catalog.ttl\n"   /* 2 */
                          "portal:\n"                                        /* 3 */
                          "  ckan: https://ckan.example.org/\n"              /* 4 */
                          "pages:\n"                                         /* 5 */
                          "  sitemap: https://example.org/sitemap.xml.gz\n"  /* 6 */
                          "ep:\n"                                            /* 7 */
                          "  sparql: https://example.org/sparql\n"           /* 8 */
                          "  graph: https://example.org/g\n"                 /* 9 */
                          "  query: 'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } ORDER BY ?s'\n"
                          "two:\n"                                           /* 11 */
                          "  void: https://example.org/void.ttl\n"           /* 12 */
                          "  dcat: https://example.org/dcat.ttl\n"           /* 13 */
                          "none:\n"                                          /* 14 */
                          "  interval: 60\n"                                 /* 15 */
                          "badq:\n"                                          /* 16 */
                          "  sparql: https://example.org/sparql\n"           /* 17 */
                          "  query: 'SELECT * WHERE { ?s ?p ?o }'\n"         /* 18 */
                          "stray:\n"                                         /* 19 */
                          "  ckan: ftp://example.org/\n",                    /* 20 */
                          LW_OK, &err);
  CHECK(reg != NULL);
  if (!reg) {
    return;
  }
  CHECK_INT_EQ(reg->count, 4);
  const LwProvider *p = lw_registry_find(reg, "cat");
  CHECK(p && !strcmp(p->source, "dcat") &&
        !strcmp(p->source_url, "https://data.example.org/catalog.ttl"));
  p = lw_registry_find(reg, "portal");
  CHECK(p && !strcmp(p->source, "ckan"));
  p = lw_registry_find(reg, "pages");
  CHECK(p && !strcmp(p->source, "sitemap"));
  p = lw_registry_find(reg, "ep");
  CHECK(p && !strcmp(p->source, "sparql") && p->sparql_graph && p->sparql_query &&
        !strcmp(p->sparql_graph, "https://example.org/g"));
  CHECK(has_problem(reg, 13, false, "names two sources ('void' and 'dcat')"));
  CHECK(has_problem(reg, 14, false, "its source is missing"));
  CHECK(has_problem(reg, 18, false, "'query' must be a SPARQL CONSTRUCT"));
  CHECK(has_problem(reg, 20, false, "'ckan' must be an http or https URL"));
  CHECK(lw_registry_find(reg, "two") == NULL);
  lw_registry_free(reg);
}

/* The project's own example registry.yaml must load cleanly. */
static void test_project_registry(void)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/registry.yaml", LODWASH_SOURCE_DIR);
  LwRegistry *reg = NULL;
  LwError err;
  CHECK_INT_EQ(lw_registry_load(path, &reg, &err), LW_OK);
  CHECK(reg && reg->count >= 1 && reg->problem_count == 0);
  for (size_t i = 0; reg && i < reg->problem_count; ++i) {
    fprintf(stderr, "%s\n", reg->problems[i].message);
  }
  lw_registry_free(reg);
}

int main(void)
{
  test_good();
  test_yaml_errors();
  test_empty();
  test_bad_entries();
  test_names_and_urls();
  test_files();
  test_alias_bomb();
  test_geolink();
  test_source_kinds();
  test_project_registry();
  return lw_test_finish();
}
