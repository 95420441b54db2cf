/*
 * The RDFa attributes of one element, read once: HTML's tree has them by
 * their written names ("xml:lang", "xmlns:dc"), XML's with namespaces
 * (xml:lang in the XML namespace, xmlns:dc among the namespace
 * declarations).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rdfa/rdfa_attrs.h"

static const char *const NAMES[RDFA_ATTR_COUNT] = {
  [RDFA_ABOUT] = "about",       [RDFA_SRC] = "src",         [RDFA_HREF] = "href",
  [RDFA_RESOURCE] = "resource", [RDFA_TYPEOF] = "typeof",   [RDFA_REL] = "rel",
  [RDFA_REV] = "rev",           [RDFA_PROPERTY] = "property", [RDFA_CONTENT] = "content",
  [RDFA_DATATYPE] = "datatype", [RDFA_INLIST] = "inlist",   [RDFA_VOCAB] = "vocab",
  [RDFA_PREFIX] = "prefix",     [RDFA_LANG] = "lang",       [RDFA_XML_LANG] = "xml:lang",
  [RDFA_DATETIME] = "datetime", [RDFA_XML_BASE] = "xml:base",
};

static const char *XML_NAMESPACE = "http://www.w3.org/XML/1998/namespace";

/* Which of NAMES the attribute is, or -1. */
static int which(xmlAttrPtr a)
{
  const char *name = (const char *)a->name;
  if (a->ns) {
    bool xml = a->ns->href && !strcmp((const char *)a->ns->href, XML_NAMESPACE);
    if (!xml) {
      return -1;
    }
    return !strcmp(name, "lang") ? RDFA_XML_LANG : !strcmp(name, "base") ? RDFA_XML_BASE : -1;
  }
  for (int i = 0; i < RDFA_ATTR_COUNT; ++i) {
    if (!strcasecmp(name, NAMES[i])) {
      return i;
    }
  }
  return -1;
}

void rdfa_attrs_read(xmlNodePtr n, RdfaAttrs *attrs)
{
  *attrs = (RdfaAttrs){0};
  for (xmlAttrPtr a = n->properties; a; a = a->next) {
    int i = which(a);
    if (i < 0 || attrs->value[i]) {
      continue; /* the first of a repeated attribute counts */
    }
    xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
    attrs->value[i] = v ? (char *)v : (char *)xmlStrdup((const xmlChar *)"");
  }
}

void rdfa_attrs_free(RdfaAttrs *attrs)
{
  for (int i = 0; i < RDFA_ATTR_COUNT; ++i) {
    xmlFree(attrs->value[i]);
    attrs->value[i] = NULL;
  }
}
