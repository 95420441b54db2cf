/*
 * Literal values: an element's text, its children as an XML literal
 * (rdf:XMLLiteral, rdf:HTML), and the XSD type of a <time> element's value
 * (HTML+RDFa 1.1 §3.1).
 */
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlsave.h>

#include "rdfa/rdfa_private.h"

char *rdfa_text_content(xmlNodePtr element)
{
  xmlChar *text = xmlNodeGetContent(element);
  char *copy = strdup(text ? (const char *)text : "");
  xmlFree(text);
  return copy;
}

/* ---- XML literals ---- */

static void append_escaped(LwBuf *out, const char *s, bool attribute)
{
  for (; *s; ++s) {
    switch (*s) {
    case '&': lw_buf_append_str(out, "&amp;"); break;
    case '<': lw_buf_append_str(out, "&lt;"); break;
    case '>': lw_buf_append_str(out, "&gt;"); break;
    case '"': lw_buf_append_str(out, attribute ? "&quot;" : "\""); break;
    default: lw_buf_append_char(out, *s);
    }
  }
}

static void append_qname(LwBuf *out, const xmlChar *prefix, const xmlChar *name)
{
  if (prefix) {
    lw_buf_appendf(out, "%s:", (const char *)prefix);
  }
  lw_buf_append_str(out, (const char *)name);
}

/* One namespace declaration of an XML literal's element. */
typedef struct {
  const char *prefix; /* NULL: the default namespace */
  const char *iri;
} Decl;

typedef struct {
  Decl *decls;
  size_t count, cap;
} Decls;

static bool same_prefix(const char *a, const char *b)
{
  return a == b || (a && b && !strcmp(a, b));
}

static void add_decl(Decls *d, const char *prefix, const char *iri)
{
  for (size_t i = 0; i < d->count; ++i) {
    if (same_prefix(d->decls[i].prefix, prefix)) {
      return; /* the nearest declaration counts */
    }
  }
  if (d->count == d->cap) {
    size_t cap = d->cap ? 2 * d->cap : 16;
    Decl *grown = realloc(d->decls, cap * sizeof(*grown));
    if (!grown) {
      return;
    }
    d->decls = grown;
    d->cap = cap;
  }
  d->decls[d->count++] = (Decl){prefix, iri};
}

static int decl_order(const void *a, const void *b)
{
  const Decl *x = a, *y = b;
  if (!x->prefix || !y->prefix) {
    return x->prefix ? 1 : y->prefix ? -1 : 0;
  }
  return strcmp(x->prefix, y->prefix);
}

/* The namespaces in scope at n declared: an XML literal stands alone. They
 * are n's XML namespaces, an HTML tree's xmlns attributes, and the
 * document's prefix mappings. */
static void append_namespaces(LwBuf *out, xmlNodePtr n, const RdfaPrefix *prefixes)
{
  Decls d = {0};
  xmlNsPtr *list = xmlGetNsList(n->doc, n);
  for (size_t i = 0; list && list[i]; ++i) {
    add_decl(&d, (const char *)list[i]->prefix,
             list[i]->href ? (const char *)list[i]->href : "");
  }
  for (xmlNodePtr up = n; up && up->type == XML_ELEMENT_NODE; up = up->parent) {
    for (xmlAttrPtr a = up->properties; a; a = a->next) {
      if (!a->ns && !strcmp((const char *)a->name, "xmlns") && a->children &&
          a->children->content) {
        add_decl(&d, NULL, (const char *)a->children->content);
      }
    }
  }
  for (const RdfaPrefix *p = prefixes; p; p = p->next) {
    add_decl(&d, p->prefix, p->iri);
  }
  qsort(d.decls, d.count, sizeof(*d.decls), decl_order);
  for (size_t i = 0; i < d.count; ++i) {
    if (d.decls[i].prefix) {
      lw_buf_appendf(out, " xmlns:%s=\"", d.decls[i].prefix);
    } else {
      lw_buf_append_str(out, " xmlns=\"");
    }
    append_escaped(out, d.decls[i].iri, true);
    lw_buf_append_char(out, '"');
  }
  free(d.decls);
  xmlFree(list);
}

static void append_attributes(LwBuf *out, xmlNodePtr n)
{
  for (xmlAttrPtr a = n->properties; a; a = a->next) {
    const char *name = (const char *)a->name;
    if (!a->ns && (!strcmp(name, "xmlns") || !strncmp(name, "xmlns:", 6))) {
      continue; /* HTML's: declared with the namespaces */
    }
    lw_buf_append_char(out, ' ');
    append_qname(out, a->ns ? a->ns->prefix : NULL, a->name);
    lw_buf_append_str(out, "=\"");
    xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
    append_escaped(out, v ? (const char *)v : "", true);
    xmlFree(v);
    lw_buf_append_char(out, '"');
  }
}

/* One node as it stands, by libxml2's serializer. */
static void append_dumped(LwBuf *out, xmlNodePtr n)
{
  xmlBufferPtr b = xmlBufferCreate();
  if (!b) {
    return;
  }
  xmlSaveCtxtPtr save = xmlSaveToBuffer(b, "UTF-8", XML_SAVE_NO_DECL | XML_SAVE_AS_XML);
  if (save) {
    xmlSaveTree(save, n);
    xmlSaveClose(save);
    lw_buf_append(out, xmlBufferContent(b), (size_t)xmlBufferLength(b));
  }
  xmlBufferFree(b);
}

/* A top-level element of the literal: its start tag written here with the
 * namespaces in scope, its content by libxml2. */
static void append_top_element(LwBuf *out, xmlNodePtr n, const RdfaPrefix *prefixes)
{
  lw_buf_append_char(out, '<');
  append_qname(out, n->ns ? n->ns->prefix : NULL, n->name);
  append_attributes(out, n);
  append_namespaces(out, n, prefixes);
  lw_buf_append_char(out, '>');
  for (xmlNodePtr c = n->children; c; c = c->next) {
    append_dumped(out, c);
  }
  lw_buf_append_str(out, "</");
  append_qname(out, n->ns ? n->ns->prefix : NULL, n->name);
  lw_buf_append_char(out, '>');
}

/* The children of element; top-level elements with their namespaces when
 * declare, else as they stand. */
static char *children_literal(xmlNodePtr element, bool declare, const RdfaPrefix *prefixes)
{
  LwBuf out = {0};
  lw_buf_append_str(&out, ""); /* never NULL */
  for (xmlNodePtr c = element->children; c; c = c->next) {
    if (c->type == XML_ELEMENT_NODE && declare) {
      append_top_element(&out, c, prefixes);
    } else if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
      xmlChar *text = xmlNodeGetContent(c);
      append_escaped(&out, text ? (const char *)text : "", false);
      xmlFree(text);
    } else {
      append_dumped(&out, c);
    }
  }
  return lw_buf_steal(&out);
}

char *rdfa_xml_literal(xmlNodePtr element, const RdfaPrefix *prefixes)
{
  return children_literal(element, true, prefixes);
}

char *rdfa_html_literal(xmlNodePtr element)
{
  return children_literal(element, false, NULL);
}

/* ---- <time> values ---- */

static const char *digits(const char *s, size_t min, size_t max)
{
  size_t n = 0;
  while (s[n] >= '0' && s[n] <= '9') {
    ++n;
  }
  return n >= min && n <= max ? s + n : NULL;
}

/* An optional time zone, then the end. */
static bool zone_end(const char *s)
{
  if (*s == 'Z') {
    return s[1] == '\0';
  }
  if (*s == '+' || *s == '-') {
    s = digits(s + 1, 2, 2);
    s = s && *s == ':' ? digits(s + 1, 2, 2) : NULL;
    return s && *s == '\0';
  }
  return *s == '\0';
}

static const char *year(const char *s)
{
  return digits(*s == '-' ? s + 1 : s, 4, 32);
}

/* hh:mm:ss(.s+)? */
static const char *clock(const char *s)
{
  s = digits(s, 2, 2);
  s = s && *s == ':' ? digits(s + 1, 2, 2) : NULL;
  s = s && *s == ':' ? digits(s + 1, 2, 2) : NULL;
  if (s && *s == '.') {
    s = digits(s + 1, 1, 32);
  }
  return s;
}

static bool is_duration(const char *s)
{
  if (*s == '-') {
    ++s;
  }
  if (*s++ != 'P' || !*s) {
    return false;
  }
  bool in_time = false, any = false;
  while (*s) {
    if (*s == 'T' && !in_time) {
      in_time = true;
      ++s;
      if (!*s) {
        return false;
      }
      continue;
    }
    const char *e = digits(s, 1, 32);
    if (e && *e == '.') {
      e = digits(e + 1, 1, 32);
      if (!e || *e != 'S') {
        return false;
      }
    }
    if (!e || !strchr(in_time ? "HMS" : "YMD", *e) || !*e) {
      return false;
    }
    any = true;
    s = e + 1;
  }
  return any;
}

const char *rdfa_datetime_type(const char *value)
{
  const char *y = year(value);
  if (y && *y == '-') {
    const char *m = digits(y + 1, 2, 2);
    if (m && *m == '-') {
      const char *d = digits(m + 1, 2, 2);
      if (d && *d == 'T') {
        const char *t = clock(d + 1);
        return t && zone_end(t) ? XSD_NS "dateTime" : NULL;
      }
      return d && zone_end(d) ? XSD_NS "date" : NULL;
    }
    return m && zone_end(m) ? XSD_NS "gYearMonth" : NULL;
  }
  if (y && zone_end(y)) {
    return XSD_NS "gYear";
  }
  const char *t = clock(value);
  if (t && zone_end(t)) {
    return XSD_NS "time";
  }
  return is_duration(value) ? XSD_NS "duration" : NULL;
}
