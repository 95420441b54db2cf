/*
 * Stage download: a seed URI becomes a file in the data directory
 * (docs/download.md). The fetching itself is net/net.h; this file
 * is the glue to the queue:
 *
 *   added --> downloading --> filed (+ an unpack job)
 *                         --> filed, unchanged "true" (304 or same MD5:
 *                             no new file, no unpack; the harvest counts it)
 *                         --> an error: the frame retries (net) or fails the
 *                             seed (http, refused, limit, checksum)
 *
 * Job: {"stage":"download","seed":"<hash>","harvest":"<id>"[,"checksum":
 * "sha256:HEX"][,"recheck":"<provider>"]}. The seed may carry `checksum`
 * instead (from VoID spdx:checksum); either is verified.
 *
 * A staleness re-check (the scheduler's, outside any harvest: `recheck`
 * names the seed's provider) only asks whether the dump changed: unchanged
 * (304, same MD5) ends as above; changed marks the provider
 * (provider:<name> dump_changed, scheduler/harvest.h) so that its next
 * visit starts a harvest. The body is kept in DATA/prefetch/ab/cd/<seed
 * hash>, described by the seed's `prefetched` (validators, content, hops);
 * the harvest's download asks with those validators and, when the server
 * says the body is still current, takes it as its file: the changed dump
 * crosses the network once. The seed rests (filed) with `processed` now,
 * its last file and validators unchanged until then. A re-check
 * gives way to a harvest: it does nothing while the seed's harvest runs,
 * and its results are refused when a harvest took the seed meanwhile.
 *
 * Seed fields written: http (each hop's status, and its URI where it is
 * not the seed's: queue/seed_http.h), timestamp {begin, end}, content,
 * processed (ms), file (removed: the body is at the seed's own
 * raw/ab/cd/<hash>, queue/records.h), etag and last_modified (for the next
 * visit), content_type, unchanged ("true"; absent: false), resumed_from
 * (absent: 0); on a failure http, timestamp and retry_after (seconds, when
 * the server sent Retry-After) are written at once, since the frame drops
 * the transaction of a failed job.
 *
 * Politeness: at most per_host_concurrency downloads per host of the seed
 * URI at once across all workers: a Redis sorted set of leases
 * (PREFIXhostslots:<host>, member = job id, score = lease expiry in Redis
 * time), taken and refreshed by one Lua script, dropped when the download
 * ends; a dead worker's lease expires by itself. A worker waits for a slot
 * (up to the total timeout) rather than burning a retry.
 *
 * Files: the body goes to DATA/raw/ab/cd/<seed hash> only when complete and
 * verified; a broken transfer that can be resumed waits in
 * DATA/partial/ab/cd/<seed hash> for the retry.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "files/files.h"
#include "net/net.h"
#include "base/base.h"
#include "queue/harvest.h"
#include "queue/job.h"
#include "queue/lease_set.h"
#include "queue/record.h"
#include "queue/records.h"
#include "queue/redis.h"
#include "queue/seed.h"
#include "queue/seed_http.h"
#include "workers/download_cap.h"
#include "workers/download_many.h"
#include "workers/robots_ahead.h"
#include "politeness/politeness.h"
#include "workers/stage.h"

#define SLOT_REFRESH_MS 10000
#define TURN_STEP_MS 100 /* a waiting transfer looks at its turn this often */
#define ROBOTS_WAIT_MS 35000 /* robots.txt's own timeout (30 s) and a margin */

/* A place among a host's downloads (queue/lease_set.h), with its limit. */
typedef struct {
  char host[512];
  long long limit;
  const char *why; /* the setting, for messages */
  bool held;
  long long refreshed_ms;
} Slot;

typedef struct {
  LwStageCtx *ctx;
  const LwNetGuard *guard;
  Slot host; /* on the host of the request going out */
  long long slot_since_ms; /* waiting for it since */
  long long lease_ms;
  long long max_wait_ms;
  LwHostTurn turn; /* the host's turn, reserved and not yet used */
  bool turn_held;
  long long turn_due_ms; /* lw_now_ms time of the turn */
  bool many;                /* among many transfers: never wait in place */
  long long robots_since_ms; /* waiting for robots.txt read beside since */
} Download;

static long long lease_ms(const LwConfig *cfg)
{
  long long ms = cfg->heartbeat_ttl_s * 3000;
  return ms < 60000 ? 60000 : ms;
}

/* Takes or refreshes the slot: 1 got it, 0 busy, -1 Redis failed. */
static int slot_try(Download *d, Slot *slot, LwError *err)
{
  int got = lw_host_slot_take_fair(d->ctx->redis, d->ctx->config->prefix, slot->host,
                                   d->ctx->job->id, d->ctx->job->harvest, slot->limit,
                                   d->lease_ms, err);
  if (got == 1) {
    slot->refreshed_ms = lw_now_ms();
  }
  return got;
}

static void slot_release(Download *d, Slot *slot)
{
  if (!slot->held) {
    return;
  }
  lw_host_slot_release(d->ctx->redis, d->ctx->config->prefix, slot->host, d->ctx->job->id);
  slot->held = false;
}

/* How long a download waits for a place on a full host before its job is
 * deferred, and how long it is deferred: a few of the host's turns, so that
 * a full host, slow or flooded, never holds a worker for long (the worker
 * goes on with other jobs) and the job loses no attempt. */
static long long defer_after_ms(const LwConfig *cfg)
{
  return cfg->host_interval_ms * 2 > 2000 ? cfg->host_interval_ms * 2 : 2000;
}

static long long defer_for_ms(const LwConfig *cfg)
{
  return cfg->host_interval_ms > 1000 ? cfg->host_interval_ms : 1000;
}

static void slot_refresh(Download *d, Slot *slot)
{
  if (slot->held && lw_now_ms() - slot->refreshed_ms > SLOT_REFRESH_MS) {
    LwError err;
    slot_try(d, slot, &err); /* a failed refresh is not worth a failed download */
  }
}

/* The download's places kept fresh while it runs or waits; false once the
 * worker is told to stop. */
static bool still_going(Download *d)
{
  slot_refresh(d, &d->host);
  lw_download_cap_refresh(d->ctx->redis, d->ctx->config);
  return !lw_stage_stopping(d->ctx);
}

static bool on_progress(void *user, uint64_t bytes, uint64_t total)
{
  Download *d = user;
  if (total) {
    lw_stage_progress(d->ctx, "%.1f MB of %.1f MB", (double)bytes / 1e6,
                      (double)total / 1e6);
  } else {
    lw_stage_progress(d->ctx, "%.1f MB", (double)bytes / 1e6);
  }
  return still_going(d);
}

/* A turn reserved and not used (stopped, timed out) goes back to the host. */
static void turn_give_back(Download *d)
{
  if (d->turn_held) {
    lw_host_turn_give_back(d->ctx->redis, d->ctx->config, &d->turn);
    d->turn_held = false;
  }
}

/* "Not yet": the fetch asks again in ms (net/net.h, before_hop), meanwhile
 * this thread sleeps (lw_fetch) or runs the other transfers (LwFetchMulti). */
static LwStatus not_yet(LwError *err, long long ms)
{
  lw_error_clear(err);
  err->retry_after_ms = ms;
  return LW_NOTHING;
}

/* A place among the host's downloads (per-host-concurrency): 1 held, 0 not
 * yet (waiting, at most max_wait_ms), or an error status (negative). */
static LwStatus slot_for(Download *d, const char *host, LwError *err)
{
  Slot *slot = &d->host;
  if (strcmp(host, slot->host) != 0) { /* a redirect to another host moves it */
    slot_release(d, slot);
    const LwConfig *cfg = d->ctx->config;
    snprintf(slot->host, sizeof(slot->host), "%s", host);
    slot->limit = cfg->per_host_concurrency > 0 ? cfg->per_host_concurrency : 1;
    slot->why = "per-host-concurrency";
    d->slot_since_ms = lw_now_ms();
  }
  if (slot->held) {
    return LW_OK;
  }
  int got = slot_try(d, slot, err);
  if (got == -1) {
    return err->status ? err->status : LW_ERR_REDIS;
  }
  if (got == 1) {
    slot->held = true;
    return LW_OK;
  }
  const LwConfig *cfg = d->ctx->config;
  long long after_ms = defer_after_ms(cfg);
  long long wait_ms = after_ms < d->max_wait_ms ? after_ms : d->max_wait_ms;
  if (lw_now_ms() - d->slot_since_ms >= wait_ms) {
    lw_error_set(err, LW_ERR_NET,
                 "host busy: %lld downloads from %s already running (%s); deferred",
                 slot->limit, slot->host, slot->why);
    err->defer_ms = defer_for_ms(cfg);
    return LW_ERR_NET;
  }
  lw_stage_progress(d->ctx, "waiting for a download slot on %s", slot->host);
  still_going(d);
  return not_yet(err, LW_HOST_SLOT_WAIT_STEP_MS);
}

/* Among many transfers a new origin's robots.txt is read beside them
 * (workers/robots_ahead.h) while this one waits: true once it is known, or
 * after the longest a robots.txt fetch takes (then lw_host_turn_take
 * fetches it itself). */
static bool robots_ready(Download *d, const char *url)
{
  if (lw_robots_known(d->ctx->redis, d->ctx->config, url)) {
    d->robots_since_ms = 0;
    return true;
  }
  long long now = lw_now_ms();
  if (!d->robots_since_ms) {
    d->robots_since_ms = now;
  }
  lw_robots_ahead(d->ctx->config, url); /* nothing when its fetch runs already */
  return now - d->robots_since_ms > ROBOTS_WAIT_MS;
}

/* The host's turn (robots.txt and pace, politeness/politeness.h): reserved
 * once per request, then waited for without holding anything else. */
static LwStatus turn_for(Download *d, const char *url, LwError *err)
{
  if (!d->turn_held && d->many && !robots_ready(d, url)) {
    lw_stage_progress(d->ctx, "waiting for robots.txt of %s", d->host.host);
    still_going(d);
    return not_yet(err, TURN_STEP_MS);
  }
  if (!d->turn_held) {
    LW_TRY(lw_host_turn_take(d->ctx->redis, d->ctx->config, d->guard, url, 0, &d->turn,
                             err));
    d->turn_held = true;
    d->turn_due_ms = lw_now_ms() + d->turn.wait_ms;
    if (d->turn.wait_ms >= 1000) {
      lw_info("host=%s msg=\"waiting %lld ms for the host's turn (one request every %lld "
              "ms: --host-interval-ms or its Crawl-delay)\"",
              d->turn.host, d->turn.wait_ms, d->turn.gap_ms);
    }
  }
  long long left = d->turn_due_ms - lw_now_ms();
  if (left > 0) {
    lw_stage_progress(d->ctx, "waiting for the turn of %s (its pace)", d->turn.host);
    still_going(d);
    return not_yet(err, left < TURN_STEP_MS ? left : TURN_STEP_MS);
  }
  d->turn_held = false; /* used now */
  return LW_OK;
}

/* Before each request, the first and every redirect's: a slot on the host
 * actually asked (a redirect to another host moves the slot there), then
 * its robots.txt and pace. Never blocks: a wait is "not yet" (LW_NOTHING),
 * so a transfer waiting for its host holds no other transfer. A worker told
 * to stop ends the wait (the job is handed back). */
static LwStatus before_hop(void *user, const char *url, LwError *err)
{
  Download *d = user;
  char host[512];
  if (!lw_url_host(url, host, sizeof(host))) {
    return lw_error_set(err, LW_ERR_USAGE, "not a URL with a host: %.300s", url);
  }
  if (lw_stage_stopping(d->ctx)) {
    turn_give_back(d);
    return lw_error_set(err, LW_ERR_NET, "stopped while waiting for the turn of %.300s",
                        host);
  }
  LwStatus st = slot_for(d, host, err);
  if (st != LW_OK) {
    return st;
  }
  return turn_for(d, url, err);
}

static bool file_exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Moves the seed into `downloading` (fenced like the ack). LW_NOTHING:
 * already past this stage, or the job is no longer this worker's. */
static LwStatus enter_downloading(LwStageCtx *ctx, const json_t *seed)
{
  const char *hash = ctx->job->seed;
  const char *status = lw_record_str(seed, "status", "");
  if (!strcmp(lw_record_str(seed, "relative", "false"), "true")) {
    return lw_error_set(ctx->err, LW_ERR_STATE, "a relative URI is never downloaded");
  }
  if (!strcmp(status, "downloading")) {
    return LW_OK; /* a retry, or a run after a crash */
  }
  if (!strcmp(status, "failed")) {
    /* a dead job retried by hand (lodwash jobs retry) */
    LW_TRY(lw_stage_seed_working(ctx, "added"));
    status = "added";
  }
  if (!strcmp(status, "cleaned") || !lw_seed_status_valid(status)) {
    return lw_error_set(ctx->err, LW_ERR_STATE, "seed %s is \"%s\", not a download", hash,
                        status);
  }
  if (strcmp(status, "added") != 0) {
    return LW_NOTHING; /* past this stage already: the job ran twice */
  }
  return lw_stage_seed_working(ctx, "downloading"); /* fenced: LW_NOTHING when lost */
}

typedef struct {
  char raw_path[4096];
  char raw_rel[512];
  char partial_path[4096];
  char prefetch_path[4096]; /* a re-check's body, kept for the harvest */
  char prefetch_rel[512];
  json_t *prefetched; /* the seed's record of it, when usable */
  const char *etag;
  const char *last_modified;
  char previous_hash[LW_HASH_HEX_LEN + 1];
  const char *checksum;
} Paths;

static const char *recheck_of(const LwStageCtx *ctx);

static void set_previous_hash(Paths *p, const json_t *content)
{
  const char *h = json_string_value(json_object_get(content, "hash"));
  if (h && strlen(h) == LW_HASH_HEX_LEN) {
    memcpy(p->previous_hash, h, LW_HASH_HEX_LEN + 1);
  }
}

/* A body a staleness re-check kept (record_changed): the harvest's
 * download asks with its validators, so that the changed dump crosses the
 * network once. Usable while its file is there. */
static bool use_prefetched(const LwStageCtx *ctx, const json_t *seed, Paths *p)
{
  const char *text = lw_record_str(seed, "prefetched", NULL);
  if (recheck_of(ctx) || !text || !file_exists(p->prefetch_path)) {
    return false;
  }
  p->prefetched = json_loads(text, 0, NULL);
  if (!json_is_object(p->prefetched)) {
    json_decref(p->prefetched);
    p->prefetched = NULL;
    return false;
  }
  const char *etag = json_string_value(json_object_get(p->prefetched, "etag"));
  const char *lm = json_string_value(json_object_get(p->prefetched, "last_modified"));
  p->etag = etag && *etag ? etag : NULL;
  p->last_modified = lm && *lm ? lm : NULL;
  set_previous_hash(p, json_object_get(p->prefetched, "content"));
  return true;
}

/* What the last visit left: validators and the content hash count only
 * when its file is still there and it went all the way (clean file or
 * children), else a changed-or-not answer would leave nothing to use. A
 * body a re-check kept comes first. */
static void last_visit(const LwStageCtx *ctx, const json_t *seed, Paths *p)
{
  const char *hash = ctx->job->seed;
  const char *data = ctx->config->data_dir;
  lw_store_path(data, "raw", hash, NULL, p->raw_path, sizeof(p->raw_path));
  lw_store_relpath("raw", hash, NULL, p->raw_rel, sizeof(p->raw_rel));
  lw_store_path(data, "partial", hash, NULL, p->partial_path, sizeof(p->partial_path));
  lw_store_path(data, "prefetch", hash, NULL, p->prefetch_path, sizeof(p->prefetch_path));
  lw_store_relpath("prefetch", hash, NULL, p->prefetch_rel, sizeof(p->prefetch_rel));
  p->checksum = lw_job_get_string(ctx->job, "checksum",
                                  lw_record_str(seed, "checksum", NULL));
  if (use_prefetched(ctx, seed, p)) {
    return;
  }
  bool complete = lw_record_str(seed, "clean", NULL) ||
                  lw_record_str(seed, "children", NULL);
  if (!complete || !file_exists(p->raw_path)) {
    return;
  }
  p->etag = lw_record_str(seed, "etag", NULL);
  p->last_modified = lw_record_str(seed, "last_modified", NULL);
  json_t *content = json_loads(lw_record_str(seed, "content", "{}"), 0, NULL);
  set_previous_hash(p, content);
  json_decref(content);
}

/* The provider a staleness re-check is about, or NULL for a download. */
static const char *recheck_of(const LwStageCtx *ctx)
{
  const char *provider = lw_job_get_string(ctx->job, "recheck", NULL);
  return provider && *provider && !*ctx->job->harvest ? provider : NULL;
}

static void fetch_options(const LwStageCtx *ctx, const Paths *p, const LwNetGuard *guard,
                          Download *d, LwFetchOptions *o)
{
  const LwConfig *cfg = ctx->config;
  memset(o, 0, sizeof(*o));
  o->data_dir = cfg->data_dir;
  o->dest_path = p->raw_path;
  o->partial_path = p->partial_path;
  o->guard = guard;
  o->connect_timeout_ms = cfg->connect_timeout_s * 1000;
  o->timeout_ms = cfg->total_timeout_s * 1000;
  o->low_speed_limit = (long)cfg->low_speed_limit;
  o->low_speed_time = (long)cfg->low_speed_time_s;
  o->max_bytes = cfg->download_max_bytes > 0 ? (uint64_t)cfg->download_max_bytes : 0;
  o->max_redirects = cfg->max_redirects > 0 ? (int)cfg->max_redirects : -1;
  o->contact = cfg->contact;
  /* RDF first: a server that negotiates (a SPARQL endpoint's CONSTRUCT, a
   * Linked Data page) answers in a syntax lodwash reads rather than HTML. */
  o->accept = "application/n-triples, text/turtle;q=0.9, application/n-quads;q=0.9, "
              "application/rdf+xml;q=0.8, application/ld+json;q=0.7, */*;q=0.1";
  if (recheck_of(ctx)) { /* kept aside for the harvest it may start */
    o->dest_path = p->prefetch_path;
    o->partial_path = NULL;
  }
  o->etag = p->etag;
  o->last_modified = p->last_modified;
  o->previous_hash = p->previous_hash[0] ? p->previous_hash : NULL;
  o->checksum = p->checksum;
  o->checksum_source = "declared (the VoID's or catalogue's checksum)";
  o->progress = on_progress;
  o->progress_user = d;
  o->before_hop = before_hop;
  o->before_hop_user = d;
}

/* A field's JSON text: times in seconds to the millisecond (13 digits, the
 * precision of the records' other times), not jansson's 17. */
static char *record_json(const json_t *value)
{
  return value ? json_dumps(value, JSON_COMPACT | JSON_REAL_PRECISION(13)) : NULL;
}

static void txn_json(LwTxn *txn, const char *seed, const char *field, json_t *value)
{
  char *text = record_json(value);
  if (text) {
    lw_txn_seed_set(txn, seed, field, text);
  }
  free(text);
  json_decref(value);
}

static void now_ms_text(char *buf, size_t size)
{
  snprintf(buf, size, "%lld", lw_now_ms());
}

/* Adds the body bytes this fetch transferred to the counters (/metrics:
 * lodwash_bytes_downloaded_total); a resumed download counts its new part. */
static void count_bytes(LwTxn *txn, const LwFetchResult *r)
{
  if (!r->have_content || r->not_modified) {
    return;
  }
  uint64_t n = r->content.number_of_bytes;
  n = n > r->resumed_from ? n - r->resumed_from : 0;
  lw_txn_counter_add(txn, "bytes_downloaded", (long long)n);
}

/* What every download that worked says on its seed, whatever its body's
 * origin: where it resumed, whether it was unchanged, no error left. */
static void record_outcome(LwTxn *txn, const char *seed, uint64_t resumed_from,
                           bool unchanged)
{
  lw_txn_seed_int_or_drop(txn, seed, "resumed_from", (long long)resumed_from);
  lw_txn_seed_set_or_drop(txn, seed, "unchanged", unchanged ? "true" : "false", "false");
  lw_txn_seed_unset(txn, seed, "error");
  lw_txn_seed_unset(txn, seed, "retry_after");
}

/* The results of a download that worked (or found the file unchanged). */
static void record_success(LwStageCtx *ctx, const Paths *p, const LwFetchResult *r,
                           LwStatus st)
{
  LwTxn *txn = ctx->txn;
  const char *seed = ctx->job->seed;
  char now[32];
  now_ms_text(now, sizeof(now));
  txn_json(txn, seed, "http", json_incref(r->http));
  txn_json(txn, seed, "timestamp", lw_fetch_timestamp_json(r));
  if (r->have_content) {
    txn_json(txn, seed, "content", lw_content_meta_json(&r->content));
  }
  lw_txn_seed_set(txn, seed, "processed", now);
  if (st == LW_OK) { /* unchanged: `file` may name unpack's UTF-8 copy */
    lw_txn_seed_file(txn, seed, p->raw_rel);
  }
  /* The validators for the next visit; a 304 may omit them (keep ours). */
  if (r->etag[0]) {
    lw_txn_seed_set(txn, seed, "etag", r->etag);
  } else if (!r->not_modified) {
    lw_txn_seed_unset(txn, seed, "etag");
  }
  if (r->last_modified[0]) {
    lw_txn_seed_set(txn, seed, "last_modified", r->last_modified);
  } else if (!r->not_modified) {
    lw_txn_seed_unset(txn, seed, "last_modified");
  }
  if (r->content_type[0]) {
    lw_txn_seed_set(txn, seed, "content_type", r->content_type);
  }
  record_outcome(txn, seed, r->resumed_from, st == LW_NOTHING);
  count_bytes(txn, r);
  if (st == LW_NOTHING) {
    lw_stage_other(ctx); /* unchanged: filed, nothing to unpack again */
  }
}

/* A staleness re-check found the dump changed: its provider is marked for a
 * harvest; the body stays in DATA/prefetch with its validators on the seed
 * (`prefetched`), for that harvest's download (use_prefetched). The seed
 * keeps the last harvest's validators and content until then. */
static void record_changed(LwStageCtx *ctx, const char *provider, const Paths *p,
                           const LwFetchResult *r)
{
  LwTxn *txn = ctx->txn;
  const char *seed = ctx->job->seed;
  char now[32];
  now_ms_text(now, sizeof(now));
  txn_json(txn, seed, "http", json_incref(r->http));
  lw_txn_seed_set(txn, seed, "processed", now);
  txn_json(txn, seed, "prefetched",
           json_pack("{s:s, s:s, s:s, s:s, s:o?, s:O?, s:o?}", "file", p->prefetch_rel,
                     "etag", r->etag, "last_modified", r->last_modified, "content_type",
                     r->content_type, "content", lw_content_meta_json(&r->content), "http",
                     r->http, "timestamp", lw_fetch_timestamp_json(r)));
  lw_txn_provider_dump_changed(txn, provider, now);
  count_bytes(txn, r);
  lw_stage_other(ctx); /* filed, nothing to unpack: the harvest will */
  lw_info("stage=download seed=%s recheck=changed provider=%s msg=\"the dump changed "
          "without its VoID: the provider's next visit starts a harvest, which uses "
          "this body unless it changed again\"",
          seed, provider);
}

/* The server says the body a re-check kept is still current (304, or the
 * same MD5): it becomes this download's file, recorded as that re-check
 * fetched it, after its MD5 is checked against the record. */
static LwStatus record_prefetched(LwStageCtx *ctx, const Paths *p)
{
  LwTxn *txn = ctx->txn;
  const char *seed = ctx->job->seed;
  const json_t *pf = p->prefetched;
  LwContentMeta meta;
  LW_TRY(lw_content_meta_file(p->prefetch_path, &meta, ctx->err));
  if (strcmp(meta.hash, p->previous_hash) != 0) {
    unlink(p->prefetch_path); /* not what the record says: fetched anew on retry */
    return lw_error_set(ctx->err, LW_ERR_NET,
                        "the body kept by the re-check of %s is not "
                        "the one recorded: it is downloaded again",
                        seed);
  }
  LW_TRY(lw_store_commit(p->prefetch_path, p->raw_path, ctx->err));
  char now[32];
  now_ms_text(now, sizeof(now));
  txn_json(txn, seed, "http", json_incref(json_object_get(pf, "http")));
  txn_json(txn, seed, "timestamp", json_incref(json_object_get(pf, "timestamp")));
  txn_json(txn, seed, "content", lw_content_meta_json(&meta));
  lw_txn_seed_set(txn, seed, "processed", now);
  lw_txn_seed_file(txn, seed, p->raw_rel);
  static const char *const copied[] = {"etag", "last_modified", "content_type"};
  for (size_t i = 0; i < sizeof(copied) / sizeof(*copied); ++i) {
    const char *v = json_string_value(json_object_get(pf, copied[i]));
    if (v && *v) {
      lw_txn_seed_set(txn, seed, copied[i], v);
    } else {
      lw_txn_seed_unset(txn, seed, copied[i]);
    }
  }
  record_outcome(txn, seed, 0, false);
  lw_txn_seed_unset(txn, seed, "prefetched");
  lw_info("stage=download seed=%s prefetched=true bytes=%llu msg=\"the body the re-check "
          "kept is current: not transferred again\"",
          seed, (unsigned long long)meta.number_of_bytes);
  return LW_OK;
}

/* A failed job's transaction is dropped: what HTTP said goes on now. */
static void record_failure(LwStageCtx *ctx, const LwFetchResult *r)
{
  const char *prefix = ctx->config->prefix;
  const char *seed = ctx->job->seed;
  LwError ignored;
  char *http = record_json(r->http);
  json_t *ts = lw_fetch_timestamp_json(r);
  char *tstext = record_json(ts);
  if (http) {
    lw_seed_set(ctx->redis, prefix, seed, "http", http, &ignored);
  }
  if (tstext) {
    lw_seed_set(ctx->redis, prefix, seed, "timestamp", tstext, &ignored);
  }
  if (r->retry_after >= 0) {
    ctx->err->retry_after_ms = (long long)r->retry_after *
                               1000; /* the queue waits that long */
    char secs[32];
    snprintf(secs, sizeof(secs), "%ld", r->retry_after);
    lw_seed_set(ctx->redis, prefix, seed, "retry_after", secs, &ignored);
  }
  free(http);
  free(tstext);
  json_decref(ts);
}

/* One download job from its start to its record: the transfer's state
 * lives here while it runs (in this thread's lw_fetch, or among many in a
 * LwFetchMulti). */
struct LwDownload {
  LwStageCtx *ctx;
  LwNetGuard *guard;
  Paths p;
  Download d;
  LwFetchOptions o;
  LwFetchResult r;
  char *uri;
  json_t *seed; /* the record: p's validators point into it */
};

static void download_free(LwDownload *dl)
{
  if (!dl) {
    return;
  }
  lw_fetch_result_clear(&dl->r);
  lw_netguard_free(dl->guard);
  json_decref(dl->p.prefetched);
  json_decref(dl->seed);
  free(dl->uri);
  free(dl);
}

/* Everything the transfer needs, from the seed: paths, validators,
 * options. */
static LwStatus download_new(LwStageCtx *ctx, const json_t *seed, const char *uri,
                             LwDownload **out)
{
  char host[512];
  if (!lw_url_host(uri, host, sizeof(host))) {
    return lw_error_set(ctx->err, LW_ERR_USAGE, "not a URL with a host: %.300s", uri);
  }
  LwDownload *dl = calloc(1, sizeof(*dl));
  if (!dl || !(dl->uri = strdup(uri))) {
    free(dl);
    return lw_error_set(ctx->err, LW_ERR_NOMEM, "out of memory");
  }
  dl->ctx = ctx;
  dl->r.retry_after = -1;
  LwStatus st = lw_netguard_new(ctx->config->allow_net, &dl->guard, ctx->err);
  if (st != LW_OK) {
    download_free(dl);
    return st;
  }
  dl->seed = json_incref((json_t *)seed);
  last_visit(ctx, seed, &dl->p);
  const LwConfig *cfg = ctx->config;
  dl->d.ctx = ctx;
  dl->d.guard = dl->guard;
  dl->d.lease_ms = lease_ms(cfg);
  dl->d.max_wait_ms = cfg->total_timeout_s > 0 ? cfg->total_timeout_s * 1000 : 600000;
  fetch_options(ctx, &dl->p, dl->guard, &dl->d, &dl->o);
  *out = dl;
  return LW_OK;
}

/* The hops as the seed keeps them (queue/seed_http.h): each one's status,
 * and its URI where it is not the seed's; the headers that matter are
 * fields of their own. */
static void keep_short_hops(json_t **hops, const char *uri)
{
  json_t *short_hops = lw_seed_http_compact(*hops, uri);
  if (short_hops) {
    json_decref(*hops);
    *hops = short_hops;
  }
}

/* After the transfer ended with st: the seed's results (in the txn, or at
 * once for a failure). Returns the stage's status; frees dl. */
static LwStatus download_record(LwDownload *dl, LwStatus st)
{
  LwStageCtx *ctx = dl->ctx;
  const Paths *p = &dl->p;
  const LwFetchResult *r = &dl->r;
  keep_short_hops(&dl->r.http, dl->uri);
  json_t *kept_hops = json_object_get(p->prefetched, "http");
  if (kept_hops) { /* a re-check's, written whole before issue 27 */
    json_object_set_new(p->prefetched, "http", lw_seed_http_compact(kept_hops, dl->uri));
  }
  turn_give_back(&dl->d);
  slot_release(&dl->d, &dl->d.host);
  if (st == LW_OK && recheck_of(ctx)) {
    record_changed(ctx, recheck_of(ctx), p, r);
  } else if (st == LW_NOTHING && p->prefetched) {
    st = record_prefetched(ctx, p);
  } else if (st <= LW_NOTHING) {
    if (p->prefetched) { /* changed again since the re-check */
      unlink(p->prefetch_path);
      lw_txn_seed_unset(ctx->txn, ctx->job->seed, "prefetched");
    }
    record_success(ctx, p, r, st);
    /* unchanged is a result too (lw_stage_other): the frame records it */
    lw_info("stage=download seed=%s status=%ld bytes=%llu hops=%zu unchanged=%s "
            "resumed_from=%llu ms=%.0f",
            ctx->job->seed, r->status, (unsigned long long)r->content.number_of_bytes,
            json_array_size(r->http), st == LW_NOTHING ? "true" : "false",
            (unsigned long long)r->resumed_from, (r->end - r->begin) * 1000);
  } else if (ctx->err->defer_ms <= 0) {
    record_failure(ctx, r);
  } /* deferred: no request went out, the seed's last one stays on record */
  download_free(dl);
  return st == LW_NOTHING ? LW_OK : st;
}

/* The seed hash names files: 32 hex digits, nothing else. */
static bool is_hash(const char *s)
{
  size_t n = 0;
  for (; s[n]; ++n) {
    if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f'))) {
      return false;
    }
  }
  return n == LW_HASH_HEX_LEN;
}

/* A staleness re-check gives way to a harvest: none while the seed's
 * harvest runs (LW_NOTHING: that harvest downloads it), and its results
 * only while the seed still belongs to the harvest it had (a harvest that
 * starts meanwhile takes the seed; then they are refused). */
static LwStatus recheck_gives_way(LwStageCtx *ctx, const json_t *seed)
{
  const char *owner = lw_record_str(seed, "harvest", "");
  if (!recheck_of(ctx) || !*owner) {
    return LW_OK;
  }
  json_t *h = NULL;
  LwStatus st = lw_records_harvest_get(ctx->redis, ctx->config->prefix, owner, &h,
                                       ctx->err);
  if (st > LW_NOTHING) {
    return st;
  }
  bool running = !strcmp(lw_record_str(h, "status", ""), "running");
  json_decref(h);
  if (running) {
    lw_info("stage=download seed=%s recheck=skipped harvest=%s msg=\"a harvest of the "
            "provider runs: it downloads the dump\"",
            ctx->job->seed, owner);
    return LW_NOTHING;
  }
  lw_txn_harvest_owns(ctx->txn, owner, ctx->job->seed);
  return LW_OK;
}

/* The checks before a transfer: a seed hash, the seed, a re-check giving
 * way, the seed's move to downloading. LW_OK with *out: ready for the
 * transfer; else the job ends with that status. */
static LwStatus download_begin(LwStageCtx *ctx, LwDownload **out)
{
  *out = NULL;
  if (!is_hash(ctx->job->seed)) {
    return lw_error_set(ctx->err, LW_ERR_USAGE,
                        "download job without a seed hash: \"%.64s\"", ctx->job->seed);
  }
  json_t *seed = NULL;
  LwStatus st = lw_seed_get(ctx->redis, ctx->config->prefix, ctx->job->seed, &seed,
                            ctx->err);
  if (st == LW_NOTHING) {
    return lw_error_set(ctx->err, LW_ERR_STATE, "no seed %s", ctx->job->seed);
  }
  if (st == LW_OK) {
    st = recheck_gives_way(ctx, seed);
  }
  if (st == LW_OK) {
    st = enter_downloading(ctx, seed);
  }
  if (st == LW_OK) {
    st = download_new(ctx, seed, lw_record_str(seed, "uri", ""), out);
  }
  json_decref(seed);
  return st;
}

LwStatus lw_stage_download_run(LwStageCtx *ctx)
{
  LwDownload *dl = NULL;
  LwStatus st = download_begin(ctx, &dl);
  if (st != LW_OK) {
    return st;
  }
  st = lw_fetch(dl->uri, &dl->o, &dl->r, ctx->err);
  return download_record(dl, st);
}

LwStatus lw_download_start(LwStageCtx *ctx, LwFetchMulti *multi, void *user,
                           LwDownload **out)
{
  LwDownload *dl = NULL;
  LwStatus st = download_begin(ctx, &dl);
  if (st != LW_OK) {
    return st;
  }
  dl->d.many = true;
  st = lw_fetch_multi_add(multi, dl->uri, &dl->o, &dl->r, ctx->err, user);
  if (st != LW_OK) {
    return download_record(dl, st);
  }
  *out = dl;
  return LW_OK;
}

LwStatus lw_download_end(LwDownload *dl, LwStatus fetch_status)
{
  return download_record(dl, fetch_status);
}
