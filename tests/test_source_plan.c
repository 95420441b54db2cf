/* Planning a visit of a catalogue (scheduler/source_visit.h): which
 * datasets are new, changed, unchanged or gone against the last harvest's
 * versions, which dumps a harvest takes (each URL once), the version hash
 * the decision compares (the same for the same datasets in any order), and
 * the registry's `modified` before the first harvest. */
#include <jansson.h>
#include <string.h>

#include "scheduler/source_visit.h"
#include "tests/support/check.h"

/* A page of datasets "id:version:dump,dump" ... */
static LwSourcePage *page_of(const char *const *specs, size_t n)
{
  LwSourcePage *page = lw_source_page_new();
  for (size_t i = 0; i < n; ++i) {
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", specs[i]);
    char *version = strchr(buf, ':');
    *version++ = '\0';
    char *dumps = strchr(version, ':');
    *dumps++ = '\0';
    LwSourceDataset *ds = lw_source_dataset(page, buf);
    lw_source_dataset_set_version(ds, version);
    for (char *d = strtok(dumps, ","); d; d = strtok(NULL, ",")) {
      lw_source_dump_add(ds, d, NULL, false);
    }
  }
  return page;
}

static const char *state_of(const LwSourcePlan *plan, const char *id)
{
  static char state[32];
  json_t *list = json_loads(plan->datasets_json, 0, NULL);
  size_t i;
  json_t *ds;
  snprintf(state, sizeof(state), "absent");
  json_array_foreach(list, i, ds) {
    if (!strcmp(json_string_value(json_object_get(ds, "id")), id)) {
      snprintf(state, sizeof(state), "%s", json_string_value(json_object_get(ds, "state")));
    }
  }
  json_decref(list);
  return state;
}

static bool takes(const LwSourcePlan *plan, const char *url)
{
  for (size_t i = 0; i < plan->dump_count; ++i) {
    if (!strcmp(plan->dumps[i].url, url)) {
      return true;
    }
  }
  return false;
}

static void test_first_then_changes(void)
{
  LwProvider p = {.name = (char *)"cat", .source = "dcat", .enabled = true};
  LwError err;
  const char *first[] = {"d1:2024-01-01:http://x/1.nt",
                         "d2:2024-01-01:http://x/2.nt,http://x/s.nt",
                         "d3::http://x/3.nt,http://x/s.nt"};
  LwSourcePage *page = page_of(first, 3);
  LwSourcePlan plan;
  CHECK_INT_EQ(lw_source_plan(page, NULL, &p, false, &plan, &err), LW_OK);
  CHECK_INT_EQ(plan.added, 3);
  CHECK(plan.all);
  CHECK_INT_EQ(plan.dump_count, 4); /* the shared dump once */
  CHECK_STR_EQ(plan.newest, "2024-01-01");
  char *baseline = strdup(plan.baseline_json);
  char hash[LW_HASH_HEX_LEN + 1];
  snprintf(hash, sizeof(hash), "%s", plan.version.hash);
  lw_source_plan_clear(&plan);
  lw_source_page_free(page);

  /* the same datasets in another order: the same version, all unchanged */
  const char *again[] = {"d3::http://x/3.nt,http://x/s.nt", "d1:2024-01-01:http://x/1.nt",
                         "d2:2024-01-01:http://x/2.nt,http://x/s.nt"};
  page = page_of(again, 3);
  CHECK_INT_EQ(lw_source_plan(page, baseline, &p, false, &plan, &err), LW_OK);
  CHECK_STR_EQ(plan.version.hash, hash);
  CHECK_INT_EQ(plan.unchanged, 3);
  CHECK_INT_EQ(plan.dump_count, 0);
  lw_source_plan_clear(&plan);
  /* forced: every dump, though nothing changed */
  CHECK_INT_EQ(lw_source_plan(page, baseline, &p, true, &plan, &err), LW_OK);
  CHECK_INT_EQ(plan.dump_count, 4);
  CHECK(plan.all);
  lw_source_plan_clear(&plan);
  lw_source_page_free(page);

  /* d1 a new version, d3 a new dump (no version: its dumps are its
   * version), d2 gone, d4 new */
  const char *later[] = {"d1:2024-02-01:http://x/1.nt",
                         "d3::http://x/3.nt,http://x/s.nt,http://x/3b.nt",
                         "d4:2023-01-01:http://x/4.nt"};
  page = page_of(later, 3);
  CHECK_INT_EQ(lw_source_plan(page, baseline, &p, false, &plan, &err), LW_OK);
  CHECK_STR_EQ(state_of(&plan, "d1"), "changed");
  CHECK_STR_EQ(state_of(&plan, "d2"), "gone");
  CHECK_STR_EQ(state_of(&plan, "d3"), "changed");
  CHECK_STR_EQ(state_of(&plan, "d4"), "new");
  CHECK(plan.version.hash[0] && strcmp(plan.version.hash, hash));
  CHECK(takes(&plan, "http://x/1.nt") && takes(&plan, "http://x/3b.nt") &&
        takes(&plan, "http://x/4.nt") && !takes(&plan, "http://x/2.nt"));
  CHECK(plan.all); /* every dataset listed now is taken */
  CHECK(strstr(plan.baseline_json, "\"d2\"") == NULL);
  lw_source_plan_clear(&plan);
  lw_source_page_free(page);
  free(baseline);
}

static void test_registry_modified(void)
{
  LwProvider p = {.name = (char *)"cat", .source = "dcat", .enabled = true};
  LwError err;
  CHECK_INT_EQ(lw_datetime_parse("2024-01-15", 10, &p.modified, &err), LW_OK);
  p.has_modified = true;
  const char *specs[] = {"old:2024-01-01:http://x/old.nt", "new:2024-02-01:http://x/new.nt",
                         "undated::http://x/u.nt"};
  LwSourcePage *page = page_of(specs, 3);
  LwSourcePlan plan;
  CHECK_INT_EQ(lw_source_plan(page, NULL, &p, false, &plan, &err), LW_OK);
  CHECK_STR_EQ(state_of(&plan, "old"), "unchanged");
  CHECK(!takes(&plan, "http://x/old.nt") && takes(&plan, "http://x/new.nt") &&
        takes(&plan, "http://x/u.nt"));
  CHECK(!plan.all);
  lw_source_plan_clear(&plan);
  lw_source_page_free(page);
}

int main(void)
{
  test_first_then_changes();
  test_registry_modified();
  return lw_test_finish();
}
