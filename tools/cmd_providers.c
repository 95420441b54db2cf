/*
 * `lodwash providers [--json] [OPTIONS]`: every provider of the registry with
 * what lodwash knows about it (queue/provider_record.h): its VoID URL, the
 * registry's modified, the last dcterms:modified seen in the VoID, the last
 * harvested version, its state (idle, harvesting, error), the dumps of the
 * current or last harvest and the last error.
 *
 * --json prints an array of objects with the keys name, void, modified,
 * void_modified, harvested, state, dumps (array of URLs), error (null
 * where nothing is known) and harvest (report/provider_report.h).
 *
 * Exit codes: 0, 1 (registry or Redis unusable), 2 (bad usage). The
 * registry's own problems (bad entries) are printed to stderr first.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "tools/commands.h"
#include "queue/keys.h"
#include "queue/redis.h"
#include "report/provider_report.h"

static const char *text_of(json_t *o, const char *key)
{
  const char *s = json_string_value(json_object_get(o, key));
  return s ? s : "-";
}

static long long int_of(json_t *o, const char *key)
{
  return json_integer_value(json_object_get(o, key));
}

/* "harvest ID: done, 3 files (1 failed), 27 triples (+6 -2)" and the failed files. */
static void print_harvest(json_t *h)
{
  if (!json_is_object(h)) {
    return;
  }
  printf("%-16s harvest %s: %s, %lld files", "", text_of(h, "id"), text_of(h, "status"),
         int_of(h, "files"));
  if (int_of(h, "pending") > 0) {
    printf(" (%lld pending)", int_of(h, "pending"));
  }
  printf(", %lld triples (+%lld -%lld)", int_of(h, "triples"), int_of(h, "added"),
         int_of(h, "removed"));
  if (int_of(h, "foreign_graph") > 0) {
    printf(", %lld quads named another graph", int_of(h, "foreign_graph"));
  }
  putchar('\n');
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(h, "failed_files"), i, f) {
    printf("%-16s failed: %s (seed %s): %s\n", "", text_of(f, "uri"), text_of(f, "seed"),
           text_of(f, "error"));
  }
}

/* A catalogue's datasets in one line: how many, what became of them, how
 * many distributions were skipped (the JSON lists them all). */
static void print_datasets(const json_t *datasets)
{
  size_t n = json_array_size(datasets), skipped = 0, i;
  if (!n) {
    return;
  }
  size_t counts[4] = {0};
  static const char *const states[4] = {"new", "changed", "unchanged", "gone"};
  json_t *ds;
  json_array_foreach(datasets, i, ds) {
    const char *state = json_string_value(json_object_get(ds, "state"));
    for (size_t k = 0; k < 4; ++k) {
      counts[k] += state && !strcmp(state, states[k]);
    }
    skipped += json_array_size(json_object_get(ds, "skipped"));
  }
  printf("%-16s datasets: %zu (%zu new, %zu changed, %zu unchanged, %zu gone); %zu "
         "distributions skipped (see --json)\n",
         "", n, counts[0], counts[1], counts[2], counts[3], skipped);
}

/* HARVESTED: the dcterms:modified harvested; a provider without one (a
 * catalogue, a sitemap, a SPARQL endpoint: its versions are content
 * hashes) shows when its last harvest ended. */
static const char *harvested_of(json_t *o)
{
  const char *modified = json_string_value(json_object_get(o, "harvested"));
  return modified && *modified ? modified : text_of(o, "harvested_at");
}

static void print_table(json_t *list)
{
  printf("%-16s %-11s %-22s %-22s %5s  %s\n", "NAME", "STATE", "VOID MODIFIED", "HARVESTED",
         "DUMPS", "SOURCE / ERROR");
  size_t i;
  json_t *o;
  json_array_foreach(list, i, o) {
    printf("%-16s %-11s %-22s %-22s %5zu  %s\n", text_of(o, "name"), text_of(o, "state"),
           text_of(o, "void_modified"), harvested_of(o),
           json_array_size(json_object_get(o, "dumps")), text_of(o, "source_url"));
    print_datasets(json_object_get(o, "datasets"));
    print_harvest(json_object_get(o, "harvest"));
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
  LwRegistry *reg = lw_tool_registry(tool, "providers");
  if (!reg) {
    return LW_EXIT_FAIL;
  }
  LwRecords *c = lw_tool_redis(tool);
  if (!c) {
    lw_registry_free(reg);
    return LW_EXIT_FAIL;
  }
  for (size_t i = 0; i < reg->problem_count; ++i) {
    fprintf(stderr, "%s\n", reg->problems[i].message);
  }
  json_t *list = NULL;
  int code = LW_EXIT_OK;
  if (lw_providers_json(c, cfg->prefix, reg, &list, &err) != LW_OK) {
    code = lw_tool_fail("providers: %s", err.message);
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
