/*
 * `lodwash providers [--json] [OPTIONS]`: every provider of the registry with
 * what lodwash knows about it (scheduler/harvest.h): its VoID URL, the
 * registry's modified, the last dcterms:modified seen in the VoID, the last
 * harvested version, its state (idle, harvesting, error), the dumps of the
 * current or last harvest and the last error.
 *
 * --json prints an array of objects with the keys name, void, modified,
 * void_modified, harvested, state, dumps (array of URLs) and error (null
 * where nothing is known).
 *
 * Exit codes: 0, 1 (registry or Redis unusable), 2 (bad usage). The
 * registry's own problems (bad entries) are printed to stderr first.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/config.h"
#include "tools/commands.h"
#include "queue/keys.h"
#include "queue/redis.h"
#include "scheduler/harvest.h"
#include "scheduler/registry.h"

/* The string value of field in an HGETALL reply, or NULL. */
static const char *field_of(const redisReply *r, const char *field)
{
  for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2) {
    if (!strcmp(r->element[i]->str, field) && r->element[i + 1]->type == REDIS_REPLY_STRING) {
      return r->element[i + 1]->str;
    }
  }
  return NULL;
}

static json_t *string_or_null(const char *s)
{
  return s && *s ? json_string(s) : json_null();
}

/* The dumps of the current or last harvest, else those the VoID listed. */
static json_t *dumps_of(redisContext *c, const char *prefix, const redisReply *state)
{
  const char *harvest = field_of(state, "harvest");
  json_t *dumps = NULL;
  if (harvest && *harvest) {
    LwError err;
    redisReply *r = lw_redis_cmd(c, &err, "HGET", lw_key(prefix, LW_KEY_HARVEST, harvest).s,
                                 "dumps", NULL);
    if (r && r->type == REDIS_REPLY_STRING) {
      dumps = json_loads(r->str, 0, NULL);
    }
    freeReplyObject(r);
  }
  if (!json_is_array(dumps)) {
    json_decref(dumps);
    const char *listed = field_of(state, "void_dumps");
    dumps = listed ? json_loads(listed, 0, NULL) : NULL;
  }
  if (!json_is_array(dumps)) {
    json_decref(dumps);
    dumps = json_array();
  }
  return dumps;
}

static json_t *provider_json(redisContext *c, const char *prefix, const LwProvider *p,
                             LwError *err)
{
  /* Reading the state settles a harvest the import has ended. */
  LwProviderState state_now;
  if (lw_provider_state_read(c, prefix, p->name, &state_now, err) != LW_OK) {
    return NULL;
  }
  redisReply *r = lw_redis_cmd(c, err, "HGETALL", lw_key(prefix, LW_KEY_PROVIDER, p->name).s,
                               NULL);
  if (!r) {
    return NULL;
  }
  char modified[LW_DATETIME_BUF] = "";
  if (p->has_modified) {
    lw_datetime_format(&p->modified, modified);
  }
  const char *state = field_of(r, "state");
  json_t *o = json_object();
  json_object_set_new(o, "name", json_string(p->name));
  json_object_set_new(o, "void", json_string(p->void_url));
  json_object_set_new(o, "modified", string_or_null(modified));
  json_object_set_new(o, "void_modified", string_or_null(field_of(r, "void_modified")));
  json_object_set_new(o, "harvested", string_or_null(field_of(r, "harvested")));
  json_object_set_new(o, "state", json_string(state && *state ? state : "idle"));
  json_object_set_new(o, "dumps", dumps_of(c, prefix, r));
  json_object_set_new(o, "error", string_or_null(field_of(r, "error")));
  freeReplyObject(r);
  return o;
}

static const char *text_of(json_t *o, const char *key)
{
  const char *s = json_string_value(json_object_get(o, key));
  return s ? s : "-";
}

static void print_table(json_t *list)
{
  printf("%-16s %-11s %-22s %-22s %5s  %s\n", "NAME", "STATE", "VOID MODIFIED", "HARVESTED",
         "DUMPS", "VOID / ERROR");
  size_t i;
  json_t *o;
  json_array_foreach(list, i, o)
  {
    printf("%-16s %-11s %-22s %-22s %5zu  %s\n", text_of(o, "name"), text_of(o, "state"),
           text_of(o, "void_modified"), text_of(o, "harvested"),
           json_array_size(json_object_get(o, "dumps")), text_of(o, "void"));
    const char *error = json_string_value(json_object_get(o, "error"));
    if (error) {
      printf("%-16s error: %s\n", "", error);
    }
  }
}

int lw_cmd_providers(LwTool *tool, int argc, char **argv)
{
  bool as_json = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) {
      as_json = true;
    } else {
      return lw_tool_usage_error("providers: unexpected argument '%s'", argv[i]);
    }
  }
  const LwConfig *cfg = tool->config;
  LwError err;
  lw_error_clear(&err);
  LwRegistry *reg = NULL;
  if (lw_registry_load(cfg->registry, &reg, &err) != LW_OK) {
    return lw_tool_fail("providers: %s", err.message);
  }
  redisContext *c = lw_tool_redis(tool);
  if (!c) {
    lw_registry_free(reg);
    return LW_EXIT_FAIL;
  }
  for (size_t i = 0; i < reg->problem_count; ++i) {
    fprintf(stderr, "%s\n", reg->problems[i].message);
  }
  json_t *list = json_array();
  int code = LW_EXIT_OK;
  for (size_t i = 0; i < reg->count && code == LW_EXIT_OK; ++i) {
    json_t *o = provider_json(c, cfg->prefix, &reg->providers[i], &err);
    if (!o) {
      code = lw_tool_fail("providers: %s", err.message);
    }
    json_array_append_new(list, o);
  }
  if (code == LW_EXIT_OK && as_json) {
    lw_tool_print_json(list);
  } else if (code == LW_EXIT_OK) {
    print_table(list);
  }
  json_decref(list);
  lw_registry_free(reg);
  return code;
}
