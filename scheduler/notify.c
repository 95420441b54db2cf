#include "scheduler/notify.h"

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "net/net.h"
#include "queue/job.h"
#include "queue/records.h"
#include "queue/record.h"
#include "report/provider_report.h"

typedef struct {
  const LwNetGuard *guard;
  char refused[LW_ERROR_MESSAGE_MAX];
} Guard;

/* The address rules, on the socket libcurl is about to connect. */
static curl_socket_t open_socket(void *clientp, curlsocktype purpose,
                                 struct curl_sockaddr *address)
{
  Guard *g = clientp;
  LwError err;
  if (purpose != CURLSOCKTYPE_IPCXN) {
    snprintf(g->refused, sizeof(g->refused), "not a TCP connection");
    return CURL_SOCKET_BAD;
  }
  if (lw_netguard_check_sockaddr(g->guard, &address->addr, &err) != LW_OK) {
    snprintf(g->refused, sizeof(g->refused), "%s", err.message);
    return CURL_SOCKET_BAD;
  }
  return socket(address->family, address->socktype, address->protocol);
}

static size_t discard(char *ptr, size_t size, size_t n, void *user)
{
  (void)ptr;
  (void)user;
  return size * n;
}

/* POSTs body to url; *http gets the answer's status (0: none). LW_OK on 2xx,
 * else an error with err set. */
static LwStatus post_json(const LwConfig *cfg, const char *url, const char *body,
                          long timeout_ms, long *http, LwError *err)
{
  *http = 0;
  LW_TRY(lw_netguard_check_scheme(url, err));
  Guard g = {NULL, ""};
  LwNetGuard *guard = NULL;
  LW_TRY(lw_netguard_new(cfg->allow_net, &guard, err));
  g.guard = guard;
  CURL *curl = curl_easy_init();
  struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
  char agent[512];
  lw_config_user_agent(cfg, agent, sizeof(agent));
  LwStatus st = LW_OK;
  if (!curl || !headers) {
    st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  } else {
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, agent);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    long connect_ms = cfg->connect_timeout_s * 1000;
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                     connect_ms > 0 && connect_ms < timeout_ms ? connect_ms : timeout_ms);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, &g);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, http);
    if (g.refused[0]) {
      st = lw_error_set(err, LW_ERR_REFUSED, "refused: %s", g.refused);
    } else if (rc != CURLE_OK) {
      st = lw_error_set(err, LW_ERR_NET, "%s", curl_easy_strerror(rc));
    } else if (*http < 200 || *http > 299) {
      st = lw_error_set(err, LW_ERR_HTTP, "HTTP %ld from %s", *http, url);
    }
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  lw_netguard_free(guard);
  return st;
}

/* The delay before attempt n+1 (n attempts made): the queue's backoff. */
static long long backoff_ms(const LwConfig *cfg, long long n)
{
  long long d = cfg->retry_base_ms;
  for (long long i = 1; i < n && d < cfg->retry_max_ms; ++i) {
    d *= 2;
  }
  return d < cfg->retry_max_ms ? d : cfg->retry_max_ms;
}

/* Writes the attempt's outcome on the harvest record. */
static LwStatus record(LwRecords *c, const char *id, const LwConfig *cfg, const char *url,
                       long long attempts, long http, const LwError *failure, LwError *err)
{
  bool sent = failure == NULL;
  bool again = !sent && attempts < cfg->max_attempts;
  char n[32], at[32], next[32], status[16];
  long long now = lw_now_ms();
  snprintf(n, sizeof(n), "%lld", attempts);
  snprintf(at, sizeof(at), "%lld", now);
  snprintf(next, sizeof(next), "%lld", again ? now + backoff_ms(cfg, attempts) : 0);
  snprintf(status, sizeof(status), "%ld", http);
  const char *fields[] = {"notify_status",   sent ? "sent" : again ? "retrying" : "failed",
                          "notify_attempts", n,
                          "notify_at",       at,
                          "notify_next",     next,
                          "notify_http",     http ? status : "",
                          "notify_error",    sent ? "" : failure->message,
                          "notify_url",      url};
  return lw_records_harvest_set_fields(c, cfg->prefix, id, fields,
                                       sizeof(fields) / sizeof(*fields), err);
}

/* POSTs in flight per cycle at most (a thread each); reports beyond stay
 * due for the next cycle. */
#define NOTIFY_PER_CYCLE 64

/* One report to send: read from Redis before, POSTed on a thread of its
 * own, recorded on Redis after. */
typedef struct {
  const LwConfig *cfg;
  const LwProvider *p;
  char id[512];
  long long attempts; /* made before this one */
  char *body;
  long timeout_ms;
  pthread_t thread;
  bool started;
  long http; /* out */
  LwStatus sent;
  LwError failure;
} Report;

struct LwNotifyBatch {
  const LwConfig *cfg;
  Report *reports;
  size_t count;
};

/* The report of p's latest harvest if it ended and a POST is due: LW_OK
 * with r filled, LW_NOTHING when nothing is to be sent. */
static LwStatus prepare(LwRecords *c, const LwConfig *cfg, const LwProvider *p, Report *r,
                        LwError *err)
{
  json_t *state = NULL;
  LwStatus st = lw_records_provider_get(c, cfg->prefix, p->name, &state, err);
  if (st != LW_OK) {
    return st;
  }
  snprintf(r->id, sizeof(r->id), "%s", lw_record_str(state, "harvest", ""));
  json_decref(state);
  json_t *h = NULL;
  st = *r->id ? lw_records_harvest_get(c, cfg->prefix, r->id, &h, err) : LW_NOTHING;
  if (st != LW_OK) {
    return st;
  }
  const char *status = lw_record_str(h, "status", "");
  const char *sent = lw_record_str(h, "notify_status", "");
  bool ended = !strcmp(status, "done") || !strcmp(status, "failed");
  bool due = !strcmp(sent, "") || (!strcmp(sent, "retrying") &&
                                   lw_record_int(h, "notify_next", 0) <= lw_now_ms());
  r->attempts = lw_record_int(h, "notify_attempts", 0);
  json_decref(h);
  if (!ended || !due) {
    return LW_NOTHING;
  }
  json_t *report = NULL;
  LW_TRY(lw_harvest_report_json(c, cfg->prefix, r->id, &report, err));
  r->body = json_dumps(report, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(report);
  r->cfg = cfg;
  r->p = p;
  return r->body ? LW_OK : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
}

static void *post_thread(void *arg)
{
  Report *r = arg;
  lw_error_clear(&r->failure);
  r->sent = post_json(r->cfg, r->p->notify_url, r->body, r->timeout_ms, &r->http,
                      &r->failure);
  return NULL;
}

LwNotifyBatch *lw_notify_begin(LwRecords *c, const LwConfig *cfg, const LwRegistry *reg,
                               long timeout_ms, LwError *err)
{
  LwNotifyBatch *b = calloc(1, sizeof(*b));
  if (b) {
    b->cfg = cfg;
    b->reports = calloc(reg->count ? reg->count : 1, sizeof(*b->reports));
  }
  if (!b || !b->reports) {
    free(b);
    lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    return NULL;
  }
  for (size_t i = 0; i < reg->count && b->count < NOTIFY_PER_CYCLE; ++i) {
    if (!reg->providers[i].notify_url) {
      continue;
    }
    Report *r = &b->reports[b->count];
    LwStatus st = prepare(c, cfg, &reg->providers[i], r, err);
    if (st == LW_OK) {
      r->timeout_ms = timeout_ms;
      r->started = pthread_create(&r->thread, NULL, post_thread, r) == 0;
      if (!r->started) { /* no thread: send it here, as before */
        post_thread(r);
      }
      ++b->count;
    } else if (st == LW_ERR_REDIS) {
      free(r->body);
      lw_notify_end(c, b, NULL);
      return NULL;
    } else if (st != LW_NOTHING) { /* this provider's report only: the rest go */
      lw_warn("provider=%s notify=%s outcome=skipped error=\"%s\"", reg->providers[i].name,
              reg->providers[i].notify_url, err ? err->message : "");
      free(r->body);
      memset(r, 0, sizeof(*r));
    }
  }
  return b;
}

LwStatus lw_notify_end(LwRecords *c, LwNotifyBatch *b, LwError *err)
{
  if (!b) {
    return LW_OK;
  }
  LwStatus out = LW_OK;
  for (size_t i = 0; i < b->count; ++i) {
    Report *r = &b->reports[i];
    if (r->started) {
      pthread_join(r->thread, NULL);
    }
    bool ok = r->sent == LW_OK;
    lw_log(ok ? LW_LOG_INFO : LW_LOG_WARN,
           "provider=%s harvest=%s notify=%s outcome=%s http=%ld attempt=%lld error=\"%s\"",
           r->p->name, r->id, r->p->notify_url, ok ? "sent" : "failed", r->http,
           r->attempts + 1, r->failure.message);
    if (out == LW_OK) {
      out = record(c, r->id, b->cfg, r->p->notify_url, r->attempts + 1, r->http,
                   ok ? NULL : &r->failure, err);
    }
    free(r->body);
  }
  free(b->reports);
  free(b);
  return out;
}
