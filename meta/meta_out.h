/*
 * meta/'s own statement writer: each call makes one statement, writes it
 * as a canonical N-Quads line (rdf/rdf.h) and hands it to the sink. The
 * first failure is kept and later calls do nothing, so that a description
 * is a list of calls without a check after each.
 */
#ifndef LW_META_META_OUT_H
#define LW_META_META_OUT_H

#include <jansson.h>

#include "base/base.h"
#include "meta/meta.h"

#define NS_RDF "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define NS_RDFS "http://www.w3.org/2000/01/rdf-schema#"
#define NS_XSD "http://www.w3.org/2001/XMLSchema#"
#define NS_VOID "http://rdfs.org/ns/void#"
#define NS_DCAT "http://www.w3.org/ns/dcat#"
#define NS_DCT "http://purl.org/dc/terms/"
#define NS_PROV "http://www.w3.org/ns/prov#"
#define NS_SPDX "http://spdx.org/rdf/terms#"
#define NS_HTTP "http://www.w3.org/2011/http#"
#define NS_CNT "http://www.w3.org/2011/content#"
#define NS_LW LW_META_NS

/* Longest node IRI made. */
#define LW_META_IRI_MAX 2048

typedef struct {
  LwLineSink sink;
  void *handle;
  const char *graph;          /* NULL: triples */
  char base[LW_META_IRI_MAX]; /* the metadata graph's IRI: nodes below it */
  const char *graph_base;     /* providers' graphs: graph_base/NAME */
  LwBuf line;
  LwMetaStats stats;
  LwStatus st; /* the first failure */
  LwError *err;
} LwMetaOut;

/* s p <o>. */
void lw_meta_iri(LwMetaOut *o, const char *s, const char *p, const char *obj);
/* s p "value"^^datatype (NULL: a plain string). Nothing when value is NULL. */
void lw_meta_lit(LwMetaOut *o, const char *s, const char *p, const char *value,
                 const char *datatype);
/* s p n (xsd:integer). */
void lw_meta_int(LwMetaOut *o, const char *s, const char *p, long long n);
/* s p n when text is a non-negative integer; nothing otherwise. */
void lw_meta_count(LwMetaOut *o, const char *s, const char *p, const char *text);
/* s p "ISO 8601"^^xsd:dateTime of ms since the epoch (text); nothing when
 * absent or 0. */
void lw_meta_time_ms(LwMetaOut *o, const char *s, const char *p, const char *ms);
/* A string field of a record (JSON object of strings), NULL when absent. */
const char *lw_meta_field(const json_t *record, const char *field);

/* The IRI of a node of the metadata graph: base/kind/id. */
void lw_meta_node(const LwMetaOut *o, char out[LW_META_IRI_MAX], const char *kind,
                  const char *id);

/* The descriptions (meta_provider.c, meta_harvest.c, meta_document.c). */
void lw_meta_describe_provider(LwMetaOut *o, const LwMetaOptions *opt, const char *name,
                               const json_t *record);
void lw_meta_describe_harvest(LwMetaOut *o, const LwMetaOptions *opt, const char *id,
                              const json_t *record);

/* The seed fields lw_meta_describe_document reads, in the order of values. */
extern const char *const lw_meta_seed_fields[];
extern const size_t lw_meta_seed_field_count;
/* Index of a field in lw_meta_seed_fields. */
enum {
  LW_MS_STATUS,
  LW_MS_URI,
  LW_MS_PROVIDER,
  LW_MS_HARVEST,
  LW_MS_PARENT,
  LW_MS_HTTP,
  LW_MS_CONTENT,
  LW_MS_ARCHIVE,
  LW_MS_ENCODING,
  LW_MS_FORMAT,
  LW_MS_CONTENT_TYPE,
  LW_MS_TRIPLES,
  LW_MS_DUPLICATES,
  LW_MS_SYNTAX_ERRORS,
  LW_MS_LITERAL_ERRORS,
  LW_MS_CLEAN,
  LW_MS_ERROR,
  LW_MS_ERRORS,
  LW_MS_PROCESSED,
  LW_MS_SHA256
};
/* One document (a seed with values[i] the field lw_meta_seed_fields[i]).
 * harvest_kept: its harvest's record still exists (else no link to it). */
void lw_meta_describe_document(LwMetaOut *o, const char *hash, const char *const *values,
                               bool harvest_kept);

#endif
