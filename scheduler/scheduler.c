#include "scheduler/scheduler.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "queue/heartbeat.h"
#include "queue/controls.h"
#include "queue/job.h"
#include "queue/pipeline.h"
#include "queue/queue.h"
#include "queue/redis.h"
#include "queue/retention.h"
#include "queue/provider_visit.h"
#include "queue/scheduler_lease.h"
#include "queue/seed.h"
#include "queue/recheck_index.h"
#include "queue/redis_tuning.h"
#include "queue/txn.h"
#include "scheduler/decide.h"
#include "scheduler/harvest_plan.h"
#include "queue/provider_record.h"
#include "scheduler/notify.h"
#include "scheduler/source_visit.h"
#include "queue/registry_state.h"
#include "queue/samples.h"
#include "scheduler/void.h"
#include "scheduler/void_fetch.h"
#include "scheduler/void_fetch_pool.h"

/* A VoID body larger than this is not kept in Redis (and then not fetched
 * conditionally, since a 304 would leave nothing to read). */
#define VOID_CACHE_MAX (1024 * 1024)
/* Seeds looked at per cycle for staleness: pages of the re-check index. */
#define STALE_PAGES 10
#define STALE_PAGE 1000

struct LwScheduler {
  const LwConfig *cfg;
  LwRecords *redis;
  LwRegistry *registry; /* the last good one */
  char id[128];
  bool holds_lease;
  LwRecheckCursor stale_cursor; /* the walk of the re-check index */
  bool index_checked;           /* the index of older records is built */
  long long last_gc_ms; /* the last retention collection (queue/retention.h) */
  bool once;            /* --once: no next cycle to leave a visit for */
  /* SIGTERM/SIGINT seen (lw_scheduler_run's flag): a cycle stops waiting
   * for the fetches still out, which are cancelled, and its unvisited
   * providers wait for the next scheduler; NULL outside lw_scheduler_run. */
  volatile sig_atomic_t *stop;
};

LwScheduler *lw_scheduler_new(const LwConfig *cfg)
{
  LwScheduler *s = calloc(1, sizeof(*s));
  if (!s) {
    return NULL;
  }
  s->cfg = cfg;
  lw_worker_id_new(s->id, sizeof(s->id));
  lw_recheck_cursor_reset(&s->stale_cursor);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  return s;
}

void lw_scheduler_free(LwScheduler *s)
{
  if (!s) {
    return;
  }
  lw_scheduler_release(s);
  if (s->redis) {
    lw_records_close(s->redis);
  }
  lw_registry_free(s->registry);
  free(s);
}

const char *lw_scheduler_id(const LwScheduler *s)
{
  return s->id;
}

const LwRegistry *lw_scheduler_registry(const LwScheduler *s)
{
  return s->registry;
}

/* A connection, made again after a failure (hiredis contexts are not
 * reusable after an I/O error). */
static LwStatus connect_redis(LwScheduler *s, LwError *err)
{
  return lw_records_ensure(s->cfg->redis_url, &s->redis, err);
}

static long long lease_ttl_ms(const LwScheduler *s)
{
  long long ttl = s->cfg->interval_s * 1000 * 2 / 3;
  return ttl < 2000 ? 2000 : ttl;
}

static long long poll_ms(const LwScheduler *s)
{
  long long p = s->cfg->interval_s * 1000 / 3;
  return p < 500 ? 500 : p;
}

/* A VoID fetch must end well within the lease (renewed between providers):
 * half of it, between 5 and 30 seconds. */
static long fetch_timeout_ms(const LwScheduler *s)
{
  long long t = lease_ttl_ms(s) / 2;
  return (long)(t < 5000 ? 5000 : t > 30000 ? 30000 : t);
}

LwStatus lw_scheduler_lease(LwScheduler *s, LwError *err)
{
  LW_TRY(connect_redis(s, err));
  LwStatus st = lw_scheduler_lease_take(s->redis, s->cfg->prefix, s->id, lease_ttl_ms(s),
                                        err);
  s->holds_lease = st == LW_OK;
  return st;
}

void lw_scheduler_release(LwScheduler *s)
{
  if (!s->holds_lease || !s->redis || !lw_records_usable(s->redis)) {
    return;
  }
  lw_scheduler_lease_release(s->redis, s->cfg->prefix, s->id);
  s->holds_lease = false;
}

static void log_registry_problems(const LwRegistry *reg)
{
  for (size_t i = 0; i < reg->problem_count; ++i) {
    const LwRegistryProblem *p = &reg->problems[i];
    lw_log(p->warning ? LW_LOG_WARN : LW_LOG_ERROR, "registry=%s msg=\"%s\"", reg->path,
           p->message);
  }
}

/* The reading for the pages, the CLI and the metrics (queue/registry_state.h):
 * a Redis failure here is said and the cycle goes on. */
static void record_reading(LwScheduler *s, const char *text, size_t len, const char *error)
{
  if (!s->redis || !lw_records_usable(s->redis)) {
    return;
  }
  LwError rerr;
  LwStatus st = error ? lw_registry_state_bad(s->redis, s->cfg->prefix, error, lw_now_ms(),
                                              &rerr)
                      : lw_registry_state_good(s->redis, s->cfg->prefix, text, len,
                                               lw_now_ms(), &rerr);
  if (st != LW_OK) {
    lw_warn("registry=%s msg=\"cannot record the reading: %s\"", s->cfg->registry,
            rerr.message);
  }
}

LwStatus lw_scheduler_reload(LwScheduler *s, LwError *err)
{
  LwRegistry *reg = NULL;
  char *text = NULL;
  size_t len = 0;
  LwStatus st = lw_registry_read(s->cfg->registry, &text, &len, err);
  if (st == LW_OK) {
    st = lw_registry_parse(text, len, s->cfg->registry, &reg, err);
  }
  if (st != LW_OK) {
    lw_error("registry=%s outcome=error keeping=%s msg=\"%s\"", s->cfg->registry,
             s->registry ? "last-good" : "none", err ? err->message : "");
    record_reading(s, NULL, 0, err ? err->message : "the registry does not load");
    free(text);
    return st;
  }
  record_reading(s, text, len, NULL);
  free(text);
  log_registry_problems(reg);
  lw_registry_free(s->registry);
  s->registry = reg;
  return LW_OK;
}

/* ---- one provider ---- */

static char *warnings_json(const LwVoid *v, const char *extra)
{
  json_t *a = json_array();
  for (size_t i = 0; v && i < v->warning_count; ++i) {
    json_array_append_new(a, json_string(v->warnings[i]));
  }
  if (extra) {
    json_array_append_new(a, json_string(extra));
  }
  char *s = json_dumps(a, JSON_COMPACT);
  json_decref(a);
  return s;
}

static char *dumps_json(const LwVoid *v)
{
  json_t *a = json_array();
  for (size_t i = 0; v && i < v->dump_count; ++i) {
    json_array_append_new(a, json_string(v->dumps[i].url));
  }
  char *s = json_dumps(a, JSON_COMPACT);
  json_decref(a);
  return s;
}

/* Writes what the visit learned onto provider:<name>. */
static LwStatus record_visit(LwScheduler *s, const LwProvider *p, bool ok,
                             const char *error, const char *const *fields, size_t n,
                             LwError *err)
{
  char checked[32], modified[LW_DATETIME_BUF] = "";
  snprintf(checked, sizeof(checked), "%lld", lw_now_ms());
  if (p->has_modified) {
    lw_datetime_format(&p->modified, modified);
  }
  const char *all[LW_PROVIDER_VISIT_FIELDS_MAX];
  size_t count = 0;
  char url[2048]; /* the record is shown on the pages: no user info */
  lw_url_redact(p->source_url, url, sizeof(url));
  const char *base[] = {"void",    url,     "modified", modified,
                        "checked", checked, "kind",     p->source ? p->source : "void"};
  for (size_t i = 0; i < sizeof(base) / sizeof(*base); ++i) {
    all[count++] = base[i];
  }
  for (size_t i = 0; i < n && count < LW_PROVIDER_VISIT_FIELDS_MAX; ++i) {
    all[count++] = fields[i];
  }
  return lw_provider_record_visit(s->redis, s->cfg->prefix, p->name, ok, error, all, count,
                                  err);
}

/* The validators that make the VoID fetch conditional. A Last-Modified
 * within two seconds of our last visit is a weak validator (RFC 7232
 * 2.2.2): the file may have changed again in that same second, and a server
 * comparing whole seconds would answer 304 to a changed file. Then only the
 * ETag (if any) makes the request conditional. */
static void set_validators(const LwProviderState *st, LwVoidFetchJob *job)
{
  const char *since = st->http_modified;
  LwDateTime lm;
  if (*since && lw_datetime_parse_http(since, &lm) &&
      st->checked_ms - lm.usec / 1000 < 2000) {
    since = "";
  }
  snprintf(job->etag, sizeof(job->etag), "%s", st->etag);
  snprintf(job->last_modified, sizeof(job->last_modified), "%s", since);
}

/* After a 304: the copy kept from the last visit, with its validators.
 * LW_NOTHING when no copy is kept. On LW_OK *body is the caller's. */
static LwStatus kept_void(LwScheduler *s, const LwProvider *p, const LwProviderState *st,
                          char **body, size_t *len, LwVoidFetchInfo *info, LwError *err)
{
  snprintf(info->etag, sizeof(info->etag), "%s", st->etag);
  snprintf(info->last_modified, sizeof(info->last_modified), "%s", st->http_modified);
  return lw_provider_kept_void(s->redis, s->cfg->prefix, p->name, body, len,
                               info->content_type, sizeof(info->content_type), err);
}

/* The VoID's content once the fetch is over: its body, or the copy kept
 * from the last visit when the server said 304. On LW_OK *body is the
 * caller's (taken from the job). */
static LwStatus void_content(LwScheduler *s, const LwProvider *p, const LwProviderState *st,
                             LwVoidFetchJob *job, char **body, size_t *len, LwError *err)
{
  if (job->status != LW_NOTHING) {
    *body = job->body;
    *len = job->len;
    job->body = NULL;
    if (job->status != LW_OK) {
      lw_error_set(err, job->status, "%s", job->err.message);
    }
    return job->status;
  }
  LwStatus rc = kept_void(s, p, st, body, len, &job->info, err);
  if (rc != LW_NOTHING) {
    return rc;
  }
  /* Nothing kept (a rare race with a registry edit): ask again without
   * validators, here and now. */
  return lw_void_fetch(p->source_url, s->cfg, fetch_timeout_ms(s), NULL, NULL, body, len,
                       &job->info, err);
}

/* The version the VoID shows and where it came from. */
static const char *version_of(const LwVoid *v, const LwVoidFetchInfo *info,
                              const char *body, size_t len, LwVersion *out)
{
  memset(out, 0, sizeof(*out));
  lw_md5_hex(body, len, out->hash);
  if (v->modified_source != LW_MODIFIED_NONE) {
    out->has_time = true;
    out->usec = v->modified.usec;
    return v->modified_source == LW_MODIFIED_DATASET ? "dataset" : "document";
  }
  LwDateTime dt;
  if (lw_datetime_parse_http(info->last_modified, &dt)) {
    out->has_time = true;
    out->usec = dt.usec;
    return "last-modified";
  }
  return "content-hash";
}

static void visit_error(LwScheduler *s, const LwProvider *p, const char *message,
                        LwVisit *out)
{
  out->outcome = "error";
  snprintf(out->error, sizeof(out->error), "%s", message);
  LwError e;
  lw_error_clear(&e);
  record_visit(s, p, false, message, NULL, 0, &e);
  char url[1024], quoted[1024];
  lw_error("provider=%s outcome=error %s=%s msg=\"%s\"", p->name,
           p->source ? p->source : "void", lw_url_redact(p->source_url, url, sizeof(url)),
           lw_escape_quoted(message, 512, quoted, sizeof(quoted)));
}

/* After a harvest's start (rc): true when it started (out says so); false
 * when it failed (rc), or someone else (lodwash harvest) started one a
 * moment ago (LW_NOTHING: out says busy). */
static bool harvest_started(LwStatus rc, const LwProvider *p, size_t dumps, LwVisit *out)
{
  if (rc == LW_NOTHING) {
    out->outcome = "busy";
    lw_info("provider=%s outcome=busy msg=\"a harvest started meanwhile\"", p->name);
  } else if (rc == LW_OK) {
    out->outcome = "started";
    out->dumps = dumps;
  }
  return rc == LW_OK;
}

static LwStatus act(LwScheduler *s, const LwProvider *p, const LwProviderState *st,
                    const LwDecideResult *d, const LwVoid *v, const char *source,
                    bool forced, LwVisit *out, LwError *err)
{
  char version[LW_DATETIME_BUF];
  lw_version_to_text(&d->version, version);
  const char *shown = version[0] ? version : d->version.hash;
  switch (d->decision) {
  case LW_DECIDE_START: {
    LwHarvestPlan h = {p->name, p->source_url, &d->version, source, v, forced};
    LwStatus rc = lw_harvest_plan_start(s->redis, s->cfg->prefix, &h, out->harvest, err);
    if (!harvest_started(rc, p, v->dump_count, out)) {
      return rc == LW_NOTHING ? LW_OK : rc;
    }
    lw_info("provider=%s outcome=started harvest=%s dumps=%zu modified=%s source=%s "
            "kind=%s forced=%s reason=\"%s\"",
            p->name, out->harvest, v->dump_count, shown, source, lw_dump_kind_name(v->kind),
            forced ? "yes" : "no", d->reason);
    return LW_OK;
  }
  case LW_DECIDE_BUSY: {
    out->outcome = "busy";
    out->follow_up = d->follow_up;
    snprintf(out->harvest, sizeof(out->harvest), "%s", st->harvest);
    if (d->follow_up) {
      /* One pending slot: the newest version overwrites an older one. */
      LW_TRY(
        lw_provider_set_pending(s->redis, s->cfg->prefix, p->name, shown, forced, err));
    }
    lw_info("provider=%s outcome=busy harvest=%s follow_up=%s modified=%s", p->name,
            st->harvest, d->follow_up ? "pending" : "none", shown);
    return LW_OK;
  }
  case LW_DECIDE_UNCHANGED:
    out->outcome = "unchanged";
    lw_info("provider=%s outcome=unchanged modified=%s source=%s reason=\"%s\"", p->name,
            shown, source, d->reason);
    return LW_OK;
  case LW_DECIDE_SKIP:
    out->outcome = "disabled";
    lw_info("provider=%s outcome=disabled", p->name);
    return LW_OK;
  case LW_DECIDE_ERROR:
    break;
  }
  out->outcome = "error";
  return LW_OK;
}

static bool is_void(const LwProvider *p)
{
  return !p->source || !strcmp(p->source, "void");
}

/* One provider's visit, from the state read before its VoID fetch to the
 * decision after it. */
typedef struct {
  const LwProvider *p;
  bool forced;
  long long checked_ms; /* its last visit, 0 if never */
  LwVoidFetchJob fetch;
  LwVisit visit;
} ProviderVisit;

/* Reads the provider's state: LW_OK when its VoID is to be fetched (pv->fetch
 * is ready), LW_NOTHING when the visit ends here (disabled, not due). */
static LwStatus visit_begin(LwScheduler *s, const LwProvider *p, bool forced,
                            ProviderVisit *pv, LwError *err)
{
  memset(pv, 0, sizeof(*pv));
  pv->p = p;
  LW_TRY(connect_redis(s, err));
  LwProviderState st;
  LW_TRY(lw_provider_state_read(s->redis, s->cfg->prefix, p->name, &st, err));
  if (st.running) {
    bool timed_out = false;
    LW_TRY(lw_harvest_check_timeout(s->redis, s->cfg->prefix, st.harvest,
                                    s->cfg->harvest_timeout_s * 1000, &timed_out, err));
    if (timed_out) {
      lw_warn("provider=%s harvest=%s outcome=timed-out msg=\"no progress for %llds: "
              "the harvest failed, the provider is tried again later\"",
              p->name, st.harvest, s->cfg->harvest_timeout_s);
      LW_TRY(lw_provider_state_read(s->redis, s->cfg->prefix, p->name, &st, err));
    }
  }
  pv->forced = forced = forced || st.forced;
  const long long now_ms = lw_now_ms();
  bool held = false; /* an operator's hold (queue/controls.h) wins over everything */
  LW_TRY(lw_controls_provider_held(s->redis, s->cfg->prefix, p->name, &held, err));
  if (held) {
    pv->visit.outcome = "held";
    lw_debug("provider=%s outcome=held", p->name);
    return LW_NOTHING;
  }
  if (!forced && !p->enabled) {
    pv->visit.outcome = "disabled";
    lw_info("provider=%s outcome=disabled", p->name);
    return LW_NOTHING;
  }
  /* a dump found changed is worth a visit now, not at the next interval */
  if (!forced && !st.dump_changed &&
      !lw_decide_due(p, st.checked_ms > 0, st.checked_ms * 1000, now_ms * 1000)) {
    pv->visit.outcome = "not-due";
    lw_debug("provider=%s outcome=not-due interval=%ld", p->name, p->interval);
    return LW_NOTHING;
  }
  pv->fetch.url = p->source_url;
  pv->fetch.timeout_ms = fetch_timeout_ms(s);
  pv->checked_ms = st.checked_ms;
  pv->fetch.user = pv;
  if (is_void(p)) {
    set_validators(&st, &pv->fetch);
  } else { /* read whole on the pool's thread: scheduler/source_visit.h */
    pv->fetch.read = lw_source_visit_read;
    pv->fetch.read_user = (void *)p;
    pv->fetch.free_result = lw_source_visit_free;
  }
  return LW_OK;
}

/* A catalogue's harvest: the plan's dumps (the changed datasets'), with the
 * datasets' versions for the provider's baseline once it is done. */
static LwStatus start_source_harvest(LwScheduler *s, const LwProvider *p,
                                     const LwDecideResult *d, const LwSourcePlan *plan,
                                     bool forced, LwVisit *out, LwError *err)
{
  LwHarvestStart h = {
    .provider = p->name,
    .void_url = p->source_url,
    .version = &d->version,
    .source = "datasets",
    .kind = plan->all ? "full" : "partial",
    .dumps = plan->dumps,
    .dump_count = plan->dump_count,
    .forced = forced,
    .datasets = plan->baseline_json,
  };
  LwStatus rc = lw_harvest_start(s->redis, s->cfg->prefix, &h, out->harvest, err);
  if (!harvest_started(rc, p, plan->dump_count, out)) {
    return rc == LW_NOTHING ? LW_OK : rc;
  }
  lw_info(
    "provider=%s outcome=started harvest=%s source=%s dumps=%zu kind=%s datasets_new=%zu "
    "datasets_changed=%zu datasets_unchanged=%zu datasets_gone=%zu forced=%s "
    "reason=\"%s\"",
    p->name, out->harvest, p->source, plan->dump_count, h.kind, plan->added, plan->changed,
    plan->unchanged, plan->gone, forced ? "yes" : "no", d->reason);
  return LW_OK;
}

static char *page_warnings_json(const LwSourcePage *page)
{
  json_t *a = json_array();
  for (size_t i = 0; page && i < page->warning_count; ++i) {
    json_array_append_new(a, json_string(page->warnings[i]));
  }
  char *text = json_dumps(a, JSON_COMPACT);
  json_decref(a);
  return text;
}

/* Appends the count strings of more to fields (at n); the new n. */
static size_t fields_add(const char **fields, size_t n, const char *const *more,
                         size_t count)
{
  for (size_t i = 0; i < count; ++i) {
    fields[n++] = more[i];
  }
  return n;
}

/* MD5 of what a visit writes of a catalogue's view: its dumps, datasets
 * (with their states against the baseline) and warnings. */
static void catalogue_digest(const LwSourcePlan *plan, const char *warnings,
                             char out[LW_HASH_HEX_LEN + 1])
{
  LwMd5 *md5 = lw_md5_new();
  const char *parts[] = {plan->dumps_json, plan->datasets_json, warnings ? warnings : "[]"};
  for (size_t i = 0; md5 && i < sizeof(parts) / sizeof(*parts); ++i) {
    lw_md5_update(md5, parts[i], strlen(parts[i]));
    lw_md5_update(md5, "\n", 1);
  }
  if (md5) {
    lw_md5_finish(md5, out);
  } else {
    out[0] = '\0'; /* out of memory: written again, as before */
  }
  lw_md5_free(md5);
}

/* The visit of a DCAT, CKAN, sitemap or SPARQL source once it is read:
 * plan which datasets changed, decide as for a VoID, start a harvest of
 * the changed datasets' dumps. */
static LwStatus visit_end_source(LwScheduler *s, ProviderVisit *pv,
                                 const LwProviderState *st, bool forced, long long now_ms,
                                 LwError *err)
{
  const LwProvider *p = pv->p;
  LwVisit *out = &pv->visit;
  LwSourcePage *page = pv->fetch.result;
  pv->fetch.result = NULL;
  if (pv->fetch.status != LW_OK) {
    lw_source_page_free(page);
    if (pv->fetch.status == LW_ERR_REDIS) {
      return lw_error_set(err, LW_ERR_REDIS, "%s", pv->fetch.err.message);
    }
    char msg[LW_ERROR_MESSAGE_MAX + 32];
    snprintf(msg, sizeof(msg), "%s: %s", p->source, pv->fetch.err.message);
    visit_error(s, p, msg, out);
    return LW_OK;
  }
  char *harvested = NULL;
  LwStatus rc = lw_provider_harvested_datasets(s->redis, s->cfg->prefix, p->name,
                                               &harvested, err);
  if (rc > LW_NOTHING) {
    lw_source_page_free(page);
    return rc;
  }
  LwSourcePlan plan;
  rc = lw_source_plan(page, harvested, p, forced || st->dump_changed, &plan, err);
  free(harvested);
  if (rc != LW_OK) {
    lw_source_page_free(page);
    return rc;
  }
  for (size_t i = 0; i < page->warning_count; ++i) {
    char url[1024], quoted[1024];
    lw_warn("provider=%s %s=%s msg=\"%s\"", p->name, p->source,
            lw_url_redact(p->source_url, url, sizeof(url)),
            lw_escape_quoted(page->warnings[i], 512, quoted, sizeof(quoted)));
  }
  LwDecideInput in = {p,
                      true,
                      plan.version,
                      st->has_harvested,
                      st->harvested,
                      st->running,
                      st->running_version,
                      forced,
                      now_ms * 1000,
                      st->retry_at_ms * 1000,
                      st->dump_changed};
  LwDecideResult d;
  lw_decide(&in, &d);
  /* Changed, but nothing of it to download (only non-RDF distributions,
   * or datasets that left): the new versions are the baseline at once. */
  bool settled = d.decision == LW_DECIDE_START && plan.dump_count == 0;
  char *warnings = page_warnings_json(page);
  char digest[LW_HASH_HEX_LEN + 1];
  catalogue_digest(&plan, warnings, digest);
  const char *fields[26];
  size_t n = 0;
  const char *always[] = {"void_modified",      plan.newest,
                          "void_source",        "datasets",
                          "void_hash",          plan.version.hash,
                          "void_etag",          "",
                          "void_http_modified", "",
                          "void_type",          "",
                          "void_body",          ""};
  const char *baseline[] = {"harvested_hash", plan.version.hash, "harvested_datasets",
                            plan.baseline_json};
  /* The catalogue's view, megabytes at 100,000 datasets: written when it
   * moved, not at every visit. */
  const char *view[] = {"source_digest",   digest, "void_dumps", plan.dumps_json,
                        "source_datasets", plan.datasets_json,
                        "warnings",        warnings ? warnings : "[]"};
  n = fields_add(fields, n, always, sizeof(always) / sizeof(*always));
  if (settled) {
    n = fields_add(fields, n, baseline, sizeof(baseline) / sizeof(*baseline));
  }
  if (!digest[0] || strcmp(digest, st->source_digest) != 0) {
    n = fields_add(fields, n, view, sizeof(view) / sizeof(*view));
  }
  rc = record_visit(s, p, true, NULL, fields, n, err);
  free(warnings);
  if (rc == LW_OK && settled) {
    out->outcome = "unchanged";
    lw_info("provider=%s outcome=unchanged source=%s datasets_new=%zu datasets_changed=%zu "
            "datasets_gone=%zu msg=\"no dump to download: the new versions are recorded\"",
            p->name, p->source, plan.added, plan.changed, plan.gone);
  } else if (rc == LW_OK && d.decision == LW_DECIDE_START) {
    rc = start_source_harvest(s, p, &d, &plan, forced, out, err);
  } else if (rc == LW_OK) {
    rc = act(s, p, st, &d, NULL, "datasets", forced, out, err);
  }
  lw_source_plan_clear(&plan);
  lw_source_page_free(page);
  return rc;
}

/* The rest of the visit once the fetch is over: read the VoID, decide, act.
 * The provider's state is read again: a harvest may have ended meanwhile. */
static LwStatus visit_end(LwScheduler *s, ProviderVisit *pv, LwError *err)
{
  const LwProvider *p = pv->p;
  LwVisit *out = &pv->visit;
  LW_TRY(connect_redis(s, err));
  LwProviderState st;
  LW_TRY(lw_provider_state_read(s->redis, s->cfg->prefix, p->name, &st, err));
  bool forced = pv->forced || st.forced;
  const long long now_ms = lw_now_ms();
  if (!is_void(p)) {
    return visit_end_source(s, pv, &st, forced, now_ms, err);
  }
  char *body = NULL;
  size_t len = 0;
  LwError ferr;
  lw_error_clear(&ferr);
  LwStatus rc = void_content(s, p, &st, &pv->fetch, &body, &len, &ferr);
  const LwVoidFetchInfo info = pv->fetch.info; /* after void_content: a 304 fills it */
  if (rc == LW_ERR_REDIS) {
    return lw_error_set(err, rc, "%s", ferr.message);
  }
  if (rc != LW_OK) {
    visit_error(s, p, ferr.message, out);
    return LW_OK;
  }
  LwVoid *v = NULL;
  rc = lw_void_parse(body, len, info.final_url[0] ? info.final_url : p->source_url,
                     info.content_type, &v, &ferr);
  if (rc != LW_OK) {
    char msg[LW_ERROR_MESSAGE_MAX * 2 + 64];
    char url[1024];
    snprintf(msg, sizeof(msg), "VoID %.500s: %s",
             lw_url_redact(p->source_url, url, sizeof(url)), ferr.message);
    visit_error(s, p, msg, out);
    free(body);
    return rc == LW_ERR_NOMEM ? lw_error_set(err, rc, "out of memory") : LW_OK;
  }
  LwVersion version;
  const char *source = version_of(v, &info, body, len, &version);
  const char *fallback = NULL;
  if (!strcmp(source, "last-modified")) {
    fallback = "no dcterms:modified in the VoID: its HTTP Last-Modified is used";
  } else if (!strcmp(source, "content-hash")) {
    fallback = "no dcterms:modified in the VoID and no Last-Modified: a change of "
               "its content starts a harvest";
  }
  if (fallback) {
    lw_warn("provider=%s msg=\"%s\"", p->name, fallback);
  }
  for (size_t i = 0; i < v->warning_count; ++i) {
    char url[1024], quoted[1024];
    lw_warn("provider=%s void=%s msg=\"%s\"", p->name,
            lw_url_redact(p->source_url, url, sizeof(url)),
            lw_escape_quoted(v->warnings[i], 512, quoted, sizeof(quoted)));
  }

  LwDecideInput in = {p,
                      true,
                      version,
                      st.has_harvested,
                      st.harvested,
                      st.running,
                      st.running_version,
                      forced,
                      now_ms * 1000,
                      st.retry_at_ms * 1000,
                      st.dump_changed};
  LwDecideResult d;
  lw_decide(&in, &d);

  char vtext[LW_DATETIME_BUF];
  lw_version_to_text(&version, vtext);
  char *warnings = warnings_json(v, fallback);
  char *dumps = dumps_json(v);
  bool keep = len <= VOID_CACHE_MAX;
  const char *fields[] = {"void_modified",      vtext,
                          "void_source",        source,
                          "void_hash",          version.hash,
                          "void_etag",          keep ? info.etag : "",
                          "void_http_modified", keep ? info.last_modified : "",
                          "void_type",          info.content_type,
                          "void_body",          keep ? body : "",
                          "void_dumps",         dumps ? dumps : "[]",
                          "warnings",           warnings ? warnings : "[]",
                          /* the catalogue view is overwritten: a return to a
                           * catalogue must write it again */
                          "source_digest",      ""};
  rc = record_visit(s, p, true, NULL, fields, sizeof(fields) / sizeof(*fields), err);
  free(warnings);
  free(dumps);
  if (rc == LW_OK) {
    rc = act(s, p, &st, &d, v, source, forced, out, err);
  }
  lw_void_free(v);
  free(body);
  return rc;
}

LwStatus lw_scheduler_visit(LwScheduler *s, const LwProvider *p, bool forced, LwVisit *out,
                            LwError *err)
{
  ProviderVisit *pv = malloc(sizeof(*pv));
  if (!pv) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwStatus rc = visit_begin(s, p, forced, pv, err);
  if (rc == LW_OK) {
    LwVoidFetchJob *f = &pv->fetch;
    lw_error_clear(&f->err);
    LwVoidFetchHooks hooks = {NULL, s->redis, NULL, NULL, NULL};
    if (f->read) {
      f->status = f->read(f->read_user, s->cfg, &hooks, f->timeout_ms, &f->result, &f->err);
    } else {
      f->status = lw_void_fetch_until(f->url, s->cfg, f->timeout_ms, f->etag,
                                      f->last_modified, &hooks, &f->body, &f->len, &f->info,
                                      &f->err);
    }
    rc = visit_end(s, pv, err);
    free(f->body);
    lw_source_page_free(f->result); /* what visit_end did not take */
  }
  *out = pv->visit;
  free(pv);
  return rc == LW_NOTHING ? LW_OK : rc;
}

/* ---- periodic duties ---- */

/* How long a seed rests before its dump is checked again: its own
 * `interval`, else its provider's registry `interval`, else --seed-interval
 * (0: never). In milliseconds. */
static long long seed_interval_ms(const LwScheduler *s, const char *interval,
                                  const char *provider)
{
  long long i = interval ? atoll(interval) : 0;
  if (i <= 0 && provider && *provider && s->registry) {
    const LwProvider *p = lw_registry_find(s->registry, provider);
    i = p ? p->interval : 0;
  }
  if (i <= 0) {
    i = s->cfg->seed_interval_s;
  }
  return i > 0 ? i * 1000 : 0;
}

/* The stale scan's state during one cycle. */
typedef struct {
  LwScheduler *s;
  long long now;
  LwTxn *txn;
  long long *count;
} StaleScan;

/* Read for each seed, in this order, by the stale scan. */
static const char *const stale_fields[] = {"status", "processed", "interval",
                                           "parent", "relative",  "provider"};

/* A downloaded seed whose time is up (processed + interval < now), with no
 * parent (not an archive entry) and not relative, goes back to added with a
 * download job: the download is conditional (the seed's ETag, Last-Modified
 * and content hash), so a dump that changed without its VoID saying so is
 * seen, and one that did not costs a 304. v: the values of stale_fields. */
static void requeue_if_stale(void *arg, const char *hash, const char *const *v)
{
  StaleScan *scan = arg;
  const char *status = v[0], *processed = v[1], *interval = v[2];
  const char *parent = v[3], *relative = v[4], *provider = v[5];
  long long p = processed ? atoll(processed) : 0;
  long long i = seed_interval_ms(scan->s, interval, provider);
  if (p > 0 && i > 0 && p + i < scan->now && lw_seed_status_resting(status) &&
      !(parent && *parent) && !(relative && !strcmp(relative, "true"))) {
    /* Outside any harvest: the one it came with is over. A provider's dump
     * is only re-checked: when it changed, the download marks the provider
     * and the next visit starts a harvest (a provider's graph changes only
     * through a harvest); a seed of no provider goes down the pipeline. */
    /* soft: a seed that moved on meanwhile is not stale any more (its
     * download job then finds nothing to do) */
    lw_txn_seed_status_soft(scan->txn, hash, "added");
    json_t *recheck = provider && *provider ? json_pack("{s:s}", "recheck", provider)
                                            : NULL;
    lw_txn_push_job(scan->txn, "download", hash, "", LW_PRIORITY_NORMAL, recheck);
    json_decref(recheck);
    ++*scan->count;
  }
}

/* The shortest interval any seed may have (ms; 0: none re-checked): the
 * default's and the registry's. A seed's own `interval` counts only when
 * it is at least this long (the index is read up to now minus it). */
static long long shortest_interval_ms(const LwScheduler *s)
{
  long long shortest = s->cfg->seed_interval_s > 0 ? s->cfg->seed_interval_s : 0;
  for (size_t i = 0; s->registry && i < s->registry->count; ++i) {
    long long p = s->registry->providers[i].interval;
    if (p > 0 && (shortest == 0 || p < shortest)) {
      shortest = p;
    }
  }
  return shortest * 1000;
}

/* Says once when Redis keeps finished seeds as hash tables (queue/redis_tuning.h). */
static LwStatus check_listpack(LwScheduler *s, LwError *err)
{
  long long value = 0;
  LwStatus st = lw_redis_listpack_value(s->redis, &value, err);
  if (st == LW_OK && value < LW_HASH_LISTPACK_VALUE) {
    lw_warn("redis=hash-max-listpack-value value=%lld msg=\"Redis keeps a seed record whose "
            "HTTP hops or content record is longer than %lld bytes as a hash table (about "
            "2.4 KB a seed, 1.4 KB as a listpack): set hash-max-listpack-value %d "
            "(docs/retention.md)\"",
            value, value, LW_HASH_LISTPACK_VALUE);
  }
  return st == LW_ERR_REDIS ? st : LW_OK;
}

/* The records written before the re-check index: indexed once, at the
 * first cycle (a SCAN of seed:*), never again. */
static LwStatus index_old_records(LwScheduler *s, LwError *err)
{
  if (s->index_checked) {
    return LW_OK;
  }
  LW_TRY(check_listpack(s, err));
  long long t0 = lw_now_ms(), indexed = 0;
  bool built = false;
  LW_TRY(lw_recheck_index_upgrade(s->redis, s->cfg->prefix, &indexed, &built, err));
  if (built) {
    lw_info("index=rechecks built=true seeds=%lld ms=%lld msg=\"seeds written before the "
            "re-check index indexed, once\"",
            indexed, lw_now_ms() - t0);
  }
  s->index_checked = true;
  return LW_OK;
}

/* Up to STALE_PAGES pages of the seeds processed longer ago than the
 * shortest interval, walked on from where the last cycle stopped: the
 * stale ones go back to added with a download job. No keyspace scan. */
static LwStatus requeue_stale(LwScheduler *s, long long *count, LwError *err)
{
  LW_TRY(index_old_records(s, err));
  long long shortest = shortest_interval_ms(s);
  if (shortest <= 0) {
    return LW_OK;
  }
  StaleScan scan = {s, lw_now_ms(), lw_txn_new(s->cfg->prefix), count};
  if (!scan.txn) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwStatus st = LW_OK;
  bool done = false;
  for (int page = 0; page < STALE_PAGES && st == LW_OK && !done; ++page) {
    st = lw_recheck_index_step(s->redis, s->cfg->prefix, &s->stale_cursor,
                               scan.now - shortest, STALE_PAGE, stale_fields,
                               sizeof(stale_fields) / sizeof(*stale_fields),
                               requeue_if_stale, &scan, &done, err);
  }
  if (st == LW_OK && lw_txn_count(scan.txn) > 0) {
    st = lw_txn_exec(s->redis, scan.txn, err);
  }
  lw_txn_free(scan.txn);
  return st;
}

/* Queues a periodic job for stage unless one is still waiting or running. */
static LwStatus queue_periodic(LwScheduler *s, const char *stage, LwError *err)
{
  LwStageCounts counts;
  LW_TRY(lw_queue_counts(s->redis, s->cfg, stage, &counts, err));
  if (counts.queued + counts.delayed + counts.inflight > 0) {
    return LW_NOTHING;
  }
  LwJob *job = lw_job_new(stage, NULL, NULL, NULL, err);
  if (!job) {
    return err ? err->status : LW_ERR_NOMEM;
  }
  LwStatus st = lw_queue_push(s->redis, s->cfg, job, LW_PRIORITY_NORMAL, err);
  lw_job_free(job);
  return st;
}

LwStatus lw_scheduler_duties(LwScheduler *s, LwCycleStats *stats, LwError *err)
{
  LW_TRY(connect_redis(s, err));
  LW_TRY(lw_pipeline_reap(s->redis, s->cfg, &stats->reaped, err));
  LW_TRY(lw_queue_promote(s->redis, s->cfg, NULL, &stats->promoted, err));
  LW_TRY(requeue_stale(s, &stats->stale, err));
  LW_TRY(queue_periodic(s, "export", err));
  LW_TRY(queue_periodic(s, "status", err));
  LW_TRY(lw_retention_duty(s->redis, s->cfg, &s->last_gc_ms, err));
  /* the overview's pictures: a sample a minute */
  return lw_samples_record(s->redis, s->cfg, lw_now_ms(), err);
}

static void count_outcome(LwCycleStats *stats, const LwVisit *visit)
{
  const char *o = visit->outcome ? visit->outcome : "";
  stats->started += !strcmp(o, "started");
  stats->unchanged += !strcmp(o, "unchanged");
  stats->busy += !strcmp(o, "busy");
  stats->errors += !strcmp(o, "error");
  stats->skipped += !strcmp(o, "disabled") || !strcmp(o, "not-due") || !strcmp(o, "held");
  stats->deferred += !strcmp(o, "deferred");
}

/* Still ours? A scheduler that lost its lease (it stalled longer than the
 * TTL) decides nothing more. */
static LwStatus keep_lease(LwScheduler *s, LwError *err)
{
  LwStatus lease = lw_scheduler_lease(s, err);
  if (lease == LW_NOTHING) {
    return lw_error_set(err, LW_ERR_STATE, "lease lost to another scheduler");
  }
  return lease;
}

/* VoID fetches in flight at once: the configured number, at least 1. */
static int fetch_concurrency(const LwScheduler *s)
{
  return s->cfg->void_concurrency > 0 ? (int)s->cfg->void_concurrency : 1;
}

/* Longest unvisited first (never visited before all), then registry order. */
static int by_last_visit(const void *a, const void *b)
{
  const ProviderVisit *x = *(ProviderVisit *const *)a, *y = *(ProviderVisit *const *)b;
  if (x->checked_ms != y->checked_ms) {
    return x->checked_ms < y->checked_ms ? -1 : 1;
  }
  return (x > y) - (x < y);
}

/* Reads every provider's state, then hands the due ones' VoID fetches to
 * the pool longest unvisited first: the pool starts a host's fetches in
 * that order, so the providers a cycle's deadline left over are the first
 * of their host in the next (all are read first: a fetch started during
 * the reading would go to whichever provider came first in the registry). */
static LwStatus submit_visits(LwScheduler *s, const LwRegistry *reg, ProviderVisit *pvs,
                              LwVoidFetchPool *pool, LwCycleStats *stats, LwError *err)
{
  ProviderVisit **due = calloc(reg->count ? reg->count : 1, sizeof(*due));
  if (!due) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  size_t n = 0;
  LwStatus st = LW_OK;
  for (size_t i = 0; i < reg->count && st == LW_OK; ++i) {
    ++stats->providers;
    st = visit_begin(s, &reg->providers[i], false, &pvs[i], err);
    if (st == LW_NOTHING) {
      count_outcome(stats, &pvs[i].visit);
      st = LW_OK;
    } else if (st == LW_OK) {
      due[n++] = &pvs[i];
    }
  }
  qsort(due, n, sizeof(*due), by_last_visit);
  for (size_t i = 0; i < n && st == LW_OK; ++i) {
    LwStatus rc = lw_void_fetch_pool_submit(pool, &due[i]->fetch);
    if (rc != LW_OK) {
      st = lw_error_set(err, rc, "cannot start a VoID fetch");
    }
  }
  free(due);
  return st;
}

/* Decides for each provider as soon as its VoID is in, renewing the lease
 * while it waits. */
static LwStatus finish_visits(LwScheduler *s, LwVoidFetchPool *pool, LwCycleStats *stats,
                              LwError *err)
{
  const long wait_ms = 250;
  LwVoidFetchJob *done = NULL;
  while (lw_void_fetch_pool_next(pool, wait_ms, &done) == LW_OK) {
    if (s->stop && *s->stop) {
      lw_info("scheduler=%s msg=\"stopping: %zu visits not finished, left for the next "
              "cycle\"",
              s->id, lw_void_fetch_pool_pending(pool) + (done != NULL));
      lw_source_page_free(done ? done->result : NULL);
      if (done) {
        free(done->body);
        done->body = NULL;
        done->result = NULL;
      }
      return LW_OK;
    }
    LW_TRY(keep_lease(s, err));
    if (!done) {
      continue;
    }
    ProviderVisit *pv = done->user;
    if (done->deferred) {
      free(done->body); /* (none unless a redirect's hop was deferred) */
      done->body = NULL;
      lw_source_page_free(done->result);
      done->result = NULL;
      pv->visit.outcome = "deferred";
      lw_info("provider=%s outcome=deferred msg=\"its host's turn (its pace, or a free "
              "place on it) did not come in time: it goes first on its host next cycle\"",
              pv->p->name);
      count_outcome(stats, &pv->visit);
      continue;
    }
    LwStatus rc = visit_end(s, pv, err);
    free(done->body);
    done->body = NULL;
    lw_source_page_free(done->result); /* what visit_end did not take */
    done->result = NULL;
    LW_TRY(rc);
    count_outcome(stats, &pv->visit);
  }
  return LW_OK;
}

/* Where the cycle's fetch threads spent their time: what holds a cycle up
 * (hosts that never answer, places held by the workers, paced hosts). */
static void log_pool(const LwScheduler *s, LwVoidFetchPool *pool, long long read_ms,
                     long long visit_ms)
{
  LwVoidFetchPoolStats ps;
  lw_void_fetch_pool_stats(pool, &ps);
  lw_info("scheduler=%s pool=done read_s=%.1f visits_s=%.1f threads=%d busy_max=%d "
          "fetched=%lld thread_s=%.1f place_wait_s=%.1f policy_s=%.1f turn_wait_s=%.1f "
          "no_answer=%lld silent_hosts=%lld spared=%lld",
          s->id, read_ms / 1000.0, visit_ms / 1000.0, fetch_concurrency(s), ps.busy_max,
          ps.fetched, ps.thread_ms / 1000.0,
          ps.place_wait_ms / 1000.0, ps.policy_ms / 1000.0, ps.turn_wait_ms / 1000.0,
          ps.no_answer, ps.silent_hosts, ps.spared);
}

/* Visits every provider of reg: the states are read one after another, the
 * VoIDs fetched at once (a bounded number in flight, each within its
 * timeout), and each provider decided as its VoID arrives, so a slow host
 * delays only itself. Fetches whose host's turn (its pace) has not come
 * within the interval are not waited for: their providers, not visited,
 * are the first of their host next cycle (submit_visits), so a crowded
 * host never lengthens the cycle for the others (with --once, there being
 * no next cycle, every due provider is visited however long it takes). */
static LwStatus visit_all(LwScheduler *s, const LwRegistry *reg, LwCycleStats *stats,
                          LwError *err)
{
  LW_TRY(keep_lease(s, err));
  const long long began = lw_now_ms();
  ProviderVisit *pvs = calloc(reg->count ? reg->count : 1, sizeof(*pvs));
  LwVoidFetchPool *pool = lw_void_fetch_pool_new(s->cfg, fetch_concurrency(s), reg->count);
  LwStatus st = !pvs || !pool ? lw_error_set(err, LW_ERR_NOMEM, "out of memory") : LW_OK;
  if (st == LW_OK) {
    if (!s->once) {
      lw_void_fetch_pool_start_within(pool, (long)(s->cfg->interval_s * 1000));
    }
    st = submit_visits(s, reg, pvs, pool, stats, err);
  }
  const long long read_ms = lw_now_ms() - began;
  if (st == LW_OK) {
    st = finish_visits(s, pool, stats, err);
  }
  if (pool) {
    log_pool(s, pool, read_ms, lw_now_ms() - began);
  }
  lw_void_fetch_pool_free(pool); /* stops what still runs after an error */
  free(pvs);
  return st;
}

/* Visits every provider while the reports of the harvests that ended
 * since the last cycle go to the providers that asked for them
 * (scheduler/notify.h): a receiver that never answers waits alongside the
 * VoID fetches, within the same timeout. */
static LwStatus visit_and_notify(LwScheduler *s, const LwRegistry *reg, LwCycleStats *stats,
                                 LwError *err)
{
  LwNotifyBatch *reports = lw_notify_begin(s->redis, s->cfg, reg, fetch_timeout_ms(s), err);
  if (!reports) {
    return err && err->status > LW_NOTHING ? err->status : LW_ERR_REDIS;
  }
  LwStatus st = visit_all(s, reg, stats, err);
  LwError rerr;
  lw_error_clear(&rerr);
  LwStatus sent = lw_notify_end(s->redis, reports, &rerr);
  if (st == LW_OK && sent != LW_OK) {
    return lw_error_set(err, sent, "%s", rerr.message);
  }
  return st;
}

LwStatus lw_scheduler_cycle(LwScheduler *s, LwCycleStats *stats, LwError *err)
{
  memset(stats, 0, sizeof(*stats));
  LW_TRY(connect_redis(s, err));
  LwError rerr;
  lw_error_clear(&rerr);
  if (lw_scheduler_reload(s, &rerr) != LW_OK) {
    stats->registry_error = true;
  }
  if (s->registry) {
    LW_TRY(visit_and_notify(s, s->registry, stats, err));
  }
  LW_TRY(lw_scheduler_duties(s, stats, err));
  lw_info("cycle=done providers=%d started=%d unchanged=%d busy=%d errors=%d skipped=%d "
          "reaped=%lld retries=%lld stale=%lld registry=%s deferred=%d",
          stats->providers, stats->started, stats->unchanged, stats->busy, stats->errors,
          stats->skipped, stats->reaped, stats->promoted, stats->stale,
          stats->registry_error ? "last-good" : "ok", stats->deferred);
  return LW_OK;
}

/* ---- the loop ---- */

/* Sleeps about ms, in short steps so that a signal or a lost lease is seen
 * soon; renews the lease every poll period when held. */
static void wait_renewing(LwScheduler *s, long long ms, volatile sig_atomic_t *stop)
{
  const long long step = 100;
  long long since_renew = 0;
  for (long long slept = 0; slept < ms && !*stop; slept += step) {
    lw_sleep_ms(step);
    since_renew += step;
    if (s->holds_lease && since_renew >= poll_ms(s)) {
      since_renew = 0;
      LwError e;
      if (lw_scheduler_lease(s, &e) != LW_OK) {
        lw_warn("scheduler=%s role=standby msg=\"lease lost\"", s->id);
        return;
      }
    }
  }
}

int lw_scheduler_run(LwScheduler *s, bool once, volatile sig_atomic_t *stop)
{
  bool was_active = false;
  long long waited = 0;
  s->once = once;
  s->stop = stop;
  while (!*stop) {
    LwError err;
    lw_error_clear(&err);
    LwStatus st = lw_scheduler_lease(s, &err);
    if (st == LW_OK) {
      if (!was_active) {
        lw_info("scheduler=%s role=active interval=%lld", s->id, s->cfg->interval_s);
        was_active = true;
      }
      LwCycleStats stats;
      const long long began = lw_now_ms();
      st = lw_scheduler_cycle(s, &stats, &err);
      if (st != LW_OK) {
        lw_error("scheduler=%s cycle=failed msg=\"%s\"", s->id, err.message);
      }
      if (once) {
        return st == LW_OK ? 0 : 1;
      }
      long long left = s->cfg->interval_s * 1000 - (lw_now_ms() - began);
      wait_renewing(s, left > 0 ? left : 0, stop);
      continue;
    }
    if (was_active) {
      lw_warn("scheduler=%s role=standby msg=\"another scheduler holds the lease\"", s->id);
      was_active = false;
    }
    if (st == LW_NOTHING) {
      lw_debug("scheduler=%s role=standby", s->id);
    } else {
      lw_error("scheduler=%s msg=\"%s\"", s->id, err.message);
    }
    if (once && waited > lease_ttl_ms(s) + poll_ms(s)) {
      lw_error("scheduler=%s msg=\"another scheduler is active; --once gave up\"", s->id);
      return 3;
    }
    wait_renewing(s, poll_ms(s), stop);
    waited += poll_ms(s);
  }
  lw_scheduler_release(s);
  lw_info("scheduler=%s outcome=stopped", s->id);
  return 0;
}
