/* The files store's graph database: triples come back in bytewise order,
 * long ones (keyed by a prefix and a hash) included; a cursor stays right
 * while its transaction edits the range it reads; an aborted transaction
 * changes nothing; puts past the last key (appended) and the import's write
 * queue (another thread's writes) end in the same triples as plain puts; the
 * graph file of the earlier layout is taken over by the first import. */
#include "graph_store/graph_store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "tests/support/check.h"

static char *dir;

/* "<http://s/ID> <http://p> \"" + filler of n bytes + tail + "\"" */
static char *long_triple(const char *id, size_t n, const char *tail)
{
  LwBuf b = LW_BUF_INIT;
  lw_buf_appendf(&b, "<http://s/%s> <http://p> \"", id);
  for (size_t i = 0; i < n; ++i) {
    lw_buf_append_char(&b, 'x');
  }
  lw_buf_appendf(&b, "%s\"", tail);
  return lw_buf_steal(&b);
}

static int by_bytes(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every triple of db (or those starting with prefix), joined by "\n". */
static char *dump(LwGraphDb *db, const char *prefix)
{
  LwGraphCursor *c = NULL;
  LwError err;
  LwBuf b = LW_BUF_INIT;
  if (lw_graph_cursor_open(db, prefix, prefix ? strlen(prefix) : 0, &c, &err) != LW_OK) {
    return NULL;
  }
  const char *t;
  size_t len;
  while (lw_graph_cursor_next(c, &t, &len, &err) == LW_OK) {
    lw_buf_append(&b, t, len);
    lw_buf_append_char(&b, '\n');
  }
  lw_graph_cursor_close(c);
  return lw_buf_steal(&b);
}

static void test_order(void)
{
  /* Long triples sharing their first 500 bytes, a short one that is their
   * prefix, and ordinary ones, put in no particular order. */
  char *t[] = {
    long_triple("a", 600, "zz"),
    long_triple("a", 600, "b"),
    long_triple("a", 600, "m"),
    long_triple("a", 10, ""),
    strdup("<http://s/a> <http://p> <http://o>"),
    long_triple("a", 700, ""),
    strdup("<http://s/b> <http://p> \"1\""),
    long_triple("b", 600, "q"),
    strdup("<http://s/0> <http://p> \"0\""),
  };
  size_t n = sizeof(t) / sizeof(t[0]);
  LwGraphDb *db = NULL;
  LwError err;
  CHECK_INT_EQ(lw_graph_db_open(dir, "order", false, &db, &err), LW_OK);
  CHECK_INT_EQ(lw_graph_db_begin(db, &err), LW_OK);
  for (size_t i = 0; i < n; ++i) {
    CHECK_INT_EQ(lw_graph_db_put(db, t[i], strlen(t[i]), &err), LW_OK);
  }
  CHECK_INT_EQ(lw_graph_db_commit(db, &err), LW_OK);
  qsort(t, n, sizeof(char *), by_bytes);
  LwBuf want = LW_BUF_INIT, want_a = LW_BUF_INIT;
  for (size_t i = 0; i < n; ++i) {
    lw_buf_appendf(&want, "%s\n", t[i]);
    if (!strncmp(t[i], "<http://s/a> ", 13)) {
      lw_buf_appendf(&want_a, "%s\n", t[i]);
    }
  }
  char *all = dump(db, NULL), *a = dump(db, "<http://s/a> ");
  CHECK(all && !strcmp(all, want.data));
  CHECK(a && !strcmp(a, want_a.data));
  free(all);
  free(a);

  /* Deleting and adding while a cursor reads the same range. */
  CHECK_INT_EQ(lw_graph_db_begin(db, &err), LW_OK);
  LwGraphCursor *c = NULL;
  CHECK_INT_EQ(lw_graph_cursor_open(db, "<http://s/a> ", 13, &c, &err), LW_OK);
  const char *got;
  size_t len, seen = 0;
  while (lw_graph_cursor_next(c, &got, &len, &err) == LW_OK) {
    char *copy = strndup(got, len);
    CHECK_INT_EQ(lw_graph_db_del(db, copy, len, &err), LW_OK);
    CHECK_INT_EQ(lw_graph_db_put(db, "<http://s/a> <http://p> \"\"", 26, &err), LW_OK);
    free(copy);
    ++seen;
  }
  lw_graph_cursor_close(c);
  CHECK_INT_EQ(seen, 6); /* each old triple once; the one added not read back */
  lw_graph_db_abort(db);
  all = dump(db, NULL);
  CHECK(all && !strcmp(all, want.data)); /* aborted: unchanged */
  free(all);
  lw_graph_db_close(db);
  lw_buf_free(&want);
  lw_buf_free(&want_a);
  for (size_t i = 0; i < n; ++i) {
    free(t[i]);
  }
}

/* Puts past the database's last key are appends: long triples (whose keys
 * order by hash, not text), a delete of the last key, puts before it, all
 * end in the same sorted triples; a cursor on the committed graph does not
 * see the open transaction's writes. */
static void test_appends(void)
{
  char *t[] = {
    strdup("<http://s/1> <http://p> \"1\""),
    long_triple("2", 600, "b"),
    long_triple("2", 600, "a"),
    long_triple("2", 600, "c"),
    strdup("<http://s/3> <http://p> \"3\""),
  };
  LwGraphDb *db = NULL;
  LwError err;
  CHECK_INT_EQ(lw_graph_db_open(dir, "appends", false, &db, &err), LW_OK);
  CHECK_INT_EQ(lw_graph_db_begin(db, &err), LW_OK);
  CHECK_INT_EQ(lw_graph_db_put(db, t[0], strlen(t[0]), &err), LW_OK);
  CHECK_INT_EQ(lw_graph_db_commit(db, &err), LW_OK);
  CHECK_INT_EQ(lw_graph_db_begin(db, &err), LW_OK);
  for (size_t i = 1; i < 5; ++i) {
    CHECK_INT_EQ(lw_graph_db_put(db, t[i], strlen(t[i]), &err), LW_OK);
  }
  CHECK_INT_EQ(lw_graph_db_del(db, t[4], strlen(t[4]), &err), LW_OK); /* the last key */
  const char *first = "<http://s/0> <http://p> \"0\"",
             *last = "<http://s/4> <http://p> \"4\"";
  CHECK_INT_EQ(lw_graph_db_put(db, first, strlen(first), &err), LW_OK);
  CHECK_INT_EQ(lw_graph_db_put(db, last, strlen(last), &err), LW_OK);
  LwGraphCursor *c = NULL;
  const char *got;
  size_t len, committed = 0;
  CHECK_INT_EQ(lw_graph_cursor_open_committed(db, &c, &err), LW_OK);
  while (lw_graph_cursor_next(c, &got, &len, &err) == LW_OK) {
    ++committed;
  }
  lw_graph_cursor_close(c);
  CHECK_INT_EQ(committed, 1);
  CHECK_INT_EQ(lw_graph_db_commit(db, &err), LW_OK);
  LwBuf want = LW_BUF_INIT;
  lw_buf_appendf(&want, "%s\n%s\n%s\n%s\n%s\n%s\n", first, t[0], t[2], t[1], t[3], last);
  char *all = dump(db, NULL);
  CHECK_STR_EQ(all, want.data);
  free(all);
  lw_buf_free(&want);
  /* Seeks on a committed-graph cursor, past the end and back. */
  const char *seeks[][2] = {{"<http://s/5> ", NULL},
                            {"<http://s/6> ", NULL},
                            {"<http://s/4> ", last},
                            {"<http://s/9> ", NULL},
                            {"<http://s/0> ", first}};
  CHECK_INT_EQ(lw_graph_cursor_open_committed(db, &c, &err), LW_OK);
  for (size_t i = 0; i < 5; ++i) {
    CHECK_INT_EQ(lw_graph_cursor_seek(c, seeks[i][0], strlen(seeks[i][0]), &err), LW_OK);
    LwStatus st = lw_graph_cursor_next(c, &got, &len, &err);
    CHECK_INT_EQ(st, seeks[i][1] ? LW_OK : LW_NOTHING);
    CHECK(!seeks[i][1] || (len == strlen(seeks[i][1]) && !memcmp(got, seeks[i][1], len)));
  }
  lw_graph_cursor_close(c);
  lw_graph_db_close(db);
  for (size_t i = 0; i < 5; ++i) {
    free(t[i]);
  }
}

/* The import's producer: puts subjects 0..n-1 (several batches), deletes
 * every tenth, then stops (at stop_at: as a failed merge would). */
typedef struct {
  LwGraphWrites *writes;
  unsigned n, stop_at;
} Producer;

static void *produce(void *arg)
{
  Producer *p = arg;
  LwError err;
  char triple[64];
  for (unsigned i = 0; i < p->n && i < p->stop_at; ++i) {
    int len = snprintf(triple, sizeof(triple), "<http://s/%08u> <http://p> \"x\"", i);
    LwStatus st = lw_graph_writes_put(p->writes, triple, (size_t)len, &err);
    if (st == LW_OK && i % 10 == 0) {
      st = lw_graph_writes_del(p->writes, triple, (size_t)len, &err);
    }
    if (st != LW_OK) {
      break;
    }
  }
  lw_graph_writes_finish(p->writes);
  return NULL;
}

static size_t count_triples(LwGraphDb *db)
{
  char *all = dump(db, NULL);
  size_t n = 0;
  for (const char *s = all; s && (s = strchr(s, '\n')); ++s) {
    ++n;
  }
  free(all);
  return n;
}

static void run_queue(const char *graph, unsigned n, unsigned stop_at, size_t want)
{
  LwGraphDb *db = NULL;
  LwError err;
  CHECK_INT_EQ(lw_graph_db_open(dir, graph, false, &db, &err), LW_OK);
  CHECK_INT_EQ(lw_graph_db_begin(db, &err), LW_OK);
  Producer p = {lw_graph_writes_new(), n, stop_at};
  pthread_t thread;
  CHECK_INT_EQ(pthread_create(&thread, NULL, produce, &p), 0);
  CHECK_INT_EQ(lw_graph_writes_apply(p.writes, db, &err), LW_OK);
  pthread_join(thread, NULL);
  lw_graph_writes_free(p.writes);
  CHECK_INT_EQ(lw_graph_db_commit(db, &err), LW_OK);
  CHECK_INT_EQ(count_triples(db), want);
  lw_graph_db_close(db);
}

static void test_write_queue(void)
{
  run_queue("queue", 100000, 100000, 90000); /* about 5 MB: batches wait */
  run_queue("stopped", 100000, 25, 22);      /* the producer stopped early */
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static void test_migrate(void)
{
  char graphs[4096], legacy[4200], clean[4200];
  snprintf(graphs, sizeof(graphs), "%s/graphs", dir);
  snprintf(legacy, sizeof(legacy), "%s/old.nq.gz", graphs);
  snprintf(clean, sizeof(clean), "%s/clean.nq", dir);
  char cmd[8300];
  snprintf(cmd, sizeof(cmd), "mkdir -p %s && printf '%s' | gzip > %s", graphs,
           "<http://x/a> <http://p> \"a\" <http://g/old> .\\n"
           "<http://x/b> <http://p> \"b\" <http://g/old> .\\n",
           legacy);
  CHECK_INT_EQ(system(cmd), 0);
  write_file(clean, "<http://x/b> <http://p> \"b2\" .\n");
  /* A database that no import completed (a load killed half way): neither
   * the export's view refresh nor `lodwash graph` take it for the graph. */
  LwGraphDb *db = NULL;
  LwError err;
  CHECK_INT_EQ(lw_graph_db_open(dir, "old", false, &db, &err), LW_OK);
  lw_graph_db_close(db);
  unsigned refreshed = 9;
  CHECK_INT_EQ(lw_graph_view_refresh_all(dir, &refreshed, &err), LW_OK);
  CHECK_INT_EQ(refreshed, 0);
  snprintf(cmd, sizeof(cmd), "zcat %s | grep -q '\"a\"'", legacy);
  CHECK_INT_EQ(system(cmd), 0); /* the old graph file is still whole */
  FILE *devnull = fopen("/dev/null", "w");
  CHECK_INT_EQ(lw_graph_view_print(dir, "old", NULL, devnull, &err), LW_NOTHING);
  fclose(devnull);

  const char *paths[] = {clean};
  LwGraphImportOptions o = {.data_dir = dir,
                            .provider = "old",
                            .graph_iri = "http://g/old",
                            .harvest_id = "h1",
                            .clean_paths = paths,
                            .clean_count = 1};
  LwGraphImportReport r;
  CHECK_INT_EQ(lw_graph_import(&o, &r, &err), LW_OK);
  CHECK_INT_EQ(r.merge.added, 1);
  CHECK_INT_EQ(r.merge.removed, 1);
  CHECK_INT_EQ(r.merge.triples, 2);
  CHECK_INT_EQ(r.merge.subjects, 2);
  CHECK_INT_EQ(lw_graph_db_open(dir, "old", true, &db, &err), LW_OK);
  char *all = dump(db, NULL);
  CHECK_STR_EQ(all, "<http://x/a> <http://p> \"a\"\n<http://x/b> <http://p> \"b2\"\n");
  free(all);
  lw_graph_db_close(db);
  CHECK_INT_EQ(lw_graph_db_open(dir, "none", true, &db, &err), LW_NOTHING);
  lw_graph_db_close(NULL);
}

int main(void)
{
  dir = lw_test_tmpdir();
  test_order();
  test_appends();
  test_write_queue();
  test_migrate();
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
