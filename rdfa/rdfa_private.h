/*
 * The RDFa processor's internals (not a public header): terms, the
 * evaluation context's mappings, lists, the output, and the pieces of the
 * processing sequence of RDFa Core 1.1 §7.5 (rdfa_walk.c).
 */
#ifndef LW_RDFA_PRIVATE_H
#define LW_RDFA_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/tree.h>

#include "base/base.h"
#include "rdf/rdf.h"
#include "rdfa/rdfa.h"

#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define RDFA_NS "http://www.w3.org/ns/rdfa#"
#define XSD_NS "http://www.w3.org/2001/XMLSchema#"
#define XHV_NS "http://www.w3.org/1999/xhtml/vocab#"
#define XHTML_NS "http://www.w3.org/1999/xhtml"

/* ---- terms (rdfa_out.c) ---- */

/* A resource: an IRI or a blank node label (as it goes out). */
typedef struct {
  bool blank;
  char *value;
} RdfaNode;

/* An object: a resource, or a literal. */
typedef struct {
  LwTermType type;
  char *value;
  char *datatype; /* literals: NULL for a plain one */
  char *lang;     /* plain literals: NULL for none */
} RdfaObject;

/* ---- prefix mappings (rdfa_context.c) ---- */

/* The prefixes in scope: a chain from the innermost declaration out to the
 * initial context; an element's declarations are links it owns. */
typedef struct RdfaPrefix {
  char *prefix; /* lower case */
  char *iri;
  struct RdfaPrefix *next;
} RdfaPrefix;

/* The IRI of prefix (any case) in chain, then in the initial context, or
 * NULL. */
const char *rdfa_prefix_lookup(const RdfaPrefix *chain, const char *prefix, size_t len);

/* The IRI a term (no ':') means in host's initial context, or NULL:
 * case-sensitive first, then case-insensitive. */
const char *rdfa_term_lookup(LwRdfaHost host, const char *term, size_t len);

/* ---- lists (rdfa_list.c) ---- */

typedef struct RdfaList {
  char *predicate;
  RdfaObject *items;
  size_t count, cap;
  struct RdfaList *next;
} RdfaList;

/* The lists started on one element (its list mapping), with their subject. */
typedef struct {
  RdfaList *lists;
} RdfaListMap;

/* The list for predicate in map, made when it is not there; NULL when out of
 * memory. */
RdfaList *rdfa_list_get(RdfaListMap *map, const char *predicate);

/* Frees the map's lists (not the map). */
void rdfa_list_map_clear(RdfaListMap *map);

/* ---- the processor's state (rdfa_walk.c, rdfa_out.c) ---- */

typedef struct {
  const LwRdfaOptions *options;
  LwRdfaHost host;
  LwReadStats *stats;
  LwError *err;
  char *base;                  /* the document's base IRI, or NULL */
  char *document_url;          /* its URL without fragment, or NULL */
  unsigned long long next_blank; /* generated blank nodes */
  unsigned line;               /* the current element's line, 0: unknown */
  LwStatus stop;               /* what stopped the processor */
  bool buffer;                 /* triples held for property copying */
  struct RdfaTriple *held;
  size_t held_count, held_cap;
  size_t held_bytes; /* the held triples' strings, capped */
  RdfaNode document_blank;     /* "_:" alone, one per document */
} RdfaRun;

typedef struct RdfaTriple {
  RdfaNode subject;
  char *predicate;
  RdfaObject object;
  unsigned line;
} RdfaTriple;

/* Reports a problem at the current element. */
void rdfa_report(RdfaRun *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A new blank node (generated label). */
RdfaNode rdfa_node_blank(RdfaRun *run);
/* The blank node of a document label ("x" of "_:x"). */
RdfaNode rdfa_node_labelled(RdfaRun *run, const char *label, size_t len);
RdfaNode rdfa_node_iri(const char *iri);
RdfaNode rdfa_node_copy(const RdfaNode *n);
void rdfa_node_free(RdfaNode *n);
bool rdfa_node_equal(const RdfaNode *a, const RdfaNode *b);

RdfaObject rdfa_object_node(const RdfaNode *n);
RdfaObject rdfa_object_copy(const RdfaObject *o);
void rdfa_object_free(RdfaObject *o);

/* Gives one triple (copies what it keeps). Returns run->stop. */
LwStatus rdfa_emit(RdfaRun *run, const RdfaNode *s, const char *p, const RdfaObject *o);
LwStatus rdfa_emit_node(RdfaRun *run, const RdfaNode *s, const char *p, const RdfaNode *o);

/* End of the document: property copying over the held triples (rdfa_copy.c),
 * then they go out. */
LwStatus rdfa_flush(RdfaRun *run);
void rdfa_run_free(RdfaRun *run);

/* ---- property copying (rdfa_copy.c) ---- */

/* rdfa:copy and rdfa:Pattern (HTML+RDFa 1.1 §3.5) over the held triples:
 * copies each pattern's properties to the resources that copy it, then
 * drops the rdfa:copy triples and the referenced patterns. */
LwStatus rdfa_copy_properties(RdfaRun *run);

/* ---- resolving attribute values (rdfa_curie.c) ---- */

typedef struct {
  RdfaRun *run;
  const char *base; /* the element's base IRI, or NULL */
  const RdfaPrefix *prefixes;
  const char *vocab; /* the default vocabulary, or NULL */
} RdfaScope;

/* @about, @resource: a safe CURIE, a CURIE or an IRI. false when the value
 * gives no resource (an unresolvable safe CURIE, "[]"). */
bool rdfa_resolve_resource(const RdfaScope *sc, const char *value, RdfaNode *out);

/* @href, @src: an IRI resolved against the base. */
bool rdfa_resolve_iri(const RdfaScope *sc, const char *value, RdfaNode *out);

/* One token of @typeof, @property, @rel, @rev, @datatype: a term, a CURIE or
 * an absolute IRI. Returns a new IRI, or NULL (reported when it names
 * nothing). allow_blank: a "_:x" CURIE gives a blank node label in *blank. */
char *rdfa_resolve_token(const RdfaScope *sc, const char *token, size_t len,
                         bool allow_blank, RdfaNode *blank);

/* ---- literals (rdfa_literal.c) ---- */

/* The element's text content (a new string). */
char *rdfa_text_content(xmlNodePtr element);

/* The element's children serialized as XML (rdf:XMLLiteral), each top-level
 * element declaring the namespaces in scope: the XML namespaces and the
 * document's prefix mappings (prefixes). A new string. */
char *rdfa_xml_literal(xmlNodePtr element, const RdfaPrefix *prefixes);

/* The element's children as they stand (rdf:HTML). A new string. */
char *rdfa_html_literal(xmlNodePtr element);

/* The XSD datatype a <time> value's lexical form has (date, time,
 * dateTime, gYear, gYearMonth, duration), or NULL. */
const char *rdfa_datetime_type(const char *value);

/* ---- the walk (rdfa_walk.c) ---- */

LwStatus rdfa_walk(RdfaRun *run, xmlNodePtr root);

#endif
