/*
 * The in-scope xml:lang of the start tags of an XML document, found by a
 * light streaming tokenizer, to correct raptor 2.0.15's RDF/XML reader: it
 * gives literals from property attributes no language, although xml:lang is
 * in scope (W3C test rdfms-xmllang/test006).
 *
 * raptor emits a property attribute's statement while libxml2 reports the
 * start tag that carries it, and libxml2's push parser reports a start tag
 * as soon as its '>' has been fed. So the reader feeds raptor up to the '<'
 * of each start tag that matters, then the tag alone: a literal without
 * language and datatype that comes out while the tag alone is parsed comes
 * from a property attribute of that tag (a property element's literal comes
 * out at its end tag, with its language), and gets the tag's in-scope
 * language. The tags that matter are those with a non-empty in-scope
 * xml:lang and an attribute that may be a property attribute (any but
 * xmlns and xml:*).
 *
 * The tokenizer knows comments, CDATA sections, processing instructions, the
 * DOCTYPE (with its internal subset) and quoted attribute values; it works
 * on any split of the input into blocks.
 */
#ifndef LW_XML_LANG_SCOPE_H
#define LW_XML_LANG_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct LwXmlLangScope LwXmlLangScope;

/* A new tokenizer, or NULL when out of memory. Nesting deeper than
 * max_depth keeps the language of the deepest tracked level. */
LwXmlLangScope *lw_xml_lang_scope_new(unsigned max_depth);
void lw_xml_lang_scope_free(LwXmlLangScope *s);

/* Scans data from *pos (len bytes in all) and stops after the '>' of the
 * next start tag that matters: returns true, *pos just past the '>', *tag
 * the offset of its '<' in data (a tag begun in an earlier block gives
 * *tag == 0: see lw_xml_lang_scope_open_tag), *lang its in-scope language
 * (valid until the next call). Returns false at the end of data. */
bool lw_xml_lang_scope_next(LwXmlLangScope *s, const char *data, size_t len, size_t *pos,
                            size_t *tag, const char **lang);

/* After a false return: true when data ends inside a start tag, with *tag
 * the offset of its '<' in that block. The caller may then keep the bytes
 * from there for the next block, after lw_xml_lang_scope_restart_tag. */
bool lw_xml_lang_scope_open_tag(const LwXmlLangScope *s, size_t *tag);

/* Forgets the open start tag: the next block starts with its '<' again. */
void lw_xml_lang_scope_restart_tag(LwXmlLangScope *s);

#endif
