#include "politeness/politeness.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "net/net.h"
#include "queue/host_store.h"
#include "queue/job.h"

#define ROBOTS_AGENT "lodwash"
#define ROBOTS_MAX_BYTES (512 * 1024) /* RFC 9309: at least 500 KiB are read */
#define ROBOTS_TIMEOUT_MS 30000L
#define ROBOTS_UNREACHABLE_TTL_S 600

typedef struct {
  char origin[1200]; /* scheme://host:port */
  char host[512];
  char path[4096]; /* path and query */
} UrlParts;

static bool url_parts(const char *url, UrlParts *out)
{
  CURLU *u = curl_url();
  char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL, *query = NULL;
  bool ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK;
  if (ok) {
    curl_url_get(u, CURLUPART_QUERY, &query, 0);
    for (char *c = host; *c; ++c) {
      *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
    }
    snprintf(out->origin, sizeof(out->origin), "%s://%s:%s", scheme, host, port);
    snprintf(out->host, sizeof(out->host), "%s", host);
    snprintf(out->path, sizeof(out->path), "%s%s%s", path, query ? "?" : "",
             query ? query : "");
  }
  curl_free(scheme);
  curl_free(host);
  curl_free(port);
  curl_free(path);
  curl_free(query);
  curl_url_cleanup(u);
  return ok;
}

/* url's host (or its origin) into buf; false when it has no host. */
static bool url_host_part(const char *url, bool origin, char *buf, size_t size)
{
  UrlParts p;
  if (!url_parts(url, &p) || !p.host[0]) {
    return false;
  }
  snprintf(buf, size, "%s", origin ? p.origin : p.host);
  return true;
}

bool lw_url_host(const char *url, char *buf, size_t size)
{
  return url_host_part(url, false, buf, size);
}

bool lw_url_origin(const char *url, char *buf, size_t size)
{
  return url_host_part(url, true, buf, size);
}

/* Fetches origin's robots.txt: state "ok" (with *body), "none" (4xx or
 * too large: everything allowed) or "unreachable". */
static const char *robots_fetch(const LwConfig *cfg, const LwNetGuard *guard,
                                const char *origin, long timeout_ms, char **body,
                                size_t *len)
{
  char url[1300];
  snprintf(url, sizeof(url), "%s/robots.txt", origin);
  LwFetchOptions o;
  memset(&o, 0, sizeof(o));
  o.data_dir = cfg->data_dir;
  o.guard = guard;
  o.connect_timeout_ms = cfg->connect_timeout_s > 0 ? cfg->connect_timeout_s * 1000 : 0;
  o.timeout_ms = timeout_ms > 0 && timeout_ms < ROBOTS_TIMEOUT_MS ? timeout_ms
                                                                  : ROBOTS_TIMEOUT_MS;
  o.max_redirects = 5;
  o.contact = cfg->contact && *cfg->contact ? cfg->contact : NULL;
  o.accept = "text/plain";
  LwFetchResult r;
  memset(&r, 0, sizeof(r));
  LwError err;
  lw_error_clear(&err);
  LwStatus st = lw_fetch_small(url, &o, ROBOTS_MAX_BYTES, body, len, &r, &err);
  lw_fetch_result_clear(&r);
  if (st == LW_OK) {
    return "ok";
  }
  return st == LW_ERR_NET ? "unreachable" : "none";
}

/* The robots.txt of origin, from the cache or fetched and cached:
 * *state as robots_fetch, *body (caller frees) when ok. */
static LwStatus robots_get(LwRecords *c, const LwConfig *cfg, const LwNetGuard *guard,
                           const char *origin, long timeout_ms, char state[16], char **body,
                           size_t *len, LwError *err)
{
  LwStatus cached = lw_robots_cache_get(c, cfg->prefix, origin, state, body, len, err);
  if (cached != LW_NOTHING) {
    return cached;
  }
  snprintf(state, 16, "%s", robots_fetch(cfg, guard, origin, timeout_ms, body, len));
  long long ttl = !strcmp(state, "unreachable") &&
                      cfg->robots_ttl_s > ROBOTS_UNREACHABLE_TTL_S
                    ? ROBOTS_UNREACHABLE_TTL_S
                    : cfg->robots_ttl_s;
  lw_robots_cache_put(c, cfg->prefix, origin, state, *body, *len, ttl, err);
  return LW_OK;
}

/* robots.txt's word on p: LW_OK (with the Crawl-delay, -1 none), or why not. */
static LwStatus robots_check(LwRecords *c, const LwConfig *cfg, const LwNetGuard *guard,
                             const UrlParts *p, const char *url, long timeout_ms,
                             long *delay_ms, LwError *err)
{
  *delay_ms = -1;
  if (cfg->robots_ttl_s <= 0 || !strcmp(p->path, "/robots.txt")) {
    return LW_OK;
  }
  char state[16] = "";
  char *body = NULL;
  size_t len = 0;
  LW_TRY(robots_get(c, cfg, guard, p->origin, timeout_ms, state, &body, &len, err));
  LwStatus st = LW_OK;
  if (!strcmp(state, "unreachable")) {
    st = lw_error_set(err, LW_ERR_NET,
                      "robots.txt of %.500s cannot be read now: nothing is fetched from it "
                      "until it can",
                      p->origin);
  } else if (!strcmp(state, "ok")) {
    LwRobots *robots = lw_robots_parse(body ? body : "", body ? len : 0, ROBOTS_AGENT);
    if (!robots) {
      st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    } else if (!lw_robots_allowed(robots, p->path)) {
      st = lw_error_set(err, LW_ERR_REFUSED,
                        "disallowed by robots.txt (%.500s/robots.txt): %.1000s", p->origin,
                        url);
    } else {
      *delay_ms = lw_robots_crawl_delay_ms(robots);
    }
    lw_robots_free(robots);
  }
  free(body);
  return st;
}

/* The origins this process found known lately: a download among many asks
 * before each request, and lw_host_turn_take reads the entry right after
 * anyway, so a known origin is asked again only after a minute (an entry
 * lives --robots-ttl, a day by default; one that went meanwhile is fetched
 * by lw_host_turn_take itself, as after the wait for it). */
#define KNOWN_SLOTS 256
#define KNOWN_FOR_MS 60000

static struct {
  char origin[256];
  long long at;
} known[KNOWN_SLOTS];
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t known_slot(const char *origin)
{
  uint32_t h = 2166136261u; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)origin; *p; ++p) {
    h = (h ^ *p) * 16777619u;
  }
  return h % KNOWN_SLOTS;
}

static bool known_lately(const char *origin)
{
  size_t i = known_slot(origin);
  pthread_mutex_lock(&known_lock);
  bool yes = !strcmp(known[i].origin, origin) && lw_now_ms() - known[i].at < KNOWN_FOR_MS;
  pthread_mutex_unlock(&known_lock);
  return yes;
}

static void known_now(const char *origin)
{
  if (strlen(origin) >= sizeof(known[0].origin)) {
    return; /* asked each time */
  }
  size_t i = known_slot(origin);
  pthread_mutex_lock(&known_lock);
  snprintf(known[i].origin, sizeof(known[i].origin), "%s", origin);
  known[i].at = lw_now_ms();
  pthread_mutex_unlock(&known_lock);
}

bool lw_robots_known(LwRecords *c, const LwConfig *cfg, const char *url)
{
  UrlParts p;
  if (cfg->robots_ttl_s <= 0 || !url_parts(url, &p) || !strcmp(p.path, "/robots.txt")) {
    return true;
  }
  if (known_lately(p.origin)) {
    return true;
  }
  char state[16] = "";
  LwError err;
  LwStatus st = lw_robots_cache_get(c, cfg->prefix, p.origin, state, NULL, NULL, &err);
  if (st == LW_OK) {
    known_now(p.origin);
  }
  return st != LW_NOTHING; /* a Redis error: lw_host_turn_take will say it */
}

LwStatus lw_robots_fetch(LwRecords *c, const LwConfig *cfg, const LwNetGuard *guard,
                         const char *url, LwError *err)
{
  UrlParts p;
  if (!url_parts(url, &p) || !p.host[0]) {
    return lw_error_set(err, LW_ERR_USAGE, "not a URL with a host: %.300s", url);
  }
  char state[16] = "";
  char *body = NULL;
  size_t len = 0;
  LwStatus st = robots_get(c, cfg, guard, p.origin, 0, state, &body, &len, err);
  free(body);
  return st;
}

#define TURN_POLL_MS 100

LwStatus lw_host_turn_take(LwRecords *c, const LwConfig *cfg, const LwNetGuard *guard,
                           const char *url, long robots_timeout_ms, LwHostTurn *turn,
                           LwError *err)
{
  memset(turn, 0, sizeof(*turn));
  UrlParts p;
  if (!url_parts(url, &p) || !p.host[0]) {
    return lw_error_set(err, LW_ERR_USAGE, "not a URL with a host: %.300s", url);
  }
  snprintf(turn->host, sizeof(turn->host), "%s", p.host);
  long delay = -1;
  LW_TRY(robots_check(c, cfg, guard, &p, url, robots_timeout_ms, &delay, err));
  turn->gap_ms = cfg->host_interval_ms > delay ? cfg->host_interval_ms : delay;
  if (turn->gap_ms <= 0) {
    turn->gap_ms = 0;
    return LW_OK;
  }
  return lw_host_pace_reserve(c, cfg->prefix, p.host, turn->gap_ms, &turn->wait_ms,
                              &turn->next_ms, err);
}

void lw_host_turn_give_back(LwRecords *c, const LwConfig *cfg, const LwHostTurn *turn)
{
  if (turn->gap_ms > 0) {
    lw_host_pace_give_back(c, cfg->prefix, turn->host, turn->next_ms, turn->gap_ms);
  }
}

LwStatus lw_host_turn_wait(LwRecords *c, const LwConfig *cfg, const LwHostTurn *turn,
                           bool (*keep_waiting)(void *user), void *user, LwError *err)
{
  /* In short steps: a worker told to stop (SIGTERM) must not sit out a
   * long Crawl-delay; its turn then goes to the next one. */
  for (long long left = turn->wait_ms; left > 0; left -= TURN_POLL_MS) {
    if (keep_waiting && !keep_waiting(user)) {
      lw_host_turn_give_back(c, cfg, turn);
      return lw_error_set(err, LW_ERR_NET, "stopped while waiting for the turn of %.300s",
                          turn->host);
    }
    lw_sleep_ms(left < TURN_POLL_MS ? left : TURN_POLL_MS);
  }
  return LW_OK;
}

LwStatus lw_host_policy_check(LwRecords *c, const LwConfig *cfg, const LwNetGuard *guard,
                              const char *url, bool (*keep_waiting)(void *user), void *user,
                              LwError *err)
{
  LwHostTurn turn;
  LW_TRY(lw_host_turn_take(c, cfg, guard, url, 0, &turn, err));
  if (turn.wait_ms >= 1000) {
    lw_info("host=%s msg=\"waiting %lld ms for the host's turn (one request every %lld ms: "
            "--host-interval-ms or its Crawl-delay)\"",
            turn.host, turn.wait_ms, turn.gap_ms);
  }
  return lw_host_turn_wait(c, cfg, &turn, keep_waiting, user, err);
}
