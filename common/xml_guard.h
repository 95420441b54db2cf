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

/* Watches the next len bytes of the document (all of it, from the start,
 * once the prolog was accepted) for entity references and nesting.
 * LW_ERR_LIMIT when the expansion budget or the depth is exceeded. */
LwStatus lw_xml_guard_feed(LwXmlGuard *guard, const char *data, size_t len,
                           LwError *err);

#endif
