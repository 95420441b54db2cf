/*
 * Where a provider's dumps come from: the five kinds of source a registry
 * entry may name (void, dcat, ckan, sitemap, sparql), read into one shape.
 *
 * A source yields datasets; a dataset has an id, a version (the publisher's
 * dct:modified, CKAN's metadata_modified, a sitemap's lastmod, an endpoint's
 * count, ... as text; "" when none is said) and its dumps. A distribution
 * that is not fetched is a skip with its reason (a CSV, a WMS service), so
 * the operator sees why. The scheduler compares each dataset's version with
 * the one last harvested and downloads the dumps of the changed ones only;
 * the harvest records stay as they are (scheduler/source_visit.c).
 *
 * A source is read page by page: each parser turns one fetched document
 * into an LwSourcePage (its datasets, and the next documents to read: a
 * Hydra next page, a sitemap index's sitemaps, CKAN's next search page).
 * The reader (lw_source_read) fetches the pages through the caller's fetch
 * function (the scheduler's VoID fetch: address rules, politeness, caps),
 * merges the datasets, and bounds everything with LwSourceCaps.
 *
 * Uses base, rdf and rdf_readers (DCAT in any RDF syntax), jansson (CKAN),
 * libxml2 (sitemaps) and zlib (gzip sitemaps).
 */
#ifndef LW_SOURCES_H
#define LW_SOURCES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"

/* ---- the shape every source is read into (sources/source_page.c) ------ */

typedef enum {
  LW_SOURCE_VOID = 0,
  LW_SOURCE_DCAT,
  LW_SOURCE_CKAN,
  LW_SOURCE_SITEMAP,
  LW_SOURCE_SPARQL,
  LW_SOURCE_KIND_COUNT
} LwSourceKind;

/* "void", "dcat", "ckan", "sitemap", "sparql" (the registry keys). */
const char *lw_source_kind_name(LwSourceKind kind);

/* The kind named by a registry key; false when the key names none. */
bool lw_source_kind_from_name(const char *name, LwSourceKind *out);

/* One document to download. */
typedef struct {
  char *url;                /* absolute http(s) URL */
  char *media_type;         /* as declared, lower case, or NULL */
  char *checksum_algorithm; /* "md5", "sha1", "sha256", ... or NULL */
  char *checksum_value;     /* lower-case hex, or NULL */
  /* Its format was not declared (or declared as HTML): it is fetched and
   * its format guessed; if it is not RDF the file is skipped with the
   * reason, not failed (workers/guess.c). */
  bool guess;
} LwSourceDump;

/* A distribution or page not fetched, and why. */
typedef struct {
  char *url;    /* may be NULL (a distribution without a URL) */
  char *reason; /* "format CSV is not RDF" */
} LwSourceSkip;

typedef struct {
  char *id;      /* dataset IRI, CKAN package name, page URL, endpoint */
  char *title;   /* or NULL */
  char *version; /* as the publisher says it ("2024-03-01T10:00:00"), ""
                    when it says nothing */
  LwSourceDump *dumps;
  size_t dump_count;
  LwSourceSkip *skips;
  size_t skip_count;
} LwSourceDataset;

/* One document read, or (lw_source_read) a whole source. */
typedef struct {
  LwSourceDataset *datasets;
  size_t dataset_count;
  char **next; /* absolute URLs of the documents to read next */
  size_t next_count;
  char **warnings; /* odd but not fatal, for the log and the provider */
  size_t warning_count;
  unsigned long long total; /* CKAN package_search's count; else 0 */
  struct LwSourceIndex *index; /* datasets by id (source_page.c's own) */
} LwSourcePage;

/* A new empty page (NULL when out of memory). */
LwSourcePage *lw_source_page_new(void);
void lw_source_page_free(LwSourcePage *page);

/* The dataset of page with this id, added (with version "" and title
 * NULL) when there is none yet; NULL when out of memory. */
LwSourceDataset *lw_source_dataset(LwSourcePage *page, const char *id);

/* Sets a dataset's version (or title): a copy of text; false when out of
 * memory. A later version replaces an earlier one only when it is greater
 * (ISO dates compare as text), so the newest dct:modified wins. */
bool lw_source_dataset_set_version(LwSourceDataset *ds, const char *version);
bool lw_source_dataset_set_title(LwSourceDataset *ds, const char *title);

/* Adds a dump to ds, unless ds has that URL already (then that dump is
 * returned). NULL when out of memory. media_type may be NULL. */
LwSourceDump *lw_source_dump_add(LwSourceDataset *ds, const char *url, const char *media_type,
                                 bool guess);

/* Sets a dump's checksum (algorithm lower-cased: "sha256"; value
 * lower-cased hex). */
bool lw_source_dump_set_checksum(LwSourceDump *d, const char *algorithm, const char *value);

/* Records a skipped distribution of ds; url may be NULL. */
bool lw_source_skip_add(LwSourceDataset *ds, const char *url, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* Adds a document to read next (duplicates are kept out). */
bool lw_source_next_add(LwSourcePage *page, const char *url);

/* Adds a warning (at most LW_SOURCE_MAX_WARNINGS are kept). */
void lw_source_warn(LwSourcePage *page, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

#define LW_SOURCE_MAX_WARNINGS 32u

/* Dumps of every dataset, counted. */
size_t lw_source_page_dump_count(const LwSourcePage *page);

/* ---- what declared formats mean (sources/rdf_media.c) ------------------- */

typedef enum {
  LW_MEDIA_UNKNOWN = 0, /* not said, or not known: fetch and guess */
  LW_MEDIA_RDF,         /* an RDF syntax lodwash reads, or an archive of it */
  LW_MEDIA_HTML,        /* a page: may hold RDFa or JSON-LD, fetch and guess */
  LW_MEDIA_NOT_RDF      /* CSV, PDF, Shapefile, WMS, ...: not fetched */
} LwMediaClass;

/* What a declared format says: a media type ("text/turtle",
 * "application/rdf+xml; charset=utf-8"), an IANA media-type IRI
 * (http://www.iana.org/assignments/media-types/text/turtle), an EU
 * file-type authority IRI
 * (http://publications.europa.eu/resource/authority/file-type/RDF_TURTLE),
 * or a CKAN format label ("Turtle", "RDF/XML", "N-Triples", "JSON-LD",
 * "CSV", "SHP"). Case does not matter; NULL or "" is UNKNOWN. */
LwMediaClass lw_media_class(const char *format);

/* ---- the parsers: one document into a page ----------------------------- */

/* A DCAT (1, 2, 3) or DCAT-AP (1.1 to 3) document, in any syntax lw_rdf_read
 * reads (found by media type, URL, then content): every dcat:Dataset
 * (also through dcat:dataset, dcat:catalog and dct:hasPart of catalogues),
 * its dcat:distribution's dcat:downloadURL, else dcat:accessURL; formats
 * from dcat:mediaType, dct:format (IRIs of the EU authority, IANA IRIs,
 * labels), dcat:compressFormat and dcat:packageFormat; spdx:checksum; the
 * dataset's version from dct:modified (else dct:issued). Hydra paging
 * (hydra:next, also inside a hydra:view / hydra:PartialCollectionView)
 * goes to page->next. url: the document's URL (the base). LW_ERR_SYNTAX
 * when nothing could be read, LW_ERR_FORMAT when no dataset is described
 * and no next page is named. */
LwStatus lw_dcat_parse(const char *data, size_t len, const char *url, const char *media_type,
                       LwSourcePage **out, LwError *err);

/* A CKAN Action API answer: package_search ({"result": {"count": N,
 * "results": [...]}}) or package_show ({"result": {...}}). Each package is a
 * dataset (id: its name, else its id; version: metadata_modified); its
 * resources whose format or mimetype says RDF are dumps, the others are
 * skips (a resource without a format: guessed). page->total is
 * package_search's count. LW_ERR_SYNTAX when not JSON, LW_ERR_FORMAT when
 * not an Action API answer or success is false (err says CKAN's error). */
LwStatus lw_ckan_parse(const char *data, size_t len, const char *url, LwSourcePage **out,
                       LwError *err);

/* The package_search URL of a CKAN site's root (with or without a trailing
 * slash) for rows packages from start; a dataset URL (".../dataset/NAME")
 * gives package_show?id=NAME. Caller frees; NULL when out of memory. */
char *lw_ckan_api_url(const char *root, unsigned long long start, unsigned rows);

/* An XML sitemap (sitemaps.org 0.9), gzip or not: a <sitemapindex>'s
 * <sitemap><loc> go to page->next; a <urlset>'s <url> is a dataset of one
 * document (id and dump: its <loc>, guessed; version: its <lastmod>). The
 * semantic sitemap extension (sc:dataset: sc:datasetURI,
 * sc:dataDumpLocation, sc:sparqlEndpointLocation, lastmod) gives datasets
 * with their dumps (an endpoint only is a skip). LW_ERR_SYNTAX when not
 * XML, LW_ERR_FORMAT when not a sitemap. */
LwStatus lw_sitemap_parse(const char *data, size_t len, const char *url, LwSourcePage **out,
                          LwError *err);

/* ---- SPARQL endpoints (sources/sparql_source.c) ------------------------- */

/* What a provider's endpoint is asked for. */
typedef struct {
  const char *endpoint; /* the query endpoint's URL */
  const char *graph;    /* only this named graph; NULL: the default graph */
  const char *query;    /* a CONSTRUCT of the provider's own (paged with
                           LIMIT and OFFSET: it must ORDER BY); NULL: all */
  unsigned long long page_size;
} LwSparqlSource;

/* The GET URL of the cheap query that tells whether the data changed (its
 * SELECT answers the triple count and the newest dct:modified). */
char *lw_sparql_version_url(const LwSparqlSource *s);

/* The version text from that query's answer (SPARQL JSON results):
 * "N triples" or "N triples, modified M". LW_ERR_FORMAT when not such an
 * answer. */
LwStatus lw_sparql_version_parse(const char *data, size_t len, char **version,
                                 unsigned long long *triples, LwError *err);

/* Reads the endpoint's Service Description (data, fetched from the
 * endpoint's own URL url with media_type): LW_OK with *version and
 * *triples when it gives the size (void:triples) and dct:modified of the
 * graph read (graph; NULL: the default dataset's default graph);
 * LW_NOTHING when it says neither (or is no RDF): then the count query
 * decides. */
LwStatus lw_sparql_description_parse(const char *data, size_t len, const char *url,
                                     const char *media_type, const char *graph,
                                     char **version, unsigned long long *triples, LwError *err);

/* The GET URL of page number page (from 0) of the data: a CONSTRUCT with a
 * stable ORDER BY, LIMIT page_size, OFFSET page * page_size. */
char *lw_sparql_page_url(const LwSparqlSource *s, unsigned long long page);

/* ---- reading a whole source (sources/source_read.c) --------------------- */

typedef struct {
  unsigned long long max_datasets; /* a source's datasets (and CKAN packages) */
  unsigned long long max_pages;    /* documents read for one visit */
  unsigned long long max_bytes;    /* all documents of one visit together */
  unsigned long long max_dumps;    /* dumps of one visit */
  unsigned long long sparql_page_size;
} LwSourceCaps;

/* Fetches url asking for accept (an Accept header; NULL: RDF first): LW_OK
 * with *body (NUL-terminated; caller frees), *len, the media type (may be
 * "") and the URL after redirects; an error otherwise (err). */
typedef LwStatus (*LwSourceFetchFn)(void *user, const char *url, const char *accept,
                                    char **body, size_t *len, char media_type[256],
                                    char final_url[2048], LwError *err);

/* What a visit asks of a source. */
typedef struct {
  LwSourceKind kind; /* not LW_SOURCE_VOID: the scheduler reads VoIDs itself */
  const char *url;   /* the registry's URL */
  const char *sparql_graph;
  const char *sparql_query;
  LwSourceCaps caps;
  LwSourceFetchFn fetch;
  void *fetch_user;
} LwSourceRequest;

/* Reads the whole source: the first document, then every next one (each
 * URL once: paging cycles end), within the caps. On LW_OK *out holds every
 * dataset (merged by id). A cap reached, a document that cannot be fetched
 * or read, and no dataset at all are errors (err names the URL): a source
 * read in part would show its other datasets as gone. */
LwStatus lw_source_read(const LwSourceRequest *req, LwSourcePage **out, LwError *err);

#endif
