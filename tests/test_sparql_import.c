/* The sparql store against a real Virtuoso: a harvest replaces exactly the
 * triples of its subjects, in batches, and running it again changes nothing;
 * the store ends equal to the files store's graph. */
#include "graph_store/graph_store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "tests/support/check.h"

static char *dir;
static LwSparqlStore *store;
static char graph[256];
static unsigned long long last_requests; /* requests of the last import */

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static unsigned long long count(const char *where)
{
  char q[1024];
  snprintf(q, sizeof(q), "SELECT COUNT(*) WHERE { GRAPH <%s> { %s } }", graph, where);
  unsigned long long n = 0;
  LwError err;
  if (lw_sparql_count(store, q, &n, &err) != LW_OK) {
    fprintf(stderr, "count: %s\n", err.message);
    return (unsigned long long)-1;
  }
  return n;
}

/* Merges the harvest file into the graph file and pushes it to the store
 * to (the test's store when NULL). */
static LwStatus import_to(LwSparqlStore *to, const char *harvest, const char *old,
                          const char *out, size_t delete_batch, LwGraphMergeReport *report)
{
  LwError err;
  LwSparqlImport *im = lw_sparql_import_new(to ? to : store, graph, delete_batch, 50);
  const char *news[] = {harvest};
  LwGraphMergeOptions o = {.graph_iri = graph,
                           .old_path = old,
                           .new_paths = news,
                           .new_count = 1,
                           .out_path = out,
                           .on_harvest_line = lw_sparql_import_line,
                           .on_subject_end = lw_sparql_import_subject_end,
                           .handle = im};
  LwStatus st = lw_graph_merge(&o, report, &err);
  if (st == LW_OK) {
    st = lw_sparql_import_finish(im, &err);
  }
  if (st != LW_OK) {
    fprintf(stderr, "import: %s\n", err.message);
  }
  last_requests = lw_sparql_import_requests(im);
  lw_sparql_import_free(im);
  return st;
}

static LwStatus import(const char *harvest, const char *old, const char *out,
                       size_t delete_batch, LwGraphMergeReport *report)
{
  return import_to(NULL, harvest, old, out, delete_batch, report);
}

/* The store's graph holds exactly the triples of the graph file: as many,
 * and every one of them (asked 100 at a time). */
static void check_store_equals_file(const char *path)
{
  LwError err;
  LwLineReader *r = lw_line_reader_open(path, 1 << 20, &err);
  CHECK(r != NULL);
  LwBuf q = LW_BUF_INIT;
  unsigned long long lines = 0, found = 0, n;
  const char *line;
  size_t len, tlen, gs, gl;
  LwStatus st;
  do {
    st = r ? lw_line_reader_next(r, &line, &len, &err) : LW_NOTHING;
    if (st == LW_OK) {
      CHECK(lw_nquads_split_line(line, len, &tlen, &gs, &gl));
      if (!q.len) {
        lw_buf_appendf(&q, "SELECT COUNT(*) WHERE { GRAPH <%s> { ?s ?p ?o } "
                           "VALUES (?s ?p ?o) {", graph);
      }
      lw_buf_appendf(&q, " (%.*s)", (int)tlen, line);
      ++lines;
    }
    if (q.len && (st != LW_OK || lines % 100 == 0)) {
      lw_buf_append_str(&q, " } }");
      n = 0;
      CHECK_INT_EQ(lw_sparql_count(store, q.data, &n, &err), LW_OK);
      found += n;
      lw_buf_reset(&q);
    }
  } while (st == LW_OK);
  lw_line_reader_close(r);
  lw_buf_free(&q);
  CHECK_INT_EQ(found, lines);
  CHECK_INT_EQ(count("?s ?p ?o"), lines);
}

static void test_replace_by_subject(void)
{
  char h1[4096], h2[4096], g1[4096], g2[4096];
  snprintf(h1, sizeof(h1), "%s/h1.nq", dir);
  snprintf(h2, sizeof(h2), "%s/h2.nq", dir);
  snprintf(g1, sizeof(g1), "%s/g1.nq.gz", dir);
  snprintf(g2, sizeof(g2), "%s/g2.nq.gz", dir);
  write_file(h1, "<http://x/a> <http://p> \"a1\" .\n"
                 "<http://x/b> <http://p> \"b1\" .\n"
                 "<http://x/b> <http://p> \"b2\"@en .\n"
                 "<http://x/c> <http://p> <http://x/a> <http://other/graph> .\n");
  write_file(
    h2, "<http://x/b> <http://p> \"b3\" .\n"
        "<http://x/d> <http://p> \"d1\"^^<http://www.w3.org/2001/XMLSchema#string> .\n");
  LwGraphMergeReport r;
  CHECK_INT_EQ(import(h1, NULL, g1, 0, &r), LW_OK);
  CHECK_INT_EQ(count("?s ?p ?o"), 4);
  CHECK_INT_EQ(import(h2, g1, g2, 0, &r), LW_OK);
  CHECK_INT_EQ(count("?s ?p ?o"), 4); /* a1, b3, c, d1 */
  CHECK_INT_EQ(count("<http://x/b> ?p ?o"), 1);
  CHECK_INT_EQ(count("<http://x/b> <http://p> \"b3\""), 1);
  CHECK_INT_EQ(count("<http://x/a> <http://p> \"a1\""), 1);
  CHECK_INT_EQ(count("<http://x/c> <http://p> <http://x/a>"), 1);
  CHECK_INT_EQ(r.triples, 4);
  /* Again: the same graph. */
  CHECK_INT_EQ(import(h2, g2, g1, 0, &r), LW_OK);
  CHECK_INT_EQ(count("?s ?p ?o"), 4);
}

/* 2,500 subjects deleted and inserted in batches of 100 subjects. */
static void test_batches(void)
{
  char h[4096], g1[4096], g2[4096];
  snprintf(h, sizeof(h), "%s/big.nq", dir);
  snprintf(g1, sizeof(g1), "%s/big1.nq.gz", dir);
  snprintf(g2, sizeof(g2), "%s/big2.nq.gz", dir);
  FILE *f = fopen(h, "w");
  for (int i = 10000; i < 12500; ++i) {
    fprintf(f, "<http://y/%d> <http://p> \"%d\" .\n", i, i);
  }
  fclose(f);
  LwGraphMergeReport r;
  CHECK_INT_EQ(import(h, NULL, g1, 100, &r), LW_OK);
  CHECK_INT_EQ(count("?s <http://p> ?o FILTER(STRSTARTS(STR(?s), \"http://y/\"))"), 2500);
  CHECK_INT_EQ(last_requests, 50); /* 50 triples a POST; no DELETE: all new */
  CHECK_INT_EQ(import(h, g1, g2, 100, &r), LW_OK);
  CHECK_INT_EQ(count("?s <http://p> ?o FILTER(STRSTARTS(STR(?s), \"http://y/\"))"), 2500);
  CHECK_INT_EQ(r.added, 0);
  CHECK_INT_EQ(last_requests, 0); /* nothing changed: nothing sent */
  /* One subject changed among 2,500: one DELETE and one POST. */
  f = fopen(h, "w");
  for (int i = 10000; i < 12500; ++i) {
    fprintf(f, "<http://y/%d> <http://p> \"%d%s\" .\n", i, i, i == 11000 ? " new" : "");
  }
  fclose(f);
  CHECK_INT_EQ(import(h, g2, g1, 100, &r), LW_OK);
  CHECK_INT_EQ(last_requests, 2);
  CHECK_INT_EQ(count("<http://y/11000> <http://p> \"11000 new\""), 1);
  CHECK_INT_EQ(count("?s <http://p> ?o FILTER(STRSTARTS(STR(?s), \"http://y/\"))"), 2500);
}

/* subjects [first, first + count) of http://z/, with per triples each
 * ("VERSION"), sorted. */
static void write_subjects(FILE *f, int first, int count, int per, const char *version)
{
  for (int i = first; i < first + count; ++i) {
    for (int p = 0; p < per; ++p) {
      fprintf(f, "<http://z/%05d> <http://p%d> \"%d %s\"@en .\n", i, p, i, version);
    }
  }
}

/* The full harvest of the tests below: 600 subjects, 2 triples each. */
static void write_full(const char *path)
{
  FILE *f = fopen(path, "w");
  write_subjects(f, 0, 600, 2, "full");
  fclose(f);
}

/* Batches sent over 3 connections at once (7 subjects a DELETE, 50
 * triples a POST): after a full harvest, then a partial one changing every
 * third subject and adding new ones, the store holds exactly the files
 * store's graph. */
static void test_connections(const LwSparqlOptions *options)
{
  LwSparqlOptions o = *options;
  o.connections = 3;
  LwError err;
  LwSparqlStore *s3 = lw_sparql_open(&o, &err);
  CHECK(s3 != NULL);
  CHECK_INT_EQ(lw_sparql_connections(s3), 3);
  char clear[512];
  snprintf(clear, sizeof(clear), "CLEAR SILENT GRAPH <%s>", graph);
  CHECK_INT_EQ(lw_sparql_update(s3, clear, &err), LW_OK);
  char h[4096], g1[4096], g2[4096];
  snprintf(h, sizeof(h), "%s/conn.nq", dir);
  snprintf(g1, sizeof(g1), "%s/conn1.nq.gz", dir);
  snprintf(g2, sizeof(g2), "%s/conn2.nq.gz", dir);
  write_full(h);
  LwGraphMergeReport r;
  CHECK_INT_EQ(import_to(s3, h, NULL, g1, 7, &r), LW_OK);
  CHECK_INT_EQ(r.triples, 1200);
  CHECK_INT_EQ(last_requests, 24);
  check_store_equals_file(g1);
  FILE *f = fopen(h, "w");
  for (int i = 0; i < 600; i += 3) {
    write_subjects(f, i, 1, 1, "partial");
  }
  write_subjects(f, 600, 50, 2, "new");
  fclose(f);
  CHECK_INT_EQ(import_to(s3, h, g1, g2, 7, &r), LW_OK);
  CHECK_INT_EQ(r.triples, 1200 - 200 + 100);
  CHECK_INT_EQ(r.removed, 400);
  check_store_equals_file(g2);
  CHECK_INT_EQ(count("<http://z/00003> <http://p0> \"3 partial\"@en"), 1);
  CHECK_INT_EQ(count("<http://z/00004> ?p ?o"), 2);
  lw_sparql_close(s3);
}

/* A store that does not answer: the import fails with the store's error,
 * whichever sender met it first, and ends (no sender left waiting). */
static void test_connections_failure(void)
{
  LwSparqlOptions o = {.update_url = "http://127.0.0.1:1/sparql", .connections = 2};
  LwError err;
  LwSparqlStore *dead = lw_sparql_open(&o, &err);
  CHECK(dead != NULL);
  char h[4096], g[4096];
  snprintf(h, sizeof(h), "%s/dead.nq", dir);
  snprintf(g, sizeof(g), "%s/dead.nq.gz", dir);
  write_full(h);
  LwGraphMergeReport r;
  CHECK_INT_EQ(import_to(dead, h, NULL, g, 7, &r), LW_ERR_STORE);
  CHECK_INT_EQ(last_requests, 0);
  lw_sparql_close(dead);
}

#define RACERS 6
#define RACES 15

typedef struct {
  LwSparqlStore *store;
  int racer;
  int failed;        /* updates that failed */
  int deadlocked;    /* of which Virtuoso's deadlock */
} Racer;

/* RACES updates each inserting about two shared subjects and deleting them
 * in the racer's order (half the racers the other way round): Virtuoso
 * refuses some as deadlocked. Each also inserts a triple of its own, kept:
 * none may be lost. */
static void *race(void *arg)
{
  Racer *r = arg;
  const char *a = r->racer % 2 ? "<http://d/1>" : "<http://d/2>";
  const char *b = r->racer % 2 ? "<http://d/2>" : "<http://d/1>";
  for (int i = 0; i < RACES; ++i) {
    char q[2048];
    snprintf(q, sizeof(q),
             "INSERT DATA { GRAPH <%s> { %s <http://p> \"%d\" . %s <http://p> \"%d\" . "
             "<http://u/%d> <http://p> \"%d\" } } ; DELETE { GRAPH <%s> { ?s ?p ?o } } "
             "WHERE { GRAPH <%s> { ?s ?p ?o . VALUES ?s { %s %s } } }",
             graph, a, i, b, i, r->racer, i, graph, graph, b, a);
    LwError err;
    if (lw_sparql_update(r->store, q, &err) != LW_OK) {
      ++r->failed;
      r->deadlocked += lw_sparql_is_deadlock(500, err.message);
    }
  }
  return NULL;
}

/* Runs the race over a store of RACERS connections sending each update at
 * most tries times; returns the updates that failed, *deadlocked of them
 * refused as deadlocked. */
static int run_race(const LwSparqlOptions *options, int tries, int *deadlocked)
{
  LwSparqlOptions o = *options;
  o.connections = RACERS;
  o.deadlock_tries = tries;
  LwError err;
  LwSparqlStore *s = lw_sparql_open(&o, &err);
  CHECK(s != NULL);
  char clear[512];
  snprintf(clear, sizeof(clear), "CLEAR SILENT GRAPH <%s>", graph);
  CHECK_INT_EQ(lw_sparql_update(s, clear, &err), LW_OK);
  Racer racers[RACERS];
  pthread_t threads[RACERS];
  for (int k = 0; k < RACERS; ++k) {
    racers[k] = (Racer){.store = s, .racer = k};
    CHECK(pthread_create(&threads[k], NULL, race, &racers[k]) == 0);
  }
  int failed = 0;
  *deadlocked = 0;
  for (int k = 0; k < RACERS; ++k) {
    pthread_join(threads[k], NULL);
    failed += racers[k].failed;
    *deadlocked += racers[k].deadlocked;
  }
  lw_sparql_close(s);
  return failed;
}

/* Concurrent updates Virtuoso refuses as deadlocked: sent once, they fail
 * with the store's answer, which lw_sparql_is_deadlock recognises; sent
 * again as by default, none fails and none is lost. */
static void test_deadlock_retry(const LwSparqlOptions *options)
{
  int deadlocked = 0, failed = 0;
  for (int round = 0; round < 10 && !deadlocked; ++round) {
    failed = run_race(options, 1, &deadlocked);
  }
  if (deadlocked) {
    CHECK_INT_EQ(failed, deadlocked); /* every failure is a deadlock */
  } else {
    printf("note: Virtuoso refused no update as deadlocked in 10 rounds\n");
  }
  CHECK_INT_EQ(run_race(options, 0, &deadlocked), 0);
  CHECK_INT_EQ(count("?s <http://p> ?o FILTER(STRSTARTS(STR(?s), \"http://u/\"))"),
               RACERS * RACES);
}

int main(void)
{
  const char *user, *password;
  const char *url = lw_test_require_sparql(&user, &password);
  LwError err;
  LwSparqlOptions o = {.update_url = url, .user = user, .password = password};
  store = lw_sparql_open(&o, &err);
  CHECK(store != NULL);
  snprintf(graph, sizeof(graph), "http://lodwash.test/graph/t%ld", (long)getpid());
  dir = lw_test_tmpdir();
  test_replace_by_subject();
  test_batches();
  test_connections(&o);
  test_connections_failure();
  test_deadlock_retry(&o);
  char clear[512];
  snprintf(clear, sizeof(clear), "CLEAR SILENT GRAPH <%s>", graph);
  CHECK_INT_EQ(lw_sparql_update(store, clear, &err), LW_OK);
  lw_sparql_close(store);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
