/*
 * The in-scope xml:lang and xml:base of the start tags of an XML document,
 * found by a light streaming tokenizer, to correct raptor 2.0.15's RDF/XML
 * reader where it is wrong:
 *
 * - xml:lang: it gives literals from property attributes no language,
 *   although xml:lang is in scope (W3C test rdfms-xmllang/test006).
 *   raptor emits a property attribute's statement while libxml2 reports the
 *   start tag that carries it, and libxml2's push parser reports a start tag
 *   as soon as its '>' has been fed. So the reader feeds raptor up to the
 *   '<' of each start tag that matters, then the tag alone: a literal
 *   without language and datatype that comes out while the tag alone is
 *   parsed comes from a property attribute of that tag (a property
 *   element's literal comes out at its end tag, with its language), and
 *   gets the tag's in-scope language. Such tags have a non-empty in-scope
 *   xml:lang and an attribute that may be a property attribute (any but
 *   xmlns and xml:*).
 * - xml:base: it drops a base's query (and gives an empty path a "/"), so
 *   that same-document references under xml:base="http://a/b?q" lose the
 *   query. The tokenizer resolves each xml:base itself (RFC 3986, against
 *   the document's base and the enclosing xml:base) and, where raptor
 *   would get it wrong, names a value for raptor to read instead: a marked
 *   base (rdf_readers/xml_base_marks.h), or, below one, the absolute base.
 *   A value with a reference (&...;), longer than 8 KiB, or in a start tag
 *   longer than the reader keeps whole, is left to raptor.
 *
 * The tokenizer knows comments, CDATA sections, processing instructions, the
 * DOCTYPE (with its internal subset) and quoted attribute values; it works
 * on any split of the input into blocks.
 */
#ifndef LW_XML_SCOPE_H
#define LW_XML_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "rdf_readers/xml_base_marks.h"

typedef struct LwXmlScope LwXmlScope;

/* A new tokenizer for a document whose base is document_base (absolute),
 * marking bases with marks (which must outlive it), or NULL when out of
 * memory. Nesting deeper than max_depth keeps the scope of the deepest
 * tracked level. */
LwXmlScope *lw_xml_scope_new(unsigned max_depth, const char *document_base,
                             LwXmlBaseMarks *marks);
void lw_xml_scope_free(LwXmlScope *s);

/* What a start tag that matters needs (strings valid until the next call). */
typedef struct {
  const char *lang; /* its in-scope language for property attributes, or NULL */
  const char *base; /* what raptor reads for its xml:base value, or NULL */
  size_t base_len;
  size_t base_start, base_end; /* the value's offsets in data, quotes left out */
} LwXmlScopeTag;

/* Scans data from *pos (len bytes in all) and stops after the '>' of the
 * next start tag that matters: returns true, *pos just past the '>', *tag
 * the offset of its '<' in data (a tag begun in an earlier block gives
 * *tag == 0: see lw_xml_scope_open_tag), *out what it needs. Returns false
 * at the end of data. */
bool lw_xml_scope_next(LwXmlScope *s, const char *data, size_t len, size_t *pos, size_t *tag,
                       LwXmlScopeTag *out);

/* After a false return: true when data ends inside a start tag, with *tag
 * the offset of its '<' in that block. The caller may then keep the bytes
 * from there for the next block, after lw_xml_scope_restart_tag. */
bool lw_xml_scope_open_tag(const LwXmlScope *s, size_t *tag);

/* Forgets the open start tag: the next block starts with its '<' again. */
void lw_xml_scope_restart_tag(LwXmlScope *s);

#endif
