/* The scheduler against a real Redis and real HTTP on loopback: VoIDs served
 * from a temporary folder by libmicrohttpd; harvests started with seeds and
 * download jobs, unchanged VoIDs queue nothing, a VoID moving during a
 * harvest gives exactly one follow-up, registry edits are picked up, bad
 * YAML keeps the last good registry, unreachable / 404 / not RDF / missing
 * modified are provider errors that leave the others alone, 304 reuses the
 * kept copy, forced harvests jump the queue, periodic duties, the lease. */
#include "config/config.h"
#include "base/base.h"
#include "queue/keys.h"
#include "queue/redis_cmd.h"
#include "queue/seed.h"
#include "queue/txn.h"
#include "queue/provider_record.h"
#include "scheduler/scheduler.h"
#include "tests/support/check.h"
#include "tools/commands.h"

#include <jansson.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- a small file server ---- */

static char *serve_dir;
static int served_304;

static const char *type_of(const char *path)
{
  const char *dot = strrchr(path, '.');
  if (dot && !strcmp(dot, ".ttl")) {
    return "text/turtle";
  }
  if (dot && !strcmp(dot, ".rdf")) {
    return "application/rdf+xml";
  }
  if (dot && !strcmp(dot, ".html")) {
    return "text/html";
  }
  return "application/octet-stream";
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
  (void)cls, (void)method, (void)version, (void)upload, (void)upload_size, (void)state;
  char path[4096];
  snprintf(path, sizeof(path), "%s%s", serve_dir, url);
  FILE *f = strstr(url, "..") ? NULL : fopen(path, "rb");
  struct MHD_Response *r;
  int status = MHD_HTTP_OK;
  if (!f) {
    r = MHD_create_response_from_buffer(10, (void *)"not found\n", MHD_RESPMEM_PERSISTENT);
    status = MHD_HTTP_NOT_FOUND;
  } else {
    char *buf = malloc(1 << 20);
    size_t n = fread(buf, 1, 1 << 20, f);
    fclose(f);
    char etag[LW_HASH_HEX_LEN + 3];
    char hex[LW_HASH_HEX_LEN + 1];
    lw_md5_hex(buf, n, hex);
    snprintf(etag, sizeof(etag), "\"%s\"", hex);
    const char *inm = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "If-None-Match");
    const char *ims = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                  "If-Modified-Since");
    char lm_path0[4200], lm0[128] = "";
    snprintf(lm_path0, sizeof(lm_path0), "%s.lastmod", path);
    FILE *lmf0 = fopen(lm_path0, "r");
    if (lmf0) {
      if (fgets(lm0, sizeof(lm0), lmf0)) {
        lm0[strcspn(lm0, "\n")] = '\0';
      }
      fclose(lmf0);
    }
    /* Files with NAME.lastmod play a server that only knows Last-Modified
     * (whole seconds, as python's http.server): no ETag for them. */
    if ((!lm0[0] && inm && !strcmp(inm, etag)) || (lm0[0] && ims && !strcmp(ims, lm0))) {
      free(buf);
      r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
      status = MHD_HTTP_NOT_MODIFIED;
      ++served_304;
    } else {
      r = MHD_create_response_from_buffer(n, buf, MHD_RESPMEM_MUST_FREE);
      MHD_add_response_header(r, "Content-Type", type_of(url));
    }
    if (!lm0[0]) {
      MHD_add_response_header(r, "ETag", etag);
    }
    /* NAME.lastmod beside a file gives its Last-Modified header. */
    char lm_path[4200], lm[128] = "";
    snprintf(lm_path, sizeof(lm_path), "%s.lastmod", path);
    FILE *lmf = fopen(lm_path, "r");
    if (lmf && fgets(lm, sizeof(lm), lmf)) {
      lm[strcspn(lm, "\n")] = '\0';
      MHD_add_response_header(r, "Last-Modified", lm);
    }
    if (lmf) {
      fclose(lmf);
    }
  }
  enum MHD_Result ret = MHD_queue_response(conn, (unsigned)status, r);
  MHD_destroy_response(r);
  return ret;
}

static void write_file(const char *dir, const char *name, const char *text)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* ---- Redis helpers ---- */

static redisContext *rc;
static const char *prefix;

static long long llen(const char *pattern, const char *arg)
{
  redisReply *r = redisCommand(rc, "LLEN %s", lw_key(prefix, pattern, arg).s);
  long long n = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
  freeReplyObject(r);
  return n;
}

/* HGET into a static buffer ("" when absent). */
static const char *hget(const char *pattern, const char *arg, const char *field)
{
  static char buf[8192];
  redisReply *r = redisCommand(rc, "HGET %s %s", lw_key(prefix, pattern, arg).s, field);
  snprintf(buf, sizeof(buf), "%s", r && r->type == REDIS_REPLY_STRING ? r->str : "");
  freeReplyObject(r);
  return buf;
}

static void cleanup_keys(void)
{
  char pattern[512];
  snprintf(pattern, sizeof(pattern), "%s*", prefix);
  char cursor[32] = "0";
  do {
    redisReply *r = redisCommand(rc, "SCAN %s MATCH %s COUNT 1000", cursor, pattern);
    if (!r || r->type != REDIS_REPLY_ARRAY) {
      freeReplyObject(r);
      return;
    }
    snprintf(cursor, sizeof(cursor), "%s", r->element[0]->str);
    for (size_t i = 0; i < r->element[1]->elements; ++i) {
      freeReplyObject(redisCommand(rc, "DEL %s", r->element[1]->element[i]->str));
    }
    freeReplyObject(r);
  } while (strcmp(cursor, "0"));
}

/* ---- fixtures ---- */

static char base[256];
static char *dir;
static char registry_path[4096];
static LwConfig cfg;

static const char *void_ttl(const char *modified, const char *dump)
{
  static char text[2048];
  snprintf(text, sizeof(text),
           "@prefix void: <http://rdfs.org/ns/void#> .\n"
           "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
           "@prefix dcterms: <http://purl.org/dc/terms/> .\n"
           "@prefix : <#> .\n"
           ":#d1lodfull a void:Dataset ;\n"
           "  void:feature <http://www.w3.org/ns/formats/Turtle> ;\n"
           "  void:feature <http://schema.geolink.org/dev/voc/harvester#FullDump> ;\n"
           "  void:dataDump <%s> ;\n"
           "  dcterms:modified \"%s\"^^xsd:date ;\n"
           "  .\n",
           dump, modified);
  return text;
}

static const char *VOID_RDF =
  "<?xml version=\"1.0\"?>\n"
  "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"\n"
  "         xmlns:void=\"http://rdfs.org/ns/void#\"\n"
  "         xmlns:dcterms=\"http://purl.org/dc/terms/\">\n"
  "  <void:Dataset rdf:about=\"#b\">\n"
  "    <void:feature rdf:resource=\"http://lod.dataone.org/glharvest#PartialDump\"/>\n"
  "    <void:dataDump rdf:resource=\"dumps/b1.nt\"/>\n"
  "    <void:dataDump rdf:resource=\"dumps/b2.nt\"/>\n"
  "    <dcterms:modified>2016-01-01T10:00:00Z</dcterms:modified>\n"
  "  </void:Dataset>\n"
  "</rdf:RDF>\n";

static void write_registry(const char *extra)
{
  char text[8192];
  snprintf(text, sizeof(text),
           "a:\n  void: %s/a/void.ttl\n  modified: 2015-10-01\n"
           "b:\n  void: %s/b/void.rdf\n  modified: 2015-12-04 14:25:44.758604\n"
           "missing:\n  void: %s/nothing/void.ttl\n"
           "html:\n  void: %s/page.html\n"
           "nomod:\n  void: %s/nomod.ttl\n"
           "down:\n  void: http://127.0.0.1:1/void.ttl\n"
           "bad_name:\n  void: %s/a/void.ttl\n"
           "off:\n  void: %s/a/void.ttl\n  enabled: false\n"
           "%s",
           base, base, base, base, base, base, base, extra ? extra : "");
  write_file(dir, "registry.yaml", text);
}

static LwCycleStats cycle(LwScheduler *s)
{
  LwCycleStats st;
  LwError err;
  lw_error_clear(&err);
  CHECK_INT_EQ(lw_scheduler_lease(s, &err), LW_OK);
  LwStatus rc_ = lw_scheduler_cycle(s, &st, &err);
  CHECK_INT_EQ(rc_, LW_OK);
  if (rc_ != LW_OK) {
    fprintf(stderr, "cycle: %s\n", err.message);
  }
  return st;
}

static char *seed_of(const char *url, const char *provider)
{
  static char hash[LW_HASH_HEX_LEN + 1];
  lw_seed_hash_for(url, provider, hash);
  return hash;
}

static void finish(const char *name, bool ok)
{
  char id[256];
  snprintf(id, sizeof(id), "%s", hget(LW_KEY_PROVIDER, name, "harvest"));
  LwError err;
  CHECK_INT_EQ(lw_harvest_finish(rc, prefix, id, ok, ok ? NULL : "a dump failed", &err),
               LW_OK);
}

/* ---- the tests ---- */

static void test_first_cycle(LwScheduler *s)
{
  LwCycleStats st = cycle(s);
  /* bad_name is skipped by the registry; seven providers are visited. */
  CHECK_INT_EQ(st.providers, 7);
  CHECK_INT_EQ(st.started, 3); /* a, b, nomod */
  CHECK_INT_EQ(st.errors, 3);  /* missing (404), html (not RDF), down */
  CHECK_INT_EQ(st.skipped, 1); /* off */
  CHECK(!st.registry_error);
  /* a: one dump, b: two, nomod: one. */
  CHECK_INT_EQ(llen(LW_KEY_QUEUE, "download"), 4);
  char url[512];
  snprintf(url, sizeof(url), "%s/b/dumps/b2.nt", base);
  const char *hash = seed_of(url, "b");
  CHECK_STR_EQ(hget(LW_KEY_SEED, hash, "status"), "added");
  CHECK_STR_EQ(hget(LW_KEY_SEED, hash, "provider"), "b");
  CHECK_STR_EQ(hget(LW_KEY_SEED, hash, "uri"), url);
  char harvest[256];
  snprintf(harvest, sizeof(harvest), "%s", hget(LW_KEY_PROVIDER, "b", "harvest"));
  CHECK(!strncmp(harvest, "b:", 2));
  CHECK_STR_EQ(hget(LW_KEY_SEED, hash, "harvest"), harvest);
  CHECK_STR_EQ(hget(LW_KEY_HARVEST, harvest, "status"), "running");
  CHECK_STR_EQ(hget(LW_KEY_HARVEST, harvest, "modified"), "2016-01-01T10:00:00Z");
  CHECK_STR_EQ(hget(LW_KEY_HARVEST, harvest, "kind"), "partial");
  CHECK_STR_EQ(hget(LW_KEY_HARVEST, harvest, "pending"), "2");
  CHECK(strstr(hget(LW_KEY_HARVEST, harvest, "dumps"), "b1.nt") != NULL);
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "b", "state"), "harvesting");
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "void_modified"), "2015-11-05T00:00:00Z");
  /* Errors are on their providers. */
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "missing", "state"), "error");
  CHECK(strstr(hget(LW_KEY_PROVIDER, "missing", "error"), "404") != NULL);
  /* An HTML page read as Turtle gives a stray triple at most. */
  CHECK(strstr(hget(LW_KEY_PROVIDER, "html", "error"), "void:Dataset") != NULL ||
        strstr(hget(LW_KEY_PROVIDER, "html", "error"), "not RDF") != NULL);
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "down", "state"), "error");
  /* The content-hash fallback is a warning on the provider. */
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "nomod", "void_source"), "content-hash");
  CHECK(strstr(hget(LW_KEY_PROVIDER, "nomod", "warnings"), "no dcterms:modified") != NULL);
  /* Periodic jobs. */
  CHECK_INT_EQ(llen(LW_KEY_QUEUE, "export"), 1);
  CHECK_INT_EQ(llen(LW_KEY_QUEUE, "status"), 1);
}

static void test_unchanged(LwScheduler *s)
{
  int before = served_304;
  LwCycleStats st = cycle(s);
  CHECK_INT_EQ(st.started, 0);
  CHECK_INT_EQ(st.busy, 3);
  CHECK_INT_EQ(llen(LW_KEY_QUEUE, "download"), 4);
  /* The export and status jobs are not queued twice. */
  CHECK_INT_EQ(llen(LW_KEY_QUEUE, "export"), 1);
  /* The VoIDs were asked for conditionally and the kept copies used. */
  CHECK(served_304 > before);
  /* Harvests end; then nothing changes. */
  finish("a", true);
  finish("b", true);
  /* The import stage only writes the harvest's status: the next visit
   * settles the provider. */
  char nomod[256];
  snprintf(nomod, sizeof(nomod), "%s", hget(LW_KEY_PROVIDER, "nomod", "harvest"));
  freeReplyObject(
    redisCommand(rc, "HSET %s status done", lw_key(prefix, LW_KEY_HARVEST, nomod).s));
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "state"), "idle");
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "harvested"), "2015-11-05T00:00:00Z");
  st = cycle(s);
  CHECK_INT_EQ(st.started, 0);
  CHECK_INT_EQ(st.unchanged, 3);
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "nomod", "state"), "idle");
  CHECK_INT_EQ(strlen(hget(LW_KEY_PROVIDER, "nomod", "harvested_hash")), 32);
  CHECK_INT_EQ(llen(LW_KEY_QUEUE, "download"), 4);
}

static void test_follow_up(LwScheduler *s)
{
  char dump[512];
  snprintf(dump, sizeof(dump), "%s/a/data.ttl", base);
  write_file(dir, "a/void.ttl", void_ttl("2015-11-06", dump));
  LwCycleStats st = cycle(s);
  CHECK_INT_EQ(st.started, 1);
  char first[256];
  snprintf(first, sizeof(first), "%s", hget(LW_KEY_PROVIDER, "a", "harvest"));
  /* The VoID moves twice while the harvest runs. */
  write_file(dir, "a/void.ttl", void_ttl("2015-11-07", dump));
  st = cycle(s);
  CHECK_INT_EQ(st.started, 0);
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "pending"), "2015-11-07T00:00:00Z");
  write_file(dir, "a/void.ttl", void_ttl("2015-11-08", dump));
  st = cycle(s);
  CHECK_INT_EQ(st.started, 0);
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "pending"), "2015-11-08T00:00:00Z");
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "harvest"), first);
  finish("a", true);
  /* Exactly one follow-up, with the newest modified. */
  st = cycle(s);
  CHECK_INT_EQ(st.started, 1);
  char second[256];
  snprintf(second, sizeof(second), "%s", hget(LW_KEY_PROVIDER, "a", "harvest"));
  CHECK(strcmp(first, second) != 0);
  CHECK_STR_EQ(hget(LW_KEY_HARVEST, second, "modified"), "2015-11-08T00:00:00Z");
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "pending"), "");
  finish("a", true);
  st = cycle(s);
  CHECK_INT_EQ(st.started, 0);
  /* A failed harvest does not advance harvested, and backs off. */
  write_file(dir, "a/void.ttl", void_ttl("2015-11-09", dump));
  st = cycle(s);
  CHECK_INT_EQ(st.started, 1);
  finish("a", false);
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "state"), "error");
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "harvested"), "2015-11-08T00:00:00Z");
  st = cycle(s);
  CHECK_INT_EQ(st.started, 0);
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "state"), "error");
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "failures"), "1");
  /* Once the backoff is over, the same version is harvested again. */
  freeReplyObject(
    redisCommand(rc, "HSET %s retry_at 1", lw_key(prefix, LW_KEY_PROVIDER, "a").s));
  st = cycle(s);
  CHECK_INT_EQ(st.started, 1);
  CHECK_STR_EQ(hget(LW_KEY_HARVEST, hget(LW_KEY_PROVIDER, "a", "harvest"), "modified"),
               "2015-11-09T00:00:00Z");
  finish("a", false);
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "failures"), "2");
}

static void test_forced(LwScheduler *s)
{
  const LwRegistry *reg = lw_scheduler_registry(s);
  const LwProvider *b = lw_registry_find(reg, "b");
  CHECK(b != NULL);
  if (!b) {
    return;
  }
  /* As if workers had taken the earlier download jobs (a queued job for the
   * same seed would suppress the new one). */
  freeReplyObject(redisCommand(rc, "DEL %s %s", lw_key(prefix, LW_KEY_QUEUE, "download").s,
                               lw_key(prefix, LW_KEY_QUEUED, "download").s));
  LwVisit visit;
  LwError err;
  CHECK_INT_EQ(lw_scheduler_visit(s, b, true, &visit, &err), LW_OK);
  CHECK_STR_EQ(visit.outcome, "started");
  /* High priority: at the right end of the list, where workers take from. */
  redisReply *r = redisCommand(rc, "LINDEX %s -1",
                               lw_key(prefix, LW_KEY_QUEUE, "download").s);
  CHECK(r && r->type == REDIS_REPLY_STRING && strstr(r->str, visit.harvest) != NULL);
  freeReplyObject(r);
  CHECK_STR_EQ(hget(LW_KEY_HARVEST, visit.harvest, "forced"), "1");
  /* Forced again while it runs: kept as the follow-up. */
  CHECK_INT_EQ(lw_scheduler_visit(s, b, true, &visit, &err), LW_OK);
  CHECK_STR_EQ(visit.outcome, "busy");
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "b", "force"), "1");
  finish("b", true);
  LwCycleStats st = cycle(s);
  CHECK_INT_EQ(st.started, 1);
  finish("b", true);
  /* Forcing a disabled provider harvests it: the user named it. (The cycle
   * reloaded the registry: look the provider up again.) */
  const LwProvider *off = lw_registry_find(lw_scheduler_registry(s), "off");
  CHECK(off && lw_scheduler_visit(s, off, true, &visit, &err) == LW_OK &&
        !strcmp(visit.outcome, "started"));
  finish("off", true);
}

static void test_registry_edits(LwScheduler *s)
{
  char extra[512];
  snprintf(extra, sizeof(extra), "added:\n  void: %s/b/void.rdf\n", base);
  write_registry(extra);
  LwCycleStats st = cycle(s);
  CHECK_INT_EQ(st.providers, 8);
  CHECK_INT_EQ(st.started, 1);
  CHECK(!strncmp(hget(LW_KEY_PROVIDER, "added", "harvest"), "added:", 6));
  /* Broken YAML: the last good registry goes on. */
  write_file(dir, "registry.yaml", "a:\n  void: [unclosed\n");
  st = cycle(s);
  CHECK(st.registry_error);
  CHECK_INT_EQ(st.providers, 8);
  /* Removed: no longer visited. */
  write_registry(NULL);
  st = cycle(s);
  CHECK(!st.registry_error);
  CHECK_INT_EQ(st.providers, 7);
}

/* Without dcterms:modified, the VoID's Last-Modified is the version. */
static void test_last_modified(LwScheduler *s)
{
  write_file(dir, "lm.ttl", "<#d> <http://rdfs.org/ns/void#dataDump> <lm.nt> .\n");
  write_file(dir, "lm.ttl.lastmod", "Wed, 21 Oct 2015 07:28:00 GMT\n");
  char url[512];
  snprintf(url, sizeof(url), "%s/lm.ttl", base);
  LwProvider p = {0};
  p.name = (char *)"lastmod";
  p.source = "void";
  p.source_url = url;
  p.enabled = true;
  p.has_modified = lw_datetime_parse_str("2015-10-01", &p.modified);
  LwVisit visit;
  LwError err;
  CHECK_INT_EQ(lw_scheduler_visit(s, &p, false, &visit, &err), LW_OK);
  CHECK_STR_EQ(visit.outcome, "started");
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "lastmod", "void_source"), "last-modified");
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "lastmod", "void_modified"), "2015-10-21T07:28:00Z");
  CHECK(strstr(hget(LW_KEY_PROVIDER, "lastmod", "warnings"), "Last-Modified") != NULL);
  finish("lastmod", true);
  /* Same Last-Modified: unchanged; a later one starts a harvest. */
  CHECK_INT_EQ(lw_scheduler_visit(s, &p, false, &visit, &err), LW_OK);
  CHECK_STR_EQ(visit.outcome, "unchanged");
  write_file(dir, "lm.ttl", "<#d> <http://rdfs.org/ns/void#dataDump> <lm2.nt> .\n");
  write_file(dir, "lm.ttl.lastmod", "Thu, 22 Oct 2015 07:28:00 GMT\n");
  CHECK_INT_EQ(lw_scheduler_visit(s, &p, false, &visit, &err), LW_OK);
  CHECK_STR_EQ(visit.outcome, "started");
  finish("lastmod", true);

  /* A VoID changed within the second of our last visit, on a server that
   * compares whole seconds: If-Modified-Since must not be sent, or the
   * server's 304 would hide the change. */
  char now_http[64];
  time_t now = time(NULL);
  strftime(now_http, sizeof(now_http), "%a, %d %b %Y %H:%M:%S GMT", gmtime(&now));
  char text[512];
  snprintf(text, sizeof(text),
           "<#d> <http://rdfs.org/ns/void#dataDump> <x.nt> ; "
           "<http://purl.org/dc/terms/modified> \"2020-01-01\" .\n");
  write_file(dir, "lm.ttl", text);
  snprintf(text, sizeof(text), "%s\n", now_http);
  write_file(dir, "lm.ttl.lastmod", text);
  CHECK_INT_EQ(lw_scheduler_visit(s, &p, false, &visit, &err), LW_OK);
  CHECK_STR_EQ(visit.outcome, "started");
  finish("lastmod", true);
  write_file(dir, "lm.ttl",
             "<#d> <http://rdfs.org/ns/void#dataDump> <x.nt> ; "
             "<http://purl.org/dc/terms/modified> \"2020-02-02\" .\n");
  CHECK_INT_EQ(lw_scheduler_visit(s, &p, false, &visit, &err), LW_OK);
  CHECK_STR_EQ(visit.outcome, "started");
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "lastmod", "void_modified"), "2020-02-02T00:00:00Z");
  finish("lastmod", true);
  /* An old Last-Modified is a strong enough validator: 304 and the kept
   * copy. */
  write_file(dir, "lm.ttl.lastmod", "Thu, 22 Oct 2015 07:28:00 GMT\n");
  CHECK_INT_EQ(lw_scheduler_visit(s, &p, false, &visit, &err), LW_OK);
  int before = served_304;
  CHECK_INT_EQ(lw_scheduler_visit(s, &p, false, &visit, &err), LW_OK);
  CHECK_STR_EQ(visit.outcome, "unchanged");
  CHECK_INT_EQ(served_304, before + 1);
}

/* A seed whose interval is up goes back to added with a download job. Its
 * `processed` written as the workers write it (a txn: the re-check index
 * with it, queue/recheck_index.h). */
static void test_stale(LwScheduler *s)
{
  const char *uri = "http://127.0.0.1:1/stale.nt";
  const char *hash = seed_of(uri, NULL);
  char processed[32];
  snprintf(processed, sizeof(processed), "%lld", (long long)time(NULL) * 1000 - 10000);
  freeReplyObject(redisCommand(rc, "HSET %s status parsed uri %s",
                               lw_key(prefix, LW_KEY_SEED, hash).s, uri));
  LwTxn *txn = lw_txn_new(prefix);
  lw_txn_seed_set(txn, hash, "processed", processed);
  LwError err;
  CHECK_INT_EQ(lw_txn_exec(rc, txn, &err), LW_OK);
  lw_txn_free(txn);
  long long before = llen(LW_KEY_QUEUE, "download");
  long long saved = cfg.seed_interval_s;
  cfg.seed_interval_s = 5;
  LwCycleStats st;
  CHECK_INT_EQ(lw_scheduler_duties(s, &st, &err), LW_OK);
  cfg.seed_interval_s = saved;
  CHECK_STR_EQ(hget(LW_KEY_SEED, hash, "status"), "added");
  CHECK_INT_EQ(llen(LW_KEY_QUEUE, "download"), before + 1);
}

/* Runs a tool command with stdout going to a file; returns its exit code and
 * what it printed (static buffer). */
static int run_tool(LwTool *tool, int (*fn)(LwTool *, int, char **), int argc, char **argv,
                    char **out)
{
  static char text[1 << 16];
  char path[4200];
  snprintf(path, sizeof(path), "%s/stdout.txt", dir);
  fflush(stdout);
  int saved = dup(1);
  FILE *f = fopen(path, "w");
  dup2(fileno(f), 1);
  int code = fn(tool, argc, argv);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  fclose(f);
  f = fopen(path, "r");
  size_t n = fread(text, 1, sizeof(text) - 1, f);
  text[n] = '\0';
  fclose(f);
  *out = text;
  return code;
}

static json_t *find_provider(json_t *list, const char *name)
{
  size_t i;
  json_t *o;
  json_array_foreach(list, i, o) {
    if (!strcmp(json_string_value(json_object_get(o, "name")), name)) {
      return o;
    }
  }
  return NULL;
}

static void test_tools(void)
{
  LwTool tool = {&cfg, NULL};
  char *out = NULL;
  char json_args_s[][16] = {"providers", "--json"};
  char *json_args[] = {json_args_s[0], json_args_s[1]};
  CHECK_INT_EQ(run_tool(&tool, lw_cmd_providers, 2, json_args, &out), 0);
  json_t *list = json_loads(out, 0, NULL);
  CHECK(json_is_array(list));
  CHECK_INT_EQ(json_array_size(list), 7);
  json_t *a = find_provider(list, "a");
  CHECK(a != NULL);
  if (a) {
    const char *keys[] = {"name",      "void",  "modified", "void_modified",
                          "harvested", "state", "dumps",    "error"};
    /* The keys, and the harvest's progress and report. */
    CHECK(json_object_get(a, "harvest") != NULL);
    for (size_t i = 0; i < 8; ++i) {
      CHECK(json_object_get(a, keys[i]) != NULL);
    }
    CHECK_STR_EQ(json_string_value(json_object_get(a, "modified")), "2015-10-01");
    CHECK_STR_EQ(json_string_value(json_object_get(a, "harvested")),
                 "2015-11-08T00:00:00Z");
    CHECK_STR_EQ(json_string_value(json_object_get(a, "state")), "error");
    CHECK_INT_EQ(json_array_size(json_object_get(a, "dumps")), 1);
  }
  json_t *missing = find_provider(list, "missing");
  CHECK(missing && strstr(json_string_value(json_object_get(missing, "error")), "404"));
  json_t *off = find_provider(list, "off");
  CHECK(off && json_is_null(json_object_get(off, "modified")));
  json_decref(list);
  /* The table. */
  char table_args_s[][16] = {"providers"};
  char *table_args[] = {table_args_s[0]};
  CHECK_INT_EQ(run_tool(&tool, lw_cmd_providers, 1, table_args, &out), 0);
  CHECK(strstr(out, "NAME") != NULL && strstr(out, "missing") != NULL);
  /* lodwash harvest NAME: a (failed last time, backing off) starts now. */
  char harvest_args_s[][16] = {"harvest", "a"};
  char *harvest_args[] = {harvest_args_s[0], harvest_args_s[1]};
  CHECK_INT_EQ(run_tool(&tool, lw_cmd_harvest, 2, harvest_args, &out), 0);
  CHECK(strstr(out, "started") != NULL);
  CHECK_STR_EQ(hget(LW_KEY_PROVIDER, "a", "state"), "harvesting");
  CHECK_STR_EQ(hget(LW_KEY_HARVEST, hget(LW_KEY_PROVIDER, "a", "harvest"), "forced"), "1");
  CHECK_INT_EQ(run_tool(&tool, lw_cmd_harvest, 2, harvest_args, &out), 0);
  CHECK(strstr(out, "running") != NULL);
  char unknown_args_s[][16] = {"harvest", "nosuch"};
  char *unknown_args[] = {unknown_args_s[0], unknown_args_s[1]};
  CHECK_INT_EQ(run_tool(&tool, lw_cmd_harvest, 2, unknown_args, &out),
               3); /* no such provider */
  char bad_args_s[][16] = {"harvest"};
  char *bad_args[] = {bad_args_s[0]};
  CHECK_INT_EQ(run_tool(&tool, lw_cmd_harvest, 1, bad_args, &out), 2);
  redisFree(tool.redis);
}

static void test_lease(void)
{
  LwConfig c2 = cfg;
  c2.interval_s = 1; /* TTL 2 s */
  LwScheduler *one = lw_scheduler_new(&c2);
  LwScheduler *two = lw_scheduler_new(&c2);
  LwError err;
  CHECK_INT_EQ(lw_scheduler_lease(one, &err), LW_OK);
  CHECK_INT_EQ(lw_scheduler_lease(two, &err), LW_NOTHING);
  CHECK_INT_EQ(lw_scheduler_lease(one, &err), LW_OK);
  /* One stops cleanly: two takes over at once. */
  lw_scheduler_release(one);
  CHECK_INT_EQ(lw_scheduler_lease(two, &err), LW_OK);
  CHECK_INT_EQ(lw_scheduler_lease(one, &err), LW_NOTHING);
  /* Two goes silent (as if killed): one takes over after the TTL. */
  usleep(2200 * 1000);
  CHECK_INT_EQ(lw_scheduler_lease(one, &err), LW_OK);
  CHECK_INT_EQ(lw_scheduler_lease(two, &err), LW_NOTHING);
  lw_scheduler_free(one);
  lw_scheduler_free(two);
}

int main(void)
{
  const char *url = lw_test_require_redis();
  lw_log_init("test_scheduler", getenv("LW_TEST_VERBOSE") ? LW_LOG_DEBUG : LW_LOG_ERROR + 0,
              false);
  prefix = lw_test_prefix("scheduler");
  LwError err;
  if (lw_redis_connect(url, &rc, &err) != LW_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  dir = lw_test_tmpdir();
  serve_dir = dir;
  struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
                                            MHD_USE_THREAD_PER_CONNECTION,
                                          0, NULL, NULL, answer, NULL, MHD_OPTION_END);
  CHECK(d != NULL);
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  snprintf(base, sizeof(base), "http://127.0.0.1:%u", (unsigned)info->port);

  char sub[4200];
  snprintf(sub, sizeof(sub), "%s/a", dir);
  mkdir(sub, 0755);
  snprintf(sub, sizeof(sub), "%s/b", dir);
  mkdir(sub, 0755);
  char dump[512];
  snprintf(dump, sizeof(dump), "%s/a/data.ttl", base);
  write_file(dir, "a/void.ttl", void_ttl("2015-11-05", dump));
  write_file(dir, "b/void.rdf", VOID_RDF);
  write_file(dir, "page.html", "<html><body><p>Hello</p></body></html>\n");
  write_file(dir, "nomod.ttl", "<#d> <http://rdfs.org/ns/void#dataDump> <nomod.nt> .\n");
  write_registry(NULL);
  snprintf(registry_path, sizeof(registry_path), "%s/registry.yaml", dir);

  lw_config_init(&cfg);
  CHECK_INT_EQ(lw_config_set(&cfg, "redis", url, &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "prefix", prefix, &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "registry", registry_path, &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "allow-net", "127.0.0.1", &err), LW_OK);
  CHECK_INT_EQ(lw_config_set(&cfg, "interval", "1", &err), LW_OK);
  /* every provider is on one loopback host: no pace between VoID fetches
   * (their politeness: tests/test_void_politeness.sh) */
  CHECK_INT_EQ(lw_config_set(&cfg, "host-interval-ms", "0", &err), LW_OK);

  LwScheduler *s = lw_scheduler_new(&cfg);
  test_first_cycle(s);
  test_unchanged(s);
  test_follow_up(s);
  test_forced(s);
  test_registry_edits(s);
  test_last_modified(s);
  test_stale(s);
  lw_scheduler_free(s);
  test_tools();
  test_lease();

  MHD_stop_daemon(d);
  cleanup_keys();
  redisFree(rc);
  lw_config_free(&cfg);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
