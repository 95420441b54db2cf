/* A SPARQL store's error body is other people's text (issue 24, item 7): it
 * reaches the job's error, the log and /dead cut short, with its control
 * characters escaped and nothing from an "Authorization" on (a store that
 * echoes the request would otherwise show our credentials). Compared with a
 * store answering a plain, short error. The fake store is lodwash's own
 * HTTP service on loopback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_store/graph_store.h"
#include "net/net.h"
#include "tests/support/check.h"

static void store(void *handle, const LwHttpRequest *req, LwHttpPage *p)
{
  (void)req;
  const char *said = handle;
  p->status = 500;
  p->body = strdup(said);
}

/* The error of an update sent to a store answering 500 with said. */
static void update_error(const char *said, LwError *err)
{
  lw_error_clear(err);
  LwHttpService *s = lw_http_service_start("127.0.0.1", 0, store, (void *)said, err);
  CHECK(s != NULL);
  if (!s) {
    return;
  }
  char url[128];
  snprintf(url, sizeof(url), "http://127.0.0.1:%d/sparql", lw_http_service_port(s));
  LwSparqlOptions o = {.update_url = url,
                       .user = "dba",
                       .password = "s3cret",
                       .timeout_seconds = 30,
                       .deadlock_tries = 1};
  LwSparqlStore *st = lw_sparql_open(&o, err);
  CHECK(st != NULL);
  if (st) {
    CHECK_INT_EQ(lw_sparql_update(st, "CLEAR GRAPH <http://g>", err), LW_ERR_STORE);
  }
  lw_sparql_close(st);
  lw_http_service_stop(s);
}

int main(void)
{
  LwError plain;
  update_error("Virtuoso 42000 Error: out of stack", &plain);
  CHECK(strstr(plain.message, "answered 500: Virtuoso 42000 Error: out of stack") != NULL);

  char *hostile = malloc(64 * 1024);
  int n = snprintf(hostile, 1024,
                   "bad request\n2026-01-01T00:00:00.000Z error lodwash-worker forged=1\n"
                   "\x1b[2JAuthorization: Basic ZGJhOnMzY3JldA==\n");
  memset(hostile + n, 'x', 60 * 1024);
  hostile[n + 60 * 1024] = '\0';
  LwError err;
  update_error(hostile, &err);
  CHECK(strstr(err.message, "answered 500: bad request\\n2026-01-01T00:00:00.000Z") !=
        NULL);
  CHECK(strchr(err.message, '\n') == NULL);
  CHECK(strchr(err.message, '\x1b') == NULL);
  CHECK(strstr(err.message, "ZGJhOnMzY3JldA") == NULL);
  CHECK(strstr(err.message, "Authorization") == NULL);
  CHECK(strstr(err.message, "[cut]") != NULL);
  CHECK(strlen(err.message) < strlen(plain.message) + 400);
  free(hostile);
  return lw_test_finish();
}
