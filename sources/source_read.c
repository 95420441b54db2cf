/*
 * Reading a whole source: the first document, then every document its
 * pages name (Hydra's next pages, a sitemap index's sitemaps, CKAN's next
 * search page, catalogues and datasets described elsewhere), each URL
 * once, breadth first, within the caps. A SPARQL endpoint is one request
 * (its version); its pages are the harvest's dumps.
 *
 * Everything a publisher controls is bounded: documents (a paging cycle
 * ends at the first URL seen twice; endless distinct `next` links at
 * max_pages), bytes, datasets and dumps. Each bound reached is an error
 * naming it, so the provider shows why and the other providers go on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/sources.h"

#define CKAN_ROWS 1000u /* CKAN's own default cap on rows */

typedef struct {
  const LwSourceRequest *req;
  LwSourcePage *all;
  char **queue; /* every URL taken in, in order; [done, count) are to read */
  size_t count, done;
  LwHexSet *seen; /* their MD5s: a URL named again is known at once */
  unsigned long long bytes;
  LwError *err;
} Reading;

static LwStatus take_url(Reading *r, const char *url)
{
  char md5[LW_HASH_HEX_LEN + 1];
  lw_md5_hex(url, strlen(url), md5);
  if (lw_hex_set_has(r->seen, md5)) {
    return LW_OK; /* read already, or about to be: a paging cycle */
  }
  if (r->count >= r->req->caps.max_pages) {
    return lw_error_set(r->err, LW_ERR_LIMIT,
                        "more than %llu documents to read (source-max-pages): the last was "
                        "%.300s",
                        r->req->caps.max_pages, url);
  }
  char **q = realloc(r->queue, (r->count + 1) * sizeof(*q));
  if (!q || !(q[r->count] = strdup(url))) {
    if (q) {
      r->queue = q;
    }
    return lw_error_set(r->err, LW_ERR_NOMEM, "out of memory");
  }
  r->queue = q;
  ++r->count;
  return lw_hex_set_add(r->seen, md5) < 0
           ? lw_error_set(r->err, LW_ERR_NOMEM, "out of memory")
           : LW_OK;
}

/* Copies ds (from one page) into the whole source's dataset of that id. */
static bool merge_dataset(LwSourcePage *all, const LwSourceDataset *ds)
{
  LwSourceDataset *to = lw_source_dataset(all, ds->id);
  if (!to || !lw_source_dataset_set_version(to, ds->version) ||
      (ds->title && !to->title && !lw_source_dataset_set_title(to, ds->title))) {
    return false;
  }
  for (size_t i = 0; i < ds->dump_count; ++i) {
    const LwSourceDump *d = &ds->dumps[i];
    LwSourceDump *copy = lw_source_dump_add(to, d->url, d->media_type, d->guess);
    if (!copy || (d->checksum_value && !lw_source_dump_set_checksum(
                                         copy, d->checksum_algorithm, d->checksum_value))) {
      return false;
    }
  }
  for (size_t i = 0; i < ds->skip_count; ++i) {
    if (!lw_source_skip_add(to, ds->skips[i].url, "%s", ds->skips[i].reason)) {
      return false;
    }
  }
  return true;
}

static LwStatus merge_page(Reading *r, const LwSourcePage *page, const char *url)
{
  const LwSourceCaps *caps = &r->req->caps;
  for (size_t i = 0; i < page->dataset_count; ++i) {
    if (!merge_dataset(r->all, &page->datasets[i])) {
      return lw_error_set(r->err, LW_ERR_NOMEM, "out of memory");
    }
  }
  if (r->all->dataset_count > caps->max_datasets || page->total > caps->max_datasets) {
    return lw_error_set(r->err, LW_ERR_LIMIT,
                        "more than %llu datasets (source-max-datasets) by %.300s",
                        caps->max_datasets, url);
  }
  if (lw_source_page_dump_count(r->all) > caps->max_dumps) {
    return lw_error_set(r->err, LW_ERR_LIMIT,
                        "more than %llu dumps (source-max-dumps) by %.300s",
                        caps->max_dumps, url);
  }
  for (size_t i = 0; i < page->warning_count; ++i) {
    lw_source_warn(r->all, "%.300s: %s", url, page->warnings[i]);
  }
  for (size_t i = 0; i < page->next_count; ++i) {
    LW_TRY(take_url(r, page->next[i]));
  }
  return LW_OK;
}

static LwStatus parse(LwSourceKind kind, const char *body, size_t len, const char *url,
                      const char *media_type, LwSourcePage **page, LwError *err)
{
  switch (kind) {
  case LW_SOURCE_DCAT:
    return lw_dcat_parse(body, len, url, media_type, page, err);
  case LW_SOURCE_CKAN:
    return lw_ckan_parse(body, len, url, page, err);
  case LW_SOURCE_SITEMAP:
    return lw_sitemap_parse(body, len, url, page, err);
  default:
    return lw_error_set(err, LW_ERR_USAGE, "%s is not read page by page",
                        lw_source_kind_name(kind));
  }
}

/* Fetches and reads the document at r->queue[r->done]. */
static LwStatus read_one(Reading *r)
{
  const LwSourceRequest *req = r->req;
  const char *url = r->queue[r->done];
  char *body = NULL, media[256] = "", final[2048] = "";
  size_t len = 0;
  LwError ferr;
  lw_error_clear(&ferr);
  LwStatus st = req->fetch(req->fetch_user, url, NULL, &body, &len, media, final, &ferr);
  if (st != LW_OK) {
    free(body);
    return lw_error_set(r->err, st, "%.300s: %s", url, ferr.message);
  }
  r->bytes += len;
  if (r->bytes > req->caps.max_bytes) {
    free(body);
    return lw_error_set(r->err, LW_ERR_LIMIT,
                        "more than %llu bytes of documents (source-max-bytes) by %.300s",
                        req->caps.max_bytes, url);
  }
  LwSourcePage *page = NULL;
  st = parse(req->kind, body, len, final[0] ? final : url, media, &page, &ferr);
  free(body);
  if (st != LW_OK) {
    return lw_error_set(r->err, st, "%.300s: %s", url, ferr.message);
  }
  st = merge_page(r, page, url);
  lw_source_page_free(page);
  return st;
}

/* The endpoint's Service Description, when it says the graph's size and
 * modified: LW_OK with *version and *triples; LW_NOTHING when there is none
 * or it says less (a failed fetch included: the count query decides). */
static LwStatus described_version(const LwSourceRequest *req, const LwSparqlSource *s,
                                  char **version, unsigned long long *triples, LwError *err)
{
  char *body = NULL, media[256] = "", final[2048] = "";
  size_t len = 0;
  LwError ferr;
  lw_error_clear(&ferr);
  LwStatus st = req->fetch(req->fetch_user, req->url,
                           "text/turtle, application/rdf+xml;q=0.9", &body, &len, media,
                           final, &ferr);
  if (st == LW_OK) {
    st = lw_sparql_description_parse(body, len, final[0] ? final : req->url, media,
                                     s->graph, version, triples, err);
  } else {
    st = LW_NOTHING;
  }
  free(body);
  return st;
}

/* The version from the count query. */
static LwStatus counted_version(const LwSourceRequest *req, const LwSparqlSource *s,
                                char **version, unsigned long long *triples, LwError *err)
{
  char *url = lw_sparql_version_url(s);
  char *body = NULL, media[256] = "", final[2048] = "";
  size_t len = 0;
  LwStatus st = url ? req->fetch(req->fetch_user, url, "application/sparql-results+json",
                                 &body, &len, media, final, err)
                    : lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  free(url);
  if (st == LW_OK) {
    st = lw_sparql_version_parse(body, len, version, triples, err);
  }
  free(body);
  return st;
}

/* The endpoint's one dataset: its version from its Service Description or
 * the count query, its pages as dumps. */
static LwStatus read_sparql(const LwSourceRequest *req, LwSourcePage *all, LwError *err)
{
  LwSparqlSource s = {req->url, req->sparql_graph, req->sparql_query,
                      req->caps.sparql_page_size ? req->caps.sparql_page_size : 50000};
  char *version = NULL;
  unsigned long long triples = 0;
  LwError ferr;
  lw_error_clear(&ferr);
  LwStatus st = described_version(req, &s, &version, &triples, &ferr);
  if (st == LW_NOTHING) {
    st = counted_version(req, &s, &version, &triples, &ferr);
  }
  if (st != LW_OK) {
    return lw_error_set(err, st, "endpoint %.300s: %s", req->url, ferr.message);
  }
  unsigned long long pages = triples ? (triples + s.page_size - 1) / s.page_size : 1;
  LwSourceDataset *ds = lw_source_dataset(all, req->url);
  st = ds && lw_source_dataset_set_version(ds, version) ? LW_OK : LW_ERR_NOMEM;
  free(version);
  if (st == LW_OK && pages > req->caps.max_dumps) {
    return lw_error_set(err, LW_ERR_LIMIT,
                        "endpoint %.300s holds %llu triples: %llu pages of %llu, more than "
                        "%llu (source-max-dumps; raise it or sparql-page-size)",
                        req->url, triples, pages, s.page_size, req->caps.max_dumps);
  }
  for (unsigned long long i = 0; i < pages && st == LW_OK; ++i) {
    char *page = lw_sparql_page_url(&s, i);
    st = page && lw_source_dump_add(ds, page, "application/n-triples", false)
           ? LW_OK
           : LW_ERR_NOMEM;
    free(page);
  }
  return st == LW_OK ? LW_OK : lw_error_set(err, st, "out of memory");
}

/* The first document of a source: the registry's URL, or for CKAN the
 * Action API behind it. */
static char *first_url(const LwSourceRequest *req)
{
  if (req->kind != LW_SOURCE_CKAN) {
    return strdup(req->url);
  }
  unsigned long long rows = req->caps.max_datasets < CKAN_ROWS ? req->caps.max_datasets
                                                               : CKAN_ROWS;
  return lw_ckan_api_url(req->url, 0, (unsigned)(rows ? rows : 1));
}

static LwStatus read_pages(Reading *r)
{
  char *first = first_url(r->req);
  LwStatus st = first ? take_url(r, first)
                      : lw_error_set(r->err, LW_ERR_NOMEM, "out of memory");
  free(first);
  while (st == LW_OK && r->done < r->count) {
    st = read_one(r);
    ++r->done;
  }
  return st;
}

LwStatus lw_source_read(const LwSourceRequest *req, LwSourcePage **out, LwError *err)
{
  *out = NULL;
  Reading r = {req, lw_source_page_new(), NULL, 0, 0, lw_hex_set_new(), 0, err};
  if (!r.all || !r.seen) {
    lw_source_page_free(r.all);
    lw_hex_set_free(r.seen);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwStatus st = req->kind == LW_SOURCE_SPARQL ? read_sparql(req, r.all, err)
                                              : read_pages(&r);
  for (size_t i = 0; i < r.count; ++i) {
    free(r.queue[i]);
  }
  free(r.queue);
  lw_hex_set_free(r.seen);
  if (st == LW_OK && r.all->dataset_count == 0) {
    st = lw_error_set(err, LW_ERR_FORMAT, "%.300s describes no dataset", req->url);
  }
  if (st != LW_OK) {
    lw_source_page_free(r.all);
    return st;
  }
  *out = r.all;
  return LW_OK;
}
