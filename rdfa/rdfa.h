/*
 * lodwash's RDFa library: an RDFa 1.1 processor (RDFa Core 1.1, HTML+RDFa
 * 1.1, XHTML+RDFa 1.1) on libxml2's HTML and XML parsers, handing every
 * triple to the quad sink of rdf/rdf.h, like the other readers
 * (rdf_readers/rdf_readers.h).
 *
 * Uses base and rdf. Below, the processor's interface; its internals are in
 * rdfa/rdfa_private.h. docs/rdfa.md says what it does and what it does not.
 */
#ifndef LW_RDFA_H
#define LW_RDFA_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/tree.h>

#include "base/base.h"
#include "rdf/rdf.h"

/* ---- rdfa_document (rdfa/rdfa_document.c) ----------------------------- */

/*
 * A page is parsed whole into libxml2's tree (at most LW_RDFA_MAX_BYTES),
 * without network, DTD loading or entity substitution: HTML by the HTML
 * parser (as browsers read it: unclosed elements, HTML entities, no XML
 * declaration), a document that opens with an XML declaration (XHTML, SVG,
 * other XML) by the XML parser. The tree is then walked (rdfa_walk.c)
 * without recursion, at most max_depth elements deep (LW_ERR_LIMIT past
 * that).
 *
 * The host language decides a few rules: HTML (html5, html4: <base href>,
 * the head / body typeof rule, <time datetime>, @lang, rel / rev terms
 * dropped beside @property, property copying), XHTML1 (XHTML+RDFa 1.1: the
 * XHTML vocabulary's terms in the initial context) and plain XML (SVG and
 * others: RDFa Core alone, xml:base).
 *
 * Blank nodes: the document's own labels ("_:x", "[_:x]") come out as "r"
 * and the label, with every byte that is not a letter, digit or '-' written
 * as "_" and two hex digits; generated ones as "g" and a number. The two
 * never meet; a generated label never starts "gs" (JSON-LD scripts' labels,
 * rdf_readers/rdf_reader_html.c).
 */
#define LW_RDFA_MAX_BYTES ((size_t)64 << 20)
#define LW_RDFA_DEFAULT_MAX_DEPTH 512u
/* At most this many prefix mappings in scope at once, and items in one
 * list (@inlist): more is reported and left out. */
#define LW_RDFA_MAX_PREFIXES 4096u
#define LW_RDFA_MAX_LIST_ITEMS 1000000u
/* A page that types an rdfa:Pattern has its triples held until its end
 * (property copying): at most this many bytes of them (LW_ERR_LIMIT). */
#define LW_RDFA_MAX_HELD_BYTES ((size_t)256 << 20)

typedef enum {
  LW_RDFA_HOST_AUTO = 0, /* from the document: see lw_rdfa_host_of */
  LW_RDFA_HOST_HTML,     /* HTML+RDFa 1.1 (HTML5, HTML 4, XHTML5) */
  LW_RDFA_HOST_XHTML1,   /* XHTML+RDFa 1.1 */
  LW_RDFA_HOST_XML       /* RDFa Core 1.1 in XML (SVG, ...) */
} LwRdfaHost;

typedef struct {
  const char *base_iri; /* the document's URL (a fragment is dropped); NULL: none */
  LwRdfaHost host;
  LwQuadSink on_quad;
  void *quad_handle;
  LwSyntaxErrorSink on_error; /* may be NULL */
  void *error_handle;
  unsigned max_depth; /* element nesting; 0: LW_RDFA_DEFAULT_MAX_DEPTH */
  /* When set, the processor writes there the line of the element each
   * triple comes from before it hands it to on_quad. */
  LwLocation *location;
} LwRdfaOptions;

/* True when the document starting with head (len bytes) is XML: an XML
 * declaration after an optional BOM and white space. */
bool lw_rdfa_is_xml(const char *head, size_t len);

/* Parses data (len bytes, UTF-8) into a tree: as XML when lw_rdfa_is_xml,
 * else as HTML. Returns the document (xmlFreeDoc it) or NULL with err set
 * (LW_ERR_SYNTAX when no tree could be built, LW_ERR_LIMIT past
 * LW_RDFA_MAX_BYTES). XML well-formedness errors are reported through
 * on_error with their line (libxml2 recovers what it can; the statements
 * of what it recovered are still given); HTML is read as browsers do,
 * without errors. */
xmlDocPtr lw_rdfa_parse(const char *data, size_t len, const LwRdfaOptions *options,
                        LwReadStats *stats, LwError *err);

/* The host language of a parsed document: XHTML1 for an XHTML+RDFa 1.0 /
 * 1.1 DOCTYPE or version attribute, HTML for an HTML document or an
 * XHTML root (<html> in the XHTML namespace), XML otherwise. */
LwRdfaHost lw_rdfa_host_of(xmlDocPtr doc);

/* Runs the RDFa processor over doc. Returns LW_OK when the tree was read
 * (even with reported problems: an undefined prefix, a list too long);
 * LW_ERR_LIMIT when it nests deeper than max_depth (the triples of what
 * came before were given); whatever on_quad returned when it stopped the
 * processor (LW_NOTHING does not stop it); LW_ERR_NOMEM. err gets the
 * message; stats (may be NULL) counts triples and reported problems. */
LwStatus lw_rdfa_process(xmlDocPtr doc, const LwRdfaOptions *options, LwReadStats *stats,
                         LwError *err);

/* The element after n in document order within root (n's first child
 * element, else the next element after it), or NULL: a walk of the tree
 * without recursion, for readers that look for elements in a page. */
xmlNodePtr lw_rdfa_next_element(xmlNodePtr root, xmlNodePtr n);


#endif
