#include "graph_store/graph_store.h"

#include <ctype.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"

struct LwSparqlStore {
  char *update_url;
  char *gsp_url;
  char *query_url;
  char *userpwd;
  long timeout;
  LwSparqlMode mode;
  int deadlock_tries;
  /* One curl handle per connection, each request taking an idle one: a
   * handle keeps its connection open, and digest authentication answers its
   * challenge once per handle, not once a request. */
  size_t connections;
  CURL **handles; /* all of them, for closing */
  CURL **idle;    /* a stack of idle_count */
  size_t idle_count;
  pthread_mutex_t lock;
  pthread_cond_t released;
};

#define DEFAULT_CONNECTIONS 2
#define MAX_CONNECTIONS 64

/* Sends of a request the store refused as a deadlock, and the first wait
 * between two (doubling): 50 ms to 6.4 s. */
#define DEADLOCK_TRIES 8
#define DEADLOCK_BACKOFF_MS 50

/* A response body, kept up to a cap: it is read for errors and counts. */
typedef LwBuf Body;

#define BODY_CAP (64u * 1024 * 1024)

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
  Body *b = userdata;
  size_t n = size * nmemb;
  if (b->len + n > BODY_CAP || lw_buf_append(b, ptr, n) != LW_OK) {
    return 0; /* curl stops the transfer */
  }
  return n;
}

/* Bytes of a store's error body kept in the error (job error, log, /dead). */
#define STORE_SAID_MAX 200

/* What the store said, fit to print: its error body cut to STORE_SAID_MAX
 * bytes, control characters escaped, and cut before any "Authorization"
 * (a store echoing our request would otherwise put our credentials into
 * the job's error for everyone to read). */
static void store_said(const Body *answer, char *out, size_t size)
{
  size_t len = answer->data ? answer->len : 0;
  if (len > STORE_SAID_MAX) {
    len = STORE_SAID_MAX;
  }
  const char *word = "authorization";
  size_t wl = strlen(word);
  for (size_t i = 0; i + wl <= len; ++i) {
    size_t k = 0;
    while (k < wl && tolower((unsigned char)answer->data[i + k]) == word[k]) {
      ++k;
    }
    if (k == wl) {
      len = i;
      break;
    }
  }
  lw_escape_text(answer->data, len, len, out, size);
  if (len < (answer->data ? answer->len : 0)) {
    size_t n = strlen(out);
    snprintf(out + n, size - n, " [cut]");
  }
}

static char *derive_gsp_url(const char *update_url)
{
  const char *slash = strrchr(update_url, '/');
  size_t keep = slash ? (size_t)(slash - update_url) + 1 : strlen(update_url);
  const char *tail = "sparql-graph-crud-auth";
  char *url = malloc(keep + strlen(tail) + 1);
  if (url) {
    memcpy(url, update_url, keep);
    strcpy(url + keep, tail);
  }
  return url;
}

LwSparqlStore *lw_sparql_open(const LwSparqlOptions *o, LwError *err)
{
  if (!o->update_url) {
    lw_error_set(err, LW_ERR_USAGE, "no SPARQL endpoint configured");
    return NULL;
  }
  LwSparqlStore *s = calloc(1, sizeof(*s));
  if (!s) {
    lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    return NULL;
  }
  s->update_url = strdup(o->update_url);
  s->gsp_url = o->gsp_url ? strdup(o->gsp_url) : derive_gsp_url(o->update_url);
  s->query_url = strdup(o->query_url ? o->query_url : o->update_url);
  if (o->user) {
    size_t n = strlen(o->user) + strlen(o->password ? o->password : "") + 2;
    s->userpwd = malloc(n);
    if (s->userpwd) {
      snprintf(s->userpwd, n, "%s:%s", o->user, o->password ? o->password : "");
    }
  }
  s->timeout = o->timeout_seconds ? o->timeout_seconds : 600;
  s->mode = o->mode;
  s->deadlock_tries = o->deadlock_tries > 0 ? o->deadlock_tries : DEADLOCK_TRIES;
  s->connections = o->connections ? o->connections : DEFAULT_CONNECTIONS;
  if (s->connections > MAX_CONNECTIONS) {
    s->connections = MAX_CONNECTIONS;
  }
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->released, NULL);
  s->handles = calloc(s->connections, sizeof(*s->handles));
  s->idle = calloc(s->connections, sizeof(*s->idle));
  bool handles_ok = s->handles && s->idle;
  for (size_t i = 0; handles_ok && i < s->connections; ++i) {
    s->handles[i] = s->idle[i] = curl_easy_init();
    handles_ok = s->handles[i] != NULL;
  }
  s->idle_count = handles_ok ? s->connections : 0;
  if (!s->update_url || !s->gsp_url || !s->query_url || (o->user && !s->userpwd) ||
      !handles_ok) {
    lw_sparql_close(s);
    lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    return NULL;
  }
  return s;
}

void lw_sparql_close(LwSparqlStore *s)
{
  if (s) {
    free(s->update_url);
    free(s->gsp_url);
    free(s->query_url);
    free(s->userpwd);
    for (size_t i = 0; s->handles && i < s->connections; ++i) {
      if (s->handles[i]) {
        curl_easy_cleanup(s->handles[i]);
      }
    }
    free(s->handles);
    free(s->idle);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->released);
    free(s);
  }
}

/* An idle handle, waiting for one when every connection is busy. */
static CURL *acquire(LwSparqlStore *s)
{
  pthread_mutex_lock(&s->lock);
  while (!s->idle_count) {
    pthread_cond_wait(&s->released, &s->lock);
  }
  CURL *curl = s->idle[--s->idle_count];
  pthread_mutex_unlock(&s->lock);
  return curl;
}

static void release(LwSparqlStore *s, CURL *curl)
{
  pthread_mutex_lock(&s->lock);
  s->idle[s->idle_count++] = curl;
  pthread_cond_signal(&s->released);
  pthread_mutex_unlock(&s->lock);
}

bool lw_sparql_is_deadlock(long http_code, const char *answer)
{
  /* Virtuoso: "Virtuoso 40001 Error SR172: Transaction deadlocked"; 40001
   * is SQL's serialization failure, whose transaction was rolled back. */
  return http_code >= 500 && answer && strstr(answer, "40001 Error");
}

/* POSTs body with content_type to url over curl; the answer lands in
 * *answer and the status in *code. A transport failure or a 5xx is
 * retryable (LW_ERR_STORE), a 4xx is not. */
static LwStatus post_once(LwSparqlStore *s, CURL *curl, const char *url,
                          const char *content_type, const char *accept, const char *body,
                          size_t len, Body *answer, long *code, LwError *err)
{
  char ct[128], ac[128];
  snprintf(ct, sizeof(ct), "Content-Type: %s", content_type);
  snprintf(ac, sizeof(ac), "Accept: %s", accept);
  struct curl_slist *headers = curl_slist_append(NULL, ct);
  headers = curl_slist_append(headers, ac);
  /* No "Expect: 100-continue": stores answer it late or never, and each
   * large POST would wait for curl's timeout first. */
  headers = curl_slist_append(headers, "Expect:");
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, answer);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, s->timeout);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  if (s->userpwd) {
    curl_easy_setopt(curl, CURLOPT_USERPWD, s->userpwd);
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_DIGEST | CURLAUTH_BASIC);
  }
  CURLcode rc = curl_easy_perform(curl);
  *code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, code);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    return lw_error_set(err, LW_ERR_STORE, "store %s: %s", url, curl_easy_strerror(rc));
  }
  if (*code >= 300) {
    LwStatus st = *code >= 500 || *code == 429 ? LW_ERR_STORE : LW_ERR_HTTP;
    char said[STORE_SAID_MAX * 4 + 64];
    store_said(answer, said, sizeof(said));
    return lw_error_set(err, st, "store %s answered %ld: %s", url, *code, said);
  }
  return LW_OK;
}

/* post_once on an idle connection; a request the store refused as a
 * deadlock with a concurrent one (rolled back, so nothing of it applied) is
 * sent again after a short wait, a few times. */
static LwStatus post(LwSparqlStore *s, const char *url, const char *content_type,
                     const char *accept, const char *body, size_t len, Body *answer,
                     LwError *err)
{
  CURL *curl = acquire(s);
  LwStatus st = LW_OK;
  long code = 0, wait_ms = DEADLOCK_BACKOFF_MS;
  for (int try = 1;; ++try, wait_ms *= 2) {
    st = post_once(s, curl, url, content_type, accept, body, len, answer, &code, err);
    if (st == LW_OK || try >= s->deadlock_tries || !lw_sparql_is_deadlock(code, answer->data)) {
      break;
    }
    lw_buf_reset(answer);
    lw_sleep_ms(wait_ms + rand() % wait_ms); /* apart from the request it met */
  }
  release(s, curl);
  return st;
}

/* application/x-www-form-urlencoded: name=ESCAPED(value) */
static char *form(const char *name, const char *value)
{
  char *escaped = curl_easy_escape(NULL, value, 0);
  if (!escaped) {
    return NULL;
  }
  size_t n = strlen(name) + strlen(escaped) + 2;
  char *out = malloc(n);
  if (out) {
    snprintf(out, n, "%s=%s", name, escaped);
  }
  curl_free(escaped);
  return out;
}

LwStatus lw_sparql_update(LwSparqlStore *s, const char *update, LwError *err)
{
  char *body = form("update", update);
  if (!body) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  Body answer = LW_BUF_INIT;
  LwStatus st = post(s, s->update_url, "application/x-www-form-urlencoded", "*/*", body,
                     strlen(body), &answer, err);
  free(body);
  free(answer.data);
  return st;
}

LwStatus lw_sparql_post(LwSparqlStore *s, const char *graph_iri, const char *ntriples,
                        size_t len, LwError *err)
{
  char *graph = curl_easy_escape(NULL, graph_iri, 0);
  if (!graph) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  size_t n = strlen(s->gsp_url) + strlen(graph) + 16;
  char *url = malloc(n);
  LwStatus st = LW_ERR_NOMEM;
  if (url) {
    snprintf(url, n, "%s?graph=%s", s->gsp_url, graph);
    Body answer = LW_BUF_INIT;
    st = post(s, url, "application/n-triples", "*/*", ntriples, len, &answer, err);
    free(answer.data);
    free(url);
  } else {
    lw_error_set(err, st, "out of memory");
  }
  curl_free(graph);
  return st;
}

LwSparqlMode lw_sparql_mode(const LwSparqlStore *s)
{
  return s->mode;
}

size_t lw_sparql_connections(const LwSparqlStore *s)
{
  return s->connections;
}

bool lw_sparql_mode_parse(const char *text, LwSparqlMode *mode)
{
  if (!strcmp(text, "gsp")) {
    *mode = LW_SPARQL_GSP;
  } else if (!strcmp(text, "update")) {
    *mode = LW_SPARQL_UPDATE;
  } else {
    return false;
  }
  return true;
}

LwStatus lw_sparql_select_csv(LwSparqlStore *s, const char *query, char **csv, LwError *err)
{
  char *body = form("query", query);
  if (!body) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  Body answer = LW_BUF_INIT;
  LwStatus st = post(s, s->query_url, "application/x-www-form-urlencoded", "text/csv", body,
                     strlen(body), &answer, err);
  free(body);
  if (st != LW_OK) {
    free(answer.data);
    return st;
  }
  *csv = answer.data ? answer.data : strdup("");
  return *csv ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
}

LwStatus lw_sparql_count(LwSparqlStore *s, const char *query, unsigned long long *count,
                         LwError *err)
{
  char *csv = NULL;
  LW_TRY(lw_sparql_select_csv(s, query, &csv, err));
  /* The header line, then one value. */
  const char *nl = strchr(csv, '\n');
  char *end = NULL;
  unsigned long long value = nl ? strtoull(nl + 1 + (nl[1] == '"'), &end, 10) : 0;
  LwStatus st = end && end != nl + 1 + (nl[1] == '"')
                  ? LW_OK
                  : lw_error_set(err, LW_ERR_STORE, "not a count: %.200s", csv);
  *count = value;
  free(csv);
  return st;
}
