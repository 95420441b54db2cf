#include "scheduler/provider_report.h"

#include <stdlib.h>
#include <string.h>

#include "common/datetime.h"
#include "queue/controls.h"
#include "queue/keys.h"
#include "queue/record.h"
#include "scheduler/harvest.h"

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

/* The progress and report of harvest id, or null. */
static json_t *harvest_json(redisContext *c, const char *prefix, const char *id)
{
  json_t *h = NULL;
  LwError err;
  if (!id || !*id ||
      lw_record_get(c, lw_key(prefix, LW_KEY_HARVEST, id).s, &h, &err) != LW_OK) {
    return json_null();
  }
  json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:o}", "id", id, "status",
                        lw_record_str(h, "status", ""), "kind", lw_record_str(h, "kind", ""),
                        "void_modified", string_or_null(lw_record_str(h, "modified", NULL)),
                        "error", string_or_null(lw_record_str(h, "error", NULL)));
  static const char *const counts[] = {"pending", "failed", "files", "triples",
                                       "added", "removed", "foreign_graph"};
  for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); ++i) {
    json_object_set_new(o, counts[i], int_or_null(h, counts[i]));
  }
  json_object_set_new(o, "started", time_or_null(h, "started"));
  json_object_set_new(o, "finished", time_or_null(h, "finished"));
  long long started = lw_record_int(h, "started", 0);
  long long finished = lw_record_int(h, "finished", 0);
  json_object_set_new(o, "duration_s", started > 0 && finished >= started
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
  json_decref(h);
  return o;
}

/* The dumps of the harvest, else those the VoID listed. */
static json_t *dumps_of(redisContext *c, const char *prefix, const json_t *state)
{
  json_t *h = NULL;
  LwError err;
  const char *harvest = lw_record_str(state, "harvest", "");
  json_t *dumps = NULL;
  if (*harvest &&
      lw_record_get(c, lw_key(prefix, LW_KEY_HARVEST, harvest).s, &h, &err) == LW_OK) {
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

LwStatus lw_provider_json(redisContext *c, const char *prefix, const LwProvider *p,
                          json_t **out, LwError *err)
{
  *out = NULL;
  /* Reading the state settles a harvest the import has ended. */
  LwProviderState settled;
  LW_TRY(lw_provider_state_read(c, prefix, p->name, &settled, err));
  json_t *state = NULL;
  LwStatus st = lw_record_get(c, lw_key(prefix, LW_KEY_PROVIDER, p->name).s, &state, err);
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
  json_object_set_new(o, "void", json_string(p->void_url));
  json_object_set_new(o, "modified", string_or_null(modified));
  json_object_set_new(o, "void_modified", string_or_null(lw_record_str(state, "void_modified", NULL)));
  json_object_set_new(o, "harvested", string_or_null(lw_record_str(state, "harvested", NULL)));
  json_object_set_new(o, "harvested_at", time_or_null(state, "harvested_at"));
  json_object_set_new(o, "checked", time_or_null(state, "checked"));
  bool held = false;
  LwStatus hst = lw_controls_provider_held(c, prefix, p->name, &held, err);
  if (hst != LW_OK) {
    json_decref(o);
    json_decref(state);
    return hst;
  }
  /* held shows as the state, unless a harvest still runs to its end */
  json_object_set_new(o, "state", json_string(held && strcmp(s, "harvesting") ? "held"
                                              : *s                           ? s
                                                                             : "idle"));
  json_object_set_new(o, "held", json_boolean(held));
  json_object_set_new(o, "dumps", dumps_of(c, prefix, state));
  json_object_set_new(o, "error", string_or_null(lw_record_str(state, "error", NULL)));
  json_object_set_new(o, "harvest", harvest_json(c, prefix, lw_record_str(state, "harvest", NULL)));
  json_decref(state);
  *out = o;
  return LW_OK;
}

LwStatus lw_providers_json(redisContext *c, const char *prefix, const LwRegistry *reg,
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
