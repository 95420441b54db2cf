/*
 * Marks that carry an xml:base's query through raptor 2.0.15.
 *
 * raptor makes every xml:base "suitable for XML Base"
 * (raptor_new_uri_for_xmlbase): it drops the query and gives an empty path
 * a "/". RFC 3986 §5.2.2 keeps the base's query, and its path as it is,
 * for a same-document reference ("" and "#frag", so rdf:ID too): under
 * xml:base="http://a/b/c/d;p?q", rdf:about="#s" is <http://a/b/c/d;p?q#s>,
 * raptor made it <http://a/b/c/d;p#s>.
 *
 * So the reader gives raptor such a base with its query (or its missing
 * path) replaced by a mark at the end of the path, "{lodwash-q<NONCE>-<K>}":
 * raptor resolves references against that as it would against the base
 * (a reference with a path replaces the last segment, the mark with it),
 * and every IRI raptor hands on that still holds a mark is put right: the
 * mark becomes "?query" (or nothing, for a base without a path), or goes
 * when a query of the reference's own follows it. The nonce is new for
 * every reading: a document cannot write a mark of ours (and '{' is no
 * IRI character anyway).
 */
#ifndef LW_XML_BASE_MARKS_H
#define LW_XML_BASE_MARKS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"

typedef struct LwXmlBaseMarks LwXmlBaseMarks;

/* New marks for one reading, or NULL when out of memory.
 * lw_xml_base_marks_free(NULL) is safe. */
LwXmlBaseMarks *lw_xml_base_marks_new(void);
void lw_xml_base_marks_free(LwXmlBaseMarks *m);

/* base: an absolute IRI without fragment. When raptor would get it wrong
 * (it has a query, or an authority and an empty path), appends to out the
 * base to give raptor instead, with a mark, and returns true. False when
 * base needs none, or when the marks are used up (LW_XML_BASE_MARKS_MAX:
 * raptor then resolves as it does). */
bool lw_xml_base_mark(LwXmlBaseMarks *m, const char *base, LwBuf *out);

/* The IRI raptor made (len bytes) as RFC 3986 makes it: iri itself when it
 * holds no mark of ours, else out's data (out reset first); *len is set.
 * NULL when out of memory. */
const char *lw_xml_base_unmark(LwXmlBaseMarks *m, const char *iri, size_t *len,
                               LwBuf *out);

/* At most this many different bases are marked in one document. */
#define LW_XML_BASE_MARKS_MAX 4096

#endif
