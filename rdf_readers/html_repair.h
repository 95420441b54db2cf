/*
 * HTML made well-formed XML for raptor's RDFa parser, which reads XML only.
 *
 * libxml2's HTML parser reads the page the way browsers do (unclosed <p>,
 * void elements such as <br>, HTML entities such as &nbsp;, no XML
 * declaration) and builds its tree; the tree is written out again as XML in
 * UTF-8, attributes (xmlns:*, prefix, vocab, lang) kept as they were. A tree
 * is built, so the page's size is capped (LW_HTML_MAX_BYTES). The page is
 * read as UTF-8 whatever its <meta> charset says (the unpack stage recodes
 * every data file to UTF-8 before it is parsed).
 *
 * No network and no entity loading: HTML_PARSE_NONET, and the HTML parser
 * reads no DTD.
 */
#ifndef LW_HTML_REPAIR_H
#define LW_HTML_REPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/base.h"

#define LW_HTML_MAX_BYTES ((size_t)64 << 20)

/* True when the document starting with head (len bytes, its first block)
 * is XML (an XML declaration after an optional BOM and white space), which
 * raptor reads as it is; false when it is HTML to repair first. */
bool lw_html_is_xml(const char *head, size_t len);

/* Appends the rest of in to page (which may already hold the first bytes).
 * LW_ERR_LIMIT with a message when the page exceeds LW_HTML_MAX_BYTES. */
LwStatus lw_html_read_page(FILE *in, LwBuf *page, LwError *err);

/* Parses html (len bytes) as HTML and stores its tree as XML (UTF-8, with
 * an XML declaration) in *xml (xml_len bytes, free() it). LW_ERR_SYNTAX when
 * libxml2 builds no tree at all. */
LwStatus lw_html_to_xml(const char *html, size_t len, char **xml, size_t *xml_len,
                        LwError *err);

#endif
