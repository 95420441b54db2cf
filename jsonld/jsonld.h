/*
 * lodwash's JSON-LD library: a JSON-LD 1.1 processor on jansson (contexts,
 * expansion, node maps, toRdf, streaming of large documents, canonical JSON
 * for @json literals) handing statements to the quad sink of rdf/rdf.h, and
 * the document loader that fetches remote contexts through the address guard
 * of net/net.h.
 *
 * Uses base, rdf and net. Below, the processor's interface and the loader's; the
 * processor's internals are in jsonld/jsonld_private.h.
 */
#ifndef LW_JSONLD_H
#define LW_JSONLD_H

#include "base/base.h"
#include "net/net.h"
#include "rdf/rdf.h"

/* ---- jsonld (types only) ----------------------------------------------- */

/*
 * JSON-LD 1.1 to RDF (W3C JSON-LD 1.1 Processing Algorithms and API,
 * "Deserialize JSON-LD to RDF"), built on jansson.
 *
 * lw_jsonld_to_rdf reads one JSON-LD document and hands every quad to an
 * LwQuadSink, like the serd and raptor2 readers (rdf_readers/rdf_readers.h). Blank
 * nodes are handed on as LW_TERM_BLANK with document-scoped labels ("b0",
 * "b1", ...); the cleaner skolemizes them. Relative IRIs are resolved with
 * lodwash's RFC 3986 code (base/base.h).
 *
 * Unlike the line-based formats, a JSON-LD error is fatal for the document
 * (the specification aborts processing): the function returns LW_ERR_SYNTAX
 * with the specification's error code first in err->message, such as
 * "invalid @id value: ..." or "loading remote context failed: ...". A document
 * that is not JSON fails with "line L, column C: ..." from jansson. Caps
 * (nesting depth, remote contexts, document size) fail with LW_ERR_LIMIT.
 *
 * Memory: a top-level array (from any FILE), or a top-level object holding
 * only @context and @graph (from a seekable FILE), is parsed, expanded and
 * turned into quads one element at a time, so memory is bounded by the
 * largest element. Other documents are loaded whole by jansson. Because of
 * streaming, a document that fails has already passed the quads of its
 * earlier elements to on_quad: discard them when the status is an error.
 * A node described in several top-level elements may repeat identical
 * quads (the set of quads is right; the cleaner removes duplicates).
 *
 * Literals may contain U+0000: their length is LwTerm.len.
 *
 * Remote contexts are fetched through a replaceable LwJsonldLoadFn: a map
 * from URL prefixes to local files (tests, offline use), the guarded HTTP
 * loader (jsonld/jsonld.h), or the two chained.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Fetches the document at url. On success *body (len bytes, NUL-terminated)
 * and *document_url (the URL after redirects) are new strings the caller
 * frees. Returns LW_OK, or an error with a message in err. */
typedef LwStatus (*LwJsonldLoadFn)(void *handle, const char *url, char **body, size_t *len,
                                   char **document_url, LwError *err);

typedef struct {
  const char *base_iri; /* the document's URL; NULL: none */
  LwJsonldLoadFn load;  /* remote contexts; NULL: every fetch fails */
  void *load_handle;
  LwQuadSink on_quad;
  void *quad_handle;
  LwSyntaxErrorSink on_error; /* may be NULL; told about the fatal error */
  void *error_handle;
  const char *rdf_direction;    /* NULL, "i18n-datatype", "compound-literal" */
  bool produce_generalized_rdf; /* keep triples with blank node predicates */
  unsigned max_depth;           /* JSON nesting; 0: default 512 */
  unsigned max_context_depth;   /* nested context processing; 0: default 32 */
  unsigned max_remote_contexts; /* remote contexts fetched per document;
                                   0: default 64 */
  size_t max_document_bytes;    /* 0: default 1 GiB */
  LwLocation *location;         /* when set: where each statement is, written
                                   before on_quad (rdf/rdf.h) */
} LwJsonldOptions;

/* Caps on scoped contexts (docs/jsonld.md, "Limits"): the type-scoped
 * contexts one node applies, and the scoped contexts in effect at once
 * along the expansion's path. Past either, the document fails with
 * LW_ERR_LIMIT "context overflow: ...". */
#define LW_JSONLD_MAX_TYPE_SCOPED 64
#define LW_JSONLD_MAX_SCOPED_DEPTH 256

/* Converts the JSON-LD document read from in to quads. stats (may be NULL)
 * counts the quads passed to on_quad and the errors reported. Returns LW_OK,
 * LW_ERR_SYNTAX (JSON or JSON-LD error), LW_ERR_LIMIT, LW_ERR_IO, or what
 * on_quad returned when it stopped the conversion. */
LwStatus lw_jsonld_to_rdf(FILE *in, const LwJsonldOptions *opt, LwReadStats *stats,
                          LwError *err);

/* The same for a document in memory (len bytes, need not be NUL-terminated). */
LwStatus lw_jsonld_to_rdf_buffer(const char *json, size_t len, const LwJsonldOptions *opt,
                                 LwReadStats *stats, LwError *err);

/* ---- Canonical JSON ------------------------------------------------------ */

/* The JSON Canonicalization Scheme (RFC 8785) serialization of a JSON text,
 * as used for @json literals. Returns a new string the caller frees, or NULL
 * (with err set) when json is not valid JSON. */
char *lw_jsonld_canonical_json(const char *json, LwError *err);

/* ---- Document loaders ---------------------------------------------------- */

/* A map loader: URL prefixes to local files or directories. A URL that
 * starts with a mapped prefix is read from the file, or from the directory
 * joined with the rest of the URL (".." segments refused). Unmapped URLs go
 * to the fallback loader when one is set, else fail. */
typedef struct LwJsonldMap LwJsonldMap;

/* A new empty map the caller frees with lw_jsonld_map_free; NULL when out of
 * memory. */
LwJsonldMap *lw_jsonld_map_new(void);
void lw_jsonld_map_free(LwJsonldMap *map); /* NULL-safe */

/* Maps url_prefix to path (a file or a directory; copied). */
LwStatus lw_jsonld_map_add(LwJsonldMap *map, const char *url_prefix, const char *path,
                           LwError *err);

/* The same from a "URL=PATH" string, as given to --context-map. */
LwStatus lw_jsonld_map_add_spec(LwJsonldMap *map, const char *spec, LwError *err);

/* Unmapped URLs go to fallback (for example lw_document_load,
 * jsonld/jsonld.h). */
void lw_jsonld_map_set_fallback(LwJsonldMap *map, LwJsonldLoadFn fallback,
                                void *fallback_handle);

/* The LwJsonldLoadFn of a map; handle is the LwJsonldMap. */
LwStatus lw_jsonld_map_load(void *handle, const char *url, char **body, size_t *len,
                            char **document_url, LwError *err);

/* ---- document_loader (jsonld/document_loader.c) ------------------------ */

/*
 * The JSON-LD document loader lodwash uses for remote contexts, its only
 * HTTP client for them: fetched with lw_fetch_small under the download
 * stage's rules (http and https only, refused address ranges unless
 * allowed, size cap, timeouts), optionally through a cache (the worker
 * caches in Redis with a TTL, so ten thousand documents naming one context
 * fetch it once).
 *
 * As JSON-LD 1.1's LoadDocumentCallback does, an answer that is not JSON
 * (schema.org serves HTML) with a `Link: <URL>; rel="alternate";
 * type="application/ld+json"` header is not the document: URL (resolved
 * against the answer's) is fetched instead, once, under the same rules. The
 * cache keeps it under the URL asked for.
 */
#include <stddef.h>

typedef struct {
  const LwNetGuard *guard; /* allow list; NULL: public addresses only */
  const char *contact;     /* in the User-Agent; may be NULL */
  size_t max_bytes;        /* 0: 4 MiB */
  long timeout_ms;         /* 0: 30 s */
  /* A cache, all optional: get returns LW_OK with a new body (and the URL it
   * was fetched from) when url is cached; put stores a fetched document. */
  LwStatus (*cache_get)(void *handle, const char *url, char **body, size_t *len,
                        char **document_url);
  void (*cache_put)(void *handle, const char *url, const char *body, size_t len,
                    const char *document_url);
  void *cache_handle;
  unsigned long long fetches; /* counted by lw_document_load */
} LwDocumentLoader;

/* An LwJsonldLoadFn (jsonld/jsonld.h); handle is an LwDocumentLoader. */
LwStatus lw_document_load(void *handle, const char *url, char **body, size_t *len,
                          char **document_url, LwError *err);

#endif
