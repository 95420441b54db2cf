#include "scheduler/source_visit.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most datasets listed on the provider record (the operator's view); a
 * catalogue of 100,000 would rewrite megabytes every visit. The plan
 * itself covers them all. */
#define DATASETS_LISTED 5000

/* ---- reading, on the pool's thread ---- */

typedef struct {
  const LwConfig *cfg;
  const LwVoidFetchHooks *hooks;
  long timeout_ms;
} Fetcher;

static LwStatus fetch_document(void *user, const char *url, const char *accept, char **body,
                               size_t *len, char media_type[256], char final_url[2048],
                               LwError *err)
{
  const Fetcher *f = user;
  LwVoidFetchHooks hooks = *f->hooks;
  hooks.accept = accept
                   ? accept
                   : "text/turtle, application/rdf+xml;q=0.9, application/ld+json;q=0.8, "
                     "application/n-triples;q=0.8, application/json;q=0.7, "
                     "application/xml;q=0.6, */*;q=0.1";
  LwVoidFetchInfo info;
  LwStatus st = lw_void_fetch_until(url, f->cfg, f->timeout_ms, NULL, NULL, &hooks, body,
                                    len, &info, err);
  snprintf(media_type, 256, "%s", info.content_type);
  snprintf(final_url, 2048, "%s", info.final_url);
  return st;
}

LwStatus lw_source_visit_read(void *provider, const LwConfig *cfg,
                              const LwVoidFetchHooks *hooks, long timeout_ms, void **result,
                              LwError *err)
{
  const LwProvider *p = provider;
  Fetcher f = {cfg, hooks, timeout_ms};
  LwSourceRequest req = {
    .url = p->source_url,
    .sparql_graph = p->sparql_graph,
    .sparql_query = p->sparql_query,
    .caps = {(unsigned long long)cfg->source_max_datasets,
             (unsigned long long)cfg->source_max_pages,
             (unsigned long long)cfg->source_max_bytes,
             (unsigned long long)cfg->source_max_dumps,
             (unsigned long long)cfg->sparql_page_size},
    .fetch = fetch_document,
    .fetch_user = &f,
  };
  if (!lw_source_kind_from_name(p->source, &req.kind) || req.kind == LW_SOURCE_VOID) {
    return lw_error_set(err, LW_ERR_USAGE, "not a source read page by page: %s", p->source);
  }
  LwSourcePage *page = NULL;
  LwStatus st = lw_source_read(&req, &page, err);
  *result = page;
  return st;
}

void lw_source_visit_free(void *result)
{
  lw_source_page_free(result);
}

/* ---- planning, on the scheduler's thread ---- */

/* What says a dataset changed: its version as published, and a short hash
 * of its dumps (a new distribution with the same dct:modified is a change
 * too; a dataset that says no version is known by its dumps alone, and a
 * dump's new content by the re-check of seeds, scheduler.c). */
static void version_key(const LwSourceDataset *ds, char *out, size_t size)
{
  LwMd5 *md5 = lw_md5_new();
  for (size_t i = 0; md5 && i < ds->dump_count; ++i) {
    const LwSourceDump *d = &ds->dumps[i];
    lw_md5_update(md5, d->url, strlen(d->url) + 1);
    if (d->checksum_value) {
      lw_md5_update(md5, d->checksum_value, strlen(d->checksum_value) + 1);
    }
  }
  char hex[LW_HASH_HEX_LEN + 1] = "";
  if (md5) {
    lw_md5_finish(md5, hex);
    lw_md5_free(md5);
  }
  snprintf(out, size, "%.400s#%.8s", ds->version, hex);
}

/* Before the first harvest: a dataset dated at or before the registry's
 * `modified` is taken as harvested already. */
static bool before_registry(const LwSourceDataset *ds, const LwProvider *p)
{
  LwDateTime dt;
  LwError e;
  return p->has_modified && ds->version[0] &&
         lw_datetime_parse(ds->version, strlen(ds->version), &dt, &e) == LW_OK &&
         dt.usec <= p->modified.usec;
}

static json_t *dataset_json(const LwSourceDataset *ds, const char *state)
{
  json_t *dumps = json_array(), *skipped = json_array();
  for (size_t i = 0; i < ds->dump_count; ++i) {
    json_array_append_new(dumps, json_string(ds->dumps[i].url));
  }
  for (size_t i = 0; i < ds->skip_count; ++i) {
    json_array_append_new(skipped, json_pack("{s:s?,s:s}", "url", ds->skips[i].url,
                                             "reason", ds->skips[i].reason));
  }
  return json_pack("{s:s,s:s?,s:s,s:s,s:o,s:o}", "id", ds->id, "title", ds->title,
                   "version", ds->version, "state", state, "dumps", dumps, "skipped",
                   skipped);
}

typedef struct {
  LwSourcePlan *out;
  json_t *listed, *baseline, *all_dumps, *taken; /* taken: URL -> true */
} Planning;

/* Adds ds's dumps to the harvest (each URL once: two datasets may share a
 * dump). */
static LwStatus take_dumps(Planning *pl, const LwSourceDataset *ds, LwError *err)
{
  for (size_t i = 0; i < ds->dump_count; ++i) {
    const LwSourceDump *d = &ds->dumps[i];
    if (json_object_get(pl->taken, d->url)) {
      continue;
    }
    json_object_set_new(pl->taken, d->url, json_true());
    LwSourcePlan *out = pl->out;
    LwHarvestDump *more = realloc(out->dumps, (out->dump_count + 1) * sizeof(*more));
    if (!more) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
    }
    out->dumps = more;
    out->dumps[out->dump_count++] = (LwHarvestDump){d->url, d->checksum_algorithm,
                                                    d->checksum_value, d->guess};
  }
  return LW_OK;
}

static LwStatus plan_dataset(Planning *pl, const LwSourceDataset *ds, json_t *harvested,
                             const LwProvider *p, bool all, LwError *err)
{
  char key[512];
  version_key(ds, key, sizeof(key));
  json_object_set_new(pl->baseline, ds->id, json_string(key));
  const char *before = json_string_value(json_object_get(harvested, ds->id));
  const char *state = before ? (strcmp(before, key) ? "changed" : "unchanged") : "new";
  if (!harvested && before_registry(ds, p)) {
    state = "unchanged";
  }
  LwSourcePlan *out = pl->out;
  out->added += !strcmp(state, "new");
  out->changed += !strcmp(state, "changed");
  out->unchanged += !strcmp(state, "unchanged");
  if (json_array_size(pl->listed) < DATASETS_LISTED) {
    json_array_append_new(pl->listed, dataset_json(ds, state));
  }
  for (size_t i = 0; i < ds->dump_count; ++i) {
    json_array_append_new(pl->all_dumps, json_string(ds->dumps[i].url));
  }
  if (!all && !strcmp(state, "unchanged")) {
    return LW_OK;
  }
  return take_dumps(pl, ds, err);
}

/* Datasets the last harvest saw that the source no longer lists: reported;
 * their triples stay (a provider cannot delete by absence). */
static void plan_gone(Planning *pl, json_t *harvested)
{
  const char *id;
  json_t *version;
  json_object_foreach(harvested, id, version) {
    if (json_object_get(pl->baseline, id)) {
      continue;
    }
    ++pl->out->gone;
    if (json_array_size(pl->listed) < DATASETS_LISTED) {
      json_array_append_new(pl->listed,
                            json_pack("{s:s,s:O,s:s,s:[],s:[]}", "id", id, "version",
                                      version, "state", "gone", "dumps", "skipped"));
    }
  }
}

static char *newest_version(const LwSourcePage *page)
{
  const char *newest = "";
  for (size_t i = 0; i < page->dataset_count; ++i) {
    if (strcmp(page->datasets[i].version, newest) > 0) {
      newest = page->datasets[i].version;
    }
  }
  return strdup(newest);
}

LwStatus lw_source_plan(const LwSourcePage *page, const char *harvested,
                        const LwProvider *p, bool all, LwSourcePlan *out, LwError *err)
{
  memset(out, 0, sizeof(*out));
  json_t *before = harvested && *harvested ? json_loads(harvested, 0, NULL) : NULL;
  if (before && !json_is_object(before)) {
    json_decref(before);
    before = NULL;
  }
  Planning pl = {out, json_array(), json_object(), json_array(), json_object()};
  LwStatus st = LW_OK;
  for (size_t i = 0; i < page->dataset_count && st == LW_OK; ++i) {
    st = plan_dataset(&pl, &page->datasets[i], before, p, all, err);
  }
  plan_gone(&pl, before);
  out->all = all || out->unchanged == 0;
  char *base = json_dumps(pl.baseline, JSON_COMPACT | JSON_SORT_KEYS);
  out->baseline_json = base;
  out->datasets_json = json_dumps(pl.listed, JSON_COMPACT);
  out->dumps_json = json_dumps(pl.all_dumps, JSON_COMPACT);
  out->newest = newest_version(page);
  if (base) {
    lw_md5_hex(base, strlen(base), out->version.hash);
  }
  json_decref(before);
  json_decref(pl.listed);
  json_decref(pl.baseline);
  json_decref(pl.all_dumps);
  json_decref(pl.taken);
  if (st == LW_OK && (!base || !out->datasets_json || !out->dumps_json || !out->newest)) {
    st = lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  if (st != LW_OK) {
    lw_source_plan_clear(out);
  }
  return st;
}

void lw_source_plan_clear(LwSourcePlan *plan)
{
  free(plan->dumps);
  free(plan->newest);
  free(plan->datasets_json);
  free(plan->baseline_json);
  free(plan->dumps_json);
  memset(plan, 0, sizeof(*plan));
}
