/*
 * The shape every source is read into: pages of datasets with their dumps
 * and skips. Small growing arrays; every function is NULL-safe on failure
 * (out of memory leaves the page as it was).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/sources.h"

static const char *const kind_names[LW_SOURCE_KIND_COUNT] = {"void", "dcat", "ckan",
                                                             "sitemap", "sparql"};

const char *lw_source_kind_name(LwSourceKind kind)
{
  return kind < LW_SOURCE_KIND_COUNT ? kind_names[kind] : "?";
}

bool lw_source_kind_from_name(const char *name, LwSourceKind *out)
{
  for (int k = 0; k < LW_SOURCE_KIND_COUNT; ++k) {
    if (name && !strcmp(name, kind_names[k])) {
      *out = (LwSourceKind)k;
      return true;
    }
  }
  return false;
}

/* Datasets by id: open addressing over the datasets' positions (+1; 0 is
 * free), rebuilt at twice the size when half full, so that a catalogue of
 * 100,000 datasets is not 10^10 string compares. */
struct LwSourceIndex {
  size_t *slots;
  size_t size; /* a power of two */
};

static size_t id_hash(const char *id)
{
  size_t h = 1469598103934665603u; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)id; *p; ++p) {
    h = (h ^ *p) * 1099511628211u;
  }
  return h;
}

/* The slot of id: where it is, or the free one where it would go. */
static size_t *index_slot(const LwSourcePage *page, const char *id)
{
  const struct LwSourceIndex *ix = page->index;
  for (size_t i = id_hash(id) & (ix->size - 1);; i = (i + 1) & (ix->size - 1)) {
    size_t at = ix->slots[i];
    if (!at || !strcmp(page->datasets[at - 1].id, id)) {
      return &ix->slots[i];
    }
  }
}

/* Room for one more dataset in the index; false when out of memory. */
static bool index_reserve(LwSourcePage *page)
{
  struct LwSourceIndex *ix = page->index;
  if (ix && (page->dataset_count + 1) * 2 <= ix->size) {
    return true;
  }
  size_t size = ix ? ix->size * 2 : 64;
  size_t *slots = calloc(size, sizeof(*slots));
  if (!ix && slots) {
    ix = page->index = calloc(1, sizeof(*ix));
  }
  if (!slots || !ix) {
    free(slots);
    return false;
  }
  free(ix->slots);
  ix->slots = slots;
  ix->size = size;
  for (size_t i = 0; i < page->dataset_count; ++i) {
    *index_slot(page, page->datasets[i].id) = i + 1;
  }
  return true;
}

LwSourcePage *lw_source_page_new(void)
{
  return calloc(1, sizeof(LwSourcePage));
}

/* Makes room for one more element in *items (count n, element size size). */
static bool grow(void **items, size_t n, size_t size)
{
  if (n & (n - 1)) {
    return true; /* capacity is the next power of two at or above n */
  }
  void *p = realloc(*items, (n ? n * 2 : 1) * size);
  if (!p) {
    return false;
  }
  *items = p;
  return true;
}

static void dataset_clear(LwSourceDataset *ds)
{
  for (size_t i = 0; i < ds->dump_count; ++i) {
    LwSourceDump *d = &ds->dumps[i];
    free(d->url);
    free(d->media_type);
    free(d->checksum_algorithm);
    free(d->checksum_value);
  }
  for (size_t i = 0; i < ds->skip_count; ++i) {
    free(ds->skips[i].url);
    free(ds->skips[i].reason);
  }
  free(ds->dumps);
  free(ds->skips);
  free(ds->id);
  free(ds->title);
  free(ds->version);
}

void lw_source_page_free(LwSourcePage *page)
{
  if (!page) {
    return;
  }
  for (size_t i = 0; i < page->dataset_count; ++i) {
    dataset_clear(&page->datasets[i]);
  }
  for (size_t i = 0; i < page->next_count; ++i) {
    free(page->next[i]);
  }
  for (size_t i = 0; i < page->warning_count; ++i) {
    free(page->warnings[i]);
  }
  if (page->index) {
    free(page->index->slots);
    free(page->index);
  }
  free(page->datasets);
  free(page->next);
  free(page->warnings);
  free(page);
}

LwSourceDataset *lw_source_dataset(LwSourcePage *page, const char *id)
{
  if (!index_reserve(page)) {
    return NULL;
  }
  size_t *slot = index_slot(page, id);
  if (*slot) {
    return &page->datasets[*slot - 1];
  }
  if (!grow((void **)&page->datasets, page->dataset_count, sizeof(LwSourceDataset))) {
    return NULL;
  }
  LwSourceDataset *ds = &page->datasets[page->dataset_count];
  memset(ds, 0, sizeof(*ds));
  ds->id = strdup(id);
  ds->version = strdup("");
  if (!ds->id || !ds->version) {
    free(ds->id);
    free(ds->version);
    return NULL;
  }
  *slot = ++page->dataset_count;
  return ds;
}

static bool replace(char **field, const char *text)
{
  char *copy = strdup(text ? text : "");
  if (!copy) {
    return false;
  }
  free(*field);
  *field = copy;
  return true;
}

bool lw_source_dataset_set_version(LwSourceDataset *ds, const char *version)
{
  if (!version || (ds->version && strcmp(version, ds->version) <= 0)) {
    return true;
  }
  return replace(&ds->version, version);
}

bool lw_source_dataset_set_title(LwSourceDataset *ds, const char *title)
{
  return replace(&ds->title, title);
}

static char *lower_dup(const char *s)
{
  char *copy = s ? strdup(s) : NULL;
  for (char *p = copy; p && *p; ++p) {
    if (*p >= 'A' && *p <= 'Z') {
      *p = (char)(*p - 'A' + 'a');
    }
  }
  return copy;
}

LwSourceDump *lw_source_dump_add(LwSourceDataset *ds, const char *url,
                                 const char *media_type, bool guess)
{
  for (size_t i = 0; i < ds->dump_count; ++i) {
    if (!strcmp(ds->dumps[i].url, url)) {
      return &ds->dumps[i];
    }
  }
  if (!grow((void **)&ds->dumps, ds->dump_count, sizeof(LwSourceDump))) {
    return NULL;
  }
  LwSourceDump *d = &ds->dumps[ds->dump_count];
  memset(d, 0, sizeof(*d));
  d->url = strdup(url);
  d->media_type = lower_dup(media_type);
  d->guess = guess;
  if (!d->url || (media_type && !d->media_type)) {
    free(d->url);
    free(d->media_type);
    return NULL;
  }
  ++ds->dump_count;
  return d;
}

bool lw_source_dump_set_checksum(LwSourceDump *d, const char *algorithm, const char *value)
{
  char *a = lower_dup(algorithm), *v = lower_dup(value);
  if (!a || !v) {
    free(a);
    free(v);
    return false;
  }
  free(d->checksum_algorithm);
  free(d->checksum_value);
  d->checksum_algorithm = a;
  d->checksum_value = v;
  return true;
}

bool lw_source_skip_add(LwSourceDataset *ds, const char *url, const char *fmt, ...)
{
  char reason[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof(reason), fmt, ap);
  va_end(ap);
  if (!grow((void **)&ds->skips, ds->skip_count, sizeof(LwSourceSkip))) {
    return false;
  }
  LwSourceSkip *s = &ds->skips[ds->skip_count];
  s->url = url ? strdup(url) : NULL;
  s->reason = strdup(reason);
  if ((url && !s->url) || !s->reason) {
    free(s->url);
    free(s->reason);
    return false;
  }
  ++ds->skip_count;
  return true;
}

static bool list_add(char ***list, size_t *n, const char *s)
{
  if (!grow((void **)list, *n, sizeof(char *))) {
    return false;
  }
  char *copy = strdup(s);
  if (!copy) {
    return false;
  }
  (*list)[(*n)++] = copy;
  return true;
}

bool lw_source_next_add(LwSourcePage *page, const char *url)
{
  for (size_t i = 0; i < page->next_count; ++i) {
    if (!strcmp(page->next[i], url)) {
      return true;
    }
  }
  return list_add(&page->next, &page->next_count, url);
}

void lw_source_warn(LwSourcePage *page, const char *fmt, ...)
{
  if (page->warning_count >= LW_SOURCE_MAX_WARNINGS) {
    return;
  }
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  list_add(&page->warnings, &page->warning_count, text);
}

size_t lw_source_page_dump_count(const LwSourcePage *page)
{
  size_t n = 0;
  for (size_t i = 0; i < page->dataset_count; ++i) {
    n += page->datasets[i].dump_count;
  }
  return n;
}
