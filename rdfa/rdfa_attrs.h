/*
 * The RDFa attributes of one element (rdfa/rdfa_attrs.c). Private to rdfa/.
 */
#ifndef LW_RDFA_ATTRS_H
#define LW_RDFA_ATTRS_H

#include <libxml/tree.h>

typedef enum {
  RDFA_ABOUT,
  RDFA_SRC,
  RDFA_HREF,
  RDFA_RESOURCE,
  RDFA_TYPEOF,
  RDFA_REL,
  RDFA_REV,
  RDFA_PROPERTY,
  RDFA_CONTENT,
  RDFA_DATATYPE,
  RDFA_INLIST,
  RDFA_VOCAB,
  RDFA_PREFIX,
  RDFA_LANG,
  RDFA_XML_LANG,
  RDFA_DATETIME,
  RDFA_XML_BASE,
  RDFA_ATTR_COUNT
} RdfaAttrName;

/* Each attribute's value (xmlFree'd by rdfa_attrs_free), NULL when absent. */
typedef struct {
  char *value[RDFA_ATTR_COUNT];
} RdfaAttrs;

void rdfa_attrs_read(xmlNodePtr n, RdfaAttrs *attrs);
void rdfa_attrs_free(RdfaAttrs *attrs);

#endif
