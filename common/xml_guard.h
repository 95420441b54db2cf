/*
 * A guard in front of libxml2 (through raptor2): XML entity tricks must fail
 * fast, whatever libxml2's own limits are.
 *
 * The prolog (everything before the root element) is checked first: a DTD
 * internal subset may declare only plain internal general entities (no
 * parameter entities, no SYSTEM / PUBLIC entities, no entity whose value
 * holds '&', '%' or '<', at most LW_XML_MAX_ENTITIES of them, each at most
 * LW_XML_MAX_ENTITY_BYTES): that keeps the RDF/XML files that abbreviate
 * namespaces with entities (&rdf; &xsd; ...) readable and refuses billion
 * laughs and external entities outright. The body is then watched for
 * references to the declared entities: their expanded size may not exceed
 * 16 MiB plus 8 times the bytes read (quadratic blowup); and for element
 * nesting, which may not go deeper than max_depth (raptor slows down
 * quadratically with depth). HTML's void elements (<br>, <img>, ...) do not
 * count as open.
 */
#ifndef LW_XML_GUARD_H
#define LW_XML_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "common/status.h"

#define LW_XML_MAX_ENTITIES 1024
#define LW_XML_MAX_ENTITY_BYTES 8192
#define LW_XML_MAX_PROLOG_BYTES ((size_t)1 << 20)

typedef struct LwXmlGuard LwXmlGuard;

/* A new guard, or NULL when out of memory. lw_xml_guard_free(NULL) is safe. */
LwXmlGuard *lw_xml_guard_new(unsigned max_depth);
void lw_xml_guard_free(LwXmlGuard *guard);

/* Checks the prolog in data (len bytes; the start of the document). Returns
 * LW_OK when the prolog ends within data (the root element starts) and is
 * acceptable; LW_NOTHING when data ends before the root element does
 * (call again with more data, up to LW_XML_MAX_PROLOG_BYTES); LW_ERR_LIMIT
 * with a message in err when the DTD is refused or the prolog is too long
 * (set at_eof when no more data will come). */
LwStatus lw_xml_guard_prolog(LwXmlGuard *guard, const char *data, size_t len,
                             bool at_eof, LwError *err);

/* For RDFa: an empty (or blank) default namespace declaration, xmlns="" or
 * xmlns = '  ', is overwritten with spaces in the data lw_xml_guard_feed
 * watches, before raptor reads it: raptor 2.0.15's RDFa parser crashes on
 * it (a NULL namespace URI in raptor_sax2_start_element), and in RDFa the
 * attribute means nothing (prefixes come from xmlns:PREFIX and @prefix). */
void lw_xml_guard_blank_empty_default_ns(LwXmlGuard *guard);

/* Watches the document's bytes (all of them, from the start, once the
 * prolog was accepted) for entity references and nesting, and blanks empty
 * default namespace declarations in them when asked to. data holds len
 * bytes: the first seen of them were watched by the previous call (bytes it
 * held back, see lw_xml_guard_undecided), the rest are new.
 * LW_ERR_LIMIT when the expansion budget or the depth is exceeded;
 * LW_ERR_SYNTAX when such a declaration began before data (given to raptor
 * already, so it cannot be blanked any more). */
LwStatus lw_xml_guard_feed(LwXmlGuard *guard, char *data, size_t len,
                           size_t seen, LwError *err);

/* How many bytes at the end of the data watched so far may still be part
 * of an empty default namespace declaration (blanked only once its value
 * closes): hold them back from raptor, and give them again, as seen, with
 * the next data. 0 unless lw_xml_guard_blank_empty_default_ns was called. */
size_t lw_xml_guard_undecided(const LwXmlGuard *guard);

#endif
