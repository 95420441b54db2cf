#include "tests/support/source_lookup.h"

#include <stdio.h>
#include <string.h>

void lw_test_print_page(const LwSourcePage *p)
{
  for (size_t i = 0; p && i < p->warning_count; ++i) {
    fprintf(stderr, "    warning: %s\n", p->warnings[i]);
  }
  for (size_t i = 0; p && i < p->next_count; ++i) {
    fprintf(stderr, "    next: %s\n", p->next[i]);
  }
  for (size_t i = 0; p && i < p->dataset_count; ++i) {
    const LwSourceDataset *d = &p->datasets[i];
    fprintf(stderr, "    dataset %s (%s) version '%s'\n", d->id, d->title ? d->title : "-",
            d->version);
    for (size_t j = 0; j < d->dump_count; ++j) {
      const LwSourceDump *u = &d->dumps[j];
      fprintf(stderr, "      dump %s %s guess=%d %s:%s\n", u->url,
              u->media_type ? u->media_type : "-", u->guess,
              u->checksum_algorithm ? u->checksum_algorithm : "-",
              u->checksum_value ? u->checksum_value : "-");
    }
    for (size_t j = 0; j < d->skip_count; ++j) {
      fprintf(stderr, "      skip %s: %s\n", d->skips[j].url ? d->skips[j].url : "-",
              d->skips[j].reason);
    }
  }
}

LwSourceDataset *lw_test_dataset(const LwSourcePage *page, const char *id)
{
  for (size_t i = 0; page && i < page->dataset_count; ++i) {
    if (!strcmp(page->datasets[i].id, id)) {
      return &page->datasets[i];
    }
  }
  fprintf(stderr, "dataset %s not found in:\n", id);
  lw_test_print_page(page);
  return NULL;
}

const LwSourceDump *lw_test_dump(const LwSourceDataset *ds, const char *url)
{
  for (size_t i = 0; ds && i < ds->dump_count; ++i) {
    if (!strcmp(ds->dumps[i].url, url)) {
      return &ds->dumps[i];
    }
  }
  fprintf(stderr, "dump %s not found in %s\n", url, ds ? ds->id : "(no dataset)");
  return NULL;
}

const char *lw_test_skip_reason(const LwSourceDataset *ds, const char *url)
{
  for (size_t i = 0; ds && i < ds->skip_count; ++i) {
    const char *u = ds->skips[i].url;
    if (url ? u && !strcmp(u, url) : !u) {
      return ds->skips[i].reason;
    }
  }
  return NULL;
}

bool lw_test_has_next(const LwSourcePage *page, const char *url)
{
  for (size_t i = 0; page && i < page->next_count; ++i) {
    if (!strcmp(page->next[i], url)) {
      return true;
    }
  }
  fprintf(stderr, "next %s not found in:\n", url);
  lw_test_print_page(page);
  return false;
}
