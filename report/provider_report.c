#include "report/provider_report.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "queue/controls.h"
#include "queue/record.h"
#include "queue/records.h"
#include "queue/seed.h"
#include "queue/provider_record.h"

const char *const lw_provider_states[] = {"idle", "harvesting", "error",
                                          "held", "disabled",   NULL};

static json_t *string_or_null(const char *s)
{
  return s && *s ? json_string(s) : json_null();
}

static json_t *int_or_null(const json_t *record, const char *field)
{
  long long v = lw_record_int(record, field, -1);
  return v >= 0 ? json_integer(v) : json_null();
}

/* A time stored as ms since the epoch, as ISO 8601 (UTC), or null. */
static json_t *time_or_null(const json_t *record, const char *field)
{
  long long ms = lw_record_int(record, field, 0);
  char iso[LW_DATETIME_BUF];
  return ms > 0 ? json_string(lw_datetime_format_ms(ms, iso)) : json_null();
}

/* What became of the report's POST to the provider (scheduler/notify.h),
 * or null when none was made. */
static json_t *notify_json(const json_t *h)
{
  const char *status = lw_record_str(h, "notify_status", NULL);
  if (!status) {
    return json_null();
  }
  json_t *n = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "status", status, "url",
                        string_or_null(lw_record_str(h, "notify_url", NULL)), "attempts",
                        int_or_null(h, "notify_attempts"), "at",
                        time_or_null(h, "notify_at"), "http", int_or_null(h, "notify_http"),
                        "error", string_or_null(lw_record_str(h, "notify_error", NULL)));
  json_object_set_new(n, "next", time_or_null(h, "notify_next"));
  if (lw_record_int(h, "notify_http", 0) <= 0) { /* no answer at all */
    json_object_set_new(n, "http", json_null());
  }
  return n;
}

/* The summary of a harvest record h (id given). */
static json_t *harvest_summary(const char *id, const json_t *h)
{
  json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "id", id, "provider",
                        lw_record_str(h, "provider", ""), "status",
                        lw_record_str(h, "status", ""), "kind",
                        lw_record_str(h, "kind", ""), "void_modified",
                        string_or_null(lw_record_str(h, "modified", NULL)), "error",
                        string_or_null(lw_record_str(h, "error", NULL)));
  static const char *const counts[] = {"pending", "failed",  "files",        "triples",
                                       "added",   "removed", "foreign_graph"};
  for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); ++i) {
    json_object_set_new(o, counts[i], int_or_null(h, counts[i]));
  }
  json_object_set_new(o, "started", time_or_null(h, "started"));
  json_object_set_new(o, "finished", time_or_null(h, "finished"));
  long long started = lw_record_int(h, "started", 0);
  long long finished = lw_record_int(h, "finished", 0);
  json_object_set_new(o, "duration_s",
                      started > 0 && finished >= started
                        ? json_real((double)(finished - started) / 1000.0)
                        : json_null());
  json_object_set_new(o, "changeset_added",
                      string_or_null(lw_record_str(h, "changeset_added", NULL)));
  json_object_set_new(o, "changeset_removed",
                      string_or_null(lw_record_str(h, "changeset_removed", NULL)));
  json_t *failed = json_loads(lw_record_str(h, "failed_files", "[]"), 0, NULL);
  json_object_set_new(o, "failed_files", json_is_array(failed) ? failed : json_array());
  if (!json_is_array(failed)) {
    json_decref(failed);
  }
  json_object_set_new(o, "notify", notify_json(h));
  return o;
}

/* The progress and report of harvest id, or null. */
static json_t *harvest_json(LwRecords *c, const char *prefix, const char *id)
{
  json_t *h = NULL;
  LwError err;
  if (!id || !*id || lw_records_harvest_get(c, prefix, id, &h, &err) != LW_OK) {
    return json_null();
  }
  json_t *o = harvest_summary(id, h);
  json_decref(h);
  return o;
}

/* Files listed in a harvest's report at most: archives of archives of many
 * entries must not make a report without end. */
#define REPORT_FILES_MAX 10000

/* Whether seed is among the harvest's failed files ([{seed, uri, error}]). */
static bool in_failed_files(const json_t *failed_files, const char *seed)
{
  size_t i;
  const json_t *f;
  json_array_foreach(failed_files, i, f) {
    const char *s = json_string_value(json_object_get(f, "seed"));
    if (s && !strcmp(s, seed)) {
      return true;
    }
  }
  return false;
}

/* One file of a harvest as its seed record tells it, and after it the
 * entries of an archive (its "children"), each with its parent. */
static void add_file(LwRecords *c, const char *prefix, const char *seed, const char *parent,
                     const json_t *failed_files, json_t *files, int depth)
{
  if (json_array_size(files) >= REPORT_FILES_MAX || depth > 16) {
    return;
  }
  json_t *rec = NULL;
  LwError err;
  json_t *f = json_pack("{s:s}", "seed", seed);
  json_array_append_new(files, f);
  if (parent) {
    json_object_set_new(f, "parent", json_string(parent));
  }
  if (lw_seed_get(c, prefix, seed, &rec, &err) != LW_OK) {
    json_object_set_new(f, "outcome", json_string("unknown"));
    return;
  }
  const char *status = lw_record_str(rec, "status", "");
  bool failed = !strcmp(status, "failed") || in_failed_files(failed_files, seed);
  bool finished = lw_seed_status_done(status);
  /* a page or distribution of undeclared format that held no RDF */
  const char *skipped = !strcmp(status, "skipped") ? lw_record_str(rec, "skipped", "") : "";
  json_object_set_new(f, "uri", string_or_null(lw_record_str(rec, "uri", NULL)));
  json_object_set_new(f, "status", json_string(status));
  json_object_set_new(f, "outcome",
                      json_string(failed     ? "failed"
                                  : *skipped ? "skipped"
                                  : finished ? "ok"
                                             : "pending"));
  json_object_set_new(f, "skipped", *skipped ? json_string(skipped) : json_null());
  json_object_set_new(f, "format", string_or_null(lw_record_str(rec, "format", NULL)));
  json_object_set_new(f, "triples", int_or_null(rec, "triples"));
  json_object_set_new(f, "syntax_errors", int_or_null(rec, "syntax_errors"));
  json_object_set_new(f, "literal_errors", int_or_null(rec, "literal_errors"));
  json_object_set_new(f, "error", string_or_null(lw_record_str(rec, "error", NULL)));
  json_t *children = json_loads(lw_record_str(rec, "children", "[]"), 0, NULL);
  json_decref(rec);
  size_t i;
  const json_t *child;
  json_array_foreach(children, i, child) {
    if (json_is_string(child)) {
      add_file(c, prefix, json_string_value(child), seed, failed_files, files, depth + 1);
    }
  }
  json_decref(children);
}

LwStatus lw_harvest_report_json(LwRecords *c, const char *prefix, const char *id,
                                json_t **out, LwError *err)
{
  *out = NULL;
  json_t *h = NULL;
  LwStatus st = lw_records_harvest_get(c, prefix, id, &h, err);
  if (st != LW_OK) {
    return st;
  }
  json_t *o = harvest_summary(id, h);
  json_t *seeds = json_loads(lw_record_str(h, "seeds", "[]"), 0, NULL);
  json_t *files = json_array();
  size_t i;
  json_t *seed;
  json_array_foreach(seeds, i, seed) {
    if (json_is_string(seed)) {
      add_file(c, prefix, json_string_value(seed), NULL, json_object_get(o, "failed_files"),
               files, 0);
    }
  }
  json_decref(seeds);
  json_object_set_new(o, "file_count", json_incref(json_object_get(o, "files")));
  json_object_set_new(o, "files", files);
  json_decref(h);
  *out = o;
  return LW_OK;
}

static int newest_first(const void *a, const void *b)
{
  const char *x = json_string_value(json_object_get(*(json_t *const *)a, "started"));
  const char *y = json_string_value(json_object_get(*(json_t *const *)b, "started"));
  return strcmp(y ? y : "", x ? x : "");
}

/* LwHarvestEachFn: appends the harvest's summary to the list arg. */
static void add_summary(void *arg, const char *id, const json_t *h)
{
  json_array_append_new(arg, harvest_summary(id, h));
}

LwStatus lw_harvest_history_json(LwRecords *c, const char *prefix, const char *name,
                                 size_t limit, json_t **out, LwError *err)
{
  *out = NULL;
  json_t *list = json_array();
  LwStatus st = lw_records_harvest_each(c, prefix, name, add_summary, list, err);
  if (st != LW_OK) {
    json_decref(list);
    return st;
  }
  size_t n = json_array_size(list);
  json_t **items = calloc(n ? n : 1, sizeof(*items));
  for (size_t i = 0; items && i < n; ++i) {
    items[i] = json_incref(json_array_get(list, i));
  }
  if (items) {
    qsort(items, n, sizeof(*items), newest_first);
  }
  json_t *sorted = json_array();
  for (size_t i = 0; items && i < n; ++i) {
    if (i < limit) {
      json_array_append(sorted, items[i]);
    }
    json_decref(items[i]);
  }
  free(items);
  json_decref(list);
  *out = sorted;
  return LW_OK;
}

/* The dumps of the harvest, else those the VoID listed. */
static json_t *dumps_of(LwRecords *c, const char *prefix, const json_t *state)
{
  json_t *h = NULL;
  LwError err;
  const char *harvest = lw_record_str(state, "harvest", "");
  json_t *dumps = NULL;
  if (*harvest && lw_records_harvest_get(c, prefix, harvest, &h, &err) == LW_OK) {
    dumps = json_loads(lw_record_str(h, "dumps", "[]"), 0, NULL);
  }
  json_decref(h);
  if (!json_is_array(dumps)) {
    json_decref(dumps);
    dumps = json_loads(lw_record_str(state, "void_dumps", "[]"), 0, NULL);
  }
  if (!json_is_array(dumps)) {
    json_decref(dumps);
    dumps = json_array();
  }
  return dumps;
}

/* The datasets the last visit found in a catalogue, CKAN site, sitemap or
 * endpoint (scheduler/source_visit.c writes them), each with its version,
 * what became of it (changed, unchanged, new) and its skipped
 * distributions; an empty array for a VoID provider. */
static json_t *datasets_of(const json_t *state)
{
  json_t *d = json_loads(lw_record_str(state, "source_datasets", "[]"), 0, NULL);
  if (!json_is_array(d)) {
    json_decref(d);
    d = json_array();
  }
  return d;
}

LwStatus lw_provider_json(LwRecords *c, const char *prefix, const LwProvider *p,
                          json_t **out, LwError *err)
{
  *out = NULL;
  /* Reading the state settles a harvest the import has ended. */
  LwProviderState settled;
  LW_TRY(lw_provider_state_read(c, prefix, p->name, &settled, err));
  json_t *state = NULL;
  LwStatus st = lw_records_provider_get(c, prefix, p->name, &state, err);
  if (st > LW_NOTHING) {
    return st;
  }
  char modified[LW_DATETIME_BUF] = "";
  if (p->has_modified) {
    lw_datetime_format(&p->modified, modified);
  }
  const char *s = lw_record_str(state, "state", "");
  json_t *o = json_object();
  json_object_set_new(o, "name", json_string(p->name));
  const char *kind = p->source ? p->source : "void";
  json_object_set_new(o, "source", json_string(kind));
  json_object_set_new(o, "source_url", json_string(p->source_url));
  char url[2048]; /* shown on the pages and in the status: no user info */
  lw_url_redact(p->source_url, url, sizeof(url));
  json_object_set_new(o, "void", !strcmp(kind, "void") ? json_string(url) : json_null());
  json_object_set_new(o, "modified", string_or_null(modified));
  json_object_set_new(o, "void_modified",
                      string_or_null(lw_record_str(state, "void_modified", NULL)));
  json_object_set_new(o, "harvested",
                      string_or_null(lw_record_str(state, "harvested", NULL)));
  json_object_set_new(o, "harvested_at", time_or_null(state, "harvested_at"));
  json_object_set_new(o, "checked", time_or_null(state, "checked"));
  bool held = false;
  LwStatus hst = lw_controls_provider_held(c, prefix, p->name, &held, err);
  if (hst != LW_OK) {
    json_decref(o);
    json_decref(state);
    return hst;
  }
  /* held, or disabled in the registry (never visited), shows as the
   * state, unless a harvest still runs to its end */
  bool running = !strcmp(s, "harvesting");
  json_object_set_new(o, "state",
                      json_string(held && !running          ? "held"
                                  : !p->enabled && !running ? "disabled"
                                  : *s                      ? s
                                                            : "idle"));
  json_object_set_new(o, "held", json_boolean(held));
  json_object_set_new(o, "dumps", dumps_of(c, prefix, state));
  json_object_set_new(o, "datasets", datasets_of(state));
  json_object_set_new(o, "error", string_or_null(lw_record_str(state, "error", NULL)));
  json_object_set_new(o, "harvest",
                      harvest_json(c, prefix, lw_record_str(state, "harvest", NULL)));
  json_decref(state);
  *out = o;
  return LW_OK;
}

LwStatus lw_providers_json(LwRecords *c, const char *prefix, const LwRegistry *reg,
                           json_t **out, LwError *err)
{
  json_t *list = json_array();
  LwStatus st = LW_OK;
  for (size_t i = 0; st == LW_OK && i < reg->count; ++i) {
    json_t *o = NULL;
    st = lw_provider_json(c, prefix, &reg->providers[i], &o, err);
    if (st == LW_OK) {
      json_array_append_new(list, o);
    }
  }
  if (st != LW_OK) {
    json_decref(list);
    list = NULL;
  }
  *out = list;
  return st;
}
