/*
 * The JSON-LD processor's own behaviour beyond the W3C suite: errors with
 * positions and specification codes, hostile input (deep nesting, huge
 * documents, self-including contexts), document-scoped blank nodes, the
 * map loader and the HTTP loader against a real server on loopback
 * (libmicrohttpd), canonical JSON.
 */
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonld/jsonld.h"
#include "net/net.h"
#include "tests/support/check.h"
#include "tests/support/jsonld_nquads_compare.h"

/* ---- helpers ------------------------------------------------------------- */

typedef struct {
  unsigned calls;
  unsigned line, column;
  char message[512];
} Errors;

static void on_error(void *handle, unsigned line, unsigned column, const char *message)
{
  Errors *e = handle;
  e->calls++;
  e->line = line;
  e->column = column;
  snprintf(e->message, sizeof(e->message), "%s", message);
}

static LwStatus convert(const char *json, LwJsonldOptions *opt, LwNqSet *set, LwError *err,
                        Errors *errors)
{
  opt->on_quad = lw_nq_set_sink;
  opt->quad_handle = set;
  opt->on_error = on_error;
  opt->error_handle = errors;
  LwStatus st = lw_jsonld_to_rdf_buffer(json, strlen(json), opt, NULL, err);
  /* errors lives in the caller's frame: opt must not keep pointing at it */
  opt->on_error = NULL;
  opt->error_handle = NULL;
  opt->on_quad = NULL;
  opt->quad_handle = NULL;
  return st;
}

/* Converts json and checks the result is isomorphic to the N-Quads nq. */
static void check_quads(const char *json, const char *nq)
{
  LwNqSet *got = lw_nq_set_new(), *want = lw_nq_set_new();
  LwJsonldOptions opt = {0};
  opt.base_iri = "http://example.org/doc";
  LwError err;
  Errors errors = {0};
  LwStatus st = convert(json, &opt, got, &err, &errors);
  char why[128];
  CHECK(lw_nq_set_parse(want, nq, why, sizeof(why)));
  CHECK_STR_EQ(st == LW_OK ? "ok" : err.message, "ok");
  bool same = lw_nq_isomorphic(got, want);
  if (!same) {
    char *dump = lw_nq_set_dump(got);
    printf("got:\n%s", dump);
    free(dump);
  }
  CHECK(same);
  lw_nq_set_free(got);
  lw_nq_set_free(want);
}

/* Converts json and checks it fails with status and a message starting with
 * prefix. */
static void check_fails(const char *json, LwJsonldOptions *opt, LwStatus status,
                        const char *prefix)
{
  LwNqSet *got = lw_nq_set_new();
  LwError err;
  Errors errors = {0};
  LwStatus st = convert(json, opt, got, &err, &errors);
  CHECK_STR_EQ(lw_status_name(st), lw_status_name(status));
  bool ok = !strncmp(err.message, prefix, strlen(prefix));
  lw_test_report(ok, __FILE__, __LINE__, prefix, err.message);
  CHECK_INT_EQ(errors.calls, 1);
  lw_nq_set_free(got);
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* ---- tests --------------------------------------------------------------- */

static void test_basic(void)
{
  check_quads(
    "{\"@context\": {\"@vocab\": \"http://ex.org/\", \"n\": "
    "{\"@type\": \"@id\"}},"
    " \"@id\": \"a\", \"@type\": \"T\", \"name\": \"x\", \"n\": \"b\","
    " \"age\": 3, \"h\": 1.5, \"ok\": true, \"l\": {\"@list\": [1]}}",
    "<http://example.org/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex.org/T> .\n"
    "<http://example.org/a> <http://ex.org/name> \"x\" .\n"
    "<http://example.org/a> <http://ex.org/n> <http://example.org/b> .\n"
    "<http://example.org/a> <http://ex.org/age> \"3\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"
    "<http://example.org/a> <http://ex.org/h> \"1.5E0\"^^<http://www.w3.org/2001/XMLSchema#double> .\n"
    "<http://example.org/a> <http://ex.org/ok> \"true\"^^<http://www.w3.org/2001/XMLSchema#boolean> .\n"
    "<http://example.org/a> <http://ex.org/l> _:l .\n"
    "_:l <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"
    "_:l <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .\n");
}

static void test_blank_nodes_document_scoped(void)
{
  /* a top-level array is converted element by element: the same label in
   * two elements is one node, anonymous nodes stay apart */
  check_quads("[{\"@id\": \"_:x\", \"http://ex.org/p\": \"1\"},"
              " {\"@id\": \"_:x\", \"http://ex.org/q\": \"2\"},"
              " {\"http://ex.org/p\": \"3\"}, {\"http://ex.org/p\": \"4\"}]",
              "_:a <http://ex.org/p> \"1\" .\n"
              "_:a <http://ex.org/q> \"2\" .\n"
              "_:b <http://ex.org/p> \"3\" .\n"
              "_:c <http://ex.org/p> \"4\" .\n");
  /* the same through a top-level @context + @graph */
  check_quads("{\"@context\": {\"p\": \"http://ex.org/p\"}, \"@graph\": ["
              " {\"@id\": \"_:x\", \"p\": {\"@id\": \"_:y\"}},"
              " {\"@id\": \"_:y\", \"p\": \"2\"}, {\"p\": \"3\"}]}",
              "_:a <http://ex.org/p> _:b .\n"
              "_:b <http://ex.org/p> \"2\" .\n"
              "_:c <http://ex.org/p> \"3\" .\n");
}

static void test_json_errors(void)
{
  LwJsonldOptions opt = {0};
  check_fails("{\n  \"a\": \n}", &opt, LW_ERR_SYNTAX, "line 3, column 1");
  check_fails("", &opt, LW_ERR_SYNTAX, "line ");
  check_fails("{\"@id\": 5}", &opt, LW_ERR_SYNTAX, "invalid @id value");
  check_fails("{\"@context\": {\"@vocab\": 5}}", &opt, LW_ERR_SYNTAX,
              "invalid vocab mapping");
  check_fails("{\"@context\": {\"a\": {\"@id\": \"http://x/\", \"@foo\": 1}}}", &opt,
              LW_ERR_SYNTAX, "invalid term definition");
  /* the position of a JSON error reaches on_error */
  LwNqSet *set = lw_nq_set_new();
  LwError err;
  Errors errors = {0};
  convert("[1,\n 2,,]", &opt, set, &err, &errors);
  CHECK_INT_EQ(errors.line, 2);
  CHECK(errors.column > 0);
  lw_nq_set_free(set);
}

static char *nested(const char *open, const char *inner, const char *close, size_t depth)
{
  size_t lo = strlen(open), li = strlen(inner), lc = strlen(close);
  char *s = malloc(depth * (lo + lc) + li + 1);
  char *p = s;
  for (size_t i = 0; i < depth; i++, p += lo) {
    memcpy(p, open, lo);
  }
  memcpy(p, inner, li);
  p += li;
  for (size_t i = 0; i < depth; i++, p += lc) {
    memcpy(p, close, lc);
  }
  *p = 0;
  return s;
}

static void test_hostile_input(void)
{
  LwJsonldOptions opt = {0};
  /* 100000 levels: jansson's own parser depth cap, a clear error */
  char *deep = nested("[", "1", "]", 100000);
  check_fails(deep, &opt, LW_ERR_LIMIT, "line 1");
  free(deep);
  /* under jansson's cap but over ours */
  deep = nested("{\"http://ex.org/p\": ", "1", "}", 1000);
  check_fails(deep, &opt, LW_ERR_LIMIT, "JSON nested deeper");
  free(deep);
  /* a context whose terms chain through 5000 others */
  size_t terms = 5000;
  char *chain = malloc(terms * 48 + 64);
  char *c = chain + sprintf(chain, "{\"@context\": {");
  for (size_t i = 0; i < terms; i++) {
    c += sprintf(c, "%s\"t%zu\": \"t%zu:x\"", i ? ", " : "", i, i + 1);
  }
  sprintf(c, ", \"t%zu\": \"http://ex.org/\"}}", terms);
  check_fails(chain, &opt, LW_ERR_LIMIT, "term definitions depend");
  free(chain);
  /* a huge string is fine below the document cap, refused above it */
  size_t n = 8u << 20;
  char *big = malloc(n + 64);
  strcpy(big, "{\"http://ex.org/p\": \"");
  memset(big + strlen(big), 'x', n);
  strcpy(big + 21 + n, "\"}");
  LwNqSet *set = lw_nq_set_new();
  LwError err;
  Errors errors = {0};
  CHECK(convert(big, &opt, set, &err, &errors) == LW_OK);
  CHECK_INT_EQ(lw_nq_set_size(set), 1);
  lw_nq_set_free(set);
  opt.max_document_bytes = 1u << 20;
  check_fails(big, &opt, LW_ERR_LIMIT, "document larger");
  /* the same cap on a FILE */
  FILE *f = tmpfile();
  fputs(big, f);
  rewind(f);
  LwError ferr;
  CHECK(lw_jsonld_to_rdf(f, &opt, NULL, &ferr) == LW_ERR_LIMIT);
  CHECK(strstr(ferr.message, "document larger") != NULL);
  fclose(f);
  free(big);
}

static void test_map_loader(const char *dir)
{
  char path[2048], ctxdir[1024];
  snprintf(ctxdir, sizeof(ctxdir), "%s/ctx", dir);
  snprintf(path, sizeof(path), "mkdir -p '%s'", ctxdir);
  CHECK(system(path) == 0);
  snprintf(path, sizeof(path), "%s/ctx/a.jsonld", dir);
  write_file(path, "{\"@context\": {\"name\": \"http://schema.org/name\"}}");
  snprintf(path, sizeof(path), "%s/ctx/self.jsonld", dir);
  write_file(path, "{\"@context\": \"http://ctx.example/self.jsonld\"}");
  snprintf(path, sizeof(path), "%s/ctx/imp.jsonld", dir);
  write_file(path, "{\"@context\": {\"@import\": \"http://ctx.example/imp.jsonld\"}}");
  snprintf(path, sizeof(path), "%s/ctx/nocontext.jsonld", dir);
  write_file(path, "{\"name\": 1}");
  snprintf(path, sizeof(path), "%s/ctx/chain1.jsonld", dir);
  write_file(path, "{\"@context\": [\"chain2.jsonld\", {\"a\": \"http://x/a\"}]}");
  snprintf(path, sizeof(path), "%s/ctx/chain2.jsonld", dir);
  write_file(path, "{\"@context\": [\"a.jsonld\"]}");

  LwJsonldMap *map = lw_jsonld_map_new();
  LwError err;
  char spec[1200];
  snprintf(spec, sizeof(spec), "http://ctx.example/=%s", ctxdir);
  CHECK(lw_jsonld_map_add_spec(map, spec, &err) == LW_OK);
  snprintf(path, sizeof(path), "%s/ctx/a.jsonld", dir);
  CHECK(lw_jsonld_map_add(map, "https://schema.example/", path, &err) == LW_OK);
  CHECK(lw_jsonld_map_add_spec(map, "nonsense", &err) == LW_ERR_USAGE);
  CHECK(lw_jsonld_map_add(map, "http://y/", "/nonexistent/path", &err) == LW_ERR_USAGE);

  LwJsonldOptions opt = {0};
  opt.load = lw_jsonld_map_load;
  opt.load_handle = map;
  LwNqSet *set = lw_nq_set_new();
  Errors errors = {0};
  /* a directory mapping and a file mapping */
  CHECK(convert("{\"@context\": \"http://ctx.example/a.jsonld\", \"@id\": "
                "\"http://x/1\", \"name\": \"n\"}",
                &opt, set, &err, &errors) == LW_OK);
  CHECK(convert("{\"@context\": \"https://schema.example/\", \"@id\": "
                "\"http://x/2\", \"name\": \"n\"}",
                &opt, set, &err, &errors) == LW_OK);
  /* relative references inside remote contexts resolve against them */
  CHECK(convert("{\"@context\": \"http://ctx.example/chain1.jsonld\", \"@id\": "
                "\"http://x/3\", \"name\": \"n\", \"a\": \"b\"}",
                &opt, set, &err, &errors) == LW_OK);
  CHECK_INT_EQ(lw_nq_set_size(set), 4);
  lw_nq_set_free(set);

  check_fails("{\"@context\": \"http://ctx.example/missing.jsonld\"}", &opt, LW_ERR_SYNTAX,
              "loading remote context failed");
  check_fails("{\"@context\": \"http://ctx.example/../etc/passwd\"}", &opt, LW_ERR_SYNTAX,
              "loading remote context failed");
  check_fails("{\"@context\": \"http://unmapped.example/x\"}", &opt, LW_ERR_SYNTAX,
              "loading remote context failed");
  check_fails("{\"@context\": \"http://ctx.example/nocontext.jsonld\"}", &opt,
              LW_ERR_SYNTAX, "invalid remote context");
  /* a context that includes itself is an error, not a hang */
  check_fails("{\"@context\": \"http://ctx.example/self.jsonld\"}", &opt, LW_ERR_SYNTAX,
              "context overflow");
  check_fails("{\"@context\": \"http://ctx.example/imp.jsonld\"}", &opt, LW_ERR_SYNTAX,
              "invalid context entry");
  /* the number of remote documents per document is capped */
  opt.max_remote_contexts = 2;
  check_fails("{\"@context\": \"http://ctx.example/chain1.jsonld\"}", &opt, LW_ERR_LIMIT,
              "context overflow");
  opt.max_remote_contexts = 0;
  /* without a loader every remote context fails */
  LwJsonldOptions none = {0};
  check_fails("{\"@context\": \"http://ctx.example/a.jsonld\"}", &none, LW_ERR_SYNTAX,
              "loading remote context failed");
  lw_jsonld_map_free(map);
  lw_jsonld_map_free(NULL);
}

/* ---- the HTTP loader (jsonld/jsonld.h) against a real server ---- */

static enum MHD_Result serve(void *cls, struct MHD_Connection *c, const char *url,
                             const char *method, const char *version, const char *upload,
                             size_t *upload_size, void **con_cls)
{
  (void)cls;
  (void)method;
  (void)version;
  (void)upload;
  (void)upload_size;
  (void)con_cls;
  static char big[2 << 20];
  const char *body = "";
  size_t len = 0;
  unsigned code = 200;
  const char *location = NULL, *link = NULL, *type = "application/ld+json";
  if (!strcmp(url, "/ctx.jsonld")) {
    body = "{\"@context\": {\"name\": \"http://schema.org/name\"}}";
  } else if (!strcmp(url, "/moved")) {
    code = 302;
    location = "/ctx.jsonld";
  } else if (!strcmp(url, "/loop")) {
    code = 302;
    location = "/loop";
  } else if (!strcmp(url, "/to-file")) {
    code = 302;
    location = "file:///etc/passwd";
  } else if (!strcmp(url, "/big")) {
    memset(big, ' ', sizeof(big));
    body = big;
    len = sizeof(big);
  } else if (!strcmp(url, "/page")) {
    /* as schema.org does: HTML, with the JSON-LD as a Link alternate */
    body = "<html>not JSON</html>";
    link = "<ctx.jsonld>; rel=\"alternate\"; type=\"application/ld+json\"";
    type = "text/html";
  } else if (!strcmp(url, "/error")) {
    code = 503;
  } else {
    code = 404;
  }
  if (!len) {
    len = strlen(body);
  }
  struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body,
                                                           MHD_RESPMEM_MUST_COPY);
  if (location) {
    MHD_add_response_header(r, "Location", location);
  }
  if (link) {
    MHD_add_response_header(r, "Link", link);
  }
  MHD_add_response_header(r, "Content-Type", type);
  enum MHD_Result ret = MHD_queue_response(c, code, r);
  MHD_destroy_response(r);
  return ret;
}

static void test_http_loader(void)
{
  struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                                          serve, NULL, MHD_OPTION_SOCK_ADDR, NULL,
                                          MHD_OPTION_END);
  CHECK(d != NULL);
  if (!d) {
    return;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  unsigned port = info->port;
  char url[256];
  char *body = NULL, *final = NULL;
  size_t len = 0;
  LwError err;
  /* the production loader; loopback is refused unless allowed */
  LwDocumentLoader ho = {.guard = NULL, .max_bytes = 1 << 20, .timeout_ms = 10000};
  snprintf(url, sizeof(url), "http://127.0.0.1:%u/ctx.jsonld", port);
  CHECK(lw_document_load(&ho, url, &body, &len, &final, &err) == LW_ERR_REFUSED);
  LwNetGuard *loopback = NULL;
  CHECK(lw_netguard_new("127.0.0.1", &loopback, &err) == LW_OK);
  ho.guard = loopback;

  snprintf(url, sizeof(url), "http://127.0.0.1:%u/moved", port);
  CHECK(lw_document_load(&ho, url, &body, &len, &final, &err) == LW_OK);
  CHECK(body && strstr(body, "schema.org") != NULL);
  CHECK(final && strstr(final, "/ctx.jsonld") != NULL);
  free(body);
  free(final);

  /* HTML with a Link rel=alternate: the JSON-LD it names, fetched too */
  unsigned long long before = ho.fetches;
  snprintf(url, sizeof(url), "http://127.0.0.1:%u/page", port);
  CHECK(lw_document_load(&ho, url, &body, &len, &final, &err) == LW_OK);
  CHECK(body && strstr(body, "schema.org") != NULL);
  CHECK(final && strstr(final, "/ctx.jsonld") != NULL);
  CHECK_INT_EQ((long long)(ho.fetches - before), 2);
  free(body);
  free(final);

  snprintf(url, sizeof(url), "http://127.0.0.1:%u/missing", port);
  CHECK(lw_document_load(&ho, url, &body, &len, &final, &err) == LW_ERR_HTTP);
  snprintf(url, sizeof(url), "http://127.0.0.1:%u/error", port);
  CHECK(lw_document_load(&ho, url, &body, &len, &final, &err) == LW_ERR_NET);
  snprintf(url, sizeof(url), "http://127.0.0.1:%u/loop", port);
  CHECK(lw_document_load(&ho, url, &body, &len, &final, &err) == LW_ERR_LIMIT);
  snprintf(url, sizeof(url), "http://127.0.0.1:%u/big", port);
  CHECK(lw_document_load(&ho, url, &body, &len, &final, &err) == LW_ERR_LIMIT);
  snprintf(url, sizeof(url), "http://127.0.0.1:%u/to-file", port);
  CHECK(lw_document_load(&ho, url, &body, &len, &final, &err) == LW_ERR_REFUSED);
  CHECK(lw_document_load(&ho, "file:///etc/passwd", &body, &len, &final, &err) ==
        LW_ERR_REFUSED);
  CHECK(lw_document_load(&ho, "ftp://127.0.0.1/x", &body, &len, &final, &err) ==
        LW_ERR_REFUSED);

  /* through the processor, behind a map with the HTTP loader as fallback */
  LwJsonldMap *map = lw_jsonld_map_new();
  lw_jsonld_map_set_fallback(map, lw_document_load, &ho);
  LwJsonldOptions opt = {0};
  opt.load = lw_jsonld_map_load;
  opt.load_handle = map;
  char doc[512];
  snprintf(doc, sizeof(doc),
           "{\"@context\": \"http://127.0.0.1:%u/moved\", \"@id\": "
           "\"http://x/1\", \"name\": \"n\"}",
           port);
  LwNqSet *set = lw_nq_set_new();
  Errors errors = {0};
  CHECK(convert(doc, &opt, set, &err, &errors) == LW_OK);
  CHECK_INT_EQ(lw_nq_set_size(set), 1);
  lw_nq_set_free(set);
  snprintf(doc, sizeof(doc), "{\"@context\": \"http://127.0.0.1:%u/gone\"}", port);
  check_fails(doc, &opt, LW_ERR_SYNTAX, "loading remote context failed");
  lw_jsonld_map_free(map);
  lw_netguard_free(loopback);
  MHD_stop_daemon(d);
}

static void test_canonical_json(void)
{
  LwError err;
  char *c = lw_jsonld_canonical_json(
    "{\"b\": [1.0, 1e21, 1e-7, 0.000001, -0.0, 123.456, \"\\u0001\\n\\u00e9\"],"
    " \"a\": {\"\\ufb33\": 1, \"\\ud83d\\ude00\": 2, \"z\": null}, \"A\": true}",
    &err);
  /* U+FB33 sorts after U+1F600 in UTF-16, before it in UTF-8 */
  CHECK_STR_EQ(c, "{\"A\":true,\"a\":{\"z\":null,\"\xf0\x9f\x98\x80\":2,"
                  "\"\xef\xac\xb3\":1},\"b\":[1,1e+21,1e-7,0.000001,0,123.456,"
                  "\"\\u0001\\n\xc3\xa9\"]}");
  free(c);
  CHECK(lw_jsonld_canonical_json("{", &err) == NULL);
  CHECK(err.status == LW_ERR_SYNTAX);
  /* @json literals are canonical */
  check_quads(
    "{\"@context\": {\"j\": {\"@id\": \"http://ex.org/j\", \"@type\": "
    "\"@json\"}}, \"@id\": \"http://x/1\", \"j\": {\"b\": 2.50, \"a\": [true]}}",
    "<http://x/1> <http://ex.org/j> \"{\\\"a\\\":[true],\\\"b\\\":2.5}\"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON> .\n");
}

static LwStatus stop_sink(void *handle, const LwQuad *quad)
{
  (void)quad;
  unsigned *n = handle;
  return ++*n >= 2 ? LW_ERR_IO : LW_OK;
}

static void test_sink_stops(void)
{
  unsigned n = 0;
  LwJsonldOptions opt = {0};
  opt.on_quad = stop_sink;
  opt.quad_handle = &n;
  LwReadStats stats = {0};
  LwError err;
  const char *doc = "[{\"http://ex.org/p\": [1, 2, 3, 4]}]";
  CHECK(lw_jsonld_to_rdf_buffer(doc, strlen(doc), &opt, &stats, &err) == LW_ERR_IO);
  CHECK_INT_EQ(n, 2);
  CHECK_INT_EQ(stats.statements, 1);
}

/* ---- reading: streaming, fallbacks, positions ------------------------- */

typedef struct {
  unsigned long quads, bad;
} Numbers;

static LwStatus number_sink(void *handle, const LwQuad *q)
{
  Numbers *n = handle;
  n->quads++;
  if (strcmp(q->object.value, "1234567") && strcmp(q->object.value, "x\"y")) {
    n->bad++;
  }
  return LW_OK;
}

static void test_streaming(const char *dir)
{
  /* 30000 elements, numbers and escaped strings straddling the 64 KiB
   * window boundaries many times */
  char path[2048];
  snprintf(path, sizeof(path), "%s/many.jsonld", dir);
  FILE *f = fopen(path, "w");
  fputs("\xEF\xBB\xBF [\n", f);
  for (int i = 0; i < 30000; i++) {
    fprintf(f,
            "%s{\"@id\": \"http://ex.org/%d\", \"http://ex.org/n\": 1234567,"
            " \"http://ex.org/s\": \"x\\\"y\"}\n",
            i ? "," : "", i);
  }
  fputs("]\n", f);
  fclose(f);
  Numbers n = {0, 0};
  LwJsonldOptions opt = {0};
  opt.on_quad = number_sink;
  opt.quad_handle = &n;
  LwError err;
  f = fopen(path, "rb");
  CHECK(lw_jsonld_to_rdf(f, &opt, NULL, &err) == LW_OK);
  fclose(f);
  CHECK_INT_EQ(n.quads, 60000);
  CHECK_INT_EQ(n.bad, 0);
  /* the same through a pipe (not seekable) */
  char cmd[2200];
  snprintf(cmd, sizeof(cmd), "cat '%s'", path);
  n.quads = n.bad = 0;
  f = popen(cmd, "r");
  CHECK(lw_jsonld_to_rdf(f, &opt, NULL, &err) == LW_OK);
  pclose(f);
  CHECK_INT_EQ(n.quads, 60000);

  /* a byte order mark before an object that is loaded whole */
  check_quads("\xEF\xBB\xBF{\"@id\": \"a\", \"http://ex.org/p\": \"1\"}",
              "<http://example.org/a> <http://ex.org/p> \"1\" .\n");
  /* @context after @graph: streamed with the context read first */
  check_quads("{\"@graph\": [{\"@id\": \"a\", \"p\": \"1\"}],\n"
              " \"@context\": {\"p\": \"http://ex.org/p\"}}",
              "<http://example.org/a> <http://ex.org/p> \"1\" .\n");
  /* a named graph at the top level is not streamed into the default graph */
  check_quads("{\"@context\": {\"p\": \"http://ex.org/p\"},"
              " \"@graph\": [{\"@id\": \"a\", \"p\": \"1\"}], \"@id\": \"g\"}",
              "<http://example.org/a> <http://ex.org/p> \"1\" <http://example.org/g> .\n");
  /* the same from a pipe: the bytes read to decide are replayed */
  snprintf(path, sizeof(path), "%s/named.jsonld", dir);
  write_file(path, "{\"@graph\": [{\"@id\": \"http://ex.org/a\", "
                   "\"http://ex.org/p\": \"1\"}], \"@id\": \"http://ex.org/g\"}");
  snprintf(cmd, sizeof(cmd), "cat '%s'", path);
  LwNqSet *set = lw_nq_set_new();
  LwJsonldOptions o2 = {0};
  o2.on_quad = lw_nq_set_sink;
  o2.quad_handle = set;
  f = popen(cmd, "r");
  CHECK(lw_jsonld_to_rdf(f, &o2, NULL, &err) == LW_OK);
  pclose(f);
  char *dump = lw_nq_set_dump(set);
  CHECK_STR_EQ(dump, "<http://ex.org/a> <http://ex.org/p> \"1\" <http://ex.org/g> .\n");
  free(dump);
  lw_nq_set_free(set);

  /* positions: a JSON error in the third element, a JSON-LD error in the
   * second, a missing comma */
  LwJsonldOptions o3 = {0};
  check_fails("[{\"http://ex.org/p\": 1},\n {\"http://ex.org/p\": 2},\n"
              "  {\"http://ex.org/p\": ]}]",
              &o3, LW_ERR_SYNTAX, "line 3, column ");
  LwNqSet *s3 = lw_nq_set_new();
  Errors errors = {0};
  LwStatus st = convert("[{\"http://ex.org/p\": 1},\n {\"@id\": 5}]", &o3, s3, &err,
                        &errors);
  CHECK(st == LW_ERR_SYNTAX);
  CHECK(!strncmp(err.message, "invalid @id value", 17));
  CHECK_INT_EQ(errors.line, 2);
  CHECK_INT_EQ(errors.column, 2);
  lw_nq_set_free(s3);
  check_fails("[{\"http://ex.org/p\": 1}\n {\"http://ex.org/p\": 2}]", &o3, LW_ERR_SYNTAX,
              "line 2, column 2: ',' or ']' expected");
  check_fails("[{\"http://ex.org/p\": 1}] x", &o3, LW_ERR_SYNTAX,
              "line 1, column 26: end of file expected");
}

int main(void)
{
  char *dir = lw_test_tmpdir();
  test_basic();
  test_blank_nodes_document_scoped();
  test_json_errors();
  test_hostile_input();
  test_map_loader(dir);
  test_http_loader();
  test_canonical_json();
  test_sink_stops();
  test_streaming(dir);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
